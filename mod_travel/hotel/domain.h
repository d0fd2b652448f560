/* The hotel domain as it registers itself with the gateway. */
#ifndef TRV_HOTEL_DOMAIN_H
#define TRV_HOTEL_DOMAIN_H

#include "core/registry.h"

extern const trv_domain trv_hotel_domain;

#endif
