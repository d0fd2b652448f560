/* The webhook subscription endpoints, for both families: the path says
 * which (/v1/hotel/... or /v1/flight/...), and a subscription of one family
 * is not found under the other. */
#include "api.h"
#include "filter.h"
#include "recover.h"
#include "secret.h"
#include "signing_key.h"
#include "send.h"
#include "store.h"
#include "subscription_status.h"
#include "target.h"
#include "core/crypt.h"
#include "core/ids.h"
#include "core/jobs.h"
#include "core/registry.h"
#include "core/json.h"
#include "core/validate.h"

#include <apr_strings.h>
#include <string.h>

#define MAX_SUBSCRIPTIONS 5
#define MAX_EVENT_TYPES 20

static const trv_stmt lock_org = {"trv_whs_lock_org",
    "SELECT id FROM organizations WHERE id = %s FOR UPDATE"};

static const trv_stmt count_stmt = {"trv_whs_count",
    "SELECT count(*) AS n, count(*) FILTER (WHERE url = %s AND id <> %s) AS same_url "
    "FROM webhook_subscriptions WHERE org_id = %s AND family = %s AND deleted_at IS NULL"};

static const trv_stmt insert_stmt = {"trv_whs_insert",
    "INSERT INTO webhook_subscriptions AS s (id, org_id, family, url, event_types, secret_enc, "
    "filters, signature_scheme, public_key, max_per_second) "
    "VALUES (%s, %s, %s, %s, ARRAY(SELECT jsonb_array_elements_text(%s::jsonb)), %s, "
    "%s::jsonb, %s, %s, %s::int) RETURNING " TRV_WHS_COLUMNS};

static const trv_stmt list_stmt = {"trv_whs_list",
    "SELECT " TRV_WHS_COLUMNS " FROM webhook_subscriptions s "
    "WHERE s.org_id = %s AND s.family = %s AND s.deleted_at IS NULL "
    "ORDER BY s.created_at, s.id"};

static const trv_stmt get_stmt = {"trv_whs_get",
    "SELECT " TRV_WHS_COLUMNS " FROM webhook_subscriptions s "
    "WHERE s.id = %s AND s.org_id = %s AND s.family = %s AND s.deleted_at IS NULL"};

static const trv_stmt get_locked_stmt = {"trv_whs_get_locked",
    "SELECT " TRV_WHS_COLUMNS " FROM webhook_subscriptions s "
    "WHERE s.id = %s AND s.org_id = %s AND s.family = %s AND s.deleted_at IS NULL "
    "FOR UPDATE"};

static const trv_stmt update_stmt = {"trv_whs_update",
    "UPDATE webhook_subscriptions s SET url = coalesce(%s, s.url), "
    "event_types = CASE WHEN %s::jsonb IS NULL THEN s.event_types "
    "ELSE ARRAY(SELECT jsonb_array_elements_text(%s::jsonb)) END, "
    "status = coalesce(%s, s.status), "
    "disabled_reason = CASE WHEN %s::text IS NOT NULL AND s.status = 'DISABLED' THEN NULL "
    "ELSE s.disabled_reason END, "
    "disabled_at = CASE WHEN %s::text IS NOT NULL AND s.status = 'DISABLED' THEN NULL "
    "ELSE s.disabled_at END, "
    "failing_since = CASE WHEN %s::text IS NOT NULL AND s.status = 'DISABLED' THEN NULL "
    "ELSE s.failing_since END, "
    /* Made ACTIVE again (re-enabled or resumed): an open circuit's end
     * (sql/400) no longer holds its new sends back; a receiver that still
     * hangs opens it again at its next held request. */
    "open_until = CASE WHEN %s::text = 'ACTIVE' AND s.status <> 'ACTIVE' THEN NULL "
    "ELSE s.open_until END, "
    "filters = CASE WHEN %s::boolean THEN %s::jsonb ELSE s.filters END, "
    "max_per_second = CASE WHEN %s::boolean THEN %s::int ELSE s.max_per_second END, "
    "updated_at = trv_now() "
    "WHERE s.id = %s AND s.org_id = %s AND s.family = %s AND s.deleted_at IS NULL "
    "RETURNING " TRV_WHS_COLUMNS};

/* Rotating again replaces the previous secret: only the one being
 * replaced stays live, for 24 hours. The new key may be of another scheme
 * (a PATCH of signature_scheme): both keep signing while the old is live. */
static const trv_stmt rotate_stmt = {"trv_whs_rotate",
    "UPDATE webhook_subscriptions s SET previous_secret_enc = s.secret_enc, "
    "secret_enc = %s, signature_scheme = %s, public_key = %s, "
    "previous_secret_expires_at = trv_now() + interval '24 hours', "
    "updated_at = trv_now() "
    "WHERE s.id = %s AND s.org_id = %s AND s.family = %s AND s.deleted_at IS NULL "
    "RETURNING " TRV_WHS_COLUMNS};

