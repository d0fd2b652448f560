/* POLICY_ESTIMATE: the fee of cancelling hotel rooms at an instant from
 * their policies. Each room is charged the largest penalty in force,
 * never more than its price; the refund is the released price less the
 * fees; the deadline is when the first room stops being free; a missing,
 * foreign-currency or unreadable policy makes the estimate unavailable
 * rather than a guess. Amounts are exact minor units (JPY, KWD too). */
#include "unit.h"

#include <string.h>

#include "core/clock.h"
#include "core/json.h"
#include "hotel/estimate_calc.h"

static apr_time_t at(const char *iso)
{
    apr_time_t t;
    assert_int_equal(trv_time_parse(iso, &t), APR_SUCCESS);
    return t;
}

static json_t *parse(apr_pool_t *p, const char *text)
{
    json_t *j = trv_json_parse(p, text, strlen(text), NULL);
    assert_non_null(j);
    return j;
}

/* A refundable room: free until 18:00 two days before, then the first
 * night (45.50), from arrival day 14:00 the whole room (150.25). */
#define REFUNDABLE "{\"refundable\": true, \"penalties\": [" \
    "{\"from\": \"2027-03-10T18:00:00.000Z\", \"type\": \"AMOUNT\", " \
    "\"amount\": {\"amount\": 45.5, \"currency\": \"EUR\"}}," \
    "{\"from\": \"2027-03-12T14:00:00.000Z\", \"type\": \"AMOUNT\", " \
    "\"amount\": {\"amount\": 150.25, \"currency\": \"EUR\"}}]}"
#define PRICE "{\"amount\": 150.25, \"currency\": \"EUR\"}"

static void refundable_room_over_time(void **state)
{
    apr_pool_t *p = *state;
    trv_hotel_room_terms room;
    trv_hotel_estimate e;
    trv_hotel_terms_of(parse(p, REFUNDABLE), parse(p, PRICE), "EUR", &room);
    assert_true(room.readable);
    assert_int_equal(room.total_minor, 15025);
    /* Before the first penalty: free, with the deadline ahead. */
    trv_hotel_estimate_at(&room, 1, at("2027-03-01T00:00:00.000Z"), &e);
    assert_true(e.available);
    assert_int_equal(e.fee_minor, 0);
    assert_int_equal(e.refund_minor, 15025);
    assert_true(e.deadline == at("2027-03-10T18:00:00.000Z"));
    /* At the very instant the first penalty applies. */
    trv_hotel_estimate_at(&room, 1, at("2027-03-10T18:00:00.000Z"), &e);
    assert_int_equal(e.fee_minor, 4550);
    assert_int_equal(e.refund_minor, 15025 - 4550);
    assert_true(e.deadline == 0);
    /* On arrival day: the whole room, nothing back. */
    trv_hotel_estimate_at(&room, 1, at("2027-03-12T15:00:00.000Z"), &e);
    assert_int_equal(e.fee_minor, 15025);
    assert_int_equal(e.refund_minor, 0);
}

/* Two rooms add up; the deadline is the earlier room's; penalties given
 * out of order are still read by time, and the largest in force wins. */
static void rooms_add_up(void **state)
{
    apr_pool_t *p = *state;
    trv_hotel_room_terms rooms[2];
    trv_hotel_estimate e;
    trv_hotel_terms_of(parse(p, REFUNDABLE), parse(p, PRICE), "EUR", &rooms[0]);
    trv_hotel_terms_of(parse(p, "{\"penalties\": ["
        "{\"from\": \"2027-03-12T14:00:00Z\", \"amount\": {\"amount\": 99.99, \"currency\": \"EUR\"}},"
        "{\"from\": \"2027-03-09T18:00:00Z\", \"amount\": {\"amount\": 0.01, \"currency\": \"EUR\"}}]}"),
        parse(p, "{\"amount\": 99.99, \"currency\": \"EUR\"}"), "EUR", &rooms[1]);
    assert_true(rooms[1].readable);
    trv_hotel_estimate_at(rooms, 2, at("2027-03-01T00:00:00Z"), &e);
    assert_int_equal(e.fee_minor, 0);
    assert_int_equal(e.refund_minor, 15025 + 9999);
    assert_true(e.deadline == at("2027-03-09T18:00:00Z"));
    /* Room 2 charges 0.01 from the 9th, room 1 nothing yet: no free
     * period left for the booking as a whole. */
    trv_hotel_estimate_at(rooms, 2, at("2027-03-10T00:00:00Z"), &e);
    assert_int_equal(e.fee_minor, 1);
    assert_int_equal(e.refund_minor, 15025 + 9998);
    assert_true(e.deadline == 0);
    trv_hotel_estimate_at(rooms, 2, at("2027-03-12T14:00:00Z"), &e);
    assert_int_equal(e.fee_minor, 15025 + 9999);
    assert_int_equal(e.refund_minor, 0);
}

/* A non-refundable room is charged in full from the moment it was priced;
 * a penalty above the price is capped at the price; a zero penalty is
 * free. */
