/* The background job queue in PostgreSQL. Workers claim due jobs with
 * FOR UPDATE SKIP LOCKED and a lease; a job whose worker died becomes due
 * again when its lease runs out, so every httpd child on every machine
 * shares one queue. */
#ifndef TRV_JOBS_H
#define TRV_JOBS_H

#include "env.h"

#include <jansson.h>

typedef struct trv_job {
    const char *id;
    const char *kind;
    json_t *payload;       /* pool-bound object */
    int attempt;           /* 1 on the first run */
    int max_attempts;
    const char *worker;
    /* What its kind was registered with (trv_job_def.arg), or NULL: one
     * runner shared by several domains (the cancel runner, the refund
     * job) finds the domain's table here instead of in a wrapper each. */
    const void *arg;
} trv_job;

typedef enum {
    TRV_JOB_DONE,          /* finished: the job is removed */
    TRV_JOB_RETRY,         /* transient failure: run again after a backoff */
    TRV_JOB_DEAD,          /* permanent failure: kept with its error */
    TRV_JOB_RELEASE,       /* not run (stopping): due again at once */
    TRV_JOB_GONE,          /* finished, and the runner removed the job itself in
                            * the statement that recorded its work (one round
                            * trip fewer: the webhook sender) */
    TRV_JOB_DEFER          /* not run now by choice (a price watch yielding to live
                            * searches): due again after retry_in, the attempt
                            * not counted, so a deferred job is never lost */
} trv_job_outcome;

typedef struct trv_job_result {
    trv_job_outcome outcome;
    apr_interval_time_t retry_in; /* RETRY: 0 picks the exponential backoff; DEFER: the
                                   * delay */
    const char *error;
} trv_job_result;

typedef void trv_job_fn(trv_env *env, apr_pool_t *p, const trv_job *job,
                        trv_job_result *res);

/* What the workers run: a kind, its runner and its attempt limit. The
 * registry (registry.h) builds this table from the domains' registrations. */
typedef struct trv_job_kind {
    const char *kind;
    trv_job_fn *run;
    int max_attempts;
    const void *arg;       /* handed to run as job->arg */
} trv_job_kind;

/* A job kind as the code that enqueues it sees it: the name and the attempt
 * limit, apart from the function that runs it. Each kind is defined once,
 * by its domain, and that definition is both enqueued with and registered
 * (with its runner): code that only enqueues never depends on the runners,
 * and no attempt limit is written twice. */
typedef struct trv_job_spec {
    const char *kind;
    int max_attempts;
} trv_job_spec;

/* Enqueues inside the caller's transaction (the outbox rule): the job exists
 * only if the change that caused it commits. A non-NULL dedupe_key makes
 * the enqueue a no-op while a job with that key is queued or running. */
apr_status_t trv_job_enqueue(trv_dbc *c, apr_pool_t *p, const char *kind,
                             const json_t *payload, apr_interval_time_t delay,
                             int max_attempts, const char *dedupe_key,
                             const char **job_id);

/* trv_job_enqueue with the kind's registered name and attempt limit. */
apr_status_t trv_job_enqueue_spec(trv_dbc *c, apr_pool_t *p, const trv_job_spec *spec,
                                  const json_t *payload, apr_interval_time_t delay,
                                  const char *dedupe_key, const char **job_id);

/* Claims one due job, runs it and records the outcome. Returns 1 when a job
 * ran, 0 when none was due, -1 when the database was unreachable. */
int trv_worker_step(trv_env *env, apr_pool_t *p, const trv_job_kind *kinds,
                    const char *worker_id);

/* Pushes the lease of a running job to `for_` from now, on the caller's
 * connection (a job about to wait longer than the configured lease).
 * APR_NOTFOUND when the job is no longer this worker's (its lease ran out
 * and another worker claimed it): the caller must not go on with it. */
apr_status_t trv_job_hold(trv_dbc *c, apr_pool_t *p, const trv_job *job,
                          apr_interval_time_t for_);

/* Backoff for attempt n (1-based): 2^(n-1) s, capped at 5 min, jittered. */
apr_interval_time_t trv_job_backoff(int attempt);
/* The request id the job was queued under (its payload's request_id), for
 * its log lines and upstream calls; "-" when it has none. */
const char *trv_job_request_id(const trv_job *job);
/* A database connection for a job's run: 0 with res set to RETRY
 * ("database unavailable") when there is none yet. */
int trv_job_db_open(trv_env *env, apr_pool_t *p, trv_dbc **c, trv_job_result *res);
/* The start of a job about one row: its payload's "id" and a database
 * connection. Returns 0 with res set when there is neither (DEAD: no id,
 * nothing will ever change that; RETRY: no database yet); the runner then
 * returns at once. */
int trv_job_open(trv_env *env, apr_pool_t *p, const trv_job *job, const char **id,
                 trv_dbc **c, trv_job_result *res);

#endif
