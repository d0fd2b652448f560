#include "page.h"
#include "api_call.h"
#include "bookings.h"
#include "charts.h"
#include "account/keys.h"
#include "core/clock.h"
#include "core/registry.h"
#include "webhook/delivery_status.h"
#include "webhook/subscription_status.h"

#include <apr_strings.h>
#include <string.h>

/* Deliveries shown per subscription, newest first. */
#define DELIVERIES_SHOWN "10"

/* One stylesheet, no script. Narrow screens (a phone, 375 px): the page
 * never scrolls sideways; a wide table scrolls inside its own box and long
 * ids break. Focus is always visible for keyboard users. */
static const char style[] =
    "*{box-sizing:border-box}"
    "body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#1a1a1a;background:#fafafa}"
    "header,main{max-width:1200px;margin:0 auto;padding:0 1rem}"
    "header{padding-top:1rem;border-bottom:1px solid #ddd;background:#fff}"
    "h1{font-size:1.4rem;margin:.3em 0}h2{font-size:1.2rem;margin-top:1.5em}"
    "nav ul{list-style:none;padding:0;margin:.5em 0;display:flex;flex-wrap:wrap;gap:.25em 1em}"
    "a{color:#0b5cad}:focus-visible{outline:3px solid #0b5cad;outline-offset:2px}"
    "section{background:#fff;border:1px solid #e3e3e3;border-radius:6px;padding:0 1rem 1rem;"
    "margin:1rem 0}"
    ".scroll{overflow-x:auto;max-width:100%}"
    "table{border-collapse:collapse;margin:.5em 0 1em;min-width:100%}"
    "th,td{border-bottom:1px solid #e3e3e3;padding:.35em .5em;text-align:left;"
    "vertical-align:top}"
    "th{background:#f4f4f4;font-weight:600}form{display:inline;margin:0}"
    "code{overflow-wrap:anywhere;word-break:break-word}"
    "button{font:inherit;padding:.3em .8em;min-height:2.2em;border:1px solid #888;"
    "border-radius:4px;background:#fff;cursor:pointer}"
    "button.danger{border-color:#b33;color:#fff;background:#b33}"
    ".notice{padding:.5em 1em;border:1px solid #7a7;background:#efe;margin:1rem 0}"
    ".notice.failed,p.failed{border-color:#c66;background:#fee}"
    "code[data-secret]{font-size:1.1em;background:#ffd;padding:.1em .3em;user-select:all}"
    ".attempts{margin:0;padding-left:1.2em}ul.plain{list-style:none;margin:0;padding:0}"
    "pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f6f6f6;padding:.5em;"
    "max-height:30em;overflow:auto;font-size:.85em}pre.body{margin:0;max-height:10em}"
    "form.filters{display:flex;flex-wrap:wrap;gap:.5em 1em;align-items:end;margin:1em 0}"
    "form.filters label{display:flex;flex-direction:column;font-size:.85em}"
    "input,select{font:inherit;max-width:100%}nav.pages{display:flex;gap:1em;"
    "align-items:center}"
    "svg.chart{width:100%;max-width:560px;height:auto;display:block}"
    ".legend span{margin-right:1em;white-space:nowrap}"
    "dl.fields{display:grid;grid-template-columns:repeat(auto-fill,minmax(14em,1fr));"
    "gap:.25em 1em}dl.fields dt{font-size:.8em;color:#555}dl.fields dd{margin:0;"
    "overflow-wrap:anywhere}ol.timeline{padding-left:1.2em}"
    ".confirm{max-width:40rem;margin:2rem auto}.actions{display:flex;gap:1em;"
    "align-items:center;flex-wrap:wrap}"
    "@media (max-width:600px){body{font-size:16px}header,main{padding:0 .5rem}"
    "section{padding:0 .5rem .75rem}th,td{padding:.3em}}";

