/* The guarded moves every booking domain's store makes (moves.h). */
#include "moves.h"

#include <apr_strings.h>

static const char *us(apr_pool_t *p, apr_interval_time_t t)
{
    return apr_psprintf(p, "%" APR_INT64_T_FMT, (apr_int64_t)t);
}

apr_status_t trv_lifecycle_moves_one(const trv_lifecycle_moves *m, trv_dbc *c, apr_pool_t *p,
                                     const trv_stmt *st, int whole, void **out, int nargs,
                                     const char *const *args)
{
    trv_rows *rows;
    apr_status_t rv = trv_db_select(c, p, st, &rows, nargs, args);
    *out = NULL;
    if (rv != APR_SUCCESS || rows->n == 0) {
        return rv;
    }
    *out = trv_lifecycle_row_at(p, rows, 0, m->row);
    return whole ? m->whole(c, p, *out) : APR_SUCCESS;
}

apr_status_t trv_lifecycle_moves_prebook_failed(const trv_lifecycle_moves *m, trv_dbc *c,
                                                apr_pool_t *p, const char *id,
                                                const char *failure_json, int whole,
                                                void **out)
{
    return trv_lifecycle_moves_one(m, c, p, &m->sql->prebook_failed, whole, out,
                                   TRV_DB_ARGS(failure_json, id));
}

apr_status_t trv_lifecycle_moves_prebook_abandon(const trv_lifecycle_moves *m, trv_dbc *c,
                                                 apr_pool_t *p, const char *id, int *deleted)
{
    return trv_db_exec(c, p, &m->sql->prebook_abandon, deleted, TRV_DB_ARGS(id));
}

apr_status_t trv_lifecycle_moves_expire_one(const trv_lifecycle_moves *m, trv_dbc *c,
                                            apr_pool_t *p, const char *id, int whole,
                                            void **out)
{
    return trv_lifecycle_moves_one(m, c, p, &m->sql->expire_one, whole, out, TRV_DB_ARGS(id));
}

apr_status_t trv_lifecycle_moves_book_start(const trv_lifecycle_moves *m, trv_dbc *c,
                                            apr_pool_t *p, const char *org_id,
                                            const char *user_id, const char *id, int phase,
                                            const char *owner, apr_interval_time_t deadline,
                                            const char *instrument, int whole, void **out)
{
    const char *args[] = {trv_transit_column_text(m->phases, phase), owner, us(p, deadline),
                          instrument, id, org_id, user_id};
    return trv_lifecycle_moves_one(m, c, p, &m->sql->book_start, whole, out,
                                   m->user_scope ? 7 : 6, args);
}

apr_status_t trv_lifecycle_moves_phase(const trv_lifecycle_moves *m, trv_dbc *c, apr_pool_t *p,
                                       const trv_log *log, const char *request_id,
                                       const char *id, int from, const char *owner_was,
                                       int to, const char *owner,
                                       apr_interval_time_t deadline,
                                       const char *const *refs, int whole, void **out)
{
    /* The references go between the deadline and the guard. */
    const char *args[3 + 2 + 3];
    int n = 0, i;
    if (!trv_transit_check(m->phases, log, request_id, id, from, to)) {
        *out = NULL;
        return APR_SUCCESS;
    }
    args[n++] = trv_transit_column_text(m->phases, to);
    args[n++] = owner;
    args[n++] = us(p, deadline);
    for (i = 0; i < m->nrefs && i < 2; i++) {
        args[n++] = refs ? refs[i] : NULL;
    }
    args[n++] = id;
    args[n++] = trv_transit_column_text(m->phases, from);
    args[n++] = owner_was;
    return trv_lifecycle_moves_one(m, c, p, &m->sql->phase, whole, out, n, args);
}

apr_status_t trv_lifecycle_moves_book_failed(const trv_lifecycle_moves *m, trv_dbc *c,
                                             apr_pool_t *p, const char *id,
                                             const char *failure_json, int whole, void **out)
{
    return trv_lifecycle_moves_one(m, c, p, &m->sql->book_failed, whole, out,
                                   TRV_DB_ARGS(failure_json, id));
}

apr_status_t trv_lifecycle_moves_synced(const trv_lifecycle_moves *m, trv_dbc *c,
                                        apr_pool_t *p, const char *id)
{
    return trv_db_exec(c, p, &m->sql->synced, NULL, TRV_DB_ARGS(id));
}

apr_status_t trv_lifecycle_moves_expire_offer(const trv_lifecycle_moves *m, trv_dbc *c,
                                              apr_pool_t *p, const char *supplier,
                                              const char *offer_reference)
{
    return trv_db_exec(c, p, &m->sql->expire_offer, NULL, TRV_DB_ARGS(supplier, offer_reference));
}

apr_status_t trv_lifecycle_moves_get(const trv_lifecycle_moves *m, trv_dbc *c, apr_pool_t *p,
                                     const char *org_id, const char *user_id, const char *id,
                                     int whole, void **out)
{
    const char *args[] = {id, org_id, user_id};
    return trv_lifecycle_moves_one(m, c, p, &m->sql->get, whole, out, m->user_scope ? 3 : 2,
                                   args);
}

apr_status_t trv_lifecycle_moves_get_any(const trv_lifecycle_moves *m, trv_dbc *c,
                                         apr_pool_t *p, const char *id, int whole, void **out)
{
    return trv_lifecycle_moves_one(m, c, p, &m->sql->get_any, whole, out, TRV_DB_ARGS(id));
}

apr_status_t trv_lifecycle_moves_by_key(const trv_lifecycle_moves *m, trv_dbc *c, apr_pool_t *p,
                                        const char *org_id, const char *user_id,
                                        const char *key, int whole, void **out)
{
    const char *scoped[] = {org_id, user_id, key}, *org_only[] = {org_id, key};
    return trv_lifecycle_moves_one(m, c, p, &m->sql->by_key, whole, out,
                                   m->user_scope ? 3 : 2, m->user_scope ? scoped : org_only);
}
