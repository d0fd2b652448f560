/* GET /v1/flight/bookings' query. One prepared statement per combination
 * of the filters present, the sort and whether the page size is the
 * default (made on first use, kept for the
 * process), so each plan has only the conditions that apply and the index
 * for them is used; a generic plan of "(x IS NULL OR col = x)" conditions
 * cannot use one. The exact total comes from flight_bookings_total()
 * (migration 041: per-day counts), the page from the index in the order
 * asked for, and each listed booking from its stored rendering when there
 * is one for its revision. The usual (warm) page comes joined by
 * PostgreSQL as one text (trv_fbooking_query_joined); a page with a
 * booking to render comes row by row. The statements' shape and cache are
 * the hotel list's too (core/list_page.h). */
#include "booking_store.h"
#include "core/list_page.h"

#include <apr_strings.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ST_ANY, ST_PLAIN, ST_READY, ST_EXPIRED, ST_KINDS };
#define HAS_SUPPLIER 1
#define HAS_REF 2
#define HAS_FROM 4
#define HAS_TO 8
#define DEFAULT_LIMIT TRV_LIST_DEFAULT_LIMIT
#define VARIANTS (ST_KINDS * 16 * TRV_LIST_SORTS * 2 * 2)

static const trv_stmt *made[VARIANTS];
static trv_list_stmts variants = {"trv_flight_list_", VARIANTS, made,
                                  PTHREAD_MUTEX_INITIALIZER};
static const trv_list_shape shape = {"flight_bookings", "flight_booking_docs", "expires_at"};

static int status_kind(const char *status)
{
    trv_fb_status s;
    if (!status) {
        return ST_ANY;
    }
    /* Read as a reader sees it: READY_FOR_COMPLETE past expires_at is
     * EXPIRED (the expiry job stores that a moment later). The filter was
     * validated against trv_fb_statuses; it stays text for the SQL. */
    return !trv_fb_status_from_text(status, &s) ? ST_PLAIN
         : s == TRV_FB_READY                    ? ST_READY
         : s == TRV_FB_EXPIRED                  ? ST_EXPIRED
                                                : ST_PLAIN;
}

/* The usual list (no date or reference filter, no status whose meaning
 * depends on the clock) sums a few all-time counts in plain SQL; the rest
 * goes through flight_bookings_total() (migration 041). */
static int plain_total(int kind, int bits)
{
    return (kind == ST_ANY || kind == ST_PLAIN) && !(bits & (HAS_REF | HAS_FROM | HAS_TO));
}

static const char *total_sql(int kind, int bits)
{
    static const char *const plain[2][2] = {
        {"(SELECT coalesce(sum(c.n), 0) FROM flight_booking_totals c "
         "WHERE c.org_id = %s AND c.user_id = %s)",
         "(SELECT coalesce(sum(c.n), 0) FROM flight_booking_totals c "
         "WHERE c.org_id = %s AND c.user_id = %s AND c.supplier = %s)"},
        {"(SELECT coalesce(sum(c.n), 0) FROM flight_booking_totals c "
         "WHERE c.org_id = %s AND c.user_id = %s AND c.status = %s)",
         "(SELECT coalesce(sum(c.n), 0) FROM flight_booking_totals c "
         "WHERE c.org_id = %s AND c.user_id = %s AND c.status = %s AND c.supplier = %s)"}};
    if (plain_total(kind, bits)) {
        return plain[kind == ST_PLAIN][(bits & HAS_SUPPLIER) != 0];
    }
    return "flight_bookings_total(%s, %s, %s::text, %s::text, %s::text, %s::timestamptz, "
           "%s::timestamptz)";
}

/* Variant v = (((kind * 16 + bits) * 4 + sort) * 2 + default limit) * 2 + joined. */
static char *build_sql(int v)
{
    static const char *const status_sql[ST_KINDS] = {
        "",
        " AND b.status = %s",
        " AND b.status = 'READY_FOR_COMPLETE' AND (b.expires_at IS NULL "
        "OR b.expires_at > trv_now())",
        " AND (b.status = 'EXPIRED' OR (b.status = 'READY_FOR_COMPLETE' "
        "AND b.expires_at <= trv_now()))"};
    int joined = v % 2, fixed_limit = v / 2 % 2, sort = v / 4 % TRV_LIST_SORTS;
    int bits = v / (4 * TRV_LIST_SORTS) % 16, kind = v / (4 * TRV_LIST_SORTS * 16);
    char where[600];
    snprintf(where, sizeof(where), "b.org_id = %%s AND b.user_id = %%s%s%s%s%s%s",
             status_sql[kind], bits & HAS_SUPPLIER ? " AND b.supplier = %s" : "",
             bits & HAS_REF ? " AND b.supplier_reference = %s" : "",
             bits & HAS_FROM ? " AND b.created_at >= %s::timestamptz" : "",
             bits & HAS_TO ? " AND b.created_at <= %s::timestamptz" : "");
    return trv_list_sql(&shape, total_sql(kind, bits), where, sort, fixed_limit, joined);
}

static const trv_stmt *variant(int kind, int bits, int sort, int fixed_limit, int joined)
{
    return trv_list_stmt(&variants,
                         (((kind * 16 + bits) * TRV_LIST_SORTS + sort) * 2 + fixed_limit) * 2
                             + joined,
                         build_sql);
}

/* The statement for f and its arguments in placeholder order: the
 * total's, then the page's. */
