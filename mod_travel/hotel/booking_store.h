/* Hotel bookings, their rooms, guests and payments in PostgreSQL: every
 * statement the hotel booking code runs (sql/100_hotel_bookings.sql).
 * State changes are guarded UPDATEs (... WHERE status = <from> RETURNING):
 * of two racing requests or jobs one gets the row back and the other gets
 * nothing and re-reads. Functions returning a booking set *out to NULL when
 * no row matched; a booking returned is whole (rooms with their guests,
 * payments). Hotel bookings are an organization's: reads for the API take
 * the organization. */
#ifndef TRV_HOTEL_BOOKING_STORE_H
#define TRV_HOTEL_BOOKING_STORE_H

#include "booking.h"
#include "core/db.h"
#include "core/list_page.h"
#include "lifecycle/moves.h"
#include "payment/payments.h"

#include <apr_hash.h>
#include <apr_time.h>

/* ---- reads (the filter: core/list_page.h) ---- */

/* The organization's list (booking_query.c), read through
 * core/list_page.h's trv_list_page_kept (the usual page as the changes'
 * transactions keep it, sql/143), trv_list_page_joined and
 * trv_list_page_rows; a booking read row by row comes whole unless its
 * list rendering is stored for its revision. */
extern const trv_list_page_query trv_hbooking_list;
/* trv_hbooking_keep_docs(c, p, docs) and trv_hbooking_keep_head(c, p,
 * org_id): the bookings' renderings and the organization's usual page
 * (sql/143) kept (core/list_page.h's trv_list_page_keep_docs, _keep_head),
 * by every change in its own transaction (render.h). */
TRV_LIST_PAGE_KEEP_TYPED(trv_hbooking, trv_hbooking_list, TRV_LIFECYCLE_DECLARED, , NULL)

/* trv_hbooking_get (the organization's booking), _get_any (by id:
 * background jobs, the cancel flow's re-reads) and _by_key (the booking a
 * prebook key made): with the moves below. */
/* Loads b->rooms (with guests) and b->payments. */
apr_status_t trv_hbooking_load_parts(trv_dbc *c, apr_pool_t *p, trv_hbooking *b);
/* Bookings by id, whole: ids is a text[] literal of ids ([A-Za-z0-9_-]
 * only); *out maps id -> trv_hbooking*. */
apr_status_t trv_hbooking_load_many(trv_dbc *c, apr_pool_t *p, const char *ids,
                                    apr_hash_t **out);

/* The booking as GET shows it, from its stored rendering, in one query:
 * *doc is NULL when the booking is not the organization's, has no
 * rendering stored for its revision, or has passed its offer's expiry
 * unstored. */
apr_status_t trv_hbooking_get_doc(trv_dbc *c, apr_pool_t *p, const char *org_id,
                                  const char *id, const char **doc);

/* The service's hotel as a booking names it: {id, name, address {city,
 * postal_code, country_code}} (JSON text), or NULL when unknown. */
apr_status_t trv_hbooking_hotel(trv_dbc *c, apr_pool_t *p, const char *hotel_id,
                                const char **hotel_json);

/* ---- prebook ---- */

typedef struct trv_hprebook_row {
    TRV_LIFECYCLE_ROW_NEW;         /* id ... use_payment_sdk (lifecycle/row.h) */
    const char *reference_id;
    const char *hotel_id;          /* NULL: no search has seen the hotel */
    const char *supplier_hotel_id;
    const char *check_in, *check_out, *currency;
    const char *total_amount;      /* the offer's, decimal text */
    const char *offer_expires_at;  /* RFC 3339 */
    const char *hotel;             /* JSON {id, name, address} */
    const char *contact, *loyalty; /* JSON text; loyalty may be NULL */
    const char *customer;          /* JSON {ip, session, language} (customer.h) or NULL */
    /* JSON [{id, position, name, board, board_name, adults, children,
     * currency, total_amount, due_at_property, cancellation_policy,
     * promotions, guests [{id, position, first_name, last_name, type,
     * is_lead}]}]: the rooms as the offer sold them, the guests as given. */
    const char *rooms;
} trv_hprebook_row;

