/* The flight background jobs: the runners of the kinds defined in
 * enqueue.h, registered with them in domain.c. */
#ifndef TRV_FLIGHT_JOBS_H
#define TRV_FLIGHT_JOBS_H

#include "core/jobs.h"
#include "lifecycle/cancel.h"

void trv_fjob_complete_run(trv_env *env, apr_pool_t *p, const trv_job *job,
                           trv_job_result *res);
void trv_fjob_settle_run(trv_env *env, apr_pool_t *p, const trv_job *job,
                         trv_job_result *res);
void trv_fjob_expire_run(trv_env *env, apr_pool_t *p, const trv_job *job,
                         trv_job_result *res);
void trv_fjob_prebook_watch_run(trv_env *env, apr_pool_t *p, const trv_job *job,
                                trv_job_result *res);
void trv_fjob_sync_run(trv_env *env, apr_pool_t *p, const trv_job *job,
                       trv_job_result *res);
void trv_fjob_release_run(trv_env *env, apr_pool_t *p, const trv_job *job,
                          trv_job_result *res);
void trv_fjob_render_run(trv_env *env, apr_pool_t *p, const trv_job *job,
                         trv_job_result *res);

/* The flight steps of the cancel runner (cancel.c): its cancel kind runs
 * trv_lifecycle_cancel_run with them, its refund kind trv_refunds_run
 * with trv_fbooking_refunds (domain.c). */
extern const trv_lifecycle_cancel_ops trv_fcancel_ops;

#endif
