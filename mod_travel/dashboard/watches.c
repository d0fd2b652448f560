#include "watches.h"
#include "core/money.h"

#include <apr_strings.h>

/* The statuses of sql/120's watches table. */
static const char *const statuses[] = {"active", "armed", "triggered", "purchased",
                                       "purchase_failed", "expired", "canceled", NULL};

const char *const *trv_dash_watch_statuses(const trv_dash_ctx *x)
{
    (void)x;
    return statuses;
}

/* The search matches an id exactly (the watch, its hotel, place or
 * mandate) or part of the destination as given, in any case (strpos:
 * never a LIKE pattern). */
static const trv_stmt watches_stmt = {"trv_dash_watches",
    "SELECT w.id, u.name AS user_name, w.kind, w.status, w.hotel_id, w.destination, "
    "w.check_in::text AS check_in, w.check_out::text AS check_out, w.currency, "
    "w.trigger_type, w.trigger_minor::text AS trigger_minor, "
    "w.last_price_minor::text AS last_price_minor, trv_ts(w.last_checked_at) AS last_checked_at, "
    "w.mandate_id, trv_ts(w.created_at) AS created_at, count(*) OVER () AS total "
    "FROM watches w LEFT JOIN users u ON u.id = w.user_id WHERE w.org_id = %s "
    "AND (%s::text IS NULL OR w.status = %s) "
    "AND (%s::date IS NULL OR w.created_at >= %s::date) "
    "AND (%s::date IS NULL OR w.created_at < %s::date + 1) "
    "AND (%s::text IS NULL OR w.id = %s OR w.hotel_id = %s OR w.place_id = %s "
    "OR w.mandate_id = %s OR strpos(lower(coalesce(w.destination, '')), lower(%s)) > 0) "
    "ORDER BY w.created_at DESC, w.id DESC LIMIT %s::int OFFSET %s::int"};

/* Minor units of the watch's currency, every minor digit shown. */
static const char *amount(apr_pool_t *p, const char *minor, const char *currency)
{
    int e = trv_currency_exponent(currency);
    if (!minor || e < 0) {
        return "-";
    }
    return apr_pstrcat(p, trv_money_decimal(p, apr_atoi64(minor), e), " ", currency, NULL);
}

apr_status_t trv_dash_watches(const trv_dash_ctx *x, trv_dbc *c, trv_html *h,
                              const trv_dash_filter *f, long *total)
{
    apr_pool_t *p = x->req->pool;
    trv_rows *r;
    int i;
    apr_status_t rv = trv_dash_list_rows(
        x, c, h, &watches_stmt,
        TRV_DB_ARGS(x->who.org_id, f->status, f->status, f->from, f->from, f->to, f->to, f->q,
                    f->q, f->q, f->q, f->q, f->q, apr_ltoa(p, f->limit), apr_ltoa(p, f->offset)),
        "No watches.", "<th>Watch</th><th>User</th><th>Kind</th><th>Status</th>"
        "<th>Hotel or destination</th><th>Stay</th><th>Trigger</th>"
        "<th>Last price (checked)</th><th>Created</th>", &r, total);
    if (rv != APR_SUCCESS) {
        return rv == APR_ENOENT ? APR_SUCCESS : rv;
    }
    for (i = 0; i < r->n; i++) {
        const char *id = trv_rows_get(r, i, "id"), *cur = trv_rows_get(r, i, "currency");
        const char *hotel = trv_rows_get(r, i, "hotel_id");
        /* Its events: the events list searched by the watch's id. */
        trv_html_fmt(h, "<tr data-watch=\"%s\"><td><code>%s</code><br><a href=\"?list=events&amp;"
                        "q=%s\" aria-label=\"Events of watch %s\">events</a></td><td>%s</td>"
                        "<td>%s</td><td>%s</td><td>%s</td><td>%s – %s</td><td>%s %s</td>"
                        "<td>%s (%s)</td><td>%s</td></tr>\n",
                     id, id, id, id, trv_rows_get(r, i, "user_name"), trv_rows_get(r, i, "kind"),
                     trv_rows_get(r, i, "status"),
                     hotel ? hotel : trv_rows_get(r, i, "destination"),
                     trv_rows_get(r, i, "check_in"), trv_rows_get(r, i, "check_out"),
                     trv_rows_get(r, i, "trigger_type"),
                     amount(p, trv_rows_get(r, i, "trigger_minor"), cur),
                     amount(p, trv_rows_get(r, i, "last_price_minor"), cur),
                     trv_rows_get(r, i, "last_checked_at") ? trv_rows_get(r, i, "last_checked_at")
                                                           : "never",
                     trv_rows_get(r, i, "created_at"));
    }
    trv_dash_table_end(h);
    return APR_SUCCESS;
}
