/* A test event: "Send a test event" on a subscription (the dashboard's
 * button). The event, of the type "<family>.webhook.test", goes to that one
 * subscription only, whatever event types and filters it asks for, and is
 * sent, signed, retried and recorded like any other (a delivery with its
 * attempts, replayable). It is kept in the family's event log
 * (GET /v1/<family>/events) so a receiver that recovers finds it too. */
#ifndef TRV_WEBHOOK_TEST_EVENT_H
#define TRV_WEBHOOK_TEST_EVENT_H

#include "core/db.h"

#define TRV_WEBHOOK_TEST_SUFFIX ".webhook.test"

/* Queues a test event for subscription sub_id of org_id and family.
 * APR_SUCCESS with *event_id and *delivery_id; APR_ENOENT when the
 * organization has no such live subscription of that family; APR_EBUSY
 * when it is paused (nothing is queued); APR_EGENERAL on a database
 * failure (c->error). */
apr_status_t trv_webhook_send_test(trv_dbc *c, apr_pool_t *p, const char *org_id,
                                   const char *family, const char *sub_id,
                                   const char **event_id, const char **delivery_id);

#endif
