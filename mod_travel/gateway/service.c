/* The service's own endpoints, answered without an API key: GET /v1/health
 * for load balancers and GET /v1/openapi.yaml, the description of the API
 * this build implements (docs/openapi.yaml, compiled in). */
#include "service.h"
#include "core/json.h"
#include "account/key_cache.h"

#include <string.h>

/* docs/openapi.yaml, embedded at build time (tools/embed-text.sh). */
extern const char trv_openapi_yaml[];
extern const apr_size_t trv_openapi_yaml_len;

static const trv_stmt ping_stmt = {"trv_health_ping", "SELECT 1 AS ok"};

int trv_health_workers_ok(int configured, int running, int stopping)
{
    return !stopping && running >= configured;
}

/* How key revocations and new jobs reach this process: "listening" (a
 * proof NOTIFY came back: the key cache is on), "polling" (it did not, and
 * reason says why: every request asks the database for its key, workers
 * poll), "starting" (no proof yet) or "off" (no listener). Health stays
 * 200 while polling: nothing is late beyond the poll interval. */
static json_t *notifications(const trv_env *env, apr_pool_t *p)
{
    static const char *const names[] = {"starting", "listening", "polling"};
    const char *reason = NULL;
    trv_notify_state st;
    if (!env->key_cache) {
        return json_pack("{s:s}", "state", "off");
    }
    st = trv_key_cache_notify(env->key_cache, p, &reason);
    return reason ? json_pack("{s:s, s:s}", "state", names[st], "reason", reason)
                  : json_pack("{s:s}", "state", names[st]);
}

/* 200 when the database answers a query and every configured background
 * worker of this process runs and came back to its loop within the job
 * lease (a worker inside one job for longer is stuck: the queue hands that
 * job to another worker by then); else 503 unavailable (with Retry-After).
 * Failures are logged at warning level: a load balancer asks every few
 * seconds, and the cause is logged where it happens. */
static void health(trv_req *req, trv_resp *resp)
{
    trv_env *env = req->env;
    int configured = env->cfg ? env->cfg->worker_threads : 0;
    /* Back in the loop within the lease, plus the longest idle wait (5 s,
     * the back-off while the database is down). */
    int running = env->workers_alive && env->cfg
                  ? env->workers_alive(env->wake_baton,
                                       env->cfg->job_lease + apr_time_from_sec(5))
                  : 0;
    int db_ok = 0;
    trv_dbc *c = NULL;
    trv_rows *rows;

    if (trv_db_open(env->db, req->pool, &c) == APR_SUCCESS) {
        db_ok = trv_db_select(c, req->pool, &ping_stmt, &rows, 0, NULL) == APR_SUCCESS
             && rows->n == 1;
        trv_db_close(env->db, c);
    }
    if (!db_ok) {
        trv_log_msg(&req->log, TRV_LOG_WARNING, req->request_id,
                    TRVLOGNO(211) "health: the database does not answer: %s",
                    c && c->error ? c->error : "no connection");
        trv_fail(req, resp, 503, "unavailable", "The database does not answer");
        return;
    }
    if (!trv_health_workers_ok(configured, running, TRV_STOPPING(env))) {
        trv_log_msg(&req->log, TRV_LOG_WARNING, req->request_id,
                    TRVLOGNO(212) "health: %d of %d background workers run%s", running,
                    configured, TRV_STOPPING(env) ? " (this process is stopping)" : "");
        trv_fail(req, resp, 503, "unavailable", "%d of %d background workers are running",
                 running, configured);
        return;
    }
    trv_ok(req, resp, 200,
           json_pack("{s:s, s:s, s:{s:i, s:i}, s:o}", "status", "ok", "database", "ok",
                     "workers", "configured", configured, "running", running,
                     "notifications", notifications(env, req->pool)),
           NULL);
}

static void openapi(trv_req *req, trv_resp *resp)
{
    trv_ok_raw(req, resp, 200, "application/yaml", trv_openapi_yaml, trv_openapi_yaml_len);
}

const trv_route trv_service_routes[] = {
    {"GET", "/v1/health", health, TRV_ROUTE_PUBLIC},
    {"GET", "/v1/openapi.yaml", openapi, TRV_ROUTE_PUBLIC},
    {NULL, NULL, NULL, 0},
};
