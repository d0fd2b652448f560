/* The payment machines shared by every domain: a payment row's status and
 * who collects it (an authorization is captured or voided, and that is
 * final), a refund request's status, an authorization intent's status.
 * Every listed move is allowed, every other pair refused and logged; the
 * texts are the columns' and nothing else reads as one. */
#include "transit_expect.h"

#include "payment/collector.h"
#include "payment/pay_status.h"
#include "payment/pintent_outcome.h"
#include "payment/pintent_status.h"
#include "payment/refund_status.h"

static void status_table(void **state)
{
    static const expect_move moves[] = {
        {"AUTHORIZED", "CAPTURED"},
        {"AUTHORIZED", "VOIDED"},
    };
    (void)state;
    expect_moves(&trv_pay_status_table, moves, sizeof(moves) / sizeof(moves[0]));
    expect_texts(&trv_pay_status_table, 3);
}

static void status_texts(void **state)
{
    trv_pay_status s;
    int back;
    (void)state;
    for (s = TRV_PAY_AUTHORIZED; s <= TRV_PAY_VOIDED; s++) {
        assert_int_equal(trv_transit_from_text(&trv_pay_status_table, trv_transit_text(&trv_pay_status_table, s)), s);
        assert_true(trv_pay_status_text_is(trv_transit_text(&trv_pay_status_table, s), s));
    }
    assert_string_equal(trv_transit_text(&trv_pay_status_table, TRV_PAY_CAPTURED), "CAPTURED");
    back = TRV_PAY_VOIDED;
    /* The provider's own words are the adapter's to translate. */
    assert_int_equal(trv_transit_from_text(&trv_pay_status_table, "captured"), -1);
    assert_int_equal(trv_transit_from_text(&trv_pay_status_table, "succeeded"), -1);
    assert_int_equal(trv_transit_from_text(&trv_pay_status_table, NULL), -1);
    assert_int_equal(back, TRV_PAY_VOIDED);
    assert_false(trv_pay_status_text_is(NULL, TRV_PAY_AUTHORIZED));
    assert_false(trv_pay_status_text_is("VOIDED", TRV_PAY_AUTHORIZED));
    assert_false(trv_pay_status_text_is("authorized", TRV_PAY_AUTHORIZED));
}

static void refused_move_is_logged(void **state)
{
    trv_log log = {expect_emit, NULL, NULL, NULL};
    (void)state;
    expect_lines = 0;
    assert_true(trv_pay_status_transit(&log, "req_p", "pay_1", TRV_PAY_AUTHORIZED,
                                       TRV_PAY_CAPTURED));
    assert_int_equal(expect_lines, 0);
    assert_false(trv_pay_status_transit(&log, "req_p", "pay_1", TRV_PAY_VOIDED,
                                        TRV_PAY_CAPTURED));
    assert_int_equal(expect_lines, 1);
    assert_string_equal(expect_rid, "req_p");
    assert_string_equal(expect_msg, "TRV2650: payment status of pay_1: VOIDED -> CAPTURED "
                                    "refused (not in the transition table)");
    /* No log, no line, still refused. */
    assert_false(trv_pay_status_transit(NULL, "req_p", "pay_1", TRV_PAY_CAPTURED,
                                        TRV_PAY_AUTHORIZED));
    assert_int_equal(expect_lines, 1);
}

static void collector_texts(void **state)
{
    trv_collector c = TRV_COLLECTOR_SUPPLIER;
    (void)state;
    assert_true(trv_collector_from_text("SERVICE", &c));
    assert_int_equal(c, TRV_COLLECTOR_SERVICE);
    assert_string_equal(trv_collector_text(c), "SERVICE");
    assert_true(trv_collector_from_text("SUPPLIER", &c));
    assert_int_equal(c, TRV_COLLECTOR_SUPPLIER);
    assert_string_equal(trv_collector_text(c), "SUPPLIER");
    assert_false(trv_collector_from_text("service", &c));
    assert_false(trv_collector_from_text("PROVIDER", &c));
    assert_false(trv_collector_from_text("", &c));
    assert_false(trv_collector_from_text(NULL, &c));
    assert_int_equal(c, TRV_COLLECTOR_SUPPLIER);
}

