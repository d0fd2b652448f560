/* What the supplier adapters make of their suppliers' answers, as found by
 * tests/fuzz/fuzz_supplier.
 *
 * They keep no JSON beyond the request: every value they make is bound to
 * the request's pool or freed. Checking an amount with trv_fwire_money
 * (which makes a new value) leaked that value on every SUPPLIER_A prebook
 * and cancellation quote and every SUPPLIER_B checkout and refund quote,
 * in a long-running httpd child. Jansson's allocations are counted here,
 * so the test fails with or without a leak checker.
 *
 * A part they cannot read makes the answer a bad response: a SUPPLIER_B
 * checkout whose bought bag had no readable price or type crashed the
 * child (the bag's missing type reached strcmp). SUPPLIER_B speaks LiteAPI
 * Flights: prebook is verify, prebooks, then services when bags are
 * bought. */
#include "unit.h"

#include <apr_strings.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "flight/supplier.h"

static long live;   /* Jansson allocations not yet freed through Jansson */

static void *counting_malloc(size_t n)
{
    void *p = malloc(n);
    if (p) {
        live++;
    }
    return p;
}

static void counting_free(void *p)
{
    if (p) {
        live--;
    }
    free(p);
}

/* A supplier that answers each call with the next of `answers` (HTTP 200). */
typedef struct canned {
    const char *const *answers;
    int next;
} canned;

static apr_status_t perform(trv_http *h, apr_pool_t *p, const trv_http_req *req,
                            trv_http_resp *resp)
{
    canned *c = h->impl;
    /* A request body is written by trv_json_dump into the pool
     * (core/json_write.c), not by json_dumps: no Jansson allocation. */
    (void)req;
    memset(resp, 0, sizeof(*resp));
    assert_non_null(c->answers[c->next]);
    resp->status = 200;
    resp->headers = apr_table_make(p, 1);
    resp->body = apr_pstrdup(p, c->answers[c->next++]);
    resp->body_len = strlen(resp->body);
    return APR_SUCCESS;
}

typedef trv_up_status run_fn(trv_flight_ctx *ctx, json_t **out, trv_sup_err *err);

/* Runs one adapter operation against the answers in a pool of its own and
 * returns how many Jansson values outlived that pool. */
static long leaked_by(const trv_flight_supplier *sup, const char *const *answers, run_fn *run,
                      trv_up_status expect)
{
    apr_pool_t *p;
    trv_upstream up;
    trv_config cfg;
    trv_env env;
    trv_http http;
    trv_flight_ctx ctx;
    trv_sup_err err;
    canned c = {answers, 0};
    json_t *out = NULL;
    long before = live;

    assert_int_equal(apr_pool_create(&p, NULL), APR_SUCCESS);
    memset(&up, 0, sizeof(up));
    up.name = sup->name;
    up.base_url = "http://127.0.0.1:9/supplier";
    memset(&cfg, 0, sizeof(cfg));
    memset(&env, 0, sizeof(env));
    http.perform = perform;
    http.impl = &c;
    env.http = &http;
    env.cfg = &cfg;
    memset(&ctx, 0, sizeof(ctx));
    ctx.env = &env;
    ctx.pool = p;
    ctx.request_id = "req_test";
    ctx.up = &up;
    memset(&err, 0, sizeof(err));
    assert_int_equal(run(&ctx, &out, &err), expect);
    if (expect == TRV_UP_OK) {
        assert_non_null(out);
    }
    apr_pool_destroy(p);
    return live - before;
}

static trv_up_status a_prebook(trv_flight_ctx *ctx, json_t **out, trv_sup_err *err)
{
    const char *pax = "[{\"first_name\":\"Ada\",\"last_name\":\"Lovelace\",\"type\":\"ADULT\","
                      "\"loyalty_accounts\":[]}]";
    json_t *passengers = trv_json_parse(ctx->pool, pax, strlen(pax), NULL);
    return trv_flight_supplier_a.prebook(ctx, "off_1", passengers, NULL, NULL, out, err);
}

static trv_up_status a_quote(trv_flight_ctx *ctx, json_t **out, trv_sup_err *err)
{
    return trv_flight_supplier_a.cancellation_quote(ctx, "ord_1", out, err);
}

static trv_up_status b_prebook_with(trv_flight_ctx *ctx, json_t **out, trv_sup_err *err,
                                    const char *services)
{
    const char *pax = "[{\"first_name\":\"Ada\",\"last_name\":\"Lovelace\",\"type\":\"ADULT\","
                      "\"loyalty_accounts\":[]}]";
    json_t *passengers = trv_json_parse(ctx->pool, pax, strlen(pax), NULL);
    json_t *svc = services ? trv_json_parse(ctx->pool, services, strlen(services), NULL) : NULL;
    return trv_flight_supplier_b.prebook(ctx, "lfo_1", passengers, NULL, svc, out, err);
}

static trv_up_status b_prebook(trv_flight_ctx *ctx, json_t **out, trv_sup_err *err)
{
    return b_prebook_with(ctx, out, err, NULL);
}

static trv_up_status b_prebook_bag(trv_flight_ctx *ctx, json_t **out, trv_sup_err *err)
{
    return b_prebook_with(ctx, out, err, "[{\"id\":\"bag_0.svc_x\",\"quantity\":2}]");
}

static trv_up_status b_quote(trv_flight_ctx *ctx, json_t **out, trv_sup_err *err)
{
    return trv_flight_supplier_b.cancellation_quote(ctx, "bo_1", out, err);
}

/* LiteAPI's verify and prebook answers (one segment), in currency cur. */
#define B_SEG "{\"segmentKey\":\"s1\",\"originCode\":\"LHR\",\"destinationCode\":\"DUB\"," \
              "\"direction\":\"OUTBOUND\"}"
