/* GET /v1/hotel/bookings' query (bstore.h): one prepared statement per
 * combination of the filters present and the sort, made on first use and
 * kept for the process, so each plan has only the conditions that apply
 * and uses the index for them. The exact total comes from the per-day
 * counts (hotel_bookings_total, sql/100) or, for the usual list, from the
 * all-time counts; each listed booking from its stored rendering. */
#include "bstore.h"

#include <apr_strings.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ST_ANY, ST_PLAIN, ST_READY, ST_EXPIRED, ST_KINDS };
#define HAS_SUPPLIER 1
#define HAS_FROM 2
#define HAS_TO 4
#define VARIANTS (ST_KINDS * 8 * 4)

static const trv_stmt *variants[VARIANTS];
static pthread_mutex_t variants_lock = PTHREAD_MUTEX_INITIALIZER;

static int status_kind(const char *status)
{
    if (!status) {
        return ST_ANY;
    }
    /* As a reader sees it: READY_FOR_COMPLETE past its offer's expiry is
     * EXPIRED. */
    return strcmp(status, "READY_FOR_COMPLETE") == 0 ? ST_READY
         : strcmp(status, "EXPIRED") == 0 ? ST_EXPIRED : ST_PLAIN;
}

static const char *order_by(int sort)
{
    static const char *const by[4] = {
        "b.created_at DESC, b.id DESC", "b.created_at ASC, b.id ASC",
        "b.total_amount DESC NULLS LAST, b.created_at DESC, b.id DESC",
        "b.total_amount ASC NULLS LAST, b.created_at ASC, b.id ASC"};
    return by[sort];
}

static const char *order_outer(int sort)
{
    static const char *const by[4] = {
        "p.created_at DESC, p.id DESC", "p.created_at ASC, p.id ASC",
        "p.total_amount DESC NULLS LAST, p.created_at DESC, p.id DESC",
        "p.total_amount ASC NULLS LAST, p.created_at ASC, p.id ASC"};
    return by[sort];
}

static int plain_total(int kind, int bits)
{
    return (kind == ST_ANY || kind == ST_PLAIN) && !(bits & (HAS_FROM | HAS_TO));
}

static const char *total_sql(int kind, int bits)
{
    static const char *const plain[2][2] = {
        {"(SELECT coalesce(sum(c.n), 0) FROM hotel_booking_totals c WHERE c.org_id = %s)",
         "(SELECT coalesce(sum(c.n), 0) FROM hotel_booking_totals c WHERE c.org_id = %s "
         "AND c.supplier = %s)"},
        {"(SELECT coalesce(sum(c.n), 0) FROM hotel_booking_totals c WHERE c.org_id = %s "
         "AND c.status = %s)",
         "(SELECT coalesce(sum(c.n), 0) FROM hotel_booking_totals c WHERE c.org_id = %s "
         "AND c.status = %s AND c.supplier = %s)"}};
    if (plain_total(kind, bits)) {
        return plain[kind == ST_PLAIN][(bits & HAS_SUPPLIER) != 0];
    }
    return "hotel_bookings_total(%s, %s::text, %s::text, %s::timestamptz, %s::timestamptz)";
}

static char *build_sql(int kind, int bits, int sort)
{
    static const char *const status_sql[ST_KINDS] = {
        "", " AND b.status = %s",
        " AND b.status = 'READY_FOR_COMPLETE' "
        "AND b.offer_expires_at > trv_now()",
        " AND (b.status = 'EXPIRED' OR (b.status = 'READY_FOR_COMPLETE' "
        "AND b.offer_expires_at <= trv_now()))"};
    size_t n = 4096;
    char *sql = malloc(n);
    if (!sql) {
        return NULL;
    }
    snprintf(sql, n,
        "WITH t AS MATERIALIZED (SELECT %s AS total) "
        "SELECT t.total, p.id, p.revision, p.list_doc FROM t LEFT JOIN LATERAL ("
        "SELECT b.id, b.revision, b.created_at, b.total_amount, "
        "CASE WHEN d.revision = b.revision AND NOT (b.status = 'READY_FOR_COMPLETE' "
        "AND b.offer_expires_at <= trv_now()) THEN d.list_doc END AS list_doc "
        "FROM (SELECT b.id FROM hotel_bookings b WHERE b.org_id = %%s"
        "%s%s%s%s ORDER BY %s LIMIT %%s::bigint OFFSET %%s::bigint) k "
        "JOIN hotel_bookings b ON b.id = k.id "
        "LEFT JOIN hotel_booking_docs d ON d.booking_id = b.id) p ON true ORDER BY %s",
        total_sql(kind, bits), status_sql[kind],
        bits & HAS_SUPPLIER ? " AND b.supplier = %s" : "",
        bits & HAS_FROM ? " AND b.created_at >= %s::timestamptz" : "",
        bits & HAS_TO ? " AND b.created_at <= %s::timestamptz" : "", order_by(sort),
        order_outer(sort));
    return sql;
}

