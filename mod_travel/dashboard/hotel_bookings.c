/* The organization's latest hotel bookings on the dashboard, asked of the
 * hotel domain through its registered lister (core/booking_access.h; the
 * hotel store's own list, as GET /v1/hotel/bookings with no filter): the
 * same rows, the same organization scope and the same status a reader sees
 * (READY_FOR_COMPLETE past its offer's expiry reads EXPIRED). Each row is
 * shown from the booking's list rendering, the document the API answers,
 * so the page and the API cannot disagree. */
#include "bookings.h"
#include "core/booking_access.h"
#include "core/json.h"
#include "core/money.h"
#include "core/registry.h"

#include <apr_strings.h>
#include <string.h>

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

apr_status_t trv_dash_hotel_bookings(const trv_dash_ctx *x, trv_dbc *c, trv_html *h,
                                     const trv_dash_filter *df, long *total)
{
    apr_pool_t *p = x->req->pool;
    const trv_domain *hotel = trv_registry_domain(x->req->env->registry, "hotel");
    trv_booking_query f;
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
    if (!hotel || !hotel->bookings || !hotel->bookings->list
        || hotel->bookings->list(c, p, &f, &page, total) != APR_SUCCESS) {
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
        const json_t *d = APR_ARRAY_IDX(page, i, const json_t *);
        const char *id = trv_json_str(d, "id");
        const char *name = trv_json_str(json_object_get(d, "hotel"), "name");
        trv_html_fmt(h, "<tr data-booking=\"%s\"><td><a href=\"?booking=%s\"><code>%s</code>"
                        "</a></td><td>%s</td>"
                        "<td>%s – %s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
                     id, id, id, name ? name : "-", trv_json_str(d, "check_in"),
                     trv_json_str(d, "check_out"), trv_json_str(d, "status"),
                     money_text(p, json_object_get(d, "total")),
                     trv_json_str(d, "created_at"));
    }
    trv_html_raw(h, "</tbody></table></div>\n");
    return APR_SUCCESS;
}
