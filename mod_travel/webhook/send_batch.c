#include "send_batch.h"
#include "send.h"
#include "core/json.h"

#include <apr_strings.h>
#include <string.h>

/* The claim of a batch and the record of its outcomes are functions of
 * the database (sql/310: what each part of them does, and why their plans
 * are kept to index lookups whatever the tables hold). The claim takes the
 * job the worker claimed and up to lim more due sends, oldest first, FOR
 * UPDATE SKIP LOCKED as the queue's claim (no two senders take one job),
 * each held for hold_us, with their deliveries and bodies. */
static const trv_stmt claim_stmt = {"trv_dlv_batch_claim",
    "SELECT * FROM trv_webhook_batch_claim(%s::bigint, %s::bigint, %s, %s::int, %s::int)"};

/* The record: every item's outcome in one statement (atomic); returns the
 * deliveries whose outcome it wrote. */
static const trv_stmt record_stmt = {"trv_dlv_batch_record",
    "SELECT delivery_id AS id FROM trv_webhook_batch_record(%s::jsonb, %s, %s, %s::int)"};

static const char *i64(apr_pool_t *p, apr_int64_t v)
{
    return apr_psprintf(p, "%" APR_INT64_T_FMT, v);
}

int trv_wh_batch_claim(trv_env *env, apr_pool_t *p, const trv_job *job,
                       apr_interval_time_t hold, apr_array_header_t **items, const char **err)
{
    trv_dbc *c;
    trv_rows *rows;
    const char *h = i64(p, (apr_int64_t)hold);
    int i;

    *items = apr_array_make(p, TRV_WEBHOOK_BATCH, sizeof(trv_wh_item));
    if (trv_db_open(env->db, p, &c) != APR_SUCCESS) {
        *err = "database unavailable";
        return -1;
    }
    if (trv_db_select(c, p, &claim_stmt, &rows,
                      TRV_DB_ARGS(h, job->id, job->worker, apr_itoa(p, job->attempt),
                                  apr_itoa(p, TRV_WEBHOOK_BATCH - 1)))
        != APR_SUCCESS) {
        *err = apr_pstrdup(p, c->error ? c->error : "failed");
        trv_db_close(env->db, c);
        return -1;
    }
    trv_db_close(env->db, c);
    for (i = 0; i < rows->n; i++) {
        trv_wh_item *it = apr_array_push(*items);
        const char *payload = trv_rows_get(rows, i, "payload");
        json_t *pl = payload ? trv_json_parse(p, payload, strlen(payload), NULL) : NULL;
        memset(it, 0, sizeof(*it));
        it->job_id = trv_rows_get(rows, i, "job_id");
        it->job_attempt = trv_rows_int(rows, i, "job_attempt", 0);
        it->dlv = pl ? trv_json_str(pl, "delivery_id") : NULL;
        it->replay = pl ? (int)json_integer_value(json_object_get(pl, "replay")) : 0;
        it->attempt = pl ? (int)json_integer_value(json_object_get(pl, "attempt")) : 0;
        it->claimed = trv_rows_get(rows, i, "delivery_id") != NULL
                      && trv_rows_get(rows, i, "body") != NULL;
        it->subscription_id = trv_rows_get(rows, i, "subscription_id");
        it->url = trv_rows_get(rows, i, "url");
        it->event_id = trv_rows_get(rows, i, "event_id");
        it->family = trv_rows_get(rows, i, "family");
        it->body = trv_rows_get(rows, i, "body");
        it->secrets = trv_rows_get(rows, i, "secrets");
        it->max_per_second = trv_rows_int(rows, i, "max_per_second", 0);
        it->failing_since = trv_rows_get(rows, i, "failing_us")
                                ? (apr_time_t)apr_atoi64(trv_rows_get(rows, i, "failing_us"))
                                : 0;
        it->action = TRV_WH_DONE;
    }
    return rows->n;
}

static const char *action_name(trv_wh_action a)
{
    switch (a) {
    case TRV_WH_SENT: return "sent";
    case TRV_WH_DONE: return "done";
    case TRV_WH_RELEASE: return "release";
    case TRV_WH_RETRY: return "retry";
    case TRV_WH_WAIT: return "wait";
    }
    return "done";
}

apr_status_t trv_wh_batch_record(trv_env *env, apr_pool_t *p, const char *worker,
                                 apr_array_header_t *items, const char **err)
{
    trv_dbc *c;
    trv_rows *rows;
    json_t *arr = trv_json_bind(p, json_array());
    int i, k;

    for (i = 0; i < items->nelts; i++) {
        const trv_wh_item *it = &APR_ARRAY_IDX(items, i, trv_wh_item);
        json_t *o = json_pack("{s:s,s:i,s:s}", "job_id", it->job_id, "job_attempt",
                              it->job_attempt, "action", action_name(it->action));
        if (it->action == TRV_WH_SENT) {
            json_object_set_new(o, "delivery_id", json_string(it->dlv));
            json_object_set_new(o, "replay", json_integer(it->replay));
            json_object_set_new(o, "attempt", json_integer(it->attempt));
            json_object_set_new(o, "status", json_string(trv_delivery_status_text(it->status)));
            json_object_set_new(o, "response_status", json_integer(it->response_status));
            json_object_set_new(o, "response_body",
                                json_string(it->response_body ? it->response_body : ""));
            json_object_set_new(o, "error", it->error ? json_string(it->error) : json_null());
            json_object_set_new(o, "duration_ms", json_integer(it->duration_ms));
        }
        if (it->action == TRV_WH_RETRY) {
            json_object_set_new(o, "error", json_string(it->error ? it->error : "failed"));
        }
        json_object_set_new(o, "next_us", json_integer((json_int_t)it->next));
        json_array_append_new(arr, o);
    }
    if (trv_db_open(env->db, p, &c) != APR_SUCCESS) {
        *err = "database unavailable";
        return APR_EGENERAL;
    }
    if (trv_db_select(c, p, &record_stmt, &rows,
                      TRV_DB_ARGS(trv_json_dump(p, arr), worker, TRV_WEBHOOK_SEND_JOB,
                                  apr_itoa(p, TRV_WEBHOOK_SEND_MAX_RUNS)))
        != APR_SUCCESS) {
        *err = apr_pstrdup(p, c->error ? c->error : "failed");
        trv_db_close(env->db, c);
        return APR_EGENERAL;
    }
    trv_db_close(env->db, c);
    for (k = 0; k < rows->n; k++) {
        const char *id = trv_rows_get(rows, k, "id");
        for (i = 0; id && i < items->nelts; i++) {
            trv_wh_item *it = &APR_ARRAY_IDX(items, i, trv_wh_item);
            if (it->action == TRV_WH_SENT && it->dlv && strcmp(it->dlv, id) == 0) {
                it->recorded = 1;
            }
        }
    }
    return APR_SUCCESS;
}
