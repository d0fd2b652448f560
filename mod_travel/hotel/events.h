/* The hotel booking events subscribers can ask for. Their data, like the
 * flight family's, will be {"booking": <the booking as the API shows it>}. */
#ifndef TRV_HOTEL_EVENTS_H
#define TRV_HOTEL_EVENTS_H

#define TRV_HEV_CONFIRMED "hotel.booking.confirmed"
#define TRV_HEV_CANCELED "hotel.booking.canceled"
#define TRV_HEV_CANCELLATION_FAILED "hotel.booking.cancellation_failed"

#endif
