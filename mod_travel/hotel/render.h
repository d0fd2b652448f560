/* A hotel booking as the API shows it (docs/hotels.md "The booking"), and
 * its stored renderings: every change to a booking is rendered and kept in
 * the transaction that makes it, so GET answers from one query and writes
 * nothing. */
#ifndef TRV_HOTEL_RENDER_H
#define TRV_HOTEL_RENDER_H

#include "booking.h"
#include "core/db.h"

#include <apr_pools.h>

#define TRV_HRENDER_FULL 0
#define TRV_HRENDER_LIST 1   /* payments without payment_method */

/* A new reference; rooms and payments must be loaded. */
json_t *trv_hrender_booking(apr_pool_t *p, const trv_hbooking *b, int mode);

/* Renders b (read whole in this transaction, after its change) and keeps
 * both renderings for its revision, then the organization's usual list
 * page (sql/143). A booking that time has changed since (past its offer's
 * expiry) is not kept: it reads as EXPIRED. */
apr_status_t trv_hrender_keep(trv_dbc *c, apr_pool_t *p, const trv_hbooking *b);

/* Money {amount, currency} from exact decimal text, or JSON null (a new
 * reference). */
json_t *trv_hrender_money(const char *amount, const char *currency);

#endif
