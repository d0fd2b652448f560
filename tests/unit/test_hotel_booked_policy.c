/* The cancellation policy the hotel adapters read out of a supplier's
 * booking (book's answer and retrieve's read share the parser), and the
 * shape a booking stores it in (hotel/policy.c). Each room's policy is
 * read in the supplier's own wire shape; a room whose answer states none
 * has none (JSON null), never an empty non-refundable one, and then the
 * booking-level policy is NULL so that book.c keeps the prebook's; so it
 * is when the rooms' penalties summed would leave the money range. */
#include "unit.h"

#include <apr_strings.h>
#include <string.h>

#include "core/json.h"
#include "core/money.h"
#include "hotel/policy.h"
#include "hotel/supplier.h"

/* A supplier that answers every call with `answer` (HTTP 200). */
static apr_status_t perform(trv_http *h, apr_pool_t *p, const trv_http_req *req,
                            trv_http_resp *resp)
{
    (void)req;
    memset(resp, 0, sizeof(*resp));
    resp->status = 200;
    resp->headers = apr_table_make(p, 1);
    apr_table_setn(resp->headers, "Content-Type", "application/json");
    resp->body = apr_pstrdup(p, h->impl);
    resp->body_len = strlen(resp->body);
    return APR_SUCCESS;
}

/* sup's retrieve of booking "bk1", the supplier answering `answer`. */
static trv_up_status read_booking(apr_pool_t *p, const trv_hotel_supplier *sup,
                                  const char *answer, trv_hotel_booked *out)
{
    static trv_upstream up;
    static trv_config cfg;
    static trv_env env;
    static trv_http http;
    trv_hotel_ctx ctx;
    trv_hotel_err err;
    memset(&up, 0, sizeof(up));
    memset(&cfg, 0, sizeof(cfg));
    memset(&env, 0, sizeof(env));
    memset(&err, 0, sizeof(err));
    up.name = sup->name;
    up.base_url = "http://127.0.0.1:9/hotels";
    cfg.max_response = 1 << 20;
    http.perform = perform;
    http.impl = (void *)answer;
    env.http = &http;
    env.cfg = &cfg;
    memset(&ctx, 0, sizeof(ctx));
    ctx.env = &env;
    ctx.pool = p;
    ctx.request_id = "req_test";
    ctx.up = &up;
    return sup->retrieve(&ctx, "bk1", NULL, out, &err);
}

/* Room i's policy (borrowed; NULL when absent or null). */
static const json_t *room_policy(const trv_hotel_booked *b, size_t i)
{
    const json_t *pol = json_object_get(json_array_get(b->rooms, i), "cancellation_policy");
    return json_is_object(pol) ? pol : NULL;
}

static long pen_cents(const json_t *policy, size_t k)
{
    trv_money m;
    const char *why;
    const json_t *a = json_object_get(json_array_get(json_object_get(policy, "penalties"), k),
                                      "amount");
    assert_int_equal(trv_money_from_json(a, &m, &why), APR_SUCCESS);
    assert_string_equal(m.currency, "EUR");
    return (long)m.minor;
}

/* Both rooms non-refundable from the same instant: 100 and 200 EUR. */
static void assert_tight(const trv_hotel_booked *b)
{
    const json_t *r0 = room_policy(b, 0), *r1 = room_policy(b, 1);
    assert_non_null(r0);
    assert_non_null(r1);
    assert_true(json_is_false(json_object_get(r0, "refundable")));
    assert_int_equal(pen_cents(r0, 0), 10000);
    assert_int_equal(pen_cents(r1, 0), 20000);
    assert_non_null(b->cancellation_policy);
    assert_true(json_is_false(json_object_get(b->cancellation_policy, "refundable")));
    assert_int_equal(json_array_size(json_object_get(b->cancellation_policy, "penalties")), 1);
    assert_int_equal(pen_cents(b->cancellation_policy, 0), 30000);
}