static const trv_stmt *variant(int kind, int bits, int sort)
{
    int v = (kind * 8 + bits) * 4 + sort;
    const trv_stmt *st;
    pthread_mutex_lock(&variants_lock);
    st = variants[v];
    if (!st) {
        trv_stmt *made = malloc(sizeof(*made));
        char *label = malloc(32), *sql = build_sql(kind, bits, sort);
        if (made && label && sql) {
            snprintf(label, 32, "trv_hotel_list_%d", v);
            made->label = label;
            made->sql = sql;
            variants[v] = st = made;
        }
        else {
            free(made);
            free(label);
            free(sql);
        }
    }
    pthread_mutex_unlock(&variants_lock);
    return st;
}

apr_status_t trv_hbstore_list(trv_dbc *c, apr_pool_t *p, const trv_hbooking_filter *f,
                              apr_array_header_t **page, long *total)
{
    int kind = status_kind(f->status), bits = 0, sort, nargs = 0, i, misses = 0;
    const char *args[16], *v, *ids = "{";
    const trv_stmt *st;
    trv_rows *rows;
    apr_hash_t *whole;
    apr_array_header_t *found;
    apr_status_t rv;

    bits |= f->supplier ? HAS_SUPPLIER : 0;
    bits |= f->created_from ? HAS_FROM : 0;
    bits |= f->created_to ? HAS_TO : 0;
    sort = (f->sort_by_total ? 2 : 0) + (f->ascending ? 1 : 0);
    if (!(st = variant(kind, bits, sort))) {
        c->error = "out of memory";
        return APR_ENOMEM;
    }
    args[nargs++] = f->org_id;
    if (!plain_total(kind, bits)) {
        args[nargs++] = f->status;
        args[nargs++] = f->supplier;
        args[nargs++] = f->created_from;
        args[nargs++] = f->created_to;
    }
    else {
        if (kind == ST_PLAIN) {
            args[nargs++] = f->status;
        }
        if (f->supplier) {
            args[nargs++] = f->supplier;
        }
    }
    args[nargs++] = f->org_id;
    if (kind == ST_PLAIN) {
        args[nargs++] = f->status;
    }
    if (f->supplier) {
        args[nargs++] = f->supplier;
    }
    if (f->created_from) {
        args[nargs++] = f->created_from;
    }
    if (f->created_to) {
        args[nargs++] = f->created_to;
    }
    args[nargs++] = apr_ltoa(p, f->limit);
    args[nargs++] = apr_ltoa(p, f->offset);
    if ((rv = trv_db_select(c, p, st, &rows, nargs, args)) != APR_SUCCESS) {
        return rv;
    }
    v = rows->n ? trv_rows_get(rows, 0, "total") : NULL;
    *total = v ? atol(v) : 0;
    *page = apr_array_make(p, rows->n ? rows->n : 1, sizeof(trv_hbooking *));
    for (i = 0; i < rows->n; i++) {
        trv_hbooking *b;
        if (!trv_rows_get(rows, i, "id")) {
            continue; /* an empty page: the one row carries only the total */
        }
        b = apr_pcalloc(p, sizeof(*b));
        b->id = trv_rows_get(rows, i, "id");
        b->revision = trv_rows_get(rows, i, "revision");
        b->list_doc = trv_rows_get(rows, i, "list_doc");
        APR_ARRAY_PUSH(*page, trv_hbooking *) = b;
        if (!b->list_doc) {
            /* Ids are [A-Za-z0-9_-]: safe in an array literal. */
            ids = apr_pstrcat(p, ids, misses++ ? "," : "", b->id, NULL);
        }
    }
    if (misses == 0) {
        return APR_SUCCESS;
    }
    if ((rv = trv_hbstore_load_many(c, p, apr_pstrcat(p, ids, "}", NULL), &whole))
        != APR_SUCCESS) {
        return rv;
    }
    found = apr_array_make(p, (*page)->nelts ? (*page)->nelts : 1, sizeof(trv_hbooking *));
    for (i = 0; i < (*page)->nelts; i++) {
        trv_hbooking *b = APR_ARRAY_IDX(*page, i, trv_hbooking *);
        if (!b->list_doc) {
            b = apr_hash_get(whole, b->id, APR_HASH_KEY_STRING);
        }
        if (b) {
            APR_ARRAY_PUSH(found, trv_hbooking *) = b;
        }
    }
    *page = found;
    return APR_SUCCESS;
}
