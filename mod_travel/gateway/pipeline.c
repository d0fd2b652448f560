#include "gateway.h"
#include "account/key_cache.h"
#include "account/keys.h"
#include "core/crypt.h"
#include "core/dispatch.h"
#include "flight/domain.h"
#include "hotel/domain.h"
#include "watch/domain.h"
#include "system.h"
#include "webhook/domain.h"

#include <apr_strings.h>
#include <string.h>

struct trv_gateway {
    const trv_registry *registry;
    trv_router *router;
};

/* A domain joins the API by being listed here; everything else about it
 * (routes, jobs, event types, suppliers) is its own registration. */
const trv_domain *const *trv_gateway_domains(void)
{
    static const trv_domain *const domains[] = {
        &trv_system_domain,
        &trv_webhook_domain,
        &trv_flight_domain,
        &trv_hotel_domain,
        &trv_watch_domain,
        NULL,
    };
    return domains;
}

apr_status_t trv_gateway_make(apr_pool_t *p, trv_gateway **gw, const char **err)
{
    trv_gateway *g = apr_pcalloc(p, sizeof(*g));
    trv_registry *reg;
    apr_status_t rv = trv_registry_build(p, trv_gateway_domains(), &reg, err);
    *gw = NULL;
    if (rv != APR_SUCCESS) {
        return rv;
    }
    g->registry = reg;
    g->router = trv_router_make(p);
    trv_router_add(g->router, trv_registry_routes(reg));
    *gw = g;
    return APR_SUCCESS;
}

trv_gateway *trv_gateway_create(apr_pool_t *p)
{
    trv_gateway *gw;
    const char *err;
    return trv_gateway_make(p, &gw, &err) == APR_SUCCESS ? gw : NULL;
}

const trv_registry *trv_gateway_registry(const trv_gateway *gw)
{
    return gw->registry;
}

const trv_router *trv_gateway_router(const trv_gateway *gw)
{
    return gw->router;
}

const trv_job_kind *trv_gateway_job_kinds(const trv_gateway *gw)
{
    return trv_registry_job_kinds(gw->registry);
}

static int authenticate(trv_req *req, trv_resp *resp)
{
    const char *key = trv_key_of_headers(req->headers);
    trv_principal who;
    trv_key_stamp stamp;
    const char *hash;
    trv_dbc *c = NULL;
    apr_status_t rv;

    if (!key || !*key) {
        trv_fail(req, resp, 401, "unauthorized", "An API key is required: send it in the x-api-key header or as Authorization: Bearer <key>");
        return 0;
    }
    if (!trv_key_well_formed(key)) {
        trv_fail(req, resp, 401, "unauthorized", "The API key is invalid or revoked");
        return 0;
    }
    /* A key this child has seen on this database since the last change to
     * any key there: no query (key_cache.h says why that is safe). */
    hash = trv_crypt_sha256_hex(req->pool, key, strlen(key));
    if (trv_key_cache_get(req->env->key_cache, req->pool, hash, &who, &stamp)) {
        goto known;
    }
    if (!trv_api_db_open(req, resp, &c, 201, "authenticating")) {
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
    trv_key_cache_put(req->env->key_cache, hash, &who, stamp);
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
    case 417: msg = "The Expect header names an expectation this server cannot meet"; break;
    case 431: msg = "The request headers are too large"; break;
    case 501: msg = "This server does not support the request method"; break;
    case 503: msg = "The service is temporarily unavailable; retry shortly"; break;
    default: msg = status >= 500 ? "An internal error occurred" : "The request failed";
    }
    if (status < 400 || status > 599) {
        status = 500;
    }
    trv_fail(req, resp, status, status == 400 ? "bad_request" : trv_status_code(status),
             "%s", msg);
}
