#include "retention.h"
#include "core/json.h"

#include <apr_atomic.h>
#include <apr_strings.h>

const trv_job_spec trv_webhook_retention_job = {TRV_WEBHOOK_RETENTION_JOB, 5};

/* The run's own key goes to the next run (as watch/schedule.c hands over). */
static const trv_stmt handover_stmt = {"trv_whr_handover",
    "UPDATE jobs SET dedupe_key = NULL WHERE id = %s::bigint AND locked_by = %s"};

/* One batch (sql/370, trv_webhook_retention_remove): the oldest events
 * past the period that no transaction holds and no send still needs, with
 * their deliveries and those deliveries' attempts, each found by key
 * however large the tables are. */
static const trv_stmt remove_stmt = {"trv_whr_remove",
    "SELECT events, deliveries, attempts FROM trv_webhook_retention_remove(%s::bigint, %s::int)"};

static apr_interval_time_t run_every(const trv_env *env)
{
    apr_interval_time_t t = env->cfg->webhook_retention / 10;
    if (t < apr_time_from_sec(1)) {
        return apr_time_from_sec(1);
    }
    return t > apr_time_from_sec(60) ? apr_time_from_sec(60) : t;
}

apr_time_t trv_webhook_retention_horizon(const trv_env *env)
{
    return env->cfg->webhook_retention > 0 ? apr_time_now() - env->cfg->webhook_retention : 0;
}

void trv_webhook_retention_run(trv_env *env, apr_pool_t *p, const trv_job *job,
                               trv_job_result *res)
{
    const char *period = apr_psprintf(p, "%" APR_INT64_T_FMT,
                                      (apr_int64_t)env->cfg->webhook_retention);
    long events = 0, deliveries = 0, attempts = 0;
    trv_dbc *c;
    trv_rows *r;
    int b;

    if (!trv_job_db_open(env, p, &c, res)) {
        return;
    }
    if (trv_db_begin(c, p) != APR_SUCCESS
        || trv_db_exec(c, p, &handover_stmt, NULL, TRV_DB_ARGS(job->id, job->worker))
               != APR_SUCCESS
        || trv_job_enqueue_spec(c, p, &trv_webhook_retention_job, NULL, run_every(env),
                                TRV_WEBHOOK_RETENTION_JOB, NULL) != APR_SUCCESS
        || trv_db_commit(c) != APR_SUCCESS) {
        res->outcome = TRV_JOB_RETRY;
        res->error = apr_pstrdup(p, c->error ? c->error : "failed");
        trv_db_close(env->db, c);
        return;
    }
    for (b = 0; env->cfg->webhook_retention > 0 && b < TRV_WEBHOOK_RETENTION_BATCHES
                && !TRV_STOPPING(env); b++) {
        long n;
        if (trv_db_select(c, p, &remove_stmt, &r,
                          TRV_DB_ARGS(period, apr_itoa(p, TRV_WEBHOOK_RETENTION_BATCH)))
            != APR_SUCCESS) {
            trv_log_msg(&env->log, TRV_LOG_WARNING, NULL,
                        TRVLOGNO(2704) "webhook retention: removing old events failed (the "
                        "next run tries again): %s", c->error ? c->error : "failed");
            break;
        }
        n = trv_rows_int(r, 0, "events", 0);
        events += n;
        deliveries += trv_rows_int(r, 0, "deliveries", 0);
        attempts += trv_rows_int(r, 0, "attempts", 0);
        if (n < TRV_WEBHOOK_RETENTION_BATCH) {
            break;
        }
        /* Small steps: the senders' statements get the database between. */
        apr_sleep(apr_time_from_msec(10));
    }
    trv_db_close(env->db, c);
    if (events > 0) {
        trv_log_msg(&env->log, TRV_LOG_INFO, NULL,
                    TRVLOGNO(2705) "webhook retention: removed %ld events, %ld deliveries "
                    "and %ld attempts older than %" APR_INT64_T_FMT " s", events, deliveries,
                    attempts, (apr_int64_t)apr_time_sec(env->cfg->webhook_retention));
    }
}

void trv_webhook_retention_ensure(trv_env *env, apr_pool_t *p)
{
    static volatile apr_uint32_t last;
    apr_uint32_t now = (apr_uint32_t)apr_time_sec(apr_time_now()), seen = last;
    trv_dbc *c;
    if (now - seen < 300 || apr_atomic_cas32(&last, now, seen) != seen) {
        return;
    }
    if (trv_db_open(env->db, p, &c) != APR_SUCCESS) {
        return;
    }
    if (trv_job_enqueue_spec(c, p, &trv_webhook_retention_job, NULL, 0,
                             TRV_WEBHOOK_RETENTION_JOB, NULL) != APR_SUCCESS) {
        trv_log_msg(&env->log, TRV_LOG_WARNING, NULL,
                    TRVLOGNO(2707) "webhook retention: its job could not be queued (tried "
                    "again in 5 minutes): %s", c->error ? c->error : "failed");
    }
    trv_db_close(env->db, c);
}
