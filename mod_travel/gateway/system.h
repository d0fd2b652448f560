/* The gateway's own domain (operational jobs). */
#ifndef TRV_GATEWAY_SYSTEM_H
#define TRV_GATEWAY_SYSTEM_H

#include "core/registry.h"

extern const trv_domain trv_system_domain;

#endif