static const trv_stmt delete_stmt = {"trv_whs_delete",
    "UPDATE webhook_subscriptions s SET deleted_at = trv_now(), updated_at = trv_now() "
    "WHERE s.id = %s AND s.org_id = %s AND s.family = %s AND s.deleted_at IS NULL "
    "RETURNING " TRV_WHS_COLUMNS};

/* A deleted subscription's queued requests are not sent. */
static const trv_stmt delete_deliveries_stmt = {"trv_whs_delete_deliveries",
    "UPDATE webhook_deliveries SET status = 'FAILED', failure_reason = 'subscription_deleted', "
    "failed_at = trv_now(), updated_at = trv_now() "
    "WHERE subscription_id = %s AND status IN ('PENDING', 'PUBLISHED')"};

static const trv_stmt dlv_list_stmt = {"trv_dlv_list",
    "SELECT " TRV_DLV_COLUMNS " FROM webhook_deliveries d JOIN events e ON e.id = d.event_id "
    "WHERE d.subscription_id = %s AND d.org_id = %s "
    "AND (%s::text IS NULL OR d.status = %s::text) "
    "ORDER BY d.created_at DESC, d.id DESC LIMIT %s::int OFFSET %s::int"};

static const trv_stmt dlv_get_stmt = {"trv_dlv_get",
    "SELECT " TRV_DLV_COLUMNS " FROM webhook_deliveries d JOIN events e ON e.id = d.event_id "
    "WHERE d.id = %s AND d.subscription_id = %s AND d.org_id = %s"};

/* The replay rule of the service document, judged by the database clock. */
static const trv_stmt dlv_replayable_stmt = {"trv_dlv_replayable",
    "SELECT d.status, (d.status IN ('DELIVERED', 'FAILED') "
    "OR (d.status = 'PENDING' AND d.queued_at < now() - interval '1 minute') "
    "OR (d.status = 'PUBLISHED' AND d.published_at < now() - interval '2 hours 15 minutes')) "
    "AS replayable FROM webhook_deliveries d "
    "WHERE d.id = %s AND d.subscription_id = %s AND d.org_id = %s FOR UPDATE"};

/* A replay is a new send of the same event: the subscription's URL and
 * live secrets now, a fresh attempt list. It goes at once, on its own: a
 * delivery waiting in a recovery's order (recover_seq, sql/180) leaves it. */
static const trv_stmt dlv_replay_stmt = {"trv_dlv_replay",
    "UPDATE webhook_deliveries d SET status = 'PENDING', replay_count = d.replay_count + 1, "
    "failure_reason = NULL, url = s.url, secrets_enc = " TRV_WHS_LIVE_SECRETS ", "
    "attempt_count = 0, queued_at = trv_now(), published_at = NULL, delivered_at = NULL, "
    "failed_at = NULL, updated_at = trv_now(), recover_seq = NULL FROM webhook_subscriptions s "
    "WHERE d.id = %s AND s.id = d.subscription_id RETURNING d.replay_count"};

static const char *const *event_types(const trv_req *req)
{
    return trv_registry_event_types(req->env->registry, trv_webhook_family(req));
}

static void db_failed(trv_req *req, trv_resp *resp, trv_dbc *c, int logno,
                      const char *what)
{
    trv_fail_db(req, resp, c, logno, what);
    if (c) {
        trv_db_close(req->env->db, c);
    }
}

static void not_found(trv_req *req, trv_resp *resp)
{
    trv_fail(req, resp, 404, "not_found", "No webhook subscription %s",
             apr_table_get(req->params, "id"));
}

/* event_types: a non-empty list of known types of this family, each once. */
static json_t *check_event_types(trv_req *req, const json_t *v, trv_errs *errs)
{
    const char *family = trv_webhook_family(req);
    json_t *seen;
    size_t i, j;
    if (!json_is_array(v) || json_array_size(v) == 0
        || json_array_size(v) > MAX_EVENT_TYPES) {
        trv_errs_add(errs, "event_types", "must be a list of 1 to %d event types, e.g. "
                     "[\"%s\"]", MAX_EVENT_TYPES,
                     event_types(req)[0] ? event_types(req)[0] : "");
        return NULL;
    }
    seen = json_array();
    for (i = 0; i < json_array_size(v); i++) {
        const json_t *t = json_array_get(v, i);
        const char *field = apr_psprintf(req->pool, "event_types[%lu]", (unsigned long)i);
        if (!json_is_string(t)) {
            trv_errs_add(errs, field, "must be a string");
            continue;
        }
        if (!trv_registry_event_type_known(req->env->registry, family,
                                           json_string_value(t))) {
            const char *const *k = event_types(req);
            const char *list = *k ? *k : "";
            for (k = *k ? k + 1 : k; *k; k++) {
                list = apr_pstrcat(req->pool, list, ", ", *k, NULL);
            }
            trv_errs_add(errs, field, "must be one of %s", list);
            continue;
        }
        for (j = 0; j < json_array_size(seen); j++) {
            if (json_equal(json_array_get(seen, j), t)) {
                break;
            }
        }
        if (j < json_array_size(seen)) {
            trv_errs_add(errs, field, "is listed twice");
            continue;
        }
        json_array_append(seen, (json_t *)t);
    }
    return trv_json_bind(req->pool, seen);
}

