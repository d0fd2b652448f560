#include "slow.h"
#include "send.h"
#include "core/fanout.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* At most TRV_FANOUT_LATE_MAX requests go on alone in a process, so as
 * many subscriptions at most are slow at once: a small table does. */
typedef struct slow_sub {
    char *sub;          /* malloc'd; NULL: a free slot */
    int n;              /* its requests going on alone */
    apr_time_t oldest;  /* when the oldest of them started */
    apr_time_t until;   /* slow until then */
} slow_sub;

/* A slot per request that may go on alone, and as many again for
 * subscriptions remembered slow with none going on. */
#define SLOTS (2 * TRV_FANOUT_LATE_MAX)
static slow_sub table[SLOTS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static slow_sub *find(const char *sub)
{
    int i;
    for (i = 0; i < SLOTS; i++) {
        if (table[i].sub && strcmp(table[i].sub, sub) == 0) {
            return &table[i];
        }
    }
    return NULL;
}

void trv_webhook_slow_enter(const char *sub, apr_time_t started)
{
    slow_sub *s;
    int i;
    if (!sub) {
        return;
    }
    apr_time_t now = apr_time_now();
    pthread_mutex_lock(&lock);
    if (!(s = find(sub))) {
        /* A free slot, or one whose memory has lapsed. */
        for (i = 0; i < SLOTS && !s; i++) {
            if (table[i].sub && table[i].n == 0 && table[i].until < now) {
                free(table[i].sub);
                table[i].sub = NULL;
            }
            if (!table[i].sub && (table[i].sub = strdup(sub))) {
                s = &table[i];
                s->n = 0;
                s->oldest = started;
            }
        }
    }
    if (s) {
        if (s->n++ == 0 || started < s->oldest) {
            s->oldest = started;
        }
        s->until = now + TRV_WEBHOOK_SLOW_MEMORY;
    }
    pthread_mutex_unlock(&lock);
}

void trv_webhook_slow_leave(const char *sub, int answered)
{
    slow_sub *s;
    if (!sub) {
        return;
    }
    pthread_mutex_lock(&lock);
    if ((s = find(sub))) {
        if (s->n > 0) {
            s->n--;
        }
        s->until = answered ? 0 : apr_time_now() + TRV_WEBHOOK_SLOW_MEMORY;
        if (s->n == 0 && answered) {
            free(s->sub);
            s->sub = NULL;
        }
    }
    pthread_mutex_unlock(&lock);
}

int trv_webhook_slow_known(const char *sub, apr_time_t now)
{
    slow_sub *s;
    int known;
    if (!sub) {
        return 0;
    }
    pthread_mutex_lock(&lock);
    known = (s = find(sub)) != NULL && s->until > now;
    pthread_mutex_unlock(&lock);
    return known;
}

int trv_webhook_slow_held(const char *sub, apr_time_t now, apr_interval_time_t *wait)
{
    slow_sub *s;
    int held = 0;
    if (!sub) {
        return 0;
    }
    pthread_mutex_lock(&lock);
    if ((s = find(sub)) && s->n >= TRV_WEBHOOK_SLOW_MAX) {
        held = 1;
        /* The oldest is kept while any is slow: a wait that comes out
         * short is only another look half a second later. */
        *wait = s->oldest + TRV_WEBHOOK_TIMEOUT - now;
        if (*wait < apr_time_from_msec(500)) {
            *wait = apr_time_from_msec(500);
        }
    }
    pthread_mutex_unlock(&lock);
    return held;
}
