/* The list statements of stored renderings (list_page.h). */
#include "list_page.h"
#include "clock.h"
#include "json.h"
#include "validate.h"

#include <apr_strings.h>
#include <limits.h>
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

/* Variant v of s, made by build(v), or (build NULL) by
 * trv_list_page_query_sql(q, v). */
static const trv_stmt *stmt_made(trv_list_stmts *s, int v, char *(*build)(int v),
                                 const trv_list_page_query *q)
{
    const trv_stmt *st;
    if (v < 0 || v >= s->n) {
        return NULL;
    }
    pthread_mutex_lock(&s->lock);
    st = s->made[v];
    if (!st) {
        trv_stmt *made = malloc(sizeof(*made));
        char *label = malloc(48), *sql = build ? build(v) : trv_list_page_query_sql(q, v);
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

const trv_stmt *trv_list_stmt(trv_list_stmts *s, int v, char *(*build)(int v))
{
    return stmt_made(s, v, build, NULL);
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

int trv_list_kind(const char *status, int ready, int expired)
{
    return !status ? TRV_LIST_ANY
         : ready   ? TRV_LIST_READY
         : expired ? TRV_LIST_EXPIRED
                   : TRV_LIST_PLAIN;
}

/* The usual list (no filter but the supplier, no status whose meaning
 * depends on the clock) sums a few all-time counts in plain SQL; the rest
 * goes through the domain's per-day function. */
static int plain_total(int kind, int bits)
{
    return (kind == TRV_LIST_ANY || kind == TRV_LIST_PLAIN) && !(bits & ~1);
}

/* Variant v = (((kind << nfilters + bits) * sorts + sort) * 2 + default
 * limit) * 2 + joined. */
char *trv_list_page_query_sql(const trv_list_page_query *q, int v)
{
    int joined = v % 2, fixed_limit = v / 2 % 2, sort = v / 4 % TRV_LIST_SORTS;
    int all = 1 << q->nfilters, bits = v / (4 * TRV_LIST_SORTS) % all;
    int kind = v / (4 * TRV_LIST_SORTS * all), i, len;
    char where[800];

    len = snprintf(where, sizeof(where), "%s%s", q->owner_sql, q->status_sql[kind]);
    for (i = 0; i < q->nfilters && len > 0 && (size_t)len < sizeof(where); i++) {
        if (bits & (1 << i)) {
            len += snprintf(where + len, sizeof(where) - (size_t)len, "%s", q->filter_sql[i]);
        }
    }
    if (len < 0 || (size_t)len >= sizeof(where)) {
        return NULL;
    }
    return trv_list_sql(q->shape,
                        plain_total(kind, bits) ? q->counts[kind == TRV_LIST_PLAIN][bits & 1]
                                                : q->per_day,
                        where, sort, fixed_limit, joined);
}

int trv_list_page_query_args(apr_pool_t *p, const trv_list_page_query *q, const trv_list_ask *a,
                        int joined, const char **args, int *nargs)
{
    int bits = 0, n = 0, i, plain, fixed_limit = a->limit == TRV_LIST_DEFAULT_LIMIT;

    for (i = 0; i < q->nfilters; i++) {
        bits |= a->filters[i] ? 1 << i : 0;
    }
    plain = plain_total(a->kind, bits);
    /* The total's placeholders: the all-time counts take the owners, a
     * PLAIN status and the supplier (the only filter present); the per-day
     * function takes them all, NULL or not. */
    for (i = 0; i < q->nowners; i++) {
        args[n++] = a->owners[i];
    }
    if (!plain || a->kind == TRV_LIST_PLAIN) {
        args[n++] = a->status;
    }
    for (i = 0; i < q->nfilters; i++) {
        if (!plain || a->filters[i]) {
            args[n++] = a->filters[i];
        }
    }
    /* The page's: owners, a PLAIN status, the filters present, the limit
     * unless it is the default, the offset. */
    for (i = 0; i < q->nowners; i++) {
        args[n++] = a->owners[i];
    }
    if (a->kind == TRV_LIST_PLAIN) {
        args[n++] = a->status;
    }
    for (i = 0; i < q->nfilters; i++) {
        if (a->filters[i]) {
            args[n++] = a->filters[i];
        }
    }
    if (!fixed_limit) {
        args[n++] = apr_ltoa(p, a->limit);
    }
    args[n++] = apr_ltoa(p, a->offset);
    *nargs = n;
    return ((((a->kind << q->nfilters) + bits) * TRV_LIST_SORTS + a->sort) * 2 + fixed_limit)
               * 2
           + joined;
}

apr_status_t trv_list_page_query_select(trv_dbc *c, apr_pool_t *p, const trv_list_page_query *q,
                                   char *(*build)(int v), const trv_list_ask *a, int joined,
                                   trv_rows **rows, long *total)
{
    const char *args[TRV_LIST_MAX_ARGS];
    int nargs, v = trv_list_page_query_args(p, q, a, joined, args, &nargs);
    return trv_list_select(c, p, stmt_made(q->variants, v, build, q), nargs, args, rows,
                           total);
}

apr_status_t trv_list_page_query_joined(trv_dbc *c, apr_pool_t *p, const trv_list_page_query *q,
                                   char *(*build)(int v), const trv_list_ask *a,
                                   const char **docs, long *n, long *total)
{
    trv_rows *rows;
    apr_status_t rv = trv_list_page_query_select(c, p, q, build, a, 1, &rows, total);
    *docs = NULL;
    if (rv == APR_SUCCESS) {
        trv_list_joined(rows, docs, n);
    }
    return rv;
}

static void *stub_of(apr_pool_t *p, const trv_list_stub *s, const trv_rows *rows, int i)
{
    char *b = apr_pcalloc(p, s->size);
    *(const char **)(void *)(b + s->id) = trv_rows_get(rows, i, "id");
    *(const char **)(void *)(b + s->revision) = trv_rows_get(rows, i, "revision");
    *(const char **)(void *)(b + s->list_doc) = trv_rows_get(rows, i, "list_doc");
    return b;
}

apr_status_t trv_list_page_query_page(trv_dbc *c, apr_pool_t *p, const trv_list_page_query *q,
                                 char *(*build)(int v), const trv_list_ask *a,
                                 const trv_list_stub *stub,
                                 apr_status_t (*load_many)(trv_dbc *c, apr_pool_t *p,
                                                           const char *ids, apr_hash_t **out),
                                 apr_array_header_t **page, long *total)
{
    apr_array_header_t *found, *listed;
    apr_hash_t *whole;
    const char *ids = "{";
    int i, misses = 0;
    trv_rows *rows;
    apr_status_t rv = trv_list_page_query_select(c, p, q, build, a, 0, &rows, total);

    if (rv != APR_SUCCESS) {
        return rv;
    }
    *page = apr_array_make(p, rows->n ? rows->n : 1, sizeof(void *));
    listed = apr_array_make(p, rows->n ? rows->n : 1, sizeof(const char *));
    for (i = 0; i < rows->n; i++) {
        const char *id = trv_rows_get(rows, i, "id");
        const char *doc = trv_rows_get(rows, i, "list_doc");
        if (!id) {
            continue; /* an empty page: the one row carries only the total */
        }
        APR_ARRAY_PUSH(listed, const char *) = id;
        /* NULL holds the place of a booking to load whole. */
        APR_ARRAY_PUSH(*page, void *) = doc ? stub_of(p, stub, rows, i) : NULL;
        if (!doc) {
            /* Booking ids are [A-Za-z0-9_-] (their path pattern), safe in
             * an array literal. */
            ids = apr_pstrcat(p, ids, misses++ ? "," : "", id, NULL);
        }
    }
    if (misses == 0) {
        return APR_SUCCESS;
    }
    /* Rendered by the caller for this answer only: the whole rows. */
    if ((rv = load_many(c, p, apr_pstrcat(p, ids, "}", NULL), &whole)) != APR_SUCCESS) {
        return rv;
    }
    found = apr_array_make(p, (*page)->nelts ? (*page)->nelts : 1, sizeof(void *));
    for (i = 0; i < (*page)->nelts; i++) {
        void *b = APR_ARRAY_IDX(*page, i, void *);
        if (!b) {
            /* NULL when it went between the two reads (a prebook abandoned). */
            b = apr_hash_get(whole, APR_ARRAY_IDX(listed, i, const char *),
                             APR_HASH_KEY_STRING);
        }
        if (b) {
            APR_ARRAY_PUSH(found, void *) = b;
        }
    }
    *page = found;
    return APR_SUCCESS;
}

/* The request f makes of q. */
static const trv_list_ask *ask(const trv_list_page_query *q, const trv_list_filter *f,
                               trv_list_ask *a)
{
    int s = f->status ? trv_transit_from_text(q->statuses, f->status) : -1, i;
    memset(a, 0, sizeof(*a));
    a->owners[0] = f->org_id;
    a->owners[1] = q->nowners > 1 ? f->user_id : NULL;
    a->status = f->status;
    a->kind = trv_list_kind(f->status, s == q->ready, s == q->expired);
    for (i = 0; i < q->nfilters && i < TRV_LIST_MAX_FILTERS; i++) {
        a->filters[i] = *(const char *const *)(const void *)((const char *)f + q->filters[i]);
    }
    a->sort = (f->sort_by_total ? 2 : 0) + (f->ascending ? 1 : 0);
    a->limit = f->limit;
    a->offset = f->offset;
    return a;
}

apr_status_t trv_list_page_read(const trv_list_page_query *q, trv_dbc *c, apr_pool_t *p,
                                const trv_list_filter *f, const char **docs, long *n,
                                apr_array_header_t **page, long *total)
{
    const char *owners[] = {f->org_id, f->user_id};
    trv_list_ask a;
    apr_status_t rv = APR_SUCCESS;
    *docs = NULL;
    *page = NULL;
    if (trv_list_filter_usual(f)) {
        rv = trv_list_head(c, p, q->kept, q->nowners, owners, docs, n, total);
    }
    if (rv == APR_SUCCESS && !*docs) {
        rv = trv_list_page_query_joined(c, p, q, NULL, ask(q, f, &a), docs, n, total);
    }
    if (rv != APR_SUCCESS || *docs) {
        return rv;
    }
    return trv_list_page_query_page(c, p, q, NULL, &a, &q->stub, q->load_many, page, total);
}

apr_status_t trv_list_page_rows(const trv_list_page_query *q, trv_dbc *c, apr_pool_t *p,
                                const trv_list_filter *f, apr_array_header_t **page,
                                long *total)
{
    trv_list_ask a;
    return trv_list_page_query_page(c, p, q, NULL, ask(q, f, &a), &q->stub, q->load_many, page,
                                    total);
}

apr_status_t trv_list_page_doc(const trv_list_page_query *q, trv_dbc *c, apr_pool_t *p,
                               const char *org_id, const char *user_id, const char *id,
                               const char **doc)
{
    const char *args[] = {id, org_id, user_id};
    trv_rows *rows;
    apr_status_t rv = trv_db_select(c, p, q->stored, &rows, 1 + q->nowners, args);
    *doc = rv == APR_SUCCESS && rows->n == 1 ? trv_rows_get(rows, 0, "doc") : NULL;
    return rv;
}

json_t *trv_list_meta(long limit, long offset, long n, long total)
{
    return json_pack("{s:{s:I,s:I,s:b,s:I}}", "pagination", "limit", (json_int_t)limit,
                     "offset", (json_int_t)offset, "has_more", offset + n < total, "total",
                     (json_int_t)total);
}

void trv_list_filter_read(apr_pool_t *p, apr_table_t *query, const char *const *statuses,
                          const char *const *suppliers, int with_reference,
                          trv_list_filter *f, trv_errs *errs)
{
    static const char *const known[] = {"limit", "offset", "status", "supplier",
        "created_from", "created_to", "sort_by", "sort_order", "supplier_reference", NULL};
    static const char *const known_no_reference[] = {"limit", "offset", "status", "supplier",
        "created_from", "created_to", "sort_by", "sort_order", NULL};
    static const char *const sorts[] = {"created_at", "total_amount", NULL};
    static const char *const orders[] = {"asc", "desc", NULL};
    const char *sort_by, *sort_order;
    apr_time_t from = 0, to = 0;
    int has_from, has_to;

    memset(f, 0, sizeof(*f));
    trv_query_known(query, with_reference ? known : known_no_reference, errs);
    f->limit = trv_query_int(query, "limit", TRV_LIST_DEFAULT_LIMIT, 1, 100, errs);
    f->offset = trv_query_int(query, "offset", 0, 0, LONG_MAX, errs);
    f->status = trv_query_enum(query, "status", statuses, NULL, errs);
    f->supplier = trv_query_enum(query, "supplier", suppliers, NULL, errs);
    if (with_reference) {
        f->supplier_reference = trv_query_str(query, "supplier_reference", 1, 200, errs);
    }
    has_from = trv_query_instant(query, "created_from", 0, &from, errs);
    has_to = trv_query_instant(query, "created_to", 1, &to, errs);
    sort_by = trv_query_enum(query, "sort_by", sorts, "created_at", errs);
    sort_order = trv_query_enum(query, "sort_order", orders, "desc", errs);
    f->sort_by_total = sort_by && strcmp(sort_by, "total_amount") == 0;
    f->ascending = sort_order && strcmp(sort_order, "asc") == 0;
    if (has_from && has_to && from > to) {
        trv_errs_add(errs, "created_from", "must not be after created_to");
    }
    f->created_from = has_from ? trv_time_format(p, from) : NULL;
    f->created_to = has_to ? trv_time_format(p, to) : NULL;
}

int trv_list_filter_usual(const trv_list_filter *f)
{
    return !(f->status || f->supplier || f->supplier_reference || f->created_from
             || f->created_to || f->sort_by_total || f->ascending || f->offset
             || f->limit != TRV_LIST_DEFAULT_LIMIT);
}

apr_status_t trv_list_page_keep_docs(const trv_list_page_query *q, trv_dbc *c, apr_pool_t *p,
                                     const json_t *docs)
{
    return trv_db_exec(c, p, q->keep_docs, NULL, TRV_DB_ARGS(trv_json_dump(p, docs)));
}

apr_status_t trv_list_page_keep_head(const trv_list_page_query *q, trv_dbc *c, apr_pool_t *p,
                                     const char *org_id, const char *user_id)
{
    trv_rows *rows;
    const char *args[] = {org_id, user_id};
    return trv_db_select(c, p, q->keep_head, &rows, q->nowners, args);
}
