#include "send.h"
#include "schedule.h"
#include "secret.h"
#include "signature.h"
#include "target.h"
#include "core/json.h"

#include <apr_strings.h>
#include <string.h>

/* Takes the attempt: only while the job is still this sender's (its lease
 * pushed past the receiver's timeout, as trv_job_hold does, in the same
 * statement: one round trip), the delivery is still on this send and this
 * attempt is the next one. Returns what the request needs; the body is
 * built by PostgreSQL so the event's numbers go out exactly as stored. */
static const trv_stmt claim_stmt = {"trv_dlv_send_claim",
    "WITH h AS (UPDATE jobs SET available_at = clock_timestamp() + %s::bigint * "
    "interval '1 microsecond' WHERE id = %s::bigint AND locked_by = %s "
    "AND attempts = %s::int RETURNING id), "
    "d AS (UPDATE webhook_deliveries SET status = 'PUBLISHED', "
    "published_at = coalesce(published_at, trv_now()), updated_at = trv_now() "
    "WHERE id = %s AND replay_count = %s::int AND attempt_count = %s::int - 1 "
    "AND status IN ('PENDING', 'PUBLISHED') AND EXISTS (SELECT 1 FROM h) "
    "RETURNING subscription_id, url, array_to_json(secrets_enc)::text AS secrets, event_id) "
    "SELECT d.subscription_id, d.url, d.secrets, e.id AS event_id, e.family, "
    "jsonb_build_object('id', e.id, 'type', e.type, 'created_at', trv_ts(e.created_at), "
    "'data', e.data)::text AS body FROM d JOIN events e ON e.id = d.event_id"};

/* Records an attempt and its consequence in one statement (atomic, one
 * round trip): the outcome (DELIVERED, FAILED when retries are exhausted,
 * or PUBLISHED: retrying), the attempt row, for PUBLISHED the next
 * attempt's send job, due in %s microseconds, and the end of this send job
 * (what the queue's "done" would do, one round trip later). Nothing is
 * written when the attempt was recorded already or the send replaced: the
 * count says 0. */
static const trv_stmt record_stmt = {"trv_dlv_send_record",
    "WITH o AS (UPDATE webhook_deliveries SET attempt_count = %s::int, status = %s, "
    "delivered_at = CASE WHEN %s = 'DELIVERED' THEN trv_now() END, "
    "failed_at = CASE WHEN %s = 'FAILED' THEN trv_now() END, "
    "failure_reason = CASE WHEN %s = 'FAILED' THEN 'retries_exhausted' END, "
    "updated_at = trv_now() "
    "WHERE id = %s AND replay_count = %s::int AND attempt_count = %s::int - 1 "
    "AND status = 'PUBLISHED' RETURNING id, status, replay_count, attempt_count), "
    "a AS (INSERT INTO webhook_attempts (delivery_id, replay, attempt_number, "
    "response_status, response_body, error, duration_ms, sender) "
    "SELECT o.id, o.replay_count, o.attempt_count, %s::int, %s, %s, %s::int, %s FROM o), "
    "j AS (INSERT INTO jobs (kind, payload, available_at, max_attempts) "
    "SELECT %s, jsonb_build_object('delivery_id', o.id, 'replay', o.replay_count, "
    "'attempt', o.attempt_count + 1), "
    "clock_timestamp() + %s::bigint * interval '1 microsecond', %s::int "
    "FROM o WHERE o.status = 'PUBLISHED'), "
    "g AS (DELETE FROM jobs WHERE id = %s::bigint AND locked_by = %s AND attempts = %s::int "
    "AND EXISTS (SELECT 1 FROM o)) "
    "SELECT count(*) AS n FROM o"};

const trv_job_spec trv_webhook_send_job = {TRV_WEBHOOK_SEND_JOB, TRV_WEBHOOK_SEND_MAX_RUNS};

apr_status_t trv_webhook_send_enqueue(trv_dbc *c, apr_pool_t *p, const char *delivery_id,
                                      int replay, int attempt,
                                      apr_interval_time_t delay)
{
    json_t *payload = trv_json_bind(p, json_pack("{s:s,s:i,s:i}", "delivery_id",
                                                 delivery_id, "replay", replay,
                                                 "attempt", attempt));
    return trv_job_enqueue_spec(c, p, &trv_webhook_send_job, payload, delay, NULL, NULL);
}

