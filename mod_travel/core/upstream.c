#include "upstream.h"
#include "call_budget.h"
#include "json.h"
#include "jval.h"
#include "metrics.h"
#include "upstream_limit.h"

#include <apr_strings.h>
#include <string.h>

const char *trv_up_status_name(trv_up_status s)
{
    switch (s) {
    case TRV_UP_OK: return "ok";
    case TRV_UP_NOT_FOUND: return "not_found";
    case TRV_UP_REJECTED: return "rejected";
    case TRV_UP_DECLINED: return "declined";
    case TRV_UP_UNAVAILABLE: return "unavailable";
    case TRV_UP_TIMEOUT: return "timeout";
    default: return "bad_response";
    }
}

static trv_up_status classify(int status)
{
    if (status >= 200 && status < 300) {
        return TRV_UP_OK;
    }
    if (status == 404) {
        return TRV_UP_NOT_FOUND;
    }
    if (status == 402) {
        return TRV_UP_DECLINED;
    }
    if (status == 429 || status >= 500) {
        return TRV_UP_UNAVAILABLE;
    }
    return TRV_UP_REJECTED;
}

trv_up_status trv_upstream_call_h(trv_env *env, apr_pool_t *p, const trv_upstream *up,
                                  const char *method, const char *path,
                                  const apr_table_t *auth_headers, const json_t *body,
                                  const char *request_id, const char *idempotency_key,
                                  trv_up_result *res)
{
    return trv_upstream_call_via(env, p, up, env->http, method, path, auth_headers, body,
                                 request_id, idempotency_key, res);
}

/* How long a call may wait for a supplier's rate limit to end. */
static apr_interval_time_t limit_wait(const trv_config *cfg)
{
    return cfg && cfg->supplier_limit_wait > 0 ? cfg->supplier_limit_wait : 0;
}

/* 0 when the call may go now (after waiting for the line's call budget
 * or the upstream's rate limit to free a call, when that is near); else
 * when it may go, with *budget set when the operator's ceiling held it
 * (core/call_budget.h) rather than the supplier's own limit. A background
 * call never waits: its caller defers it. */
static apr_time_t wait_turn(trv_env *env, apr_pool_t *p, const trv_upstream *up, int *budget)
{
    apr_interval_time_t most = up->background ? 0 : limit_wait(env->cfg);
    apr_time_t start = apr_time_now(), now = start, at;
    int have_budget = 0;
    if (up->timeout && up->timeout < most) {
        most = up->timeout; /* a search's deadline shortens both */
    }
    for (;;) {
        *budget = 0;
        if (!have_budget) {
            at = trv_call_budget_take(env->call_counter, p, up, up->background, now);
            have_budget = at <= now;
            *budget = !have_budget;
        }
        if (have_budget) {
            at = trv_upstream_limit_take(env->upstream_limits, up, now);
        }
        if (at <= now) {
            return 0;
        }
        if (at - start > most || TRV_STOPPING(env)) {
            return at;
        }
        apr_sleep(at - now < apr_time_from_msec(100) ? at - now : apr_time_from_msec(100));
        now = apr_time_now();
    }
}

/* The upstream's error code and message from its answer (see
 * trv_upstream_call). */
static void error_of(trv_up_result *res)
{
    json_t *e;
    e = json_object_get(res->body, "error");
    if (json_is_object(e)) {
        res->code = trv_json_str(e, "code");
        res->message = trv_json_str(e, "message");
    }
    else if (json_is_object(e = json_array_get(json_object_get(res->body, "errors"), 0))) {
        /* Duffel's (and JSON:API's) list of errors: the first says why. */
        res->code = trv_json_str(e, "code");
        res->message = trv_json_str(e, "message") ? trv_json_str(e, "message")
                                                  : trv_json_str(e, "title");
    }
    else if (json_is_object(res->body) && json_is_string(json_object_get(res->body, "type"))
             && res->status != TRV_UP_OK) {
        /* Expedia Rapid's {type, message, fields}: the type says why. */
        res->code = trv_json_str(res->body, "type");
        res->message = trv_json_str(res->body, "message");
    }
}

