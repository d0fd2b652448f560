#include "fanout.h"
#include "json_arena.h"

#include <apr_allocator.h>
#include <apr_atomic.h>
#include <apr_thread_mutex.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

/* The call pools' allocator: one per process, with a mutex, keeping up to
 * CALL_MAX_FREE of freed blocks for the next calls. An allocator of its own
 * per call, destroyed with the call, gave every supplier answer (its buffer
 * and the reader's value array, a few hundred kB) fresh pages from the
 * kernel, page faults and all, and a hotel search makes three to six calls
 * (docs/performance.md). */
#define CALL_MAX_FREE ((apr_size_t)8 * 1024 * 1024)
static apr_allocator_t *calls;
static apr_pool_t *calls_mutex_pool; /* kept (never destroyed) for its mutex */
static pthread_once_t calls_once = PTHREAD_ONCE_INIT;

static void calls_init(void)
{
    apr_allocator_t *a;
    apr_thread_mutex_t *m;
    if (apr_allocator_create(&a) != APR_SUCCESS) {
        return;
    }
    /* The mutex's own pool, on the same allocator, never destroyed, as the
     * allocator (its own allocator would be seen as a leak at exit). */
    if (apr_pool_create_unmanaged_ex(&calls_mutex_pool, NULL, a) != APR_SUCCESS
        || apr_thread_mutex_create(&m, APR_THREAD_MUTEX_DEFAULT, calls_mutex_pool)
               != APR_SUCCESS) {
        apr_allocator_destroy(a);
        return;
    }
    apr_allocator_mutex_set(a, m);
    apr_allocator_max_free_set(a, CALL_MAX_FREE);
    calls = a;
}

apr_pool_t *trv_call_pool(apr_pool_t *parent)
{
    apr_allocator_t *alloc;
    apr_pool_t *p;
    pthread_once(&calls_once, calls_init);
    if (calls) {
        return apr_pool_create_ex(&p, parent, NULL, calls) == APR_SUCCESS ? p : NULL;
    }
    if (apr_allocator_create(&alloc) != APR_SUCCESS) {
        return NULL;
    }
    if (apr_pool_create_ex(&p, parent, NULL, alloc) != APR_SUCCESS) {
        apr_allocator_destroy(alloc);
        return NULL;
    }
    apr_allocator_owner_set(alloc, p);
    return p;
}

typedef struct job {
    void (*fn)(void *);
    void *baton;
    trv_json_arena *arena;           /* the call's, when the caller has one */
} job;

/* trv_fanout's workers: threads of the process kept for the next calls. A
 * thread started for each call and ended after it was a twentieth of a
 * hotel search's CPU, in the kernel (clone, the new stack's page faults,
 * exit: docs/performance.md). A free worker waits on its own condition
 * for the one task it is handed (one shared queue and condition had every
 * request thread and worker of a child contend for one futex: 7 % of a
 * hotel search's CPU); once done it is free again, then counts the task
 * done in its batch. A worker is started when none is free, up to
 * WORKERS_MAX a process, beyond which the caller runs the call itself. */
#define WORKERS_MAX 512

typedef struct batch {
    pthread_mutex_t lock;
    pthread_cond_t done;
    int pending;                     /* tasks handed out, not done */
} batch;

typedef struct worker {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    job *task;                       /* handed, not yet taken */
    batch *b;
    struct worker *next;             /* in the free list */
} worker;

static struct {
    pthread_mutex_t lock;
    worker *free;                    /* the last freed first: its cache is warm */
    int total;
} workers = {PTHREAD_MUTEX_INITIALIZER, NULL, 0};
static pthread_once_t workers_once = PTHREAD_ONCE_INIT;

/* A forked child has none of its parent's threads: its own workers from
 * nothing, with a lock nobody holds. (The parent's worker structures are
 * left behind: a fork copies them, nobody frees them.) */
static void workers_after_fork(void)
{
    pthread_mutex_init(&workers.lock, NULL);
    workers.free = NULL;
    workers.total = 0;
}

static void workers_init(void)
{
    pthread_atfork(NULL, NULL, workers_after_fork);
}

/* One call on a worker (tests/bench/search-ir.sh counts the instructions
 * inside it: not inlined). */
static __attribute__((noinline)) void fanout_job(job *j)
{
    trv_json_arena_enter(j->arena);
    j->fn(j->baton);
    trv_json_arena_enter(NULL);
}

