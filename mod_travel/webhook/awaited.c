#include "awaited.h"

#include <pthread.h>
#include <string.h>

/* A batch has at most TRV_WEBHOOK_BATCH subscriptions and a process a few
 * senders, so few subscriptions are awaited at once; when the table is
 * full a subscription is not tracked (its requests are waited for, as
 * before this table: nothing worse). */
#define SLOTS 128
#define SUB_MAX 64

typedef struct awaited_sub {
    char sub[SUB_MAX];    /* "": a free slot */
    int n;                /* requests awaited, not ended */
    apr_time_t since;     /* the oldest's start, or the last end since */
} awaited_sub;

static awaited_sub table[SLOTS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static awaited_sub *find(const char *sub)
{
    int i;
    for (i = 0; i < SLOTS; i++) {
        if (table[i].sub[0] && strcmp(table[i].sub, sub) == 0) {
            return &table[i];
        }
    }
    return NULL;
}

int trv_webhook_awaited_begin(const char *sub, apr_time_t started)
{
    awaited_sub *s;
    int i;
    if (!sub || !*sub || strlen(sub) >= SUB_MAX) {
        return 0;
    }
    pthread_mutex_lock(&lock);
    if (!(s = find(sub))) {
        for (i = 0; i < SLOTS && !s; i++) {
            if (!table[i].sub[0]) {
                s = &table[i];
                strcpy(s->sub, sub);
                s->n = 0;
            }
        }
    }
    if (s && s->n++ == 0) {
        s->since = started;
    }
    pthread_mutex_unlock(&lock);
    return s != NULL;
}

void trv_webhook_awaited_end(const char *sub, apr_time_t now)
{
    awaited_sub *s;
    if (!sub || !*sub) {
        return;
    }
    pthread_mutex_lock(&lock);
    if ((s = find(sub))) {
        if (--s->n <= 0) {
            s->sub[0] = '\0';
        }
        else {
            s->since = now; /* it answers: not stalled */
        }
    }
    pthread_mutex_unlock(&lock);
}

int trv_webhook_awaited_stalled(const char *sub, apr_time_t now)
{
    awaited_sub *s;
    int stalled;
    if (!sub || !*sub) {
        return 0;
    }
    pthread_mutex_lock(&lock);
    stalled = (s = find(sub)) != NULL && s->n > 0 && now - s->since >= TRV_WEBHOOK_STALLED;
    pthread_mutex_unlock(&lock);
    return stalled;
}
