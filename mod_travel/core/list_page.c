/* The list statements of stored renderings (list_page.h). */
#include "list_page.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRV_STR_(x) #x
#define TRV_STR(x) TRV_STR_(x)

static const char *order_by(int sort, int outer)
{
    static const char *const by[2][TRV_LIST_SORTS] = {
        {"b.created_at DESC, b.id DESC", "b.created_at ASC, b.id ASC",
         "b.total_amount DESC NULLS LAST, b.created_at DESC, b.id DESC",
         "b.total_amount ASC NULLS LAST, b.created_at ASC, b.id ASC"},
        {"p.created_at DESC, p.id DESC", "p.created_at ASC, p.id ASC",
         "p.total_amount DESC NULLS LAST, p.created_at DESC, p.id DESC",
         "p.total_amount ASC NULLS LAST, p.created_at ASC, p.id ASC"}};
    return by[outer][sort];
}

char *trv_list_sql(const trv_list_shape *s, const char *total, const char *where, int sort,
                   int default_limit, int joined)
{
    size_t n = 4096;
    char *sql = malloc(n), head[400];
    int len;
    if (!sql) {
        return NULL;
    }
    if (joined) {
        /* One row: one field for libpq to parse and one buffer for the
         * child to copy, where the rows were 20 fields of about 1.9 kB. */
        snprintf(head, sizeof(head),
                 "SELECT t.total, a.n, a.misses, a.docs FROM t CROSS JOIN ("
                 "SELECT count(*) AS n, count(*) FILTER (WHERE p.list_doc IS NULL) AS misses, "
                 "coalesce(string_agg(p.list_doc, ',' ORDER BY %s), '') AS docs FROM (",
                 order_by(sort, 1));
    }
    else {
        snprintf(head, sizeof(head), "%s",
                 "SELECT t.total, p.id, p.revision, p.list_doc FROM t LEFT JOIN LATERAL (");
    }
    len = snprintf(sql, n,
        /* MATERIALIZED: pulled up into the join, the total would be
         * counted again for every row of the page. */
        "WITH t AS MATERIALIZED (SELECT %s AS total) %s"
        "SELECT k.id, b.revision, b.created_at, b.total_amount, "
        "CASE WHEN d.revision = b.revision AND NOT (b.status = 'READY_FOR_COMPLETE' "
        "AND b.%s <= trv_now()) THEN d.list_doc END AS list_doc "
        "FROM (SELECT b.id FROM %s b WHERE %s ORDER BY %s LIMIT %s OFFSET %%s::bigint) k "
        /* Each row of the page by its key (OFFSET 0 keeps the subquery
         * apart): joined as a whole, a generic plan hashed every booking of
         * a small table to find the page's 20. */
        "CROSS JOIN LATERAL (SELECT b.revision, b.created_at, b.total_amount, b.status, "
        "b.%s FROM %s b WHERE b.id = k.id OFFSET 0) b "
        "LEFT JOIN %s d ON d.booking_id = k.id) p %s%s",
        total, head, s->expires, s->table, where, order_by(sort, 0),
        default_limit ? TRV_STR(TRV_LIST_DEFAULT_LIMIT) : "%s::bigint", s->expires, s->table,
        s->docs, joined ? "" : "ON true ORDER BY ", joined ? ") a" : order_by(sort, 1));
    if (len < 0 || (size_t)len >= n) {
        free(sql);
        return NULL;
    }
    return sql;
}

const trv_stmt *trv_list_stmt(trv_list_stmts *s, int v, char *(*build)(int v))
{
    const trv_stmt *st;
    if (v < 0 || v >= s->n) {
        return NULL;
    }
    pthread_mutex_lock(&s->lock);
    st = s->made[v];
    if (!st) {
        trv_stmt *made = malloc(sizeof(*made));
        char *label = malloc(48), *sql = build(v);
        if (made && label && sql) {
            snprintf(label, 48, "%s%d", s->prefix, v);
            made->label = label;
            made->sql = sql;
            s->made[v] = st = made;
        }
        else {
            free(made);
            free(label);
            free(sql);
        }
    }
    pthread_mutex_unlock(&s->lock);
    return st;
}

apr_status_t trv_list_select(trv_dbc *c, apr_pool_t *p, const trv_stmt *st, int nargs,
                             const char *const *args, trv_rows **rows, long *total)
{
    const char *v;
    apr_status_t rv;
    if (!st) {
        c->error = "out of memory";
        return APR_ENOMEM;
    }
    rv = trv_db_select(c, p, st, rows, nargs, args);
    if (rv != APR_SUCCESS) {
        return rv;
    }
    v = (*rows)->n ? trv_rows_get(*rows, 0, "total") : NULL;
    *total = v ? atol(v) : 0;
    return APR_SUCCESS;
}

apr_status_t trv_list_head(trv_dbc *c, apr_pool_t *p, const trv_stmt *st, int nargs,
                           const char *const *args, const char **docs, long *n, long *total)
{
    trv_rows *rows;
    apr_status_t rv = trv_db_select(c, p, st, &rows, nargs, args);
    *docs = NULL;
    if (rv == APR_SUCCESS && rows->n == 1) {
        *docs = trv_rows_get(rows, 0, "page");
        *n = atol(trv_rows_get(rows, 0, "n"));
        *total = atol(trv_rows_get(rows, 0, "total"));
    }
    return rv;
}

void trv_list_joined(const trv_rows *rows, const char **docs, long *n)
{
    const char *v = rows->n ? trv_rows_get(rows, 0, "n") : NULL;
    *n = v ? atol(v) : 0;
    v = rows->n ? trv_rows_get(rows, 0, "misses") : NULL;
    *docs = v && atol(v) == 0 ? trv_rows_get(rows, 0, "docs") : NULL;
}

json_t *trv_list_meta(long limit, long offset, long n, long total)
{
    return json_pack("{s:{s:I,s:I,s:b,s:I}}", "pagination", "limit", (json_int_t)limit,
                     "offset", (json_int_t)offset, "has_more", offset + n < total, "total",
                     (json_int_t)total);
}
