/* The book runner every booking domain runs on: pay for a
 * READY_FOR_COMPLETE booking and buy it at the supplier as a sequence of
 * persisted steps, so that whoever finds the booking mid-way (the request
 * that started it, or the domain's complete job after that request died)
 * carries on from where it stands:
 *
 *   begin        the domain's book endpoint moves READY_FOR_COMPLETE ->
 *                COMPLETE_IN_PROGRESS (authorizing when the service
 *                collects the payment, else ordering) and queues its job
 *   authorizing  the payment provider authorizes the saved instrument
 *                under an authorization intent's key (payment/intents.h,
 *                keyed by the domain's kind), or the payment SDK's
 *                session is looked up; here, shared
 *   ordering     the domain's supplier order (dom->order)
 *   waiting      the supplier decides later (a flight's ticketing, a
 *                hotel's confirming): the domain reads (dom->wait)
 *   unknown      the order went unanswered (result_unknown): never sent
 *                again; a domain that can read it by reference does
 *   settle       each authorization intent leaves the step RESOLVED or
 *                UNRESOLVED (the release job voids it), in the
 *                transaction of the booking's move
 *   capture      the domain's finish captures through
 *                trv_lifecycle_book_capture
 *   revert       back to READY_FOR_COMPLETE (dom->revert): the attempt
 *                bought nothing
 *
 * No database connection is held while the provider or the supplier is
 * asked; each database step is one short transaction through
 * trv_lifecycle_book_open/_commit, and a step that finds the booking moved
 * on by someone else reads where it stands (trv_lifecycle_book_lost). */
#ifndef TRV_LIFECYCLE_BOOK_H
#define TRV_LIFECYCLE_BOOK_H

#include "core/db.h"
#include "core/env.h"
#include "core/jobs.h"
#include "core/log.h"
#include "core/money.h"
#include "payment/intents.h"
#include "payment/payments.h"
#include "payment/record.h"
#include "lifecycle/status.h"

#include <jansson.h>

typedef enum {
    TRV_LIFECYCLE_BOOK_CONFIRMED,      /* 200 */
    TRV_LIFECYCLE_BOOK_PENDING,        /* 202: the supplier decides later, or another has it */
    TRV_LIFECYCLE_BOOK_FAILED,         /* FAILED: 422 book_failed */
    TRV_LIFECYCLE_BOOK_DECLINED,       /* back to READY_FOR_COMPLETE: 422 payment_declined */
    TRV_LIFECYCLE_BOOK_BAD_INSTRUMENT, /* back to READY_FOR_COMPLETE: 422 payment_instrument_id */
    TRV_LIFECYCLE_BOOK_NOT_PAID,       /* back to READY_FOR_COMPLETE: 409, SDK payment missing */
    TRV_LIFECYCLE_BOOK_UNAVAILABLE,    /* back to READY_FOR_COMPLETE: 502 */
    TRV_LIFECYCLE_BOOK_TIMEOUT,        /* back to READY_FOR_COMPLETE: 504 */
    TRV_LIFECYCLE_BOOK_UNKNOWN,        /* 500 result_unknown */
    TRV_LIFECYCLE_BOOK_RETRY,          /* go on (a step), or look again later (a job) */
    TRV_LIFECYCLE_BOOK_DB              /* a database step failed */
} trv_lifecycle_book_outcome;

/* Where a booking stands, as the runner sees it. */
typedef enum {
    TRV_LIFECYCLE_BOOK_OTHER,          /* not being booked (READY_FOR_COMPLETE, EXPIRED...) */
    TRV_LIFECYCLE_BOOK_IDLE,           /* COMPLETE_IN_PROGRESS without a step */
    TRV_LIFECYCLE_BOOK_AUTHORIZING,
    TRV_LIFECYCLE_BOOK_ORDERING,
    TRV_LIFECYCLE_BOOK_WAITING,        /* ticketing, confirming */
    TRV_LIFECYCLE_BOOK_LOST_ANSWER,    /* unknown */
    TRV_LIFECYCLE_BOOK_DONE_CONFIRMED,
    TRV_LIFECYCLE_BOOK_DONE_FAILED
} trv_lifecycle_book_step;

/* A domain's book phases, as its phase enum lists them, in the order of
 * TRV_LIFECYCLE_PHASE_* (lifecycle/status.h; flight/state.h,
 * hotel/state.h; each domain's book.c checks it with
 * TRV_LIFECYCLE_PHASES): waiting is its ticketing or confirming. */

#define TRV_LIFECYCLE_PHASES(none, authorizing, ordering, waiting, unknown) \
    _Static_assert((int)(none) == TRV_LIFECYCLE_PHASE_NONE \
                   && (int)(authorizing) == TRV_LIFECYCLE_PHASE_AUTHORIZING \
                   && (int)(ordering) == TRV_LIFECYCLE_PHASE_ORDERING \
                   && (int)(waiting) == TRV_LIFECYCLE_PHASE_WAITING \
                   && (int)(unknown) == TRV_LIFECYCLE_PHASE_UNKNOWN, \
                   "the domain's phases are the runner's (lifecycle/book.h)")

