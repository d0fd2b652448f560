/* Calling an upstream JSON API (a supplier, the payment provider): bearer
 * authentication, timeouts and the response cap from its configuration,
 * x-request-id sent along, and the answer sorted into what the caller must
 * do about it. Adapters build on this; none calls libcurl. */
#ifndef TRV_UPSTREAM_H
#define TRV_UPSTREAM_H

#include "config.h"
#include "env.h"

#include <jansson.h>

typedef enum {
    TRV_UP_OK = 0,        /* 2xx */
    TRV_UP_NOT_FOUND,     /* 404 */
    TRV_UP_REJECTED,      /* 400, 409, 422: the upstream refused, for good */
    TRV_UP_DECLINED,      /* 402: a payment was declined */
    TRV_UP_UNAVAILABLE,   /* 5xx, 429, connection failure: nothing happened, try later */
    TRV_UP_TIMEOUT,       /* no answer in time, or the connection closed after the
                           * request went out: the outcome is unknown */
    TRV_UP_BAD_RESPONSE   /* an answer that is not the JSON expected */
} trv_up_status;

typedef struct trv_up_result {
    trv_up_status status;
    int http_status;        /* 0 without an HTTP answer */
    json_t *body;           /* pool-bound parsed body (NULL if none / not JSON) */
    /* A 2xx body read by core/jval.h instead, for trv_upstream_read_*
     * (body is then NULL; an error's body is still parsed into body). */
    const struct trv_jval *doc;
    const char *code;       /* the upstream's error code, when it gave one */
    const char *message;    /* a sentence for logs and failure descriptions */
    apr_interval_time_t elapsed;
    /* Set with TRV_UP_UNAVAILABLE when the upstream is over its rate limit
     * (it answered 429, or the call was refused before it went out because
     * it had said so, core/upstream_limit.h): when to try again. */
    apr_time_t retry_at;
} trv_up_result;

/* method + base_url + path; body (may be NULL) is sent as JSON. Returns the
 * classification also stored in res->status. Error bodies of the form
 * {"error": {"code", "message"}}, {"errors": [{"code", "message"}]}
 * (Duffel's) or {"type", "message"} (Expedia Rapid's, on an error status)
 * fill res->code and res->message. */
trv_up_status trv_upstream_call(trv_env *env, apr_pool_t *p, const trv_upstream *up,
                                const char *method, const char *path,
                                const json_t *body, const char *request_id,
                                const char *idempotency_key, trv_up_result *res);

/* trv_upstream_call with headers of the API's own beside the bearer key
 * (Duffel's Duffel-Version); extra_headers may be NULL. */
trv_up_status trv_upstream_call_with(trv_env *env, apr_pool_t *p, const trv_upstream *up,
                                     const char *method, const char *path,
                                     const apr_table_t *extra_headers, const json_t *body,
                                     const char *request_id, const char *idempotency_key,
                                     trv_up_result *res);

/* The same with the caller's own headers (may be NULL) for APIs that do
 * not take a bearer key: with auth_headers set, no Authorization: Bearer is
 * added and the adapter's headers (its key, its signature) are sent. */
trv_up_status trv_upstream_call_h(trv_env *env, apr_pool_t *p, const trv_upstream *up,
                                  const char *method, const char *path,
                                  const apr_table_t *auth_headers, const json_t *body,
                                  const char *request_id, const char *idempotency_key,
                                  trv_up_result *res);

/* The same request sent through another transport than env->http: one
 * that hands it to a payment provider to forward with a card filled in
 * (payment/forward.h), so the card never passes through the service. The
 * answer is classified as the upstream's own. */
trv_up_status trv_upstream_call_via(trv_env *env, apr_pool_t *p, const trv_upstream *up,
                                    trv_http *via, const char *method, const char *path,
                                    const apr_table_t *auth_headers, const json_t *body,
                                    const char *request_id, const char *idempotency_key,
                                    trv_up_result *res);

/* trv_upstream_call_with whose 2xx answer is read with core/jval.h into
 * res->doc (res->body NULL). */
trv_up_status trv_upstream_read_with(trv_env *env, apr_pool_t *p, const trv_upstream *up,
                                     const char *method, const char *path,
                                     const apr_table_t *extra_headers, const json_t *body,
                                     const char *request_id, const char *idempotency_key,
                                     trv_up_result *res);

/* trv_upstream_call_via whose 2xx answer is read with core/jval.h into
 * res->doc rather than into a Jansson tree (the search path: an adapter
 * reads a few fields of a large answer); the same outcomes otherwise, and
 * an error's answer in res->body as before. */
trv_up_status trv_upstream_read_via(trv_env *env, apr_pool_t *p, const trv_upstream *up,
                                    trv_http *via, const char *method, const char *path,
                                    const apr_table_t *auth_headers, const json_t *body,
                                    const char *request_id, const char *idempotency_key,
                                    trv_up_result *res);

const char *trv_up_status_name(trv_up_status s);

/* Counts a call in the server's figures under name (core/metrics.h):
 * trv_upstream_call and _with do; callers of _h and _via that want their
 * calls counted (the hotel adapters, as "hotel <name>") call it. */
void trv_upstream_count(trv_env *env, const char *name, const trv_up_result *res);

#endif
