/* What the webhook domain brings: the publish, send and retention jobs, and the
 * subscription endpoints of every domain that emits events (the event types
 * a subscription may ask for are that domain's registration). */
#include "domain.h"
#include "api.h"
#include "outbox.h"
#include "publish.h"
#include "retention.h"
#include "send.h"

static const trv_job_def jobs[] = {
    {&trv_event_publish_job, trv_event_publish_run},
    {&trv_webhook_send_job, trv_webhook_send_run},
    {&trv_webhook_retention_job, trv_webhook_retention_run},
    {NULL, NULL},
};

const trv_domain trv_webhook_domain = {
    "webhook",
    NULL,
    jobs,
    NULL,
    NULL,
    trv_webhook_routes_for,
};
