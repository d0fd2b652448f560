/* The status of a booking as a hotel supplier adapter reports it
 * (trv_hotel_booked of book and retrieve, supplier.h): CONFIRMED, PENDING
 * (confirmation to come) or CANCELED. The book runner and the estimate
 * read it here, at the edge of the adapter's answer; the table is the
 * supplier's own: a PENDING booking is confirmed or canceled, a confirmed
 * one can be canceled. */
#ifndef TRV_HOTEL_BOOKED_STATUS_H
#define TRV_HOTEL_BOOKED_STATUS_H

#include "core/transit.h"

typedef enum {
    TRV_HBOOKED_CONFIRMED,
    TRV_HBOOKED_PENDING,
    TRV_HBOOKED_CANCELED
} trv_hbooked_status;

extern const trv_transit_table trv_hbooked_status_table;

/* Texts through the table: trv_transit_text, trv_transit_from_text. */

#endif
