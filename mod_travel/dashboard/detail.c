#include "detail.h"
#include "actions.h"
#include "api_call.h"
#include "page.h"
#include "core/ids.h"
#include "core/json.h"
#include "core/json_arena.h"
#include "core/registry.h"
#include "webhook/delivery_status.h"

#include <apr_strings.h>
#include <string.h>

/* A booking's timeline, oldest first: its events (every state change
 * customers hear about writes one) and its supplier calls (sql/200), each
 * with its request id and duration. */
static const trv_stmt events_stmt = {"trv_dash_booking_timeline",
    "SELECT t.kind, t.ref, t.what, t.supplier, t.outcome, t.http_status, t.duration_ms, "
    "t.request_id, trv_ts(t.at) AS created_at FROM ("
    "SELECT 'event' AS kind, e.id AS ref, e.type AS what, NULL AS supplier, NULL AS outcome, "
    "NULL AS http_status, NULL AS duration_ms, NULL AS request_id, e.created_at AS at "
    "FROM events e WHERE e.org_id = %s AND e.data->'booking'->>'id' = %s "
    "UNION ALL SELECT 'call', c.id::text, c.operation, c.supplier, c.outcome, "
    "c.http_status::text, c.duration_ms::text, c.request_id, c.created_at "
    "FROM supplier_calls c WHERE c.org_id = %s AND c.booking_id = %s) t "
    "ORDER BY t.at, t.kind, t.ref LIMIT 400"};

/* The webhook deliveries of those events, newest first. */
static const trv_stmt deliveries_stmt = {"trv_dash_booking_deliveries",
    "SELECT d.id, s.family, d.subscription_id, e.type, d.status, d.replay_count::text "
    "AS replay_count, trv_ts(d.created_at) AS created_at FROM webhook_deliveries d "
    "JOIN events e ON e.id = d.event_id JOIN webhook_subscriptions s ON s.id = "
    "d.subscription_id WHERE d.org_id = %s AND e.org_id = %s AND "
    "e.data->'booking'->>'id' = %s ORDER BY d.created_at DESC, d.id DESC LIMIT 200"};

/* Where a delivery of this organization belongs. */
static const trv_stmt delivery_stmt = {"trv_dash_delivery_owner",
    "SELECT d.subscription_id, s.family FROM webhook_deliveries d JOIN "
    "webhook_subscriptions s ON s.id = d.subscription_id WHERE d.id = %s AND d.org_id = %s "
    "AND s.org_id = %s"};

/* Indented, with the API's own precision for reals (TRV_JSON_DUMP_FLAGS):
 * 371.55, not the double's 371.55000000000001. */