static void *work(void *data)
{
    worker *w = data;
    for (;;) {
        job *j;
        batch *b;
        pthread_mutex_lock(&w->lock);
        while (!w->task) {
            pthread_cond_wait(&w->wake, &w->lock);
        }
        j = w->task;
        b = w->b;
        w->task = NULL;
        pthread_mutex_unlock(&w->lock);
        fanout_job(j);
        /* Free again before its caller can see the batch done, so that
         * the caller's next fan-out finds it. */
        pthread_mutex_lock(&workers.lock);
        w->next = workers.free;
        workers.free = w;
        pthread_mutex_unlock(&workers.lock);
        /* Signalled under the batch's lock: the caller, which then
         * destroys the batch, cannot wake before this worker let go. */
        pthread_mutex_lock(&b->lock);
        if (--b->pending == 0) {
            pthread_cond_signal(&b->done);
        }
        pthread_mutex_unlock(&b->lock);
    }
    return NULL;
}

/* A free worker (taken off the list) or a new one; NULL when neither. */
static worker *take_worker(void)
{
    worker *w;
    pthread_attr_t attr;
    pthread_t id;
    int rc;
    pthread_mutex_lock(&workers.lock);
    if ((w = workers.free)) {
        workers.free = w->next;
        pthread_mutex_unlock(&workers.lock);
        return w;
    }
    if (workers.total >= WORKERS_MAX || !(w = calloc(1, sizeof(*w)))) {
        pthread_mutex_unlock(&workers.lock);
        return NULL;
    }
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->wake, NULL);
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    rc = pthread_create(&id, &attr, work, w);
    pthread_attr_destroy(&attr);
    if (rc != 0) {
        pthread_mutex_unlock(&workers.lock);
        pthread_cond_destroy(&w->wake);
        pthread_mutex_destroy(&w->lock);
        free(w);
        return NULL;
    }
    workers.total++;
    pthread_mutex_unlock(&workers.lock);
    return w;
}

void trv_fanout(apr_pool_t *p, int n, void (*fn)(void *baton), void **batons)
{
    job *jobs = apr_pcalloc(p, sizeof(job) * (apr_size_t)(n + 1));
    char *mine = apr_pcalloc(p, (apr_size_t)(n + 1));
    batch b;
    int i;
    pthread_once(&workers_once, workers_init);
    pthread_mutex_init(&b.lock, NULL);
    pthread_cond_init(&b.done, NULL);
    b.pending = 0;
    for (i = 1; i < n; i++) {
        worker *w;
        jobs[i].fn = fn;
        jobs[i].baton = batons[i];
        /* Made here, before a worker takes it: the caller's arena owns it. */
        jobs[i].arena = trv_json_arena_child(trv_json_arena_current());
        if (!(w = take_worker())) {
            mine[i] = 1;
            continue;
        }
        pthread_mutex_lock(&b.lock);
        b.pending++;
        pthread_mutex_unlock(&b.lock);
        pthread_mutex_lock(&w->lock);
        w->task = &jobs[i];
        w->b = &b;
        pthread_cond_signal(&w->wake);
        pthread_mutex_unlock(&w->lock);
    }
    for (i = 0; i < n; i++) {
        if (i == 0 || mine[i]) {
            fn(batons[i]);
        }
    }
    pthread_mutex_lock(&b.lock);
    while (b.pending > 0) {
        pthread_cond_wait(&b.done, &b.lock);
    }
    pthread_mutex_unlock(&b.lock);
    pthread_cond_destroy(&b.done);
    pthread_mutex_destroy(&b.lock);
}

int trv_fanout_workers(void)
{
    int n;
    pthread_mutex_lock(&workers.lock);
    n = workers.total;
    pthread_mutex_unlock(&workers.lock);
    return n;
}

/* The patient fan-out. A gate is shared by the caller and its calls' threads
 * (malloc'd: the caller may return before they end); the last to leave frees
 * it. Under its lock a call either finishes while the caller waits (done) or
 * after the caller stopped waiting (late): never both. */
typedef struct gate {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int waiting;      /* the caller still waits */
    int pending;      /* calls not finished */
    int refs;         /* the caller and the running calls */
    int *done;
} gate;

typedef struct patient_call {
    gate *g;
    int index;
    void (*fn)(void *);
    void (*late)(void *);
    void *baton;
} patient_call;

/* Calls running on their own now (started and not finished), and those the
 * caller gave up waiting for. */
static apr_uint32_t running_calls;
static apr_uint32_t late_calls;