/* The step of a booking: in phase when completing (COMPLETE_IN_PROGRESS),
 * else DONE_CONFIRMED, DONE_FAILED or OTHER by its status. */
trv_lifecycle_book_step trv_lifecycle_book_step_of(int completing, int phase, int confirmed,
                                                   int failed);

/* The fields of a domain's booking the runner reads (dom->view). */
typedef struct trv_lifecycle_booking {
    const char *id;
    int attempt;                       /* book_attempt: part of every key */
    trv_lifecycle_book_step step;
    const char *currency, *total_amount;
    const char *instrument;            /* payment_instrument_id */
    int use_sdk;
    const char *sdk_token;
    const apr_array_header_t *payments; /* trv_payment_record, oldest first */
} trv_lifecycle_booking;

typedef struct trv_lifecycle_book_run trv_lifecycle_book_run;

/* What a domain brings: its booking, its store steps, its supplier. The
 * store steps run inside the runner's transaction and set *out to the
 * booking as moved, or NULL when someone else moved it first. */
typedef struct trv_lifecycle_book_domain {
    const char *noun;                  /* "booking", "hotel booking": log lines */
    const trv_pintent_kind *intents;   /* its authorization intents and release job */
    const trv_payments_kind *payments; /* its payment rows */
    void (*view)(const void *b, trv_lifecycle_booking *v);
    /* The booking id whatever its status (after a lost race, the job). */
    apr_status_t (*reread)(trv_lifecycle_book_run *run, trv_dbc *c, const char *id, void **out);
    /* Back to READY_FOR_COMPLETE, its payment row gone. */
    apr_status_t (*revert)(trv_lifecycle_book_run *run, trv_dbc *c, void **out);
    /* The step moved on from authorizing to ordering (the runner has
     * recorded the authorization as the booking's payment, in the same
     * transaction). */
    apr_status_t (*authorized)(trv_lifecycle_book_run *run, trv_dbc *c, void **out);
    /* The ordering step: ask the supplier and finish (or revert). */
    trv_lifecycle_book_outcome (*order)(trv_lifecycle_book_run *run);
    /* Waiting, or the answer lost: read at the supplier; RETRY while
     * undecided. NULL: the domain's job reads (or nobody does). */
    trv_lifecycle_book_outcome (*wait)(trv_lifecycle_book_run *run);
    /* The job takes over run->b's step from the request that started it
     * (its phase_owner) for run->owner: the guarded phase move, to the
     * phase the domain carries on from. */
    apr_status_t (*take_over)(trv_lifecycle_book_run *run, trv_dbc *c, void **out);
} trv_lifecycle_book_domain;

struct trv_lifecycle_book_run {
    trv_env *env;
    apr_pool_t *p;
    const char *request_id;
    const trv_log *log;
    const char *owner;                 /* this process, holding the step (core/owner.h) */
    const trv_lifecycle_book_domain *dom;
    void *b;                           /* the domain's booking, its latest state */
    const char *message;               /* why, for the answer */
    int db_down;                       /* TRV_LIFECYCLE_BOOK_DB: the database was unreachable */
};

/* Sets up run for the booking b the caller holds the step of. */
void trv_lifecycle_book_init(trv_lifecycle_book_run *run, const trv_lifecycle_book_domain *dom,
                             trv_env *env, apr_pool_t *p, const char *request_id,
                             const trv_log *log, const char *owner, void *b);

/* Runs the booking from its current step until it is CONFIRMED, FAILED,
 * back to READY_FOR_COMPLETE, unknown, or waiting on the supplier. */
trv_lifecycle_book_outcome trv_lifecycle_book_continue(trv_lifecycle_book_run *run);

/* What the runner reads of run->b now. */
trv_lifecycle_booking trv_lifecycle_book_view(const trv_lifecycle_book_run *run);
/* The booking's live payment (not voided), or NULL. */
const trv_payment_record *trv_lifecycle_book_live_payment(const trv_lifecycle_book_run *run);
/* The booking's total_amount as money; 0 when it has none. */
int trv_lifecycle_book_total(const trv_lifecycle_book_run *run, trv_money *m);
/* "<booking>:<what>:<attempt>": a call's idempotency key for this attempt. */
const char *trv_lifecycle_book_key(const trv_lifecycle_book_run *run, const char *what);

/* ---- database steps: one short transaction each ---- */

/* A connection in a transaction; 0 when there is none (*c may be NULL). */
int trv_lifecycle_book_open(trv_lifecycle_book_run *run, trv_dbc **c);
/* Commits and closes (and wakes the workers); 0 when the commit failed. */
int trv_lifecycle_book_commit(trv_lifecycle_book_run *run, trv_dbc *c);
/* Logs what failed under the caller's TRV number, rolls back, closes:
 * TRV_LIFECYCLE_BOOK_DB. */
trv_lifecycle_book_outcome trv_lifecycle_book_db_failed(trv_lifecycle_book_run *run,
                                                        trv_dbc *c, int logno,
                                                        const char *what);
