/* The hotel endpoints' handlers (routes in api.c). */
#ifndef TRV_HOTEL_HANDLERS_H
#define TRV_HOTEL_HANDLERS_H

#include "core/api.h"

/* GET /v1/hotel/places?q=&limit= and GET /v1/hotel/places/{id} (places.c). */
void trv_hotel_places(trv_req *req, trv_resp *resp);
void trv_hotel_place(trv_req *req, trv_resp *resp);
/* GET /v1/hotel/features (features.c). */
void trv_hotel_features(trv_req *req, trv_resp *resp);
/* POST /v1/hotel/search (search.c). */
void trv_hotel_search(trv_req *req, trv_resp *resp);
/* POST /v1/hotel/offers (offers.c). */
void trv_hotel_offers(trv_req *req, trv_resp *resp);

/* POST /v1/hotel/prebook (prebook.c). */
void trv_hotel_prebook(trv_req *req, trv_resp *resp);
/* POST /v1/hotel/bookings/{id}/book (book_api.c). */
void trv_hotel_book(trv_req *req, trv_resp *resp);
/* GET /v1/hotel/bookings and GET /v1/hotel/bookings/{id} (bookings_api.c). */
void trv_hotel_bookings(trv_req *req, trv_resp *resp);
void trv_hotel_booking(trv_req *req, trv_resp *resp);

#endif
