/* Flight endpoints: the route table and its handlers. */
#ifndef TRV_FLIGHT_API_H
#define TRV_FLIGHT_API_H

#include "core/router.h"

extern const trv_route trv_flight_routes[];

#endif
