#include "keys.h"
#include "core/crypt.h"
#include "core/ids.h"

#include <apr_strings.h>
#include <string.h>
#include <strings.h>

static const trv_stmt lookup_stmt = {"trv_key_lookup",
    "SELECT k.id, k.org_id, k.user_id, k.key_hash, k.mode, "
    "(extract(epoch FROM k.expires_at) * 1000000)::bigint AS expires_us FROM api_keys k "
    "WHERE k.key_hash = %s AND k.revoked_at IS NULL "
    "AND (k.expires_at IS NULL OR k.expires_at > trv_now())"};

static const trv_stmt org_insert = {"trv_org_insert",
    "INSERT INTO organizations (id, name) VALUES (%s, %s) RETURNING id"};

static const trv_stmt org_exists = {"trv_org_exists",
    "SELECT id FROM organizations WHERE id = %s"};

static const trv_stmt user_upsert = {"trv_user_upsert",
    "WITH ins AS (INSERT INTO users (id, org_id, name) VALUES (%s, %s, %s) "
    "ON CONFLICT (org_id, name) DO NOTHING RETURNING id) "
    "SELECT id FROM ins UNION ALL "
    "SELECT id FROM users WHERE org_id = %s AND name = %s LIMIT 1"};

static const trv_stmt key_insert = {"trv_key_insert",
    "INSERT INTO api_keys (id, org_id, user_id, key_hash, key_prefix, mode, expires_at) "
    "VALUES (%s, %s, %s, %s, %s, %s, %s::timestamptz)"};

static const trv_stmt org_list = {"trv_org_list",
    "SELECT id, name, trv_ts(created_at) AS created_at FROM organizations "
    "ORDER BY created_at, id"};

static const trv_stmt key_revoke = {"trv_key_revoke",
    "UPDATE api_keys SET revoked_at = COALESCE(revoked_at, trv_now()) WHERE id = %s"};

static const trv_stmt key_revoke_in_org = {"trv_key_revoke_in_org",
    "UPDATE api_keys SET revoked_at = COALESCE(revoked_at, trv_now()) "
    "WHERE id = %s AND org_id = %s"};

static const trv_stmt key_list = {"trv_key_list",
    "SELECT k.id, u.name AS user_name, k.key_prefix, k.mode, trv_ts(k.created_at) AS created_at, "
    "trv_ts(k.revoked_at) AS revoked_at, trv_ts(k.expires_at) AS expires_at FROM api_keys k JOIN users u ON u.id = k.user_id "
    "WHERE k.org_id = %s ORDER BY k.created_at, k.id"};

const char *trv_key_of_headers(const apr_table_t *headers)
{
    const char *key = apr_table_get(headers, "x-api-key"), *auth;
    if (key && *key) {
        return key;
    }
    auth = apr_table_get(headers, "Authorization");
    if (!auth || strncasecmp(auth, "Bearer ", 7) != 0) {
        return key;
    }
    for (auth += 7; *auth == ' '; auth++) {
    }
    return *auth ? auth : key;
}

int trv_key_well_formed(const char *key)
{
    size_t i, n;
    if (!key || (strncmp(key, "tk_live_", 8) != 0 && strncmp(key, "tk_test_", 8) != 0)) {
        return 0;
    }
    n = strlen(key);
    if (n < 9 || n > 200) {
        return 0;
    }
    for (i = 8; i < n; i++) {
        char ch = key[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z')
              || (ch >= '0' && ch <= '9'))) {
            return 0;
        }
    }
    return 1;
}

apr_status_t trv_key_authenticate(trv_dbc *c, apr_pool_t *p, const char *key,
                                  trv_principal *who)
{
    trv_rows *rows;
    const char *hash, *stored, *expires;

    if (!trv_key_well_formed(key)) {
        return APR_ENOENT;
    }
    hash = trv_crypt_sha256_hex(p, key, strlen(key));
    if (trv_db_select(c, p, &lookup_stmt, &rows, TRV_DB_ARGS(hash)) != APR_SUCCESS) {
        return APR_EGENERAL;
    }
    if (rows->n != 1) {
        return APR_ENOENT;
    }
    stored = trv_rows_get(rows, 0, "key_hash");
    /* The lookup already matched; compare in constant time all the same so
     * no code path branches on a partial match of secret material. */
    if (!stored || strlen(stored) != 64 || !trv_crypt_equal(stored, hash, 64)) {
        return APR_ENOENT;
    }
    who->key_id = trv_rows_get(rows, 0, "id");
    who->org_id = trv_rows_get(rows, 0, "org_id");
    who->user_id = trv_rows_get(rows, 0, "user_id");
    who->mode = trv_rows_get(rows, 0, "mode");
    expires = trv_rows_get(rows, 0, "expires_us");
    who->expires_at = expires ? (apr_time_t)apr_atoi64(expires) : 0; /* NULL: never */
    return APR_SUCCESS;
}

