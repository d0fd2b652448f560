/* What the duffel-stays adapter makes of Duffel's answers, without a
 * network (a transport that answers by path): a rate's cancellation
 * timeline becomes the neutral policy (the price less the refund until the
 * deadline, the whole price from it), a rate in another currency than the
 * stay's is left out (what is due at the accommodation keeps its own),
 * the offer's reference carries the search result's
 * and the rate's ids; a booking read back states the policy agreed (from
 * its metadata); a cancellation's fee comes from the booking's
 * metadata and when it was cancelled (before the deadline: the price less
 * the refund; after: the whole), a booking without that metadata is
 * cancelled with its fee unknown, and a refund above the price is a bad
 * answer. Every request carries Duffel's bearer token and version. */
#include "unit.h"

#include <apr_strings.h>
#include <string.h>

#include "core/clock.h"
#include "core/json.h"
#include "hotel/supplier.h"

/* Answers by the first (path part, body) whose part the URL contains. */
typedef struct script {
    const char *const *routes;   /* part, body, part, body, ..., NULL */
    int bad_headers;             /* requests without Duffel's headers */
} script;

static apr_status_t perform(trv_http *h, apr_pool_t *p, const trv_http_req *req,
                            trv_http_resp *resp)
{
    script *s = h->impl;
    const char *auth = req->headers ? apr_table_get(req->headers, "Authorization") : NULL;
    const char *version = req->headers ? apr_table_get(req->headers, "Duffel-Version") : NULL;
    int i;
    if (!auth || strcmp(auth, "Bearer duffel_test_t") != 0 || !version
        || strcmp(version, "v2") != 0) {
        s->bad_headers++;
    }
    memset(resp, 0, sizeof(*resp));
    resp->status = 404;
    resp->body = "{\"errors\":[{\"code\":\"not_found\",\"message\":\"no route\"}]}";
    for (i = 0; s->routes[i]; i += 2) {
        if (strstr(req->url, s->routes[i])) {
            resp->status = 200;
            resp->body = apr_pstrdup(p, s->routes[i + 1]);
            break;
        }
    }
    resp->headers = apr_table_make(p, 1);
    apr_table_setn(resp->headers, "Content-Type", "application/json");
    resp->body_len = strlen(resp->body);
    return APR_SUCCESS;
}

typedef struct fixture {
    trv_upstream up;
    trv_config cfg;
    trv_env env;
    trv_http http;
    script s;
    trv_hotel_ctx ctx;
    trv_hotel_stay stay;
    trv_hotel_err err;
} fixture;

static fixture *fixture_make(apr_pool_t *p, const char *const *routes)
{
    fixture *f = apr_pcalloc(p, sizeof(*f));
    f->up.name = "DUFFEL_STAYS";
    f->up.base_url = "http://127.0.0.1:9";
    f->up.api_key = "duffel_test_t";
    f->cfg.max_response = 1 << 20;
    f->s.routes = routes;
    f->http.perform = perform;
    f->http.impl = &f->s;
    f->env.http = &f->http;
    f->env.cfg = &f->cfg;
    f->ctx.env = &f->env;
    f->ctx.pool = p;
    f->ctx.request_id = "req_test";
    f->ctx.up = &f->up;
    f->stay.check_in = "2026-12-20";
    f->stay.check_out = "2026-12-23";
    f->stay.nights = 3;
    f->stay.n_rooms = 1;
    f->stay.rooms[0].adults = 2;
    memcpy(f->stay.currency, "GBP", 4);
    f->stay.nationality = f->stay.residence = "GB";
    return f;
}

/* A rate of 100.00 in cur, 6.00 EUR due at the accommodation. */
#define RATE(id, cur, timeline) \
    "{\"id\":\"" id "\",\"board_type\":\"breakfast\",\"name\":\"Double, Breakfast\"," \
    "\"total_amount\":\"100.00\",\"total_currency\":\"" cur "\"," \
    "\"due_at_accommodation_amount\":\"6.00\",\"due_at_accommodation_currency\":\"EUR\"," \
    "\"cancellation_timeline\":" timeline "}"

static const char *const offer_routes[] = {
    "/stays/search_results/srr_1/actions/fetch_all_rates",
    "{\"data\":{\"id\":\"srr_1\",\"accommodation\":{\"id\":\"acc_1\",\"name\":\"H\","
    "\"rooms\":[{\"name\":\"Double\",\"rates\":["
    RATE("rat_1", "GBP", "[{\"refund_amount\":\"80.00\",\"currency\":\"GBP\","
                         "\"before\":\"2026-12-18T12:00:00Z\"}]") ","
    RATE("rat_2", "GBP", "[]") ","
    RATE("rat_3", "EUR", "[]") "]}]}}}",
    "/stays/search",
    "{\"data\":{\"results\":[{\"id\":\"srr_1\",\"accommodation\":{\"id\":\"acc_1\"}}],"
    "\"created_at\":\"2026-11-27T10:00:00Z\"}}",
    NULL,
};

