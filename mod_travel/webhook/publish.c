#include "publish.h"
#include "core/json.h"

#include <apr_strings.h>

static const trv_stmt mark_published = {"trv_event_mark_published",
    "UPDATE events SET published_at = COALESCE(published_at, clock_timestamp()) "
    "WHERE id = %s RETURNING id"};

void trv_event_publish_run(trv_env *env, apr_pool_t *p, const trv_job *job,
                           trv_job_result *res)
{
    const char *event_id = trv_json_str(job->payload, "event_id");
    trv_dbc *c;
    trv_rows *rows;

    if (!event_id) {
        res->outcome = TRV_JOB_DEAD;
        res->error = "payload has no event_id";
        return;
    }
    if (trv_db_open(env->db, p, &c) != APR_SUCCESS) {
        res->outcome = TRV_JOB_RETRY;
        res->error = "database unavailable";
        return;
    }
    /* No subscriptions exist yet in this version: publishing is marking. */
    if (trv_db_select(c, p, &mark_published, &rows, TRV_DB_ARGS(event_id)) != APR_SUCCESS) {
        res->outcome = TRV_JOB_RETRY;
        res->error = apr_pstrdup(p, c->error);
    }
    else if (rows->n == 0) {
        res->outcome = TRV_JOB_DEAD;
        res->error = apr_psprintf(p, "no event %s", event_id);
    }
    trv_db_close(env->db, c);
}
