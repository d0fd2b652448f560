#include "api.h"
#include "handlers.h"

const trv_route trv_hotel_routes[] = {
    {"GET", "/v1/hotel/places", trv_hotel_places, TRV_ROUTE_OWN_QUERY},
    {"GET", "/v1/hotel/places/{id:plc}", trv_hotel_place, 0},
    {"GET", "/v1/hotel/features", trv_hotel_features, 0},
    {"POST", "/v1/hotel/search", trv_hotel_search, TRV_ROUTE_JSON_ARENA},
    {"POST", "/v1/hotel/offers", trv_hotel_offers, TRV_ROUTE_JSON_ARENA},
    {"POST", "/v1/hotel/prebook", trv_hotel_prebook, 0},
    {"GET", "/v1/hotel/bookings", trv_lifecycle_reads_list, TRV_ROUTE_OWN_QUERY,
     &trv_hotel_bookings_reads},
    {"GET", "/v1/hotel/bookings/{id:bkg}", trv_lifecycle_reads_get, 0, &trv_hotel_bookings_reads},
    {"POST", "/v1/hotel/bookings/{id:bkg}/book", trv_hotel_book, TRV_ROUTE_IDEMPOTENT},
    {"POST", "/v1/hotel/bookings/{id:bkg}/cancel", trv_hotel_cancel,
     TRV_ROUTE_NO_BODY | TRV_ROUTE_IDEMPOTENT},
    {"GET", "/v1/hotel/bookings/{id:bkg}/cancellation-estimate", trv_hotel_cancellation_estimate,
     0},
    {NULL, NULL, NULL, 0},
};