static const trv_hotel_offer *offer_ref(const apr_array_header_t *offers, const char *ref)
{
    int i;
    for (i = 0; i < offers->nelts; i++) {
        if (strcmp(APR_ARRAY_IDX(offers, i, trv_hotel_offer).ref, ref) == 0) {
            return &APR_ARRAY_IDX(offers, i, trv_hotel_offer);
        }
    }
    return NULL;
}

static long minor_at(const json_t *penalties, size_t i)
{
    return (long)(json_number_value(json_object_get(json_object_get(json_array_get(penalties, i),
                                                                  "amount"), "amount")) * 100
                  + 0.5);
}

static void rates_become_offers(void **state)
{
    apr_pool_t *p = *state;
    fixture *f = fixture_make(p, offer_routes);
    static const char *const sids[] = {"acc_1"};
    apr_array_header_t *out = NULL;
    const trv_hotel_offer *o;
    const json_t *policy, *pen, *due;
    assert_int_equal(trv_hotel_supplier_duffel_stays.offers(&f->ctx, &f->stay, sids, 1, 10, &out,
                                                            &f->err), TRV_UP_OK);
    assert_int_equal(f->s.bad_headers, 0);
    /* The rate in euros is left out: nothing converts it. */
    assert_int_equal(out->nelts, 2);
    o = offer_ref(out, "srr_1 rat_1");
    assert_non_null(o);
    assert_string_equal(o->sid, "acc_1");
    assert_true(o->total_minor == 10000);
    assert_string_equal(trv_json_str(o->doc, "board"), "BED_AND_BREAKFAST");
    policy = json_object_get(o->doc, "cancellation_policy");
    assert_true(json_is_true(json_object_get(policy, "refundable")));
    pen = json_object_get(policy, "penalties");
    assert_int_equal(json_array_size(pen), 2);
    assert_int_equal(minor_at(pen, 0), 2000);
    assert_string_equal(trv_json_str(json_array_get(pen, 1), "from"), "2026-12-18T12:00:00.000Z");
    assert_int_equal(minor_at(pen, 1), 10000);
    /* One room: the room carries the price, and the amount due there in
     * the currency Duffel states it in. */
    due = json_object_get(json_array_get(json_object_get(o->doc, "rooms"), 0), "due_at_property");
    assert_string_equal(trv_json_str(due, "currency"), "EUR");
    assert_int_equal((long)(json_number_value(json_object_get(due, "amount")) * 100 + 0.5), 600);
    o = offer_ref(out, "srr_1 rat_2");
    assert_non_null(o);
    policy = json_object_get(o->doc, "cancellation_policy");
    assert_false(json_is_true(json_object_get(policy, "refundable")));
    assert_int_equal(minor_at(json_object_get(policy, "penalties"), 0), 10000);
}

/* Two rooms: Duffel's rate prices them together, so neither room states a
 * price or a policy of its own (never a guessed split); the amount due at
 * the accommodation is carried once, by the first, so the sum is right. */
static void rooms_of_one_rate_share_its_price(void **state)
{
    apr_pool_t *p = *state;
    fixture *f = fixture_make(p, offer_routes);
    static const char *const sids[] = {"acc_1"};
    apr_array_header_t *out = NULL;
    const json_t *rooms;
    f->stay.n_rooms = 2;
    f->stay.rooms[1].adults = 1;
    f->stay.rooms[1].n_children = 1;
    f->stay.rooms[1].ages[0] = 5;
    assert_int_equal(trv_hotel_supplier_duffel_stays.offers(&f->ctx, &f->stay, sids, 1, 10, &out,
                                                            &f->err), TRV_UP_OK);
    rooms = json_object_get(offer_ref(out, "srr_1 rat_1")->doc, "rooms");
    assert_int_equal(json_array_size(rooms), 2);
    assert_true(json_is_null(json_object_get(json_array_get(rooms, 0), "total")));
    assert_true(json_is_null(json_object_get(json_array_get(rooms, 1), "total")));
    assert_true(json_is_null(json_object_get(json_array_get(rooms, 0), "cancellation_policy")));
    assert_true(json_is_object(json_object_get(json_array_get(rooms, 0), "due_at_property")));
    assert_true(json_is_null(json_object_get(json_array_get(rooms, 1), "due_at_property")));
    /* The occupancy asked, room by room. */
    assert_int_equal(json_integer_value(json_object_get(json_array_get(rooms, 1), "adults")), 1);
    assert_int_equal(json_array_size(json_object_get(json_array_get(rooms, 1), "children")), 1);
}

