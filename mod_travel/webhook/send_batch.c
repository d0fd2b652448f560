#include "send_batch.h"
#include "send.h"
#include "core/json.h"

#include <apr_strings.h>
#include <string.h>

/* The claim. h0 keeps the worker's own job (its lease pushed past the
 * receiver's timeout, as trv_job_hold does); x takes more due sends, oldest
 * first, exactly as the queue's claim picks one (FOR UPDATE SKIP LOCKED:
 * no two senders take one job; trv_webhook_due_sends, sql/142); h claims
 * them like the queue's claim (attempts + 1, locked_by, the lease); d
 * takes each job's delivery only while it is still on that send and that
 * attempt is the next one. The body is built by PostgreSQL so the event's
 * numbers go out exactly as stored. */
static const trv_stmt claim_stmt = {"trv_dlv_batch_claim",
    "WITH h0 AS (UPDATE jobs SET available_at = clock_timestamp() + %s::bigint * "
    "interval '1 microsecond' WHERE id = %s::bigint AND locked_by = %s "
    "AND attempts = %s::int RETURNING id, attempts, payload), "
    "x AS (SELECT t.job_id AS id, t.due AS available_at "
    "FROM trv_webhook_due_sends(%s::int, %s::bigint) t WHERE EXISTS (SELECT 1 FROM h0)), "
    "h AS (UPDATE jobs j SET status = 'running', attempts = j.attempts + 1, locked_by = %s, "
    "available_at = clock_timestamp() + %s::bigint * interval '1 microsecond', "
    "updated_at = clock_timestamp() FROM x WHERE j.id = x.id "
    "RETURNING j.id, j.attempts, j.payload, x.available_at AS due), "
    "b AS (SELECT id, attempts, payload, NULL::timestamptz AS due, 0 AS pos FROM h0 "
    "UNION ALL SELECT id, attempts, payload, due, 1 FROM h), "
    "d AS (UPDATE webhook_deliveries d SET status = 'PUBLISHED', "
    "published_at = coalesce(d.published_at, trv_now()), updated_at = trv_now() FROM b "
    "WHERE d.id = b.payload->>'delivery_id' AND d.replay_count = (b.payload->>'replay')::int "
    "AND d.attempt_count = (b.payload->>'attempt')::int - 1 "
    "AND d.status IN ('PENDING', 'PUBLISHED') RETURNING b.id AS job_id, d.id, "
    "d.subscription_id, d.url, array_to_json(d.secrets_enc)::text AS secrets, d.event_id) "
    "SELECT b.id AS job_id, b.attempts AS job_attempt, b.payload::text AS payload, "
    "d.id AS delivery_id, d.subscription_id, d.url, d.secrets, e.id AS event_id, e.family, "
    "jsonb_build_object('id', e.id, 'type', e.type, 'created_at', trv_ts(e.created_at), "
    "'data', e.data)::text AS body, s.max_per_second, "
    "(extract(epoch FROM s.failing_since) * 1000000)::bigint AS failing_us "
    "FROM b LEFT JOIN d ON d.job_id = b.id LEFT JOIN events e ON e.id = d.event_id "
    "LEFT JOIN webhook_subscriptions s ON s.id = d.subscription_id "
    "ORDER BY b.pos, b.due, b.id"};

/* The record, one row of r per item. wait (a throttled request) is a
 * release after next_us. o: each sent attempt's outcome
 * (DELIVERED, FAILED when retries are exhausted, or PUBLISHED: retrying),
 * only while the delivery is still on that send and attempt; a: its
 * attempt row; j: for PUBLISHED the next attempt's job; g: the end of the
 * sent and stale jobs (what the queue's "done" would do); l: the jobs not
 * sent go back to the queue (what its "release" and "retry" do). */
static const trv_stmt record_stmt = {"trv_dlv_batch_record",
    "WITH r AS (SELECT * FROM jsonb_to_recordset(%s::jsonb) AS r(job_id bigint, "
    "job_attempt int, action text, delivery_id text, replay int, attempt int, status text, "
    "response_status int, response_body text, error text, duration_ms int, next_us bigint)), "
    "o AS (UPDATE webhook_deliveries d SET attempt_count = r.attempt, status = r.status, "
    "delivered_at = CASE WHEN r.status = 'DELIVERED' THEN trv_now() END, "
    "failed_at = CASE WHEN r.status = 'FAILED' THEN trv_now() END, "
    "failure_reason = CASE WHEN r.status = 'FAILED' THEN 'retries_exhausted' END, "
    "updated_at = trv_now() FROM r WHERE r.action = 'sent' AND d.id = r.delivery_id "
    "AND d.replay_count = r.replay AND d.attempt_count = r.attempt - 1 "
    "AND d.status = 'PUBLISHED' RETURNING d.id, d.status, d.replay_count, d.attempt_count, "
    "r.response_status, r.response_body, r.error, r.duration_ms, r.next_us), "
    "a AS (INSERT INTO webhook_attempts (delivery_id, replay, attempt_number, "
    "response_status, response_body, error, duration_ms, sender) "
    "SELECT o.id, o.replay_count, o.attempt_count, o.response_status, o.response_body, "
    "o.error, o.duration_ms, %s FROM o), "
    "j AS (INSERT INTO jobs (kind, payload, available_at, max_attempts) "
    "SELECT %s, jsonb_build_object('delivery_id', o.id, 'replay', o.replay_count, "
    "'attempt', o.attempt_count + 1), "
    "clock_timestamp() + o.next_us * interval '1 microsecond', %s::int "
    "FROM o WHERE o.status = 'PUBLISHED'), "
    "g AS (DELETE FROM jobs jb USING r WHERE r.action IN ('sent', 'done') "
    "AND jb.id = r.job_id AND jb.locked_by = %s AND jb.attempts = r.job_attempt), "
    "l AS (UPDATE jobs jb SET status = CASE WHEN r.action = 'retry' "
    "AND jb.attempts >= jb.max_attempts THEN 'dead' ELSE 'queued' END, "
    "attempts = CASE WHEN r.action IN ('release', 'wait') THEN jb.attempts - 1 "
    "ELSE jb.attempts END, "
    "available_at = clock_timestamp() + coalesce(r.next_us, 0) * interval '1 microsecond', "
    "last_error = CASE WHEN r.action = 'retry' THEN r.error ELSE jb.last_error END, "
    "locked_by = NULL, updated_at = clock_timestamp() FROM r "
    "WHERE r.action IN ('release', 'retry', 'wait') AND jb.id = r.job_id AND jb.locked_by = %s "
    "AND jb.attempts = r.job_attempt) "
    "SELECT o.id FROM o"};

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
                                  apr_itoa(p, TRV_WEBHOOK_BATCH - 1), job->id, job->worker,
                                  h))
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
            json_object_set_new(o, "status", json_string(trv_transit_text(&trv_delivery_status_table, it->status)));
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
                                  apr_itoa(p, TRV_WEBHOOK_SEND_MAX_RUNS), worker, worker))
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
