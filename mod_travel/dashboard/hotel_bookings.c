/* The organization's latest hotel bookings on the dashboard, read through
 * the hotel store's own list (hotel/list_query.c, as GET /v1/hotel/bookings
 * with no filter): the same rows, the same organization scope and the same
 * status a reader sees (READY_FOR_COMPLETE past its offer's expiry reads
 * EXPIRED). Each row is shown from the booking's list rendering, the
 * document the API answers, so the page and the API cannot disagree. */
#include "bookings.h"
#include "hotel/bstore.h"
#include "hotel/render.h"
#include "core/json.h"
#include "core/money.h"

#include <apr_strings.h>
#include <stdlib.h>
#include <string.h>

/* The list document of b: its stored rendering, or rendered now (a booking
 * time has changed since, or one without a current rendering). */
static const json_t *list_doc(apr_pool_t *p, const trv_hbooking *b)
{
    if (b->list_doc) {
        return trv_json_parse(p, b->list_doc, strlen(b->list_doc), NULL);
    }
    return trv_json_bind(p, trv_hbooking_render(p, b, TRV_HRENDER_LIST));
}

/* "1234.50 EUR" of a {amount, currency} money object, every minor digit
 * shown; "-" without one (a booking not priced yet). */
static const char *money_text(apr_pool_t *p, const json_t *total)
{
    trv_money m;
    const char *reason;
    apr_int64_t unit = 1, whole, frac;
    int e, i;
    if (!json_is_object(total) || trv_money_from_json(total, &m, &reason) != APR_SUCCESS
        || (e = trv_currency_exponent(m.currency)) < 0) {
        return "-";
    }
    for (i = 0; i < e; i++) {
        unit *= 10;
    }
    whole = (m.minor < 0 ? -m.minor : m.minor) / unit;
    frac = (m.minor < 0 ? -m.minor : m.minor) % unit;
    if (e == 0) {
        return apr_psprintf(p, "%s%" APR_INT64_T_FMT " %s", m.minor < 0 ? "-" : "", whole,
                            m.currency);
    }
    return apr_psprintf(p, "%s%" APR_INT64_T_FMT ".%0*" APR_INT64_T_FMT " %s",
                        m.minor < 0 ? "-" : "", whole, e, frac, m.currency);
}

/* The search the store's list has no filter for: the ids of the
 * organization's bookings whose id, reference, supplier booking id or
 * hotel confirmation code is the text, or whose contact's or a guest's name
 * or e-mail holds it (strpos: never a LIKE pattern), with the list's other
 * filters and its status as a reader sees it; newest first. */
#define HOTEL_STATUS "CASE WHEN b.status = 'READY_FOR_COMPLETE' AND b.offer_expires_at <= " \
                     "trv_now() THEN 'EXPIRED' ELSE b.status END"
static const trv_stmt search_stmt = {"trv_dash_hotel_search",
    "SELECT b.id, count(*) OVER () AS total FROM hotel_bookings b WHERE b.org_id = %s "
    "AND (%s::text IS NULL OR " HOTEL_STATUS " = %s) "
    "AND (%s::text IS NULL OR b.supplier = %s) "
    "AND (%s::timestamptz IS NULL OR b.created_at >= %s::timestamptz) "
    "AND (%s::timestamptz IS NULL OR b.created_at <= %s::timestamptz) "
    "AND (b.id = %s OR b.reference_id = %s OR b.supplier_booking_id = %s "
    "OR b.hotel_confirmation_code = %s "
    "OR strpos(lower(concat_ws(' ', b.contact->>'first_name', b.contact->>'last_name', "
    "b.contact->>'email')), lower(%s)) > 0 "
    "OR EXISTS (SELECT 1 FROM hotel_booking_guests g WHERE g.booking_id = b.id AND "
    "strpos(lower(g.first_name || ' ' || g.last_name), lower(%s)) > 0)) "
    "ORDER BY b.created_at DESC, b.id DESC LIMIT %s::int OFFSET %s::int"};

static apr_status_t search(const trv_dash_ctx *x, trv_dbc *c, const trv_hbooking_filter *f,
                           const char *q, apr_array_header_t **page, long *total)
{
    apr_pool_t *p = x->req->pool;
    trv_rows *rows;
    int i;
    *total = 0;
    *page = apr_array_make(p, 8, sizeof(const trv_hbooking *));
    if (trv_db_select(c, p, &search_stmt, &rows,
                      TRV_DB_ARGS(f->org_id, f->status, f->status, f->supplier, f->supplier,
                                  f->created_from, f->created_from, f->created_to,
                                  f->created_to, q, q, q, q, q, q, apr_ltoa(p, f->limit),
                                  apr_ltoa(p, f->offset)))
        != APR_SUCCESS) {
        return APR_EGENERAL;
    }
    for (i = 0; i < rows->n; i++) {
        trv_hbooking *b = NULL;
        if (trv_hbstore_get(c, p, f->org_id, trv_rows_get(rows, i, "id"), &b) == APR_EGENERAL) {
            return APR_EGENERAL;
        }
        if (b) {
            APR_ARRAY_PUSH(*page, const trv_hbooking *) = b;
        }
    }
    *total = rows->n ? atol(trv_rows_get(rows, 0, "total")) : 0;
    return APR_SUCCESS;
}

apr_status_t trv_dash_hotel_bookings(const trv_dash_ctx *x, trv_dbc *c, trv_html *h,
                                     const trv_dash_filter *df, long *total)
{
    apr_pool_t *p = x->req->pool;
    trv_hbooking_filter f;
    apr_array_header_t *page;
    int i;
    memset(&f, 0, sizeof(f));
    f.org_id = x->who.org_id;
    f.status = df->status;
    f.supplier = df->supplier;
    /* The store takes instants, inclusive. */
    f.created_from = df->from ? apr_pstrcat(p, df->from, "T00:00:00.000Z", NULL) : NULL;
    f.created_to = df->to ? apr_pstrcat(p, df->to, "T23:59:59.999Z", NULL) : NULL;
    f.limit = df->limit;
    f.offset = df->offset;
    if ((df->q ? search(x, c, &f, df->q, &page, total)
               : trv_hbstore_list(c, p, &f, &page, total)) != APR_SUCCESS) {
        return APR_EGENERAL;
    }
    if (page->nelts == 0) {
        trv_html_raw(h, "<p class=\"empty\">No hotel bookings.</p>\n");
        return APR_SUCCESS;
    }
    trv_html_raw(h, "<div class=\"scroll\"><table><thead>"
                    "<tr><th>Booking</th><th>Hotel</th><th>Stay</th>"
                    "<th>Status</th><th>Total</th><th>Created</th></tr></thead><tbody>\n");
    for (i = 0; i < page->nelts; i++) {
        const trv_hbooking *b = APR_ARRAY_IDX(page, i, const trv_hbooking *);
        const json_t *d = list_doc(p, b);
        const char *hotel = trv_json_str(json_object_get(d, "hotel"), "name");
        trv_html_fmt(h, "<tr data-booking=\"%s\"><td><a href=\"?booking=%s\"><code>%s</code>"
                        "</a></td><td>%s</td>"
                        "<td>%s – %s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
                     b->id, b->id, b->id, hotel ? hotel : "-", trv_json_str(d, "check_in"),
                     trv_json_str(d, "check_out"), trv_json_str(d, "status"),
                     money_text(p, json_object_get(d, "total")),
                     trv_json_str(d, "created_at"));
    }
    trv_html_raw(h, "</tbody></table></div>\n");
    return APR_SUCCESS;
}
