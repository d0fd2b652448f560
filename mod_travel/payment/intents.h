/* Authorization intents, shared by flights (sql/012, flight_authorization_
 * intents) and hotels (sql/100, hotel_authorization_intents): what
 * the service asks the payment provider to authorize for a booking,
 * recorded before the call so that an authorization made after the call
 * went unanswered is found again with the same idempotency key, and is
 * either used by the booking's next attempt or voided by the
 * domain's release job (payment/release.c). Never one left held.
 *
 *   PENDING     a book attempt holds it
 *   UNRESOLVED  nobody holds it; outcome unknown (or its void failed):
 *               the next attempt with the same instrument and amount takes
 *               it, else the job releases it from release_at
 *   RELEASING   the job is voiding it
 *   AUTHORIZED  its authorization is the booking's payment
 *   RESOLVED    settled for good (outcome)
 *
 * Every change of an intent is a guarded UPDATE, so a book attempt taking
 * an intent and the job releasing it never both win. */
#ifndef TRV_PAYMENT_INTENTS_H
#define TRV_PAYMENT_INTENTS_H

#include "core/db.h"
#include "core/jobs.h"
#include "payment/pintent_outcome.h"
#include "payment/pintent_status.h"
#include "payment/provider.h"

#include <apr_tables.h>
#include <apr_time.h>

typedef struct trv_pintent {
    const char *id, *booking_id;
    const char *key;            /* NULL: the booking's SDK session */
    const char *instrument;     /* NULL: the booking's SDK session */
    const char *currency, *amount; /* amount: decimal text in major units */
    trv_pintent_status status;
    const char *provider_ref, *outcome;
    int book_attempt, release_gen;
    apr_interval_time_t release_in; /* UNRESOLVED: until release_at (0: due) */
    /* Read with it by trv_pintent_get (the job): its booking. */
    int booking_ended;          /* FAILED or EXPIRED */
    int booking_past_expiry;
    const char *sdk_token;
} trv_pintent;

/* A flight.payment.release job to queue (generation gen of intent id). */
typedef struct trv_prelease {
    const char *id;
    int gen;
    apr_interval_time_t delay;
} trv_prelease;


/* The statements of one domain's intents table (TRV_PINTENT_SQL). */
typedef struct trv_pintent_sql {
    trv_stmt lock_step, own, reuse, insert, release_others, authorized, resolved, unresolved,
        of_auth, sdk_release, get, claim, payment_voided;
} trv_pintent_sql;

/* A domain using intents: its tables and its release job. */
typedef struct trv_pintent_kind {
    const char *domain;               /* "flight", "hotel": in log lines */
    const trv_pintent_sql *sql;
    const trv_job_spec *release_job;  /* payload {id, attempt: gen, request_id} */
} trv_pintent_kind;

/* How long an unanswered authorization is kept for the booking's next
 * attempt before its release job voids it: twice the payment provider's
 * timeout (a client that got the 504 has had as long again to book again). */
apr_interval_time_t trv_pintent_grace(const trv_env *env);

/* Locks the booking's row for the rest of the transaction if it is in
 * its authorizing step held by owner; *held 0 otherwise. */
apr_status_t trv_pintent_lock_step(const trv_pintent_kind *k, trv_dbc *c, apr_pool_t *p,
                                   const char *booking_id, const char *owner, int *held);
/* The PENDING intent of this attempt (a takeover finds it), or NULL. */
apr_status_t trv_pintent_own(const trv_pintent_kind *k, trv_dbc *c, apr_pool_t *p,
                             const char *booking_id, int attempt, trv_pintent **out);
/* Takes the latest unsettled intent (UNRESOLVED, or PENDING of an earlier
 * attempt) for this instrument and amount: PENDING for `attempt`. NULL
 * when there is none. */
apr_status_t trv_pintent_reuse(const trv_pintent_kind *k, trv_dbc *c, apr_pool_t *p,
                               const char *booking_id, int attempt, const char *instrument,
                               const char *currency, const char *amount, trv_pintent **out);
