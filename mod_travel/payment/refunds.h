/* Refund requests of any domain (flight_refunds, hotel_refunds): written
 * PENDING when a cancellation settles, sent to the payment provider by the
 * domain's refund job, SUBMITTED or FAILED; a repeated cancel puts FAILED
 * ones back to PENDING. The statements are the domain's (its tables), the
 * logic one, as payment/intents.h does for authorizations. */
#ifndef TRV_PAYMENT_REFUNDS_H
#define TRV_PAYMENT_REFUNDS_H

#include "core/db.h"
#include "core/jobs.h"
#include "payment/refund_status.h"

#include <apr_tables.h>

/* One refund request; amount is exact decimal text. */
typedef struct trv_refunds_item {
    const char *id;              /* rfd_... (also the provider's idempotency key) */
    const char *booking_id;
    const char *cancellation_id; /* the domain's cancellation row, or NULL */
    const char *payment_id;
    const char *currency, *amount;
    const char *provider_ref;    /* the payment's authorization (read with pending ones) */
} trv_refunds_item;

/* A domain's statements:
 *   insert   (id, booking_id, [cancellation_id,] payment_id, currency, amount)
 *   pending  (booking_id) -> id, booking_id, [cancellation_id,] payment_id,
 *            currency, amount, provider_ref of its PENDING refunds, oldest first
 *   result   (status, provider_ref, error, id), guarded by status PENDING
 *   restart  (booking_id): FAILED -> PENDING */
typedef struct trv_refunds_sql {
    trv_stmt insert, pending, result, restart;
} trv_refunds_sql;

typedef struct trv_refunds_kind {
    const char *noun;            /* "booking", "hotel booking": in log lines */
    const trv_refunds_sql *sql;
    const trv_job_spec *job;     /* its refund job, run by trv_refunds_run */
    int per_cancellation;        /* insert binds the cancellation id */
} trv_refunds_kind;

apr_status_t trv_refunds_insert(const trv_refunds_kind *k, trv_dbc *c, apr_pool_t *p,
                                const trv_refunds_item *r);
/* Queues the kind's refund job for the booking in the caller's
 * transaction (deduplicated by job:id while queued). */
apr_status_t trv_refunds_enqueue(const trv_refunds_kind *k, trv_dbc *c, apr_pool_t *p,
                                 const char *booking_id, const char *request_id);
/* FAILED refunds of the booking back to PENDING; *n how many. */
apr_status_t trv_refunds_restart(const trv_refunds_kind *k, trv_dbc *c, apr_pool_t *p,
                                 const char *booking_id, int *n);
/* The booking's PENDING refunds with their payment's authorization
 * (array of trv_refunds_item), oldest first. */
apr_status_t trv_refunds_pending(const trv_refunds_kind *k, trv_dbc *c, apr_pool_t *p,
                                 const char *booking_id, apr_array_header_t **out);
/* PENDING -> SUBMITTED (provider_ref) or FAILED (error); attempts + 1. A
 * move the refund table does not have is refused and logged (nothing
 * written). */
apr_status_t trv_refunds_result(const trv_refunds_kind *k, trv_dbc *c, apr_pool_t *p,
                                const trv_log *log, const char *request_id, const char *id,
                                trv_refund_status status, const char *provider_ref,
                                const char *error);
/* The refund job: sends the booking's (payload "id") PENDING refunds to the
 * payment provider, each with its id as idempotency key; an unanswered one
 * is retried, and FAILED on the job's last attempt. job->arg is the
 * domain's trv_refunds_kind, as its domain registers the kind
 * ({&<its refund kind>, trv_refunds_run, &<its refunds kind>}). */
void trv_refunds_run(trv_env *env, apr_pool_t *p, const trv_job *job, trv_job_result *res);

#endif
