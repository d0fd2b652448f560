#include "probe.h"
#include "core/json.h"

#include <apr_strings.h>

const trv_job_spec trv_probe_job = {TRV_PROBE_JOB, 5};

static const trv_stmt record_stmt = {"trv_probe_record",
    "INSERT INTO job_probe_runs (job_id, attempt, worker, label) "
    "VALUES (%s::bigint, %s::int, %s, %s)"};

void trv_probe_run(trv_env *env, apr_pool_t *p, const trv_job *job,
                   trv_job_result *res)
{
    json_int_t sleep_ms = json_integer_value(json_object_get(job->payload, "sleep_ms"));
    apr_time_t until;
    trv_dbc *c;

    if (sleep_ms > 600000) {
        sleep_ms = 600000;
    }
    /* Sleep in slices so a stopping process lets go of the job at once. */
    until = apr_time_now() + apr_time_from_msec(sleep_ms);
    while (apr_time_now() < until) {
        if (TRV_STOPPING(env)) {
            res->outcome = TRV_JOB_RELEASE;
            return;
        }
        apr_sleep(apr_time_from_msec(50));
    }
    if (!trv_job_db_open(env, p, &c, res)) {
        return;
    }
    if (trv_db_exec(c, p, &record_stmt, NULL,
                    TRV_DB_ARGS(job->id, apr_itoa(p, job->attempt), job->worker,
                                trv_json_str(job->payload, "label"))) != APR_SUCCESS) {
        res->outcome = TRV_JOB_RETRY;
        res->error = apr_pstrdup(p, c->error);
    }
    trv_db_close(env->db, c);
}