static const char *check_url(trv_req *req, const json_t *body, int required,
                             trv_errs *errs)
{
    const char *url = trv_json_req_str(body, "url", "url", required, 1, 2048, errs);
    const char *why;
    if (!url) {
        return NULL;
    }
    if ((why = trv_webhook_url_check(req->pool, req->env->cfg->webhook_allow, url))) {
        trv_errs_add(errs, "url", "%s", why);
        return NULL;
    }
    return url;
}

static int secret_key_ready(trv_req *req, trv_resp *resp)
{
    if (req->env->cfg->have_secret_key) {
        return 1;
    }
    trv_log_msg(&req->log, TRV_LOG_ERR, req->request_id,
                TRVLOGNO(601) "TravelSecretKeyFile is not configured: signing secrets "
                "cannot be stored");
    trv_fail(req, resp, 500, "internal_error",
             "The service cannot store signing secrets; the request id identifies it");
    return 0;
}

/* Limits: at most five subscriptions per organization and family, one per
 * URL. Called with the organization row locked. Returns 1 to go on. */
static int within_limits(trv_req *req, trv_resp *resp, trv_dbc *c, const char *url,
                         const char *self_id, int adding)
{
    trv_rows *rows;
    if (trv_db_select(c, req->pool, &count_stmt, &rows,
                      TRV_DB_ARGS(url ? url : "", self_id ? self_id : "", req->org_id,
                                  trv_webhook_family(req))) != APR_SUCCESS) {
        db_failed(req, resp, c, 602, "counting webhook subscriptions");
        return 0;
    }
    if (url && trv_rows_int(rows, 0, "same_url", 0) > 0) {
        trv_db_close(req->env->db, c);
        trv_fail(req, resp, 409, "url_already_subscribed",
                 "Another %s webhook subscription of this organization already uses "
                 "this URL", trv_webhook_family(req));
        return 0;
    }
    if (adding && trv_rows_int(rows, 0, "n", 0) >= MAX_SUBSCRIPTIONS) {
        trv_db_close(req->env->db, c);
        trv_fail(req, resp, 409, "subscription_limit_reached",
                 "An organization can hold at most %d %s webhook subscriptions",
                 MAX_SUBSCRIPTIONS, trv_webhook_family(req));
        return 0;
    }
    return 1;
}

/* A fresh signing secret of `scheme` for subscription id ("v1": a whsec_
 * HMAC secret; "v1a": a whsk_ Ed25519 private key, whose whpk_ public key
 * goes to *public), and its sealed form for the database; answers the
 * failure itself and returns 0 when it cannot. */
static int new_secret(trv_req *req, trv_resp *resp, const char *id, const char *scheme,
                      const char **secret, const char **sealed, const char **public)
{
    int v1a = strcmp(scheme, "v1a") == 0;
    if (!secret_key_ready(req, resp)) {
        return 0;
    }
    *secret = v1a ? trv_whsk_new(req->pool) : trv_whsec_new(req->pool);
    *public = v1a && *secret ? trv_whsk_public(req->pool, *secret) : NULL;
    if (!*secret || (v1a && !*public)
        || trv_crypt_seal(req->pool, req->env->cfg->secret_key, id, *secret,
                          sealed) != APR_SUCCESS) {
        trv_log_msg(&req->log, TRV_LOG_ERR, req->request_id,
                    TRVLOGNO(603) "making a signing secret failed");
        trv_fail(req, resp, 500, "internal_error", "An internal error occurred");
        return 0;
    }
    return 1;
}

/* signature_scheme: "v1" (the default) or "v1a"; NULL when absent. */
static const char *check_scheme(const json_t *body, trv_errs *errs)
{
    const json_t *v = json_object_get(body, "signature_scheme");
    const char *s = json_string_value(v);
    if (!v) {
        return NULL;
    }
    if (!s || (strcmp(s, "v1") != 0 && strcmp(s, "v1a") != 0)) {
        trv_errs_add(errs, "signature_scheme", "must be \"v1\" (HMAC-SHA256) or \"v1a\" "
                     "(Ed25519)");
        return NULL;
    }
    return s;
}

/* max_per_second: an integer 1..1000, or null (the site's default). Sets
 * *given when the field is there; returns it as text, NULL for null. */
static const char *check_rate(trv_req *req, const json_t *body, int *given, trv_errs *errs)
{
    const json_t *v = json_object_get(body, "max_per_second");
    *given = v != NULL;
    if (!v || json_is_null(v)) {
        return NULL;
    }
    if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > 1000) {
        trv_errs_add(errs, "max_per_second", "must be an integer from 1 to 1000, or null for "
                     "the site's default");
        return NULL;
    }
    return apr_ltoa(req->pool, (long)json_integer_value(v));
}

/* The secret an answer shows once: a v1 subscription's signing_secret; a
 * v1a one's private key is never shown (its public_key is in the row). */
static void show_secret(json_t *data, const char *scheme, const char *secret)
{
    if (strcmp(scheme, "v1") == 0) {
        json_object_set_new(data, "signing_secret", json_string(secret));
    }
}

