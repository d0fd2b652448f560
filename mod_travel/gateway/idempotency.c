#include "idempotency.h"
#include "account/keys.h"
#include "core/api.h"
#include "core/crypt.h"
#include "core/idempotency.h"
#include "core/json.h"
#include "core/validate.h"
#include "core/owner.h"

#include <apr_atomic.h>
#include <apr_strings.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Takes the key: a new row, or one whose answer is older than 24 hours,
 * or one whose request died running (no answer after 10 minutes). */
static const trv_stmt claim_stmt = {"trv_idem_claim",
    "INSERT INTO idempotent_requests (org_id, user_scope, idem_key, fingerprint, owner) "
    "VALUES (%s, %s, %s, %s, %s) "
    "ON CONFLICT (org_id, user_scope, idem_key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, "
    "status = NULL, answer = NULL, created_at = trv_now(), completed_at = NULL, "
    "owner = EXCLUDED.owner "
    "WHERE idempotent_requests.created_at < trv_now() - interval '24 hours' "
    "OR (idempotent_requests.status IS NULL "
    "AND idempotent_requests.created_at < trv_now() - interval '10 minutes') "
    "RETURNING 1 AS mine"};
/* Takes over a running key whose process is provably gone (checked by the
 * caller); the same owner in the WHERE makes one of several takers win. */
static const trv_stmt takeover_stmt = {"trv_idem_takeover",
    "UPDATE idempotent_requests SET owner = %s, created_at = trv_now() "
    "WHERE org_id = %s AND user_scope = %s AND idem_key = %s AND fingerprint = %s "
    "AND status IS NULL AND owner = %s RETURNING 1 AS mine"};
static const trv_stmt read_stmt = {"trv_idem_read",
    "SELECT fingerprint, status, answer, owner FROM idempotent_requests "
    "WHERE org_id = %s AND user_scope = %s AND idem_key = %s"};
static const trv_stmt keep_stmt = {"trv_idem_keep",
    "UPDATE idempotent_requests SET status = %d, answer = %s, completed_at = trv_now() "
    "WHERE org_id = %s AND user_scope = %s AND idem_key = %s AND fingerprint = %s "
    "AND status IS NULL"};
static const trv_stmt release_stmt = {"trv_idem_release",
    "DELETE FROM idempotent_requests WHERE org_id = %s AND user_scope = %s "
    "AND idem_key = %s AND fingerprint = %s AND status IS NULL"};

/* Answers past their 24 hours are dropped a few at a time by the requests
 * that keep new ones (the created_at index makes it cheap), so the table
 * holds about a day of keys without a job of its own. */
static const trv_stmt purge_stmt = {"trv_idem_purge",
    "DELETE FROM idempotent_requests WHERE (org_id, user_scope, idem_key) IN ("
    "SELECT org_id, user_scope, idem_key FROM idempotent_requests "
    "WHERE created_at < trv_now() - interval '24 hours' ORDER BY created_at LIMIT 20)"};

typedef struct held {
    const char *key;
    const char *scope;
    const char *fingerprint;
} held;

/* Whose the key is: '' for the organization, else the calling user (a
 * route on a user's own resource, TRV_ROUTE_USER_SCOPED). */
static const char *scope_of(const trv_req *req, int user_scoped)
{
    return user_scoped && req->user_id ? req->user_id : "";
}

/* The sealed answer is bound to its organization, user scope and key (an
 * organization-scoped one as before the user scope existed). */
static const char *aad_of(trv_req *req, const char *scope, const char *key)
{
    return *scope ? apr_pstrcat(req->pool, "idempotency:", req->org_id, ":", scope, ":", key,
                                NULL)
                  : apr_pstrcat(req->pool, "idempotency:", req->org_id, ":", key, NULL);
}

static int replay(trv_req *req, trv_resp *resp, const char *scope, const char *key,
                  int status, const char *answer)
{
    const trv_config *cfg = req->env->cfg;
    const char *plain = answer;
    json_t *doc;
    if (answer && strncmp(answer, "v1:", 3) == 0) {
        if (!cfg || !cfg->have_secret_key
            || trv_crypt_open(req->pool, cfg->secret_key, aad_of(req, scope, key), answer,
                              &plain) != APR_SUCCESS) {
            trv_log_msg(&req->log, TRV_LOG_ERR, req->request_id,
                        TRVLOGNO(231) "the kept answer of an idempotent request cannot "
                        "be opened (TravelSecretKeyFile changed?)");
            trv_fail(req, resp, 500, "internal_error",
                     "An internal error occurred; the request id identifies it");
            return 0;
        }
    }
    doc = plain ? json_loads(plain, 0, NULL) : NULL;
    if (!doc) {
        trv_fail(req, resp, 500, "internal_error",
                 "An internal error occurred; the request id identifies it");
        return 0;
    }
    trv_ok_document(req, resp, status, doc);
    apr_table_setn(resp->headers, "Idempotent-Replayed", "true");
    return 0;
}

