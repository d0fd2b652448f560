#include "bookings.h"

#include <apr_strings.h>
#include <stdlib.h>

/* A READY_FOR_COMPLETE booking past its expiry reads as EXPIRED, as in the
 * API (flight/state.c): reads decide it, the expire job stores it. Each
 * filter is off when its argument is NULL; the search matches the id, the
 * supplier reference or the airline's PNR exactly, or a passenger's or the
 * contact's name or e-mail in part (strpos, so the text is never a LIKE
 * pattern). */
#define FLIGHT_STATUS "CASE WHEN b.status = 'READY_FOR_COMPLETE' AND b.expires_at <= now() " \
                      "THEN 'EXPIRED' ELSE b.status END"
static const trv_stmt flights_stmt = {"trv_dash_flights",
    "SELECT b.id, u.name AS user_name, " FLIGHT_STATUS " AS status, b.supplier, "
    "b.currency, b.total_amount::text AS total_amount, b.supplier_reference, "
    "trv_ts(b.created_at) AS created_at, count(*) OVER () AS total FROM flight_bookings b "
    "JOIN users u ON u.id = b.user_id WHERE b.org_id = %s "
    "AND (%s::text IS NULL OR " FLIGHT_STATUS " = %s) "
    "AND (%s::text IS NULL OR b.supplier = %s) "
    "AND (%s::date IS NULL OR b.created_at >= %s::date) "
    "AND (%s::date IS NULL OR b.created_at < %s::date + 1) "
    "AND (%s::text IS NULL OR b.id = %s OR b.supplier_reference = %s "
    "OR b.airline_pnr = upper(%s) "
    "OR strpos(lower(concat_ws(' ', b.contact->>'first_name', b.contact->>'last_name', "
    "b.contact->>'email')), lower(%s)) > 0 "
    "OR EXISTS (SELECT 1 FROM jsonb_array_elements(CASE jsonb_typeof(b.passengers) WHEN "
    "'array' THEN b.passengers ELSE '[]'::jsonb END) ps WHERE strpos(lower(concat_ws(' ', "
    "ps->>'first_name', ps->>'last_name', ps->>'email')), lower(%s)) > 0)) "
    "ORDER BY b.created_at DESC, b.id DESC LIMIT %s::int OFFSET %s::int"};

const char *const trv_dash_booking_statuses[] = {
    "READY_FOR_COMPLETE", "COMPLETE_IN_PROGRESS", "CONFIRMED", "CANCEL_IN_PROGRESS",
    "CANCELED", "FAILED", "EXPIRED", NULL};

apr_status_t trv_dash_flight_bookings(const trv_dash_ctx *x, trv_dbc *c, trv_html *h,
                                      const trv_dash_filter *f, long *total)
{
    apr_pool_t *p = x->req->pool;
    trv_rows *rows;
    int i;
    apr_status_t rv = trv_dash_list_rows(
        x, c, h, &flights_stmt,
        TRV_DB_ARGS(x->who.org_id, f->status, f->status, f->supplier, f->supplier, f->from,
                    f->from, f->to, f->to, f->q, f->q, f->q, f->q, f->q, f->q,
                    apr_ltoa(p, f->limit), apr_ltoa(p, f->offset)),
        "No flight bookings.", "<th>Booking</th><th>User</th><th>Status</th><th>Supplier</th>"
        "<th>Total</th><th>Supplier reference</th><th>Created</th>", &rows, total);
    if (rv != APR_SUCCESS) {
        return rv == APR_ENOENT ? APR_SUCCESS : rv;
    }
    for (i = 0; i < rows->n; i++) {
        const char *amount = trv_rows_get(rows, i, "total_amount");
        trv_html_fmt(h, "<tr data-booking=\"%s\"><td><a href=\"?booking=%s\"><code>%s</code>"
                        "</a></td><td>%s</td>"
                        "<td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
                     trv_rows_get(rows, i, "id"), trv_rows_get(rows, i, "id"),
                     trv_rows_get(rows, i, "id"), trv_rows_get(rows, i, "user_name"), trv_rows_get(rows, i, "status"),
                     trv_rows_get(rows, i, "supplier"),
                     amount ? apr_pstrcat(p, amount, " ", trv_rows_get(rows, i, "currency"),
                                          NULL)
                            : "-",
                     trv_rows_get(rows, i, "supplier_reference"),
                     trv_rows_get(rows, i, "created_at"));
    }
    trv_dash_table_end(h);
    return APR_SUCCESS;
}