static void create_subscription(trv_req *req, trv_resp *resp)
{
    static const char *const known[] = {"url", "event_types", "filters", "signature_scheme",
                                        "max_per_second", NULL};
    trv_errs *errs = trv_errs_new(req->pool);
    const char *id = trv_id_new(req->pool, "whs"), *url, *secret, *sealed, *public, *scheme;
    const char *rate;
    json_t *types, *data, *filters;
    int rate_given;
    trv_rows *rows;
    trv_dbc *c;

    if (!req->json) {
        trv_errs_add(errs, "body", "is required: {\"url\": ..., \"event_types\": [...]}");
        trv_fail_invalid(req, resp, errs);
        return;
    }
    trv_json_known(req->json, NULL, known, errs);
    url = check_url(req, req->json, 1, errs);
    types = json_object_get(req->json, "event_types");
    if (!types) {
        trv_errs_add(errs, "event_types", "is required");
    }
    else {
        types = check_event_types(req, types, errs);
    }
    filters = trv_webhook_filters_check(req->pool, json_object_get(req->json, "filters"), errs);
    scheme = check_scheme(req->json, errs);
    rate = check_rate(req, req->json, &rate_given, errs);
    if (trv_errs_any(errs)) {
        trv_fail_invalid(req, resp, errs);
        return;
    }
    scheme = scheme ? scheme : "v1";
    if (!new_secret(req, resp, id, scheme, &secret, &sealed, &public)) {
        return;
    }
    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS) {
        db_failed(req, resp, NULL, 604, "creating a webhook subscription");
        return;
    }
    if (trv_db_begin(c, req->pool) != APR_SUCCESS
        || trv_db_select(c, req->pool, &lock_org, &rows, TRV_DB_ARGS(req->org_id))
               != APR_SUCCESS) {
        db_failed(req, resp, c, 605, "creating a webhook subscription");
        return;
    }
    if (!within_limits(req, resp, c, url, NULL, 1)) {
        return;
    }
    if (trv_db_select(c, req->pool, &insert_stmt, &rows,
                      TRV_DB_ARGS(id, req->org_id, trv_webhook_family(req), url,
                                  trv_json_dump(req->pool, types), sealed,
                                  filters ? trv_json_dump(req->pool, filters) : NULL, scheme,
                                  public, rate)) != APR_SUCCESS
        || trv_db_commit(c) != APR_SUCCESS) {
        db_failed(req, resp, c, 606, "creating a webhook subscription");
        return;
    }
    trv_db_close(req->env->db, c);
    data = trv_whs_json(req->pool, rows, 0);
    show_secret(data, scheme, secret);
    trv_log_msg(&req->log, TRV_LOG_INFO, req->request_id,
                TRVLOGNO(607) "webhook subscription %s created for %s", id, req->org_id);
    trv_ok(req, resp, 201, data, NULL);
}

static void list_subscriptions(trv_req *req, trv_resp *resp)
{
    trv_rows *rows;
    trv_dbc *c;
    json_t *data;
    int i;

    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS) {
        db_failed(req, resp, NULL, 608, "listing webhook subscriptions");
        return;
    }
    if (trv_db_select(c, req->pool, &list_stmt, &rows,
                      TRV_DB_ARGS(req->org_id, trv_webhook_family(req))) != APR_SUCCESS) {
        db_failed(req, resp, c, 609, "listing webhook subscriptions");
        return;
    }
    trv_db_close(req->env->db, c);
    data = json_array();
    for (i = 0; i < rows->n; i++) {
        json_array_append_new(data, trv_whs_json(req->pool, rows, i));
    }
    trv_ok(req, resp, 200, data, NULL);
}

static void get_subscription(trv_req *req, trv_resp *resp)
{
    trv_rows *rows;
    trv_dbc *c;
    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS) {
        db_failed(req, resp, NULL, 610, "reading a webhook subscription");
        return;
    }
    if (trv_db_select(c, req->pool, &get_stmt, &rows,
                      TRV_DB_ARGS(apr_table_get(req->params, "id"), req->org_id,
                                  trv_webhook_family(req))) != APR_SUCCESS) {
        db_failed(req, resp, c, 611, "reading a webhook subscription");
        return;
    }
    trv_db_close(req->env->db, c);
    if (rows->n == 0) {
        not_found(req, resp);
        return;
    }
    trv_ok(req, resp, 200, trv_whs_json(req->pool, rows, 0), NULL);
}

/* Replaces the subscription's key by a new one of `scheme` inside the
 * caller's transaction (the old one stays live 24 hours): rows gets the
 * subscription, *secret the new key. Returns 1, or answers and returns 0. */
static int rekey(trv_req *req, trv_resp *resp, trv_dbc *c, const char *id,
                 const char *scheme, trv_rows **rows, const char **secret)
{
    const char *sealed, *public;
    if (!new_secret(req, resp, id, scheme, secret, &sealed, &public)) {
        trv_db_close(req->env->db, c);
        return 0;
    }
    if (trv_db_select(c, req->pool, &rotate_stmt, rows,
                      TRV_DB_ARGS(sealed, scheme, public, id, req->org_id, trv_webhook_family(req)))
        != APR_SUCCESS) {
        db_failed(req, resp, c, 621, "rotating a signing secret");
        return 0;
    }
    return 1;
}