/* The booking (PREBOOK_IN_PROGRESS) with its rooms and guests, in one
 * statement: *inserted 0 when the organization's key is taken. */
apr_status_t trv_hbooking_insert_prebook(trv_dbc *c, apr_pool_t *p, const trv_hprebook_row *r,
                                         int *inserted);

/* What the supplier's prebook answered. */
typedef struct trv_hpriced {
    const char *currency, *total_amount;
    const char *offer_expires_at;                 /* RFC 3339 */
    const char *due_at_property, *cancellation_policy, *promotions; /* JSON or NULL */
    const char *hotel;                            /* JSON {id, name, address} */
    const char *supplier_prebook_id, *supplier_data, *sdk_token;
    /* JSON [{position, name, board, board_name, currency, total_amount,
     * due_at_property, cancellation_policy, promotions}]: the rooms' terms
     * as the supplier re-priced them (matched by position). */
    const char *rooms;
} trv_hpriced;

/* PREBOOK_IN_PROGRESS -> READY_FOR_COMPLETE with the supplier's terms. */
apr_status_t trv_hbooking_prebook_done(trv_dbc *c, apr_pool_t *p, const char *id,
                                       const trv_hpriced *pr, trv_hbooking **out);
/* Removes a PREBOOK_IN_PROGRESS booking created more than `age` ago (its
 * request died: every call it could make has timed out). */
apr_status_t trv_hbooking_prebook_abandon_stale(trv_dbc *c, apr_pool_t *p, const char *id,
                                                apr_interval_time_t age, int *deleted);

/* ---- the moves every domain makes (lifecycle/moves.h) ----
 *
 * trv_hbooking_prebook_failed, _prebook_abandon (rooms and guests go with
 * the booking), _expire_one (past its offer's expiry), _book_start
 * (scoped to the organization), _phase (refs:
 * {supplier_booking_id}, set when given), _book_failed, _synced (no
 * revision raised: bookkeeping), and the reads _get(c, p, org_id, id, out),
 * _get_any and _by_key(c, p, org_id, key, out). */
TRV_LIFECYCLE_MOVES_TYPED(trv_hbooking, trv_hbooking, trv_hb_phase, moves,
                          TRV_LIFECYCLE_DECLARED, , NULL)

/* ---- book ---- */

/* Back to READY_FOR_COMPLETE: the attempt changed nothing (an uncaptured
 * payment row is removed). */
apr_status_t trv_hbooking_book_revert(trv_dbc *c, apr_pool_t *p, const char *id,
                                      const char *owner, trv_hbooking **out);

/* What the supplier's book (or a later read) says of a confirmed booking. */
typedef struct trv_hconfirmed {
    const char *supplier_booking_id, *hotel_confirmation_code, *hotel_remarks;
    /* JSON [{position, supplier_reference_number, hotel_confirmation_code,
     * cancellation_policy}] or NULL; a room's policy (as policy.h makes
     * it) replaces the stored one when it is not null. */
    const char *rooms;
    /* The booking's policy the supplier stated at book (policy.h), or NULL:
     * the stored one (prebook's) stays. */
    const char *cancellation_policy;
} trv_hconfirmed;

/* COMPLETE_IN_PROGRESS -> CONFIRMED (confirmed_at set). */
apr_status_t trv_hbooking_confirm(trv_dbc *c, apr_pool_t *p, const char *id,
                                  const trv_hconfirmed *cf, trv_hbooking **out);

/* ---- payments ---- */

/* hotel_payments (sql/100) for payment/payments.h: the booking's charge,
 * at most one. */
extern const trv_payments_kind trv_hbooking_payments;

#endif
