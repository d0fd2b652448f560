/* Query parameters, as the list endpoints check them, and the date and
 * timestamp parsers behind created_from / created_to. Input: one byte
 * choosing the endpoint, then a query string:
 *   0 GET /v1/flight/bookings                         (limit, offset, status,
 *                                                      created_from, sort_by...)
 *   1 GET /v1/flight/airlines                         (q, limit, active_only...)
 *   2 GET /v1/flight/webhook-subscriptions/{id}/deliveries
 *   3 GET /v1/flight/bookings/{id}                    (takes no parameters)
 * run through dispatch and the real handlers, up to a database that
 * answers "unavailable". The raw query string goes through the library's
 * one decoding rule (core/decode.c, as httpd/glue_request.c calls it).
 * Beyond not crashing: every pair that reaches the handlers is well-formed
 * UTF-8 without control bytes; every answer is a 422 naming parameters or
 * the database's 503, and it serializes; every accepted timestamp prints
 * back as the same instant. */
#include "fuzz.h"

#include "core/clock.h"
#include "core/decode.h"
#include "core/dispatch.h"
#include "core/json.h"
#include "gateway/gateway.h"

static apr_status_t db_down(trv_dbsrc *src, apr_pool_t *p, trv_dbc **out)
{
    (void)src; (void)p; (void)out;
    return APR_ECONNREFUSED;
}

static void db_close(trv_dbsrc *src, trv_dbc *c)
{
    (void)src; (void)c;
}

static trv_env *env(void)
{
    static trv_env e;
    static trv_config cfg;
    static trv_dbsrc db;
    if (!e.cfg) {
        cfg.max_body = 1024 * 1024;
        db.open = db_down;
        db.close = db_close;
        e.db = &db;
        e.cfg = &cfg;
    }
    return &e;
}

static const trv_router *router(void)
{
    static trv_gateway *gw;
    if (!gw) {
        gw = trv_gateway_create(fz_root);
    }
    return trv_gateway_router(gw);
}

/* What the decoding hands on is text the database and JSON accept. */
static int clean_text(void *p, const char *key, const char *value)
{
    const char *s[2] = {key, value};
    int i;
    size_t j;
    (void)p;
    for (i = 0; i < 2; i++) {
        FZ_ASSERT(trv_utf8_valid(s[i], strlen(s[i])));
        for (j = 0; s[i][j]; j++) {
            FZ_ASSERT((unsigned char)s[i][j] >= 0x20 && s[i][j] != 0x7f);
        }
    }
    return 1;
}

/* A value that parses as a date or timestamp prints back as that instant
 * (to the millisecond the API shows). */
static int time_round_trip(void *p, const char *key, const char *value)
{
    apr_time_t t, again;
    (void)key;
    if (trv_date_parse(value, &t) == APR_SUCCESS) {
        FZ_ASSERT(trv_time_parse(trv_time_format(p, t), &again) == APR_SUCCESS && again == t);
    }
    if (trv_time_parse(value, &t) == APR_SUCCESS) {
        FZ_ASSERT(trv_time_parse(trv_time_format(p, t), &again) == APR_SUCCESS);
        FZ_ASSERT(again <= t && t - again < 1000);
    }
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const paths[] = {
        "/v1/flight/bookings", "/v1/flight/airlines",
        "/v1/flight/webhook-subscriptions/whs_0192f3a4-fuzz/deliveries",
        "/v1/flight/bookings/bkg_0192f3a4-fuzz"};
    apr_pool_t *p;
    trv_req req;
    trv_resp resp;
    char *args;
    trv_errs *errs;
    const char *body;
    if (size < 1) {
        return 0;
    }
    p = fz_begin();
    memset(&req, 0, sizeof(req));
    memset(&resp, 0, sizeof(resp));
    req.pool = p;
    req.method = "GET";
    req.path = paths[data[0] % 4];
    req.query = apr_table_make(p, 8);
    req.headers = apr_table_make(p, 1);
    req.request_id = "req_fuzz";
    req.org_id = "org_fuzz";
    req.env = env();
    resp.headers = apr_table_make(p, 1);
    args = fz_str(p, data + 1, size - 1);
    req.args = args;
    errs = trv_errs_new(p);
    trv_query_decode(p, args, req.query, errs);
    req.decode_errs = trv_errs_any(errs) ? errs : NULL;
    apr_table_do(clean_text, p, req.query, NULL);
    apr_table_do(time_round_trip, p, req.query, NULL);

    trv_dispatch(router(), NULL, &req, &resp);
    FZ_ASSERT(resp.status == 422 || resp.status == 503);
    body = trv_resp_body(p, &resp);
    FZ_ASSERT(body != NULL);
    if (resp.status == 422) {
        json_t *doc = trv_json_parse(p, body, strlen(body), NULL);
        FZ_ASSERT(json_array_size(json_object_get(json_object_get(doc, "error"), "details")) > 0);
    }
    fz_end(p);
    return 0;
}
