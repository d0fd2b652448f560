/* Publishing an event from the outbox: fan it out to every matching active
 * subscription of its organization (one delivery each), then mark it
 * published. Runs as the job kind event.publish. */
#ifndef TRV_WEBHOOK_PUBLISH_H
#define TRV_WEBHOOK_PUBLISH_H

#include "core/jobs.h"

void trv_event_publish_run(trv_env *env, apr_pool_t *p, const trv_job *job,
                           trv_job_result *res);

#endif
