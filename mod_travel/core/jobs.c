#include "jobs.h"
#include "json.h"

#include <apr_strings.h>
#include <stdlib.h>
#include <string.h>

static const trv_stmt enqueue_stmt = {"trv_job_enqueue",
    "INSERT INTO jobs (kind, payload, available_at, max_attempts, dedupe_key) "
    "VALUES (%s, %s::jsonb, clock_timestamp() + %s::bigint * interval '1 microsecond', "
    "%s::int, %s) "
    "ON CONFLICT (dedupe_key) WHERE dedupe_key IS NOT NULL "
    "AND status IN ('queued', 'running') DO NOTHING RETURNING id"};

/* now(), not clock_timestamp(): a volatile function cannot bound the index
 * scan, and every claim would walk past all future jobs and leases. */
static const trv_stmt claim_stmt = {"trv_job_claim",
    "UPDATE jobs SET status = 'running', attempts = attempts + 1, locked_by = %s, "
    "available_at = clock_timestamp() + %s::bigint * interval '1 microsecond', "
    "updated_at = clock_timestamp() "
    "WHERE id = (SELECT id FROM jobs WHERE status IN ('queued', 'running') "
    "AND available_at <= now() AND attempts < max_attempts "
    "ORDER BY available_at LIMIT 1 FOR UPDATE SKIP LOCKED) "
    "RETURNING id, kind, payload::text AS payload, attempts, max_attempts"};

static const trv_stmt done_stmt = {"trv_job_done",
    "DELETE FROM jobs WHERE id = %s::bigint AND locked_by = %s AND attempts = %s::int"};

static const trv_stmt retry_stmt = {"trv_job_retry",
    "UPDATE jobs SET status = CASE WHEN attempts >= max_attempts THEN 'dead' "
    "ELSE 'queued' END, available_at = clock_timestamp() + %s::bigint * interval "
    "'1 microsecond', last_error = %s, locked_by = NULL, updated_at = clock_timestamp() "
    "WHERE id = %s::bigint AND locked_by = %s AND attempts = %s::int"};

static const trv_stmt dead_stmt = {"trv_job_dead",
    "UPDATE jobs SET status = 'dead', last_error = %s, locked_by = NULL, "
    "updated_at = clock_timestamp() "
    "WHERE id = %s::bigint AND locked_by = %s AND attempts = %s::int"};

static const trv_stmt release_stmt = {"trv_job_release",
    "UPDATE jobs SET status = 'queued', attempts = attempts - 1, locked_by = NULL, "
    "available_at = clock_timestamp(), updated_at = clock_timestamp() "
    "WHERE id = %s::bigint AND locked_by = %s AND attempts = %s::int"};

static const trv_stmt defer_stmt = {"trv_job_defer",
    "UPDATE jobs SET status = 'queued', attempts = attempts - 1, locked_by = NULL, "
    "available_at = clock_timestamp() + %s::bigint * interval '1 microsecond', "
    "last_error = %s, updated_at = clock_timestamp() "
    "WHERE id = %s::bigint AND locked_by = %s AND attempts = %s::int"};

static const trv_stmt hold_stmt = {"trv_job_hold",
    "UPDATE jobs SET available_at = clock_timestamp() + %s::bigint * interval "
    "'1 microsecond' WHERE id = %s::bigint AND locked_by = %s AND attempts = %s::int"};

/* A job that took its worker down on its last attempt is never claimed
 * again; this marks it dead so it is visible instead of silently stuck. */
static const trv_stmt reap_stmt = {"trv_job_reap",
    "UPDATE jobs SET status = 'dead', last_error = 'lease expired on the last "
    "attempt (the worker stopped)', locked_by = NULL, updated_at = clock_timestamp() "
    "WHERE status = 'running' AND available_at <= now() "
    "AND attempts >= max_attempts"};

static const char *i64(apr_pool_t *p, apr_int64_t v)
{
    return apr_psprintf(p, "%" APR_INT64_T_FMT, v);
}

apr_status_t trv_job_enqueue(trv_dbc *c, apr_pool_t *p, const char *kind,
                             const json_t *payload, apr_interval_time_t delay,
                             int max_attempts, const char *dedupe_key,
                             const char **job_id)
{
    trv_rows *rows;
    const char *body = payload ? trv_json_dump(p, payload) : "{}";
    apr_status_t rv = trv_db_select(c, p, &enqueue_stmt, &rows,
        TRV_DB_ARGS(kind, body, i64(p, delay),
                    apr_itoa(p, max_attempts > 0 ? max_attempts : 10), dedupe_key));
    if (rv == APR_SUCCESS && job_id) {
        *job_id = rows->n ? trv_rows_get(rows, 0, "id") : NULL;
    }
    return rv;
}

