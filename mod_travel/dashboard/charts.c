#include "charts.h"
#include "core/metrics.h"

#include <apr_strings.h>
#include <stdlib.h>
#include <string.h>

#define DAYS 14

/* Each booking's outcome group, per UTC day. */
static const trv_stmt per_day_stmt = {"trv_dash_bookings_per_day",
    "SELECT to_char(d.day, 'YYYY-MM-DD') AS day, "
    "count(b.*) FILTER (WHERE b.grp = 'confirmed')::text AS confirmed, "
    "count(b.*) FILTER (WHERE b.grp = 'canceled')::text AS canceled, "
    "count(b.*) FILTER (WHERE b.grp = 'failed')::text AS failed, "
    "count(b.*) FILTER (WHERE b.grp = 'open')::text AS open "
    "FROM generate_series((now() AT TIME ZONE 'UTC')::date - 13, "
    "(now() AT TIME ZONE 'UTC')::date, interval '1 day') AS d(day) "
    "LEFT JOIN (SELECT (created_at AT TIME ZONE 'UTC')::date AS day, "
    "CASE WHEN status = 'CONFIRMED' THEN 'confirmed' "
    "WHEN status IN ('CANCELED', 'CANCEL_IN_PROGRESS') THEN 'canceled' "
    "WHEN status IN ('FAILED', 'EXPIRED') THEN 'failed' ELSE 'open' END AS grp "
    "FROM (SELECT created_at, status FROM flight_bookings WHERE org_id = %s "
    "AND created_at >= now() - interval '15 days' UNION ALL "
    "SELECT created_at, status FROM hotel_bookings WHERE org_id = %s "
    "AND created_at >= now() - interval '15 days') u) b ON b.day = d.day::date "
    "GROUP BY d.day ORDER BY d.day"};

static const trv_stmt deliveries_stmt = {"trv_dash_delivery_figures",
    "SELECT s.id, s.family, count(a.*)::text AS attempts, "
    "count(a.*) FILTER (WHERE a.response_status BETWEEN 200 AND 299)::text AS ok, "
    "coalesce(round(percentile_cont(0.5) WITHIN GROUP (ORDER BY a.duration_ms))::int, 0)::text "
    "AS p50, coalesce(round(percentile_cont(0.99) WITHIN GROUP (ORDER BY a.duration_ms))::int, "
    "0)::text AS p99 FROM webhook_subscriptions s JOIN webhook_deliveries d ON "
    "d.subscription_id = s.id AND d.org_id = s.org_id JOIN webhook_attempts a ON "
    "a.delivery_id = d.id WHERE s.org_id = %s AND s.deleted_at IS NULL AND a.created_at >= "
    "now() - interval '7 days' GROUP BY s.id, s.family ORDER BY s.family, s.id"};

/* The calls of the organization's bookings (sql/200): failed means no
 * usable answer (unavailable, timeout, bad response); a refusal is an
 * answer. */
static const trv_stmt calls_stmt = {"trv_dash_supplier_call_figures",
    "SELECT family, supplier, count(*)::text AS calls, count(*) FILTER (WHERE outcome IN "
    "('unavailable', 'timeout', 'bad_response'))::text AS failed, "
    "round(percentile_cont(0.5) WITHIN GROUP (ORDER BY duration_ms))::int::text AS p50, "
    "round(percentile_cont(0.99) WITHIN GROUP (ORDER BY duration_ms))::int::text AS p99 "
    "FROM supplier_calls WHERE org_id = %s AND created_at >= now() - interval '7 days' "
    "GROUP BY family, supplier ORDER BY family, supplier"};

static const struct {
    const char *col, *label, *fill;
} groups[] = {
    {"confirmed", "confirmed", "#2e7d32"},
    {"canceled", "canceled", "#8d6e63"},
    {"failed", "failed or expired", "#c62828"},
    {"open", "in progress", "#1565c0"},
};
#define NGROUPS (sizeof(groups) / sizeof(groups[0]))

static long cell(const trv_rows *r, int i, const char *col)
{
    const char *v = trv_rows_get(r, i, col);
    return v ? atol(v) : 0;
}

