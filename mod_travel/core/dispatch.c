#include "dispatch.h"
#include "json.h"
#include "json_arena.h"
#include "json_numbers.h"
#include "metrics.h"
#include "validate.h"

#include <apr_strings.h>
#include <string.h>
#include <strings.h>

static int is_json_type(const char *ct)
{
    size_t n = strlen("application/json");
    if (!ct) {
        return 0;
    }
    while (*ct == ' ') {
        ct++;
    }
    return strncasecmp(ct, "application/json", n) == 0
        && (ct[n] == '\0' || ct[n] == ';' || ct[n] == ' ');
}

static int takes_body(const char *method)
{
    return strcmp(method, "POST") == 0 || strcmp(method, "PATCH") == 0
        || strcmp(method, "PUT") == 0;
}

int trv_read_json_body(trv_req *req, trv_resp *resp, apr_off_t max_body)
{
    const char *err = NULL;
    if (!takes_body(req->method)) {
        return 1;
    }
    if (req->body_too_large) {
        trv_fail(req, resp, 413, "payload_too_large",
                 "The request body exceeds %" APR_OFF_T_FMT " bytes", max_body);
        return 0;
    }
    if (!req->body || req->body_len == 0) {
        return 1;
    }
    if (!is_json_type(req->content_type)) {
        trv_fail(req, resp, 415, "unsupported_media_type",
                 "The request body must be sent as Content-Type: application/json");
        return 0;
    }
    if ((err = trv_json_shape_check(req->body, req->body_len))) {
        trv_errs *errs = trv_errs_new(req->pool);
        trv_errs_add(errs, "body", "%s", err);
        trv_fail_invalid(req, resp, errs);
        return 0;
    }
    req->json = trv_json_parse(req->pool, req->body, req->body_len, &err);
    /* Amounts are read from the text the client wrote, not the doubles. */
    trv_json_numbers_keep(req->pool, req->json, req->body, req->body_len);
    if (!req->json) {
        trv_fail(req, resp, 400, "invalid_json", "The request body is not valid JSON: %s",
                 err);
        return 0;
    }
    if (!json_is_object(req->json)) {
        trv_errs *errs = trv_errs_new(req->pool);
        trv_errs_add(errs, "body", "must be a JSON object");
        trv_fail_invalid(req, resp, errs);
        return 0;
    }
    return 1;
}

/* When each step ended, for the debug line (0: not reached). */
typedef struct steps {
    apr_time_t start, routed, authed, read, handled;
    int arena;                       /* an arena was opened (TRV_ROUTE_JSON_ARENA) */
    trv_json_arena *outer;           /* the thread's arena before it */
} steps;

static void run_steps(const trv_router *rt, trv_auth_fn *auth, trv_req *req,
                      trv_resp *resp, const trv_route **route, steps *t)
{
    const char *allow = NULL;
    trv_errs *errs = trv_errs_new(req->pool);
    trv_route_result m;
    void *idem = NULL;

    req->params = apr_table_make(req->pool, 4);
    m = trv_router_match(rt, req->pool, req->method, req->path, route, req->params,
                         &allow, errs);
    t->routed = apr_time_now();
    /* Who is asking comes first, even for unknown paths: nothing about the
     * API, its routes or its parsing is answered to an anonymous caller. */
    if (auth && !(*route && ((*route)->flags & TRV_ROUTE_PUBLIC)) && !auth(req, resp)) {
        return;
    }
    t->authed = apr_time_now();
    /* A path or query that cannot be decoded is answered before anything
     * reads it: 422 with a detail per bad part, whatever the route. */
    if (req->decode_errs) {
        trv_fail_invalid(req, resp, req->decode_errs);
        return;
    }
    /* Opened before the body is parsed, so that every tree of the request
     * is bound to its pool after the arena (released last). */
    if (*route && ((*route)->flags & TRV_ROUTE_JSON_ARENA)) {
        t->outer = trv_json_arena_open(req->pool);
        t->arena = 1;
    }
    if (!trv_read_json_body(req, resp, req->env->cfg ? req->env->cfg->max_body : 0)) {
        return;
    }
    t->read = apr_time_now();
    if (m == TRV_ROUTE_NOT_FOUND) {
        trv_fail(req, resp, 404, "not_found", "No such endpoint: %s %s", req->method,
                 req->path);
        return;
    }
    if (m == TRV_ROUTE_BAD_METHOD) {
        apr_table_setn(resp->headers, "Allow", allow);
        trv_fail(req, resp, 405, "method_not_allowed", "%s is not allowed here; use %s",
                 req->method, allow);
        return;
    }
    /* One rule for every route: parameters and fields it does not take are
     * refused, not ignored. */
    if (!((*route)->flags & TRV_ROUTE_OWN_QUERY)) {
        static const char *const none[] = {NULL};
        trv_query_known(req->query, none, errs);
    }
    if (((*route)->flags & TRV_ROUTE_NO_BODY) && req->json) {
        static const char *const none[] = {NULL};
        trv_json_known(req->json, NULL, none, errs);
    }
    if (trv_errs_any(errs)) {
        trv_fail_invalid(req, resp, errs);
        return;
    }
    if (((*route)->flags & TRV_ROUTE_IDEMPOTENT) && req->env->idempotency
        && !req->env->idempotency->begin(req, resp,
                                         ((*route)->flags & TRV_ROUTE_USER_SCOPED) != 0,
                                         &idem)) {
        return;
    }
    req->route_arg = (*route)->arg;
    (*route)->handler(req, resp);
    t->handled = apr_time_now();
    if (resp->status == 0) {
        trv_log_msg(&req->log, TRV_LOG_ERR, req->request_id,
                    TRVLOGNO(203) "%s %s answered nothing", req->method, req->path);
        trv_fail(req, resp, 500, "internal_error", "An internal error occurred");
    }
    if (idem) {
        req->env->idempotency->finish(req, resp, idem);
    }
}

/* Milliseconds from a to b, or -1 when the step was not reached. */
static double ms(apr_time_t a, apr_time_t b)
{
    return b ? (double)(b - a) / 1000.0 : -1.0;
}

void trv_dispatch(const trv_router *rt, trv_auth_fn *auth, trv_req *req,
                  trv_resp *resp)
{
    const trv_route *route = NULL;
    steps t = {apr_time_now(), 0, 0, 0, 0, 0, NULL};
    run_steps(rt, auth, req, resp, &route, &t);
    /* The answer is written after this: its trees stay (the pool holds
     * the arena's blocks), new allocations are malloc's again. */
    if (t.arena) {
        trv_json_arena_enter(t.outer);
    }
    trv_metrics_request(req->env->metrics, route, resp->status, apr_time_now() - t.start);
    /* One line per request under LogLevel travel:debug: the route, the key
     * (its id, never the key), the answer and what each step took (-1: the
     * request did not get that far). */
    TRV_DEBUG(&req->log, req->request_id,
              TRVLOGNO(205) "%s %s: route %s %s, key %s, answered %d%s%s in %.1f ms "
              "(route %.2f, auth %.2f, body %.2f, handler %.2f ms)",
              req->method, req->path, route ? route->method : "-",
              route ? route->pattern : "(none)", req->key_id ? req->key_id : "-",
              resp->status, resp->error_code ? " " : "",
              resp->error_code ? resp->error_code : "", ms(t.start, apr_time_now()),
              ms(t.start, t.routed), t.authed ? ms(t.routed, t.authed) : -1.0,
              t.read ? ms(t.authed, t.read) : -1.0, t.handled ? ms(t.read, t.handled) : -1.0);
}
