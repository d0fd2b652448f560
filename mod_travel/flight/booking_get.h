/* One flight booking as the dashboard reads it (core/booking_access.h);
 * registered in domain.c. */
#ifndef TRV_FLIGHT_BOOKING_GET_H
#define TRV_FLIGHT_BOOKING_GET_H

#include "core/booking_access.h"

trv_booking_get_fn trv_flight_booking_get;

#endif
