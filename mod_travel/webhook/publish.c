#include "publish.h"
#include "send.h"
#include "core/json.h"

#include <apr_strings.h>

/* The fan-out itself is one statement (migration 043, webhook_publish):
 * one delivery per live matching subscription (paused ones failed at
 * once), URL and live secrets fixed now (TRV_WHS_LIVE_SECRETS, repeated
 * there), a send job per pending delivery and the published mark, all in
 * one transaction; a run after a crash adds nothing. */
static const trv_stmt publish_stmt = {"trv_event_publish",
    "SELECT webhook_publish(%s, %s, %s::int) AS queued"};

void trv_event_publish_run(trv_env *env, apr_pool_t *p, const trv_job *job,
                           trv_job_result *res)
{
    const char *event_id = trv_json_str(job->payload, "event_id");
    trv_dbc *c;
    trv_rows *rows;
    int queued;

    if (!event_id) {
        res->outcome = TRV_JOB_DEAD;
        res->error = "payload has no event_id";
        return;
    }
    if (!trv_job_db_open(env, p, &c, res)) {
        return;
    }
    if (trv_db_select(c, p, &publish_stmt, &rows,
                      TRV_DB_ARGS(event_id, TRV_WEBHOOK_SEND_JOB,
                                  apr_itoa(p, TRV_WEBHOOK_SEND_MAX_RUNS))) != APR_SUCCESS) {
        res->outcome = TRV_JOB_RETRY;
        res->error = apr_pstrdup(p, c->error ? c->error : "database failure");
        trv_db_close(env->db, c);
        return;
    }
    trv_db_close(env->db, c);
    queued = trv_rows_int(rows, 0, "queued", 0);
    if (queued < 0) {
        res->outcome = TRV_JOB_DEAD;
        res->error = apr_psprintf(p, "no event %s", event_id);
        return;
    }
    if (queued > 0) {
        trv_env_wake(env);
    }
}