apr_status_t trv_org_create(trv_dbc *c, apr_pool_t *p, const char *name,
                            const char **org_id)
{
    trv_rows *rows;
    const char *id = trv_id_new(p, "org");
    if (trv_db_select(c, p, &org_insert, &rows, TRV_DB_ARGS(id, name)) != APR_SUCCESS) {
        return APR_EGENERAL;
    }
    *org_id = id;
    return APR_SUCCESS;
}

apr_status_t trv_key_create(trv_dbc *c, apr_pool_t *p, const char *org_id,
                            const char *user_name, int live, const char **key_id,
                            const char **key)
{
    return trv_key_create_expiring(c, p, org_id, user_name, live, NULL, key_id, key);
}

apr_status_t trv_org_user(trv_dbc *c, apr_pool_t *p, const char *org_id, const char *name,
                          const char **user_id)
{
    trv_rows *rows;
    if (trv_db_select(c, p, &org_exists, &rows, TRV_DB_ARGS(org_id)) != APR_SUCCESS) {
        return APR_EGENERAL;
    }
    if (rows->n == 0) {
        return APR_ENOENT;
    }
    if (trv_db_select(c, p, &user_upsert, &rows,
                      TRV_DB_ARGS(trv_id_new(p, "usr"), org_id, name, org_id, name))
            != APR_SUCCESS
        || rows->n != 1) {
        return APR_EGENERAL;
    }
    *user_id = trv_rows_get(rows, 0, "id");
    return APR_SUCCESS;
}

apr_status_t trv_key_create_expiring(trv_dbc *c, apr_pool_t *p, const char *org_id,
                                     const char *user_name, int live,
                                     const char *expires_at, const char **key_id,
                                     const char **key)
{
    const char *user_id, *secret, *k;
    apr_status_t rv;

    if (trv_db_begin(c, p) != APR_SUCCESS) {
        return APR_EGENERAL;
    }
    if ((rv = trv_org_user(c, p, org_id, user_name, &user_id)) != APR_SUCCESS) {
        trv_db_rollback(c);
        return rv;
    }
    secret = trv_random_token(p, 32);
    if (!secret) {
        trv_db_rollback(c);
        return APR_EGENERAL;
    }
    k = apr_pstrcat(p, live ? "tk_live_" : "tk_test_", secret, NULL);
    *key_id = trv_id_new(p, "key");
    trv_db_exec(c, p, &key_insert, NULL,
                TRV_DB_ARGS(*key_id, org_id, user_id, trv_crypt_sha256_hex(p, k, strlen(k)),
                            apr_pstrndup(p, k, 12), live ? "live" : "test", expires_at));
    if (trv_db_commit(c) != APR_SUCCESS) {
        return APR_EGENERAL;
    }
    *key = k;
    return APR_SUCCESS;
}

apr_status_t trv_key_revoke(trv_dbc *c, apr_pool_t *p, const char *key_id)
{
    int n = 0;
    if (trv_db_exec(c, p, &key_revoke, &n, TRV_DB_ARGS(key_id)) != APR_SUCCESS) {
        return APR_EGENERAL;
    }
    return n == 1 ? APR_SUCCESS : APR_ENOENT;
}

apr_status_t trv_key_revoke_in_org(trv_dbc *c, apr_pool_t *p, const char *org_id,
                                   const char *key_id)
{
    int n = 0;
    if (trv_db_exec(c, p, &key_revoke_in_org, &n, TRV_DB_ARGS(key_id, org_id))
            != APR_SUCCESS) {
        return APR_EGENERAL;
    }
    return n == 1 ? APR_SUCCESS : APR_ENOENT;
}

apr_status_t trv_key_list(trv_dbc *c, apr_pool_t *p, const char *org_id,
                          trv_rows **rows)
{
    return trv_db_select(c, p, &key_list, rows, TRV_DB_ARGS(org_id));
}

apr_status_t trv_org_list(trv_dbc *c, apr_pool_t *p, trv_rows **rows)
{
    return trv_db_select(c, p, &org_list, rows, 0, NULL);
}