/* A PATCH this slow says where its time went (TRV3900): a connection from
 * the pool (DBDMax), the organization's and the subscription's row locks
 * (another transaction holding them), the checks and the resend of a
 * re-enabling (and a new key), the update, the commit. It takes a few
 * milliseconds; test_webhook_breaker's re-enabling once took 61 s and the
 * logs could not say where. */
#define PATCH_SLOW apr_time_from_sec(2)

/* When each step of a PATCH ended; 0: not reached. */
typedef struct patch_steps {
    apr_time_t start, opened, org_locked, sub_locked, resumed, updated, committed;
} patch_steps;

static double step_ms(apr_time_t from, apr_time_t to)
{
    return from && to ? (double)(to - from) / 1000.0 : -1.0;
}

static void patch_timing(trv_req *req, const char *id, const patch_steps *t)
{
    if (t->committed - t->start < PATCH_SLOW) {
        return;
    }
    trv_log_msg(&req->log, TRV_LOG_WARNING, req->request_id,
                TRVLOGNO(3900) "PATCH of webhook subscription %s took %.1f ms: connection "
                "%.1f, organization lock %.1f, subscription lock %.1f, checks and resend "
                "%.1f, update %.1f, commit %.1f ms", id, step_ms(t->start, t->committed),
                step_ms(t->start, t->opened), step_ms(t->opened, t->org_locked),
                step_ms(t->org_locked, t->sub_locked), step_ms(t->sub_locked, t->resumed),
                step_ms(t->resumed, t->updated), step_ms(t->updated, t->committed));
}

static void patch_subscription(trv_req *req, trv_resp *resp)
{
    static const char *const known[] = {"url", "event_types", "status", "filters",
                                        "signature_scheme", "max_per_second", NULL};
    trv_errs *errs = trv_errs_new(req->pool);
    const char *id = apr_table_get(req->params, "id");
    int to = TRV_SUBSCRIPTION_ACTIVE, from; /* trv_subscription_status, or -1 */
    const char *url = NULL, *status = NULL, *types_text = NULL, *scheme = NULL;
    const char *filters_text = NULL, *secret = NULL, *rate = NULL;
    int set_filters = 0, set_rate = 0;
    long resumed = 0;
    json_t *types = NULL, *sv, *data;
    trv_rows *rows;
    trv_dbc *c;
    patch_steps t;

    memset(&t, 0, sizeof(t));
    if (req->json) {
        trv_json_known(req->json, NULL, known, errs);
        url = check_url(req, req->json, 0, errs);
        if ((types = json_object_get(req->json, "event_types"))) {
            types = check_event_types(req, types, errs);
            types_text = types ? trv_json_dump(req->pool, types) : NULL;
        }
        if ((sv = json_object_get(req->json, "status"))) {
            status = json_string_value(sv);
            if ((to = trv_transit_from_text(&trv_subscription_status_table, status)) < 0
                || !trv_subscription_status_patchable(to)) {
                trv_errs_add(errs, "status", "must be ACTIVE or PAUSED");
                status = NULL;
            }
        }
        /* filters: an object sets them, null removes them. */
        if ((sv = json_object_get(req->json, "filters"))) {
            json_t *f = trv_webhook_filters_check(req->pool, sv, errs);
            set_filters = 1;
            filters_text = f ? trv_json_dump(req->pool, f) : NULL;
        }
        scheme = check_scheme(req->json, errs);
        rate = check_rate(req, req->json, &set_rate, errs);
    }
    if (trv_errs_any(errs)) {
        trv_fail_invalid(req, resp, errs);
        return;
    }
    if (!url && !types_text && !status && !set_filters && !scheme && !set_rate) {
        get_subscription(req, resp); /* nothing to change */
        return;
    }
    t.start = apr_time_now();
    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS) {
        db_failed(req, resp, NULL, 612, "changing a webhook subscription");
        return;
    }
    t.opened = apr_time_now();
    if (trv_db_begin(c, req->pool) != APR_SUCCESS
        || trv_db_select(c, req->pool, &lock_org, &rows, TRV_DB_ARGS(req->org_id))
               != APR_SUCCESS) {
        db_failed(req, resp, c, 613, "changing a webhook subscription");
        return;
    }
    t.org_locked = apr_time_now();
    if (trv_db_select(c, req->pool, &get_locked_stmt, &rows,
                      TRV_DB_ARGS(id, req->org_id, trv_webhook_family(req))) != APR_SUCCESS) {
        db_failed(req, resp, c, 613, "changing a webhook subscription");
        return;
    }
    t.sub_locked = apr_time_now();
    if (rows->n == 0) {
        trv_db_close(req->env->db, c);
        not_found(req, resp);
        return;
    }
    /* A new scheme is a new key of that scheme, the old one kept live as a
     * rotation keeps it; the same scheme again changes nothing. */
    if (scheme && strcmp(scheme, trv_rows_get(rows, 0, "signature_scheme")) == 0) {
        scheme = NULL;
    }
    if (url && !within_limits(req, resp, c, url, id, 0)) {
        return;
    }
    /* Every status a PATCH asks for is a move the table has (the check
     * logs a bug otherwise, and nothing changes). */
    if ((from = trv_transit_from_text(&trv_subscription_status_table, trv_rows_get(rows, 0, "status"))) < 0
        || (status && !trv_transit_check(&trv_subscription_status_table, &req->log,
                                         req->request_id, id, from, to))) {
        trv_db_close(req->env->db, c);
        trv_fail(req, resp, 409, "status_not_allowed",
                 "The subscription is %s and cannot become %s",
                 trv_rows_get(rows, 0, "status"), status ? status : "anything else");
        return;
    }
    /* Re-enabled after the circuit breaker: what it missed goes out again,
     * in the log's order, before its failing_since is cleared below. */
    if (status && from == TRV_SUBSCRIPTION_DISABLED && to == TRV_SUBSCRIPTION_ACTIVE) {
        if (trv_webhook_resume(c, req->pool, id, &resumed) != APR_SUCCESS) {
            db_failed(req, resp, c, 2702, "re-enabling a webhook subscription");
            return;
        }
    }
    if (scheme && !rekey(req, resp, c, id, scheme, &rows, &secret)) {
        return;
    }
    t.resumed = apr_time_now();
    if ((url || types_text || status || set_filters || set_rate)
        && trv_db_select(c, req->pool, &update_stmt, &rows,
                         TRV_DB_ARGS(url, types_text, types_text, status, status, status,
                                     status, status, set_filters ? "true" : "false", filters_text,
                                     set_rate ? "true" : "false", rate, id,
                                     req->org_id, trv_webhook_family(req))) != APR_SUCCESS) {
        db_failed(req, resp, c, 614, "changing a webhook subscription");
        return;
    }
    t.updated = apr_time_now();
    if (trv_db_commit(c) != APR_SUCCESS) {
        db_failed(req, resp, c, 614, "changing a webhook subscription");
        return;
    }
    t.committed = apr_time_now();
    trv_db_close(req->env->db, c);
    patch_timing(req, id, &t);
    if (status) {
        trv_log_msg(&req->log, TRV_LOG_INFO, req->request_id,
                    TRVLOGNO(615) "webhook subscription %s is now %s", id, status);
    }
    if (resumed > 0) {
        trv_env_wake(req->env);
        trv_log_msg(&req->log, TRV_LOG_INFO, req->request_id,
                    TRVLOGNO(2703) "webhook subscription %s re-enabled: %ld events to send "
                    "again", id, resumed);
    }
    data = trv_whs_json(req->pool, rows, 0);
    if (scheme) {
        show_secret(data, scheme, secret);
        trv_log_msg(&req->log, TRV_LOG_INFO, req->request_id,
                    TRVLOGNO(2100) "webhook subscription %s: now signed with %s", id, scheme);
    }
    trv_ok(req, resp, 200, data, NULL);
}