static trv_up_status perform(trv_env *env, apr_pool_t *p, const trv_upstream *up,
                             trv_http *via, const char *method, const char *path,
                             const apr_table_t *auth_headers, const json_t *body,
                             const char *request_id, const char *idempotency_key,
                             int read, trv_up_result *res)
{
    trv_http_req hr;
    trv_http_resp hs;
    const char *err = NULL;
    int budget = 0;

    memset(res, 0, sizeof(*res));
    if ((env->upstream_limits || env->call_counter)
        && (res->retry_at = wait_turn(env, p, up, &budget))) {
        char when[APR_RFC822_DATE_LEN];
        apr_rfc822_date(when, res->retry_at);
        if (budget) {
            res->code = TRV_CALL_BUDGET_SPENT;
            res->message = apr_psprintf(p, "%s %s%s: not sent: %s's call budget "
                                        "(max_calls_per_second=%ld) is spent until %s%s",
                                        method, up->base_url, path, up->name,
                                        up->max_calls_per_second, when,
                                        up->background ? " (background call)" : "");
            if (!up->background) {
                /* Grace of a window: the request answers for this reason
                 * even when it settles after the window has turned. */
                trv_upstream_limit_budget_spent(env->upstream_limits, up,
                                                res->retry_at + TRV_CALL_BUDGET_WINDOW);
            }
        }
        else {
            res->code = "rate_limited";
            res->message = apr_psprintf(p, "%s %s%s: not sent: %s said it is over its rate "
                                        "limit until %s", method, up->base_url, path, up->name,
                                        when);
        }
        return res->status = TRV_UP_UNAVAILABLE;
    }
    memset(&hr, 0, sizeof(hr));
    hr.method = method;
    hr.url = apr_pstrcat(p, up->base_url, path, NULL);
    hr.headers = apr_table_make(p, 4);
    apr_table_setn(hr.headers, "Accept", "application/json");
    if (auth_headers) {
        hr.headers = apr_table_overlay(p, hr.headers, auth_headers);
    }
    else if (up->api_key) {
        apr_table_setn(hr.headers, "Authorization",
                       apr_pstrcat(p, "Bearer ", up->api_key, NULL));
    }
    if (idempotency_key) {
        apr_table_setn(hr.headers, "Idempotency-Key", idempotency_key);
        hr.keyed = 1; /* the upstream answers a repeat with the first outcome */
    }
    if (up->repeatable) {
        hr.keyed = 1; /* a read: a repeat changes nothing */
    }
    if (body) {
        hr.body = trv_json_dump(p, body);
        hr.body_len = strlen(hr.body);
        apr_table_setn(hr.headers, "Content-Type", "application/json");
    }
    hr.connect_timeout = up->connect_timeout;
    hr.timeout = up->timeout;
    hr.max_response = env->cfg ? env->cfg->max_response : 0;
    hr.request_id = request_id;

    if (trv_http_perform(via, p, &hr, &hs) != APR_SUCCESS) {
        res->elapsed = hs.elapsed;
        res->message = apr_psprintf(p, "%s %s: %s", method, hr.url, hs.error);
        /* A request that may have reached the upstream and got no answer
         * (none in time, or the connection closed after it was sent) has
         * an unknown outcome; a refused connection changed nothing. */
        res->status = hs.timed_out || hs.unanswered ? TRV_UP_TIMEOUT : TRV_UP_UNAVAILABLE;
        return res->status;
    }
    res->elapsed = hs.elapsed;
    res->http_status = hs.status;
    res->retry_at = trv_upstream_limit_note(env->upstream_limits, up, apr_time_now(), hs.status,
                                            hs.headers);
    res->status = classify(hs.status);
    if (hs.body_len && read && res->status == TRV_UP_OK) {
        /* Read in place: hs.body is this call's own buffer. */
        res->doc = trv_jval_parse(p, hs.body, hs.body_len, &err);
    }
    else if (hs.body_len) {
        /* An error's answer is a tree even for a reader (it is small, and
         * every adapter reads its errors from res->body). */
        res->body = trv_json_parse(p, hs.body, hs.body_len, &err);
    }
    error_of(res);
    if (!res->message && res->status != TRV_UP_OK) {
        res->message = apr_psprintf(p, "%s %s answered %d", method, hr.url, hs.status);
    }
    if (res->status == TRV_UP_OK && hs.body_len && !res->body && !res->doc) {
        res->status = TRV_UP_BAD_RESPONSE;
        res->message = apr_psprintf(p, "%s %s: the answer is not JSON (%s)", method, hr.url,
                                    err);
    }
    return res->status;
}

