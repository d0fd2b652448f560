/* The payment rows of any domain (flight_payments, hotel_payments: the
 * same columns, payment/record.h): what a booking was charged, written by
 * the book runner (lifecycle/book.h) and the domain's settle jobs, read
 * with the booking. The statements are the domain's (its table), the logic
 * one, as payment/refunds.h does for refunds. */
#ifndef TRV_PAYMENT_PAYMENTS_H
#define TRV_PAYMENT_PAYMENTS_H

#include "core/db.h"
#include "payment/record.h"

#include <apr_hash.h>
#include <apr_tables.h>

/* A domain's statements (TRV_PAYMENTS_SQL):
 *   insert    the booking's charge, at most one: ON CONFLICT DO NOTHING
 *   captured  (card, id): AUTHORIZED -> CAPTURED, the card kept when NULL
 *   voided    (id): AUTHORIZED -> VOIDED
 *   card      (card, id): the card, once, when it had none
 *   get       (id) -> the payment
 *   of        (text[] of booking ids) -> their payments, oldest first */
typedef struct trv_payments_sql {
    trv_stmt insert, captured, voided, card, get, of;
} trv_payments_sql;

typedef struct trv_payments_kind {
    const trv_payments_sql *sql;
} trv_payments_kind;

/* *inserted 0 when the booking has its charge already. */
apr_status_t trv_payments_insert(const trv_payments_kind *k, trv_dbc *c, apr_pool_t *p,
                                 const trv_payment_record *pay, int *inserted);
/* card_json: what the provider reports of the card, or NULL. */
apr_status_t trv_payments_captured(const trv_payments_kind *k, trv_dbc *c, apr_pool_t *p,
                                   const char *id, const char *card_json);
apr_status_t trv_payments_voided(const trv_payments_kind *k, trv_dbc *c, apr_pool_t *p,
                                 const char *id);
/* Sets a payment's card once it could be read. */
apr_status_t trv_payments_card(const trv_payments_kind *k, trv_dbc *c, apr_pool_t *p,
                               const char *id, const char *card_json);
/* The payment by id, or *out NULL. */
apr_status_t trv_payments_get(const trv_payments_kind *k, trv_dbc *c, apr_pool_t *p,
                              const char *id, trv_payment_record **out);
/* The payments of the bookings ids (a text[] literal of ids, [A-Za-z0-9_-]
 * only): *out maps a booking id to its array of trv_payment_record, oldest
 * first; a booking without payments is not in it (trv_payments_for). */
apr_status_t trv_payments_of(const trv_payments_kind *k, trv_dbc *c, apr_pool_t *p,
                             const char *ids, apr_hash_t **out);
/* The booking's array in a trv_payments_of map: an empty one, made in p
 * and kept in the map, when it has none. */
apr_array_header_t *trv_payments_for(apr_pool_t *p, apr_hash_t *of, const char *booking_id);

#endif
