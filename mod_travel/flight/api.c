#include "api.h"
#include "handlers.h"

const trv_route trv_flight_routes[] = {
    {"POST", "/v1/flight/offers", trv_flight_offers, TRV_ROUTE_JSON_ARENA},
    {"GET", "/v1/flight/offers/{offer_reference}/bags", trv_flight_bags, 0},
    {"POST", "/v1/flight/prebook", trv_flight_prebook, 0},
    {"GET", "/v1/flight/bookings", trv_lifecycle_reads_list, TRV_ROUTE_OWN_QUERY,
     &trv_flight_bookings_reads},
    {"GET", "/v1/flight/bookings/{id:bkg}", trv_lifecycle_reads_get, 0, &trv_flight_bookings_reads},
    {"POST", "/v1/flight/bookings/{id:bkg}/book", trv_flight_book,
     TRV_ROUTE_IDEMPOTENT | TRV_ROUTE_USER_SCOPED},
    {"GET", "/v1/flight/bookings/{id:bkg}/cancellation-quote", trv_flight_quote, 0},
    {"POST", "/v1/flight/bookings/{id:bkg}/cancel", trv_flight_cancel,
     TRV_ROUTE_NO_BODY | TRV_ROUTE_IDEMPOTENT | TRV_ROUTE_USER_SCOPED},
    {"GET", "/v1/flight/airlines", trv_flight_airlines, TRV_ROUTE_OWN_QUERY},
    {"GET", "/v1/flight/airlines/{iata_code:iata}", trv_flight_airline, 0},
    {NULL, NULL, NULL, 0},
};
