/* GET /v1/hotel/bookings' query (booking_store.h): one prepared statement per
 * combination of the filters present, the sort and whether the page size
 * is the default, made on first use and kept for the process, so each
 * plan has only the conditions that apply and uses the index for them.
 * The exact total comes from the per-day counts (hotel_bookings_total,
 * sql/100) or, for the usual list, from the all-time counts; each listed
 * booking from its stored rendering. The usual (warm) page comes joined by
 * PostgreSQL as one text (trv_hbooking_query_joined); a page with a booking
 * to render comes row by row. The statements' shape and cache are the
 * flight list's too (core/list_page.h). */
#include "booking_store.h"
#include "core/list_page.h"

#include <stddef.h>

/* The optional filters in placeholder order; the supplier first. */
enum { F_SUPPLIER, F_FROM, F_TO, F_N };
#define VARIANTS (TRV_LIST_KINDS * (1 << F_N) * TRV_LIST_SORTS * 2 * 2)

static const trv_stmt *made[VARIANTS];
static trv_list_stmts variants = {"trv_hotel_list_", VARIANTS, made,
                                  PTHREAD_MUTEX_INITIALIZER};
static const trv_list_shape shape = {"hotel_bookings", "hotel_booking_docs",
                                     "offer_expires_at"};

/* The usual list sums a few all-time counts in plain SQL; the rest goes
 * through hotel_bookings_total() (sql/100). */
static const trv_list_page_query query = {
    &shape, &variants, "b.org_id = %s", 1,
    {"", " AND b.status = %s",
     " AND b.status = 'READY_FOR_COMPLETE' AND b.offer_expires_at > trv_now()",
     " AND (b.status = 'EXPIRED' OR (b.status = 'READY_FOR_COMPLETE' "
     "AND b.offer_expires_at <= trv_now()))"},
    F_N,
    {" AND b.supplier = %s", " AND b.created_at >= %s::timestamptz",
     " AND b.created_at <= %s::timestamptz"},
    {{"(SELECT coalesce(sum(c.n), 0) FROM hotel_booking_totals c WHERE c.org_id = %s)",
      "(SELECT coalesce(sum(c.n), 0) FROM hotel_booking_totals c WHERE c.org_id = %s "
      "AND c.supplier = %s)"},
     {"(SELECT coalesce(sum(c.n), 0) FROM hotel_booking_totals c WHERE c.org_id = %s "
      "AND c.status = %s)",
      "(SELECT coalesce(sum(c.n), 0) FROM hotel_booking_totals c WHERE c.org_id = %s "
      "AND c.status = %s AND c.supplier = %s)"}},
    "hotel_bookings_total(%s, %s::text, %s::text, %s::timestamptz, %s::timestamptz)"};

static char *build_sql(int v)
{
    return trv_list_page_query_sql(&query, v);
}

/* The list request f makes. */
static const trv_list_ask *ask(const trv_list_filter *f, trv_list_ask *a)
{
    /* As a reader sees it: READY_FOR_COMPLETE past its offer's expiry is
     * EXPIRED. The filter was validated against trv_hb_statuses; it stays
     * text for the SQL. */
    int s = f->status ? trv_transit_from_text(&trv_hb_status_table, f->status) : -1;
    *a = (trv_list_ask){{f->org_id, NULL}, f->status, TRV_LIST_ANY,
                        {f->supplier, f->created_from, f->created_to, NULL},
                        (f->sort_by_total ? 2 : 0) + (f->ascending ? 1 : 0), f->limit,
                        f->offset};
    a->kind = trv_list_kind(f->status, s == TRV_HB_READY, s == TRV_HB_EXPIRED);
    return a;
}

apr_status_t trv_hbooking_query_joined(trv_dbc *c, apr_pool_t *p,
                                       const trv_list_filter *f, const char **docs, long *n,
                                       long *total)
{
    trv_list_ask a;
    return trv_list_page_query_joined(c, p, &query, build_sql, ask(f, &a), docs, n, total);
}

static const trv_stmt head_stmt = {"trv_hotel_list_head",
    "SELECT h.page, h.n, h.total FROM hotel_list_heads h "
    "WHERE h.org_id = %s AND h.page_gen = h.gen "
    "AND (h.valid_until IS NULL OR h.valid_until > trv_now())"};

apr_status_t trv_hbooking_query_head(trv_dbc *c, apr_pool_t *p, const trv_list_filter *f,
                                     const char **docs, long *n, long *total)
{
    *docs = NULL;
    if (!trv_list_filter_usual(f)) {
        return APR_SUCCESS;
    }
    return trv_list_head(c, p, &head_stmt, TRV_DB_ARGS(f->org_id), docs, n, total);
}

/* Where a listed booking keeps what its stored rendering needs. */
static const trv_list_stub stub = TRV_LIFECYCLE_ROW_STUB(trv_hbooking);

apr_status_t trv_hbooking_query_list(trv_dbc *c, apr_pool_t *p, const trv_list_filter *f,
                                     apr_array_header_t **page, long *total)
{
    trv_list_ask a;
    return trv_list_page_query_page(c, p, &query, build_sql, ask(f, &a), &stub, trv_hbooking_load_many,
                               page, total);
}