#define A_ROOM_POLICY(amount) \
    "{\"cancellationPolicies\":{\"refundableTag\":\"NRFN\",\"cancelPolicyInfos\":" \
    "[{\"cancelTime\":\"2026-12-01T00:00:00Z\",\"amount\":\"" amount "\",\"currency\":\"EUR\"}]}}"
#define A_BOOKING(rooms) \
    "{\"data\":{\"bookingId\":\"bk1\",\"status\":\"CONFIRMED\",\"currency\":\"EUR\"," \
    "\"price\":\"300.00\",\"clientReference\":\"r\",\"hotelConfirmationCode\":\"123\"," \
    "\"bookedRooms\":[" rooms "]}}"

static void a_reads_each_booked_rooms_policy(void **state)
{
    apr_pool_t *p = *state;
    trv_hotel_booked b;
    assert_int_equal(read_booking(p, &trv_hotel_supplier_a,
                                  A_BOOKING(A_ROOM_POLICY("100.00") "," A_ROOM_POLICY("200.00")),
                                  &b), TRV_UP_OK);
    assert_tight(&b);
    /* A room without cancellationPolicies states none. */
    assert_int_equal(read_booking(p, &trv_hotel_supplier_a,
                                  A_BOOKING(A_ROOM_POLICY("100.00") ",{}"), &b), TRV_UP_OK);
    assert_non_null(room_policy(&b, 0));
    assert_null(room_policy(&b, 1));
    assert_null(b.cancellation_policy);
    assert_int_equal(read_booking(p, &trv_hotel_supplier_a, A_BOOKING("{},{}"), &b), TRV_UP_OK);
    assert_int_equal(json_array_size(b.rooms), 2);
    assert_null(room_policy(&b, 0));
    assert_null(b.cancellation_policy);
}

#define B_ROOM(rate) \
    "{\"supplierReference\":\"S1\",\"rates\":[" rate "]}"
#define B_RATE(amount) \
    "{\"rateClass\":\"NRF\",\"cancellationPolicies\":[{\"amount\":\"" amount "\"," \
    "\"from\":\"2026-12-01T00:00:00Z\"}]}"
#define B_BOOKING(rooms) \
    "{\"booking\":{\"reference\":\"1-1\",\"status\":\"CONFIRMED\",\"currency\":\"EUR\"," \
    "\"totalNet\":\"300.00\",\"clientReference\":\"r\",\"hotel\":{\"rooms\":[" rooms "]}}}"

static void b_reads_each_rooms_rate_policy(void **state)
{
    apr_pool_t *p = *state;
    trv_hotel_booked b;
    assert_int_equal(read_booking(p, &trv_hotel_supplier_b,
                                  B_BOOKING(B_ROOM(B_RATE("100.00")) "," B_ROOM(B_RATE("200.00"))),
                                  &b), TRV_UP_OK);
    assert_tight(&b);
    /* rateClass alone states no penalties: no policy. */
    assert_int_equal(read_booking(p, &trv_hotel_supplier_b,
                                  B_BOOKING(B_ROOM(B_RATE("100.00")) ","
                                            B_ROOM("{\"rateClass\":\"NOR\"}")), &b), TRV_UP_OK);
    assert_non_null(room_policy(&b, 0));
    assert_null(room_policy(&b, 1));
    assert_null(b.cancellation_policy);
}

#define C_PRICE(v) \
    "\"pricing\":{\"totals\":{\"inclusive\":{\"request_currency\":{\"value\":\"" v "\"," \
    "\"currency\":\"EUR\"}}}}"
#define C_ROOM(rate) \
    "{\"status\":\"booked\",\"confirmation_id\":{\"expedia\":\"1\",\"property\":\"P\"}," \
    "\"rate\":{" rate "}}"
#define C_RATE(amount) \
    "\"refundable\":false,\"cancel_penalties\":[{\"start\":\"2026-12-01T00:00:00Z\"," \
    "\"amount\":\"" amount "\",\"currency\":\"EUR\"}]," C_PRICE(amount)
