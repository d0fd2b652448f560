/* A supplier adapter call's context and the call itself (supplier_call.h). */
#include "supplier_call.h"
#include "call_log.h"

#include <apr_strings.h>

#include <string.h>

void trv_supplier_call_start(trv_supplier_call *call, trv_env *env, apr_pool_t *p,
                             const char *request_id, const trv_upstream *up)
{
    memset(call, 0, sizeof(*call));
    call->env = env;
    call->pool = p;
    call->request_id = request_id;
    call->up = up;
}

/* After the call: its booking's record (sent: a call not sent is none)
 * and the line of an outcome other than OK, with err filled. */
static trv_up_status noted(const trv_supplier_call *call, const trv_supplier_call_opts *opts,
                           int sent, int logno, const char *method, const char *path,
                           trv_up_status st, const trv_up_result *res, trv_supplier_err *err)
{
    if (sent && call->booking_id) {
        trv_call_log_entry e = {call->org_id, call->booking_id, opts->family, call->up->name,
                                method, path, call->request_id, res};
        trv_call_log_add(call->env, call->pool, &e);
    }
    if (st != TRV_UP_OK) {
        int level = (st == TRV_UP_REJECTED || st == TRV_UP_NOT_FOUND) ? TRV_LOG_INFO
                                                                       : TRV_LOG_WARNING;
        err->code = res->code ? res->code : trv_up_status_name(st);
        err->message = res->message ? res->message : "the supplier did not answer";
        trv_log_msg(&call->env->log, level, call->request_id,
                    "TRV%d: %s %s %s: %s (HTTP %d, %s) after %" APR_TIME_T_FMT " ms", logno,
                    opts->who, method, path, trv_up_status_name(st), res->http_status,
                    err->code, apr_time_as_msec(res->elapsed));
    }
    return st;
}

trv_up_status trv_supplier_call_send(const trv_supplier_call *call,
                                     const trv_supplier_call_opts *opts, int logno,
                                     const char *method, const char *path, const json_t *body,
                                     trv_up_result *res, trv_supplier_err *err)
{
    trv_env *env = call->env;
    const trv_upstream *up = call->up;
    trv_upstream within;
    apr_interval_time_t left = opts->deadline ? opts->deadline - apr_time_now() : 0;
    trv_up_status st;
    if (opts->deadline && left <= 0) {
        memset(res, 0, sizeof(*res));
        res->status = st = TRV_UP_TIMEOUT;
        res->message = "the search deadline passed before this call";
        return noted(call, opts, 0, logno, method, path, st, res, err);
    }
    if (opts->deadline || opts->search) {
        within = *up;
        within.repeatable |= opts->search;
        up = &within;
    }
    if (opts->deadline) {
        /* Each wait of the call ends by the deadline at the latest. */
        within.timeout = within.timeout && within.timeout < left ? within.timeout : left;
        within.connect_timeout = within.connect_timeout && within.connect_timeout < left
                                     ? within.connect_timeout : left;
    }
    if (opts->beside_key) {
        st = (opts->read ? trv_upstream_read_with : trv_upstream_call_with)(
            env, call->pool, up, method, path, opts->headers, body, call->request_id,
            opts->idempotency_key, res);
    }
    else {
        st = (opts->read ? trv_upstream_read_via : trv_upstream_call_via)(
            env, call->pool, up, opts->via ? opts->via : env->http, method, path, opts->headers,
            body, call->request_id, opts->idempotency_key, res);
        trv_upstream_count(env, opts->counted_as ? opts->counted_as : up->name, res);
    }
    return noted(call, opts, 1, logno, method, path, st, res, err);
}

trv_up_status trv_supplier_call_bad(const trv_supplier_call *call, int logno, const char *who,
                                    const char *what, trv_supplier_err *err)
{
    err->code = "bad_response";
    err->message = apr_psprintf(call->pool, "%s answered without %s", who, what);
    trv_log_msg(&call->env->log, TRV_LOG_WARNING, call->request_id, "TRV%d: %s", logno,
                err->message);
    return TRV_UP_BAD_RESPONSE;
}