static void delete_subscription(trv_req *req, trv_resp *resp)
{
    const char *id = apr_table_get(req->params, "id");
    trv_rows *rows;
    trv_dbc *c;
    json_t *data;

    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS) {
        db_failed(req, resp, NULL, 616, "deleting a webhook subscription");
        return;
    }
    if (trv_db_begin(c, req->pool) != APR_SUCCESS
        || trv_db_select(c, req->pool, &delete_stmt, &rows,
                         TRV_DB_ARGS(id, req->org_id, trv_webhook_family(req))) != APR_SUCCESS) {
        db_failed(req, resp, c, 617, "deleting a webhook subscription");
        return;
    }
    if (rows->n == 0) {
        trv_db_close(req->env->db, c);
        not_found(req, resp);
        return;
    }
    if (trv_db_exec(c, req->pool, &delete_deliveries_stmt, NULL, TRV_DB_ARGS(id))
            != APR_SUCCESS
        || trv_db_commit(c) != APR_SUCCESS) {
        db_failed(req, resp, c, 618, "deleting a webhook subscription");
        return;
    }
    trv_db_close(req->env->db, c);
    data = trv_whs_json(req->pool, rows, 0);
    json_object_set_new(data, "deleted", json_true());
    trv_ok(req, resp, 200, data, NULL);
}

