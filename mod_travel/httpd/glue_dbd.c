/* trv_dbsrc over mod_dbd's pooled connections. Connections are borrowed
 * with ap_dbd_open for one short step and given back with ap_dbd_close, so
 * no thread holds one across a supplier call (mod_dbd's pool has no acquire
 * timeout: a held connection starves every other thread). */
#include "glue.h"

#include "apr_optional.h"
#include "mod_dbd.h"

/* After mod_dbd could give no connection, opens fail at once for this
 * long: during an outage it would otherwise try to connect (and log
 * AH00629/AH00630) for every request, tens of lines a second. A reset that
 * finds the database back (a restart, a promoted standby) ends it. */
#define FAIL_FAST apr_time_from_sec(1)

typedef struct source {
    server_rec *s;
    volatile apr_uint64_t down_until; /* apr_time_t; 0 when up */
} source;

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
    source *so = src->baton;
    apr_time_t until = (apr_time_t)apr_atomic_read64(&so->down_until);
    ap_dbd_t *d;
    trv_dbc *c;
    if (until && apr_time_now() < until) {
        return APR_EGENERAL;
    }
    d = dbd_open_fn(p, so->s);
    if (!d) {
        apr_atomic_set64(&so->down_until, (apr_uint64_t)(apr_time_now() + FAIL_FAST));
        return APR_EGENERAL;
    }
    if (until) {
        apr_atomic_set64(&so->down_until, 0);
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
    dbd_close_fn(((source *)src->baton)->s, (ap_dbd_t *)c->token);
}

trv_dbsrc *trv_httpd_dbsrc(apr_pool_t *p, server_rec *s)
{
    trv_dbsrc *src = apr_pcalloc(p, sizeof(*src));
    source *so = apr_pcalloc(p, sizeof(*so));
    so->s = s;
    src->open = open_conn;
    src->close = close_conn;
    src->baton = so;
    return src;
}