/* What a receiver answered, as text PostgreSQL takes: valid UTF-8 without
 * NUL (anything else becomes '?'), cut at TRV_WEBHOOK_KEEP_BODY bytes. */
const char *trv_webhook_clean_text(apr_pool_t *p, const char *buf, apr_size_t len)
{
    char *out;
    apr_size_t i = 0, o = 0;
    if (!buf) {
        return "";
    }
    if (len > TRV_WEBHOOK_KEEP_BODY) {
        len = TRV_WEBHOOK_KEEP_BODY;
    }
    out = apr_palloc(p, len + 1);
    while (i < len) {
        unsigned char ch = (unsigned char)buf[i];
        apr_size_t n = ch < 0x80 ? 1 : (ch & 0xE0) == 0xC0 ? 2 : (ch & 0xF0) == 0xE0 ? 3
                     : (ch & 0xF8) == 0xF0 ? 4 : 0, k;
        int ok = n > 0 && i + n <= len && ch != 0 && ch != 0xC0 && ch != 0xC1 && ch < 0xF5;
        for (k = 1; ok && k < n; k++) {
            ok = ((unsigned char)buf[i + k] & 0xC0) == 0x80;
        }
        if (ok && n == 3) {
            unsigned char c1 = (unsigned char)buf[i + 1];
            ok = !(ch == 0xE0 && c1 < 0xA0) && !(ch == 0xED && c1 >= 0xA0);
        }
        if (ok && n == 4) {
            unsigned char c1 = (unsigned char)buf[i + 1];
            ok = !(ch == 0xF0 && c1 < 0x90) && !(ch == 0xF4 && c1 >= 0x90);
        }
        if (!ok) {
            out[o++] = '?';
            i++;
            continue;
        }
        memcpy(out + o, buf + i, n);
        o += n;
        i += n;
    }
    out[o] = '\0';
    return out;
}

typedef struct claimed {
    const char *subscription_id;
    const char *url;
    const char *event_id;
    const char *body;
    const char *family;
    apr_array_header_t *secrets; /* const char *, opened */
} claimed;

/* 1: claimed; 0: nothing to do (stale job); -1: the database failed. */
static int claim(trv_env *env, apr_pool_t *p, const trv_job *job, const char *dlv,
                 int replay, int attempt, claimed *out, const char **err)
{
    trv_dbc *c;
    trv_rows *rows;
    json_t *sealed;
    size_t i;
    apr_interval_time_t hold;

    if (trv_db_open(env->db, p, &c) != APR_SUCCESS) {
        *err = "database unavailable";
        return -1;
    }
    /* The receiver has TRV_WEBHOOK_TIMEOUT: keep the job ours past it, so
     * no other sender makes the same attempt while this one is waiting. No
     * row when another sender has this attempt now. */
    hold = TRV_WEBHOOK_TIMEOUT + apr_time_from_sec(5);
    if (trv_db_select(c, p, &claim_stmt, &rows,
                      TRV_DB_ARGS(apr_psprintf(p, "%" APR_INT64_T_FMT, (apr_int64_t)hold),
                                  job->id, job->worker, apr_itoa(p, job->attempt), dlv,
                                  apr_itoa(p, replay), apr_itoa(p, attempt)))
        != APR_SUCCESS) {
        *err = apr_pstrdup(p, c->error);
        trv_db_close(env->db, c);
        return -1;
    }
    trv_db_close(env->db, c);
    if (rows->n == 0) {
        return 0;
    }
    out->subscription_id = trv_rows_get(rows, 0, "subscription_id");
    out->url = trv_rows_get(rows, 0, "url");
    out->event_id = trv_rows_get(rows, 0, "event_id");
    out->body = trv_rows_get(rows, 0, "body");
    out->family = trv_rows_get(rows, 0, "family");
    sealed = trv_json_parse(p, trv_rows_get(rows, 0, "secrets"),
                            strlen(trv_rows_get(rows, 0, "secrets")), NULL);
    out->secrets = apr_array_make(p, 2, sizeof(const char *));
    for (i = 0; i < json_array_size(sealed); i++) {
        const char *plain;
        if (!env->cfg->have_secret_key
            || trv_secret_open(p, env->cfg->secret_key, out->subscription_id,
                               json_string_value(json_array_get(sealed, i)), &plain)
                   != APR_SUCCESS) {
            *err = "a signing secret cannot be opened (is TravelSecretKeyFile the key "
                   "it was stored with?)";
            return -2;
        }
        APR_ARRAY_PUSH(out->secrets, const char *) = plain;
    }
    return 1;
}

