/* Flight booking events, written to the outbox in the transaction of the
 * change that causes them: {"booking": <the booking as the API shows it>}. */
#ifndef TRV_FLIGHT_EVENTS_H
#define TRV_FLIGHT_EVENTS_H

#include "booking.h"
#include "core/db.h"

#define TRV_EV_CONFIRMED "flight.booking.confirmed"
#define TRV_EV_FAILED "flight.booking.failed"
#define TRV_EV_CANCELED "flight.booking.canceled"
#define TRV_EV_CANCEL_REJECTED "flight.booking.cancellation_rejected"
#define TRV_EV_AIRLINE_CHANGE "flight.booking.airline_initiated_change"

/* Loads the booking's payments (inside the caller's transaction) and emits. */
apr_status_t trv_flight_emit(trv_dbc *c, apr_pool_t *p, trv_fbooking *b, const char *type);

#endif
