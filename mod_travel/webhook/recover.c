#include "recover.h"
#include "retention.h"
#include "send.h"
#include "store.h"
#include "subscription_status.h"
#include "core/clock.h"
#include "core/ids.h"
#include "core/json.h"
#include "core/validate.h"

#include <apr_strings.h>
#include <string.h>

/* The log's order is (created_at, id): events written in one transaction
 * share created_at and are ordered by id. */
static const trv_stmt known_stmt = {"trv_whe_event_known",
    "SELECT 1 AS x FROM events WHERE id = %s AND org_id = %s AND family = %s"};

static const trv_stmt page_stmt = {"trv_whe_events_page",
    "SELECT coalesce(json_agg(json_build_object('id', p.id, 'type', p.type, 'created_at', "
    "trv_ts(p.created_at), 'data', p.data) ORDER BY p.created_at, p.id), '[]')::text AS data, "
    "count(*) AS n, (array_agg(p.id ORDER BY p.created_at DESC, p.id DESC))[1] AS last "
    "FROM (SELECT e.id, e.type, e.created_at, e.data FROM events e "
    "WHERE e.org_id = %s AND e.family = %s "
    "AND (%s::text IS NULL OR (e.created_at, e.id) > "
    "(SELECT a.created_at, a.id FROM events a WHERE a.id = %s::text)) "
    "AND (%s::timestamptz IS NULL OR e.created_at >= %s::timestamptz) "
    "ORDER BY e.created_at, e.id LIMIT %s::int) p"};

static const trv_stmt sub_locked_stmt = {"trv_whe_sub_locked",
    "SELECT s.status FROM webhook_subscriptions s WHERE s.id = %s AND s.org_id = %s "
    "AND s.family = %s AND s.deleted_at IS NULL FOR UPDATE"};

/* Every FAILED delivery the filter picks becomes a new send, as a replay
 * makes one (the subscription's URL and live secrets now, attempts from
 * the first), numbered in the log's order after the subscription's last
 * recovered one (recover_seq, sql/180). Only the first gets a send job,
 * and only when no earlier recovery is still going out; each later one is
 * queued by the trigger of sql/180 when the one before it has ended, so
 * the receiver gets them one at a time in the order they happened. The
 * parameters: the subscription, the filter's, the subscription again, the
 * job's kind and runs. */
#define RECOVER_SQL(filter) \
    "WITH w AS (SELECT d.id, row_number() OVER (ORDER BY e.created_at, e.id) AS rn " \
    "FROM webhook_deliveries d JOIN events e ON e.id = d.event_id " \
    "WHERE d.subscription_id = %s AND d.status = 'FAILED' AND " filter "), " \
    "b AS (SELECT coalesce(max(x.recover_seq), 0) AS base, bool_or(x.status IN " \
    "('PENDING', 'PUBLISHED')) AS busy FROM webhook_deliveries x " \
    "WHERE x.subscription_id = %s AND x.recover_seq IS NOT NULL), " \
    "d AS (UPDATE webhook_deliveries d SET status = 'PENDING', " \
    "replay_count = d.replay_count + 1, failure_reason = NULL, url = s.url, " \
    "secrets_enc = " TRV_WHS_LIVE_SECRETS ", attempt_count = 0, queued_at = trv_now(), " \
    "published_at = NULL, delivered_at = NULL, failed_at = NULL, updated_at = trv_now(), " \
    "recover_seq = b.base + w.rn FROM w, b, webhook_subscriptions s " \
    "WHERE d.id = w.id AND s.id = d.subscription_id " \
    "RETURNING d.id, d.replay_count, w.rn, coalesce(b.busy, false) AS busy), " \
    "j AS (INSERT INTO jobs (kind, payload, available_at, max_attempts) " \
    "SELECT %s, jsonb_build_object('delivery_id', d.id, 'replay', d.replay_count, " \
    "'attempt', 1), clock_timestamp(), %s::int FROM d WHERE d.rn = 1 AND NOT d.busy) " \
    "SELECT count(*) AS n FROM d"

/* POST .../recover: the events written in [since, until). */
static const trv_stmt recover_stmt = {"trv_whe_recover",
    RECOVER_SQL("e.created_at >= %s::timestamptz "
                "AND (%s::timestamptz IS NULL OR e.created_at < %s::timestamptz)")};

