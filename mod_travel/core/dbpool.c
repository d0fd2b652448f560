#include "dbpool.h"

#include <apr_dbd.h>
#include <apr_reslist.h>
#include <libpq-fe.h>

typedef struct dbpool {
    const char *conninfo;
    apr_reslist_t *list;
} dbpool;

/* One connection: its own pool, so the reslist's destructor frees all of
 * it (the statement table included) with the connection. The pool is
 * unmanaged: a child of the reslist's pool would be destroyed before the
 * reslist's cleanup runs (APR destroys subpools first), and the destructor
 * would then close and destroy freed memory when a child process exits. */
typedef struct pooled {
    apr_pool_t *pool;
    trv_dbc *dbc;
} pooled;

static apr_status_t construct(void **res, void *params, apr_pool_t *p)
{
    dbpool *dp = params;
    pooled *c;
    apr_pool_t *cp;
    const char *err = NULL;
    apr_status_t rv;
    (void)p;
    if ((rv = apr_pool_create_unmanaged_ex(&cp, NULL, NULL)) != APR_SUCCESS) {
        return rv;
    }
    c = apr_pcalloc(cp, sizeof(*c));
    c->pool = cp;
    rv = trv_db_connect(cp, dp->conninfo, &c->dbc, &err);
    if (rv != APR_SUCCESS) {
        apr_pool_destroy(cp);
        return rv;
    }
    c->dbc->token = c;
    *res = c;
    return APR_SUCCESS;
}

static apr_status_t destruct(void *res, void *params, apr_pool_t *p)
{
    pooled *c = res;
    (void)params;
    (void)p;
    apr_dbd_close(c->dbc->driver, c->dbc->handle);
    apr_pool_destroy(c->pool);
    return APR_SUCCESS;
}

static apr_status_t pool_open(trv_dbsrc *src, apr_pool_t *p, trv_dbc **out)
{
    dbpool *dp = src->baton;
    void *res;
    (void)p;
    if (apr_reslist_acquire(dp->list, &res) != APR_SUCCESS) {
        return APR_EGENERAL;
    }
    *out = ((pooled *)res)->dbc;
    return APR_SUCCESS;
}

static void pool_close(trv_dbsrc *src, trv_dbc *c)
{
    dbpool *dp = src->baton;
    PGconn *conn = apr_dbd_native_handle(c->driver, c->handle);
    /* trv_db_close broke a connection that must not serve again: it goes,
     * and the next acquire opens a new one from the conninfo. */
    if (!conn || PQstatus(conn) != CONNECTION_OK) {
        apr_reslist_invalidate(dp->list, c->token);
    }
    else {
        apr_reslist_release(dp->list, c->token);
    }
}

trv_dbsrc *trv_dbpool_create(apr_pool_t *p, const char *conninfo, int max,
                             apr_interval_time_t ttl, const char **error)
{
    trv_dbsrc *src = apr_pcalloc(p, sizeof(*src));
    dbpool *dp = apr_pcalloc(p, sizeof(*dp));
    dp->conninfo = conninfo;
    /* No connection is opened here (min 0): a standby that is down at
     * start only means reads go to the primary until it is back. */
    if (apr_reslist_create(&dp->list, 0, 0, max > 0 ? max : 1, ttl, construct, destruct,
                           dp, p) != APR_SUCCESS) {
        *error = "cannot create the connection pool";
        return NULL;
    }
    /* A connection that cannot be opened fails at once, not after a wait. */
    apr_reslist_timeout_set(dp->list, apr_time_from_sec(2));
    src->open = pool_open;
    src->close = pool_close;
    src->baton = dp;
    return src;
}