typedef struct outcome {
    const char *status;        /* DELIVERED, FAILED or PUBLISHED */
    apr_interval_time_t next;  /* PUBLISHED: when the next attempt goes */
} outcome;

/* Records the attempt and its consequence in one transaction. 1: done;
 * 0: the attempt was already recorded or the send replaced (nothing
 * written); -1: the database failed. */
static int record(trv_env *env, apr_pool_t *p, const trv_job *job, const char *dlv,
                  int replay, int attempt, const trv_http_resp *resp, const outcome *o,
                  const char **err)
{
    trv_dbc *c;
    trv_rows *rows;
    const char *att = apr_itoa(p, attempt), *rep = apr_itoa(p, replay);

    if (trv_db_open(env->db, p, &c) != APR_SUCCESS) {
        *err = "database unavailable";
        return -1;
    }
    if (trv_db_select(c, p, &record_stmt, &rows,
                      TRV_DB_ARGS(att, o->status, o->status, o->status, o->status, dlv, rep,
                                  att, apr_itoa(p, resp->status),
                                  trv_webhook_clean_text(p, resp->body, resp->body_len),
                                  resp->status ? NULL : (resp->error ? resp->error
                                                                     : "no response"),
                                  apr_itoa(p, (int)(resp->elapsed / 1000)), job->worker,
                                  TRV_WEBHOOK_SEND_JOB,
                                  apr_psprintf(p, "%" APR_INT64_T_FMT, (apr_int64_t)o->next),
                                  apr_itoa(p, TRV_WEBHOOK_SEND_MAX_RUNS), job->id,
                                  job->worker, apr_itoa(p, job->attempt))) != APR_SUCCESS) {
        *err = apr_pstrdup(p, c->error ? c->error : "failed");
        trv_db_close(env->db, c);
        return -1;
    }
    trv_db_close(env->db, c);
    return trv_rows_int(rows, 0, "n", 0) > 0 ? 1 : 0;
}

