/* What the hotel adapters make of amounts their suppliers send, as found
 * by tests/fuzz/fuzz_hotel_supplier: each amount is within the money
 * range, but what an adapter adds up from them need not be. SUPPLIER_C's
 * three rooms at the largest amount made an offer whose total left the
 * range (shown as null, and a search price a handler could not print), and
 * SUPPLIER_A's promotions of one name, merged, left it too (the next merge
 * then read an amount that did not parse and used an uninitialized one).
 * A sum beyond the range makes the answer a bad response; in-range sums
 * are kept exactly.
 * SUPPLIER_B (Hotelbeds) prices its offers before it builds the documents
 * of those the trim keeps (supplier_b.c, priced()): a rate the hotel binds
 * (hotelMandatory) is shown at no less than its sellingRate, so the trim
 * orders by that price, not by the net, and a bound rate without a
 * sellingRate refuses the answer even on an offer the trim drops. */
#include "unit.h"

#include <apr_strings.h>
#include <string.h>

#include "core/json.h"
#include "core/money.h"
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

/* Up to max offers of hotel "h1" for n_rooms rooms of 2 adults, answered
 * `answer`. */
static trv_up_status offers_max(apr_pool_t *p, const trv_hotel_supplier *sup,
                                const char *answer, int n_rooms, const char *cur, int max,
                                apr_array_header_t **out)
{
    static const char *const sids[] = {"h1"};
    trv_upstream up;
    trv_config cfg;
    trv_env env;
    trv_http http;
    trv_hotel_ctx ctx;
    trv_hotel_stay stay;
    trv_hotel_err err;
    int i;
    memset(&up, 0, sizeof(up));
    memset(&cfg, 0, sizeof(cfg));
    memset(&env, 0, sizeof(env));
    memset(&stay, 0, sizeof(stay));
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
    stay.check_in = "2026-12-20";
    stay.check_out = "2026-12-23";
    stay.nights = 3;
    stay.n_rooms = n_rooms;
    for (i = 0; i < n_rooms; i++) {
        stay.rooms[i].adults = 2;
    }
    memcpy(stay.currency, cur, 4);
    stay.nationality = stay.residence = "GB";
    return sup->offers(&ctx, &stay, sids, 1, max, out, &err);
}

static trv_up_status offers(apr_pool_t *p, const trv_hotel_supplier *sup, const char *answer,
                            int n_rooms, const char *cur, apr_array_header_t **out)
{
    return offers_max(p, sup, answer, n_rooms, cur, 5, out);
}

static const char *c_answer(apr_pool_t *p, const char *value)
{
    return apr_psprintf(p,
        "[{\"property_id\":\"h1\",\"rooms\":[{\"id\":\"DBL\",\"room_name\":\"Double\","
        "\"rates\":[{\"id\":\"9-RO\",\"refundable\":true,\"bed_groups\":{\"1\":{\"links\":"
        "{\"price_check\":{\"href\":\"/properties/h1/rooms/DBL/rates/9\"}}}},"
        "\"occupancy_pricing\":{\"2\":{\"totals\":{\"inclusive\":{\"request_currency\":"
        "{\"value\":\"%s\",\"currency\":\"JPY\"}}}}}}]}]}]", value);
}

static void c_rooms_sum_within_the_range(void **state)
{
    apr_pool_t *p = *state;
    apr_array_header_t *out = NULL;
    assert_int_equal(offers(p, &trv_hotel_supplier_c, c_answer(p, "333333333333333"), 3, "JPY",
                            &out), TRV_UP_OK);
    assert_int_equal(out->nelts, 1);
    assert_true(APR_ARRAY_IDX(out, 0, trv_hotel_offer).total_minor == 999999999999999LL);
    assert_int_equal(offers(p, &trv_hotel_supplier_c, c_answer(p, "999999999999999"), 3, "JPY",
                            &out), TRV_UP_BAD_RESPONSE);
}

