#include "offload.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

/* One slot per thread: a thread waits on its own slot, so a piece of work
 * goes to exactly the idle thread chosen for it. */
typedef struct slot {
    pthread_cond_t cv;
    void (*fn)(void *);
    void *baton;
    struct slot *next_idle;
} slot;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t drained = PTHREAD_COND_INITIALIZER;
static slot *idle;      /* threads waiting for work */
static int threads;     /* started and not ended */
static int busy;        /* running a piece of work */

static void *thread_main(void *data)
{
    slot *s = data;
    pthread_mutex_lock(&lock);
    for (;;) {
        while (!s->fn) {
            pthread_cond_wait(&s->cv, &lock);
        }
        {
            void (*fn)(void *) = s->fn;
            void *baton = s->baton;
            pthread_mutex_unlock(&lock);
            fn(baton);
            pthread_mutex_lock(&lock);
        }
        s->fn = NULL;
        s->baton = NULL;
        if (--busy == 0) {
            pthread_cond_broadcast(&drained);
        }
        s->next_idle = idle;
        idle = s;
    }
    return NULL;
}

apr_status_t trv_offload(void (*fn)(void *baton), void *baton, int max)
{
    slot *s;
    pthread_attr_t attr;
    pthread_t t;
    apr_status_t rv = APR_SUCCESS;

    pthread_mutex_lock(&lock);
    if ((s = idle) != NULL) {
        idle = s->next_idle;
        s->fn = fn;
        s->baton = baton;
        busy++;
        pthread_cond_signal(&s->cv);
    }
    else if (threads >= max || !(s = calloc(1, sizeof(*s)))) {
        rv = APR_EAGAIN;
    }
    else {
        pthread_cond_init(&s->cv, NULL);
        s->fn = fn;
        s->baton = baton;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        if (pthread_create(&t, &attr, thread_main, s) == 0) {
            threads++;
            busy++;
        }
        else {
            pthread_cond_destroy(&s->cv);
            free(s);
            rv = APR_EAGAIN;
        }
        pthread_attr_destroy(&attr);
    }
    pthread_mutex_unlock(&lock);
    return rv;
}

int trv_offload_busy(void)
{
    int n;
    pthread_mutex_lock(&lock);
    n = busy;
    pthread_mutex_unlock(&lock);
    return n;
}

int trv_offload_drain(apr_interval_time_t max)
{
    struct timespec until;
    int left;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += (time_t)apr_time_sec(max);
    until.tv_nsec += (long)apr_time_usec(max) * 1000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&lock);
    while (busy > 0 && pthread_cond_timedwait(&drained, &lock, &until) == 0) {
    }
    left = busy;
    pthread_mutex_unlock(&lock);
    return left == 0;
}
