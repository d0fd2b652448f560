/* Flight bookings, payments, refunds and airlines in PostgreSQL: every
 * statement the flight code runs. State changes are guarded UPDATEs
 * (... WHERE status = <from> RETURNING): of two racing requests or jobs one
 * gets the row back and the other gets nothing and re-reads. Functions
 * returning a booking set *out to NULL when no row matched. */
#ifndef TRV_FLIGHT_BOOKING_STORE_H
#define TRV_FLIGHT_BOOKING_STORE_H

#include "booking.h"
#include "core/db.h"
#include "core/list_page.h"
#include "lifecycle/moves.h"
#include "payment/refund_status.h"
#include "payment/payments.h"
#include "payment/refunds.h"

#include <apr_hash.h>
#include <apr_time.h>

/* ---- reads (the filter: core/list_page.h) ---- */

/* The list (booking_query.c), read through core/list_page.h's
 * trv_list_page_kept (the usual page as the render jobs keep it, sql/047),
 * trv_list_page_joined and trv_list_page_rows; a booking read row by row
 * comes whole (payments loaded) for rendering unless its list document is
 * stored for its revision. Scoped to the organization and user. */
extern const trv_list_page_query trv_fbooking_list;
/* Bookings by id, whole with payments: ids is a text[] literal of ids
 * ([A-Za-z0-9_-] only); *out maps id -> trv_fbooking*. */
apr_status_t trv_fbooking_load_many(trv_dbc *c, apr_pool_t *p, const char *ids,
                                    apr_hash_t **out);
/* trv_fbooking_keep_docs(c, p, docs) and trv_fbooking_keep_head(c, p,
 * org_id, user_id): the bookings' renderings and the owner's usual page
 * (sql/047) kept (core/list_page.h's trv_list_page_keep_docs, _keep_head).
 * Only the render job writes them (render_job.c), after a change: reads
 * never do. */
TRV_LIST_PAGE_KEEP_TYPED(trv_fbooking, trv_fbooking_list, TRV_LIFECYCLE_DECLARED,
                         TRV_LIFECYCLE_SCOPE_USER, user_id)
/* trv_fbooking_get (the booking if it belongs to this organization and
 * user), _get_any (by id: background jobs) and _by_key (the booking a
 * prebook key made), payments loaded: with the moves below. */
/* Loads b->payments. */
apr_status_t trv_fbooking_load_payments(trv_dbc *c, apr_pool_t *p, trv_fbooking *b);

/* ---- prebook ---- */

typedef struct trv_fprebook_row {
    TRV_LIFECYCLE_ROW_NEW;     /* id ... use_payment_sdk (lifecycle/row.h) */
    const char *contact, *passengers; /* JSON text */
    int offer_once;    /* the supplier sells an offer once (TRV_SUP_OFFER_ONCE) */
} trv_fprebook_row;

/* INSERT ... ON CONFLICT DO NOTHING: *inserted 0 when the key (or, for a
 * supplier that sells an offer once, the offer's one unfinished booking)
 * is taken. */
apr_status_t trv_fbooking_insert_prebook(trv_dbc *c, apr_pool_t *p, const trv_fprebook_row *r,
                                         int *inserted);
/* Bookings of this offer left READY_FOR_COMPLETE past expires_at
 * become EXPIRED (so they no longer hold the offer). */
apr_status_t trv_fbooking_expire_offer(trv_dbc *c, apr_pool_t *p, const char *supplier,
                                       const char *offer_reference);

typedef struct trv_fpriced {
    const char *currency;
    const char *total_amount, *fare_amount, *fare_tax_amount, *services_amount;
    const char *expires_at;  /* RFC 3339 */
    int member_price;
    const char *hold, *passengers, *journeys, *services, *fare_conditions;
    const char *cancellation_policy, *supplier_data; /* JSON text (or NULL) */
    const char *sdk_token;
} trv_fpriced;

apr_status_t trv_fbooking_prebook_done(trv_dbc *c, apr_pool_t *p, const char *id,
                                       const trv_fpriced *pr, trv_fbooking **out);

/* ---- the moves every domain makes (lifecycle/moves.h) ----
 *
 * trv_fbooking_prebook_failed, _prebook_abandon (a prebook that changed
 * nothing anywhere: its key may be used again), _expire_one, _book_start
 * (scoped to the organization and user), _phase (refs:
 * {supplier_reference, airline_pnr}, each set when given), _book_failed
 * (the booking without its payments, as confirm), _synced, and the reads
 * _get(c, p, org_id, user_id, id, out), _get_any and _by_key(c, p, org_id,
 * user_id, key, out). */
TRV_LIFECYCLE_MOVES_TYPED(trv_fbooking, trv_fbooking, trv_fb_phase, moves,
                          TRV_LIFECYCLE_DECLARED, TRV_LIFECYCLE_SCOPE_USER, user_id)

/* ---- book ---- */

/* Back to READY_FOR_COMPLETE: the attempt changed nothing (its payment
 * row, which was never captured, is removed). */
apr_status_t trv_fbooking_book_revert(trv_dbc *c, apr_pool_t *p, const char *id,
                                      const char *owner, trv_fbooking **out);
apr_status_t trv_fbooking_confirm(trv_dbc *c, apr_pool_t *p, const char *id,
                                  const char *supplier_reference, const char *airline_pnr,
                                  trv_fbooking **out);

/* ---- cancel ---- */

apr_status_t trv_fbooking_cancel_start(trv_dbc *c, apr_pool_t *p, const char *org_id,
                                       const char *user_id, const char *id, trv_fbooking **out);
apr_status_t trv_fbooking_canceled(trv_dbc *c, apr_pool_t *p, const char *id, int attempt,
                                   const char *cancellation_json, trv_fbooking **out);
apr_status_t trv_fbooking_cancel_rejected(trv_dbc *c, apr_pool_t *p, const char *id,
                                          int attempt, const char *failure_json,
                                          trv_fbooking **out);

/* ---- order sync ---- */

apr_status_t trv_fbooking_set_changes(trv_dbc *c, apr_pool_t *p, const char *id,
                                      const char *changes_json, trv_fbooking **out);

/* ---- payments ---- */

/* flight_payments (sql/010) for payment/payments.h: one charge per
 * booking. */
extern const trv_payments_kind trv_fbooking_payments;

/* ---- refunds ---- */

/* flight_refunds (sql/010) for payment/refunds.h: one refund per payment,
 * no cancellation row; the job is flight.refund.submit. */
extern const trv_refunds_kind trv_fbooking_refunds;

#endif
