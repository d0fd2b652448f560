#include "lists.h"
#include "bookings.h"
#include "events.h"
#include "watches.h"
#include "webhook_deliveries.h"
#include "page.h"

#include <apr_escape.h>
#include <apr_strings.h>
#include <stdlib.h>
#include <string.h>

static const char *const *booking_statuses(const trv_dash_ctx *x)
{
    (void)x;
    return trv_dash_booking_statuses;
}

const trv_dash_list trv_dash_lists[] = {
    {"flight-bookings", "Flight bookings",
     "booking id, supplier reference, PNR, passenger or contact name or e-mail", "Status",
     "a booking", booking_statuses, 1, 50, trv_dash_flight_bookings},
    {"hotel-bookings", "Hotel bookings",
     "booking id, reference, supplier booking id, confirmation code, guest or contact name "
     "or e-mail", "Status", "a booking", booking_statuses, 1, 50, trv_dash_hotel_bookings},
    {"watches", "Watches", "watch id, hotel id, destination, place id, mandate id", "Status",
     "a watch", trv_dash_watch_statuses, 0, 10, trv_dash_watches},
    {"events", "Events", "event id, or the id of the booking or watch it is about", "Type",
     "an event", trv_dash_event_types, 0, 10, trv_dash_events},
    {"deliveries", "Webhook deliveries",
     "delivery, event or subscription id, or the id of the booking or watch it is about",
     "Status", "a delivery", trv_dash_delivery_statuses, 0, 10, trv_dash_deliveries},
    {NULL, NULL, NULL, NULL, NULL, NULL, 0, 0, NULL},
};

apr_status_t trv_dash_list_rows(const trv_dash_ctx *x, trv_dbc *c, trv_html *h,
                                const trv_stmt *st, int nargs, const char *const *args,
                                const char *empty, const char *head, trv_rows **rows,
                                long *total)
{
    *total = 0;
    if (trv_db_select(c, x->req->pool, st, rows, nargs, args) != APR_SUCCESS) {
        return APR_EGENERAL;
    }
    if ((*rows)->n == 0) {
        trv_html_fmt(h, "<p class=\"empty\">%s</p>\n", empty);
        return APR_ENOENT;
    }
    *total = atol(trv_rows_get(*rows, 0, "total"));
    trv_html_raw(h, "<div class=\"scroll\"><table><thead><tr>");
    trv_html_raw(h, head);
    trv_html_raw(h, "</tr></thead><tbody>\n");
    return APR_SUCCESS;
}

void trv_dash_table_end(trv_html *h)
{
    trv_html_raw(h, "</tbody></table></div>\n");
}

void trv_dash_subject(trv_html *h, const char *subject)
{
    if (subject && strncmp(subject, "bkg_", 4) == 0) {
        trv_html_fmt(h, "<a href=\"?booking=%s\"><code>%s</code></a>", subject, subject);
    }
    else {
        trv_html_fmt(h, "%s", subject ? subject : "-");
    }
}

static const char *nonempty(apr_table_t *q, const char *k)
{
    const char *v = apr_table_get(q, k);
    return v && *v ? v : NULL;
}

static int is_date(const char *s)
{
    int i;
    if (strlen(s) != 10 || s[4] != '-' || s[7] != '-') {
        return 0;
    }
    for (i = 0; i < 10; i++) {
        if (i != 4 && i != 7 && (s[i] < '0' || s[i] > '9')) {
            return 0;
        }
    }
    return atoi(s + 5) >= 1 && atoi(s + 5) <= 12 && atoi(s + 8) >= 1 && atoi(s + 8) <= 31;
}

static int is_supplier(const char *s)
{
    size_t n = strlen(s);
    if (n > 64) {
        return 0;
    }
    for (; *s; s++) {
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_')) {
            return 0;
        }
    }
    return n > 0;
}

/* Reads the filters; NULL when they are fine, else the reason (the form is
 * shown again with it, and no list). */
