/* The flight domain as it registers itself with the gateway. */
#ifndef TRV_FLIGHT_DOMAIN_H
#define TRV_FLIGHT_DOMAIN_H

#include "core/registry.h"

extern const trv_domain trv_flight_domain;

#endif