void trv_webhook_send_run(trv_env *env, apr_pool_t *p, const trv_job *job,
                          trv_job_result *res)
{
    const char *dlv = trv_json_str(job->payload, "delivery_id");
    int replay = (int)json_integer_value(json_object_get(job->payload, "replay"));
    int attempt = (int)json_integer_value(json_object_get(job->payload, "attempt"));
    const char *err = NULL, *sig, *url_host;
    trv_webhook_connect_rule rule;
    trv_http_req req;
    trv_http_resp resp;
    claimed cl;
    outcome o;
    int rc, port, https = 0, tries;
    apr_time_t now;

    if (!dlv || attempt < 1) {
        res->outcome = TRV_JOB_DEAD;
        res->error = "payload needs delivery_id, replay and attempt";
        return;
    }
    memset(&cl, 0, sizeof(cl));
    rc = claim(env, p, job, dlv, replay, attempt, &cl, &err);
    if (rc == 0) {
        return; /* DONE: recorded already, replayed, or no longer sendable */
    }
    if (rc < 0) {
        if (rc == -2) {
            trv_log_msg(&env->log, TRV_LOG_ERR, NULL,
                        TRVLOGNO(640) "delivery %s: %s", dlv, err);
        }
        res->outcome = TRV_JOB_RETRY;
        res->error = err;
        return;
    }

    now = apr_time_now();
    memset(&req, 0, sizeof(req));
    memset(&rule, 0, sizeof(rule));
    rule.allow = env->cfg->webhook_allow;
    /* The URL was checked when saved; its shape is checked again here and
     * every address it resolves to now at connect time. */
    if (trv_webhook_url_shape(p, cl.url, &url_host, &port, &https) != NULL) {
        memset(&resp, 0, sizeof(resp));
        resp.error = "the URL is not a valid webhook target";
    }
    else {
        rule.https = https;
        req.method = "POST";
        req.url = cl.url;
        req.headers = apr_table_make(p, 6);
        apr_table_setn(req.headers, "Content-Type", "application/json");
        if (strcmp(cl.family, TRV_WEBHOOK_SERVICE_FAMILY) == 0) {
            /* Watcher events: the service document's own scheme, one
             * secret (re-registering rotates at once, no overlap). */
            sig = cl.secrets->nelts
                ? trv_webhook_sign_service(p, APR_ARRAY_IDX(cl.secrets, 0, const char *),
                                           (long long)apr_time_sec(now), cl.body,
                                           strlen(cl.body))
                : NULL;
            apr_table_setn(req.headers, "service-signature", sig ? sig : "");
        }
        else {
            sig = trv_webhook_signature(p, cl.secrets, cl.event_id,
                                        (long long)apr_time_sec(now), cl.body,
                                        strlen(cl.body));
            apr_table_setn(req.headers, "webhook-id", cl.event_id);
            apr_table_setn(req.headers, "webhook-timestamp",
                           apr_psprintf(p, "%" APR_TIME_T_FMT, apr_time_sec(now)));
            apr_table_setn(req.headers, "webhook-signature", sig ? sig : "");
        }
        req.body = cl.body;
        req.body_len = strlen(cl.body);
        req.timeout = TRV_WEBHOOK_TIMEOUT;
        req.connect_timeout = apr_time_from_sec(5);
        req.max_response = TRV_WEBHOOK_KEEP_BODY;
        req.keep_truncated = 1;
        /* Receivers deduplicate by the event id (webhook-id, or the body's
         * id for watcher events): a second copy is already expected, as a
         * retry after a timeout sends one. */
        req.keyed = 1;
        req.allow_address = trv_webhook_allow_address;
        req.allow_baton = &rule;
        trv_http_perform(env->webhook_http ? env->webhook_http : env->http, p, &req,
                         &resp);
        if (resp.aborted) {
            /* Stopping: the attempt is made again by whoever claims it next. */
            res->outcome = TRV_JOB_RELEASE;
            return;
        }
    }

    memset(&o, 0, sizeof(o));
    if (trv_webhook_accepted(resp.status)) {
        o.status = "DELIVERED";
    }
    else if (trv_webhook_next_delay(env->cfg->retry_schedule, attempt, resp.status,
                                    apr_table_get(resp.headers ? resp.headers
                                                               : apr_table_make(p, 1),
                                                  "Retry-After"),
                                    apr_time_now(), &o.next)) {
        o.status = "PUBLISHED";
    }
    else {
        o.status = "FAILED";
    }
    /* PostgreSQL may be restarting: keep the result a little while rather
     * than send the same attempt again. */
    for (tries = 0; tries < 20; tries++) {
        rc = record(env, p, job, dlv, replay, attempt, &resp, &o, &err);
        if (rc >= 0 || TRV_STOPPING(env)) {
            break;
        }
        apr_sleep(apr_time_from_msec(250 * (tries < 8 ? tries + 1 : 8)));
    }
    if (rc < 0) {
        trv_log_msg(&env->log, TRV_LOG_WARNING, NULL,
                    TRVLOGNO(641) "delivery %s attempt %d: recording the result failed "
                    "(the attempt will be made again): %s", dlv, attempt, err);
        res->outcome = TRV_JOB_RETRY;
        res->error = err;
        return;
    }
    if (rc > 0) {
        res->outcome = TRV_JOB_GONE; /* removed by the record statement */
    }
    if (rc > 0 && strcmp(o.status, "FAILED") == 0) {
        trv_log_msg(&env->log, TRV_LOG_NOTICE, NULL,
                    TRVLOGNO(642) "delivery %s failed after %d attempts (last: %d%s%s)",
                    dlv, attempt, resp.status, resp.error ? ", " : "",
                    resp.error ? resp.error : "");
    }
}