static void rotate_secret(trv_req *req, trv_resp *resp)
{
    const char *id = apr_table_get(req->params, "id"), *secret, *scheme;
    trv_rows *rows;
    trv_dbc *c;
    json_t *data;

    if (!secret_key_ready(req, resp)) {
        return;
    }
    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS) {
        db_failed(req, resp, NULL, 620, "rotating a signing secret");
        return;
    }
    /* The new key is of the subscription's scheme, read under its lock. */
    if (trv_db_begin(c, req->pool) != APR_SUCCESS
        || trv_db_select(c, req->pool, &get_locked_stmt, &rows,
                         TRV_DB_ARGS(id, req->org_id, trv_webhook_family(req))) != APR_SUCCESS) {
        db_failed(req, resp, c, 621, "rotating a signing secret");
        return;
    }
    if (rows->n == 0) {
        trv_db_close(req->env->db, c);
        not_found(req, resp);
        return;
    }
    scheme = apr_pstrdup(req->pool, trv_rows_get(rows, 0, "signature_scheme"));
    if (!rekey(req, resp, c, id, scheme, &rows, &secret)) {
        return;
    }
    if (trv_db_commit(c) != APR_SUCCESS) {
        db_failed(req, resp, c, 621, "rotating a signing secret");
        return;
    }
    trv_db_close(req->env->db, c);
    data = trv_whs_json(req->pool, rows, 0);
    show_secret(data, scheme, secret);
    trv_log_msg(&req->log, TRV_LOG_INFO, req->request_id,
                TRVLOGNO(622) "webhook subscription %s: signing secret rotated", id);
    trv_ok(req, resp, 200, data, NULL);
}

/* Looks the subscription up (404 when it is not the caller's). Returns 1
 * with the connection open. */
static int subscription_visible(trv_req *req, trv_resp *resp, trv_dbc *c,
                                const trv_stmt *st, trv_rows **rows)
{
    if (trv_db_select(c, req->pool, st, rows,
                      TRV_DB_ARGS(apr_table_get(req->params, "id"), req->org_id,
                                  trv_webhook_family(req))) != APR_SUCCESS) {
        db_failed(req, resp, c, 623, "reading a webhook subscription");
        return 0;
    }
    if ((*rows)->n == 0) {
        trv_db_close(req->env->db, c);
        not_found(req, resp);
        return 0;
    }
    return 1;
}

static void list_deliveries(trv_req *req, trv_resp *resp)
{
    static const char *const known[] = {"limit", "offset", "status", NULL};
    static const char *const statuses[] = {"PENDING", "PUBLISHED", "DELIVERED", "FAILED",
                                           NULL};
    trv_errs *errs = trv_errs_new(req->pool);
    long limit, offset;
    const char *status;
    trv_rows *rows;
    trv_dbc *c;
    json_t *data;
    int i, n;

    trv_query_known(req->query, known, errs);
    limit = trv_query_int(req->query, "limit", 25, 1, 100, errs);
    offset = trv_query_int(req->query, "offset", 0, 0, 100000, errs);
    status = trv_query_enum(req->query, "status", statuses, NULL, errs);
    if (trv_errs_any(errs)) {
        trv_fail_invalid(req, resp, errs);
        return;
    }
    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS) {
        db_failed(req, resp, NULL, 624, "listing webhook deliveries");
        return;
    }
    if (!subscription_visible(req, resp, c, &get_stmt, &rows)) {
        return;
    }
    /* One more than asked tells whether another page follows. */
    if (trv_db_select(c, req->pool, &dlv_list_stmt, &rows,
                      TRV_DB_ARGS(apr_table_get(req->params, "id"), req->org_id, status,
                                  status, apr_ltoa(req->pool, limit + 1),
                                  apr_ltoa(req->pool, offset))) != APR_SUCCESS) {
        db_failed(req, resp, c, 625, "listing webhook deliveries");
        return;
    }
    trv_db_close(req->env->db, c);
    data = json_array();
    n = rows->n > limit ? (int)limit : rows->n;
    for (i = 0; i < n; i++) {
        json_array_append_new(data, trv_dlv_json(req->pool, rows, i));
    }
    trv_ok(req, resp, 200, data,
           json_pack("{s:I,s:I,s:{s:I,s:I,s:b}}", "limit", (json_int_t)limit, "offset",
                     (json_int_t)offset, "pagination", "limit", (json_int_t)limit,
                     "offset", (json_int_t)offset, "has_more", rows->n > limit));
}

static void get_delivery(trv_req *req, trv_resp *resp)
{
    trv_rows *rows;
    trv_dbc *c;
    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS) {
        db_failed(req, resp, NULL, 626, "reading a webhook delivery");
        return;
    }
    if (!subscription_visible(req, resp, c, &get_stmt, &rows)) {
        return;
    }
    if (trv_db_select(c, req->pool, &dlv_get_stmt, &rows,
                      TRV_DB_ARGS(apr_table_get(req->params, "delivery_id"),
                                  apr_table_get(req->params, "id"), req->org_id))
        != APR_SUCCESS) {
        db_failed(req, resp, c, 627, "reading a webhook delivery");
        return;
    }
    trv_db_close(req->env->db, c);
    if (rows->n == 0) {
        trv_fail(req, resp, 404, "not_found", "No delivery %s",
                 apr_table_get(req->params, "delivery_id"));
        return;
    }
    trv_ok(req, resp, 200, trv_dlv_json(req->pool, rows, 0), NULL);
}