trv_up_status trv_upstream_call_via(trv_env *env, apr_pool_t *p, const trv_upstream *up,
                                    trv_http *via, const char *method, const char *path,
                                    const apr_table_t *auth_headers, const json_t *body,
                                    const char *request_id, const char *idempotency_key,
                                    trv_up_result *res)
{
    return perform(env, p, up, via, method, path, auth_headers, body, request_id,
                   idempotency_key, 0, res);
}

trv_up_status trv_upstream_read_via(trv_env *env, apr_pool_t *p, const trv_upstream *up,
                                    trv_http *via, const char *method, const char *path,
                                    const apr_table_t *auth_headers, const json_t *body,
                                    const char *request_id, const char *idempotency_key,
                                    trv_up_result *res)
{
    return perform(env, p, up, via, method, path, auth_headers, body, request_id,
                   idempotency_key, 1, res);
}

void trv_upstream_count(trv_env *env, const char *name, const trv_up_result *res)
{
    if (!res->http_status && res->retry_at) {
        /* Not sent (held for the budget or the supplier's limit): not a
         * call, counted apart. */
        trv_metrics_upstream_event(env->metrics, name,
                                   res->code && strcmp(res->code, TRV_CALL_BUDGET_SPENT) == 0
                                       ? TRV_METRIC_BUDGET_REFUSED : TRV_METRIC_LIMIT_REFUSED);
        return;
    }
    if (res->http_status == 429) {
        trv_metrics_upstream_event(env->metrics, name, TRV_METRIC_429);
    }
    trv_metrics_upstream(env->metrics, name,
                         res->status == TRV_UP_TIMEOUT ? 2
                         : res->status == TRV_UP_UNAVAILABLE
                           || res->status == TRV_UP_BAD_RESPONSE ? 1 : 0,
                         res->elapsed);
}

trv_up_status trv_upstream_call(trv_env *env, apr_pool_t *p, const trv_upstream *up,
                                const char *method, const char *path,
                                const json_t *body, const char *request_id,
                                const char *idempotency_key, trv_up_result *res)
{
    return trv_upstream_call_with(env, p, up, method, path, NULL, body, request_id,
                                  idempotency_key, res);
}

static trv_up_status with(trv_env *env, apr_pool_t *p, const trv_upstream *up,
                          const char *method, const char *path,
                          const apr_table_t *extra_headers, const json_t *body,
                          const char *request_id, const char *idempotency_key, int read,
                          trv_up_result *res)
{
    apr_table_t *h = NULL;
    if (extra_headers) {
        h = apr_table_copy(p, extra_headers);
        if (up->api_key) {
            apr_table_setn(h, "Authorization", apr_pstrcat(p, "Bearer ", up->api_key, NULL));
        }
    }
    perform(env, p, up, env->http, method, path, h, body, request_id, idempotency_key, read,
            res);
    trv_upstream_count(env, up->name, res);
    /* The API key travels in a header and is never part of what is logged. */
    TRV_DEBUG(&env->log, request_id,
              TRVLOGNO(206) "upstream %s %s %s%s: %s (HTTP %d) in %.1f ms", up->name,
              method, up->base_url, path, trv_up_status_name(res->status), res->http_status,
              (double)res->elapsed / 1000.0);
    return res->status;
}

trv_up_status trv_upstream_call_with(trv_env *env, apr_pool_t *p, const trv_upstream *up,
                                     const char *method, const char *path,
                                     const apr_table_t *extra_headers, const json_t *body,
                                     const char *request_id, const char *idempotency_key,
                                     trv_up_result *res)
{
    return with(env, p, up, method, path, extra_headers, body, request_id, idempotency_key, 0,
                res);
}

trv_up_status trv_upstream_read_with(trv_env *env, apr_pool_t *p, const trv_upstream *up,
                                     const char *method, const char *path,
                                     const apr_table_t *extra_headers, const json_t *body,
                                     const char *request_id, const char *idempotency_key,
                                     trv_up_result *res)
{
    return with(env, p, up, method, path, extra_headers, body, request_id, idempotency_key, 1,
                res);
}
