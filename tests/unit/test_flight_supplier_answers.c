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
 * checkout whose bought bag had no readable price or weight crashed the
 * child (the bag's missing type reached strcmp). */
#include "unit.h"

#include <apr_strings.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "flight/supplier.h"

static long live;   /* Jansson allocations not yet freed through Jansson */
static long bodies; /* request bodies sent */

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
    /* A request body is printed by json_dumps and that string released
     * with free() (trv_json_dump): counted here, as the allocator above
     * never sees that free. */
    if (req->body) {
        bodies++;
    }
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
    long before = live - bodies;

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
    return live - bodies - before;
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

static trv_up_status b_prebook(trv_flight_ctx *ctx, json_t **out, trv_sup_err *err)
{
    const char *pax = "[{\"first_name\":\"Ada\",\"last_name\":\"Lovelace\",\"type\":\"ADULT\","
                      "\"loyalty_accounts\":[]}]";
    json_t *passengers = trv_json_parse(ctx->pool, pax, strlen(pax), NULL);
    return trv_flight_supplier_b.prebook(ctx, "fk_1", passengers, NULL, NULL, out, err);
}

static trv_up_status b_quote(trv_flight_ctx *ctx, json_t **out, trv_sup_err *err)
{
    return trv_flight_supplier_b.cancellation_quote(ctx, "ord_1", out, err);
}

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
    static const char *const checkout[] = {
        "{\"checkout_id\":\"chk_1\",\"expires_at\":\"2026-12-01T10:00:00Z\",\"fare\":{\"legs\":[]},"
        "\"price\":{\"currency\":\"GBP\",\"total\":\"10.00\",\"base\":\"8.00\",\"taxes\":\"2.00\","
        "\"ancillaries\":\"0.00\"},\"hold\":{\"held\":true,\"expires_at\":\"2026-12-01T10:00:00Z\"},"
        "\"ancillaries\":[]}",
        NULL};
    static const char *const quote[] = {
        "{\"currency\":\"GBP\",\"refund_total\":\"90.00\",\"penalty\":\"10.00\"}",
        NULL};
    (void)state;
    assert_int_equal(leaked_by(&trv_flight_supplier_b, checkout, b_prebook, TRV_UP_OK), 0);
    assert_int_equal(leaked_by(&trv_flight_supplier_b, quote, b_quote, TRV_UP_OK), 0);
}

static void supplier_b_unreadable_bag_is_a_bad_response(void **state)
{
    /* A bag without weight_kg, then one with an amount that is not money. */
    static const char *const no_weight[] = {
        "{\"checkout_id\":\"chk_1\",\"fare\":{\"legs\":[{\"flights\":[{\"id\":\"fl_1-1\"}]}]},"
        "\"price\":{\"currency\":\"JPY\",\"total\":\"1000\",\"base\":\"800\",\"taxes\":\"200\","
        "\"ancillaries\":\"0\"},\"hold\":{\"held\":false},\"ancillaries\":[{\"ancillary_id\":"
        "\"anc_x-p0j0c\",\"leg_ref\":1,\"traveler_ref\":1,\"qty\":2,\"unit_price\":\"50\","
        "\"total\":\"100\",\"kind\":\"checked_bag\"}]}",
        NULL};
    static const char *const bad_price[] = {
        "{\"checkout_id\":\"chk_1\",\"fare\":{\"legs\":[]},\"price\":{\"currency\":\"GBP\","
        "\"total\":\"10.00\",\"base\":\"8.00\",\"taxes\":\"2.00\",\"ancillaries\":\"0.00\"},"
        "\"ancillaries\":[{\"ancillary_id\":\"anc_x-p0j0c\",\"leg_ref\":1,\"traveler_ref\":1,"
        "\"qty\":1,\"unit_price\":\"1.234\",\"weight_kg\":23}]}",
        NULL};
    static const char *const readable[] = {
        "{\"checkout_id\":\"chk_1\",\"fare\":{\"legs\":[{\"flights\":[{\"id\":\"fl_1-1\"}]}]},"
        "\"price\":{\"currency\":\"JPY\",\"total\":\"1000\",\"base\":\"800\",\"taxes\":\"200\","
        "\"ancillaries\":\"100\"},\"hold\":{\"held\":false},\"ancillaries\":[{\"ancillary_id\":"
        "\"anc_x-p0j0c\",\"leg_ref\":1,\"traveler_ref\":1,\"qty\":2,\"unit_price\":\"50\","
        "\"total\":\"100\",\"kind\":\"checked_bag\",\"weight_kg\":23}]}",
        NULL};
    (void)state;
    assert_int_equal(leaked_by(&trv_flight_supplier_b, no_weight, b_prebook, TRV_UP_BAD_RESPONSE), 0);
    assert_int_equal(leaked_by(&trv_flight_supplier_b, bad_price, b_prebook, TRV_UP_BAD_RESPONSE), 0);
    /* The same bag, readable, is priced. */
    assert_int_equal(leaked_by(&trv_flight_supplier_b, readable, b_prebook, TRV_UP_OK), 0);
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
