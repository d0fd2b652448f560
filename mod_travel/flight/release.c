/* flight.payment.release: the shared release of authorization intents
 * (payment/release.c) on the flight tables. */
#include "jobs.h"
#include "intents.h"

void trv_fjob_release_run(trv_env *env, apr_pool_t *p, const trv_job *job,
                          trv_job_result *res)
{
    trv_pintent_release_run(&trv_flight_intents, env, p, job, res);
}
