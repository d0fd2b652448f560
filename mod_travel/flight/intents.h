/* Authorization intents (sql/012_flight_authorization_intents.sql): what
 * the service asks the payment provider to authorize for a booking,
 * recorded before the call so that an authorization made after the call
 * went unanswered is found again with the same idempotency key, and is
 * either used by the booking's next attempt or voided by the
 * flight.payment.release job. Never one left held.
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
#ifndef TRV_FLIGHT_INTENTS_H
#define TRV_FLIGHT_INTENTS_H

#include "core/db.h"

#include <apr_tables.h>
#include <apr_time.h>

#define TRV_FINTENT_PENDING "PENDING"
#define TRV_FINTENT_UNRESOLVED "UNRESOLVED"
#define TRV_FINTENT_RELEASING "RELEASING"
#define TRV_FINTENT_AUTHORIZED "AUTHORIZED"
#define TRV_FINTENT_RESOLVED "RESOLVED"

typedef struct trv_fintent {
    const char *id, *booking_id;
    const char *key;            /* NULL: the booking's SDK session */
    const char *instrument;     /* NULL: the booking's SDK session */
    const char *currency, *amount; /* amount: decimal text in major units */
    const char *status, *provider_ref, *outcome;
    int book_attempt, release_gen;
    apr_interval_time_t release_in; /* UNRESOLVED: until release_at (0: due) */
    /* Read with it by trv_fintent_get (the job): its booking. */
    const char *booking_status;
    int booking_past_expiry;
    const char *sdk_token;
} trv_fintent;

/* A flight.payment.release job to queue (generation gen of intent id). */
typedef struct trv_frelease {
    const char *id;
    int gen;
    apr_interval_time_t delay;
} trv_frelease;

/* Locks the booking's row for the rest of the transaction if it is in
 * its authorizing step held by owner; *held 0 otherwise. */
apr_status_t trv_fintent_lock_step(trv_dbc *c, apr_pool_t *p, const char *booking_id,
                                   const char *owner, int *held);
/* The PENDING intent of this attempt (a takeover finds it), or NULL. */
apr_status_t trv_fintent_own(trv_dbc *c, apr_pool_t *p, const char *booking_id, int attempt,
                             trv_fintent **out);
/* Takes the latest unsettled intent (UNRESOLVED, or PENDING of an earlier
 * attempt) for this instrument and amount: PENDING for `attempt`. NULL
 * when there is none. */
apr_status_t trv_fintent_reuse(trv_dbc *c, apr_pool_t *p, const char *booking_id, int attempt,
                               const char *instrument, const char *currency,
                               const char *amount, trv_fintent **out);
/* A new PENDING intent keyed <booking>:authorize:<attempt>; NULL when that
 * key is taken. */
apr_status_t trv_fintent_insert(trv_dbc *c, apr_pool_t *p, const char *booking_id, int attempt,
                                const char *instrument, const char *currency,
                                const char *amount, trv_fintent **out);
/* Every unsettled intent of the booking but except_id (may be NULL):
 * UNRESOLVED and due now. *out: trv_frelease to queue. */
apr_status_t trv_fintent_release_others(trv_dbc *c, apr_pool_t *p, const char *booking_id,
                                        const char *except_id, apr_array_header_t **out);
/* PENDING -> AUTHORIZED; *updated 0 when it was no longer PENDING. */
apr_status_t trv_fintent_authorized(trv_dbc *c, apr_pool_t *p, const char *id,
                                    const char *provider_ref, int *updated);
/* -> RESOLVED with its outcome (provider_ref kept when NULL). */
apr_status_t trv_fintent_resolved(trv_dbc *c, apr_pool_t *p, const char *id,
                                  const char *outcome, const char *provider_ref);
/* PENDING, AUTHORIZED or RELEASING -> UNRESOLVED, due `after` from now;
 * rel->id NULL when it was none of those. */
apr_status_t trv_fintent_unresolved(trv_dbc *c, apr_pool_t *p, const char *id,
                                    const char *provider_ref, apr_interval_time_t after,
                                    trv_frelease *rel);
/* The booking's intent whose authorization is provider_ref, or NULL. */
apr_status_t trv_fintent_of_auth(trv_dbc *c, apr_pool_t *p, const char *booking_id,
                                 const char *provider_ref, trv_fintent **out);
/* The booking's SDK session must be released: its intent (made if need be)
 * UNRESOLVED and due now; rel->id NULL when it is already settled or being
 * released. provider_ref: the authorization when known, else NULL. */
apr_status_t trv_fintent_sdk_release(trv_dbc *c, apr_pool_t *p, const char *booking_id,
                                     int attempt, const char *currency, const char *amount,
                                     const char *provider_ref, trv_frelease *rel);
/* The intent with its booking's status, or NULL (the job). */
apr_status_t trv_fintent_get(trv_dbc *c, apr_pool_t *p, const char *id, trv_fintent **out);
/* UNRESOLVED and due -> RELEASING; *claimed 0 when someone else moved it. */
apr_status_t trv_fintent_claim(trv_dbc *c, apr_pool_t *p, const char *id, int *claimed);
/* The booking's AUTHORIZED payment of this authorization -> VOIDED. */
apr_status_t trv_fintent_payment_voided(trv_dbc *c, apr_pool_t *p, const char *booking_id,
                                        const char *provider_ref);

/* Queues the release job (inside the caller's transaction). */
apr_status_t trv_fintent_schedule(trv_dbc *c, apr_pool_t *p, const trv_frelease *rel,
                                  const char *request_id);

#endif