static void per_day_chart(apr_pool_t *p, trv_html *h, const trv_rows *r)
{
    const int W = 560, H = 180, top = 10, bottom = 30, left = 30;
    long max = 0, sum;
    int i, bar = (W - left) / DAYS;
    size_t g;
    for (i = 0; i < r->n; i++) {
        for (sum = 0, g = 0; g < NGROUPS; g++) {
            sum += cell(r, i, groups[g].col);
        }
        max = sum > max ? sum : max;
    }
    trv_html_raw(h, "<h3 id=\"chart-bookings-title\">Bookings per day (last 14 days, UTC)</h3>\n");
    trv_html_fmt(h, "<svg class=\"chart\" viewBox=\"0 0 %s %s\" role=\"img\" "
                    "aria-labelledby=\"chart-bookings-title\" data-chart=\"bookings-per-day\" "
                    "data-max=\"%s\">", apr_itoa(p, W), apr_itoa(p, H), apr_ltoa(p, max));
    trv_html_fmt(h, "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"#999\"/>",
                 apr_itoa(p, left), apr_itoa(p, H - bottom), apr_itoa(p, W),
                 apr_itoa(p, H - bottom));
    trv_html_fmt(h, "<text x=\"0\" y=\"%s\" font-size=\"11\">%s</text>", apr_itoa(p, top + 8),
                 apr_ltoa(p, max));
    for (i = 0; i < r->n; i++) {
        int x = left + i * bar + 2;
        double y = H - bottom;
        for (g = 0; g < NGROUPS; g++) {
            long n = cell(r, i, groups[g].col);
            double hgt = max ? (double)n * (H - bottom - top) / (double)max : 0;
            if (n == 0) {
                continue;
            }
            y -= hgt;
            trv_html_fmt(h, "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"%s\" "
                            "data-day=\"%s\" data-group=\"%s\" data-count=\"%s\"><title>%s: %s %s"
                            "</title></rect>",
                         apr_itoa(p, x), apr_psprintf(p, "%.1f", y),
                         apr_itoa(p, bar - 4), apr_psprintf(p, "%.1f", hgt), groups[g].fill,
                         trv_rows_get(r, i, "day"), groups[g].col, apr_ltoa(p, n),
                         trv_rows_get(r, i, "day"), apr_ltoa(p, n), groups[g].label);
        }
        if (i % 2 == 0) {
            trv_html_fmt(h, "<text x=\"%s\" y=\"%s\" font-size=\"10\">%s</text>",
                         apr_itoa(p, x), apr_itoa(p, H - bottom + 14),
                         trv_rows_get(r, i, "day") + 5);
        }
    }
    trv_html_raw(h, "</svg>\n<p class=\"legend\">");
    for (g = 0; g < NGROUPS; g++) {
        trv_html_fmt(h, "<span><svg width=\"10\" height=\"10\" aria-hidden=\"true\"><rect "
                        "width=\"10\" height=\"10\" fill=\"%s\"/></svg> %s</span> ",
                     groups[g].fill, groups[g].label);
    }
    trv_html_raw(h, "</p>\n<details><summary>The numbers</summary><div class=\"scroll\">"
                    "<table><thead><tr><th>Day</th>");
    for (g = 0; g < NGROUPS; g++) {
        trv_html_fmt(h, "<th>%s</th>", groups[g].label);
    }
    trv_html_raw(h, "</tr></thead><tbody>");
    for (i = 0; i < r->n; i++) {
        trv_html_fmt(h, "<tr><td>%s</td>", trv_rows_get(r, i, "day"));
        for (g = 0; g < NGROUPS; g++) {
            trv_html_fmt(h, "<td>%s</td>", trv_rows_get(r, i, groups[g].col));
        }
        trv_html_raw(h, "</tr>");
    }
    trv_html_raw(h, "</tbody></table></div></details>\n");
}

static void deliveries_figures(apr_pool_t *p, trv_html *h, const trv_rows *r)
{
    int i;
    trv_html_raw(h, "<h3>Webhook deliveries per subscription (last 7 days)</h3>\n");
    if (r->n == 0) {
        trv_html_raw(h, "<p class=\"empty\">No attempts in the last 7 days.</p>\n");
        return;
    }
    trv_html_raw(h, "<div class=\"scroll\"><table><thead><tr><th>Subscription</th><th>Attempts"
                    "</th><th>Answered 2xx</th><th>p50</th><th>p99</th></tr></thead><tbody>");
    for (i = 0; i < r->n; i++) {
        long n = cell(r, i, "attempts"), ok = cell(r, i, "ok");
        long pct = n ? ok * 100 / n : 0;
        trv_html_fmt(h, "<tr data-figures=\"%s\" data-success=\"%s\"><td><code>%s</code> (%s)"
                        "</td><td>%s</td><td><svg width=\"100\" height=\"10\" role=\"img\" "
                        "aria-label=\"%s%%\"><rect width=\"100\" height=\"10\" fill=\"#eee\"/>"
                        "<rect width=\"%s\" height=\"10\" fill=\"%s\"/></svg> %s%%</td>"
                        "<td>%s ms</td><td>%s ms</td></tr>\n",
                     trv_rows_get(r, i, "id"), apr_ltoa(p, pct), trv_rows_get(r, i, "id"),
                     trv_rows_get(r, i, "family"), apr_ltoa(p, n), apr_ltoa(p, pct),
                     apr_ltoa(p, pct), pct >= 95 ? "#2e7d32" : pct >= 80 ? "#f9a825" : "#c62828",
                     apr_ltoa(p, pct), trv_rows_get(r, i, "p50"), trv_rows_get(r, i, "p99"));
    }
    trv_html_raw(h, "</tbody></table></div>\n");
}