/* A cancelled booking's answer: cancelled at `at`, with `meta` (JSON). */
static const char *cancelled(apr_pool_t *p, const char *at, const char *meta)
{
    return apr_psprintf(p, "{\"data\":{\"id\":\"bok_1\",\"status\":\"cancelled\",\"rooms\":1,"
                        "\"cancelled_at\":\"%s\",\"metadata\":%s}}", at, meta);
}

static trv_up_status cancel_with(apr_pool_t *p, const char *answer, trv_hotel_canceled *out)
{
    const char **routes = apr_pcalloc(p, sizeof(*routes) * 3);
    fixture *f;
    routes[0] = "/stays/bookings/bok_1/actions/cancel";
    routes[1] = answer;
    f = fixture_make(p, routes);
    memset(out, 0, sizeof(*out));
    return trv_hotel_supplier_duffel_stays.cancel(&f->ctx, "bok_1", out, &f->err);
}

#define META "{\"client_reference\":\"bkg_1/r\",\"total_amount\":\"100.00\"," \
             "\"total_currency\":\"GBP\",\"refund_amount\":\"%s\"," \
             "\"refund_before\":\"2026-12-18T12:00:00Z\"}"

static void the_fee_follows_the_timeline(void **state)
{
    apr_pool_t *p = *state;
    trv_hotel_canceled out;
    assert_int_equal(cancel_with(p, cancelled(p, "2026-12-01T00:00:00Z",
                                              apr_psprintf(p, META, "80.00")), &out), TRV_UP_OK);
    assert_string_equal(out.currency, "GBP");
    assert_true(out.fee_minor == 2000 && out.refund_minor == 8000);
    /* After the deadline: the whole price. */
    assert_int_equal(cancel_with(p, cancelled(p, "2026-12-18T12:00:00Z",
                                              apr_psprintf(p, META, "80.00")), &out), TRV_UP_OK);
    assert_true(out.fee_minor == 10000 && out.refund_minor == 0);
    /* Not made here: cancelled, the fee unknown. */
    assert_int_equal(cancel_with(p, cancelled(p, "2026-12-01T00:00:00Z", "null"), &out),
                     TRV_UP_OK);
    assert_null(out.currency);
    /* A refund above the price is not an answer to use. */
    assert_int_equal(cancel_with(p, cancelled(p, "2026-12-01T00:00:00Z",
                                              apr_psprintf(p, META, "100.01")), &out),
                     TRV_UP_BAD_RESPONSE);
}

static void a_booking_reads_back_its_agreement(void **state)
{
    apr_pool_t *p = *state;
    const char **routes = apr_pcalloc(p, sizeof(*routes) * 3);
    trv_hotel_booked bk;
    const json_t *pen;
    fixture *f;
    routes[0] = "/stays/bookings/bok_1";
    routes[1] = apr_psprintf(p, "{\"data\":{\"id\":\"bok_1\",\"status\":\"confirmed\","
                             "\"reference\":\"R1\",\"rooms\":1,\"confirmed_at\":"
                             "\"2026-11-27T10:00:00Z\",\"metadata\":" META "}}", "80.00");
    f = fixture_make(p, routes);
    assert_int_equal(trv_hotel_supplier_duffel_stays.retrieve(&f->ctx, "bok_1", NULL, &bk,
                                                              &f->err), TRV_UP_OK);
    assert_string_equal(bk.status, "CONFIRMED");
    assert_string_equal(bk.client_reference, "bkg_1/r");
    assert_string_equal(bk.hotel_confirmation_code, "R1");
    assert_true(bk.total_minor == 10000);
    /* The one room carries the agreed policy, from the confirmation on. */
    pen = json_object_get(json_object_get(json_array_get(bk.rooms, 0), "cancellation_policy"),
                          "penalties");
    assert_int_equal(json_array_size(pen), 2);
    assert_string_equal(trv_json_str(json_array_get(pen, 0), "from"), "2026-11-27T10:00:00.000Z");
    assert_int_equal(minor_at(pen, 0), 2000);
    assert_int_equal(minor_at(pen, 1), 10000);
    assert_true(json_equal(bk.cancellation_policy,
                           json_object_get(json_array_get(bk.rooms, 0), "cancellation_policy")));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(rates_become_offers, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(rooms_of_one_rate_share_its_price, pool_setup,
                                        pool_teardown),
        cmocka_unit_test_setup_teardown(the_fee_follows_the_timeline, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(a_booking_reads_back_its_agreement, pool_setup,
                                        pool_teardown),
    };
    return UNIT_RUN(tests);
}
