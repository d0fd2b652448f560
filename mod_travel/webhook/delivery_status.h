/* The status of a webhook delivery (webhook_deliveries, sql/020): queued
 * PENDING, PUBLISHED once a send job holds it (and while it is retried),
 * then DELIVERED or FAILED (retries exhausted, or its subscription
 * deleted); a replay or a recovery queues it again (PENDING). */
#ifndef TRV_WEBHOOK_DELIVERY_STATUS_H
#define TRV_WEBHOOK_DELIVERY_STATUS_H

#include "core/transit.h"

typedef enum {
    TRV_DELIVERY_PENDING,
    TRV_DELIVERY_PUBLISHED,
    TRV_DELIVERY_DELIVERED,
    TRV_DELIVERY_FAILED
} trv_delivery_status;

extern const trv_transit_table trv_delivery_status_table;

/* Its texts through the table: trv_transit_text, trv_transit_from_text. */

/* A delivery whose send has ended (DELIVERED or FAILED): the ones a
 * replay is offered for; the API judges any other and says why not. */
int trv_delivery_finished(trv_delivery_status status);

#endif
