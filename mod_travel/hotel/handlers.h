/* The hotel endpoints' handlers (routes in api.c). */
#ifndef TRV_HOTEL_HANDLERS_H
#define TRV_HOTEL_HANDLERS_H

#include "core/api.h"

/* The endpoints, each a trv_handler_fn (core/api.h), by the file that
 * answers them (their paths: api.c). */
trv_handler_fn trv_hotel_places, trv_hotel_place;       /* places.c */
trv_handler_fn trv_hotel_features;                      /* features.c */
trv_handler_fn trv_hotel_search;                        /* search.c */
trv_handler_fn trv_hotel_offers;                        /* offers.c */
trv_handler_fn trv_hotel_prebook;                       /* prebook.c */
trv_handler_fn trv_hotel_book;                          /* book_api.c */
trv_handler_fn trv_hotel_bookings, trv_hotel_booking;   /* bookings_api.c */
trv_handler_fn trv_hotel_cancel;                        /* cancel.c */
trv_handler_fn trv_hotel_cancellation_estimate;         /* estimate.c */

#endif
