/* The organization's watcher endpoint: POST /v1/watcher/webhooks
 * registers it (201) or replaces it (200), and each time makes a new
 * signing secret, shown in that answer only; the old one stops at once
 * (no overlap, as the service document says). GET answers the
 * registration without the secret, 404 when there is none.
 *
 * The endpoint is a webhook subscription of the family "travel" (one per
 * organization, a unique index), so the webhook engine sends the watcher
 * events: its outbox, sender, retry schedule and SSRF rules. Replacing
 * it points the sends not finished yet (pending or retrying) at the new
 * URL and secret, and registering sends every event of the log that has
 * not been queued for it yet (events written while none was registered). */
#include "watch.h"
#include "webhook/secret.h"
#include "webhook/target.h"
#include "core/crypt.h"
#include "core/ids.h"
#include "core/validate.h"

#include <apr_strings.h>
#include <string.h>

#define COLS "id, url, trv_ts(created_at) AS created_at, trv_ts(updated_at) AS updated_at"

static const trv_stmt find_stmt = {"trv_watcher_find",
    "SELECT " COLS " FROM webhook_subscriptions "
    "WHERE org_id = %s AND family = 'travel' AND deleted_at IS NULL FOR UPDATE"};
static const trv_stmt read_stmt = {"trv_watcher_read",
    "SELECT " COLS " FROM webhook_subscriptions "
    "WHERE org_id = %s AND family = 'travel' AND deleted_at IS NULL"};
static const trv_stmt insert_stmt = {"trv_watcher_insert",
    "INSERT INTO webhook_subscriptions (id, org_id, family, url, event_types, secret_enc) "
    "VALUES (%s, %s, 'travel', %s, string_to_array(%s, ' '), %s) "
    "ON CONFLICT (org_id) WHERE family = 'travel' AND deleted_at IS NULL DO NOTHING "
    "RETURNING " COLS};
static const trv_stmt replace_stmt = {"trv_watcher_replace",
    "UPDATE webhook_subscriptions SET url = %s, secret_enc = %s, previous_secret_enc = NULL, "
    "previous_secret_expires_at = NULL, status = 'ACTIVE', updated_at = trv_now() "
    "WHERE id = %s RETURNING " COLS};
static const trv_stmt repoint_stmt = {"trv_watcher_repoint",
    "UPDATE webhook_deliveries SET url = %s, secrets_enc = ARRAY[%s], updated_at = trv_now() "
    "WHERE subscription_id = %s AND status IN ('PENDING', 'PUBLISHED')"};
/* The log's events not queued for this endpoint yet, oldest first, each
 * with its first send job ('webhook.send', 25 runs: webhook/send.h). */
static const trv_stmt backlog_stmt = {"trv_watcher_backlog",
    "WITH d AS (INSERT INTO webhook_deliveries (id, subscription_id, org_id, event_id, status, "
    "url, secrets_enc) "
    "SELECT 'dlv_' || trv_uuid7(), %s, e.org_id, e.id, 'PENDING', %s, ARRAY[%s] "
    "FROM events e WHERE e.org_id = %s AND e.family = 'travel' AND NOT EXISTS "
    "(SELECT 1 FROM webhook_deliveries x WHERE x.event_id = e.id AND x.subscription_id = %s) "
    "ORDER BY e.id ON CONFLICT (subscription_id, event_id) DO NOTHING RETURNING id) "
    "INSERT INTO jobs (kind, payload, available_at, max_attempts) "
    "SELECT 'webhook.send', jsonb_build_object('delivery_id', d.id, 'replay', 0, 'attempt', 1), "
    "clock_timestamp(), 25 FROM d"};

static json_t *registration(const trv_rows *r, const char *secret)
{
    json_t *o = json_pack("{s:s,s:s,s:s}", "url", trv_rows_get(r, 0, "url"), "created_at",
                          trv_rows_get(r, 0, "created_at"), "updated_at",
                          trv_rows_get(r, 0, "updated_at"));
    if (secret) {
        json_object_set_new(o, "signing_secret", json_string(secret));
    }
    return o;
}

static const char *event_types(apr_pool_t *p)
{
    const char *const *t;
    const char *s = "";
    for (t = trv_watch_event_types; *t; t++) {
        s = apr_pstrcat(p, s, *s ? " " : "", *t, NULL);
    }
    return s;
}

