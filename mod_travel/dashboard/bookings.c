#include "bookings.h"

#include <apr_strings.h>

/* A READY_FOR_COMPLETE booking past its expiry reads as EXPIRED, as in the
 * API (flight/state.c): reads decide it, the expire job stores it. */
static const trv_stmt flights_stmt = {"trv_dash_flights",
    "SELECT b.id, u.name AS user_name, CASE WHEN b.status = 'READY_FOR_COMPLETE' "
    "AND b.expires_at <= now() THEN 'EXPIRED' ELSE b.status END AS status, b.supplier, "
    "b.currency, b.total_amount::text AS total_amount, b.supplier_reference, "
    "trv_ts(b.created_at) AS created_at FROM flight_bookings b "
    "JOIN users u ON u.id = b.user_id WHERE b.org_id = %s "
    "ORDER BY b.created_at DESC, b.id DESC LIMIT %s::int"};

static apr_status_t flights(const trv_dash_ctx *x, trv_dbc *c, trv_html *h)
{
    apr_pool_t *p = x->req->pool;
    trv_rows *rows;
    int i;
    if (trv_db_select(c, p, &flights_stmt, &rows,
                      TRV_DB_ARGS(x->who.org_id, apr_itoa(p, TRV_DASH_BOOKINGS_SHOWN)))
            != APR_SUCCESS) {
        return APR_EGENERAL;
    }
    if (rows->n == 0) {
        trv_html_raw(h, "<p class=\"empty\">No flight bookings yet.</p>\n");
        return APR_SUCCESS;
    }
    trv_html_raw(h, "<div class=\"scroll\"><table><thead>"
                    "<tr><th>Booking</th><th>User</th><th>Status</th>"
                    "<th>Supplier</th><th>Total</th><th>Supplier reference</th>"
                    "<th>Created</th></tr></thead><tbody>\n");
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
    trv_html_raw(h, "</tbody></table></div>\n");
    if (rows->n == TRV_DASH_BOOKINGS_SHOWN) {
        trv_html_raw(h, "<p class=\"more\">The latest 50 are shown; the API lists them "
                        "all (GET /v1/flight/bookings, per user).</p>\n");
    }
    return APR_SUCCESS;
}

/* One entry per kind of booking, each rendered from its own domain's
 * store. */
const trv_dash_booking_list trv_dash_booking_lists[] = {
    {"flight-bookings", "Flight bookings", flights},
    {"hotel-bookings", "Hotel bookings", trv_dash_hotel_bookings},
    {NULL, NULL, NULL},
};