apr_status_t trv_job_enqueue_spec(trv_dbc *c, apr_pool_t *p, const trv_job_spec *spec,
                                  const json_t *payload, apr_interval_time_t delay,
                                  const char *dedupe_key, const char **job_id)
{
    return trv_job_enqueue(c, p, spec->kind, payload, delay, spec->max_attempts, dedupe_key,
                           job_id);
}

apr_interval_time_t trv_job_backoff(int attempt)
{
    apr_interval_time_t base = apr_time_from_sec(1);
    unsigned int r;
    int i;
    for (i = 1; i < attempt && base < apr_time_from_sec(300); i++) {
        base *= 2;
    }
    if (base > apr_time_from_sec(300)) {
        base = apr_time_from_sec(300);
    }
    r = (unsigned int)rand(); /* jitter only; not security relevant */
    return base / 2 + (apr_interval_time_t)(r % (unsigned int)(base / 1000 + 1)) * 1000;
}

static const trv_job_kind *find_kind(const trv_job_kind *kinds, const char *kind)
{
    for (; kinds && kinds->kind; kinds++) {
        if (strcmp(kinds->kind, kind) == 0) {
            return kinds;
        }
    }
    return NULL;
}

static apr_status_t record(trv_env *env, apr_pool_t *p, const trv_job *job,
                           const trv_job_result *res)
{
    trv_dbc *c;
    apr_status_t rv;
    const char *att = apr_itoa(p, job->attempt);

    if (res->outcome == TRV_JOB_GONE) {
        return APR_SUCCESS;
    }
    if (trv_db_open(env->db, p, &c) != APR_SUCCESS) {
        return APR_EGENERAL;
    }
    switch (res->outcome) {
    case TRV_JOB_DONE:
        rv = trv_db_exec(c, p, &done_stmt, NULL,
                         TRV_DB_ARGS(job->id, job->worker, att));
        break;
    case TRV_JOB_RETRY: {
        apr_interval_time_t in = res->retry_in ? res->retry_in
                                               : trv_job_backoff(job->attempt);
        rv = trv_db_exec(c, p, &retry_stmt, NULL,
                         TRV_DB_ARGS(i64(p, in), res->error, job->id, job->worker, att));
        break;
    }
    case TRV_JOB_RELEASE:
        rv = trv_db_exec(c, p, &release_stmt, NULL,
                         TRV_DB_ARGS(job->id, job->worker, att));
        break;
    case TRV_JOB_DEFER:
        rv = trv_db_exec(c, p, &defer_stmt, NULL,
                         TRV_DB_ARGS(i64(p, res->retry_in > 0 ? res->retry_in
                                                              : apr_time_from_sec(1)),
                                     res->error ? res->error : "deferred", job->id,
                                     job->worker, att));
        break;
    default:
        rv = trv_db_exec(c, p, &dead_stmt, NULL,
                         TRV_DB_ARGS(res->error ? res->error : "failed", job->id,
                                     job->worker, att));
    }
    if (rv != APR_SUCCESS) {
        trv_log_msg(&env->log, TRV_LOG_ERR, NULL,
                    TRVLOGNO(101) "job %s (%s): recording its outcome failed: %s",
                    job->id, job->kind, c->error);
    }
    trv_db_close(env->db, c);
    return rv;
}

static const char *outcome_name(trv_job_outcome o)
{
    switch (o) {
    case TRV_JOB_DONE: return "done";
    case TRV_JOB_RETRY: return "to be retried";
    case TRV_JOB_DEAD: return "dead";
    case TRV_JOB_RELEASE: return "released";
    case TRV_JOB_GONE: return "done";
    case TRV_JOB_DEFER: return "deferred";
    }
    return "?";
}