static const char *a_answer(apr_pool_t *p, const char *promo)
{
    return apr_psprintf(p,
        "{\"data\":[{\"hotelId\":\"h1\",\"roomTypes\":[{\"offerId\":\"o1\",\"roomTypeId\":\"DBL\","
        "\"rateType\":\"RFN\",\"offerRetailRate\":{\"amount\":\"100.00\",\"currency\":\"EUR\"},"
        "\"rates\":[{\"name\":\"Double\",\"boardType\":\"RO\",\"boardName\":\"Room only\","
        "\"retailRate\":{\"total\":[{\"amount\":\"100.00\",\"currency\":\"EUR\"}]},"
        "\"promotions\":[{\"name\":\"P\",\"amount\":\"%s\"},{\"name\":\"P\",\"amount\":\"%s\"},"
        "{\"name\":\"P\",\"amount\":\"%s\"}]}]}]}]}", promo, promo, promo);
}

static void a_promotions_merge_within_the_range(void **state)
{
    apr_pool_t *p = *state;
    apr_array_header_t *out = NULL;
    json_t *want = json_pack("{s:f,s:s}", "amount", 7.5, "currency", "EUR");
    const json_t *promo;
    assert_int_equal(offers(p, &trv_hotel_supplier_a, a_answer(p, "2.50"), 1, "EUR", &out),
                     TRV_UP_OK);
    promo = json_array_get(json_object_get(APR_ARRAY_IDX(out, 0, trv_hotel_offer).doc,
                                           "promotions"), 0);
    assert_true(json_equal(json_object_get(promo, "amount"), want));
    json_decref(want);
    assert_int_equal(offers(p, &trv_hotel_supplier_a, a_answer(p, "9999999999999.99"), 1, "EUR",
                            &out), TRV_UP_BAD_RESPONSE);
}

static void sums_stop_at_the_money_range(void **state)
{
    json_t *promos = json_array();
    apr_int64_t acc = TRV_MONEY_MAX_MINOR - 1;
    (void)state;
    assert_int_equal(trv_hwire_sum(&acc, 1), 0);
    assert_int_equal(trv_hwire_sum(&acc, 1), -1);
    assert_true(acc == TRV_MONEY_MAX_MINOR);
    acc = -TRV_MONEY_MAX_MINOR;
    assert_int_equal(trv_hwire_sum(&acc, -1), -1);
    assert_int_equal(trv_hwire_promo_add(promos, "P", TRV_MONEY_MAX_MINOR, "EUR", 0), 0);
    assert_int_equal(trv_hwire_promo_add(promos, "P", 1, "EUR", 1), -1);
    /* The refused merge changed nothing. */
    assert_int_equal(json_array_size(json_object_get(json_array_get(promos, 0),
                                                     "room_positions")), 1);
    json_decref(promos);
}

/* SUPPLIER_B: one room type for one room of two adults, in EUR: "bound"
 * (net bound_net, bound to sell at selling, or with no sellingRate when
 * selling is NULL) and "free" (net 120.00, unbound). The offers are the
 * hotel's the answer names (its code), whatever id was asked. */
static const char *b_answer(apr_pool_t *p, const char *bound_net, const char *selling)
{
    const char *rate = "{\"rateKey\":\"%s\",\"rateClass\":\"NOR\",\"boardCode\":\"%s\","
                       "\"net\":\"%s\",%s\"rooms\":1,\"adults\":2,\"children\":0}";
    return apr_psprintf(
        p, "{\"hotels\":{\"hotels\":[{\"code\":100231,\"currency\":\"EUR\",\"rooms\":"
           "[{\"code\":\"DBL.ST\",\"name\":\"Double\",\"rates\":[%s,%s]}]}]}}",
        apr_psprintf(p, rate, "bound", "RO", bound_net,
                     selling ? apr_psprintf(p, "\"hotelMandatory\":true,\"sellingRate\":\"%s\",",
                                            selling)
                             : "\"hotelMandatory\":true,"),
        apr_psprintf(p, rate, "free", "BB", "120.00", ""));
}

static long eur_cents(const json_t *money)
{
    trv_money m;
    const char *why;
    assert_int_equal(trv_money_from_json(money, &m, &why), APR_SUCCESS);
    assert_string_equal(m.currency, "EUR");
    return (long)m.minor;
}

static const trv_hotel_offer *nth(const apr_array_header_t *out, int i)
{
    return &APR_ARRAY_IDX(out, i, trv_hotel_offer);
}

