/* A watch's and a mandate's status: exactly the moves the watch code
 * makes, every other pair refused and logged; the texts (lower case, as
 * the API shows them) read back and nothing else does. */
#include "transit_expect.h"

#include "watch/mandate_status.h"
#include "watch/watch_status.h"

static void watch_table(void **state)
{
    static const expect_move moves[] = {
        {"active", "triggered"},       {"active", "armed"},
        {"active", "expired"},         {"active", "canceled"},
        {"armed", "active"},           {"armed", "purchased"},
        {"armed", "purchase_failed"},  {"armed", "expired"},
        {"armed", "canceled"},
    };
    trv_watch_status s;
    trv_log log = {expect_emit, NULL, NULL, NULL};
    (void)state;
    expect_moves(&trv_watch_status_table, moves, sizeof(moves) / sizeof(moves[0]));
    expect_texts(&trv_watch_status_table, 7);
    for (s = TRV_WATCH_ACTIVE; s <= TRV_WATCH_CANCELED; s++) {
        assert_int_equal(trv_transit_from_text(&trv_watch_status_table, trv_transit_text(&trv_watch_status_table, s)), s);
        assert_string_equal(trv_watch_statuses[s], trv_transit_text(&trv_watch_status_table, s));
    }
    assert_int_equal(trv_transit_from_text(&trv_watch_status_table, "ACTIVE"), -1);
    assert_int_equal(trv_transit_from_text(&trv_watch_status_table, "cancelled"), -1);
    assert_int_equal(trv_transit_from_text(&trv_watch_status_table, NULL), -1);
    /* The purchase's outcome is judged before it is written. */
    expect_lines = 0;
    assert_true(trv_watch_status_transit(&log, "purchase_w", "wtc_1", TRV_WATCH_ARMED,
                                         TRV_WATCH_PURCHASED));
    assert_false(trv_watch_status_transit(&log, "purchase_w", "wtc_1", TRV_WATCH_ARMED,
                                          TRV_WATCH_TRIGGERED));
    assert_int_equal(expect_lines, 1);
    assert_string_equal(expect_rid, "purchase_w");
}

static void mandate_table(void **state)
{
    static const expect_move moves[] = {
        {"pending_confirmation", "confirmed"},
        {"pending_confirmation", "canceled"},
        {"confirmed", "canceled"},
    };
    trv_mandate_status s;
    (void)state;
    expect_moves(&trv_mandate_status_table, moves, sizeof(moves) / sizeof(moves[0]));
    expect_texts(&trv_mandate_status_table, 3);
    for (s = TRV_MANDATE_PENDING_CONFIRMATION; s <= TRV_MANDATE_CANCELED; s++) {
        assert_int_equal(trv_transit_from_text(&trv_mandate_status_table, trv_transit_text(&trv_mandate_status_table, s)), s);
    }
    assert_int_equal(trv_transit_from_text(&trv_mandate_status_table, "pending"), -1);
    assert_int_equal(trv_transit_from_text(&trv_mandate_status_table, NULL), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(watch_table),
        cmocka_unit_test(mandate_table),
    };
    return UNIT_RUN(tests);
}
