/* The hotel bookings as the dashboard lists them (core/booking_access.h);
 * registered in domain.c. */
#ifndef TRV_HOTEL_BOOKING_LIST_H
#define TRV_HOTEL_BOOKING_LIST_H

#include "core/booking_access.h"

trv_booking_list_fn trv_hotel_booking_list;

#endif
