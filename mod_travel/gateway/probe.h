/* The worker probe: a job that records that it ran (job_probe_runs), so an
 * operator (travelctl worker probe) and the tests can see the background
 * workers claim and finish work, once each. */
#ifndef TRV_PROBE_H
#define TRV_PROBE_H

#include "core/jobs.h"

#define TRV_PROBE_JOB "system.probe"

/* The probe job's name and attempt limit (registered by the system domain,
 * enqueued by travelctl). */
extern const trv_job_spec trv_probe_job;

/* Payload: {"label": string, "sleep_ms": integer (optional, <= 600000)}. */
void trv_probe_run(trv_env *env, apr_pool_t *p, const trv_job *job,
                   trv_job_result *res);

#endif
