/* The webhook subscription endpoints of every event family (a domain that
 * registers event types), under /v1/<family>/:
 *   POST/GET     webhook-subscriptions
 *   GET/PATCH/DELETE .../{id}
 *   POST         .../{id}/rotate-secret
 *   GET          .../{id}/deliveries, .../{id}/deliveries/{delivery_id}
 *   POST         .../{id}/deliveries/{delivery_id}/replay
 *   POST         .../{id}/recover, and GET /v1/<family>/events (recover.h) */
#ifndef TRV_WEBHOOK_API_H
#define TRV_WEBHOOK_API_H

#include "core/registry.h"

/* The routes for one emitting domain (the webhook domain's routes_for). */
const trv_route *trv_webhook_routes_for(apr_pool_t *p, const trv_domain *emitter);

#endif