#define B_VERIFY "{\"data\":[{\"journey\":{\"segments\":[" B_SEG "],\"fare\":{\"family\":" \
                 "\"Standard\"},\"terms\":{\"refundable\":true,\"refundFee\":{\"pricing\":" \
                 "{\"display\":{\"amount\":5,\"currency\":\"GBP\"}}}}}}]}"
#define B_PREBOOK(cur, price, booked) \
    "{\"data\":[{\"prebookId\":\"pb_1\",\"price\":" price ",\"currency\":\"" cur "\"," \
    "\"transactionId\":\"tr_1\",\"booking\":{\"ticketLimitTime\":\"2026-12-01T10:00:00Z\"," \
    "\"journey\":{\"segments\":[" B_SEG "],\"price\":{\"taxes\":2},\"baggage\":" \
    "{\"included\":[]}},\"bookedServices\":[" booked "]},\"servicesAttachable\":" \
    "{\"expiresAt\":\"2026-12-01T10:00:00Z\",\"groups\":[]}}]}"

static void supplier_a_answers_leave_nothing(void **state)
{
    /* Duffel: prebook reads the offer (no loyalty account to send first);
     * a quote reads the order's total, then asks for a cancellation. */
    static const char *const prebook[] = {
        "{\"data\":{\"id\":\"off_1\",\"total_currency\":\"GBP\",\"total_amount\":\"10.00\","
        "\"base_amount\":\"8.00\",\"tax_amount\":\"2.00\","
        "\"expires_at\":\"2026-12-01T10:00:00Z\",\"slices\":[],\"available_services\":[],"
        "\"passengers\":[{\"id\":\"pas_1\"}]}}",
        NULL};
    static const char *const quote[] = {
        "{\"data\":{\"id\":\"ord_1\",\"total_amount\":\"100.00\",\"total_currency\":\"GBP\"}}",
        "{\"data\":{\"id\":\"ore_1\",\"refund_amount\":\"90.00\",\"refund_currency\":\"GBP\"}}",
        NULL};
    (void)state;
    assert_int_equal(leaked_by(&trv_flight_supplier_a, prebook, a_prebook, TRV_UP_OK), 0);
    assert_int_equal(leaked_by(&trv_flight_supplier_a, quote, a_quote, TRV_UP_OK), 0);
}

static void supplier_b_answers_leave_nothing(void **state)
{
    static const char *const checkout[] = {B_VERIFY, B_PREBOOK("GBP", "10.00", ""), NULL};
    static const char *const quote[] = {
        "{\"data\":[{\"confidence\":\"confirmed\",\"refund\":{\"display\":{\"amount\":90,"
        "\"currency\":\"GBP\"}},\"penalty\":{\"display\":{\"amount\":10.00,\"currency\":"
        "\"GBP\"}}}]}",
        NULL};
    (void)state;
    assert_int_equal(leaked_by(&trv_flight_supplier_b, checkout, b_prebook, TRV_UP_OK), 0);
    assert_int_equal(leaked_by(&trv_flight_supplier_b, quote, b_quote, TRV_UP_OK), 0);
}

static void supplier_b_unreadable_bag_is_a_bad_response(void **state)
{
    /* A checkout whose booking carries a booked bag without a type, then
     * one whose price is not money in its currency (three decimals of
     * GBP). */
    static const char *const no_type[] = {
        B_VERIFY,
        B_PREBOOK("JPY", "1100", "{\"serviceId\":\"svc_x\",\"passengerIndex\":0,"
                  "\"segmentKey\":\"s1\",\"quantity\":2,\"pricing\":{\"display\":"
                  "{\"amount\":100,\"currency\":\"JPY\"}}}"),
        NULL};
    static const char *const bad_price[] = {
        B_VERIFY,
        B_PREBOOK("GBP", "11.234", "{\"serviceId\":\"svc_x\",\"passengerIndex\":0,"
                  "\"segmentKey\":\"s1\",\"quantity\":1,\"bagType\":\"checked\","
                  "\"weightKg\":23,\"pricing\":{\"display\":{\"amount\":1.234,"
                  "\"currency\":\"GBP\"}}}"),
        NULL};
    static const char *const readable[] = {
        B_VERIFY,
        B_PREBOOK("JPY", "1100", "{\"serviceId\":\"svc_x\",\"passengerIndex\":0,"
                  "\"segmentKey\":\"s1\",\"quantity\":2,\"bagType\":\"checked\","
                  "\"weightKg\":23,\"pricing\":{\"display\":{\"amount\":100,"
                  "\"currency\":\"JPY\"}}}"),
        NULL};
    /* A bag asked: LiteAPI sells none before its checkout, so nothing is
     * called (an answer asked for would fail the canned transport). */
    static const char *const none[] = {NULL};
    (void)state;
    assert_int_equal(leaked_by(&trv_flight_supplier_b, no_type, b_prebook, TRV_UP_BAD_RESPONSE), 0);
    assert_int_equal(leaked_by(&trv_flight_supplier_b, bad_price, b_prebook, TRV_UP_BAD_RESPONSE),
                     0);
    /* The same bag, readable, is priced. */
    assert_int_equal(leaked_by(&trv_flight_supplier_b, readable, b_prebook, TRV_UP_OK), 0);
    assert_int_equal(leaked_by(&trv_flight_supplier_b, none, b_prebook_bag, TRV_UP_REJECTED), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(supplier_a_answers_leave_nothing),
        cmocka_unit_test(supplier_b_answers_leave_nothing),
        cmocka_unit_test(supplier_b_unreadable_bag_is_a_bad_response),
    };
    /* Before any JSON exists: every value is counted from the start. */
    json_set_alloc_funcs(counting_malloc, counting_free);
    return UNIT_RUN(tests);
}
