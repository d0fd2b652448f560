/* Hotel endpoints: the route table the hotel domain registers. */
#ifndef TRV_HOTEL_API_H
#define TRV_HOTEL_API_H

#include "core/router.h"

extern const trv_route trv_hotel_routes[];

#endif
