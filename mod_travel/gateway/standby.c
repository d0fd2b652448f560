#include "standby.h"

#include "core/log.h"

#include <apr_lib.h>
#include <apr_strings.h>
#include <string.h>

/* The reads that write nothing (their handlers say so) and that clients
 * poll: one booking and the list, flights and hotels. */
static int readable(const trv_req *req)
{
    static const char *const prefixes[] = {"/v1/flight/bookings", "/v1/hotel/bookings", NULL};
    int i;
    if (strcmp(req->method, "GET") != 0) {
        return 0;
    }
    for (i = 0; prefixes[i]; i++) {
        size_t n = strlen(prefixes[i]);
        const char *rest = req->path + n;
        if (strncmp(req->path, prefixes[i], n) != 0) {
            continue;
        }
        /* The list, or /{id} with nothing after it (not the
         * cancellation quote or estimate, which ask the supplier). */
        if (!*rest || (rest[0] == '/' && rest[1] && !strchr(rest + 1, '/'))) {
            return 1;
        }
    }
    return 0;
}

int trv_standby_lsn_ok(const char *s)
{
    int i;
    for (i = 0; i < 2; i++) {
        int n = 0;
        while (apr_isxdigit(*s) && n < 9) {
            s++;
            n++;
        }
        if (n < 1 || n > 8 || *s != (i == 0 ? '/' : '\0')) {
            return 0;
        }
        s++;
    }
    return 1;
}

static const trv_stmt fresh_stmt = {
    "standby_fresh",
    /* NULL (not in recovery: a promoted standby) is not fresh. */
    "SELECT coalesce(pg_last_wal_replay_lsn() >= %s::pg_lsn, false) AS fresh"};

static const trv_stmt lsn_stmt = {
    "standby_write_lsn", "SELECT pg_current_wal_insert_lsn()::text AS lsn"};

static void say(trv_resp *resp, apr_pool_t *p, const char *name, const char *value)
{
    if (!resp->headers) {
        resp->headers = apr_table_make(p, 2);
    }
    apr_table_setn(resp->headers, name, value);
}

void trv_standby_begin(trv_req *req, trv_resp *resp)
{
    const char *want = apr_table_get(req->headers, "x-travel-min-lsn");
    trv_dbsrc *standby = req->env->standby;
    trv_rows *rows;
    trv_dbc *c;
    trv_env *env;
    if (!standby || !readable(req)) {
        return;
    }
    say(resp, req->pool, "x-travel-read-from", "primary");
    if (!want || !trv_standby_lsn_ok(want)) {
        return;
    }
    if (trv_db_open(standby, req->pool, &c) != APR_SUCCESS) {
        trv_log_msg(&req->log, TRV_LOG_INFO, req->request_id, TRVLOGNO(2800)
                    "the standby (TravelStandbyConnInfo) cannot be reached: read from the "
                    "primary");
        return;
    }
    if (trv_db_select(c, req->pool, &fresh_stmt, &rows, TRV_DB_ARGS(want)) != APR_SUCCESS
        || !trv_rows_bool(rows, 0, "fresh")) {
        if (c->error) {
            trv_log_msg(&req->log, TRV_LOG_INFO, req->request_id, TRVLOGNO(2801)
                        "the standby did not answer (%s): read from the primary", c->error);
        }
        trv_db_close(standby, c);
        return;
    }
    /* The read runs on this very connection: the position just checked
     * is the one it reads at or after. */
    env = apr_pmemdup(req->pool, req->env, sizeof(*env));
    env->db = trv_dbsrc_single(req->pool, c);
    req->env = env;
    say(resp, req->pool, "x-travel-read-from", "standby");
}

void trv_standby_end(trv_req *req, trv_resp *resp, trv_env *env)
{
    trv_rows *rows;
    trv_dbc *c;
    if (req->env != env) {
        /* The read's connection, pinned by trv_standby_begin. */
        trv_db_close(env->standby, req->env->db->baton);
        req->env = env;
        return;
    }
    if (!env->standby || strcmp(req->method, "GET") == 0 || resp->status < 200
        || resp->status > 299) {
        return;
    }
    /* The write committed before this: the insert position now is at or
     * after its commit record. */
    if (trv_db_open(env->db, req->pool, &c) != APR_SUCCESS) {
        return;
    }
    if (trv_db_select(c, req->pool, &lsn_stmt, &rows, 0, NULL) == APR_SUCCESS
        && trv_rows_get(rows, 0, "lsn")) {
        say(resp, req->pool, "x-travel-lsn", trv_rows_get(rows, 0, "lsn"));
    }
    trv_db_close(env->db, c);
}
