#include "publish.h"
#include "send.h"
#include "store.h"
#include "core/ids.h"
#include "core/json.h"

#include <apr_strings.h>
#include <string.h>

static const trv_stmt event_stmt = {"trv_event_for_publish",
    "SELECT id, org_id, family, type, published_at IS NOT NULL AS published "
    "FROM events WHERE id = %s FOR UPDATE"};

/* Every live subscription of the event's organization and family that asks
 * for its type; locked so a concurrent pause is either before or after. */
static const trv_stmt matching_stmt = {"trv_event_matching_subscriptions",
    "SELECT s.id, s.status FROM webhook_subscriptions s "
    "WHERE s.org_id = %s AND s.family = %s AND s.deleted_at IS NULL "
    "AND %s = ANY (s.event_types) ORDER BY s.created_at, s.id FOR SHARE"};

/* One delivery per (subscription, event): a run of this job after a crash
 * adds nothing. The request is fixed now: URL and live secrets. A paused
 * subscription's delivery fails at once and is never sent later. */
static const trv_stmt insert_delivery = {"trv_event_insert_delivery",
    "INSERT INTO webhook_deliveries (id, subscription_id, org_id, event_id, status, "
    "failure_reason, failed_at, url, secrets_enc) "
    "SELECT %s, s.id, s.org_id, %s, "
    "CASE WHEN s.status = 'ACTIVE' THEN 'PENDING' ELSE 'FAILED' END, "
    "CASE WHEN s.status = 'ACTIVE' THEN NULL ELSE 'subscription_paused' END, "
    "CASE WHEN s.status = 'ACTIVE' THEN NULL ELSE trv_now() END, "
    "s.url, " TRV_WHS_LIVE_SECRETS " FROM webhook_subscriptions s WHERE s.id = %s "
    "ON CONFLICT (subscription_id, event_id) DO NOTHING RETURNING id, status"};

static const trv_stmt mark_published = {"trv_event_mark_published",
    "UPDATE events SET published_at = trv_now() WHERE id = %s"};

void trv_event_publish_run(trv_env *env, apr_pool_t *p, const trv_job *job,
                           trv_job_result *res)
{
    const char *event_id = trv_json_str(job->payload, "event_id");
    trv_dbc *c;
    trv_rows *ev, *subs, *d;
    int i, queued = 0;

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
    /* Fan-out, its send jobs and the published mark commit together. */
    if (trv_db_begin(c, p) != APR_SUCCESS
        || trv_db_select(c, p, &event_stmt, &ev, TRV_DB_ARGS(event_id)) != APR_SUCCESS) {
        goto db_failed;
    }
    if (ev->n == 0) {
        trv_db_close(env->db, c);
        res->outcome = TRV_JOB_DEAD;
        res->error = apr_psprintf(p, "no event %s", event_id);
        return;
    }
    if (trv_rows_bool(ev, 0, "published")) {
        trv_db_close(env->db, c); /* fanned out by an earlier run */
        return;
    }
    if (trv_db_select(c, p, &matching_stmt, &subs,
                      TRV_DB_ARGS(trv_rows_get(ev, 0, "org_id"),
                                  trv_rows_get(ev, 0, "family"),
                                  trv_rows_get(ev, 0, "type"))) != APR_SUCCESS) {
        goto db_failed;
    }
    for (i = 0; i < subs->n; i++) {
        const char *dlv = trv_id_new(p, "dlv");
        if (trv_db_select(c, p, &insert_delivery, &d,
                          TRV_DB_ARGS(dlv, event_id, trv_rows_get(subs, i, "id")))
            != APR_SUCCESS) {
            goto db_failed;
        }
        if (d->n == 1 && strcmp(trv_rows_get(d, 0, "status"), "PENDING") == 0) {
            if (trv_webhook_send_enqueue(c, p, dlv, 0, 1, 0) != APR_SUCCESS) {
                goto db_failed;
            }
            queued++;
        }
    }
    if (trv_db_exec(c, p, &mark_published, NULL, TRV_DB_ARGS(event_id)) != APR_SUCCESS
        || trv_db_commit(c) != APR_SUCCESS) {
        goto db_failed;
    }
    trv_db_close(env->db, c);
    if (queued) {
        trv_env_wake(env);
    }
    return;

db_failed:
    res->outcome = TRV_JOB_RETRY;
    res->error = apr_pstrdup(p, c->error ? c->error : "database failure");
    trv_db_close(env->db, c);
}
