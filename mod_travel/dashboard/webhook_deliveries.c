#include "webhook_deliveries.h"

#include <apr_strings.h>

static const char *const statuses[] = {"PENDING", "PUBLISHED", "DELIVERED", "FAILED", NULL};

const char *const *trv_dash_delivery_statuses(const trv_dash_ctx *x)
{
    (void)x;
    return statuses;
}

/* The search matches the delivery's, its event's or its subscription's id,
 * or the id of the booking or watch the event is about, exactly. Both the
 * delivery and its subscription are the organization's. */
#define SUBJECT "coalesce(e.data->'booking'->>'id', e.data->'watch'->>'id', " \
                "e.data->>'watch_id')"
static const trv_stmt deliveries_stmt = {"trv_dash_all_deliveries",
    "SELECT d.id, d.subscription_id, s.family, e.id AS event_id, e.type, " SUBJECT
    " AS subject, d.status, d.failure_reason, d.replay_count::text AS replay_count, "
    "d.attempt_count::text AS attempt_count, trv_ts(d.created_at) AS created_at, "
    "count(*) OVER () AS total FROM webhook_deliveries d JOIN webhook_subscriptions s ON "
    "s.id = d.subscription_id AND s.org_id = d.org_id JOIN events e ON e.id = d.event_id "
    "WHERE d.org_id = %s AND (%s::text IS NULL OR d.status = %s) "
    "AND (%s::date IS NULL OR d.created_at >= %s::date) "
    "AND (%s::date IS NULL OR d.created_at < %s::date + 1) "
    "AND (%s::text IS NULL OR d.id = %s OR d.event_id = %s OR d.subscription_id = %s OR "
    SUBJECT " = %s) "
    "ORDER BY d.created_at DESC, d.id DESC LIMIT %s::int OFFSET %s::int"};

apr_status_t trv_dash_deliveries(const trv_dash_ctx *x, trv_dbc *c, trv_html *h,
                                 const trv_dash_filter *f, long *total)
{
    apr_pool_t *p = x->req->pool;
    trv_rows *r;
    int i;
    apr_status_t rv = trv_dash_list_rows(
        x, c, h, &deliveries_stmt,
        TRV_DB_ARGS(x->who.org_id, f->status, f->status, f->from, f->from, f->to, f->to, f->q,
                    f->q, f->q, f->q, f->q, apr_ltoa(p, f->limit), apr_ltoa(p, f->offset)),
        "No webhook deliveries.", "<th>Delivery</th><th>Subscription</th><th>Event</th>"
        "<th>About</th><th>Status</th><th>Replays</th><th>Attempts</th><th>Created</th>", &r,
        total);
    if (rv != APR_SUCCESS) {
        return rv == APR_ENOENT ? APR_SUCCESS : rv;
    }
    for (i = 0; i < r->n; i++) {
        const char *id = trv_rows_get(r, i, "id");
        const char *reason = trv_rows_get(r, i, "failure_reason");
        trv_html_fmt(h, "<tr data-delivery=\"%s\" data-status=\"%s\"><td><a href=\"?delivery=%s\">"
                        "<code>%s</code></a></td><td><code>%s</code> (%s)</td><td>%s<br>"
                        "<code>%s</code></td><td>",
                     id, trv_rows_get(r, i, "status"), id, id,
                     trv_rows_get(r, i, "subscription_id"), trv_rows_get(r, i, "family"),
                     trv_rows_get(r, i, "type"), trv_rows_get(r, i, "event_id"));
        trv_dash_subject(h, trv_rows_get(r, i, "subject"));
        trv_html_fmt(h, "</td><td>%s%s%s%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
                     trv_rows_get(r, i, "status"), reason ? " (" : "", reason ? reason : "",
                     reason ? ")" : "", trv_rows_get(r, i, "replay_count"),
                     trv_rows_get(r, i, "attempt_count"), trv_rows_get(r, i, "created_at"));
    }
    trv_dash_table_end(h);
    return APR_SUCCESS;
}
