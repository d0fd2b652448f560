/* A flight booking as the API shows it: the service document's field
 * table, in its order. The list shows payments without payment_method. */
#ifndef TRV_FLIGHT_RENDER_H
#define TRV_FLIGHT_RENDER_H

#include "booking.h"

#include <apr_pools.h>

#define TRV_RENDER_FULL 0
#define TRV_RENDER_LIST 1

/* A new reference; b->payments must be loaded. */
json_t *trv_frender_booking(apr_pool_t *p, const trv_fbooking *b, int mode);

/* The same as JSON text in p. */
const char *trv_frender_booking_text(apr_pool_t *p, const trv_fbooking *b, int mode);

/* {"amount", "currency"} from exact decimal text, or JSON null when either
 * is missing or unreadable (a new reference). */
json_t *trv_frender_money_json(const char *amount, const char *currency);

#endif
