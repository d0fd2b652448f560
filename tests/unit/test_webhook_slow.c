/* Slow receivers as a sender process sees them (webhook/slow.h): which
 * requests are held back, and for how long. A receiver whose requests
 * answer late has its next ones look again after TRV_WEBHOOK_PATIENCE
 * (never the receivers' timeout: a healthy receiver on a saturated
 * machine would wait 10 s and more); one that hangs has its held requests
 * lined up one slot's pace apart, within TRV_WEBHOOK_SLOW_MEMORY. */
#include "unit.h"

#include "webhook/send.h"
#include "webhook/slow.h"

static void a_late_receiver_is_held_briefly(void **state)
{
    const char *sub = "whs_late";
    apr_time_t now = apr_time_now(), t[TRV_WEBHOOK_SLOW_MAX];
    apr_interval_time_t wait = -1;
    int i;
    (void)state;
    assert_false(trv_webhook_slow_known(sub, now));
    assert_false(trv_webhook_slow_held(sub, now, 0, &wait));
    for (i = 0; i < TRV_WEBHOOK_SLOW_MAX - 1; i++) {
        t[i] = now - apr_time_from_msec(600);
        trv_webhook_slow_enter(sub, t[i]);
    }
    assert_true(trv_webhook_slow_known(sub, apr_time_now()));
    /* 7 going on alone: one more may go, not two (this batch's count). */
    assert_false(trv_webhook_slow_held(sub, apr_time_now(), 0, &wait));
    assert_true(trv_webhook_slow_held(sub, apr_time_now(), 1, &wait));
    t[i] = now;
    trv_webhook_slow_enter(sub, t[i]);
    assert_true(trv_webhook_slow_held(sub, apr_time_now(), 0, &wait));
    assert_int_equal(wait, TRV_WEBHOOK_PATIENCE);
    /* Its requests answer (late): a slot is free again at once. */
    trv_webhook_slow_leave(sub, t[0], TRV_SLOW_LATE);
    assert_false(trv_webhook_slow_held(sub, apr_time_now(), 0, &wait));
    assert_true(trv_webhook_slow_known(sub, apr_time_now()));
    /* Every one answered, the last one in time: no longer slow. */
    for (i = 1; i < TRV_WEBHOOK_SLOW_MAX; i++) {
        trv_webhook_slow_leave(sub, t[i], TRV_SLOW_ANSWERED);
    }
    assert_false(trv_webhook_slow_known(sub, apr_time_now()));
}

static void a_hanging_receiver_is_held_in_line(void **state)
{
    const char *sub = "whs_hangs";
    apr_time_t now = apr_time_now(), t[TRV_WEBHOOK_SLOW_MAX];
    apr_interval_time_t wait = -1, last = 0, step = TRV_WEBHOOK_TIMEOUT / TRV_WEBHOOK_SLOW_MAX;
    int i;
    (void)state;
    /* One of its requests has been going on for TRV_WEBHOOK_HANGING. */
    for (i = 0; i < TRV_WEBHOOK_SLOW_MAX; i++) {
        t[i] = now - (i == 0 ? TRV_WEBHOOK_HANGING : apr_time_from_msec(600));
        trv_webhook_slow_enter(sub, t[i]);
    }
    for (i = 0; i < 4; i++) {
        assert_true(trv_webhook_slow_held(sub, now, 0, &wait));
        if (i == 0) {
            assert_int_equal(wait, TRV_WEBHOOK_PATIENCE);
        }
        else {
            assert_int_equal(wait, last + step);
        }
        last = wait;
    }
    /* The line is never longer than the memory. */
    for (i = 0; i < 100; i++) {
        assert_true(trv_webhook_slow_held(sub, now, 0, &wait));
        assert_true(wait <= TRV_WEBHOOK_SLOW_MEMORY);
    }
    /* The old one times out: the others are young, but it still hangs. */
    trv_webhook_slow_leave(sub, t[0], TRV_SLOW_UNANSWERED);
    trv_webhook_slow_enter(sub, now);
    assert_true(trv_webhook_slow_held(sub, now, 0, &wait));
    assert_true(wait > TRV_WEBHOOK_PATIENCE);
    /* An answer ends the line: the next held request looks again soon. */
    trv_webhook_slow_leave(sub, t[1], TRV_SLOW_LATE);
    trv_webhook_slow_enter(sub, now);
    assert_true(trv_webhook_slow_held(sub, now, 0, &wait));
    assert_int_equal(wait, TRV_WEBHOOK_PATIENCE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_late_receiver_is_held_briefly),
        cmocka_unit_test(a_hanging_receiver_is_held_in_line),
    };
    return UNIT_RUN(tests);
}
