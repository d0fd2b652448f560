/* trv_fanout (core/fanout.h): calls at once, on workers kept from one
 * fan-out to the next, also nested and in a forked child.
 * The patient fan-out: calls that finish within the
 * patience are done and seen by the caller; a slower one goes on alone,
 * `left` runs for it in the caller before its `late` can run, and `late`
 * runs on its thread once it finishes; drain waits for it. A patience of
 * 0 leaves every unfinished call to go on alone at once. */
#include "unit.h"

#include "core/fanout.h"

#include <apr_atomic.h>
#include <apr_time.h>
#include <string.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct call {
    int sleep_ms;
    volatile apr_uint32_t ran, left, late, late_after_left;
} call;

static void run(void *baton)
{
    call *c = baton;
    apr_sleep(apr_time_from_msec(c->sleep_ms));
    apr_atomic_set32(&c->ran, 1);
}

static void on_left(void *baton)
{
    call *c = baton;
    apr_atomic_set32(&c->left, 1);
}

static void on_late(void *baton)
{
    call *c = baton;
    apr_atomic_set32(&c->late_after_left, apr_atomic_read32(&c->left));
    apr_atomic_set32(&c->late, 1);
}

static void a_slow_call_goes_on_alone(void **state)
{
    call calls[3] = {{5, 0, 0, 0, 0}, {400, 0, 0, 0, 0}, {5, 0, 0, 0, 0}};
    void *batons[3] = {&calls[0], &calls[1], &calls[2]};
    int done[3];
    apr_time_t t0 = apr_time_now();
    (void)state;
    trv_fanout_patient(3, run, on_left, on_late, batons, apr_time_from_msec(100), done, NULL, NULL);
    /* Back after the patience, not after the slow call. */
    assert_true(apr_time_now() - t0 < apr_time_from_msec(350));
    assert_int_equal(done[0], 1);
    assert_int_equal(done[1], 0);
    assert_int_equal(done[2], 1);
    assert_int_equal(apr_atomic_read32(&calls[0].left), 0);
    assert_int_equal(apr_atomic_read32(&calls[1].left), 1);
    assert_int_equal(apr_atomic_read32(&calls[0].late), 0);
    assert_int_equal(trv_fanout_drain(apr_time_from_sec(5)), 1);
    assert_int_equal(apr_atomic_read32(&calls[1].ran), 1);
    assert_int_equal(apr_atomic_read32(&calls[1].late), 1);
    assert_int_equal(apr_atomic_read32(&calls[1].late_after_left), 1);
}

static void patience_zero_waits_for_nothing(void **state)
{
    call calls[2] = {{200, 0, 0, 0, 0}, {200, 0, 0, 0, 0}};
    void *batons[2] = {&calls[0], &calls[1]};
    int done[2];
    apr_time_t t0 = apr_time_now();
    (void)state;
    trv_fanout_patient(2, run, on_left, on_late, batons, 0, done, NULL, NULL);
    assert_true(apr_time_now() - t0 < apr_time_from_msec(150));
    assert_int_equal(done[0] + done[1], 0);
    assert_int_equal(trv_fanout_drain(apr_time_from_sec(5)), 1);
    assert_int_equal(apr_atomic_read32(&calls[0].late) + apr_atomic_read32(&calls[1].late), 2);
}

static void all_in_time_are_done(void **state)
{
    call calls[4] = {{1, 0, 0, 0, 0}, {2, 0, 0, 0, 0}, {3, 0, 0, 0, 0}, {1, 0, 0, 0, 0}};
    void *batons[4] = {&calls[0], &calls[1], &calls[2], &calls[3]};
    int done[4], i;
    (void)state;
    trv_fanout_patient(4, run, on_left, on_late, batons, apr_time_from_sec(5), done, NULL, NULL);
    for (i = 0; i < 4; i++) {
        assert_int_equal(done[i], 1);
        assert_int_equal(apr_atomic_read32(&calls[i].ran), 1);
        assert_int_equal(apr_atomic_read32(&calls[i].left), 0);
    }
}

static void on_overdue(void *ctx)
{
    apr_time_t *at = ctx;
    *at = apr_time_now();
}

/* TRV_FANOUT_LATE_MAX calls already going on alone: the next caller waits
 * for its slow call, and is told so (overdue) when its patience ends, not
 * when its call does. */