void trv_dash_head(trv_html *h, const char *nonce, const char *title)
{
    trv_html_fmt(h, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                    "<meta name=\"referrer\" content=\"no-referrer\"><title>%s</title>"
                    "<style nonce=\"%s\">", title, nonce);
    trv_html_raw(h, style);
    trv_html_raw(h, "</style></head>\n<body>\n");
}

const char *trv_dash_refusal(apr_pool_t *p, const char *style_nonce, const char *title,
                             const char *message)
{
    trv_html *h = trv_html_new(p);
    trv_dash_head(h, style_nonce, title);
    trv_html_fmt(h, "<h1>%s</h1>\n<p>%s</p>\n</body></html>\n", title, message);
    return trv_html_done(h);
}

void trv_dash_ask_form(trv_html *h, const char *action)
{
    trv_html_fmt(h, "<form method=\"get\"><input type=\"hidden\" name=\"confirm\" "
                    "value=\"%s\">", action);
}

void trv_dash_hidden(trv_html *h, const char *name, const char *value)
{
    trv_html_fmt(h, "<input type=\"hidden\" name=\"%s\" value=\"%s\">", name, value);
}

void trv_dash_form(trv_html *h, const trv_dash_ctx *x, const char *action)
{
    trv_html_fmt(h, "<form method=\"post\"><input type=\"hidden\" name=\"csrf\" value=\"%s\">"
                    "<input type=\"hidden\" name=\"action\" value=\"%s\">", x->csrf, action);
}

static void notice_html(trv_html *h, apr_pool_t *p, const trv_dash_notice *n)
{
    if (!n || !n->message) {
        return;
    }
    trv_html_fmt(h, "<div class=\"notice%s\" role=\"status\" data-status=\"%s\"><p>%s</p>",
                 n->status >= 400 ? " failed" : "", apr_itoa(p, n->status), n->message);
    if (n->secret) {
        trv_html_fmt(h, "<p><code data-secret>%s</code></p>", n->secret);
    }
    trv_html_raw(h, "</div>\n");
}

static void keys_section(const trv_dash_ctx *x, const trv_rows *keys, trv_html *h)
{
    int i;
    trv_html_raw(h, "<section id=\"keys\"><h2>API keys</h2>\n");
    if (!keys) {
        trv_html_raw(h, "<p class=\"failed\">The keys could not be read (database).</p>\n");
    }
    else if (keys->n == 0) {
        trv_html_raw(h, "<p class=\"empty\">No API keys yet.</p>\n");
    }
    else {
        trv_html_raw(h, "<div class=\"scroll\"><table><thead>"
                    "<tr><th>Key</th><th>User</th><th>Starts with</th>"
                        "<th>Mode</th><th>Created</th><th>State</th><th></th></tr></thead>"
                        "<tbody>\n");
        for (i = 0; i < keys->n; i++) {
            const char *id = trv_rows_get(keys, i, "id");
            const char *revoked = trv_rows_get(keys, i, "revoked_at");
            const char *expires = trv_rows_get(keys, i, "expires_at");
            apr_time_t until;
            /* An expired key is refused like a revoked one (nothing stores
             * the moment it passes: it is read here). */
            int expired = !revoked && expires && trv_time_parse(expires, &until) == APR_SUCCESS
                          && until <= apr_time_now();
            trv_html_fmt(h, "<tr data-key=\"%s\" data-state=\"%s\"><td><code>%s</code></td>"
                            "<td>%s</td><td><code>%s…</code></td><td>%s</td><td>%s</td><td>",
                         id, revoked ? "revoked" : expired ? "expired" : "active", id,
                         trv_rows_get(keys, i, "user_name"), trv_rows_get(keys, i, "key_prefix"),
                         trv_rows_get(keys, i, "mode"), trv_rows_get(keys, i, "created_at"));
            if (revoked) {
                trv_html_fmt(h, "revoked %s</td><td>", revoked);
            }
            else if (expired) {
                trv_html_fmt(h, "expired %s</td><td>", expires);
            }
            else {
                trv_html_raw(h, "active");
                if (expires) {
                    trv_html_fmt(h, ", expires %s", expires);
                }
                trv_html_raw(h, "</td><td>");
                /* Asks first (confirm.c). */
                trv_dash_ask_form(h, "revoke_key");
                trv_dash_hidden(h, "key_id", id);
                trv_html_fmt(h, "<button type=\"submit\" aria-label=\"Revoke key %s\">"
                                "Revoke</button></form>", id);
            }
            trv_html_raw(h, "</td></tr>\n");
        }
        trv_html_raw(h, "</tbody></table></div>\n");
    }
    trv_dash_form(h, x, "create_key");
    trv_html_fmt(h, "<label>Mode <select name=\"mode\"><option value=\"test\">test</option>"
                    "<option value=\"live\">live</option></select></label> "
                    "<button type=\"submit\">Create key</button> "
                    "<small>for user %s; the key is shown once</small></form>\n</section>\n",
                 x->who.user_name);
}

