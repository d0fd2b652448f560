#include "slow.h"
#include "send.h"
#include "core/fanout.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* The start of each request going on alone that a subscription's slot
 * keeps (more may go on, by a race of two senders: they are counted, not
 * timed). */
#define STARTS (2 * TRV_WEBHOOK_SLOW_MAX)

/* At most TRV_FANOUT_LATE_MAX requests go on alone in a process, so as
 * many subscriptions at most are slow at once: a small table does. */
typedef struct slow_sub {
    char *sub;               /* malloc'd; NULL: a free slot */
    int n;                   /* its requests going on alone */
    int nstarts;
    apr_time_t starts[STARTS];
    apr_time_t until;        /* slow until then */
    apr_time_t hanging_until; /* one ended without an answer: hanging until then */
    apr_time_t next_free;    /* the next held request's turn while it hangs */
    apr_interval_time_t answer; /* its last answer's time; 0: none in memory */
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

static apr_interval_time_t patience(const slow_sub *s)
{
    apr_interval_time_t t = 2 * s->answer;
    if (s->answer <= 0 || t < TRV_WEBHOOK_HANGING_SOON) {
        return TRV_WEBHOOK_HANGING_SOON;
    }
    return t > TRV_WEBHOOK_HANGING ? TRV_WEBHOOK_HANGING : t;
}

static int hanging(const slow_sub *s, apr_time_t now)
{
    apr_interval_time_t limit = patience(s);
    int i;
    if (s->hanging_until > now) {
        return 1;
    }
    for (i = 0; i < s->nstarts; i++) {
        if (now - s->starts[i] >= limit) {
            return 1;
        }
    }
    return 0;
}

void trv_webhook_slow_enter(const char *sub, apr_time_t started)
{
    slow_sub *s = NULL;
    char *dup;
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
            if (!table[i].sub && (dup = strdup(sub))) {
                s = &table[i];
                memset(s, 0, sizeof(*s));
                s->sub = dup;
            }
        }
    }
    if (s) {
        s->n++;
        if (s->nstarts < STARTS) {
            s->starts[s->nstarts++] = started;
        }
        s->until = now + TRV_WEBHOOK_SLOW_MEMORY;
    }
    pthread_mutex_unlock(&lock);
}

int trv_webhook_slow_leave(const char *sub, apr_time_t started, trv_slow_end how)
{
    slow_sub *s;
    int i, hung = 0;
    if (!sub) {
        return 0;
    }
    apr_time_t now = apr_time_now();
    pthread_mutex_lock(&lock);
    if ((s = find(sub))) {
        hung = hanging(s, now);
        if (s->n > 0) {
            s->n--;
        }
        for (i = 0; i < s->nstarts; i++) {
            if (s->starts[i] == started) {
                s->starts[i] = s->starts[--s->nstarts];
                break;
            }
        }
        if (how == TRV_SLOW_UNANSWERED) {
            s->until = s->hanging_until = now + TRV_WEBHOOK_SLOW_MEMORY;
        }
        else {
            /* It answers: no line of held requests, a slot frees soon, and
             * it is given twice this answer's time before it hangs. */
            s->hanging_until = 0;
            s->next_free = 0;
            s->answer = now > started ? now - started : 1;
            s->until = how == TRV_SLOW_ANSWERED ? 0 : now + TRV_WEBHOOK_SLOW_MEMORY;
        }
        if (s->n == 0 && how == TRV_SLOW_ANSWERED) {
            free(s->sub);
            s->sub = NULL;
        }
    }
    pthread_mutex_unlock(&lock);
    return hung;
}

apr_interval_time_t trv_webhook_slow_patience(const char *sub)
{
    slow_sub *s;
    apr_interval_time_t t = TRV_WEBHOOK_HANGING_SOON;
    if (!sub) {
        return t;
    }
    pthread_mutex_lock(&lock);
    if ((s = find(sub))) {
        t = patience(s);
    }
    pthread_mutex_unlock(&lock);
    return t;
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


int trv_webhook_slow_held(const char *sub, apr_time_t now, int admitted,
                          apr_interval_time_t *wait)
{
    slow_sub *s;
    int held = 0;
    if (!sub) {
        return 0;
    }
    pthread_mutex_lock(&lock);
    if ((s = find(sub))) {
        int hangs = hanging(s, now);
        if (s->n + admitted >= (hangs ? TRV_WEBHOOK_PROBES : TRV_WEBHOOK_SLOW_MAX)) {
            held = 1;
            if (!hangs) {
                *wait = TRV_WEBHOOK_PATIENCE;
            }
            else {
                /* In line: a probe's place frees about every TIMEOUT / PROBES. */
                apr_time_t due = s->next_free > now + TRV_WEBHOOK_PATIENCE
                                     ? s->next_free : now + TRV_WEBHOOK_PATIENCE;
                if (due > now + TRV_WEBHOOK_SLOW_MEMORY) {
                    due = now + TRV_WEBHOOK_SLOW_MEMORY;
                }
                else {
                    s->next_free = due + TRV_WEBHOOK_TIMEOUT / TRV_WEBHOOK_PROBES;
                }
                *wait = due - now;
            }
        }
    }
    pthread_mutex_unlock(&lock);
    return held;
}

int trv_webhook_slow_hanging(const char *sub, apr_time_t now)
{
    slow_sub *s;
    int h;
    if (!sub) {
        return 0;
    }
    pthread_mutex_lock(&lock);
    h = (s = find(sub)) != NULL && hanging(s, now);
    pthread_mutex_unlock(&lock);
    return h;
}