void trv_watcher_webhook_put(trv_req *req, trv_resp *resp)
{
    static const char *const known[] = {"url", NULL};
    trv_errs *errs = trv_errs_new(req->pool);
    const char *url, *why, *secret, *sealed, *id;
    trv_dbc *c;
    trv_rows *r;
    int created = 0;

    trv_json_known(req->json, NULL, known, errs);
    url = trv_json_req_str(req->json, "url", "url", 1, 8, 2048, errs);
    if (url && (why = trv_webhook_url_check(req->pool, req->env->cfg->webhook_allow, url))) {
        trv_errs_add(errs, "url", "%s", why);
    }
    if (trv_errs_any(errs)) {
        trv_fail_invalid(req, resp, errs);
        return;
    }
    if (!req->env->cfg->have_secret_key) {
        trv_fail(req, resp, 500, "internal_error", "No TravelSecretKeyFile is configured");
        return;
    }
    secret = trv_whsec_new(req->pool);
    if (!trv_api_db_open(req, resp, &c, 1520, "registering the watcher endpoint")) {
        return;
    }
    if (!secret || trv_db_begin(c, req->pool) != APR_SUCCESS
        || trv_db_select(c, req->pool, &find_stmt, &r, TRV_DB_ARGS(req->org_id))
               != APR_SUCCESS) {
        goto failed;
    }
    id = r->n ? trv_rows_get(r, 0, "id") : trv_id_new(req->pool, "whs");
    /* The subscription id is the sealed secret's associated data. */
    if (trv_crypt_seal(req->pool, req->env->cfg->secret_key, id, secret, &sealed)
        != APR_SUCCESS) {
        goto failed;
    }
    if (!r->n) {
        if (trv_db_select(c, req->pool, &insert_stmt, &r,
                          TRV_DB_ARGS(id, req->org_id, url, event_types(req->pool), sealed))
            != APR_SUCCESS) {
            goto failed;
        }
        if (!r->n) {
            /* Registered by a concurrent request just now: answered as a
             * conflict rather than replacing a secret it has just shown. */
            trv_db_rollback(c);
            trv_db_close(req->env->db, c);
            trv_fail(req, resp, 409, "conflict", "The watcher endpoint was registered by "
                     "another request at the same time; repeat to replace it");
            return;
        }
        created = 1;
    }
    else if (trv_db_select(c, req->pool, &replace_stmt, &r, TRV_DB_ARGS(url, sealed, id))
                 != APR_SUCCESS
             || trv_db_exec(c, req->pool, &repoint_stmt, NULL, TRV_DB_ARGS(url, sealed, id))
                    != APR_SUCCESS) {
        goto failed;
    }
    if (trv_db_exec(c, req->pool, &backlog_stmt, NULL,
                    TRV_DB_ARGS(id, url, sealed, req->org_id, id)) != APR_SUCCESS
        || trv_db_commit(c) != APR_SUCCESS) {
        goto failed;
    }
    trv_db_close(req->env->db, c);
    trv_env_wake(req->env);
    trv_ok(req, resp, created ? 201 : 200, registration(r, secret), NULL);
    return;
failed:
    trv_fail_db(req, resp, c, 1521, "registering the watcher endpoint");
    if (c->in_txn) {
        trv_db_rollback(c);
    }
    trv_db_close(req->env->db, c);
}

void trv_watcher_webhook_get(trv_req *req, trv_resp *resp)
{
    trv_dbc *c;
    trv_rows *r;
    if (!trv_api_db_open(req, resp, &c, 1522, "reading the watcher endpoint")) {
        return;
    }
    if (trv_db_select(c, req->pool, &read_stmt, &r, TRV_DB_ARGS(req->org_id)) != APR_SUCCESS) {
        trv_fail_db(req, resp, c, 1522, "reading the watcher endpoint");
        trv_db_close(req->env->db, c);
        return;
    }
    trv_db_close(req->env->db, c);
    if (!r->n) {
        trv_fail(req, resp, 404, "not_found", "No watcher endpoint is registered");
        return;
    }
    trv_ok(req, resp, 200, registration(r, NULL), NULL);
}