/* Written PENDING; SUBMITTED is final; a FAILED one is restarted. */
static void refund_table(void **state)
{
    static const expect_move moves[] = {
        {"PENDING", "SUBMITTED"},
        {"PENDING", "FAILED"},
        {"FAILED", "PENDING"},
    };
    trv_refund_status s;
    trv_log log = {expect_emit, NULL, NULL, NULL};
    (void)state;
    expect_moves(&trv_refund_status_table, moves, sizeof(moves) / sizeof(moves[0]));
    expect_texts(&trv_refund_status_table, 3);
    for (s = TRV_REFUND_PENDING; s <= TRV_REFUND_FAILED; s++) {
        assert_int_equal(trv_transit_from_text(&trv_refund_status_table, trv_transit_text(&trv_refund_status_table, s)), s);
    }
    assert_int_equal(trv_transit_from_text(&trv_refund_status_table, "SUCCEEDED"), -1); /* the provider's word */
    assert_int_equal(trv_transit_from_text(&trv_refund_status_table, NULL), -1);
    expect_lines = 0;
    assert_false(trv_refund_status_transit(&log, "req_r", "rfd_1", TRV_REFUND_PENDING,
                                           TRV_REFUND_PENDING));
    assert_int_equal(expect_lines, 1);
    assert_string_equal(expect_msg, "TRV2650: refund status of rfd_1: PENDING -> PENDING "
                                    "refused (not in the transition table)");
}

/* payment/intents.h: reuse, release, authorize, give up, claim, resolve. */
static void intent_table(void **state)
{
    static const expect_move moves[] = {
        {"PENDING", "PENDING"},      {"PENDING", "UNRESOLVED"},
        {"PENDING", "AUTHORIZED"},   {"PENDING", "RESOLVED"},
        {"UNRESOLVED", "PENDING"},   {"UNRESOLVED", "UNRESOLVED"},
        {"UNRESOLVED", "RELEASING"}, {"UNRESOLVED", "RESOLVED"},
        {"RELEASING", "UNRESOLVED"}, {"RELEASING", "RESOLVED"},
        {"AUTHORIZED", "UNRESOLVED"}, {"AUTHORIZED", "RESOLVED"},
    };
    trv_pintent_status s;
    (void)state;
    expect_moves(&trv_pintent_status_table, moves, sizeof(moves) / sizeof(moves[0]));
    expect_texts(&trv_pintent_status_table, 5);
    for (s = TRV_PINTENT_PENDING; s <= TRV_PINTENT_RESOLVED; s++) {
        assert_int_equal(trv_transit_from_text(&trv_pintent_status_table, trv_transit_text(&trv_pintent_status_table, s)), s);
    }
    assert_int_equal(trv_transit_from_text(&trv_pintent_status_table, "VOIDED"), -1);
    assert_int_equal(trv_transit_from_text(&trv_pintent_status_table, NULL), -1);
    /* RESOLVED is final. */
    for (s = TRV_PINTENT_PENDING; s <= TRV_PINTENT_RESOLVED; s++) {
        assert_false(trv_transit_allowed(&trv_pintent_status_table, TRV_PINTENT_RESOLVED, s));
    }
}

/* An intent's outcome is written as the texts the release job and the
 * book runner wrote before it was an enum; NONE writes nothing. */
static void intent_outcome_texts(void **state)
{
    static const char *const texts[] = {NULL, "voided", "captured", "declined", "not_found",
                                        "rejected", "unavailable", "canceled", "unreadable"};
    trv_pintent_outcome o;
    (void)state;
    for (o = TRV_PINTENT_OUTCOME_NONE; o <= TRV_PINTENT_OUTCOME_UNREADABLE; o++) {
        if (!texts[o]) {
            assert_null(trv_pintent_outcome_text(o));
        }
        else {
            assert_string_equal(trv_pintent_outcome_text(o), texts[o]);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(status_table),
        cmocka_unit_test(status_texts),
        cmocka_unit_test(refused_move_is_logged),
        cmocka_unit_test(collector_texts),
        cmocka_unit_test(refund_table),
        cmocka_unit_test(intent_table),
        cmocka_unit_test(intent_outcome_texts),
    };
    return UNIT_RUN(tests);
}