static void gate_leave(gate *g)
{
    int last;
    pthread_mutex_lock(&g->lock);
    last = --g->refs == 0;
    pthread_mutex_unlock(&g->lock);
    if (last) {
        pthread_cond_destroy(&g->cond);
        pthread_mutex_destroy(&g->lock);
        free(g->done);
        free(g);
    }
}

static void *patient_run(void *data)
{
    patient_call *c = data;
    gate *g = c->g;
    int late;
    c->fn(c->baton);
    pthread_mutex_lock(&g->lock);
    late = !g->waiting;
    if (!late) {
        g->done[c->index] = 1;
        if (--g->pending == 0) {
            pthread_cond_signal(&g->cond);
        }
    }
    pthread_mutex_unlock(&g->lock);
    if (late) {
        c->late(c->baton);
        apr_atomic_dec32(&late_calls);
    }
    free(c);
    gate_leave(g);
    apr_atomic_dec32(&running_calls);
    return NULL;
}

void trv_fanout_patient(int n, void (*fn)(void *baton), void (*left)(void *baton),
                        void (*late)(void *baton), void **batons,
                        apr_interval_time_t patience, int *done,
                        void (*overdue)(void *ctx), void *ctx)
{
    gate *g = calloc(1, sizeof(*g));
    pthread_attr_t attr;
    struct timespec until;
    int i;

    for (i = 0; i < n; i++) {
        done[i] = 0;
    }
    if (!g || !(g->done = calloc((size_t)(n > 0 ? n : 1), sizeof(int)))) {
        free(g);
        for (i = 0; i < n; i++) {
            fn(batons[i]);
            done[i] = 1;
        }
        return;
    }
    pthread_mutex_init(&g->lock, NULL);
    pthread_cond_init(&g->cond, NULL);
    g->waiting = 1;
    g->refs = 1;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    for (i = 0; i < n; i++) {
        patient_call *c = malloc(sizeof(*c));
        pthread_t t;
        if (c) {
            c->g = g;
            c->index = i;
            c->fn = fn;
            c->late = late;
            c->baton = batons[i];
            pthread_mutex_lock(&g->lock);
            g->refs++;
            g->pending++;
            pthread_mutex_unlock(&g->lock);
            apr_atomic_inc32(&running_calls);
            if (pthread_create(&t, &attr, patient_run, c) == 0) {
                continue;
            }
            apr_atomic_dec32(&running_calls);
            pthread_mutex_lock(&g->lock);
            g->refs--;
            g->pending--;
            pthread_mutex_unlock(&g->lock);
            free(c);
        }
        /* No thread: the call runs here, in time by definition. */
        fn(batons[i]);
        done[i] = 1;
    }
    pthread_attr_destroy(&attr);

    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += (time_t)apr_time_sec(patience);
    until.tv_nsec += (long)apr_time_usec(patience) * 1000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&g->lock);
    while (g->pending > 0) {
        if (pthread_cond_timedwait(&g->cond, &g->lock, &until) == ETIMEDOUT
            && g->pending > 0) {
            /* Past the process's cap the caller waits for its slow calls. */
            if (apr_atomic_add32(&late_calls, (apr_uint32_t)g->pending) + (apr_uint32_t)g->pending
                <= TRV_FANOUT_LATE_MAX) {
                break;
            }
            apr_atomic_sub32(&late_calls, (apr_uint32_t)g->pending);
            if (overdue) {
                /* Calls ending meanwhile count as in time: still waited for. */
                pthread_mutex_unlock(&g->lock);
                overdue(ctx);
                overdue = NULL;
                pthread_mutex_lock(&g->lock);
            }
            while (g->pending > 0) {
                pthread_cond_wait(&g->cond, &g->lock);
            }
        }
    }
    g->waiting = 0;
    for (i = 0; i < n; i++) {
        done[i] = done[i] || g->done[i];
        if (!done[i]) {
            left(batons[i]);
        }
    }
    pthread_mutex_unlock(&g->lock);
    gate_leave(g);
}

int trv_fanout_late_room(void)
{
    apr_uint32_t late = apr_atomic_read32(&late_calls);
    return late >= TRV_FANOUT_LATE_MAX ? 0 : (int)(TRV_FANOUT_LATE_MAX - late);
}

int trv_fanout_drain(apr_interval_time_t max)
{
    apr_time_t end = apr_time_now() + max;
    while (apr_atomic_read32(&running_calls) > 0) {
        if (apr_time_now() >= end) {
            return 0;
        }
        apr_sleep(apr_time_from_msec(20));
    }
    return 1;
}