/* A horizontal bar of value out of max, width 160, with its text. */
static void hbar(trv_html *h, apr_pool_t *p, double value, double max, const char *fill,
                 const char *label)
{
    int w = max > 0 ? (int)(value * 160.0 / max + 0.5) : 0;
    trv_html_fmt(h, "<svg width=\"160\" height=\"10\" role=\"img\" aria-label=\"%s\">"
                    "<rect width=\"160\" height=\"10\" fill=\"#eee\"/><rect width=\"%s\" "
                    "height=\"10\" fill=\"%s\"/></svg> %s",
                 label, apr_itoa(p, w > 160 ? 160 : w), fill, label);
}

static void booking_calls_figures(apr_pool_t *p, trv_html *h, const trv_rows *r)
{
    long max = 0;
    int i;
    trv_html_raw(h, "<h3>Supplier calls of this organization's bookings (last 7 days)</h3>\n");
    if (r->n == 0) {
        trv_html_raw(h, "<p class=\"empty\">No supplier calls in the last 7 days.</p>\n");
        return;
    }
    for (i = 0; i < r->n; i++) {
        max = cell(r, i, "p99") > max ? cell(r, i, "p99") : max;
    }
    trv_html_raw(h, "<div class=\"scroll\"><table data-chart=\"booking-calls\"><thead><tr>"
                    "<th>Supplier</th><th>Calls</th><th>Failed (no usable answer)</th>"
                    "<th>p50</th><th>p99</th></tr></thead><tbody>");
    for (i = 0; i < r->n; i++) {
        long n = cell(r, i, "calls"), bad = cell(r, i, "failed");
        long pct = n ? bad * 100 / n : 0;
        trv_html_fmt(h, "<tr data-calls-of=\"%s %s\" data-calls=\"%s\" data-failed=\"%s\">"
                        "<td>%s (%s)</td><td>%s</td><td>",
                     trv_rows_get(r, i, "family"), trv_rows_get(r, i, "supplier"),
                     apr_ltoa(p, n), apr_ltoa(p, bad), trv_rows_get(r, i, "supplier"),
                     trv_rows_get(r, i, "family"), apr_ltoa(p, n));
        hbar(h, p, (double)pct, 100, pct <= 1 ? "#2e7d32" : pct <= 10 ? "#f9a825" : "#c62828",
             apr_psprintf(p, "%ld%%", pct));
        trv_html_raw(h, "</td><td>");
        hbar(h, p, (double)cell(r, i, "p50"), (double)max, "#1565c0",
             apr_psprintf(p, "%ld ms", cell(r, i, "p50")));
        trv_html_raw(h, "</td><td>");
        hbar(h, p, (double)cell(r, i, "p99"), (double)max, "#0d3c78",
             apr_psprintf(p, "%ld ms", cell(r, i, "p99")));
        trv_html_raw(h, "</td></tr>\n");
    }
    trv_html_raw(h, "</tbody></table></div>\n");
}

/* The suppliers' and the payment provider's calls, and searches per
 * booking: this server's figures since it started, the ones /metrics
 * exports (core/metrics.h), for every organization together. */