#define C_ITINERARY(rooms) \
    "{\"itinerary_id\":\"721x\",\"affiliate_reference_id\":\"r\",\"totals\":{\"inclusive\":" \
    "{\"request_currency\":{\"value\":\"300.00\",\"currency\":\"EUR\"}}},\"rooms\":[" rooms "]}"

static void c_reads_each_rooms_penalties(void **state)
{
    apr_pool_t *p = *state;
    trv_hotel_booked b;
    assert_int_equal(read_booking(p, &trv_hotel_supplier_c,
                                  C_ITINERARY(C_ROOM(C_RATE("100.00")) ","
                                              C_ROOM(C_RATE("200.00"))), &b), TRV_UP_OK);
    assert_tight(&b);
    /* A rate with neither refundable nor cancel_penalties states none. */
    assert_int_equal(read_booking(p, &trv_hotel_supplier_c,
                                  C_ITINERARY(C_ROOM(C_RATE("100.00")) ","
                                              C_ROOM(C_PRICE("200.00"))), &b), TRV_UP_OK);
    assert_non_null(room_policy(&b, 0));
    assert_null(room_policy(&b, 1));
    assert_null(b.cancellation_policy);
}

/* Each room's penalty in range, their sum not: the booking states no
 * usable policy (NULL, so the prebook's is kept), never a null amount. */
static void a_sum_beyond_the_money_range_is_no_policy(void **state)
{
    apr_pool_t *p = *state;
    trv_hotel_booked b;
    assert_int_equal(read_booking(p, &trv_hotel_supplier_a,
                                  A_BOOKING(A_ROOM_POLICY("9999999999999.99") ","
                                            A_ROOM_POLICY("0.02")), &b), TRV_UP_OK);
    assert_non_null(room_policy(&b, 0));
    assert_non_null(room_policy(&b, 1));
    assert_null(b.cancellation_policy);
}

/* The stored shape: version 1, the deadline the first penalty above zero
 * of a refundable policy, none for a non-refundable one. */
static void the_stored_shape(void **state)
{
    json_t *neutral = json_pack(
        "{s:b,s:[{s:s,s:{s:i,s:s}},{s:s,s:{s:f,s:s}}]}", "refundable", 1, "penalties",
        "from", "2026-12-01T00:00:00.000Z", "amount", "amount", 0, "currency", "EUR",
        "from", "2026-12-05T00:00:00.000Z", "amount", "amount", 50.5, "currency", "EUR");
    json_t *doc = trv_hotel_policy_doc(neutral);
    (void)state;
    assert_int_equal(json_integer_value(json_object_get(doc, "version")), 1);
    assert_true(json_is_true(json_object_get(doc, "refundable")));
    assert_string_equal(json_string_value(json_object_get(doc, "deadline")),
                        "2026-12-05T00:00:00.000Z");
    assert_int_equal(json_array_size(json_object_get(doc, "penalties")), 2);
    assert_string_equal(json_string_value(json_object_get(
        json_array_get(json_object_get(doc, "penalties"), 1), "type")), "AMOUNT");
    assert_int_equal(json_array_size(json_object_get(doc, "restrictions")), 0);
    json_decref(doc);
    json_object_set_new(neutral, "refundable", json_false());
    doc = trv_hotel_policy_doc(neutral);
    assert_true(json_is_false(json_object_get(doc, "refundable")));
    assert_true(json_is_null(json_object_get(doc, "deadline")));
    json_decref(doc);
    doc = trv_hotel_policy_doc(NULL);
    assert_true(json_is_null(doc));
    json_decref(doc);
    json_decref(neutral);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(a_reads_each_booked_rooms_policy, pool_setup,
                                        pool_teardown),
        cmocka_unit_test_setup_teardown(b_reads_each_rooms_rate_policy, pool_setup,
                                        pool_teardown),
        cmocka_unit_test_setup_teardown(c_reads_each_rooms_penalties, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(a_sum_beyond_the_money_range_is_no_policy, pool_setup,
                                        pool_teardown),
        cmocka_unit_test(the_stored_shape),
    };
    return UNIT_RUN(tests);
}