static const trv_stmt *statement(apr_pool_t *p, const trv_flight_filter *f, int joined,
                                 const char **args, int *nargs_out)
{
    int kind = status_kind(f->status), bits = 0, sort, nargs = 0;

    bits |= f->supplier ? HAS_SUPPLIER : 0;
    bits |= f->supplier_reference ? HAS_REF : 0;
    bits |= f->created_from ? HAS_FROM : 0;
    bits |= f->created_to ? HAS_TO : 0;
    sort = (f->sort_by_total ? 2 : 0) + (f->ascending ? 1 : 0);
    args[nargs++] = f->org_id;
    args[nargs++] = f->user_id;
    if (!plain_total(kind, bits)) {
        args[nargs++] = f->status;
        args[nargs++] = f->supplier;
        args[nargs++] = f->supplier_reference;
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
    args[nargs++] = f->user_id;
    if (kind == ST_PLAIN) {
        args[nargs++] = f->status;
    }
    if (f->supplier) {
        args[nargs++] = f->supplier;
    }
    if (f->supplier_reference) {
        args[nargs++] = f->supplier_reference;
    }
    if (f->created_from) {
        args[nargs++] = f->created_from;
    }
    if (f->created_to) {
        args[nargs++] = f->created_to;
    }
    if (f->limit != DEFAULT_LIMIT) {
        args[nargs++] = apr_ltoa(p, f->limit);
    }
    args[nargs++] = apr_ltoa(p, f->offset);
    *nargs_out = nargs;
    return variant(kind, bits, sort, f->limit == DEFAULT_LIMIT, joined);
}

/* Runs f's statement (joined or row by row) and reads the total. */
static apr_status_t select_page(trv_dbc *c, apr_pool_t *p, const trv_flight_filter *f,
                                int joined, trv_rows **rows, long *total)
{
    const char *args[7 + 7 + 2];
    const trv_stmt *st;
    int nargs;

    st = statement(p, f, joined, args, &nargs);
    return trv_list_select(c, p, st, nargs, args, rows, total);
}

apr_status_t trv_fbooking_query_joined(trv_dbc *c, apr_pool_t *p,
                                       const trv_flight_filter *f, const char **docs,
                                       long *n, long *total)
{
    trv_rows *rows;
    apr_status_t rv;

    *docs = NULL;
    rv = select_page(c, p, f, 1, &rows, total);
    if (rv != APR_SUCCESS) {
        return rv;
    }
    trv_list_joined(rows, docs, n);
    return APR_SUCCESS;
}

static const trv_stmt head_stmt = {"trv_flight_list_head",
    "SELECT h.page, h.n, h.total FROM flight_list_heads h "
    "WHERE h.org_id = %s AND h.user_id = %s AND h.page_gen = h.gen "
    "AND (h.valid_until IS NULL OR h.valid_until > trv_now())"};

apr_status_t trv_fbooking_query_head(trv_dbc *c, apr_pool_t *p,
                                     const trv_flight_filter *f, const char **docs,
                                     long *n, long *total)
{
    *docs = NULL;
    if (f->status || f->supplier || f->supplier_reference || f->created_from
        || f->created_to || f->sort_by_total || f->ascending || f->offset
        || f->limit != DEFAULT_LIMIT) {
        return APR_SUCCESS;
    }
    return trv_list_head(c, p, &head_stmt, TRV_DB_ARGS(f->org_id, f->user_id), docs, n, total);
}

apr_status_t trv_fbooking_query_list(trv_dbc *c, apr_pool_t *p, const trv_flight_filter *f,
                                     apr_array_header_t **page, long *total)
{
    int i, misses = 0;
    const char *ids = "{";
    trv_rows *rows;
    apr_hash_t *whole;
    apr_array_header_t *found;
    apr_status_t rv;

    rv = select_page(c, p, f, 0, &rows, total);
    if (rv != APR_SUCCESS) {
        return rv;
    }
    *page = apr_array_make(p, rows->n ? rows->n : 1, sizeof(trv_fbooking *));
    for (i = 0; i < rows->n; i++) {
        trv_fbooking *b;
        if (!trv_rows_get(rows, i, "id")) {
            continue; /* an empty page: the one row carries only the total */
        }
        b = apr_pcalloc(p, sizeof(*b));
        b->id = trv_rows_get(rows, i, "id");
        b->revision = trv_rows_get(rows, i, "revision");
        b->list_doc = trv_rows_get(rows, i, "list_doc");
        APR_ARRAY_PUSH(*page, trv_fbooking *) = b;
        if (!b->list_doc) {
            /* Booking ids are [A-Za-z0-9_-] (their path pattern), safe in
             * an array literal. */
            ids = apr_pstrcat(p, ids, misses++ ? "," : "", b->id, NULL);
        }
    }
    if (misses == 0) {
        return APR_SUCCESS;
    }
    /* Rendered by the caller for this answer only: the whole rows. */
    rv = trv_fbooking_load_many(c, p, apr_pstrcat(p, ids, "}", NULL), &whole);
    if (rv != APR_SUCCESS) {
        return rv;
    }
    found = apr_array_make(p, (*page)->nelts, sizeof(trv_fbooking *));
    for (i = 0; i < (*page)->nelts; i++) {
        trv_fbooking *b = APR_ARRAY_IDX(*page, i, trv_fbooking *);
        if (!b->list_doc) {
            /* NULL when it went between the two reads (a prebook abandoned). */
            b = apr_hash_get(whole, b->id, APR_HASH_KEY_STRING);
        }
        if (b) {
            APR_ARRAY_PUSH(found, trv_fbooking *) = b;
        }
    }
    *page = found;
    return APR_SUCCESS;
}
