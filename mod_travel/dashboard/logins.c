#include "logins.h"
#include "account/keys.h"

static const trv_stmt grant_stmt = {"trv_dash_grant",
    "INSERT INTO dashboard_logins (login, org_id, user_id) VALUES (%s, %s, %s) "
    "ON CONFLICT (login) DO UPDATE SET org_id = excluded.org_id, user_id = excluded.user_id"};

static const trv_stmt revoke_stmt = {"trv_dash_revoke",
    "DELETE FROM dashboard_logins WHERE login = %s"};

static const trv_stmt lookup_stmt = {"trv_dash_lookup",
    "SELECT l.org_id, o.name AS org_name, l.user_id, u.name AS user_name "
    "FROM dashboard_logins l JOIN organizations o ON o.id = l.org_id "
    "JOIN users u ON u.id = l.user_id AND u.org_id = l.org_id WHERE l.login = %s"};

apr_status_t trv_dash_grant(trv_dbc *c, apr_pool_t *p, const char *org_id,
                            const char *login, const char **user_id)
{
    apr_status_t rv;
    if (trv_db_begin(c, p) != APR_SUCCESS) {
        return APR_EGENERAL;
    }
    /* The login's user: shared with API keys made for that name. */
    if ((rv = trv_org_user(c, p, org_id, login, user_id)) != APR_SUCCESS) {
        trv_db_rollback(c);
        return rv;
    }
    trv_db_exec(c, p, &grant_stmt, NULL, TRV_DB_ARGS(login, org_id, *user_id));
    return trv_db_commit(c) == APR_SUCCESS ? APR_SUCCESS : APR_EGENERAL;
}

apr_status_t trv_dash_revoke(trv_dbc *c, apr_pool_t *p, const char *login)
{
    int n = 0;
    if (trv_db_exec(c, p, &revoke_stmt, &n, TRV_DB_ARGS(login)) != APR_SUCCESS) {
        return APR_EGENERAL;
    }
    return n == 1 ? APR_SUCCESS : APR_ENOENT;
}

apr_status_t trv_dash_lookup(trv_dbc *c, apr_pool_t *p, const char *login,
                             trv_dash_who *who)
{
    trv_rows *rows;
    if (trv_db_select(c, p, &lookup_stmt, &rows, TRV_DB_ARGS(login)) != APR_SUCCESS) {
        return APR_EGENERAL;
    }
    if (rows->n != 1) {
        return APR_ENOENT;
    }
    who->login = login;
    who->org_id = trv_rows_get(rows, 0, "org_id");
    who->org_name = trv_rows_get(rows, 0, "org_name");
    who->user_id = trv_rows_get(rows, 0, "user_id");
    who->user_name = trv_rows_get(rows, 0, "user_name");
    return APR_SUCCESS;
}
