#include "confirm.h"
#include "page.h"
#include "core/ids.h"
#include "core/registry.h"

#include <apr_strings.h>
#include <string.h>

/* What each confirmation says and which ids it carries. */
typedef struct {
    const char *action;   /* the POST action (actions.c) */
    const char *button;   /* the label, as on the list */
    const char *id_name;  /* the form field of the id */
    const char *id_prefix;
    const char *question; /* "%s": the id */
    const char *consequence;
} ask;

static const ask asks[] = {
    {"revoke_key", "Revoke", "key_id", "key", "Revoke the API key %s?",
     "Every request made with it is refused (401) from the next one on. This cannot "
     "be undone: a new key has to be created and given to whoever used this one."},
    {"pause", "Pause", "subscription_id", "whs", "Pause the subscription %s?",
     "New events are not sent to it while it is paused; Resume sends them again."},
    {"rotate_secret", "Rotate secret", "subscription_id", "whs",
     "Rotate the signing secret of %s?",
     "A new secret is made and shown once. The previous one keeps signing beside it "
     "for 24 hours: update the receiver within that time."},
    {NULL, NULL, NULL, NULL, NULL, NULL},
};

static const char *family_ok(const trv_dash_ctx *x, const char *family)
{
    const char *const *types;
    if (!family || !x->req->env->registry || strchr(family, '/')) {
        return NULL;
    }
    types = trv_registry_event_types(x->req->env->registry, family);
    return types && types[0] ? family : NULL;
}

const char *trv_dash_confirm_page(const trv_dash_ctx *x, apr_table_t *query)
{
    apr_pool_t *p = x->req->pool;
    const char *action = apr_table_get(query, "confirm"), *id, *family = NULL;
    const ask *a;
    trv_html *h;

    if (!action) {
        return NULL;
    }
    for (a = asks; a->action && strcmp(a->action, action) != 0; a++) {
    }
    h = trv_html_new(p);
    id = a->action ? apr_table_get(query, a->id_name) : NULL;
    if (a->action && strcmp(a->id_prefix, "whs") == 0) {
        family = family_ok(x, apr_table_get(query, "family"));
    }
    if (!a->action || !id || !trv_id_valid(id, a->id_prefix)
        || (strcmp(a->id_prefix, "whs") == 0 && !family)) {
        trv_dash_head(h, x->style_nonce, "Nothing to confirm");
        trv_html_raw(h, "<main><h1>Nothing to confirm</h1><p>This link names no change "
                        "the dashboard makes. <a href=\"./\">Back to the dashboard</a></p>"
                        "</main></body></html>\n");
        return trv_html_done(h);
    }
    trv_dash_head(h, x->style_nonce, a->button);
    trv_html_raw(h, "<main><section id=\"confirm\" class=\"confirm\" "
                    "aria-labelledby=\"confirm-title\"><h1 id=\"confirm-title\">");
    trv_html_fmt(h, a->question, id);
    trv_html_fmt(h, "</h1>\n<p>%s</p>\n", a->consequence);
    trv_html_fmt(h, "<p>Organization <strong>%s</strong>, signed in as <strong>%s</strong>."
                    "</p>\n<p class=\"actions\">", x->who.org_name, x->who.login);
    trv_dash_form(h, x, a->action);
    trv_dash_hidden(h, a->id_name, id);
    if (family) {
        trv_dash_hidden(h, "family", family);
    }
    trv_html_fmt(h, "<button type=\"submit\" class=\"danger\" data-confirm=\"%s\">%s</button>"
                    "</form> <a href=\"./\" class=\"cancel\">Cancel</a></p>\n</section></main>"
                    "</body></html>\n", a->action, a->button);
    return trv_html_done(h);
}
