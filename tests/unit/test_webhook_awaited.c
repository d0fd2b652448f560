/* Requests a sender's batch waits for (webhook/awaited.h): a receiver whose
 * awaited requests have had no answer for TRV_WEBHOOK_STALLED is stalled,
 * so another batch's request to it goes on alone instead of making that
 * batch wait the patience too; a receiver that keeps answering, however
 * many requests it has going on, is not. */
#include "unit.h"

#include "webhook/awaited.h"

#include <stdio.h>

static const apr_interval_time_t ms = 1000;

static void a_receiver_answering_nothing_is_stalled(void **state)
{
    const char *sub = "whs_hangs";
    apr_time_t t0 = apr_time_now();
    (void)state;
    assert_false(trv_webhook_awaited_stalled(sub, t0));
    assert_true(trv_webhook_awaited_begin(sub, t0));
    /* Young: a healthy receiver answers within it. */
    assert_false(trv_webhook_awaited_stalled(sub, t0 + TRV_WEBHOOK_STALLED - ms));
    /* A second batch's request to it, no answer since the first started. */
    assert_true(trv_webhook_awaited_begin(sub, t0 + 40 * ms));
    assert_true(trv_webhook_awaited_stalled(sub, t0 + TRV_WEBHOOK_STALLED));
    /* Its requests end (timed out): nothing awaited, nothing stalled. */
    trv_webhook_awaited_end(sub, t0 + apr_time_from_sec(10));
    trv_webhook_awaited_end(sub, t0 + apr_time_from_sec(10));
    assert_false(trv_webhook_awaited_stalled(sub, t0 + apr_time_from_sec(20)));
}

static void a_busy_receiver_that_answers_is_not_stalled(void **state)
{
    const char *sub = "whs_busy", *other = "whs_other";
    apr_time_t t0 = apr_time_now(), t;
    int i;
    (void)state;
    /* A burst: 16 requests at once, answering one every 10 ms. */
    for (i = 0; i < 16; i++) {
        assert_true(trv_webhook_awaited_begin(sub, t0));
    }
    for (i = 1, t = t0; i < 16; i++) {
        t = t0 + i * 10 * ms;
        trv_webhook_awaited_end(sub, t);
        assert_false(trv_webhook_awaited_stalled(sub, t + TRV_WEBHOOK_STALLED - ms));
    }
    /* Another receiver's requests are another matter. */
    assert_false(trv_webhook_awaited_stalled(other, t + apr_time_from_sec(1)));
    /* The last one stops answering: stalled once the window has passed. */
    assert_true(trv_webhook_awaited_stalled(sub, t + TRV_WEBHOOK_STALLED));
    trv_webhook_awaited_end(sub, t + TRV_WEBHOOK_STALLED);
    assert_false(trv_webhook_awaited_stalled(sub, t + apr_time_from_sec(1)));
}

static void a_full_table_tracks_nothing_more(void **state)
{
    char sub[64];
    apr_time_t t0 = apr_time_now();
    int i, tracked = 0;
    (void)state;
    /* More subscriptions than the table holds: the extra ones are not
     * tracked (never stalled) and their end must not be called. */
    for (i = 0; i < 200; i++) {
        snprintf(sub, sizeof(sub), "whs_many_%d", i);
        tracked += trv_webhook_awaited_begin(sub, t0);
    }
    assert_true(tracked > 0 && tracked < 200);
    snprintf(sub, sizeof(sub), "whs_many_%d", 199);
    assert_false(trv_webhook_awaited_stalled(sub, t0 + apr_time_from_sec(1)));
    snprintf(sub, sizeof(sub), "whs_many_%d", 0);
    assert_true(trv_webhook_awaited_stalled(sub, t0 + apr_time_from_sec(1)));
    for (i = 0; i < tracked; i++) {
        snprintf(sub, sizeof(sub), "whs_many_%d", i);
        trv_webhook_awaited_end(sub, t0);
    }
    /* Room again. */
    assert_true(trv_webhook_awaited_begin("whs_later", t0));
    trv_webhook_awaited_end("whs_later", t0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_receiver_answering_nothing_is_stalled),
        cmocka_unit_test(a_busy_receiver_that_answers_is_not_stalled),
        cmocka_unit_test(a_full_table_tracks_nothing_more),
    };
    return UNIT_RUN(tests);
}