/* Re-enabling a DISABLED subscription: what it missed while disabled, and
 * what failed for good since it began failing (failing_since, still set). */
static const trv_stmt resume_stmt = {"trv_whe_resume",
    RECOVER_SQL("(d.failure_reason = 'subscription_disabled' "
                "OR (d.failure_reason = 'retries_exhausted' AND d.failed_at >= "
                "(SELECT failing_since FROM webhook_subscriptions WHERE id = d.subscription_id)))")};

apr_status_t trv_webhook_resume(trv_dbc *c, apr_pool_t *p, const char *sub, long *n)
{
    trv_rows *r;
    if (trv_db_select(c, p, &resume_stmt, &r,
                      TRV_DB_ARGS(sub, sub, TRV_WEBHOOK_SEND_JOB,
                                  apr_itoa(p, TRV_WEBHOOK_SEND_MAX_RUNS))) != APR_SUCCESS) {
        return APR_EGENERAL;
    }
    *n = trv_rows_int(r, 0, "n", 0);
    return APR_SUCCESS;
}

const char *trv_webhook_family(const trv_req *req)
{
    const char *start = req->path + 4, *end = strchr(start, '/');
    return end ? apr_pstrndup(req->pool, start, (apr_size_t)(end - start)) : start;
}

void trv_webhook_events(trv_req *req, trv_resp *resp)
{
    static const char *const known[] = {"after", "since", "limit", NULL};
    trv_errs *errs = trv_errs_new(req->pool);
    const char *after, *since = NULL, *family = trv_webhook_family(req);
    apr_time_t t;
    long limit;
    trv_dbc *c;
    trv_rows *r;
    json_t *meta;

    trv_query_known(req->query, known, errs);
    after = trv_query_str(req->query, "after", 1, 128, errs);
    if (after && !trv_id_valid(after, "evt")) {
        trv_errs_add(errs, "after", "must be an event id (evt_...)");
    }
    if (trv_query_instant(req->query, "since", 0, &t, errs)) {
        since = trv_time_format(req->pool, t);
    }
    limit = trv_query_int(req->query, "limit", 50, 1, 200, errs);
    if (trv_errs_any(errs)) {
        trv_fail_invalid(req, resp, errs);
        return;
    }
    if (!trv_api_db_open(req, resp, &c, 2101, "reading the event log")) {
        return;
    }
    if (after) {
        if (trv_db_select(c, req->pool, &known_stmt, &r,
                          TRV_DB_ARGS(after, req->org_id, family)) != APR_SUCCESS) {
            goto failed;
        }
        if (!r->n) {
            trv_db_close(req->env->db, c);
            trv_fail(req, resp, 404, "not_found", "No event %s in this organization's %s "
                     "event log (events are kept for %" APR_INT64_T_FMT " s, "
                     "TravelWebhookRetention)", after, family,
                     (apr_int64_t)apr_time_sec(req->env->cfg->webhook_retention));
            return;
        }
    }
    if (trv_db_select(c, req->pool, &page_stmt, &r,
                      TRV_DB_ARGS(req->org_id, family, after, after, since, since,
                                  apr_ltoa(req->pool, limit))) != APR_SUCCESS) {
        goto failed;
    }
    trv_db_close(req->env->db, c);
    /* A full page may have a next one: it starts after its last event. */
    meta = json_pack("{s:{s:I,s:o}}", "pagination", "limit", (json_int_t)limit, "next_after",
                     trv_rows_int(r, 0, "n", 0) == limit
                         ? json_string(trv_rows_get(r, 0, "last")) : json_null());
    trv_ok_text(req, resp, 200, trv_rows_get(r, 0, "data"), meta);
    return;
failed:
    trv_fail_db(req, resp, c, 2102, "reading the event log");
    trv_db_close(req->env->db, c);
}

/* A JSON timestamp field (RFC 3339 with a zone), as the database takes it;
 * NULL when absent or wrong (then in errs when wrong, or required). */
