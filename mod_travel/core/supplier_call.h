/* What a call to a supplier adapter carries, whatever its domain: the
 * environment, the pool its answers are bound to, the request it is made
 * for, the supplier's configured line and, for the calls of a booking's
 * lifecycle, that booking (each such call is recorded, core/call_log.h);
 * and how an adapter says what went wrong. A domain's context
 * (flight/supplier.h's trv_flight_ctx, hotel/supplier.h's trv_hotel_ctx)
 * starts with TRV_SUPPLIER_CALL and adds what only its adapters read; its
 * error type is trv_supplier_err. And the call itself
 * (trv_supplier_call_send), which every adapter makes through its domain's
 * wire helper. */
#ifndef TRV_SUPPLIER_CALL_H
#define TRV_SUPPLIER_CALL_H

#include "upstream.h"

/* One list for the named struct and the anonymous one, so both lay out alike. */
#define TRV_SUPPLIER_CALL_FIELDS \
    trv_env *env; \
    apr_pool_t *pool; \
    const char *request_id;      /* sent upstream as x-request-id */ \
    const trv_upstream *up;      /* this supplier's configured line */ \
    const char *org_id, *booking_id; /* a booking's lifecycle call: recorded */

typedef struct trv_supplier_call {
    TRV_SUPPLIER_CALL_FIELDS
} trv_supplier_call;

/* The first member of a domain's context: the fields by name (ctx->up)
 * and as one (ctx->call). */
#define TRV_SUPPLIER_CALL \
    union { \
        trv_supplier_call call; \
        struct { \
            TRV_SUPPLIER_CALL_FIELDS \
        }; \
    }

/* A result other than TRV_UP_OK, as an adapter reports it: the
 * supplier's code (or the status's name) and a sentence. */
typedef struct trv_supplier_err {
    const char *code;
    const char *message;
} trv_supplier_err;

/* call for a request of env to the supplier line up, its answers bound to
 * p; no booking (org_id, booking_id NULL). The caller zeroes the rest of
 * its context. */
void trv_supplier_call_start(trv_supplier_call *call, trv_env *env, apr_pool_t *p,
                             const char *request_id, const trv_upstream *up);

/* What differs between two adapters' calls: the domain's part (family,
 * who, counted_as, deadline), which its wire helper fills
 * (flight/suppliers/wire.c, hotel/suppliers/wire.c), and the call's own
 * (headers, key, read, via), which the adapter fills. All zero: the
 * bearer key, no Idempotency-Key, the answer parsed into res->body, over
 * env->http, no deadline. */
typedef struct trv_supplier_call_opts {
    const char *family;          /* "flight", "hotel": the booking's call log's */
    const char *who;             /* the adapter, as a failure's log line names it */
    const char *counted_as;      /* the call's name in the server's figures
                                  * (core/metrics.h); NULL: the line's name */
    /* 0, or when the caller stops waiting (a search's deadline): the call
     * waits at most until then, and one that would start after it is a
     * timeout, neither sent nor recorded. */
    apr_time_t deadline;
    const apr_table_t *headers;  /* the API's own headers, or NULL */
    /* 1: headers go beside the bearer key (Duffel's Duffel-Version); such
     * a call is counted under the line's name and has its debug line
     * (trv_upstream_call_with). 0: headers carry the key themselves
     * (LiteAPI's X-API-Key, a signature), NULL headers the bearer key. */
    int beside_key;
    /* Sent as Idempotency-Key as it is: the domain's wire helper has asked
     * the adapter's protocol row (trv_supplier_idempotency_key,
     * core/registry.h). NULL: none, and then the HTTP client never resends
     * the request (core/http.h). */
    const char *idempotency_key;
    int read;                    /* a 2xx answer read by core/jval.h into res->doc
                                  * (res->body NULL): a search's large answers */
    /* 1: a search, which only reads: it goes out on a pooled keep-alive
     * connection even as a POST (trv_upstream.repeatable), where an
     * unkeyed write gets a new one; a new connection per search cost the
     * supplier about a millisecond each (docs/performance.md). */
    int search;
    /* Another transport than env->http (payment/forward.h: the payment
     * provider forwards the request with a card filled in); not with
     * beside_key. */
    trv_http *via;
} trv_supplier_call_opts;

/* The one way an adapter of any domain calls its supplier (core/upstream.h)
 * for call: as opts say, then, once sent, the call recorded for its
 * booking (core/call_log.h), and an outcome other than OK logged under
 * logno (the domain's number) as "<who> <method> <path>: <status> (HTTP
 * n, <code>) after n ms" (info for a refusal or a not found, else warning)
 * with err filled (the upstream's code and message, else the status's name
 * and "the supplier did not answer"). */
trv_up_status trv_supplier_call_send(const trv_supplier_call *call,
                                     const trv_supplier_call_opts *opts, int logno,
                                     const char *method, const char *path, const json_t *body,
                                     trv_up_result *res, trv_supplier_err *err);

/* An answer without what the adapter needs: err is bad_response, "<who>
 * answered without <what>", logged as a warning under logno (the
 * adapter's number). Returns TRV_UP_BAD_RESPONSE. */
trv_up_status trv_supplier_call_bad(const trv_supplier_call *call, int logno, const char *who,
                                    const char *what, trv_supplier_err *err);

#endif
