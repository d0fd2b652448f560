#include "gateway.h"
#include "account/key_cache.h"
#include "account/keys.h"
#include "core/dispatch.h"
#include "flight/api.h"
#include "flight/jobs.h"
#include "probe.h"
#include "webhook/api.h"
#include "webhook/outbox.h"
#include "webhook/publish.h"
#include "webhook/send.h"

#include <apr_strings.h>
#include <string.h>

struct trv_gateway {
    trv_router *router;
};

trv_gateway *trv_gateway_create(apr_pool_t *p)
{
    trv_gateway *gw = apr_pcalloc(p, sizeof(*gw));
    gw->router = trv_router_make(p);
    trv_router_add(gw->router, trv_flight_routes);
    trv_router_add(gw->router, trv_webhook_routes);
    return gw;
}

const trv_router *trv_gateway_router(const trv_gateway *gw)
{
    return gw->router;
}

const trv_job_kind *trv_gateway_job_kinds(void)
{
    static const trv_job_kind kinds[] = {
        {TRV_PROBE_JOB, trv_probe_run, 5},
        {TRV_EVENT_PUBLISH_JOB, trv_event_publish_run, 20},
        {TRV_WEBHOOK_SEND_JOB, trv_webhook_send_run, TRV_WEBHOOK_SEND_MAX_RUNS},
        {TRV_FJOB_COMPLETE, trv_fjob_complete_run, TRV_FJOB_COMPLETE_MAX},
        {TRV_FJOB_SETTLE, trv_fjob_settle_run, TRV_FJOB_SETTLE_MAX},
        {TRV_FJOB_CANCEL, trv_fjob_cancel_run, TRV_FJOB_CANCEL_MAX},
        {TRV_FJOB_REFUND, trv_fjob_refund_run, TRV_FJOB_REFUND_MAX},
        {TRV_FJOB_EXPIRE, trv_fjob_expire_run, TRV_FJOB_EXPIRE_MAX},
        {TRV_FJOB_PREBOOK_WATCH, trv_fjob_prebook_watch_run, TRV_FJOB_PREBOOK_WATCH_MAX},
        {TRV_FJOB_SYNC, trv_fjob_sync_run, TRV_FJOB_SYNC_MAX},
        {TRV_FJOB_RELEASE, trv_fjob_release_run, TRV_FJOB_RELEASE_MAX},
        {NULL, NULL, 0},
    };
    return kinds;
}

static int authenticate(trv_req *req, trv_resp *resp)
{
    const char *key = apr_table_get(req->headers, "x-api-key");
    trv_principal who;
    trv_key_stamp stamp;
    const char *hash;
    trv_dbc *c = NULL;
    apr_status_t rv;

    if (!key || !*key) {
        trv_fail(req, resp, 401, "unauthorized", "The x-api-key header is required");
        return 0;
    }
    if (!trv_key_well_formed(key)) {
        trv_fail(req, resp, 401, "unauthorized", "The API key is invalid or revoked");
        return 0;
    }
    /* A key this child has seen since the last change to any key: no query
     * (key_cache.h says why that is safe). */
    hash = trv_sha256_hex(req->pool, key, strlen(key));
    if (trv_key_cache_get(req->pool, hash, &who, &stamp)) {
        goto known;
    }
    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS) {
        trv_fail_db(req, resp, NULL, 201, "authenticating");
        return 0;
    }
    rv = trv_key_authenticate(c, req->pool, key, &who);
    if (rv == APR_EGENERAL) {
        trv_fail_db(req, resp, c, 202, "authenticating");
        trv_db_close(req->env->db, c);
        return 0;
    }
    trv_db_close(req->env->db, c);
    if (rv != APR_SUCCESS) {
        trv_fail(req, resp, 401, "unauthorized", "The API key is invalid or revoked");
        return 0;
    }
    trv_key_cache_put(hash, &who, stamp);
known:
    req->org_id = who.org_id;
    req->user_id = who.user_id;
    req->key_id = who.key_id;
    return 1;
}

void trv_gateway_handle(const trv_gateway *gw, trv_req *req, trv_resp *resp)
{
    trv_dispatch(gw->router, authenticate, req, resp);
}

void trv_gateway_error(trv_req *req, trv_resp *resp, int status)
{
    const char *msg;
    switch (status) {
    case 400: msg = "The request could not be understood"; break;
    case 401: msg = "Authentication is required"; break;
    case 403: msg = "Access to this resource is forbidden"; break;
    case 404: msg = "Not found"; break;
    case 405: msg = "This method is not allowed here"; break;
    case 408: msg = "The request took too long to arrive"; break;
    case 411: msg = "A Content-Length header is required"; break;
    case 413: msg = "The request body is too large"; break;
    case 414: msg = "The request URI is too long"; break;
    case 415: msg = "The request body must be application/json"; break;
    case 503: msg = "The service is temporarily unavailable; retry shortly"; break;
    default: msg = status >= 500 ? "An internal error occurred" : "The request failed";
    }
    if (status < 400 || status > 599) {
        status = 500;
    }
    trv_fail(req, resp, status, status == 400 ? "bad_request" : trv_status_code(status),
             "%s", msg);
}
