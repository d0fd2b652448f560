/* A webhook delivery's and a subscription's status: exactly the moves the
 * webhook code makes, every other pair refused and logged; the texts read
 * back and nothing else does. */
#include "transit_expect.h"

#include "webhook/delivery_status.h"
#include "webhook/subscription_status.h"

static void delivery_table(void **state)
{
    static const expect_move moves[] = {
        {"PENDING", "PENDING"},     {"PENDING", "PUBLISHED"},   {"PENDING", "FAILED"},
        {"PUBLISHED", "PENDING"},   {"PUBLISHED", "PUBLISHED"}, {"PUBLISHED", "DELIVERED"},
        {"PUBLISHED", "FAILED"},    {"DELIVERED", "PENDING"},   {"FAILED", "PENDING"},
    };
    trv_delivery_status s;
    (void)state;
    expect_moves(&trv_delivery_status_table, moves, sizeof(moves) / sizeof(moves[0]));
    expect_texts(&trv_delivery_status_table, 4);
    for (s = TRV_DELIVERY_PENDING; s <= TRV_DELIVERY_FAILED; s++) {
        assert_int_equal(trv_transit_from_text(&trv_delivery_status_table, trv_transit_text(&trv_delivery_status_table, s)), s);
    }
    assert_int_equal(trv_transit_from_text(&trv_delivery_status_table, "SENT"), -1);
    assert_int_equal(trv_transit_from_text(&trv_delivery_status_table, NULL), -1);
    /* A delivered send is never sent again but by a replay. */
    assert_false(trv_transit_allowed(&trv_delivery_status_table, TRV_DELIVERY_DELIVERED,
                                     TRV_DELIVERY_PUBLISHED));
}

static void subscription_table(void **state)
{
    /* DISABLED: entered from ACTIVE only (the circuit breaker), left by
     * PATCH ACTIVE (re-enabled) or PAUSED. */
    static const expect_move moves[] = {
        {"ACTIVE", "ACTIVE"},     {"ACTIVE", "PAUSED"},     {"ACTIVE", "DISABLED"},
        {"PAUSED", "PAUSED"},     {"PAUSED", "ACTIVE"},     {"DISABLED", "DISABLED"},
        {"DISABLED", "ACTIVE"},   {"DISABLED", "PAUSED"},
    };
    trv_subscription_status back = TRV_SUBSCRIPTION_PAUSED;
    (void)state;
    expect_moves(&trv_subscription_status_table, moves, sizeof(moves) / sizeof(moves[0]));
    expect_texts(&trv_subscription_status_table, 3);
    assert_true((back = trv_transit_from_text(&trv_subscription_status_table, "DISABLED")) >= 0);
    assert_int_equal(back, TRV_SUBSCRIPTION_DISABLED);
    assert_false(trv_transit_allowed(&trv_subscription_status_table, TRV_SUBSCRIPTION_PAUSED,
                                     TRV_SUBSCRIPTION_DISABLED));
    /* A PATCH asks for ACTIVE or PAUSED, never DISABLED. */
    assert_true(trv_subscription_status_patchable(TRV_SUBSCRIPTION_ACTIVE));
    assert_true(trv_subscription_status_patchable(TRV_SUBSCRIPTION_PAUSED));
    assert_false(trv_subscription_status_patchable(TRV_SUBSCRIPTION_DISABLED));
    assert_true((back = trv_transit_from_text(&trv_subscription_status_table, "ACTIVE")) >= 0);
    assert_int_equal(back, TRV_SUBSCRIPTION_ACTIVE);
    assert_string_equal(trv_transit_text(&trv_subscription_status_table, TRV_SUBSCRIPTION_PAUSED), "PAUSED");
    assert_string_equal(trv_subscription_statuses[TRV_SUBSCRIPTION_PAUSED], "PAUSED");
    assert_int_equal(trv_transit_from_text(&trv_subscription_status_table, "active"), -1);
    assert_int_equal(trv_transit_from_text(&trv_subscription_status_table, NULL), -1);
    assert_int_equal(back, TRV_SUBSCRIPTION_ACTIVE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(delivery_table),
        cmocka_unit_test(subscription_table),
    };
    return UNIT_RUN(tests);
}
