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
    apr_interval_time_t wait = -1, last = 0, step = TRV_WEBHOOK_TIMEOUT / TRV_WEBHOOK_PROBES;
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

/* A late receiver gets up to TRV_WEBHOOK_SLOW_MAX requests at a time; one
 * that hangs, TRV_WEBHOOK_PROBES (its circuit's probes), also once none
 * of its requests is going on any more. */
static void a_hanging_receiver_gets_its_probes_only(void **state)
{
    const char *sub = "whs_probed";
    apr_time_t now = apr_time_now(), late = now - apr_time_from_msec(600),
               old = now - TRV_WEBHOOK_HANGING;
    apr_interval_time_t wait = -1;
    (void)state;
    trv_webhook_slow_enter(sub, late);
    assert_false(trv_webhook_slow_hanging(sub, now));
    assert_false(trv_webhook_slow_held(sub, now, TRV_WEBHOOK_SLOW_MAX - 2, &wait));
    /* One has gone on past its patience: it hangs, and with two going on
     * the next is held, in line. */
    trv_webhook_slow_enter(sub, old);
    assert_true(trv_webhook_slow_hanging(sub, now));
    assert_true(trv_webhook_slow_held(sub, now, 0, &wait));
    assert_int_equal(wait, TRV_WEBHOOK_PATIENCE);
    assert_true(trv_webhook_slow_held(sub, now, 0, &wait));
    assert_int_equal(wait, TRV_WEBHOOK_PATIENCE + TRV_WEBHOOK_TIMEOUT / TRV_WEBHOOK_PROBES);
    /* Both time out: it still hangs; with none going on, one probe may
     * go, and a second of the same batch is held. */
    trv_webhook_slow_leave(sub, old, TRV_SLOW_UNANSWERED);
    trv_webhook_slow_leave(sub, late, TRV_SLOW_UNANSWERED);
    assert_true(trv_webhook_slow_hanging(sub, apr_time_now()));
    assert_false(trv_webhook_slow_held(sub, apr_time_now(), TRV_WEBHOOK_PROBES - 1, &wait));
    assert_true(trv_webhook_slow_held(sub, apr_time_now(), TRV_WEBHOOK_PROBES, &wait));
}

/* A receiver with no answer in memory hangs once a request of it has gone
 * on for TRV_WEBHOOK_HANGING_SOON (not TRV_WEBHOOK_HANGING: its held
 * requests would come back every half second until then); one that
 * answered is given twice its last answer's time, within
 * HANGING_SOON..HANGING, so a receiver that answers in 2 s never counts as
 * hanging for a request that has gone on 3 s. */
