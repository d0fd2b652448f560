/* The circuit breaker. Each subscription keeps failing_since: the first
 * failed attempt since its last 2xx. The sender's claim reads it with each
 * item (send_batch.c); after recording a batch the sender sets it for a
 * subscription that failed and had none, clears it for one that answered
 * 2xx and had one (nothing is written for a healthy subscription), and
 * when a failure comes after TravelWebhookDisableAfter of them the
 * subscription is disabled with a reason, its queued requests are not sent, and the organization's other
 * subscriptions of the family get a <family>.webhook_subscription.disabled
 * event (webhook_disable, sql/181). PATCH {"status": "ACTIVE"} re-enables
 * it (api.c, recover.h).
 *
 * The open circuit (sql/400): a batch that held requests of a receiver that
 * hangs in line (send.c, slow.h; trv_wh_item.open_for) moves the
 * subscription's open_until to the end of that line and sets failing_since
 * if unset, in the same note; the fan-out queues the subscription's new
 * sends due at open_until, so no sender claims them before then. A 2xx
 * clears both, and makes the sends the circuit held back (queued due at
 * open_until, or put in its line) due at once (sql/410); a 2xx of a request
 * claimed before the circuit opened closes it too when its process had
 * taken the receiver for hanging (trv_wh_item.closes). */
#ifndef TRV_WEBHOOK_BREAKER_H
#define TRV_WEBHOOK_BREAKER_H

#include "core/env.h"
#include "send_batch.h"

#define TRV_WEBHOOK_DISABLED_EVENT "webhook_subscription.disabled"

/* After a batch's record: keeps failing_since (and open_until) of the
 * recorded and held items' subscriptions and disables those that failed
 * for the whole window. */
void trv_webhook_breaker_note(trv_env *env, apr_pool_t *p, const apr_array_header_t *rec);

/* Disables `sub` when it is still ACTIVE and has failed for the whole
 * window (checked again under its row's lock); `last` says how the last
 * attempt ended. Logs what it did; a database error is logged and the
 * next failed attempt tries again. */
void trv_webhook_breaker_trip(trv_env *env, apr_pool_t *p, const char *sub,
                              const char *last);

#endif