/* Someone else moved the booking on (a takeover, a racing job): rolls
 * back, reads it and reports where it stands. */
trv_lifecycle_book_outcome trv_lifecycle_book_lost(trv_lifecycle_book_run *run, trv_dbc *c);
/* The end of a domain's confirm on c, once it has written the booking b
 * CONFIRMED and what goes with it (kept: how that went, its event
 * included): commits, run->b = b, logs "<noun> <id> confirmed: <ref_name>
 * <ref>" under logno, CONFIRMED; a failure is logged under logno_failed
 * (trv_lifecycle_book_db_failed). */
trv_lifecycle_book_outcome trv_lifecycle_book_confirmed(trv_lifecycle_book_run *run, trv_dbc *c,
                                                        void *b, apr_status_t kept,
                                                        int logno_failed, int logno,
                                                        const char *ref_name,
                                                        const char *ref);

/* ---- payments ---- */

/* What becomes of an authorization intent, written in the same
 * transaction as the booking's move (so a step that dies before it
 * leaves the intent PENDING for whoever takes the step over). */
typedef struct trv_lifecycle_book_settle {
    const char *intent_id;      /* the intent; NULL: the one of by_auth */
    const char *by_auth;        /* the intent whose authorization this is */
    trv_pintent_outcome outcome; /* RESOLVED with it; NONE: UNRESOLVED */
    const char *provider_ref;   /* the authorization, when known */
    apr_interval_time_t after;  /* UNRESOLVED: the release job voids it from then */
    int sdk;                    /* the booking's SDK session, released by the job (FAILED) */
} trv_lifecycle_book_settle;

/* Writes s (NULL: nothing) inside the caller's transaction. */
apr_status_t trv_lifecycle_book_apply_settle(trv_lifecycle_book_run *run, trv_dbc *c,
                                             const trv_lifecycle_book_settle *s);
/* Voids an authorization the booking will not use. *s: its intent
 * RESOLVED voided when the provider voided it, else UNRESOLVED and due at
 * once (the release job voids it, and retries until it is). Returns 1
 * when voided. */
int trv_lifecycle_book_void(trv_lifecycle_book_run *run, const char *authorization_id, int sdk,
                            trv_lifecycle_book_settle *s);
/* Cancels a failed SDK booking's session before its authorization is
 * voided, so the customer's device can pay it no more. Returns 1 when
 * canceled; otherwise *s hands the session and its authorization to the
 * release job, which cancels and voids until the provider does. */
int trv_lifecycle_book_cancel_sdk(trv_lifecycle_book_run *run, const char *authorization_id,
                                  const char *sdk_token, trv_lifecycle_book_settle *s);
/* Captures the service's authorization pay for the booking's total under
 * key; *card: the card the provider reports, or NULL. Logs a failure (the
 * domain retries it in the background). */
trv_up_status trv_lifecycle_book_capture(trv_lifecycle_book_run *run,
                                         const trv_payment_record *pay, const char *key,
                                         json_t **card);
/* The payment a supplier that collects itself reports (its payment
 * object, {amount: Money, ...}), as a CAPTURED record; card: what its
 * answer says of the card, or NULL. */
void trv_lifecycle_book_supplier_payment(trv_lifecycle_book_run *run, const json_t *payment,
                                         json_t *card, trv_payment_record *out);

/* Back to READY_FOR_COMPLETE (dom->revert) with s written: why. */
trv_lifecycle_book_outcome trv_lifecycle_book_revert(trv_lifecycle_book_run *run,
                                                     trv_lifecycle_book_outcome why,
                                                     const trv_lifecycle_book_settle *s);

/* ---- the domain's complete job ---- */

/* The job's booking (payload {id}) whatever its status, read through
 * dom->reread; NULL when there is none or it could not be read (res says
 * whether to retry). */
void *trv_lifecycle_book_job_load(const trv_lifecycle_book_domain *dom, trv_env *env,
                                  apr_pool_t *p, const trv_job *job, trv_job_result *res);
/* Whether the job may take over a step a request started: only once that
 * request is gone (its process died) or its calls have all timed out
 * (phase_due); else res says to look again in a second. */
int trv_lifecycle_book_job_may_take(apr_pool_t *p, int phase_due, const char *phase_owner,
                                    trv_job_result *res);
/* Takes run->b's step over (dom->take_over) and sets run->b to it; 0
 * when the job is done for now (the database failed, or someone moved the
 * booking on: res says to look again). */
int trv_lifecycle_book_job_take_over(trv_lifecycle_book_run *run, trv_job_result *res);
/* The job's result for the run's outcome: looked at again while the
 * supplier decides (and, for a domain that reads it, while the answer is
 * lost), every second for a minute then every 30 s; waiting: why. */
void trv_lifecycle_book_job_result(const trv_lifecycle_book_run *run,
                                   trv_lifecycle_book_outcome out, const trv_job *job,
                                   const char *waiting, trv_job_result *res);

/* The card object of an authorization or a payment, or NULL. */
json_t *trv_lifecycle_book_card_of(const json_t *obj);

#endif