static void nonrefundable_cap_and_zero(void **state)
{
    apr_pool_t *p = *state;
    trv_hotel_room_terms room;
    trv_hotel_estimate e;
    trv_hotel_terms_of(parse(p, "{\"refundable\": false, \"penalties\": ["
        "{\"from\": \"2026-11-24T06:00:00Z\", \"amount\": {\"amount\": 500, \"currency\": \"JPY\"}}]}"),
        parse(p, "{\"amount\": 300, \"currency\": \"JPY\"}"), "JPY", &room);
    assert_true(room.readable);
    trv_hotel_estimate_at(&room, 1, at("2026-11-24T07:00:00Z"), &e);
    assert_true(e.available);
    assert_int_equal(e.fee_minor, 300);
    assert_int_equal(e.refund_minor, 0);
    trv_hotel_terms_of(parse(p, "{\"penalties\": ["
        "{\"from\": \"2026-11-24T06:00:00Z\", \"amount\": {\"amount\": 0, \"currency\": \"KWD\"}},"
        "{\"from\": \"2026-12-24T06:00:00Z\", \"amount\": {\"amount\": 1.234, \"currency\": \"KWD\"}}]}"),
        parse(p, "{\"amount\": 10.001, \"currency\": \"KWD\"}"), "KWD", &room);
    assert_true(room.readable);
    trv_hotel_estimate_at(&room, 1, at("2026-12-01T00:00:00Z"), &e);
    assert_int_equal(e.fee_minor, 0);
    assert_int_equal(e.refund_minor, 10001);
    assert_true(e.deadline == at("2026-12-24T06:00:00Z"));
    trv_hotel_estimate_at(&room, 1, at("2026-12-25T00:00:00Z"), &e);
    assert_int_equal(e.fee_minor, 1234);
    assert_int_equal(e.refund_minor, 10001 - 1234);
    /* An empty penalty list: free at any time, no deadline. */
    trv_hotel_terms_of(parse(p, "{\"penalties\": []}"),
                       parse(p, "{\"amount\": 10, \"currency\": \"KWD\"}"), "KWD", &room);
    assert_true(room.readable);
    trv_hotel_estimate_at(&room, 1, at("2026-12-25T00:00:00Z"), &e);
    assert_true(e.available);
    assert_int_equal(e.fee_minor, 0);
    assert_int_equal(e.refund_minor, 10000);
    assert_true(e.deadline == 0);
}

/* Anything unreadable makes the whole estimate unavailable, with no
 * amounts: a missing policy, a null one, a penalty in another currency,
 * a bad instant, a bad amount, a price in another currency, no rooms. */
static void unreadable_is_unavailable(void **state)
{
    apr_pool_t *p = *state;
    static const char *const bad[] = {
        "null",
        "{}",
        "{\"penalties\": \"soon\"}",
        "{\"penalties\": [{\"from\": \"2027-03-10T18:00:00Z\", \"amount\": {\"amount\": 1, \"currency\": \"USD\"}}]}",
        "{\"penalties\": [{\"from\": \"next tuesday\", \"amount\": {\"amount\": 1, \"currency\": \"EUR\"}}]}",
        "{\"penalties\": [{\"from\": \"2027-03-10T18:00:00Z\", \"amount\": {\"amount\": 1.001, \"currency\": \"EUR\"}}]}",
        "{\"penalties\": [{\"from\": \"2027-03-10T18:00:00Z\", \"amount\": {\"amount\": -5, \"currency\": \"EUR\"}}]}",
        "{\"penalties\": [{\"amount\": {\"amount\": 1, \"currency\": \"EUR\"}}]}",
    };
    trv_hotel_room_terms rooms[2];
    trv_hotel_estimate e;
    size_t i;
    trv_hotel_terms_of(parse(p, REFUNDABLE), parse(p, PRICE), "EUR", &rooms[0]);
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        trv_hotel_terms_of(parse(p, bad[i]), parse(p, PRICE), "EUR", &rooms[1]);
        if (rooms[1].readable) {
            fail_msg("policy %s was read", bad[i]);
        }
        trv_hotel_estimate_at(rooms, 2, at("2027-03-11T00:00:00Z"), &e);
        assert_false(e.available);
        assert_int_equal(e.fee_minor, 0);
        assert_int_equal(e.refund_minor, 0);
    }
    /* The price in another currency than the booking's. */
    trv_hotel_terms_of(parse(p, REFUNDABLE), parse(p, "{\"amount\": 1, \"currency\": \"GBP\"}"),
                       "EUR", &rooms[1]);
    assert_false(rooms[1].readable);
    /* No price at all. */
    trv_hotel_terms_of(parse(p, REFUNDABLE), NULL, "EUR", &rooms[1]);
    assert_false(rooms[1].readable);
    /* No rooms. */
    trv_hotel_estimate_at(rooms, 0, at("2027-03-11T00:00:00Z"), &e);
    assert_false(e.available);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(refundable_room_over_time, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(rooms_add_up, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(nonrefundable_cap_and_zero, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(unreadable_is_unavailable, pool_setup, pool_teardown),
    };
    return UNIT_RUN(tests);
}
