/* Retention: events, their webhook deliveries and the deliveries' attempts
 * are kept for TravelWebhookRetention (default 30 days) after the event
 * was written, then removed by the job kind webhook.retention: oldest
 * first, in transactions of at most TRV_WEBHOOK_RETENTION_BATCH events
 * (with their deliveries and attempts) that skip rows another transaction
 * holds, so a sender is never waiting on it for more than one small
 * batch. An event whose delivery is still queued or being sent is kept
 * until that send ends. The job is a chain of one (its dedupe key), run
 * every tenth of the period (between 1 s and 1 min); sql/182 queues the
 * first, and trv_webhook_retention_ensure queues one again if the chain
 * ever stopped. */
#ifndef TRV_WEBHOOK_RETENTION_H
#define TRV_WEBHOOK_RETENTION_H

#include "core/jobs.h"

#define TRV_WEBHOOK_RETENTION_JOB "webhook.retention"
/* Events removed per transaction, and transactions per run. */
#define TRV_WEBHOOK_RETENTION_BATCH 500
#define TRV_WEBHOOK_RETENTION_BATCHES 200

extern const trv_job_spec trv_webhook_retention_job;

void trv_webhook_retention_run(trv_env *env, apr_pool_t *p, const trv_job *job,
                               trv_job_result *res);

/* Queues the chain's job unless one is queued or running; does so at most
 * every 5 minutes per process (called by the sender). */
void trv_webhook_retention_ensure(trv_env *env, apr_pool_t *p);

/* The oldest instant whose events are still kept (now - the period); 0
 * when the period is 0 (nothing removed: a test's zeroed configuration). */
apr_time_t trv_webhook_retention_horizon(const trv_env *env);

#endif