static void bookings_sections(const trv_dash_ctx *x, trv_dbc *c, trv_html *h)
{
    const trv_dash_list *b;
    trv_dash_filter latest;
    long total = 0;
    memset(&latest, 0, sizeof(latest));
    for (b = trv_dash_lists; b->id; b++) {
        latest.limit = b->shown;
        trv_html_fmt(h, "<section id=\"%s\"><h2>%s</h2>\n", b->id, b->title);
        if (!c) {
            trv_html_raw(h, "<p class=\"failed\">The list could not be read "
                            "(database).</p>\n");
        }
        else if (b->render(x, c, h, &latest, &total) == APR_SUCCESS) {
            /* The full list, with search, filters and pages (lists.c). */
            if (total > 0) {
                trv_html_fmt(h, "<p class=\"more\">The latest %s of %s. ",
                             apr_ltoa(x->req->pool, total < b->shown ? total : b->shown),
                             apr_ltoa(x->req->pool, total));
                trv_html_fmt(h, "<a href=\"?list=%s\">Search, filter and page through them"
                                "</a></p>\n", b->id);
            }
        }
        else {
            trv_log_msg(&x->req->log, TRV_LOG_ERR, x->req->request_id,
                        TRVLOGNO(1607) "dashboard: reading %s failed: %s", b->id,
                        c->error ? c->error : "database error");
            trv_html_raw(h, "<p class=\"failed\">The list could not be read "
                            "(database).</p>\n");
        }
        trv_html_raw(h, "</section>\n");
    }
}

