/* Hotel booking events, written to the outbox in the transaction of the
 * change that causes them: {"booking": <the booking as the API shows it>}. */
#ifndef TRV_HOTEL_EVENTS_H
#define TRV_HOTEL_EVENTS_H

#define TRV_HEV_CONFIRMED "hotel.booking.confirmed"
#define TRV_HEV_CANCELED "hotel.booking.canceled"
#define TRV_HEV_CANCELLATION_FAILED "hotel.booking.cancellation_failed"

#include "booking.h"
#include "core/db.h"

/* Emits type for b (read whole in the caller's transaction) to the
 * outbox, in that transaction: {"booking": <the booking as GET shows it>}. */
apr_status_t trv_hotel_emit(trv_dbc *c, apr_pool_t *p, const trv_hbooking *b,
                            const char *type);

#endif
