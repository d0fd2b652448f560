/* Sending deliveries: the job kind webhook.send runs one attempt of one
 * delivery's current send. It claims the delivery (PENDING -> PUBLISHED),
 * signs the event with the secrets the send was queued with, POSTs it to
 * the URL it was queued with (10 s, the SSRF rules checked again at
 * connect time), records the attempt and, in the same transaction, either
 * finishes the delivery (DELIVERED on a 2xx, FAILED retries_exhausted when
 * the schedule is used up) or queues the next attempt.
 *
 * At least once: an attempt is recorded only after its request was made;
 * a sender that dies mid-send leaves its job to be claimed again when the
 * lease runs out, and the attempt is made again. Each job names the
 * attempt it makes, so a job that runs again after its attempt was
 * recorded (or after a replay started a new send) does nothing. */
#ifndef TRV_WEBHOOK_SEND_H
#define TRV_WEBHOOK_SEND_H

#include "core/jobs.h"

#define TRV_WEBHOOK_SEND_JOB "webhook.send"
/* How long a receiver has to answer. */
#define TRV_WEBHOOK_TIMEOUT apr_time_from_sec(10)
/* How much of a receiver's answer is kept with the attempt. */
#define TRV_WEBHOOK_KEEP_BODY 4096
/* Crash-and-retry budget of one attempt (not the retry schedule). */
#define TRV_WEBHOOK_SEND_MAX_RUNS 25

extern const trv_job_spec trv_webhook_send_job;

/* The event family signed with service-signature (signature.h) instead of
 * Standard Webhooks: the watch domain's events, sent to the organization's
 * watcher endpoint (a subscription of this family). */
#define TRV_WEBHOOK_SERVICE_FAMILY "travel"

/* Queues attempt `attempt` of send `replay` of a delivery, after delay,
 * inside the caller's transaction. */
apr_status_t trv_webhook_send_enqueue(trv_dbc *c, apr_pool_t *p, const char *delivery_id,
                                      int replay, int attempt,
                                      apr_interval_time_t delay);

/* A receiver's answer as text PostgreSQL takes: valid UTF-8 without NUL
 * (anything else becomes '?'), at most TRV_WEBHOOK_KEEP_BODY bytes. */
const char *trv_webhook_clean_text(apr_pool_t *p, const char *buf, apr_size_t len);

void trv_webhook_send_run(trv_env *env, apr_pool_t *p, const trv_job *job,
                          trv_job_result *res);

#endif