static const char *read_filter(const trv_dash_ctx *x, apr_table_t *q, const trv_dash_list *b,
                               trv_dash_filter *f)
{
    const char *off = nonempty(q, "offset");
    const char *const *statuses = b->statuses(x);
    int i;
    memset(f, 0, sizeof(*f));
    f->q = nonempty(q, "q");
    f->status = nonempty(q, "status");
    f->supplier = b->suppliers ? nonempty(q, "supplier") : NULL;
    f->from = nonempty(q, "from");
    f->to = nonempty(q, "to");
    f->limit = TRV_DASH_LIST_PAGE;
    if (f->q && strlen(f->q) > 200) {
        return "The search text is longer than 200 characters.";
    }
    if (f->status) {
        for (i = 0; statuses[i] && strcmp(statuses[i], f->status) != 0; i++) {
        }
        if (!statuses[i]) {
            char *label = apr_pstrdup(x->req->pool, b->status_label);
            label[0] = (char)(label[0] - 'A' + 'a');
            return apr_pstrcat(x->req->pool, "The ", label, " is not one ", b->item,
                               " can have.", NULL);
        }
    }
    if (f->supplier && !is_supplier(f->supplier)) {
        return "The supplier is a name like SUPPLIER_A.";
    }
    if ((f->from && !is_date(f->from)) || (f->to && !is_date(f->to))) {
        return "Dates are written YYYY-MM-DD.";
    }
    if (off) {
        char *end;
        long v = strtol(off, &end, 10);
        if (*end || v < 0 || v > 1000000) {
            return "The page is out of range.";
        }
        f->offset = v;
    }
    if (nonempty(q, "limit")) {
        char *end;
        long v = strtol(nonempty(q, "limit"), &end, 10);
        if (*end || v < 1 || v > 100) {
            return "A page holds 1 to 100 bookings.";
        }
        f->limit = v;
    }
    return NULL;
}

static void filter_form(const trv_dash_ctx *x, trv_html *h, const trv_dash_list *b,
                        const trv_dash_filter *f)
{
    const char *const *statuses = b->statuses(x);
    int i;
    trv_html_fmt(h, "<form method=\"get\" class=\"filters\" role=\"search\" "
                    "aria-label=\"Filter %s\"><input type=\"hidden\" name=\"list\" value=\"%s\">",
                 b->title, b->id);
    trv_html_fmt(h, "<label>Search <input type=\"search\" name=\"q\" value=\"%s\" "
                    "maxlength=\"200\" aria-describedby=\"%s-searches\"></label> "
                    "<small id=\"%s-searches\">%s</small> ",
                 f->q ? f->q : "", b->id, b->id, b->searches);
    trv_html_fmt(h, "<label>%s <select name=\"status\"><option value=\"\">any</option>",
                 b->status_label);
    for (i = 0; statuses[i]; i++) {
        trv_html_fmt(h, "<option%s>%s</option>",
                     f->status && strcmp(f->status, statuses[i]) == 0 ? " selected" : "",
                     statuses[i]);
    }
    trv_html_raw(h, "</select></label> ");
    if (b->suppliers) {
        trv_html_fmt(h, "<label>Supplier <input name=\"supplier\" value=\"%s\" size=\"12\" "
                        "placeholder=\"SUPPLIER_A\"></label> ", f->supplier ? f->supplier : "");
    }
    trv_html_fmt(h, "<label>From <input type=\"date\" name=\"from\" value=\"%s\"></label> "
                    "<label>To <input type=\"date\" name=\"to\" value=\"%s\"></label> "
                    "<button type=\"submit\">Apply</button> <a href=\"?list=%s\">Clear</a>"
                    "</form>\n",
                 f->from ? f->from : "", f->to ? f->to : "", b->id);
}

