#include "api.h"
#include "handlers.h"

const trv_route trv_hotel_routes[] = {
    {"GET", "/v1/hotel/places", trv_hotel_places, TRV_ROUTE_OWN_QUERY},
    {"GET", "/v1/hotel/places/{id:plc}", trv_hotel_place, 0},
    {"GET", "/v1/hotel/features", trv_hotel_features, 0},
    {"POST", "/v1/hotel/search", trv_hotel_search, 0},
    {"POST", "/v1/hotel/offers", trv_hotel_offers, 0},
    {"POST", "/v1/hotel/prebook", trv_hotel_prebook, 0},
    {"GET", "/v1/hotel/bookings", trv_hotel_bookings, TRV_ROUTE_OWN_QUERY},
    {"GET", "/v1/hotel/bookings/{id:bkg}", trv_hotel_booking, 0},
    {"POST", "/v1/hotel/bookings/{id:bkg}/book", trv_hotel_book, TRV_ROUTE_IDEMPOTENT},
    {NULL, NULL, NULL, 0},
};