static void past_the_cap_the_caller_waits_and_is_told_first(void **state)
{
    call busy[TRV_FANOUT_LATE_MAX], slow = {600, 0, 0, 0, 0};
    void *batons[TRV_FANOUT_LATE_MAX], *one[1] = {&slow};
    int done[TRV_FANOUT_LATE_MAX], i;
    apr_time_t t0, told = 0;
    (void)state;
    for (i = 0; i < TRV_FANOUT_LATE_MAX; i++) {
        busy[i] = (call){1500, 0, 0, 0, 0};
        batons[i] = &busy[i];
    }
    trv_fanout_patient(TRV_FANOUT_LATE_MAX, run, on_left, on_late, batons, 0, done, NULL,
                       NULL);
    assert_int_equal(trv_fanout_late_room(), 0);
    t0 = apr_time_now();
    trv_fanout_patient(1, run, on_left, on_late, one, apr_time_from_msec(50), done, on_overdue,
                       &told);
    assert_int_equal(done[0], 1);
    assert_int_equal(apr_atomic_read32(&slow.left), 0);
    assert_true(apr_time_now() - t0 >= apr_time_from_msec(600));
    assert_true(told >= t0 + apr_time_from_msec(50));
    assert_true(told < t0 + apr_time_from_msec(400));
    assert_int_equal(trv_fanout_drain(apr_time_from_sec(5)), 1);
    assert_int_equal(trv_fanout_late_room(), TRV_FANOUT_LATE_MAX);
}

/* A supplier answer's memory (its buffer and the reader's value array, a
 * few hundred kB) is not fresh pages each call: a call pool destroyed gives
 * its blocks back to the process's call allocator, and the next call's pool
 * gets them again (docs/performance.md, the page faults of a hotel search). */
static void call_pools_reuse_what_the_last_call_freed(void **state)
{
    apr_pool_t *parent, *a, *b;
    char *first, *again;
    struct rusage before, after;
    (void)state;
    assert_int_equal(apr_pool_create(&parent, NULL), APR_SUCCESS);
    assert_non_null(a = trv_call_pool(parent));
    first = apr_palloc(a, 300 * 1024);
    memset(first, 1, 300 * 1024);
    apr_pool_destroy(a);
    assert_int_equal(getrusage(RUSAGE_SELF, &before), 0);
    assert_non_null(b = trv_call_pool(parent));
    again = apr_palloc(b, 300 * 1024);
    memset(again, 2, 300 * 1024);
    assert_int_equal(getrusage(RUSAGE_SELF, &after), 0);
    /* 75 pages written: fresh ones would fault each. */
    assert_true(after.ru_minflt - before.ru_minflt < 10);
    apr_pool_destroy(parent);
}

typedef struct filler {
    apr_pool_t *parent;
    int ok;
} filler;

static void fill(void *baton)
{
    filler *f = baton;
    int i;
    f->ok = 1;
    for (i = 0; i < 50; i++) {
        apr_pool_t *p = trv_call_pool(f->parent);
        apr_pool_t *sub;
        char *m = apr_palloc(p, 200 * 1024 + (apr_size_t)i * 1024);
        memset(m, i, 200 * 1024);
        f->ok &= apr_pool_create(&sub, p) == APR_SUCCESS;
        f->ok &= m[200 * 1024 - 1] == (char)i;
        apr_pool_destroy(p);
    }
}

/* Call pools made, used and destroyed on several threads at once share the
 * locked allocator: none corrupts what another thread holds (the unit-asan
 * build runs it under AddressSanitizer). */
static void call_pools_live_on_any_thread(void **state)
{
    apr_pool_t *p;
    filler f[4];
    void *batons[4];
    int i;
    (void)state;
    assert_int_equal(apr_pool_create(&p, NULL), APR_SUCCESS);
    for (i = 0; i < 4; i++) {
        f[i].parent = NULL;
        f[i].ok = 0;
        batons[i] = &f[i];
    }
    trv_fanout(p, 4, fill, batons);
    for (i = 0; i < 4; i++) {
        assert_true(f[i].ok);
    }
    apr_pool_destroy(p);
}

/* trv_fanout's calls run at once: each waits (bounded) until all have
 * started, which only concurrent calls can do. */
typedef struct meet {
    pthread_mutex_t lock;
    pthread_cond_t all_here;
    int here, n, met, runs;
} meet;