static const char *body_instant(trv_req *req, const char *name, int required,
                                apr_time_t *t, trv_errs *errs)
{
    const json_t *v = json_object_get(req->json, name);
    if (!v || json_is_null(v)) {
        if (required) {
            trv_errs_add(errs, name, "is required: an ISO 8601 timestamp with a zone, e.g. "
                         "2026-11-22T10:00:00.000Z");
        }
        return NULL;
    }
    if (!json_is_string(v) || trv_time_parse(json_string_value(v), t) != APR_SUCCESS) {
        trv_errs_add(errs, name, "must be an ISO 8601 timestamp with a zone, e.g. "
                     "2026-11-22T10:00:00.000Z");
        return NULL;
    }
    return trv_time_format(req->pool, *t);
}

void trv_webhook_recover(trv_req *req, trv_resp *resp)
{
    static const char *const known[] = {"since", "until", NULL};
    trv_errs *errs = trv_errs_new(req->pool);
    const char *id = apr_table_get(req->params, "id"), *since, *until;
    apr_time_t ts = 0, tu = 0;
    trv_dbc *c;
    trv_rows *r;
    long n;

    if (!req->json) {
        trv_errs_add(errs, "since", "is required: {\"since\": \"2026-11-22T10:00:00Z\"}");
        trv_fail_invalid(req, resp, errs);
        return;
    }
    trv_json_known(req->json, NULL, known, errs);
    since = body_instant(req, "since", 1, &ts, errs);
    until = body_instant(req, "until", 0, &tu, errs);
    if (since && until && tu <= ts) {
        trv_errs_add(errs, "until", "must be after since");
    }
    /* Outside retention nothing is left to send: saying so beats a silent
     * "events: 0" for a window the log no longer holds. */
    if (since && ts < trv_webhook_retention_horizon(req->env)) {
        trv_errs_add(errs, "since", "is before the retention period: events and deliveries "
                     "are kept for %" APR_INT64_T_FMT " s (TravelWebhookRetention), so since "
                     "must be at or after %s", (apr_int64_t)apr_time_sec(
                         req->env->cfg->webhook_retention),
                     trv_time_format(req->pool, trv_webhook_retention_horizon(req->env)));
    }
    if (trv_errs_any(errs)) {
        trv_fail_invalid(req, resp, errs);
        return;
    }
    if (!trv_api_db_open(req, resp, &c, 2103, "recovering webhook deliveries")) {
        return;
    }
    /* The subscription row is locked so a concurrent pause is before or after. */
    if (trv_db_begin(c, req->pool) != APR_SUCCESS
        || trv_db_select(c, req->pool, &sub_locked_stmt, &r,
                         TRV_DB_ARGS(id, req->org_id, trv_webhook_family(req)))
               != APR_SUCCESS) {
        goto failed;
    }
    if (!r->n) {
        trv_db_close(req->env->db, c);
        trv_fail(req, resp, 404, "not_found", "No webhook subscription %s", id);
        return;
    }
    if (trv_transit_from_text(&trv_subscription_status_table, trv_rows_get(r, 0, "status"))
        != TRV_SUBSCRIPTION_ACTIVE) {
        trv_db_close(req->env->db, c);
        trv_fail(req, resp, 409, "subscription_paused",
                 "The subscription is %s; make it ACTIVE before recovering",
                 trv_rows_get(r, 0, "status"));
        return;
    }
    if (trv_db_select(c, req->pool, &recover_stmt, &r,
                      TRV_DB_ARGS(id, since, until, until, id, TRV_WEBHOOK_SEND_JOB,
                                  apr_itoa(req->pool, TRV_WEBHOOK_SEND_MAX_RUNS)))
            != APR_SUCCESS
        || trv_db_commit(c) != APR_SUCCESS) {
        goto failed;
    }
    trv_db_close(req->env->db, c);
    n = trv_rows_int(r, 0, "n", 0);
    if (n > 0) {
        trv_env_wake(req->env);
    }
    trv_log_msg(&req->log, TRV_LOG_INFO, req->request_id,
                TRVLOGNO(2104) "webhook subscription %s: %ld events to send again", id, n);
    trv_ok(req, resp, 202, json_pack("{s:I}", "events", (json_int_t)n), NULL);
    return;
failed:
    trv_fail_db(req, resp, c, 2105, "recovering webhook deliveries");
    trv_db_close(req->env->db, c);
}
