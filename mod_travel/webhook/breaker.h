/* The circuit breaker's last step. The sender's record keeps each
 * subscription's failing_since (the first failed attempt since its last
 * 2xx; send_batch.c) and says when it is older than
 * TravelWebhookDisableAfter; then the subscription is disabled with a
 * reason, its queued requests are not sent, and the organization's other
 * subscriptions of the family get a <family>.webhook_subscription.disabled
 * event (webhook_disable, sql/181). PATCH {"status": "ACTIVE"} re-enables
 * it (api.c, recover.h). */
#ifndef TRV_WEBHOOK_BREAKER_H
#define TRV_WEBHOOK_BREAKER_H

#include "core/env.h"

#define TRV_WEBHOOK_DISABLED_EVENT "webhook_subscription.disabled"

/* Disables `sub` when it is still ACTIVE and has failed for the whole
 * window (checked again under its row's lock); `last` says how the last
 * attempt ended. Logs what it did; a database error is logged and the
 * next failed attempt tries again. */
void trv_webhook_breaker_trip(trv_env *env, apr_pool_t *p, const char *sub,
                              const char *last);

#endif
