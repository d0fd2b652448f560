#include "delivery_list.h"
#include "page.h"
#include "core/ids.h"
#include "core/registry.h"

#include <apr_strings.h>
#include <stdlib.h>
#include <string.h>

static const char *const statuses[] = {"PENDING", "PUBLISHED", "DELIVERED", "FAILED", NULL};

static const char *link_to(apr_pool_t *p, const char *sub, const char *family,
                           const char *status, long offset)
{
    return apr_pstrcat(p, "?deliveries=", sub, "&family=", family,
                       status ? apr_pstrcat(p, "&status=", status, NULL) : "",
                       "&offset=", apr_ltoa(p, offset), NULL);
}

const char *trv_dash_delivery_list_page(const trv_dash_ctx *x, apr_table_t *query,
                                        int *status)
{
    apr_pool_t *p = x->req->pool;
    const char *sub = apr_table_get(query, "deliveries"), *family, *st, *off;
    const char *const *types;
    trv_html *h;
    long offset = 0;
    int i, more, rc;

    if (!sub) {
        return NULL;
    }
    h = trv_html_new(p);
    family = apr_table_get(query, "family");
    st = apr_table_get(query, "status");
    st = st && *st ? st : NULL;
    off = apr_table_get(query, "offset");
    types = family && !strchr(family, '/') && x->req->env->registry
                ? trv_registry_event_types(x->req->env->registry, family) : NULL;
    trv_dash_head(h, x->style_nonce, "Deliveries");
    trv_html_fmt(h, "<header><p><a href=\"./\">← Dashboard</a> · Organization <strong>%s"
                    "</strong>, signed in as <strong>%s</strong></p></header>\n<main>\n",
                 x->who.org_name, x->who.login);
    if (!trv_id_valid(sub, "whs") || !types || !types[0]) {
        trv_html_raw(h, "<h1>Not found</h1><p>There is no such subscription in this "
                        "organization.</p></main></body></html>\n");
        *status = 404;
        return trv_html_done(h);
    }
    trv_html_fmt(h, "<h1>Deliveries of <code>%s</code></h1>\n", sub);
    if (off) {
        char *end;
        offset = strtol(off, &end, 10);
        if (*end || offset < 0 || offset > 100000) {
            offset = -1;
        }
    }
    trv_html_fmt(h, "<form method=\"get\" class=\"filters\" role=\"search\" aria-label=\"Filter "
                    "deliveries\"><input type=\"hidden\" name=\"deliveries\" value=\"%s\">"
                    "<input type=\"hidden\" name=\"family\" value=\"%s\"><label>Status <select "
                    "name=\"status\"><option value=\"\">any</option>", sub, family);
    for (i = 0; statuses[i]; i++) {
        trv_html_fmt(h, "<option%s>%s</option>",
                     st && strcmp(st, statuses[i]) == 0 ? " selected" : "", statuses[i]);
    }
    trv_html_raw(h, "</select></label> <button type=\"submit\">Apply</button></form>\n");
    for (i = 0; st && statuses[i] && strcmp(statuses[i], st) != 0; i++) {
    }
    if ((st && !statuses[i]) || offset < 0) {
        trv_html_raw(h, "<p class=\"notice failed\" role=\"alert\">The status or the page is "
                        "not one the list has. Nothing was listed.</p></main></body></html>\n");
        *status = 422;
        return trv_html_done(h);
    }
    trv_html_raw(h, "<section id=\"deliveries\" aria-label=\"Deliveries\">\n");
    rc = trv_dash_deliveries_table(x, h, family, sub,
                                   apr_pstrcat(p, "limit=", apr_itoa(p, TRV_DASH_DELIVERY_PAGE),
                                               "&offset=", apr_ltoa(p, offset),
                                               st ? "&status=" : "", st ? st : "", NULL),
                                   &more);
    if (rc == 404) {
        *status = 404;
        trv_html_raw(h, "</section></main></body></html>\n");
        return trv_html_done(h);
    }
    trv_html_raw(h, "<nav class=\"pages\" aria-label=\"Pages\">");
    if (offset > 0) {
        trv_html_fmt(h, "<a rel=\"prev\" href=\"%s\">Previous</a> ",
                     link_to(p, sub, family, st,
                             offset > TRV_DASH_DELIVERY_PAGE ? offset - TRV_DASH_DELIVERY_PAGE
                                                             : 0));
    }
    if (more) {
        trv_html_fmt(h, "<a rel=\"next\" href=\"%s\">Next</a>",
                     link_to(p, sub, family, st, offset + TRV_DASH_DELIVERY_PAGE));
    }
    trv_html_raw(h, "</nav></section></main></body></html>\n");
    *status = rc == 200 ? 200 : rc;
    return trv_html_done(h);
}
