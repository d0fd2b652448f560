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

#include <stddef.h>

/* The optional filters in placeholder order; the supplier first. */
enum { F_SUPPLIER, F_REF, F_FROM, F_TO, F_N };
#define VARIANTS (TRV_LIST_KINDS * (1 << F_N) * TRV_LIST_SORTS * 2 * 2)

static const trv_stmt *made[VARIANTS];
static trv_list_stmts variants = {"trv_flight_list_", VARIANTS, made,
                                  PTHREAD_MUTEX_INITIALIZER};
static const trv_list_shape shape = {"flight_bookings", "flight_booking_docs", "expires_at"};

/* The usual list sums a few all-time counts in plain SQL; the rest goes
 * through flight_bookings_total() (migration 041). */
static const trv_list_page_query query = {
    &shape, &variants, "b.org_id = %s AND b.user_id = %s", 2,
    {"", " AND b.status = %s",
     " AND b.status = 'READY_FOR_COMPLETE' AND (b.expires_at IS NULL "
     "OR b.expires_at > trv_now())",
     " AND (b.status = 'EXPIRED' OR (b.status = 'READY_FOR_COMPLETE' "
     "AND b.expires_at <= trv_now()))"},
    F_N,
    {" AND b.supplier = %s", " AND b.supplier_reference = %s",
     " AND b.created_at >= %s::timestamptz", " AND b.created_at <= %s::timestamptz"},
    {{"(SELECT coalesce(sum(c.n), 0) FROM flight_booking_totals c "
      "WHERE c.org_id = %s AND c.user_id = %s)",
      "(SELECT coalesce(sum(c.n), 0) FROM flight_booking_totals c "
      "WHERE c.org_id = %s AND c.user_id = %s AND c.supplier = %s)"},
     {"(SELECT coalesce(sum(c.n), 0) FROM flight_booking_totals c "
      "WHERE c.org_id = %s AND c.user_id = %s AND c.status = %s)",
      "(SELECT coalesce(sum(c.n), 0) FROM flight_booking_totals c "
      "WHERE c.org_id = %s AND c.user_id = %s AND c.status = %s AND c.supplier = %s)"}},
    "flight_bookings_total(%s, %s, %s::text, %s::text, %s::text, %s::timestamptz, "
    "%s::timestamptz)"};

static char *build_sql(int v)
{
    return trv_list_page_query_sql(&query, v);
}

/* The list request f makes. */
static const trv_list_ask *ask(const trv_list_filter *f, trv_list_ask *a)
{
    /* Read as a reader sees it: READY_FOR_COMPLETE past expires_at is
     * EXPIRED (the expiry job stores that a moment later). The filter was
     * validated against trv_fb_statuses; it stays text for the SQL. */
    int s = f->status ? trv_transit_from_text(&trv_fb_status_table, f->status) : -1;
    *a = (trv_list_ask){{f->org_id, f->user_id}, f->status, TRV_LIST_ANY,
                        {f->supplier, f->supplier_reference, f->created_from, f->created_to},
                        (f->sort_by_total ? 2 : 0) + (f->ascending ? 1 : 0), f->limit,
                        f->offset};
    a->kind = trv_list_kind(f->status, s == TRV_FB_READY, s == TRV_FB_EXPIRED);
    return a;
}

apr_status_t trv_fbooking_query_joined(trv_dbc *c, apr_pool_t *p,
                                       const trv_list_filter *f, const char **docs,
                                       long *n, long *total)
{
    trv_list_ask a;
    return trv_list_page_query_joined(c, p, &query, build_sql, ask(f, &a), docs, n, total);
}

static const trv_stmt head_stmt = {"trv_flight_list_head",
    "SELECT h.page, h.n, h.total FROM flight_list_heads h "
    "WHERE h.org_id = %s AND h.user_id = %s AND h.page_gen = h.gen "
    "AND (h.valid_until IS NULL OR h.valid_until > trv_now())"};

apr_status_t trv_fbooking_query_head(trv_dbc *c, apr_pool_t *p,
                                     const trv_list_filter *f, const char **docs,
                                     long *n, long *total)
{
    *docs = NULL;
    if (!trv_list_filter_usual(f)) {
        return APR_SUCCESS;
    }
    return trv_list_head(c, p, &head_stmt, TRV_DB_ARGS(f->org_id, f->user_id), docs, n, total);
}

/* Where a listed booking keeps what its stored rendering needs. */
static const trv_list_stub stub = TRV_LIFECYCLE_ROW_STUB(trv_fbooking);

apr_status_t trv_fbooking_query_list(trv_dbc *c, apr_pool_t *p, const trv_list_filter *f,
                                     apr_array_header_t **page, long *total)
{
    trv_list_ask a;
    return trv_list_page_query_page(c, p, &query, build_sql, ask(f, &a), &stub, trv_fbooking_load_many,
                               page, total);
}