static void upstream_figures(const trv_dash_ctx *x, trv_html *h)
{
    apr_pool_t *p = x->req->pool;
    const trv_metrics *m = x->req->env->metrics;
    trv_metrics_upstream_fig *u;
    trv_metrics_funnel_fig *f;
    int i, nu = trv_metrics_upstreams(m, p, &u), nf = trv_metrics_funnels(m, p, &f);
    double max = 0;
    trv_html_raw(h, "<h3>Supplier and payment calls of this server (since it started, every "
                    "organization)</h3>\n");
    if (!m) {
        trv_html_raw(h, "<p class=\"empty\">This server keeps no figures (no shared memory)."
                        "</p>\n");
        return;
    }
    for (i = 0; i < nu; i++) {
        max = u[i].calls && u[i].p99_s > max ? u[i].p99_s : max;
    }
    trv_html_raw(h, "<div class=\"scroll\"><table data-chart=\"upstreams\"><thead><tr>"
                    "<th>Upstream</th><th>Calls</th><th>Failed (error or timeout)</th>"
                    "<th>p50</th><th>p99</th></tr></thead><tbody>");
    for (i = 0; i < nu; i++) {
        apr_uint64_t bad = u[i].errors + u[i].timeouts;
        long pct = u[i].calls ? (long)(bad * 100 / u[i].calls) : 0;
        long p50 = (long)(u[i].p50_s * 1000 + 0.5), p99 = (long)(u[i].p99_s * 1000 + 0.5);
        trv_html_fmt(h, "<tr data-upstream=\"%s\" data-calls=\"%s\" data-failed=\"%s\">"
                        "<td>%s</td><td>%s</td><td>",
                     u[i].upstream, apr_psprintf(p, "%" APR_UINT64_T_FMT, u[i].calls),
                     apr_psprintf(p, "%" APR_UINT64_T_FMT, bad), u[i].upstream,
                     apr_psprintf(p, "%" APR_UINT64_T_FMT, u[i].calls));
        hbar(h, p, (double)pct, 100, pct <= 1 ? "#2e7d32" : pct <= 10 ? "#f9a825" : "#c62828",
             apr_psprintf(p, "%ld%%", pct));
        trv_html_raw(h, "</td><td>");
        hbar(h, p, u[i].p50_s, max, "#1565c0",
             u[i].calls ? apr_psprintf(p, "%ld ms", p50) : "-");
        trv_html_raw(h, "</td><td>");
        hbar(h, p, u[i].p99_s, max, "#0d3c78",
             u[i].calls ? apr_psprintf(p, "%ld ms", p99) : "-");
        trv_html_raw(h, "</td></tr>\n");
    }
    trv_html_raw(h, "</tbody></table></div>\n<h3>Searches per booking (this server since it "
                    "started)</h3>\n<div class=\"scroll\"><table data-chart=\"funnel\"><thead>"
                    "<tr><th>Family</th><th>Searches</th><th>Bookings made</th><th>Searches per "
                    "booking</th></tr></thead><tbody>");
    for (i = 0; i < nf; i++) {
        const char *ratio = f[i].bookings
                                ? apr_psprintf(p, "%.1f", (double)f[i].searches
                                                              / (double)f[i].bookings)
                                : "-";
        trv_html_fmt(h, "<tr data-family=\"%s\" data-searches=\"%s\" data-bookings=\"%s\">"
                        "<td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
                     f[i].family, apr_psprintf(p, "%" APR_UINT64_T_FMT, f[i].searches),
                     apr_psprintf(p, "%" APR_UINT64_T_FMT, f[i].bookings), f[i].family,
                     apr_psprintf(p, "%" APR_UINT64_T_FMT, f[i].searches),
                     apr_psprintf(p, "%" APR_UINT64_T_FMT, f[i].bookings), ratio);
    }
    trv_html_raw(h, "</tbody></table></div>\n");
}

void trv_dash_charts_section(const trv_dash_ctx *x, trv_dbc *c, trv_html *h)
{
    apr_pool_t *p = x->req->pool;
    trv_rows *days = NULL, *dlv = NULL, *calls = NULL;
    trv_html_raw(h, "<section id=\"figures\"><h2>Figures</h2>\n");
    if (!c || trv_db_select(c, p, &per_day_stmt, &days,
                            TRV_DB_ARGS(x->who.org_id, x->who.org_id)) != APR_SUCCESS
        || trv_db_select(c, p, &deliveries_stmt, &dlv, TRV_DB_ARGS(x->who.org_id))
               != APR_SUCCESS
        || trv_db_select(c, p, &calls_stmt, &calls, TRV_DB_ARGS(x->who.org_id))
               != APR_SUCCESS) {
        if (c) {
            trv_log_msg(&x->req->log, TRV_LOG_ERR, x->req->request_id,
                        TRVLOGNO(2304) "dashboard: reading the figures failed: %s",
                        c->error ? c->error : "database error");
        }
        trv_html_raw(h, "<p class=\"failed\">The figures could not be read (database).</p>"
                        "</section>\n");
        return;
    }
    per_day_chart(p, h, days);
    deliveries_figures(p, h, dlv);
    booking_calls_figures(p, h, calls);
    upstream_figures(x, h);
    trv_html_raw(h, "</section>\n");
}
