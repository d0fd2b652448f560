/* The fake database of fake_db.h. Linked into every fuzz target with
 * -Wl,--wrap for each trv_db_* below: a connection of fz_db_make's source
 * carries the marker in its token and never reaches apr_dbd; any other
 * connection goes to the real function unchanged. */
#include "fake_db.h"

#include <string.h>

static char marker; /* c->token of a fake connection */

typedef struct fz_db {
    trv_dbsrc src;
    const char *const *empty;
} fz_db;

/* A fake connection: the trv_dbc first, so a trv_dbc * is one. */
typedef struct fake_conn {
    trv_dbc c;
    const fz_db *db;
} fake_conn;

apr_status_t __real_trv_db_open(trv_dbsrc *src, apr_pool_t *p, trv_dbc **out);
apr_status_t __real_trv_db_select(trv_dbc *c, apr_pool_t *p, const trv_stmt *st,
                                  trv_rows **out, int nargs, const char *const *args);
apr_status_t __real_trv_db_exec(trv_dbc *c, apr_pool_t *p, const trv_stmt *st,
                                int *affected, int nargs, const char *const *args);
apr_status_t __real_trv_db_begin(trv_dbc *c, apr_pool_t *p);

static int fake(const trv_dbc *c)
{
    return c && c->token == &marker;
}

static apr_status_t fake_open(trv_dbsrc *src, apr_pool_t *p, trv_dbc **out)
{
    fake_conn *f = apr_pcalloc(p, sizeof(*f));
    f->c.token = &marker;
    f->c.conn_pool = p;
    f->db = src->baton;
    *out = &f->c;
    return APR_SUCCESS;
}

static void fake_close(trv_dbsrc *src, trv_dbc *c)
{
    (void)src;
    (void)c;
}

trv_dbsrc *fz_db_make(apr_pool_t *p, const char *const *empty_labels)
{
    fz_db *d = apr_pcalloc(p, sizeof(*d));
    d->src.open = fake_open;
    d->src.close = fake_close;
    d->src.baton = d;
    d->empty = empty_labels;
    return &d->src;
}

/* A fake source's connection skips the backend check (there is no libpq
 * connection behind it). */
apr_status_t __wrap_trv_db_open(trv_dbsrc *src, apr_pool_t *p, trv_dbc **out)
{
    if (src && src->open == fake_open) {
        return fake_open(src, p, out);
    }
    return __real_trv_db_open(src, p, out);
}

static apr_status_t down(trv_dbc *c)
{
    c->unavailable = 1;
    c->error = "fuzz: no database behind this connection";
    return APR_EGENERAL;
}

apr_status_t __wrap_trv_db_select(trv_dbc *c, apr_pool_t *p, const trv_stmt *st,
                                  trv_rows **out, int nargs, const char *const *args)
{
    const fz_db *d;
    const char *const *l;
    if (!fake(c)) {
        return __real_trv_db_select(c, p, st, out, nargs, args);
    }
    d = ((const fake_conn *)c)->db;
    for (l = d->empty; l && *l; l++) {
        if (strcmp(*l, st->label) == 0) {
            *out = apr_pcalloc(p, sizeof(**out));
            return APR_SUCCESS;
        }
    }
    return down(c);
}

apr_status_t __wrap_trv_db_exec(trv_dbc *c, apr_pool_t *p, const trv_stmt *st,
                                int *affected, int nargs, const char *const *args)
{
    return fake(c) ? down(c) : __real_trv_db_exec(c, p, st, affected, nargs, args);
}

apr_status_t __wrap_trv_db_begin(trv_dbc *c, apr_pool_t *p)
{
    return fake(c) ? down(c) : __real_trv_db_begin(c, p);
}