typedef struct guest {
    meet *m;
    int runs;
} guest;

static void arrive(void *baton)
{
    guest *g = baton;
    meet *m = g->m;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 30;
    pthread_mutex_lock(&m->lock);
    g->runs++;
    if (++m->here == m->n) {
        pthread_cond_broadcast(&m->all_here);
    }
    while (m->here < m->n) {
        if (pthread_cond_timedwait(&m->all_here, &m->lock, &until) != 0) {
            break;
        }
    }
    m->met += m->here >= m->n;
    pthread_mutex_unlock(&m->lock);
}

static void meet_of(apr_pool_t *p, int n, meet *m, guest *g)
{
    void *batons[16];
    int i;
    pthread_mutex_init(&m->lock, NULL);
    pthread_cond_init(&m->all_here, NULL);
    m->here = m->met = 0;
    m->n = n;
    for (i = 0; i < n; i++) {
        g[i].m = m;
        g[i].runs = 0;
        batons[i] = &g[i];
    }
    trv_fanout(p, n, arrive, batons);
    pthread_cond_destroy(&m->all_here);
    pthread_mutex_destroy(&m->lock);
}

/* Every call runs once, all at once; the workers are kept, so a second
 * fan-out as wide starts none. */
static void calls_run_at_once_on_kept_workers(void **state)
{
    apr_pool_t *p;
    meet m;
    guest g[8];
    int i, before;
    (void)state;
    assert_int_equal(apr_pool_create(&p, NULL), APR_SUCCESS);
    meet_of(p, 8, &m, g);
    assert_int_equal(m.met, 8);
    for (i = 0; i < 8; i++) {
        assert_int_equal(g[i].runs, 1);
    }
    before = trv_fanout_workers();
    assert_true(before >= 7);
    meet_of(p, 8, &m, g);
    assert_int_equal(m.met, 8);
    assert_int_equal(trv_fanout_workers(), before);
    apr_pool_destroy(p);
}

/* A call that fans out itself (Duffel Stays' rate fetches inside a
 * search's call) gets workers of its own, not a wait on itself. */
static void nested(void *baton)
{
    apr_pool_t *p;
    meet m;
    guest g[3];
    int *ok = baton;
    assert_int_equal(apr_pool_create(&p, NULL), APR_SUCCESS);
    meet_of(p, 3, &m, g);
    *ok = m.met == 3;
    apr_pool_destroy(p);
}

static void a_call_may_fan_out_again(void **state)
{
    apr_pool_t *p;
    int ok[4] = {0, 0, 0, 0}, i;
    void *batons[4] = {&ok[0], &ok[1], &ok[2], &ok[3]};
    (void)state;
    assert_int_equal(apr_pool_create(&p, NULL), APR_SUCCESS);
    trv_fanout(p, 4, nested, batons);
    for (i = 0; i < 4; i++) {
        assert_true(ok[i]);
    }
    apr_pool_destroy(p);
}

/* A forked child (an httpd child of a parent that fanned out) starts
 * workers of its own: its calls still run, all at once. */
static void a_forked_child_has_workers_of_its_own(void **state)
{
    apr_pool_t *p;
    meet m;
    guest g[4];
    pid_t pid;
    int status = -1;
    (void)state;
    assert_int_equal(apr_pool_create(&p, NULL), APR_SUCCESS);
    meet_of(p, 4, &m, g);
    assert_int_equal(m.met, 4);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int ok;
        meet_of(p, 4, &m, g);
        ok = m.met == 4 && g[0].runs == 1 && g[3].runs == 1 && trv_fanout_workers() >= 3;
        _exit(ok ? 0 : 1);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    apr_pool_destroy(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_slow_call_goes_on_alone),
        cmocka_unit_test(patience_zero_waits_for_nothing),
        cmocka_unit_test(all_in_time_are_done),
        cmocka_unit_test(past_the_cap_the_caller_waits_and_is_told_first),
        cmocka_unit_test(call_pools_reuse_what_the_last_call_freed),
        cmocka_unit_test(call_pools_live_on_any_thread),
        cmocka_unit_test(calls_run_at_once_on_kept_workers),
        cmocka_unit_test(a_call_may_fan_out_again),
        cmocka_unit_test(a_forked_child_has_workers_of_its_own),
    };
    return UNIT_RUN(tests);
}
