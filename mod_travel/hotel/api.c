#include "api.h"
#include "handlers.h"

const trv_route trv_hotel_routes[] = {
    {"GET", "/v1/hotel/places", trv_hotel_places, TRV_ROUTE_OWN_QUERY},
    {"GET", "/v1/hotel/places/{id:plc}", trv_hotel_place, 0},
    {NULL, NULL, NULL, 0},
};
