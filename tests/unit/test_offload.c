/* The offload pool (core/offload.h): work runs at once on a thread of its
 * own, never queued behind other work; with `max` pieces running, more is
 * refused (the caller does it itself); a thread that finished is reused
 * rather than another started; drain waits for what runs. */
#include "unit.h"

#include "core/offload.h"

#include <apr_atomic.h>
#include <apr_time.h>
#include <pthread.h>

typedef struct piece {
    int sleep_ms;
    volatile apr_uint32_t ran;
    apr_time_t started;
    pthread_t thread;
} piece;

static void run(void *baton)
{
    piece *w = baton;
    w->started = apr_time_now();
    w->thread = pthread_self();
    apr_sleep(apr_time_from_msec(w->sleep_ms));
    apr_atomic_set32(&w->ran, 1);
}

static void a_slow_piece_holds_up_no_other(void **state)
{
    piece slow = {1000, 0, 0, 0}, quick = {0, 0, 0, 0};
    apr_time_t t0 = apr_time_now();
    (void)state;
    assert_int_equal(trv_offload(run, &slow, 2), APR_SUCCESS);
    assert_int_equal(trv_offload(run, &quick, 2), APR_SUCCESS);
    /* The caller is back at once, and the quick one does not wait for the
     * slow one's second. */
    assert_true(apr_time_now() - t0 < apr_time_from_msec(200));
    while (!apr_atomic_read32(&quick.ran) && apr_time_now() - t0 < apr_time_from_sec(5)) {
        apr_sleep(apr_time_from_msec(5));
    }
    assert_int_equal(apr_atomic_read32(&quick.ran), 1);
    assert_int_equal(apr_atomic_read32(&slow.ran), 0);
    assert_true(quick.started - t0 < apr_time_from_msec(500));
    assert_false(pthread_equal(quick.thread, pthread_self()));
    assert_int_equal(trv_offload_drain(apr_time_from_sec(5)), 1);
    assert_int_equal(apr_atomic_read32(&slow.ran), 1);
    assert_int_equal(trv_offload_busy(), 0);
}

static void at_max_more_is_refused_not_queued(void **state)
{
    piece a = {300, 0, 0, 0}, b = {300, 0, 0, 0}, c = {0, 0, 0, 0};
    (void)state;
    assert_int_equal(trv_offload(run, &a, 2), APR_SUCCESS);
    assert_int_equal(trv_offload(run, &b, 2), APR_SUCCESS);
    assert_int_equal(trv_offload_busy(), 2);
    assert_int_equal(trv_offload(run, &c, 2), APR_EAGAIN);
    assert_int_equal(trv_offload_drain(apr_time_from_sec(5)), 1);
    assert_int_equal(apr_atomic_read32(&c.ran), 0);
    /* Room again once they ended. */
    assert_int_equal(trv_offload(run, &c, 2), APR_SUCCESS);
    assert_int_equal(trv_offload_drain(apr_time_from_sec(5)), 1);
    assert_int_equal(apr_atomic_read32(&c.ran), 1);
}

static void an_idle_thread_is_reused(void **state)
{
    piece early = {0, 0, 0, 0}, w[5];
    int i;
    (void)state;
    assert_int_equal(trv_offload(run, &early, 2), APR_SUCCESS);
    assert_int_equal(trv_offload_drain(apr_time_from_sec(5)), 1);
    /* The earlier tests started two threads, now idle: with max 1 no
     * thread may start, yet work goes, each piece to a thread that ran one
     * before. */
    for (i = 0; i < 5; i++) {
        w[i] = early;
        w[i].ran = 0;
        assert_int_equal(trv_offload(run, &w[i], 1), APR_SUCCESS);
        assert_int_equal(trv_offload_drain(apr_time_from_sec(5)), 1);
        assert_int_equal(apr_atomic_read32(&w[i].ran), 1);
        assert_false(pthread_equal(w[i].thread, pthread_self()));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_slow_piece_holds_up_no_other),
        cmocka_unit_test(at_max_more_is_refused_not_queued),
        cmocka_unit_test(an_idle_thread_is_reused),
    };
    return UNIT_RUN(tests);
}