static int begin(trv_req *req, trv_resp *resp, int user_scoped, void **token)
{
    const char *key = apr_table_get(req->headers, "x-idempotency-key");
    const char *scope = scope_of(req, user_scoped);
    const char *fp;
    trv_rows *rows;
    trv_dbc *c;
    held *h;
    int attempt;
    const char *me, *owner;

    *token = NULL;
    if (!key || !req->org_id) {
        return 1; /* optional here: without a key the request just runs */
    }
    if (!trv_idempotency_key_valid(key)) {
        trv_errs *errs = trv_errs_new(req->pool);
        trv_idempotency_key_check(key, TRV_IDEMPOTENCY_KEY_MAX, errs);
        trv_fail_invalid(req, resp, errs);
        return 0;
    }
    fp = trv_idempotency_fingerprint(req->pool, req->method, req->path, req->args, req->json);
    me = trv_owner_self(req->pool);
    if (!trv_api_db_open(req, resp, &c, 232, "claiming an idempotency key")) {
        return 0;
    }
    /* Twice: a row released between our claim and our read is claimable. */
    for (attempt = 0; attempt < 2; attempt++) {
        const char *status;
        if (trv_db_select(c, req->pool, &claim_stmt, &rows,
                          TRV_DB_ARGS(req->org_id, scope, key, fp, me)) != APR_SUCCESS) {
            break;
        }
        if (rows->n == 1) {
            trv_db_close(req->env->db, c);
            h = apr_pcalloc(req->pool, sizeof(*h));
            h->key = key;
            h->scope = scope;
            h->fingerprint = fp;
            *token = h;
            return 1;
        }
        if (trv_db_select(c, req->pool, &read_stmt, &rows,
                          TRV_DB_ARGS(req->org_id, scope, key))
            != APR_SUCCESS) {
            break;
        }
        if (rows->n == 0) {
            continue;
        }
        status = trv_rows_get(rows, 0, "status");
        owner = trv_rows_get(rows, 0, "owner");
        /* The first request's process was killed while it ran (an httpd
         * child crashed or was killed): nobody will ever finish it, so the
         * key is this request's now, not in use for 10 minutes. What that
         * request changed is found by the request run again (every route
         * taking a key reads the state it changes). */
        if (!status && owner && strcmp(trv_rows_get(rows, 0, "fingerprint"), fp) == 0
            && trv_owner_gone(req->pool, owner)) {
            if (trv_db_select(c, req->pool, &takeover_stmt, &rows,
                              TRV_DB_ARGS(me, req->org_id, scope, key, fp, owner))
                != APR_SUCCESS) {
                break;
            }
            if (rows->n == 1) {
                trv_log_msg(&req->log, TRV_LOG_WARNING, req->request_id,
                            TRVLOGNO(236) "idempotency key taken over from %s, a process "
                            "that is gone", owner);
                trv_db_close(req->env->db, c);
                h = apr_pcalloc(req->pool, sizeof(*h));
                h->key = key;
                h->scope = scope;
                h->fingerprint = fp;
                *token = h;
                return 1;
            }
            continue;
        }
        trv_db_close(req->env->db, c);
        if (strcmp(trv_rows_get(rows, 0, "fingerprint"), fp) != 0) {
            trv_fail(req, resp, 409, "idempotency_key_reused",
                     "This x-idempotency-key was used for a different request; use a "
                     "new key for a new request");
            return 0;
        }
        if (!status) {
            trv_fail(req, resp, 409, "idempotency_key_in_use",
                     "A request with this x-idempotency-key is still in progress; "
                     "retry shortly");
            return 0;
        }
        return replay(req, resp, scope, key, atoi(status), trv_rows_get(rows, 0, "answer"));
    }
    if (attempt == 2) {
        trv_db_close(req->env->db, c);
        trv_fail(req, resp, 409, "idempotency_key_in_use",
                 "A request with this x-idempotency-key is still in progress; retry "
                 "shortly");
        return 0;
    }
    trv_fail_db(req, resp, c, 233, "claiming an idempotency key");
    trv_db_close(req->env->db, c);
    return 0;
}

/* Answers a retry should run again instead of getting back. A 404 says
 * the resource is not the caller's (or not there): kept, it would answer a
 * later request that can see the resource with that 404. */
static int worth_keeping(const trv_resp *resp)
{
    if (resp->status >= 500 || resp->status == 429 || resp->status == 404) {
        return 0;
    }
    return !(resp->status == 422 && resp->error_code
             && strcmp(resp->error_code, "validation_failed") == 0);
}

/* Answers (or releases, answer NULL) that could not be stored when their
 * request ended, for retry_pending; malloc'd, as they outlive the
 * request. Bounded: past it a key waits out its 10 minutes. */
typedef struct pending {
    struct pending *next;
    trv_env *env;
    char *org_id, *scope, *key, *fingerprint, *answer;
    int status;
} pending;

#define MAX_PENDING 2000

static pthread_mutex_t pending_lock = PTHREAD_MUTEX_INITIALIZER;
static pending *pending_list;
static volatile apr_uint32_t pending_n;

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