static const json_t *room0(const trv_hotel_offer *o)
{
    return json_array_get(json_object_get(o->doc, "rooms"), 0);
}

/* One offer kept: the unbound 120.00, not the bound rate whose net
 * (100.00) is lower but whose price (150.00) is not. */
static void b_trim_keeps_the_cheapest_at_the_price_shown(void **state)
{
    apr_pool_t *p = *state;
    apr_array_header_t *out = NULL;
    assert_int_equal(offers_max(p, &trv_hotel_supplier_b, b_answer(p, "100.00", "150.00"), 1,
                                "EUR", 1, &out), TRV_UP_OK);
    assert_int_equal(out->nelts, 1);
    assert_int_equal(nth(out, 0)->total_minor, 12000);
    assert_int_equal(eur_cents(json_object_get(nth(out, 0)->doc, "total")), 12000);
    assert_true(json_is_null(json_object_get(room0(nth(out, 0)), "minimum_selling_price")));
}

/* Both kept: cheapest first at the price shown, the bound one at its
 * sellingRate with it as the room's minimum. */
static void b_offers_ordered_by_the_price_shown(void **state)
{
    apr_pool_t *p = *state;
    apr_array_header_t *out = NULL;
    const json_t *room;
    assert_int_equal(offers_max(p, &trv_hotel_supplier_b, b_answer(p, "100.00", "150.00"), 1,
                                "EUR", 2, &out), TRV_UP_OK);
    assert_int_equal(out->nelts, 2);
    assert_int_equal(nth(out, 0)->total_minor, 12000);
    assert_int_equal(nth(out, 1)->total_minor, 15000);
    room = room0(nth(out, 1));
    assert_int_equal(eur_cents(json_object_get(nth(out, 1)->doc, "total")), 15000);
    assert_int_equal(eur_cents(json_object_get(room, "total")), 15000);
    assert_int_equal(eur_cents(json_object_get(room, "minimum_selling_price")), 15000);
}

/* A sellingRate below the net binds nothing more: the net is the price,
 * the sellingRate still the room's minimum. */
static void b_selling_rate_below_the_net_leaves_the_net(void **state)
{
    apr_pool_t *p = *state;
    apr_array_header_t *out = NULL;
    assert_int_equal(offers_max(p, &trv_hotel_supplier_b, b_answer(p, "100.00", "90.00"), 1,
                                "EUR", 1, &out), TRV_UP_OK);
    assert_int_equal(out->nelts, 1);
    assert_int_equal(nth(out, 0)->total_minor, 10000);
    assert_int_equal(eur_cents(json_object_get(room0(nth(out, 0)), "minimum_selling_price")),
                     9000);
}

/* A bound rate without a sellingRate is a bad answer, whether its offer
 * would be kept (net 100.00) or dropped by the trim (net 130.00, one
 * offer asked): selling it at its net could undercut the hotel. */
static void b_bound_rate_without_selling_rate_is_refused(void **state)
{
    apr_pool_t *p = *state;
    apr_array_header_t *out = NULL;
    assert_int_equal(offers_max(p, &trv_hotel_supplier_b, b_answer(p, "100.00", NULL), 1, "EUR",
                                1, &out), TRV_UP_BAD_RESPONSE);
    assert_int_equal(offers_max(p, &trv_hotel_supplier_b, b_answer(p, "130.00", NULL), 1, "EUR",
                                1, &out), TRV_UP_BAD_RESPONSE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(c_rooms_sum_within_the_range, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(a_promotions_merge_within_the_range, pool_setup,
                                        pool_teardown),
        cmocka_unit_test_setup_teardown(sums_stop_at_the_money_range, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(b_trim_keeps_the_cheapest_at_the_price_shown, pool_setup,
                                        pool_teardown),
        cmocka_unit_test_setup_teardown(b_offers_ordered_by_the_price_shown, pool_setup,
                                        pool_teardown),
        cmocka_unit_test_setup_teardown(b_selling_rate_below_the_net_leaves_the_net, pool_setup,
                                        pool_teardown),
        cmocka_unit_test_setup_teardown(b_bound_rate_without_selling_rate_is_refused, pool_setup,
                                        pool_teardown),
    };
    return UNIT_RUN(tests);
}