static const char *str(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

/* An integer member as text (apr's formatter does not take Jansson's). */
static const char *num(apr_pool_t *p, const json_t *o, const char *k)
{
    return apr_psprintf(p, "%" APR_INT64_T_FMT,
                        (apr_int64_t)json_integer_value(json_object_get(o, k)));
}

static void subscription_buttons(trv_html *h, const trv_dash_ctx *x, const char *family,
                                 const char *id, const char *status)
{
    /* A subscription the circuit breaker disabled is resumed (re-enabled)
     * the same way as a paused one. */
    int ss = trv_transit_from_text(&trv_subscription_status_table, status);
    int paused = ss >= 0 && trv_subscription_status_resumable((trv_subscription_status)ss);
    /* Resume is done at once; Pause and Rotate secret ask first
     * (confirm.c). */
    if (paused) {
        trv_dash_form(h, x, "resume");
    }
    else {
        trv_dash_ask_form(h, "pause");
    }
    trv_dash_hidden(h, "family", family);
    trv_dash_hidden(h, "subscription_id", id);
    trv_html_fmt(h, "<button type=\"submit\" aria-label=\"%s %s\">%s</button></form> ",
                 paused ? "Resume" : "Pause", id, paused ? "Resume" : "Pause");
    trv_dash_ask_form(h, "rotate_secret");
    trv_dash_hidden(h, "family", family);
    trv_dash_hidden(h, "subscription_id", id);
    trv_html_fmt(h, "<button type=\"submit\" aria-label=\"Rotate the secret of %s\">"
                    "Rotate secret</button></form> ", id);
    /* A test event changes nothing: sent at once (webhook/test_event.h). */
    if (!paused) {
        trv_dash_form(h, x, "send_test");
        trv_dash_hidden(h, "family", family);
        trv_dash_hidden(h, "subscription_id", id);
        trv_html_fmt(h, "<button type=\"submit\" aria-label=\"Send a test event to %s\">"
                        "Send a test event</button></form>", id);
    }
}

static void attempts_html(trv_html *h, apr_pool_t *p, const json_t *attempts)
{
    size_t i;
    json_t *a;
    if (!json_array_size(attempts)) {
        trv_html_raw(h, "none yet");
        return;
    }
    trv_html_raw(h, "<ol class=\"attempts\">");
    json_array_foreach(attempts, i, a) {
        json_int_t st = json_integer_value(json_object_get(a, "response_status"));
        trv_html_fmt(h, "<li data-attempt=\"%s\">%s: %s, %s ms",
                     num(p, a, "attempt_number"), str(a, "created_at"),
                     st ? apr_pstrcat(p, "HTTP ", num(p, a, "response_status"), NULL)
                        : "no response",
                     num(p, a, "duration_ms"));
        if (str(a, "error")) {
            trv_html_fmt(h, " (%s)", str(a, "error"));
        }
        trv_html_raw(h, "</li>");
    }
    trv_html_raw(h, "</ol>");
}

int trv_dash_deliveries_table(const trv_dash_ctx *x, trv_html *h, const char *family,
                              const char *sub_id, const char *query, int *has_more)
{
    apr_pool_t *p = x->req->pool;
    trv_resp resp;
    size_t i;
    json_t *d;
    *has_more = 0;
    trv_dash_api(x, "GET", apr_pstrcat(p, "/v1/", family, "/webhook-subscriptions/", sub_id,
                                       "/deliveries?", query, NULL),
                 NULL, &resp);
    if (resp.status != 200) {
        trv_html_fmt(h, "<p class=\"failed\">The deliveries could not be read: %s</p>\n",
                     trv_dash_api_message(&resp));
        return resp.status;
    }
    *has_more = json_is_true(json_object_get(json_object_get(resp.meta, "pagination"),
                                             "has_more"));
    if (!json_array_size(resp.data)) {
        trv_html_raw(h, "<p class=\"empty\">No deliveries.</p>\n");
        return 200;
    }
    trv_html_raw(h, "<div class=\"scroll\"><table><thead>"
                    "<tr><th>Delivery</th><th>Event</th><th>Status</th>"
                    "<th>Replays</th><th>Attempts of the current send</th><th></th></tr>"
                    "</thead><tbody>\n");
    json_array_foreach(resp.data, i, d) {
        const char *id = str(d, "id"), *status = str(d, "status");
        json_t *ev = json_object_get(d, "event"), *attempts = json_object_get(d, "attempts");
        const char *replays = num(p, d, "replay_count");
        int ds;
        trv_html_fmt(h, "<tr data-delivery=\"%s\" data-status=\"%s\" data-replay-count=\"%s\" "
                        "data-attempts=\"%s\"><td><a href=\"?delivery=%s\"><code>%s</code></a>"
                        "</td><td>%s<br><code>%s</code>"
                        "</td><td>%s", id, status, replays,
                     apr_psprintf(p, "%lu", (unsigned long)json_array_size(attempts)), id, id,
                     str(ev, "type"), str(ev, "id"), status);
        if (str(d, "failure_reason")) {
            trv_html_fmt(h, " (%s)", str(d, "failure_reason"));
        }
        trv_html_fmt(h, "</td><td>%s</td><td>", replays);
        attempts_html(h, p, attempts);
        trv_html_raw(h, "</td><td>");
        /* Finished sends are the ones to replay; the API decides the rest
         * (a stuck send, a paused subscription) and says why not. */
        ds = trv_transit_from_text(&trv_delivery_status_table, status);
        if (ds >= 0 && trv_delivery_finished((trv_delivery_status)ds)) {
            trv_dash_form(h, x, "replay");
            trv_html_fmt(h, "<input type=\"hidden\" name=\"family\" value=\"%s\">"
                            "<input type=\"hidden\" name=\"subscription_id\" value=\"%s\">"
                            "<input type=\"hidden\" name=\"delivery_id\" value=\"%s\">"
                            "<button type=\"submit\">Replay</button></form>",
                         family, sub_id, id);
        }
        trv_html_raw(h, "</td></tr>\n");
    }
    trv_html_raw(h, "</tbody></table></div>\n");
    return 200;
}

static void family_html(const trv_dash_ctx *x, trv_html *h, const char *family)
{
    trv_resp resp;
    size_t i;
    json_t *s;
    trv_html_fmt(h, "<h3>%s events</h3>\n", family);
    trv_dash_api(x, "GET", apr_pstrcat(x->req->pool, "/v1/", family, "/webhook-subscriptions",
                                       NULL), NULL, &resp);
    if (resp.status != 200) {
        trv_html_fmt(h, "<p class=\"failed\">The subscriptions could not be read: %s</p>\n",
                     trv_dash_api_message(&resp));
        return;
    }
    if (!json_array_size(resp.data)) {
        trv_html_raw(h, "<p class=\"empty\">No subscriptions.</p>\n");
        return;
    }
    json_array_foreach(resp.data, i, s) {
        const char *id = str(s, "id"), *status = str(s, "status");
        json_t *types = json_object_get(s, "event_types"), *t;
        size_t k;
        trv_html_fmt(h, "<div class=\"subscription\" data-subscription=\"%s\" "
                        "data-status=\"%s\"><h4><code>%s</code> %s</h4><p>%s; events: ",
                     id, status, id, str(s, "url"), status);
        json_array_foreach(types, k, t) {
            trv_html_fmt(h, "%s%s", k ? ", " : "", json_string_value(t));
        }
        trv_html_raw(h, "</p>");
        if (trv_transit_from_text(&trv_subscription_status_table, status)
            == TRV_SUBSCRIPTION_DISABLED) {
            trv_html_fmt(h, "<p class=\"failed\" data-disabled-reason>Disabled by the circuit "
                            "breaker: %s. Resume re-enables it and sends again what it "
                            "missed.</p>", str(s, "disabled_reason"));
        }
        trv_html_raw(h, "<p>");
        subscription_buttons(h, x, family, id, status);
        trv_html_raw(h, "</p>\n");
        {
            int more;
            trv_dash_deliveries_table(x, h, family, id, "limit=" DELIVERIES_SHOWN, &more);
            /* Every delivery, with a status filter and pages (lists.c). */
            trv_html_fmt(h, "<p class=\"more\"><a href=\"?deliveries=%s&amp;family=%s\">All "
                            "deliveries of %s (filter by status, pages)</a></p>\n",
                         id, family, id);
        }
        trv_html_raw(h, "</div>\n");
    }
}

/* A family that delivers to an endpoint of its own (the watch domain:
 * one watcher endpoint per organization, POST/GET /v1/watcher/webhooks)
 * has no subscriptions to list: its endpoint is shown instead. */
static void own_endpoint_html(const trv_dash_ctx *x, trv_html *h, const trv_domain *d)
{
    trv_resp resp;
    trv_html_fmt(h, "<h3>%s events</h3>\n", d->name);
    trv_dash_api(x, "GET", "/v1/watcher/webhooks", NULL, &resp);
    if (resp.status == 404) {
        trv_html_raw(h, "<p class=\"empty\" data-watcher-endpoint=\"none\">No watcher endpoint "
                        "is registered (POST /v1/watcher/webhooks registers one).</p>\n");
        return;
    }
    if (resp.status != 200) {
        trv_html_fmt(h, "<p class=\"failed\">The watcher endpoint could not be read: %s</p>\n",
                     trv_dash_api_message(&resp));
        return;
    }
    trv_html_fmt(h, "<p data-watcher-endpoint=\"%s\">Watcher endpoint <code>%s</code>, "
                    "registered %s, last changed %s. Registering it again rotates its "
                    "secret.</p>\n",
                 str(resp.data, "url"), str(resp.data, "url"), str(resp.data, "created_at"),
                 str(resp.data, "updated_at"));
}

static void webhooks_section(const trv_dash_ctx *x, trv_html *h)
{
    const trv_registry *reg = x->req->env->registry;
    int i, n = reg ? trv_registry_domain_count(reg) : 0;
    trv_html_raw(h, "<section id=\"webhooks\"><h2>Webhook subscriptions</h2>\n");
    for (i = 0; i < n; i++) {
        const trv_domain *d = trv_registry_domain_at(reg, i);
        if (!d->event_types || !d->event_types[0]) {
            continue;
        }
        if (d->flags & TRV_DOMAIN_OWN_ENDPOINT) {
            own_endpoint_html(x, h, d);
        }
        else {
            family_html(x, h, d->name);
        }
    }
    trv_html_raw(h, "</section>\n");
}

const char *trv_dash_page(const trv_dash_ctx *x, const trv_dash_notice *notice)
{
    apr_pool_t *p = x->req->pool;
    trv_html *h = trv_html_new(p);
    trv_rows *keys = NULL;
    trv_dbc *c = NULL;

    trv_dash_head(h, x->style_nonce, "mod_travel dashboard");
    trv_html_fmt(h, "<header><h1>mod_travel dashboard</h1><p>Organization <strong>%s</strong> "
                    "(<code data-org=\"%s\">%s</code>), signed in as <strong>%s</strong> "
                    "(user %s)</p>\n<nav aria-label=\"Sections\"><ul>"
                    "<li><a href=\"#keys\">API keys</a></li>"
                    "<li><a href=\"#figures\">Figures</a></li>"
                    "<li><a href=\"#flight-bookings\">Flight bookings</a></li>"
                    "<li><a href=\"#hotel-bookings\">Hotel bookings</a></li>"
                    "<li><a href=\"#watches\">Watches</a></li>"
                    "<li><a href=\"#events\">Events</a></li>"
                    "<li><a href=\"#deliveries\">Webhook deliveries</a></li>"
                    "<li><a href=\"#webhooks\">Webhook subscriptions</a></li></ul></nav>"
                    "</header>\n<main>\n",
                 x->who.org_name, x->who.org_id, x->who.org_id, x->who.login,
                 x->who.user_name);
    notice_html(h, p, notice);
    /* One connection for the page's own reads, given back before the API
     * handlers borrow theirs. */
    if (trv_db_open(x->req->env->db, p, &c) == APR_SUCCESS) {
        if (trv_key_list(c, p, x->who.org_id, &keys) != APR_SUCCESS) {
            trv_log_msg(&x->req->log, TRV_LOG_ERR, x->req->request_id,
                        TRVLOGNO(1605) "dashboard: reading the API keys failed: %s",
                        c->error ? c->error : "database error");
            keys = NULL;
        }
    }
    else {
        trv_log_msg(&x->req->log, TRV_LOG_ERR, x->req->request_id,
                    TRVLOGNO(1606) "dashboard: no database connection (%s)",
                    TRV_DB_UNAVAILABLE);
        c = NULL;
    }
    keys_section(x, keys, h);
    trv_dash_charts_section(x, c, h);
    bookings_sections(x, c, h);
    if (c) {
        trv_db_close(x->req->env->db, c);
    }
    webhooks_section(x, h);
    trv_html_raw(h, "</main></body></html>\n");
    return trv_html_done(h);
}
