#include "store.h"

#include <apr_strings.h>
#include <stdlib.h>

/* The filters are bound twice each ("value IS NULL OR column = value")
 * because apr_dbd numbers placeholders in order. */
#define BOOKING_COLUMNS \
    "id, supplier, status, currency, total_amount::text AS total_amount, " \
    "supplier_reference, airline_pnr, trv_ts(created_at) AS created_at, " \
    "trv_ts(updated_at) AS updated_at"

#define LIST_SQL(ORDER) \
    "WITH f AS (SELECT * FROM flight_bookings WHERE org_id = %s AND user_id = %s " \
    "AND (%s::text IS NULL OR status = %s::text) " \
    "AND (%s::text IS NULL OR supplier = %s::text) " \
    "AND (%s::text IS NULL OR supplier_reference = %s::text) " \
    "AND (%s::timestamptz IS NULL OR created_at >= %s::timestamptz) " \
    "AND (%s::timestamptz IS NULL OR created_at <= %s::timestamptz)), " \
    "t AS (SELECT count(*) AS total FROM f) " \
    "SELECT t.total, p.* FROM t LEFT JOIN LATERAL (SELECT " BOOKING_COLUMNS \
    " FROM f ORDER BY " ORDER " LIMIT %s::bigint OFFSET %s::bigint) p ON true"

/* Unpriced bookings sort last in both directions. Columns are qualified
 * (f.) so ORDER BY sorts the stored values, not the text the SELECT prints. */
static const trv_stmt list_stmts[2][2] = {
    {{"trv_flight_list_created_desc", LIST_SQL("f.created_at DESC, f.id DESC")},
     {"trv_flight_list_created_asc", LIST_SQL("f.created_at ASC, f.id ASC")}},
    {{"trv_flight_list_total_desc",
      LIST_SQL("f.total_amount DESC NULLS LAST, f.created_at DESC, f.id DESC")},
     {"trv_flight_list_total_asc",
      LIST_SQL("f.total_amount ASC NULLS LAST, f.created_at ASC, f.id ASC")}},
};

apr_status_t trv_flight_store_list(trv_dbc *c, apr_pool_t *p,
                                   const trv_flight_filter *f, trv_rows **page,
                                   long *total)
{
    const trv_stmt *st = &list_stmts[f->sort_by_total ? 1 : 0][f->ascending ? 1 : 0];
    trv_rows *rows;
    const char *v;
    apr_status_t rv = trv_db_select(c, p, st, &rows,
        TRV_DB_ARGS(f->org_id, f->user_id, f->status, f->status, f->supplier,
                    f->supplier, f->supplier_reference, f->supplier_reference,
                    f->created_from, f->created_from, f->created_to, f->created_to,
                    apr_ltoa(p, f->limit), apr_ltoa(p, f->offset)));
    if (rv != APR_SUCCESS) {
        return rv;
    }
    v = trv_rows_get(rows, 0, "total");
    *total = v ? atol(v) : 0;
    /* With an empty page the one row carries only the total. */
    if (rows->n == 1 && !trv_rows_get(rows, 0, "id")) {
        rows->n = 0;
    }
    *page = rows;
    return APR_SUCCESS;
}

static const trv_stmt get_stmt = {"trv_flight_get",
    "SELECT " BOOKING_COLUMNS " FROM flight_bookings "
    "WHERE id = %s AND org_id = %s AND user_id = %s"};

apr_status_t trv_flight_store_get(trv_dbc *c, apr_pool_t *p, const char *org_id,
                                  const char *user_id, const char *id, trv_rows **row)
{
    return trv_db_select(c, p, &get_stmt, row, TRV_DB_ARGS(id, org_id, user_id));
}
