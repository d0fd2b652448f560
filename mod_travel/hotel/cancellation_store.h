/* Hotel cancellations, refunds and stored restrictions in PostgreSQL
 * (sql/110_hotel_cancellations.sql): every statement the cancel flow runs.
 * Moves of the booking are guarded by its status and cancel_attempt, so a
 * run that is no longer the booking's current one changes nothing. */
#ifndef TRV_HOTEL_CANCELLATION_STORE_H
#define TRV_HOTEL_CANCELLATION_STORE_H

#include "cancel_status.h"
#include "core/db.h"
#include "payment/refund_status.h"

#include <apr_tables.h>
#include <jansson.h>

/* One cancellation attempt; money columns are exact decimal text or NULL. */
typedef struct trv_hcancel {
    const char *id;            /* can_... */
    const char *booking_id;
    trv_hcancel_status status;
    int attempt;
    const char *currency;
    const char *fee_amount, *refund_amount;
    json_t *refund_to;         /* [{payment_id}] or NULL */
    const char *error_code, *error_message;
    const char *created_at, *canceled_at;
} trv_hcancel;

/* A refund request to the payment provider. */
typedef struct trv_hrefund {
    const char *id;            /* rfd_... */
    const char *booking_id, *cancellation_id, *payment_id;
    const char *currency, *amount;
    const char *provider_ref;  /* the payment's authorization (read with pending ones) */
} trv_hrefund;

/* CONFIRMED -> CANCEL_IN_PROGRESS (cancel_attempt + 1) for the
 * organization's booking, with its unfinished attempt resumed (a FAILED
 * one, same id) or created as new_id: one statement. *out NULL when the
 * booking was not CONFIRMED. */
apr_status_t trv_hcancellation_start(trv_dbc *c, apr_pool_t *p, const char *org_id,
                                     const char *booking_id, const char *new_id, trv_hcancel **out);
/* The booking's attempts, oldest first (array of trv_hcancel). */
apr_status_t trv_hcancellation_list(trv_dbc *c, apr_pool_t *p, const char *booking_id,
                                    apr_array_header_t **out);
/* The attempts of many bookings: ids a text[] literal; *out maps booking
 * id -> apr_array_header_t * of trv_hcancel. */
apr_status_t trv_hcancellation_list_many(trv_dbc *c, apr_pool_t *p, const char *ids,
                                         apr_hash_t **out);
/* The API's rendering of attempts: [{id, status, fee, refund, refund_to,
 * created_at, canceled_at, error_code}] (a new reference). */
json_t *trv_hcancellation_render(const apr_array_header_t *attempts);

/* The supplier canceled: attempt SUCCEEDED (fee, refund or NULL, refund_to
 * JSON), CANCEL_IN_PROGRESS of that attempt -> CANCELED, every remaining
 * room canceled_at. *cancellation_id NULL when the run was stale. */
apr_status_t trv_hcancellation_succeeded(trv_dbc *c, apr_pool_t *p, const char *booking_id,
                                         int attempt, const char *fee, const char *refund,
                                         const char *refund_to, const char **cancellation_id);
/* The supplier refused or could not be reached: attempt FAILED with the
 * code, booking back to CONFIRMED. *moved 0 when the run was stale. */
apr_status_t trv_hcancellation_failed(trv_dbc *c, apr_pool_t *p, const char *booking_id,
                                      int attempt, const char *code, const char *message,
                                      int *moved);
/* The refund intents of the booking's earlier successful attempts, summed
 * (decimal text, "0" when none). */
apr_status_t trv_hcancellation_refunded(trv_dbc *c, apr_pool_t *p, const char *booking_id,
                                        const char **sum);

/* Records (or re-activates) a restriction the supplier reported. */
apr_status_t trv_hcancellation_restrict(trv_dbc *c, apr_pool_t *p, const char *booking_id,
                                        const char *code, const char *description);
/* Whether an active restriction is stored for the booking. */
apr_status_t trv_hcancellation_restricted(trv_dbc *c, apr_pool_t *p, const char *booking_id,
                                          int *restricted);

apr_status_t trv_hcancellation_refund_insert(trv_dbc *c, apr_pool_t *p, const trv_hrefund *r);
/* The booking's PENDING refunds with their payment's authorization. */
apr_status_t trv_hcancellation_refunds_pending(trv_dbc *c, apr_pool_t *p, const char *booking_id,
                                               apr_array_header_t **out);
/* PENDING -> SUBMITTED (provider_ref) or FAILED (error); attempts + 1. A
 * move the refund table does not have is refused and logged (nothing
 * written). */
apr_status_t trv_hcancellation_refund_result(trv_dbc *c, apr_pool_t *p, const trv_log *log,
                                             const char *request_id, const char *id,
                                             trv_refund_status status, const char *provider_ref,
                                             const char *error);
/* FAILED refunds of the booking back to PENDING; *n how many. */
apr_status_t trv_hcancellation_refunds_restart(trv_dbc *c, apr_pool_t *p, const char *booking_id,
                                               int *n);

#endif