static const char *pretty(apr_pool_t *p, const json_t *v)
{
    char *s = json_dumps(v, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
    char *out = apr_pstrdup(p, s ? s : "null");
    trv_json_free(s);
    return out;
}

static void open_page(trv_html *h, const trv_dash_ctx *x, const char *title)
{
    trv_dash_head(h, x->style_nonce, title);
    trv_html_fmt(h, "<header><p><a href=\"./\">← Dashboard</a> · Organization <strong>%s"
                    "</strong>, signed in as <strong>%s</strong></p></header>\n<main>\n",
                 x->who.org_name, x->who.login);
}

static const char *not_found(trv_html *h, const trv_dash_ctx *x, const char *what, int *status)
{
    open_page(h, x, "Not found");
    trv_html_fmt(h, "<h1>Not found</h1><p>There is no %s with that id in this organization."
                    "</p></main></body></html>\n", what);
    *status = 404;
    return trv_html_done(h);
}

/* Scalars of a document as a definition list (objects and arrays are in
 * the full document below it). */
static void fields_html(trv_html *h, apr_pool_t *p, const json_t *doc)
{
    const char *k;
    json_t *v;
    trv_html_raw(h, "<dl class=\"fields\">");
    json_object_foreach((json_t *)doc, k, v) {
        const char *text = NULL;
        if (json_is_string(v)) {
            text = json_string_value(v);
        }
        else if (json_is_integer(v) || json_is_real(v) || json_is_boolean(v)) {
            text = trv_json_dump(p, v);
        }
        else if (json_is_object(v) && json_object_get(v, "amount")
                 && json_object_get(v, "currency")) {
            text = apr_pstrcat(p, trv_json_dump(p, json_object_get(v, "amount")), " ",
                               json_string_value(json_object_get(v, "currency")), NULL);
        }
        if (text) {
            trv_html_fmt(h, "<div><dt>%s</dt><dd data-field=\"%s\">%s</dd></div>", k, k, text);
        }
    }
    trv_html_raw(h, "</dl>\n");
}

static void payments_html(trv_html *h, apr_pool_t *p, const json_t *payments)
{
    size_t i;
    json_t *pay;
    trv_html_raw(h, "<section id=\"payments\"><h2>Payments</h2>\n");
    if (!json_array_size(payments)) {
        trv_html_raw(h, "<p class=\"empty\">No payments.</p></section>\n");
        return;
    }
    trv_html_raw(h, "<div class=\"scroll\"><table><thead><tr><th>Payment</th><th>Status</th>"
                    "<th>Amount</th><th>Collected by</th><th>Created</th></tr></thead><tbody>");
    json_array_foreach(payments, i, pay) {
        const json_t *a = json_object_get(pay, "amount");
        trv_html_fmt(h, "<tr data-payment=\"%s\"><td><code>%s</code></td><td>%s</td><td>%s %s"
                        "</td><td>%s</td><td>%s</td></tr>\n",
                     trv_json_str(pay, "id"), trv_json_str(pay, "id"),
                     trv_json_str(pay, "status"),
                     a ? trv_json_dump(p, json_object_get(a, "amount")) : "-",
                     a ? trv_json_str(a, "currency") : "", trv_json_str(pay, "collected_by"),
                     trv_json_str(pay, "created_at"));
    }
    trv_html_raw(h, "</tbody></table></div></section>\n");
}

static void booking_events_html(const trv_dash_ctx *x, trv_html *h, const char *id)
{
    apr_pool_t *p = x->req->pool;
    trv_rows *ev = NULL, *dl = NULL;
    trv_dbc *c = NULL;
    int i, ok = 0;
    if (trv_db_open(x->req->env->db, p, &c) == APR_SUCCESS) {
        ok = trv_db_select(c, p, &events_stmt, &ev,
                           TRV_DB_ARGS(x->who.org_id, id, x->who.org_id, id))
                 == APR_SUCCESS
             && trv_db_select(c, p, &deliveries_stmt, &dl,
                              TRV_DB_ARGS(x->who.org_id, x->who.org_id, id)) == APR_SUCCESS;
        if (!ok) {
            trv_log_msg(&x->req->log, TRV_LOG_ERR, x->req->request_id,
                        TRVLOGNO(2300) "dashboard: reading the events of %s failed: %s", id,
                        c->error ? c->error : "database error");
        }
        trv_db_close(x->req->env->db, c);
    }
    trv_html_raw(h, "<section id=\"timeline\"><h2>Timeline</h2>\n");
    if (!ok) {
        trv_html_raw(h, "<p class=\"failed\">The events could not be read (database).</p>"
                        "</section>\n");
        return;
    }
    if (ev->n == 0) {
        trv_html_raw(h, "<p class=\"empty\">No events or supplier calls yet.</p>\n");
    }
    else {
        trv_html_raw(h, "<ol class=\"timeline\">");
        for (i = 0; i < ev->n; i++) {
            const char *ref = trv_rows_get(ev, i, "ref"), *st;
            if (strcmp(trv_rows_get(ev, i, "kind"), "event") == 0) {
                trv_html_fmt(h, "<li data-event=\"%s\"><time>%s</time> event %s "
                                "<code>%s</code></li>", ref,
                             trv_rows_get(ev, i, "created_at"), trv_rows_get(ev, i, "what"),
                             ref);
                continue;
            }
            st = trv_rows_get(ev, i, "http_status");
            trv_html_fmt(h, "<li data-supplier-call=\"%s\" data-outcome=\"%s\"><time>%s</time> "
                            "%s call <code>%s</code>: %s (%s) in %s ms, request id <code>%s</code>"
                            "</li>", ref, trv_rows_get(ev, i, "outcome"),
                         trv_rows_get(ev, i, "created_at"), trv_rows_get(ev, i, "supplier"),
                         trv_rows_get(ev, i, "what"), trv_rows_get(ev, i, "outcome"),
                         st && strcmp(st, "0") != 0 ? apr_pstrcat(p, "HTTP ", st, NULL)
                                                    : "no HTTP answer",
                         trv_rows_get(ev, i, "duration_ms"),
                         trv_rows_get(ev, i, "request_id") ? trv_rows_get(ev, i, "request_id")
                                                           : "-");
        }
        trv_html_raw(h, "</ol>\n");
    }
    trv_html_raw(h, "</section>\n<section id=\"booking-deliveries\"><h2>Webhook deliveries"
                    "</h2>\n");
    if (dl->n == 0) {
        trv_html_raw(h, "<p class=\"empty\">No webhook deliveries.</p>\n");
    }
    else {
        trv_html_raw(h, "<div class=\"scroll\"><table><thead><tr><th>Delivery</th><th>Event</th>"
                        "<th>Status</th><th>Replays</th><th>Created</th></tr></thead><tbody>");
        for (i = 0; i < dl->n; i++) {
            const char *d = trv_rows_get(dl, i, "id");
            trv_html_fmt(h, "<tr data-delivery=\"%s\"><td><a href=\"?delivery=%s\"><code>%s</code>"
                            "</a></td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
                         d, d, d, trv_rows_get(dl, i, "type"), trv_rows_get(dl, i, "status"),
                         trv_rows_get(dl, i, "replay_count"),
                         trv_rows_get(dl, i, "created_at"));
        }
        trv_html_raw(h, "</tbody></table></div>\n");
    }
    trv_html_raw(h, "</section>\n");
}

/* The booking's document as the API answers it: a flight booking of any
 * user of the organization (the API shows a user's own), a hotel booking
 * through the API (organization-scoped). NULL when there is none here. */
static const json_t *booking_doc(const trv_dash_ctx *x, const char *id, const char **kind,
                                 int *db_failed)
{
    apr_pool_t *p = x->req->pool;
    const trv_domain *flight = trv_registry_domain(x->req->env->registry, "flight");
    const json_t *doc = NULL;
    trv_dbc *c = NULL;
    apr_status_t rv = APR_EGENERAL;
    trv_resp resp;
    *db_failed = 0;
    if (flight && flight->bookings && flight->bookings->get
        && trv_db_open(x->req->env->db, p, &c) == APR_SUCCESS) {
        rv = flight->bookings->get(c, p, x->who.org_id, id, &doc);
        trv_db_close(x->req->env->db, c);
    }
    if (rv == APR_SUCCESS) {
        *kind = "Flight";
        return doc;
    }
    if (rv == APR_EGENERAL) {
        trv_log_msg(&x->req->log, TRV_LOG_ERR, x->req->request_id,
                    TRVLOGNO(2301) "dashboard: reading booking %s failed: %s", id,
                    c && c->error ? c->error : TRV_DB_UNAVAILABLE);
        *db_failed = 1;
        return NULL;
    }
    trv_dash_api(x, "GET", apr_pstrcat(p, "/v1/hotel/bookings/", id, NULL), NULL, &resp);
    if (resp.status == 200 && (doc = trv_resp_data(p, &resp))) {
        *kind = "Hotel";
        return doc;
    }
    if (resp.status >= 500) {
        *db_failed = 1;
    }
    return NULL;
}

static const char *booking_page(const trv_dash_ctx *x, const char *id, int *status)
{
    apr_pool_t *p = x->req->pool;
    trv_html *h = trv_html_new(p);
    const char *kind = NULL;
    int failed;
    const json_t *doc;

    if (!trv_id_valid(id, "bkg") || !(doc = booking_doc(x, id, &kind, &failed))) {
        if (trv_id_valid(id, "bkg") && failed) {
            open_page(h, x, "Unavailable");
            trv_html_raw(h, "<h1>Unavailable</h1><p>The database does not answer; retry "
                            "shortly.</p></main></body></html>\n");
            *status = 503;
            return trv_html_done(h);
        }
        return not_found(h, x, "booking", status);
    }
    open_page(h, x, apr_pstrcat(p, kind, " booking ", id, NULL));
    trv_html_fmt(h, "<h1>%s booking <code data-booking=\"%s\">%s</code></h1>\n", kind, id, id);
    trv_html_raw(h, "<section id=\"fields\"><h2>Fields</h2>\n");
    fields_html(h, p, doc);
    trv_html_raw(h, "</section>\n");
    payments_html(h, p, json_object_get(doc, "payments"));
    if (json_object_get(doc, "cancellation") && !json_is_null(json_object_get(doc, "cancellation"))) {
        trv_html_fmt(h, "<section id=\"cancellation\"><h2>Cancellation and refund</h2><pre>%s"
                        "</pre></section>\n", pretty(p, json_object_get(doc, "cancellation")));
    }
    if (json_array_size(json_object_get(doc, "cancellations"))) {
        trv_html_fmt(h, "<section id=\"cancellation\"><h2>Cancellations and refunds</h2>"
                        "<pre>%s</pre></section>\n",
                     pretty(p, json_object_get(doc, "cancellations")));
    }
    booking_events_html(x, h, id);
    trv_html_fmt(h, "<section id=\"document\"><h2>As the API answers it</h2><pre>%s</pre>"
                    "</section>\n</main></body></html>\n", pretty(p, doc));
    *status = 200;
    return trv_html_done(h);
}

static void attempts_table(trv_html *h, apr_pool_t *p, const json_t *attempts)
{
    size_t i;
    json_t *a;
    if (!json_array_size(attempts)) {
        trv_html_raw(h, "<p class=\"empty\">No attempt yet.</p>\n");
        return;
    }
    trv_html_raw(h, "<div class=\"scroll\"><table><thead><tr><th>#</th><th>Time</th>"
                    "<th>HTTP status</th><th>Duration</th><th>Response body</th></tr></thead>"
                    "<tbody>");
    json_array_foreach(attempts, i, a) {
        json_int_t st = json_integer_value(json_object_get(a, "response_status"));
        trv_html_fmt(h, "<tr data-attempt=\"%s\"><td>%s</td><td>%s</td><td>%s</td><td>%s ms</td>"
                        "<td><pre class=\"body\">%s</pre></td></tr>\n",
                     trv_json_dump(p, json_object_get(a, "attempt_number")),
                     trv_json_dump(p, json_object_get(a, "attempt_number")),
                     trv_json_str(a, "created_at"),
                     st ? trv_json_dump(p, json_object_get(a, "response_status"))
                        : apr_pstrcat(p, "no response",
                                      trv_json_str(a, "error")
                                          ? apr_pstrcat(p, " (", trv_json_str(a, "error"), ")",
                                                        NULL)
                                          : "", NULL),
                     trv_json_dump(p, json_object_get(a, "duration_ms")),
                     trv_json_str(a, "response_body"));
    }
    trv_html_raw(h, "</tbody></table></div>\n");
}

static const char *delivery_page(const trv_dash_ctx *x, const char *id, const char *done,
                                 int *status)
{
    apr_pool_t *p = x->req->pool;
    trv_html *h = trv_html_new(p);
    trv_rows *rows = NULL;
    trv_dbc *c = NULL;
    const char *sub, *family, *st;
    const json_t *data;
    trv_resp resp;
    int ok = 0, ds;

    if (!trv_id_valid(id, "dlv")) {
        return not_found(h, x, "delivery", status);
    }
    if (trv_db_open(x->req->env->db, p, &c) == APR_SUCCESS) {
        ok = trv_db_select(c, p, &delivery_stmt, &rows,
                           TRV_DB_ARGS(id, x->who.org_id, x->who.org_id)) == APR_SUCCESS;
        if (!ok) {
            trv_log_msg(&x->req->log, TRV_LOG_ERR, x->req->request_id,
                        TRVLOGNO(2302) "dashboard: reading delivery %s failed: %s", id,
                        c->error ? c->error : "database error");
        }
        trv_db_close(x->req->env->db, c);
    }
    if (!ok) {
        open_page(h, x, "Unavailable");
        trv_html_raw(h, "<h1>Unavailable</h1><p>The database does not answer; retry shortly."
                        "</p></main></body></html>\n");
        *status = 503;
        return trv_html_done(h);
    }
    if (rows->n != 1) {
        return not_found(h, x, "delivery", status);
    }
    sub = trv_rows_get(rows, 0, "subscription_id");
    family = trv_rows_get(rows, 0, "family");
    trv_dash_api(x, "GET", apr_pstrcat(p, "/v1/", family, "/webhook-subscriptions/", sub,
                                       "/deliveries/", id, NULL), NULL, &resp);
    if (resp.status != 200 || !(data = trv_resp_data(p, &resp))) {
        return not_found(h, x, "delivery", status);
    }
    st = trv_json_str(data, "status");
    open_page(h, x, apr_pstrcat(p, "Delivery ", id, NULL));
    trv_html_fmt(h, "<h1>Delivery <code data-delivery=\"%s\" data-status=\"%s\">%s</code></h1>\n",
                 id, st, id);
    if (trv_dash_done_message(done)) {
        trv_html_fmt(h, "<div class=\"notice\" role=\"status\" data-done=\"%s\"><p>%s</p></div>\n",
                     done, trv_dash_done_message(done));
    }
    trv_html_raw(h, "<section id=\"fields\"><h2>Fields</h2>\n");
    fields_html(h, p, data);
    trv_html_fmt(h, "<p>Subscription <code>%s</code> (%s events).</p>", sub, family);
    ds = trv_transit_from_text(&trv_delivery_status_table, st);
    if (ds >= 0 && trv_delivery_finished((trv_delivery_status)ds)) {
        trv_html_raw(h, "<p>");
        trv_dash_form(h, x, "replay");
        trv_dash_hidden(h, "family", family);
        trv_dash_hidden(h, "subscription_id", sub);
        trv_dash_hidden(h, "delivery_id", id);
        trv_html_raw(h, "<button type=\"submit\">Replay</button></form></p>\n");
    }
    trv_html_raw(h, "</section>\n<section id=\"attempts\"><h2>Attempts of the current send"
                    "</h2>\n");
    attempts_table(h, p, json_object_get(data, "attempts"));
    trv_html_fmt(h, "</section>\n<section id=\"payload\"><h2>Payload (the signed body)</h2>"
                    "<pre data-payload>%s</pre></section>\n</main></body></html>\n",
                 pretty(p, json_object_get(data, "event")));
    *status = 200;
    return trv_html_done(h);
}

const char *trv_dash_detail_page(const trv_dash_ctx *x, apr_table_t *query, int *status)
{
    const char *id;
    if ((id = apr_table_get(query, "booking"))) {
        return booking_page(x, id, status);
    }
    if ((id = apr_table_get(query, "delivery"))) {
        return delivery_page(x, id, apr_table_get(query, "done"), status);
    }
    return NULL;
}
