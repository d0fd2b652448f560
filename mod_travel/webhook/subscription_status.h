/* The status of a webhook subscription (webhook_subscriptions, sql/020,
 * sql/181): ACTIVE or PAUSED, set by PATCH (either way; an unchanged PATCH
 * keeps it); DISABLED, set only by the circuit breaker (webhook_disable,
 * sql/181, from ACTIVE alone), left by PATCH ACTIVE (re-enabled: the
 * outage is sent again) or PATCH PAUSED. Sends, replays and recoveries
 * need ACTIVE. */
#ifndef TRV_WEBHOOK_SUBSCRIPTION_STATUS_H
#define TRV_WEBHOOK_SUBSCRIPTION_STATUS_H

#include "core/transit.h"

typedef enum {
    TRV_SUBSCRIPTION_ACTIVE,
    TRV_SUBSCRIPTION_PAUSED,
    TRV_SUBSCRIPTION_DISABLED
} trv_subscription_status;

extern const trv_transit_table trv_subscription_status_table;

/* Every status text, NULL-terminated. */
extern const char *const trv_subscription_statuses[];

/* Its texts through the table: trv_transit_text, trv_transit_from_text. */

/* 1 when a PATCH may ask for `s` (ACTIVE, PAUSED: DISABLED is the
 * breaker's). */
int trv_subscription_status_patchable(trv_subscription_status s);

/* 1 when `s` is resumed by a PATCH to ACTIVE (PAUSED, or DISABLED by the
 * breaker: the dashboard's Resume). */
int trv_subscription_status_resumable(trv_subscription_status s);

#endif
