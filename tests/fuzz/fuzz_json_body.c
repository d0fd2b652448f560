/* Request bodies, read the way every request is (trv_read_json_body: the
 * same Jansson flags and size cap), then checked by the code the handlers
 * call. Input: one byte choosing the endpoint, then the body:
 *   0 POST /v1/flight/offers      trv_finput_offers
 *   1 POST /v1/flight/prebook     trv_finput_prebook
 *   2 POST .../bookings/{id}/book trv_finput_book
 *   3 POST /v1/flight/webhook-subscriptions          } the real handlers,
 *   4 PATCH /v1/hotel/webhook-subscriptions/{id}     } through dispatch
 * The webhook handlers run up to the database, which answers "unavailable"
 * here, and resolve no host names (tests/fuzz/no_dns.c). Beyond not
 * crashing or leaking: every answer serializes, a body with problems gets
 * a 422 naming fields, and what the checks accept is within the documented
 * limits. */
#include "fuzz.h"

#include "core/dispatch.h"
#include "core/json.h"
#include "core/validate.h"
#include "core/idempotency.h"
#include "flight/input.h"
#include "gateway/gateway.h"

#define MAX_BODY (1024 * 1024)

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
        memset(cfg.secret_key, 0x5a, sizeof(cfg.secret_key));
        cfg.have_secret_key = 1;
        cfg.max_body = MAX_BODY;
        cfg.webhook_allow = apr_array_make(fz_root, 1, sizeof(trv_cidr));
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

/* The answer to send must always be a JSON document. */
static void answer_serializes(apr_pool_t *p, const trv_resp *resp)
{
    const char *body = trv_resp_body(p, resp);
    FZ_ASSERT(body != NULL);
    if (resp->status == 422) {
        json_t *doc = trv_json_parse(p, body, strlen(body), NULL);
        json_t *details = json_object_get(json_object_get(doc, "error"), "details");
        FZ_ASSERT(json_array_size(details) > 0);
        FZ_ASSERT(json_is_string(json_object_get(json_array_get(details, 0), "field")));
    }
}

static void flight(apr_pool_t *p, int which, trv_req *req, trv_resp *resp)
{
    trv_errs *errs = trv_errs_new(p);
    apr_time_t now = apr_time_from_sec(1795413600); /* 2026-11-24T06:00:00Z */
    if (!trv_read_json_body(req, resp, MAX_BODY)) {
        FZ_ASSERT(resp->status == 400 || resp->status == 422);
        answer_serializes(p, resp);
        return;
    }
    if (which == 0) {
        trv_offers_input in;
        if (!req->json) {
            return; /* the handler answers "body required" itself */
        }
        static const char *const suppliers[] = {"SUPPLIER_A", "SUPPLIER_B", NULL};
        trv_finput_offers(p, req->json, now, suppliers, &in, errs);
        if (!trv_errs_any(errs)) {
            FZ_ASSERT(in.query && json_array_size(json_object_get(in.query, "journeys")) >= 1);
            FZ_ASSERT(in.adults >= 1 && in.adults + in.children <= 9 && in.infants <= in.adults);
            FZ_ASSERT(in.limit >= 1 && in.limit <= TRV_OFFERS_MAX_LIMIT);
            FZ_ASSERT(trv_json_dump(p, in.query) != NULL);
        }
    }
    else if (which == 1) {
        trv_prebook_input in;
        trv_finput_prebook(p, req->json, now, &in, errs);
        if (!trv_errs_any(errs)) {
            size_t n = json_array_size(in.passengers);
            FZ_ASSERT(in.offer_reference && in.contact);
            FZ_ASSERT(n >= 1 && n == (size_t)(in.adults + in.children + in.infants));
            FZ_ASSERT(in.infants <= in.adults);
            FZ_ASSERT(trv_idempotency_body_hash(p, req->json) != NULL);
        }
    }
    else {
        const char *pi = trv_finput_book(p, req->json, errs);
        FZ_ASSERT(!pi || trv_errs_any(errs) || trv_printable(pi, 1, 128));
    }
    if (trv_errs_any(errs)) {
        trv_fail_invalid(req, resp, errs);
        FZ_ASSERT(resp->status == 422);
        answer_serializes(p, resp);
    }
}

static void webhook(apr_pool_t *p, int which, trv_req *req, trv_resp *resp)
{
    req->method = which == 3 ? "POST" : "PATCH";
    req->path = which == 3 ? "/v1/flight/webhook-subscriptions"
                           : "/v1/hotel/webhook-subscriptions/whs_0192f3a4-fuzz";
    trv_dispatch(router(), NULL, req, resp);
    FZ_ASSERT(resp->status == 400 || resp->status == 422 || resp->status == 503);
    answer_serializes(p, resp);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    apr_pool_t *p;
    trv_req req;
    trv_resp resp;
    int which;
    if (size < 1) {
        return 0;
    }
    p = fz_begin();
    which = data[0] % 5;
    memset(&req, 0, sizeof(req));
    memset(&resp, 0, sizeof(resp));
    req.pool = p;
    req.method = "POST";
    req.path = "/v1/flight/offers";
    req.query = apr_table_make(p, 1);
    req.headers = apr_table_make(p, 1);
    req.content_type = "application/json";
    req.body = fz_str(p, data + 1, size - 1);
    req.body_len = size - 1;
    req.request_id = "req_fuzz";
    req.org_id = "org_fuzz";
    req.env = env();
    resp.headers = apr_table_make(p, 1);
    if (which <= 2) {
        flight(p, which, &req, &resp);
    }
    else {
        webhook(p, which, &req, &resp);
    }
    fz_end(p);
    return 0;
}