static void how_long_a_receiver_is_given_before_it_hangs(void **state)
{
    const char *sub = "whs_soon", *slow = "whs_2s";
    apr_time_t now = apr_time_now(), t[TRV_WEBHOOK_SLOW_MAX], first;
    apr_interval_time_t wait = -1;
    int i;
    (void)state;
    assert_int_equal(trv_webhook_slow_patience(sub), TRV_WEBHOOK_HANGING_SOON);
    assert_true(TRV_WEBHOOK_HANGING_SOON < TRV_WEBHOOK_HANGING);
    /* Full, its oldest request going on for a little less than the least:
     * held briefly, not hanging. */
    for (i = 0; i < TRV_WEBHOOK_SLOW_MAX; i++) {
        t[i] = now - (i == 0 ? TRV_WEBHOOK_HANGING_SOON - apr_time_from_msec(100)
                             : apr_time_from_msec(600));
        trv_webhook_slow_enter(sub, t[i]);
    }
    assert_false(trv_webhook_slow_hanging(sub, now));
    assert_true(trv_webhook_slow_held(sub, now, 0, &wait));
    assert_int_equal(wait, TRV_WEBHOOK_PATIENCE);
    /* 200 ms later the oldest has gone on past it: hanging, held in line,
     * and an end now says the receiver hung (its 2xx closes the circuit). */
    first = now + apr_time_from_msec(200);
    assert_true(trv_webhook_slow_hanging(sub, first));
    assert_true(trv_webhook_slow_held(sub, first, 0, &wait));
    assert_true(wait >= TRV_WEBHOOK_PATIENCE);

    /* Another receiver answered in 2 s (past the least: it counted as
     * hanging until then): it is given 4 s. */
    trv_webhook_slow_enter(slow, now - apr_time_from_sec(2));
    assert_true(trv_webhook_slow_leave(slow, now - apr_time_from_sec(2), TRV_SLOW_LATE));
    assert_true(trv_webhook_slow_patience(slow) >= apr_time_from_sec(4));
    assert_true(trv_webhook_slow_patience(slow) < apr_time_from_sec(4) + apr_time_from_sec(1));
    for (i = 0; i < TRV_WEBHOOK_SLOW_MAX; i++) {
        trv_webhook_slow_enter(slow, now - apr_time_from_sec(3));
    }
    assert_false(trv_webhook_slow_hanging(slow, now));
    assert_true(trv_webhook_slow_held(slow, now, 0, &wait));
    assert_int_equal(wait, TRV_WEBHOOK_PATIENCE);
    /* ... and never more than TRV_WEBHOOK_HANGING, however slow it was. */
    trv_webhook_slow_leave(slow, now - apr_time_from_sec(8), TRV_SLOW_LATE);
    assert_int_equal(trv_webhook_slow_patience(slow), TRV_WEBHOOK_HANGING);
    /* An answer within the least keeps the least. */
    trv_webhook_slow_leave(slow, now - apr_time_from_msec(100), TRV_SLOW_LATE);
    assert_int_equal(trv_webhook_slow_patience(slow), TRV_WEBHOOK_HANGING_SOON);
}

/* An end reports whether the receiver hung just before it: a 2xx then
 * closes the circuit this process may have opened (breaker.h). */
static void an_end_says_whether_the_receiver_hung(void **state)
{
    const char *sub = "whs_ends";
    apr_time_t now = apr_time_now();
    (void)state;
    trv_webhook_slow_enter(sub, now - apr_time_from_msec(600));
    trv_webhook_slow_enter(sub, now - TRV_WEBHOOK_HANGING_SOON - apr_time_from_msec(10));
    trv_webhook_slow_enter(sub, now - apr_time_from_msec(600));
    /* The one past its patience answers (late): it hung until then. */
    assert_true(trv_webhook_slow_leave(sub, now - TRV_WEBHOOK_HANGING_SOON
                                                - apr_time_from_msec(10), TRV_SLOW_LATE));
    /* Now it answered in about 1 s: given 2 s, the others (0.6 s) do not hang. */
    assert_false(trv_webhook_slow_hanging(sub, apr_time_now()));
    assert_false(trv_webhook_slow_leave(sub, now - apr_time_from_msec(600), TRV_SLOW_ANSWERED));
    /* A timeout: it hangs, and the next end says so. */
    trv_webhook_slow_enter(sub, now);
    assert_false(trv_webhook_slow_leave(sub, now - apr_time_from_msec(600), TRV_SLOW_UNANSWERED));
    assert_true(trv_webhook_slow_hanging(sub, apr_time_now()));
    assert_true(trv_webhook_slow_leave(sub, now, TRV_SLOW_ANSWERED));
    /* Unknown subscriptions never hung. */
    assert_false(trv_webhook_slow_leave("whs_never_seen", now, TRV_SLOW_ANSWERED));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_late_receiver_is_held_briefly),
        cmocka_unit_test(a_hanging_receiver_is_held_in_line),
        cmocka_unit_test(a_hanging_receiver_gets_its_probes_only),
        cmocka_unit_test(how_long_a_receiver_is_given_before_it_hangs),
        cmocka_unit_test(an_end_says_whether_the_receiver_hung),
    };
    return UNIT_RUN(tests);
}