/* A link to another page of the same list, the filters kept. */
static const char *page_link(apr_pool_t *p, const trv_dash_list *b,
                             const trv_dash_filter *f, long offset)
{
    const char *s = apr_pstrcat(p, "?list=", b->id, NULL);
    const char *const kv[][2] = {{"q", f->q}, {"status", f->status}, {"supplier", f->supplier},
                                 {"from", f->from}, {"to", f->to}};
    size_t i;
    for (i = 0; i < sizeof(kv) / sizeof(kv[0]); i++) {
        if (kv[i][1]) {
            s = apr_pstrcat(p, s, "&", kv[i][0], "=", apr_pescape_urlencoded(p, kv[i][1]),
                            NULL);
        }
    }
    if (f->limit != TRV_DASH_LIST_PAGE) {
        s = apr_pstrcat(p, s, "&limit=", apr_ltoa(p, f->limit), NULL);
    }
    return apr_pstrcat(p, s, "&offset=", apr_ltoa(p, offset), NULL);
}

const char *trv_dash_list_page(const trv_dash_ctx *x, apr_table_t *query, int *status)
{
    apr_pool_t *p = x->req->pool;
    const char *which = apr_table_get(query, "list"), *bad;
    const trv_dash_list *b;
    trv_dash_filter f;
    trv_html *h;
    trv_dbc *c = NULL;
    long total = 0;
    apr_status_t rv = APR_EGENERAL;

    if (!which) {
        return NULL;
    }
    h = trv_html_new(p);
    for (b = trv_dash_lists; b->id && strcmp(b->id, which) != 0; b++) {
    }
    if (!b->id) {
        trv_dash_head(h, x->style_nonce, "No such list");
        trv_html_raw(h, "<main><h1>No such list</h1><p><a href=\"./\">Back to the dashboard"
                        "</a></p></main></body></html>\n");
        *status = 404;
        return trv_html_done(h);
    }
    trv_dash_head(h, x->style_nonce, b->title);
    trv_html_fmt(h, "<header><p><a href=\"./\">← Dashboard</a> · Organization <strong>%s"
                    "</strong>, signed in as <strong>%s</strong></p></header>\n<main>\n"
                    "<h1>%s</h1>\n", x->who.org_name, x->who.login, b->title);
    bad = read_filter(x, query, b, &f);
    filter_form(x, h, b, &f);
    if (bad) {
        trv_html_fmt(h, "<p class=\"notice failed\" role=\"alert\">%s Nothing was searched."
                        "</p></main></body></html>\n", bad);
        *status = 422;
        return trv_html_done(h);
    }
    trv_html_fmt(h, "<section id=\"%s\" aria-label=\"%s\">\n", b->id, b->title);
    if (trv_db_open(x->req->env->db, p, &c) == APR_SUCCESS) {
        rv = b->render(x, c, h, &f, &total);
        if (rv != APR_SUCCESS) {
            trv_log_msg(&x->req->log, TRV_LOG_ERR, x->req->request_id,
                        TRVLOGNO(2303) "dashboard: listing %s failed: %s", b->id,
                        c->error ? c->error : "database error");
        }
        trv_db_close(x->req->env->db, c);
    }
    if (rv != APR_SUCCESS) {
        trv_html_raw(h, "<p class=\"failed\">The list could not be read (database).</p>"
                        "</section></main></body></html>\n");
        *status = 503;
        return trv_html_done(h);
    }
    if (total > 0) {
        long last = f.offset + f.limit < total ? f.offset + f.limit : total;
        trv_html_fmt(h, "<nav class=\"pages\" aria-label=\"Pages\"><p data-total=\"%s\">%s–%s "
                        "of %s</p>", apr_ltoa(p, total), apr_ltoa(p, f.offset + 1),
                     apr_ltoa(p, last), apr_ltoa(p, total));
        if (f.offset > 0) {
            trv_html_fmt(h, "<a rel=\"prev\" href=\"%s\">Previous</a> ",
                         page_link(p, b, &f, f.offset > f.limit ? f.offset - f.limit : 0));
        }
        if (last < total) {
            trv_html_fmt(h, "<a rel=\"next\" href=\"%s\">Next</a>",
                         page_link(p, b, &f, f.offset + f.limit));
        }
        trv_html_raw(h, "</nav>\n");
    }
    trv_html_raw(h, "</section></main></body></html>\n");
    *status = 200;
    return trv_html_done(h);
}
