/* trv_dbsrc over mod_dbd's pooled connections. Connections are borrowed
 * with ap_dbd_open for one short step and given back with ap_dbd_close, so
 * no thread holds one across a supplier call (mod_dbd's pool has no acquire
 * timeout: a held connection starves every other thread). */
#include "glue.h"

#include "apr_optional.h"
#include "mod_dbd.h"

static APR_OPTIONAL_FN_TYPE(ap_dbd_open) *dbd_open_fn;
static APR_OPTIONAL_FN_TYPE(ap_dbd_close) *dbd_close_fn;

const char *trv_httpd_dbd_check(void)
{
    dbd_open_fn = APR_RETRIEVE_OPTIONAL_FN(ap_dbd_open);
    dbd_close_fn = APR_RETRIEVE_OPTIONAL_FN(ap_dbd_close);
    if (!dbd_open_fn || !dbd_close_fn) {
        return "mod_dbd is not loaded: add LoadModule dbd_module and DBDriver pgsql";
    }
    return NULL;
}

static apr_status_t open_conn(trv_dbsrc *src, apr_pool_t *p, trv_dbc **out)
{
    ap_dbd_t *d = dbd_open_fn(p, (server_rec *)src->baton);
    trv_dbc *c;
    if (!d) {
        return APR_EGENERAL;
    }
    c = apr_pcalloc(p, sizeof(*c));
    c->driver = d->driver;
    c->handle = d->handle;
    c->prepared = &d->prepared;
    c->conn_pool = d->pool;
    c->token = d;
    *out = c;
    return APR_SUCCESS;
}

static void close_conn(trv_dbsrc *src, trv_dbc *c)
{
    dbd_close_fn((server_rec *)src->baton, (ap_dbd_t *)c->token);
}

trv_dbsrc *trv_httpd_dbsrc(apr_pool_t *p, server_rec *s)
{
    trv_dbsrc *src = apr_pcalloc(p, sizeof(*src));
    src->open = open_conn;
    src->close = close_conn;
    src->baton = s;
    return src;
}
