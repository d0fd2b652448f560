/* The cancel runner every booking domain runs on: one sequence, the
 * domain's callbacks for what is its own.
 *
 *   request   POST .../bookings/{id}/cancel (the domain's handler) moves
 *             CONFIRMED -> CANCEL_IN_PROGRESS with cancel_attempt + 1 and
 *             queues its cancel job (trv_lifecycle_cancel_enqueue); on
 *             CANCELED a repeat restarts failed refunds
 *             (trv_lifecycle_cancel_refunds_restart)
 *   attempt   the job (trv_lifecycle_cancel_run) reads the booking; a run
 *             whose attempt is no longer the booking's changes nothing
 *   supplier  ops->ask, holding no database connection during the call
 *   outcome   answered: ops->plan (intended refund), split over the
 *             captured payments, ops->canceled, refund rows and the refund
 *             job, ops->emit of ops->canceled_event, one transaction;
 *             refused or given up: ops->failed (booking CONFIRMED again)
 *             and ops->emit of ops->failed_event
 *   refund    the domain's refund job runs trv_refunds_run (payment/refunds.h)
 *
 * Every move of the booking is a guarded UPDATE (status and attempt), so
 * a stale run records nothing. */
#ifndef TRV_LIFECYCLE_CANCEL_H
#define TRV_LIFECYCLE_CANCEL_H

#include "core/api.h"
#include "core/db.h"
#include "core/jobs.h"
#include "core/upstream.h"
#include "lifecycle/row.h"
#include "payment/collector.h"
#include "payment/pay_status.h"
#include "payment/refunds.h"

#include <apr_tables.h>
#include <jansson.h>

/* A payment of the booking, as far as a refund needs it. */
typedef struct trv_lifecycle_cancel_payment {
    const char *id;
    const char *amount;          /* decimal text */
    trv_pay_status status;
    trv_collector collected_by;
} trv_lifecycle_cancel_payment;

/* What the runner reads of a booking (ops->load fills it). */
typedef struct trv_lifecycle_cancel_booking {
    const char *id, *org_id, *supplier;
    const char *supplier_ref;    /* the supplier's booking reference, or NULL */
    const char *currency;
    int canceling;               /* CANCEL_IN_PROGRESS */
    int attempt;                 /* cancel_attempt */
    int service_pays;            /* the service collected: it refunds */
    apr_array_header_t *payments; /* trv_lifecycle_cancel_payment, oldest first */
    void *own;                   /* the domain's booking */
} trv_lifecycle_cancel_booking;

/* The supplier's answer (ops->ask). */
typedef struct trv_lifecycle_cancel_answer {
    trv_up_status status;
    const char *code, *message;  /* a refusal's, as the supplier said it */
    void *own;                   /* the domain's result (fee, refund) */
} trv_lifecycle_cancel_answer;

/* The intended refund (ops->plan). */
typedef struct trv_lifecycle_cancel_plan {
    int known;                   /* 0: the refund cannot be established */
    apr_int64_t refund_minor;    /* known: what goes back over the captured payments */
    const char *review;          /* !known: why, for the operator's log line */
    void *own;                   /* the domain's figures for ops->canceled */
} trv_lifecycle_cancel_plan;

/* A booking the outcome moved (ops->canceled, ops->failed). */
typedef struct trv_lifecycle_cancel_moved {
    int moved;                   /* 0: the run was stale, nothing written */
    const char *cancellation_id; /* the domain's cancellation row, or NULL */
    void *own;                   /* the booking as written, for ops->emit */
} trv_lifecycle_cancel_moved;

typedef struct trv_lifecycle_cancel_ops {
    const char *noun;                    /* "booking", "hotel booking": in log lines */
    const trv_refunds_kind *refunds;
    /* The booking (any organization), *out NULL when there is none. */
    apr_status_t (*load)(trv_env *env, trv_dbc *c, apr_pool_t *p, const char *id,
                         trv_lifecycle_cancel_booking **out);
    /* Asks the supplier to cancel; 0 when no supplier can be asked. */
    int (*ask)(trv_env *env, apr_pool_t *p, const char *request_id,
               const trv_lifecycle_cancel_booking *b, trv_lifecycle_cancel_answer *ans);
    /* The intended refund, in the outcome's transaction. */
    apr_status_t (*plan)(trv_dbc *c, apr_pool_t *p, const trv_lifecycle_cancel_booking *b,
                         const trv_lifecycle_cancel_answer *ans,
                         trv_lifecycle_cancel_plan *plan);
    /* CANCEL_IN_PROGRESS of b's attempt -> CANCELED with the figures;
     * refund_to: [{payment_id}] the refund goes back to. */
    apr_status_t (*canceled)(trv_dbc *c, apr_pool_t *p, const trv_lifecycle_cancel_booking *b,
                             const trv_lifecycle_cancel_plan *plan, json_t *refund_to,
                             trv_lifecycle_cancel_moved *out);
    /* CANCEL_IN_PROGRESS of b's attempt -> CONFIRMED with the failure. */
    apr_status_t (*failed)(trv_dbc *c, apr_pool_t *p, const trv_lifecycle_cancel_booking *b,
                           const char *code, const char *message,
                           trv_lifecycle_cancel_moved *out);
    /* The event of a booking the outcome moved, in its transaction (after
     * the refund rows of a cancellation). */
    apr_status_t (*emit)(trv_dbc *c, apr_pool_t *p, const trv_lifecycle_cancel_booking *b,
                         const trv_lifecycle_cancel_moved *moved, const char *event);
    const char *canceled_event, *failed_event;
    /* The API's error code for a supplier's refusal: the supplier's own
     * code, lower-cased, when it is one of kept_codes (NULL-terminated, or
     * NULL for none: a stored restriction, a booking still being
     * confirmed), else refused_code. */
    const char *const *kept_codes;
    const char *refused_code;
    const char *refused_message;         /* when the supplier gave none */
    const char *gave_up_code, *gave_up_message; /* the supplier never answered */
} trv_lifecycle_cancel_ops;

/* A view for ops->load of own, whose shared row (lifecycle/row.h) is
 * row: its id, organization, supplier, currency, cancel attempt and
 * payments (oldest first); supplier_ref, whether it is CANCEL_IN_PROGRESS
 * and whether the service collected are the domain's to say. */
trv_lifecycle_cancel_booking *trv_lifecycle_cancel_view(apr_pool_t *p, void *own,
                                                        const trv_lifecycle_row *row,
                                                        const char *supplier_ref,
                                                        int canceling, int service_pays);

/* Queues the domain's cancel job for attempt in the caller's transaction,
 * deduplicated by kind:id:attempt while queued; payload {id, request_id,
 * attempt}. */
apr_status_t trv_lifecycle_cancel_enqueue(trv_dbc *c, apr_pool_t *p, const trv_job_spec *kind,
                                          const char *id, int attempt,
                                          const char *request_id);

/* A cancel request for a CANCELED booking: its FAILED refunds back to
 * PENDING and the refund job queued, in one transaction on c (closed or
 * answered for either way). 0 when it failed (the 5xx is answered). */
int trv_lifecycle_cancel_refunds_restart(const trv_lifecycle_cancel_ops *ops, trv_req *req,
                                         trv_resp *resp, trv_dbc *c, const char *id);

/* The cancel job: payload {id, attempt}; job->arg is the domain's
 * trv_lifecycle_cancel_ops, as its domain registers the kind
 * ({&<its cancel kind>, trv_lifecycle_cancel_run, &<its ops>}). */
void trv_lifecycle_cancel_run(trv_env *env, apr_pool_t *p, const trv_job *job,
                              trv_job_result *res);

#endif
