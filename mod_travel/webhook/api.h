/* The webhook subscription endpoints of both families:
 *   POST/GET     /v1/{hotel,flight}/webhook-subscriptions
 *   GET/PATCH/DELETE .../{id}
 *   POST         .../{id}/rotate-secret
 *   GET          .../{id}/deliveries, .../{id}/deliveries/{delivery_id}
 *   POST         .../{id}/deliveries/{delivery_id}/replay */
#ifndef TRV_WEBHOOK_API_H
#define TRV_WEBHOOK_API_H

#include "core/router.h"

extern const trv_route trv_webhook_routes[];

#endif
