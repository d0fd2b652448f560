/* The service's own endpoints (no API key): health and the OpenAPI file. */
#ifndef TRV_GATEWAY_SERVICE_H
#define TRV_GATEWAY_SERVICE_H

#include "core/router.h"

extern const trv_route trv_service_routes[];

/* The workers' part of the health verdict: every configured thread of this
 * process runs and the process is not stopping. */
int trv_health_workers_ok(int configured, int running, int stopping);

#endif
