/* The status of a webhook subscription (webhook_subscriptions, sql/020):
 * ACTIVE or PAUSED, set by PATCH (either way; an unchanged PATCH keeps
 * it); sends, replays and recoveries need ACTIVE. */
#ifndef TRV_WEBHOOK_SUBSCRIPTION_STATUS_H
#define TRV_WEBHOOK_SUBSCRIPTION_STATUS_H

#include "core/transit.h"

typedef enum {
    TRV_SUBSCRIPTION_ACTIVE,
    TRV_SUBSCRIPTION_PAUSED
} trv_subscription_status;

extern const trv_transit_table trv_subscription_status_table;

/* Every status text, NULL-terminated (for input validation). */
extern const char *const trv_subscription_statuses[];

/* The column (and wire) text; *_from_text: 1 and *out set for one of the
 * two. */
const char *trv_subscription_status_text(trv_subscription_status s);
int trv_subscription_status_from_text(const char *text, trv_subscription_status *out);

#endif
