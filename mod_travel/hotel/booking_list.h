/* The hotel bookings as the dashboard asks for them (core/booking_list.h);
 * registered in domain.c. */
#ifndef TRV_HOTEL_BOOKING_LIST_H
#define TRV_HOTEL_BOOKING_LIST_H

#include "core/booking_list.h"

trv_booking_list_fn trv_hotel_booking_list;

#endif
