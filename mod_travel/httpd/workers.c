/* Background worker threads, N per child. Each loops: claim a due job, run
 * it, record the outcome; when idle it waits on a condition variable with a
 * timeout, so a wake (new work committed here) or a stop is noticed at once. */
#include "travel.h"
#include "core/fanout.h"

#include "ap_mpm.h"

#include <apr_atomic.h>
#include <apr_strings.h>
#include <apr_thread_cond.h>
#include <apr_thread_mutex.h>
#include <apr_thread_proc.h>
#include <unistd.h>

struct trv_workers {
    apr_pool_t *pool;
    server_rec *s;
    trv_env *env;
    const trv_job_kind *kinds;
    apr_thread_mutex_t *mu;
    apr_thread_cond_t *cv;
    apr_uint32_t pending_wakes;
    /* Per thread: when it last came back to its loop (seconds), 0 once it
     * has returned. A thread inside a job longer than the job lease counts
     * as stuck: the queue gives its job to another worker by then anyway. */
    apr_uint32_t *beats;
    int n;
    apr_thread_t **threads;
    int joined;
};

typedef struct worker_arg {
    trv_workers *w;
    int index;
} worker_arg;

static void wait_for(trv_workers *w, apr_interval_time_t t)
{
    apr_thread_mutex_lock(w->mu);
    if (!TRV_STOPPING(w->env) && apr_atomic_read32(&w->pending_wakes) == 0) {
        apr_thread_cond_timedwait(w->cv, w->mu, t);
    }
    if (apr_atomic_read32(&w->pending_wakes) > 0) {
        apr_atomic_dec32(&w->pending_wakes);
    }
    apr_thread_mutex_unlock(w->mu);
}

static void *APR_THREAD_FUNC worker_main(apr_thread_t *thd, void *data)
{
    worker_arg *a = data;
    trv_workers *w = a->w;
    apr_pool_t *p;
    const char *id;
    apr_interval_time_t idle = w->env->cfg->job_poll, backoff = idle;
    char host[128] = "localhost";

    gethostname(host, sizeof(host) - 1);
    apr_pool_create(&p, apr_thread_pool_get(thd));
    id = apr_psprintf(apr_thread_pool_get(thd), "%s:%d:%d", host, (int)getpid(), a->index);
    while (!TRV_STOPPING(w->env)) {
        int ran;
        apr_atomic_set32(&w->beats[a->index], (apr_uint32_t)apr_time_sec(apr_time_now()));
        ran = trv_worker_step(w->env, p, w->kinds, id);
        apr_pool_clear(p);
        if (ran > 0) {
            backoff = idle;
            continue;
        }
        if (ran < 0) {
            /* Database unreachable: back off up to 5 s, then try again. */
            backoff = backoff * 2 > apr_time_from_sec(5) ? apr_time_from_sec(5)
                                                         : backoff * 2;
            wait_for(w, backoff);
            continue;
        }
        /* Spread idle polls so threads do not query in lockstep. */
        wait_for(w, idle / 2 + (apr_interval_time_t)(rand() % (int)(idle / 1000 + 1)) * 1000);
    }
    apr_pool_destroy(p);
    apr_atomic_set32(&w->beats[a->index], 0);
    apr_thread_exit(thd, APR_SUCCESS);
    return NULL;
}

int trv_workers_alive(void *baton, apr_interval_time_t within)
{
    trv_workers *w = baton;
    apr_uint32_t now = (apr_uint32_t)apr_time_sec(apr_time_now());
    int i, n = 0;
    for (i = 0; i < w->n; i++) {
        apr_uint32_t beat = apr_atomic_read32(&w->beats[i]);
        if (beat && now - beat <= (apr_uint32_t)apr_time_sec(within) + 1) {
            n++;
        }
    }
    return n;
}

void trv_workers_wake(void *baton)
{
    trv_workers *w = baton;
    apr_atomic_inc32(&w->pending_wakes);
    apr_thread_mutex_lock(w->mu);
    apr_thread_cond_signal(w->cv);
    apr_thread_mutex_unlock(w->mu);
}

void trv_workers_stop(trv_workers *w)
{
    if (!w) {
        return;
    }
    apr_atomic_set32((apr_uint32_t *)w->env->stopping, 1);
    apr_thread_mutex_lock(w->mu);
    apr_thread_cond_broadcast(w->cv);
    apr_thread_mutex_unlock(w->mu);
}

static apr_status_t join_workers(void *data)
{
    trv_workers *w = data;
    int i;
    trv_workers_stop(w);
    if (w->joined) {
        return APR_SUCCESS;
    }
    w->joined = 1;
    for (i = 0; i < w->n; i++) {
        apr_status_t rv;
        if (w->threads[i]) {
            apr_thread_join(&rv, w->threads[i]);
        }
    }
    /* Webhook requests a sender stopped waiting for (core/fanout.h) record
     * themselves with this child's connections: the child waits for them
     * (they end at once when stopping: the HTTP client aborts). */
    trv_fanout_drain(apr_time_from_sec(15));
    return APR_SUCCESS;
}

trv_workers *trv_workers_start(apr_pool_t *pchild, server_rec *s, trv_env *env,
                               const trv_job_kind *kinds, int n)
{
    trv_workers *w;
    apr_allocator_t *allocator;
    apr_pool_t *pool;
    int i;

    /* An allocator of its own: these threads allocate concurrently with the
     * MPM's threads, and the child pool's allocator is not for sharing. */
    apr_allocator_create(&allocator);
    apr_pool_create_ex(&pool, pchild, NULL, allocator);
    apr_allocator_owner_set(allocator, pool);
    {
        apr_thread_mutex_t *amu;
        apr_thread_mutex_create(&amu, APR_THREAD_MUTEX_DEFAULT, pool);
        apr_allocator_mutex_set(allocator, amu);
    }
    w = apr_pcalloc(pool, sizeof(*w));
    w->pool = pool;
    w->s = s;
    w->env = env;
    w->kinds = kinds;
    w->n = n;
    w->threads = apr_pcalloc(pool, sizeof(apr_thread_t *) * (n ? n : 1));
    w->beats = apr_pcalloc(pool, sizeof(apr_uint32_t) * (n ? n : 1));
    apr_thread_mutex_create(&w->mu, APR_THREAD_MUTEX_DEFAULT, pool);
    apr_thread_cond_create(&w->cv, pool);
    env->wake = trv_workers_wake;
    env->wake_baton = w;
    env->workers_alive = trv_workers_alive;
    apr_pool_pre_cleanup_register(pchild, w, join_workers);
    for (i = 0; i < n; i++) {
        worker_arg *a = apr_pcalloc(pool, sizeof(*a));
        apr_status_t rv;
        a->w = w;
        a->index = i;
        /* Alive from its start, so a health check right after start-up
         * sees it; the thread clears its beat when it returns. */
        apr_atomic_set32(&w->beats[i], (apr_uint32_t)apr_time_sec(apr_time_now()));
        rv = apr_thread_create(&w->threads[i], NULL, worker_main, a, pool);
        if (rv != APR_SUCCESS) {
            apr_atomic_set32(&w->beats[i], 0);
            ap_log_error(APLOG_MARK, APLOG_ERR, rv, s,
                         TRVLOGNO(401) "cannot start background worker %d "
                         "[request_id -]", i);
            w->threads[i] = NULL;
        }
    }
    return w;
}