static void pending_free(pending *e)
{
    free(e->org_id);
    free(e->scope);
    free(e->key);
    free(e->fingerprint);
    free(e->answer);
    free(e);
}

static int defer(trv_env *env, const char *org_id, const char *scope, const char *key,
                 const char *fp, int status, const char *answer)
{
    pending *e;
    if (apr_atomic_read32(&pending_n) >= MAX_PENDING || !(e = calloc(1, sizeof(*e)))) {
        return 0;
    }
    e->env = env;
    e->org_id = strdup(org_id);
    e->scope = strdup(scope);
    e->key = strdup(key);
    e->fingerprint = strdup(fp);
    e->answer = dup_or_null(answer);
    e->status = status;
    pthread_mutex_lock(&pending_lock);
    e->next = pending_list;
    pending_list = e;
    apr_atomic_inc32(&pending_n);
    pthread_mutex_unlock(&pending_lock);
    return 1;
}

/* Stores one answer, or releases the key when there is none to keep. */
static apr_status_t store(trv_env *env, apr_pool_t *p, const char *org_id, const char *scope,
                          const char *key, const char *fp, int status, const char *answer,
                          const char **error)
{
    trv_dbc *c;
    apr_status_t rv;
    *error = TRV_DB_UNAVAILABLE ": no connection";
    if (trv_db_open(env->db, p, &c) != APR_SUCCESS) {
        return APR_EGENERAL;
    }
    rv = answer ? trv_db_exec(c, p, &keep_stmt, NULL,
                              TRV_DB_ARGS(apr_itoa(p, status), answer, org_id, scope, key, fp))
                : trv_db_exec(c, p, &release_stmt, NULL,
                              TRV_DB_ARGS(org_id, scope, key, fp));
    if (rv == APR_SUCCESS) {
        trv_db_exec(c, p, &purge_stmt, NULL, 0, NULL);
    }
    *error = c->error ? apr_pstrdup(p, c->error) : "failed";
    trv_db_close(env->db, c);
    return rv;
}

static void retry_pending(apr_pool_t *p)
{
    pending *list, *e, *keep = NULL;
    apr_pool_t *tmp;
    const char *error;
    if (apr_atomic_read32(&pending_n) == 0) {
        return;
    }
    pthread_mutex_lock(&pending_lock);
    list = pending_list;
    pending_list = NULL;
    pthread_mutex_unlock(&pending_lock);
    apr_pool_create(&tmp, p);
    while ((e = list) != NULL) {
        list = e->next;
        apr_pool_clear(tmp);
        if (store(e->env, tmp, e->org_id, e->scope, e->key, e->fingerprint, e->status,
                  e->answer, &error) == APR_SUCCESS) {
            apr_atomic_dec32(&pending_n);
            pending_free(e);
            continue;
        }
        e->next = keep;
        keep = e;
    }
    apr_pool_destroy(tmp);
    pthread_mutex_lock(&pending_lock);
    while ((e = keep) != NULL) {
        keep = e->next;
        e->next = pending_list;
        pending_list = e;
    }
    pthread_mutex_unlock(&pending_lock);
}

static void finish(trv_req *req, const trv_resp *resp, void *token)
{
    held *h = token;
    const trv_config *cfg = req->env->cfg;
    const char *answer = NULL, *error;
    int tries;
    if (worth_keeping(resp)) {
        answer = trv_resp_body(req->pool, resp);
        if (answer && cfg && cfg->have_secret_key
            && trv_crypt_seal(req->pool, cfg->secret_key, aad_of(req, h->scope, h->key), answer,
                              &answer) != APR_SUCCESS) {
            answer = NULL;
        }
    }
    /* A moment's blip is waited out here; a longer absence (PostgreSQL
     * restarting, a failover) hands the answer to retry_pending rather
     * than hold the client, and the key is not left in use for the 10
     * minutes a dead request's is. */
    for (tries = 0; tries < 3; tries++) {
        if (tries > 0) {
            apr_sleep(apr_time_from_msec(250));
        }
        if (store(req->env, req->pool, req->org_id, h->scope, h->key, h->fingerprint,
                  resp->status, answer, &error) == APR_SUCCESS) {
            return;
        }
    }
    if (req->env->idempotency && req->env->idempotency->retry_pending
        && defer(req->env, req->org_id, h->scope, h->key, h->fingerprint, resp->status,
                 answer)) {
        trv_log_msg(&req->log, TRV_LOG_WARNING, req->request_id,
                    TRVLOGNO(2210) "keeping an idempotent answer: %s; it is stored when "
                    "the database is back", error);
        return;
    }
    trv_log_msg(&req->log, TRV_LOG_ERR, req->request_id,
                TRVLOGNO(235) "keeping an idempotent answer: %s; its key stays in use for "
                "10 minutes", error);
}

const trv_idempotency *trv_gateway_idempotency(void)
{
    static const trv_idempotency idem = {begin, finish, retry_pending};
    return &idem;
}