int trv_worker_step(trv_env *env, apr_pool_t *p, const trv_job_kind *kinds,
                    const char *worker_id)
{
    static apr_uint32_t reap_tick;
    trv_dbc *c;
    trv_rows *rows;
    trv_job job;
    trv_job_result res;
    const trv_job_kind *k;
    const char *err = NULL;
    apr_status_t rv;
    apr_time_t started;

    if (TRV_STOPPING(env)) {
        return 0;
    }
    if (trv_db_open(env->db, p, &c) != APR_SUCCESS) {
        return -1;
    }
    rv = trv_db_select(c, p, &claim_stmt, &rows,
                       TRV_DB_ARGS(worker_id, i64(p, env->cfg->job_lease)));
    if (rv != APR_SUCCESS) {
        trv_log_msg(&env->log, TRV_LOG_WARNING, NULL,
                    TRVLOGNO(102) "claiming a job failed: %s", c->error);
        rv = c->unavailable ? -1 : 0;
        trv_db_close(env->db, c);
        return (int)rv;
    }
    if (rows->n == 0) {
        if ((apr_atomic_inc32(&reap_tick) % 64) == 0) {
            trv_db_exec(c, p, &reap_stmt, NULL, 0, NULL);
        }
        trv_db_close(env->db, c);
        return 0;
    }
    trv_db_close(env->db, c);

    memset(&job, 0, sizeof(job));
    job.id = trv_rows_get(rows, 0, "id");
    job.kind = trv_rows_get(rows, 0, "kind");
    job.attempt = trv_rows_int(rows, 0, "attempts", 1);
    job.max_attempts = trv_rows_int(rows, 0, "max_attempts", 1);
    job.worker = worker_id;
    job.payload = trv_json_parse(p, trv_rows_get(rows, 0, "payload"),
                                 strlen(trv_rows_get(rows, 0, "payload")), &err);
    memset(&res, 0, sizeof(res));
    TRV_DEBUG(&env->log, NULL, TRVLOGNO(104) "job %s (%s) claimed by %s, attempt %d of %d",
              job.id, job.kind, worker_id, job.attempt, job.max_attempts);
    started = apr_time_now();
    k = find_kind(kinds, job.kind);
    if (!k) {
        res.outcome = TRV_JOB_DEAD;
        res.error = apr_psprintf(p, "no handler for job kind %s", job.kind);
    }
    else if (!job.payload) {
        res.outcome = TRV_JOB_DEAD;
        res.error = apr_psprintf(p, "payload is not JSON: %s", err);
    }
    else {
        res.outcome = TRV_JOB_DONE;
        job.arg = k->arg;
        k->run(env, p, &job, &res);
        if (TRV_STOPPING(env) && res.outcome == TRV_JOB_RETRY) {
            res.outcome = TRV_JOB_RELEASE;
        }
    }
    if (res.outcome == TRV_JOB_DEAD
        || (res.outcome == TRV_JOB_RETRY && job.attempt >= job.max_attempts)) {
        trv_log_msg(&env->log, TRV_LOG_ERR, NULL,
                    TRVLOGNO(103) "job %s (%s) failed for good after %d attempt(s): %s",
                    job.id, job.kind, job.attempt, res.error ? res.error : "failed");
    }
    TRV_DEBUG(&env->log, NULL, TRVLOGNO(105) "job %s (%s) %s after %.1f ms%s%s", job.id,
              job.kind, outcome_name(res.outcome),
              (double)(apr_time_now() - started) / 1000.0, res.error ? ": " : "",
              res.error ? res.error : "");
    record(env, p, &job, &res);
    return 1;
}

apr_status_t trv_job_hold(trv_dbc *c, apr_pool_t *p, const trv_job *job,
                          apr_interval_time_t for_)
{
    int affected = 0;
    apr_status_t rv = trv_db_exec(c, p, &hold_stmt, &affected,
                                  TRV_DB_ARGS(i64(p, for_), job->id, job->worker,
                                              apr_itoa(p, job->attempt)));
    if (rv == APR_SUCCESS && affected == 0) {
        return APR_NOTFOUND; /* the lease ran out and another worker took it */
    }
    return rv;
}

const char *trv_job_request_id(const trv_job *job)
{
    const char *rid = trv_json_str(job->payload, "request_id");
    return rid ? rid : "-";
}

int trv_job_db_open(trv_env *env, apr_pool_t *p, trv_dbc **c, trv_job_result *res)
{
    if (trv_db_open(env->db, p, c) != APR_SUCCESS) {
        res->outcome = TRV_JOB_RETRY;
        res->error = "database unavailable";
        return 0;
    }
    return 1;
}

int trv_job_open(trv_env *env, apr_pool_t *p, const trv_job *job, const char **id,
                 trv_dbc **c, trv_job_result *res)
{
    *id = trv_json_str(job->payload, "id");
    if (!*id) {
        res->outcome = TRV_JOB_DEAD;
        res->error = "payload has no id";
        return 0;
    }
    return trv_job_db_open(env, p, c, res);
}