static void replay_delivery(trv_req *req, trv_resp *resp)
{
    const char *sub_id = apr_table_get(req->params, "id");
    const char *dlv_id = apr_table_get(req->params, "delivery_id");
    trv_rows *rows, *st;
    trv_dbc *c;
    int replay;

    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS) {
        db_failed(req, resp, NULL, 628, "replaying a webhook delivery");
        return;
    }
    if (trv_db_begin(c, req->pool) != APR_SUCCESS) {
        db_failed(req, resp, c, 629, "replaying a webhook delivery");
        return;
    }
    /* The subscription row is locked so a concurrent pause waits for us. */
    if (!subscription_visible(req, resp, c, &get_locked_stmt, &rows)) {
        return;
    }
    if (trv_db_select(c, req->pool, &dlv_replayable_stmt, &st,
                      TRV_DB_ARGS(dlv_id, sub_id, req->org_id)) != APR_SUCCESS) {
        db_failed(req, resp, c, 633, "replaying a webhook delivery");
        return;
    }
    if (st->n == 0) {
        trv_db_close(req->env->db, c);
        trv_fail(req, resp, 404, "not_found", "No delivery %s", dlv_id);
        return;
    }
    if (trv_transit_from_text(&trv_subscription_status_table, trv_rows_get(rows, 0, "status"))
        != TRV_SUBSCRIPTION_ACTIVE) {
        trv_db_close(req->env->db, c);
        trv_fail(req, resp, 409, "subscription_paused",
                 "The subscription is paused; resume it (status ACTIVE) before replaying");
        return;
    }
    if (!trv_rows_bool(st, 0, "replayable")) {
        const char *s = trv_rows_get(st, 0, "status");
        trv_db_close(req->env->db, c);
        trv_fail(req, resp, 409, "not_replayable",
                 "The delivery is %s: only a DELIVERED or FAILED delivery, one PENDING "
                 "for over a minute, or one PUBLISHED over 2 hours 15 minutes ago without "
                 "a result can be replayed", s);
        return;
    }
    if (trv_db_select(c, req->pool, &dlv_replay_stmt, &st, TRV_DB_ARGS(dlv_id))
            != APR_SUCCESS
        || st->n != 1) {
        db_failed(req, resp, c, 630, "replaying a webhook delivery");
        return;
    }
    replay = trv_rows_int(st, 0, "replay_count", 0);
    if (trv_webhook_send_enqueue(c, req->pool, dlv_id, replay, 1, 0) != APR_SUCCESS
        || trv_db_select(c, req->pool, &dlv_get_stmt, &rows,
                         TRV_DB_ARGS(dlv_id, sub_id, req->org_id)) != APR_SUCCESS
        || trv_db_commit(c) != APR_SUCCESS) {
        db_failed(req, resp, c, 631, "replaying a webhook delivery");
        return;
    }
    trv_db_close(req->env->db, c);
    trv_env_wake(req->env);
    trv_log_msg(&req->log, TRV_LOG_INFO, req->request_id,
                TRVLOGNO(632) "webhook delivery %s replayed (replay %d)", dlv_id, replay);
    trv_ok(req, resp, 200, trv_dlv_json(req->pool, rows, 0), NULL);
}

/* The subscription endpoints of one event family, under /v1/<family>/. */
const trv_route *trv_webhook_routes_for(apr_pool_t *p, const trv_domain *emitter)
{
    static const trv_route shape[] = {
        {"POST", "", create_subscription, TRV_ROUTE_IDEMPOTENT},
        {"GET", "", list_subscriptions, 0},
        {"GET", "/{id:whs}", get_subscription, 0},
        {"PATCH", "/{id:whs}", patch_subscription, TRV_ROUTE_IDEMPOTENT},
        {"DELETE", "/{id:whs}", delete_subscription, TRV_ROUTE_IDEMPOTENT},
        {"POST", "/{id:whs}/rotate-secret", rotate_secret,
         TRV_ROUTE_NO_BODY | TRV_ROUTE_IDEMPOTENT},
        {"GET", "/{id:whs}/deliveries", list_deliveries, TRV_ROUTE_OWN_QUERY},
        {"GET", "/{id:whs}/deliveries/{delivery_id:dlv}", get_delivery, 0},
        {"POST", "/{id:whs}/deliveries/{delivery_id:dlv}/replay", replay_delivery,
         TRV_ROUTE_NO_BODY | TRV_ROUTE_IDEMPOTENT},
        {"POST", "/{id:whs}/recover", trv_webhook_recover, TRV_ROUTE_IDEMPOTENT},
        /* Not under webhook-subscriptions: the family's event log. */
        {"GET", "/events", trv_webhook_events, TRV_ROUTE_OWN_QUERY},
    };
    size_t i, n = sizeof(shape) / sizeof(shape[0]);
    trv_route *routes = apr_pcalloc(p, (n + 1) * sizeof(*routes));
    for (i = 0; i < n; i++) {
        routes[i] = shape[i];
        routes[i].pattern = apr_pstrcat(p, "/v1/", emitter->name,
                                        strcmp(shape[i].pattern, "/events") == 0
                                            ? "" : "/webhook-subscriptions",
                                        shape[i].pattern, NULL);
    }
    return routes;
}
