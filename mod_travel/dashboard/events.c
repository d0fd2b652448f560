#include "events.h"
#include "core/registry.h"
#include "webhook/test_event.h"

#include <apr_strings.h>
#include <string.h>

const char *const *trv_dash_event_types(const trv_dash_ctx *x)
{
    const trv_registry *reg = x->req->env->registry;
    apr_array_header_t *all = apr_array_make(x->req->pool, 16, sizeof(const char *));
    int i, n = reg ? trv_registry_domain_count(reg) : 0;
    for (i = 0; i < n; i++) {
        const trv_domain *d = trv_registry_domain_at(reg, i);
        const char *const *t;
        for (t = d->event_types; t && *t; t++) {
            APR_ARRAY_PUSH(all, const char *) = *t;
        }
        if (d->event_types && d->event_types[0] && !(d->flags & TRV_DOMAIN_OWN_ENDPOINT)) {
            APR_ARRAY_PUSH(all, const char *) = apr_pstrcat(x->req->pool, d->name,
                                                            TRV_WEBHOOK_TEST_SUFFIX, NULL);
        }
    }
    APR_ARRAY_PUSH(all, const char *) = NULL;
    return (const char *const *)all->elts;
}

/* What an event is about: its booking or its watch (watch events carry
 * the watch, or its id). The search matches the event's id or that id
 * exactly. Each event's deliveries come as "id status" pairs. */
#define SUBJECT "coalesce(e.data->'booking'->>'id', e.data->'watch'->>'id', " \
                "e.data->>'watch_id')"
static const trv_stmt events_stmt = {"trv_dash_events",
    "SELECT e.id, e.family, e.type, trv_ts(e.created_at) AS created_at, " SUBJECT
    " AS subject, (SELECT string_agg(d.id || ' ' || d.status, ' ' ORDER BY d.created_at) "
    "FROM webhook_deliveries d WHERE d.event_id = e.id AND d.org_id = e.org_id) AS deliveries, "
    "count(*) OVER () AS total FROM events e WHERE e.org_id = %s "
    "AND (%s::text IS NULL OR e.type = %s) "
    "AND (%s::date IS NULL OR e.created_at >= %s::date) "
    "AND (%s::date IS NULL OR e.created_at < %s::date + 1) "
    "AND (%s::text IS NULL OR e.id = %s OR " SUBJECT " = %s) "
    "ORDER BY e.created_at DESC, e.id DESC LIMIT %s::int OFFSET %s::int"};

static void deliveries_html(trv_html *h, apr_pool_t *p, const char *pairs)
{
    char *copy, *tok, *last;
    int any = 0;
    if (!pairs) {
        trv_html_raw(h, "none");
        return;
    }
    copy = apr_pstrdup(p, pairs);
    trv_html_raw(h, "<ul class=\"plain\">");
    for (tok = apr_strtok(copy, " ", &last); tok; tok = apr_strtok(NULL, " ", &last)) {
        const char *status = apr_strtok(NULL, " ", &last);
        trv_html_fmt(h, "<li><a href=\"?delivery=%s\"><code>%s</code></a> %s</li>", tok, tok,
                     status ? status : "");
        any = 1;
    }
    trv_html_raw(h, any ? "</ul>" : "</ul>none");
}

apr_status_t trv_dash_events(const trv_dash_ctx *x, trv_dbc *c, trv_html *h,
                             const trv_dash_filter *f, long *total)
{
    apr_pool_t *p = x->req->pool;
    trv_rows *r;
    int i;
    apr_status_t rv = trv_dash_list_rows(
        x, c, h, &events_stmt,
        TRV_DB_ARGS(x->who.org_id, f->status, f->status, f->from, f->from, f->to, f->to, f->q,
                    f->q, f->q, apr_ltoa(p, f->limit), apr_ltoa(p, f->offset)),
        "No events.", "<th>Event</th><th>Type</th><th>About</th><th>Webhook deliveries</th>"
        "<th>Created</th>", &r, total);
    if (rv != APR_SUCCESS) {
        return rv == APR_ENOENT ? APR_SUCCESS : rv;
    }
    for (i = 0; i < r->n; i++) {
        trv_html_fmt(h, "<tr data-event=\"%s\"><td><code>%s</code></td><td>%s</td><td>",
                     trv_rows_get(r, i, "id"), trv_rows_get(r, i, "id"),
                     trv_rows_get(r, i, "type"));
        trv_dash_subject(h, trv_rows_get(r, i, "subject"));
        trv_html_raw(h, "</td><td>");
        deliveries_html(h, p, trv_rows_get(r, i, "deliveries"));
        trv_html_fmt(h, "</td><td>%s</td></tr>\n", trv_rows_get(r, i, "created_at"));
    }
    trv_dash_table_end(h);
    return APR_SUCCESS;
}
