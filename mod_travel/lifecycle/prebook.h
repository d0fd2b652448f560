/* The prebook steps every domain takes the same way around its own
 * supplier call: a repeated x-idempotency-key waits for the request that
 * holds it and answers with its booking (200, or 409 when the body
 * differs or it is still in progress); a supplier refusal makes the
 * booking FAILED (422; it keeps its key); a prebook that bound nothing
 * gives its key back (the row goes) and answers the upstream failure.
 * The domain gives its rows, its rendering and its words as a
 * trv_lifecycle_prebook_domain; flight/prebook.c and hotel/prebook.c
 * keep what is their own (the offer, the party, the priced terms). */
#ifndef TRV_LIFECYCLE_PREBOOK_H
#define TRV_LIFECYCLE_PREBOOK_H

#include "core/api.h"
#include "core/db.h"
#include "core/money.h"
#include "core/upstream.h"
#include "lifecycle/row.h"

#include <jansson.h>

/* The booking an idempotency key made, as the wait reads it. */
typedef struct trv_lifecycle_prebook_found {
    void *booking;            /* NULL: the key has none */
    const char *id;
    const char *request_hash; /* the body's that made it (NULL: unknown, a reuse) */
    int in_progress;          /* still PREBOOK_IN_PROGRESS */
} trv_lifecycle_prebook_found;

typedef struct trv_lifecycle_prebook_domain {
    const char *name;         /* "prebook", "hotel prebook": what log lines say */
    const char *abandon_note; /* after a failed removal's error in its log line ("" for none) */
    /* The booking of key in the request's scope (f->booking NULL when none). */
    apr_status_t (*by_key)(trv_req *req, trv_dbc *c, const char *key,
                           trv_lifecycle_prebook_found *f);
    /* The wait is over and the key still in progress: 1 when its request
     * is gone and its row was removed (this one takes the key over), 0
     * when it still holds it, -1 when answered. NULL: it holds it. */
    int (*stale)(trv_req *req, trv_resp *resp, const trv_lifecycle_prebook_found *f,
                 apr_interval_time_t budget);
    /* The booking answered with status (and meta, or NULL). */
    void (*reply)(trv_req *req, trv_resp *resp, int status, void *booking, json_t *meta);
    /* PREBOOK_IN_PROGRESS -> FAILED with failure_json, and what the
     * domain keeps of it (an event, a rendering); nothing when it was no
     * longer in progress. */
    apr_status_t (*failed)(trv_dbc *c, apr_pool_t *p, const char *id, const char *failure_json);
    /* Removes the PREBOOK_IN_PROGRESS row. */
    apr_status_t (*abandon)(trv_dbc *c, apr_pool_t *p, const char *id, int *deleted);
    /* A supplier's upstream (its timeouts), and how many of its calls a
     * repeat waits out for the first request (with one payment call). */
    const trv_upstream *(*upstream)(const trv_config *cfg, const char *supplier);
    int wait_calls;
    /* 502/504 for a supplier (or payment provider) that failed. */
    void (*upstream_fail)(trv_req *req, trv_resp *resp, trv_up_status st, const char *who,
                          const char *message);
    /* A supplier error code that also says the offer is gone
     * ("offer_expired"), or NULL; what a gone offer's failure says when
     * the supplier gave no message (NULL: as any refusal). */
    const char *gone_code, *gone_message;
} trv_lifecycle_prebook_domain;

/* One prebook request. */
typedef struct trv_lifecycle_prebook {
    trv_req *req;
    trv_resp *resp;
    const trv_lifecycle_prebook_domain *d;
    const char *key, *hash;     /* the x-idempotency-key, the body's hash */
    const char *supplier;       /* the offer's */
    apr_interval_time_t budget; /* how long a repeat waits for the first request */
} trv_lifecycle_prebook;

/* The start of a prebook once its body is read: 422 when errs has any;
 * else x is the request's (d, key, the body's hash, supplier, the wait)
 * and a repeated key is answered (trv_lifecycle_prebook_existing under
 * logno_open/logno_read). 1 when answered. */
int trv_lifecycle_prebook_begin(trv_lifecycle_prebook *x, trv_req *req, trv_resp *resp,
                                const trv_lifecycle_prebook_domain *d, const trv_errs *errs,
                                const char *key, const char *supplier, int logno_open,
                                int logno_read);

/* r (lifecycle/row.h) for a new booking of x (its key, its body's hash, its
 * supplier), the request's organization and user: a new bkg_ id, which
 * it returns. */
const char *trv_lifecycle_prebook_row_start(const trv_lifecycle_prebook *x,
                                            trv_lifecycle_row_new *r,
                                            const char *offer_reference, int use_payment_sdk);

/* The booking of the key, waiting (no connection held) while another
 * request is still prebooking it: answers and returns 1 when there is
 * one (or a read failed under logno_open/logno_read), 0 when none. */
int trv_lifecycle_prebook_existing(const trv_lifecycle_prebook *x, int logno_open,
                                   int logno_read);

/* The supplier refused the prebook of booking id: FAILED with code and
 * desc (logno_open, logno_store when that fails), logged under logno_log, 422 code. */
void trv_lifecycle_prebook_failed(const trv_lifecycle_prebook *x, const char *id,
                                  const char *code, const char *desc, int logno_open,
                                  int logno_store, int logno_log);

/* The supplier's answer st (its code and message) to the prebook of
 * booking id: 0 when it is TRV_UP_OK; else answered and 1. A refusal
 * (NOT_FOUND, REJECTED, DECLINED) is trv_lifecycle_prebook_failed with
 * offer_unavailable (NOT_FOUND, or the domain's gone_code) or
 * prebook_failed; anything else changed nothing and is
 * trv_lifecycle_prebook_abandon under logno_abandon. */
int trv_lifecycle_prebook_answered(const trv_lifecycle_prebook *x, const char *id,
                                   trv_up_status st, const char *code, const char *message,
                                   int logno_open, int logno_store, int logno_log,
                                   int logno_abandon);

/* Nothing was bound anywhere: booking id's row goes (a failure logged
 * under logno) and the upstream failure st is answered. */
void trv_lifecycle_prebook_abandon(const trv_lifecycle_prebook *x, const char *id,
                                   trv_up_status st, const char *message, int logno);

/* The payment SDK's session for booking id: the payment provider's token
 * for total under the key "<id>:sdk". NULL when it failed: the prebook is
 * then abandoned (trv_lifecycle_prebook_abandon under logno) with the
 * provider's failure, answered. total NULL: the total could not be read
 * (answered as the provider unreachable). */
json_t *trv_lifecycle_prebook_sdk_token(const trv_lifecycle_prebook *x, const char *id,
                                        const trv_money *total, int logno);

/* The answer's meta for a payment SDK token (an object with token and,
 * else the payment provider's name, provider): {payment_sdk: {provider,
 * token}}. */
json_t *trv_lifecycle_prebook_sdk_meta(const json_t *token);

/* 409 invalid_state: the watchdog failed the booking while this request
 * was at the supplier. */
void trv_lifecycle_prebook_too_late(const trv_lifecycle_prebook *x);

#endif