/* A new PENDING intent keyed <booking>:authorize:<attempt>; NULL when that
 * key is taken. */
apr_status_t trv_pintent_insert(const trv_pintent_kind *k, trv_dbc *c, apr_pool_t *p,
                                const char *booking_id, int attempt, const char *instrument,
                                const char *currency, const char *amount, trv_pintent **out);
/* Every unsettled intent of the booking but except_id (may be NULL):
 * UNRESOLVED and due now. *out: trv_prelease to queue. */
apr_status_t trv_pintent_release_others(const trv_pintent_kind *k, trv_dbc *c, apr_pool_t *p,
                                        const char *booking_id, const char *except_id,
                                        apr_array_header_t **out);
/* PENDING -> AUTHORIZED; *updated 0 when it was no longer PENDING. */
apr_status_t trv_pintent_authorized(const trv_pintent_kind *k, trv_dbc *c, apr_pool_t *p,
                                    const char *id, const char *provider_ref, int *updated);
/* -> RESOLVED with its outcome (provider_ref kept when NULL). */
apr_status_t trv_pintent_resolved(const trv_pintent_kind *k, trv_dbc *c, apr_pool_t *p,
                                  const char *id, trv_pintent_outcome outcome,
                                  const char *provider_ref);
/* PENDING, AUTHORIZED or RELEASING -> UNRESOLVED, due `after` from now;
 * rel->id NULL when it was none of those. */
apr_status_t trv_pintent_unresolved(const trv_pintent_kind *k, trv_dbc *c, apr_pool_t *p,
                                    const char *id, const char *provider_ref,
                                    apr_interval_time_t after, trv_prelease *rel);
/* The booking's intent whose authorization is provider_ref, or NULL. */
apr_status_t trv_pintent_of_auth(const trv_pintent_kind *k, trv_dbc *c, apr_pool_t *p,
                                 const char *booking_id, const char *provider_ref,
                                 trv_pintent **out);
/* The booking's SDK session must be released: its intent (made if need be)
 * UNRESOLVED and due now; rel->id NULL when it is already settled or being
 * released. provider_ref: the authorization when known, else NULL. */
apr_status_t trv_pintent_sdk_release(const trv_pintent_kind *k, trv_dbc *c, apr_pool_t *p,
                                     const char *booking_id, int attempt, const char *currency,
                                     const char *amount, const char *provider_ref,
                                     trv_prelease *rel);
/* The intent with its booking's status, or NULL (the job). */
apr_status_t trv_pintent_get(const trv_pintent_kind *k, trv_dbc *c, apr_pool_t *p,
                             const char *id, trv_pintent **out);
/* UNRESOLVED and due -> RELEASING; *claimed 0 when someone else moved it. */
apr_status_t trv_pintent_claim(const trv_pintent_kind *k, trv_dbc *c, apr_pool_t *p,
                               const char *id, int *claimed);
/* The booking's AUTHORIZED payment of this authorization -> VOIDED. */
apr_status_t trv_pintent_payment_voided(const trv_pintent_kind *k, trv_dbc *c, apr_pool_t *p,
                                        const char *booking_id, const char *provider_ref);

/* Queues the release job (inside the caller's transaction). */
apr_status_t trv_pintent_schedule(const trv_pintent_kind *k, trv_dbc *c, apr_pool_t *p,
                                  const trv_prelease *rel, const char *request_id);

/* Everything an expired booking still holds, queued for the release job
 * in the caller's transaction: its unsettled intents and, when it was paid
 * through the payment SDK (sdk; currency and amount its total), the session
 * the customer's device could still pay. */
apr_status_t trv_pintent_release_expired(const trv_pintent_kind *k, trv_dbc *c, apr_pool_t *p,
                                         const char *booking_id, int attempt, int sdk,
                                         const char *currency, const char *amount,
                                         const char *request_id);

/* The release job's run (payment/release.c): voids the intent's
 * authorization once nobody will use it. */
void trv_pintent_release_run(const trv_pintent_kind *k, trv_env *env, apr_pool_t *p,
                             const trv_job *job, trv_job_result *res);

#endif
