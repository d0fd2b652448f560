#include "registry.h"

#include <apr_hash.h>
#include <apr_strings.h>
#include <string.h>

struct trv_registry {
    apr_array_header_t *domains;  /* const trv_domain * */
    apr_array_header_t *routes;   /* trv_route, NULL-method terminated */
    apr_array_header_t *kinds;    /* trv_job_kind, NULL-kind terminated */
    apr_hash_t *jobs;             /* kind -> const trv_job_spec * */
    apr_hash_t *families;         /* family -> apr_array_header_t of const char * */
    apr_hash_t *suppliers;        /* protocol name -> const trv_supplier * */
};

static const char *const no_names[] = {NULL};

int trv_supplier_can(const trv_supplier *s, unsigned caps)
{
    return s && (s->caps & caps) == caps;
}

const trv_supplier *trv_supplier_find(const trv_supplier *rows, const char *name)
{
    for (; rows && name && rows->name; rows++) {
        if (strcmp(rows->name, name) == 0) {
            return rows;
        }
    }
    return NULL;
}

const trv_supplier *trv_supplier_primary(const trv_supplier *rows, const trv_supplier *row)
{
    for (; rows && rows->name && rows != row; rows++) {
        if (rows->adapter == row->adapter) {
            return rows;
        }
    }
    return row;
}

const char *trv_supplier_idempotency_key(const trv_supplier *rows, const void *adapter,
                                         const char *key)
{
    for (; rows && rows->name; rows++) {
        if (rows->adapter == adapter) {
            return rows->caps & TRV_SUP_IDEMPOTENCY_KEY ? key : NULL;
        }
    }
    return NULL;
}

const trv_supplier *trv_protocol_lookup(const struct trv_domain *const *domains,
                                        const char *protocol)
{
    const trv_supplier *row = NULL;
    for (; domains && *domains && !row; domains++) {
        row = trv_supplier_find((*domains)->suppliers, protocol);
    }
    return row;
}

static apr_status_t refuse(apr_pool_t *p, const char **err, const char *what)
{
    *err = apr_pstrdup(p, what);
    return APR_EINVAL;
}

/* A domain's name is a path segment, an event family and a database value:
 * 1 to 32 lower-case letters, digits and _ (a protocol's name may also have
 * -), starting with a letter. */
static int word_ok(const char *s, int dash_ok)
{
    size_t n = 0;
    if (!s || *s < 'a' || *s > 'z') {
        return 0;
    }
    for (; *s; s++, n++) {
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'
              || (dash_ok && *s == '-'))) {
            return 0;
        }
    }
    return n <= 32;
}

static int name_ok(const char *s)
{
    return word_ok(s, 0);
}

static apr_status_t add_routes(apr_pool_t *p, trv_registry *r, apr_hash_t *seen,
                               const char *domain, const trv_route *routes, const char **err)
{
    for (; routes && routes->method; routes++) {
        const char *key = apr_pstrcat(p, routes->method, " ", routes->pattern, NULL);
        if (!routes->pattern || !routes->handler) {
            return refuse(p, err, apr_psprintf(p, "domain %s: route %s has no pattern or "
                                               "handler", domain, routes->method));
        }
        if (apr_hash_get(seen, key, APR_HASH_KEY_STRING)) {
            return refuse(p, err, apr_psprintf(p, "domain %s: route %s is registered twice",
                                               domain, key));
        }
        apr_hash_set(seen, key, APR_HASH_KEY_STRING, routes);
        *(trv_route *)apr_array_push(r->routes) = *routes;
    }
    return APR_SUCCESS;
}

static apr_status_t add_jobs(apr_pool_t *p, trv_registry *r, const trv_domain *d,
                             const char **err)
{
    const trv_job_def *j;
    for (j = d->jobs; j && j->spec; j++) {
        trv_job_kind *k;
        if (!j->spec->kind || !*j->spec->kind || !j->run || j->spec->max_attempts < 1) {
            return refuse(p, err, apr_psprintf(p, "domain %s: job kind %s needs a name, a "
                                               "runner and an attempt limit of at least 1",
                                               d->name, j->spec->kind ? j->spec->kind : "?"));
        }
        if (apr_hash_get(r->jobs, j->spec->kind, APR_HASH_KEY_STRING)) {
            return refuse(p, err, apr_psprintf(p, "domain %s: job kind %s is registered "
                                               "twice", d->name, j->spec->kind));
        }
        apr_hash_set(r->jobs, j->spec->kind, APR_HASH_KEY_STRING, j->spec);
        k = apr_array_push(r->kinds);
        k->kind = j->spec->kind;
        k->run = j->run;
        k->arg = j->arg;
        k->max_attempts = j->spec->max_attempts;
    }
    return APR_SUCCESS;
}

const char *trv_domain_family(const trv_domain *d)
{
    return d->family ? d->family : d->name;
}

static apr_status_t add_events(apr_pool_t *p, trv_registry *r, const trv_domain *d,
                               apr_hash_t *seen, const char **err)
{
    const char *const *t;
    apr_array_header_t *list = apr_array_make(p, 8, sizeof(const char *));
    const char *family = trv_domain_family(d);
    size_t n = strlen(family);
    if (d->family && (!name_ok(d->family)
                      || apr_hash_get(r->families, d->family, APR_HASH_KEY_STRING))) {
        return refuse(p, err, apr_psprintf(p, "domain %s: family %s is not a name or is "
                                           "taken", d->name, d->family));
    }
    for (t = d->event_types; t && *t; t++) {
        if (strncmp(*t, family, n) != 0 || (*t)[n] != '.' || !(*t)[n + 1]) {
            return refuse(p, err, apr_psprintf(p, "domain %s: event type %s is outside its "
                                               "family (%s.…)", d->name, *t, family));
        }
        if (apr_hash_get(seen, *t, APR_HASH_KEY_STRING)) {
            return refuse(p, err, apr_psprintf(p, "domain %s: event type %s is registered "
                                               "twice", d->name, *t));
        }
        apr_hash_set(seen, *t, APR_HASH_KEY_STRING, d);
        *(const char **)apr_array_push(list) = *t;
    }
    if (list->nelts) {
        *(const char **)apr_array_push(list) = NULL;
        apr_hash_set(r->families, family, APR_HASH_KEY_STRING, list);
    }
    return APR_SUCCESS;
}

static apr_status_t add_suppliers(apr_pool_t *p, trv_registry *r, const trv_domain *d,
                                  const char **err)
{
    const trv_supplier *s;
    for (s = d->suppliers; s && s->name; s++) {
        const trv_supplier *other;
        if (!word_ok(s->name, 1) || !s->adapter || !s->creds.key) {
            return refuse(p, err, apr_psprintf(p, "domain %s: supplier protocol %s needs a "
                                               "lower-case name, an adapter and a key "
                                               "credential", d->name, s->name));
        }
        if (!s->domain || strcmp(s->domain, d->name) != 0) {
            return refuse(p, err, apr_psprintf(p, "domain %s: supplier protocol %s names the "
                                               "domain %s", d->name, s->name,
                                               s->domain ? s->domain : "(none)"));
        }
        /* One namespace for every domain: a line's protocol says which
         * directive it belongs under. */
        if ((other = apr_hash_get(r->suppliers, s->name, APR_HASH_KEY_STRING))) {
            return refuse(p, err, apr_psprintf(p, "domain %s: supplier protocol %s is "
                                               "registered twice (also by %s)", d->name,
                                               s->name, other->domain));
        }
        apr_hash_set(r->suppliers, s->name, APR_HASH_KEY_STRING, s);
    }
    return APR_SUCCESS;
}

apr_status_t trv_registry_build(apr_pool_t *p, const trv_domain *const *domains,
                                trv_registry **reg, const char **err)
{
    trv_registry *r = apr_pcalloc(p, sizeof(*r));
    apr_hash_t *names = apr_hash_make(p), *routes = apr_hash_make(p);
    apr_hash_t *events = apr_hash_make(p);
    apr_status_t rv;
    int i, j;

    *reg = NULL;
    r->domains = apr_array_make(p, 8, sizeof(const trv_domain *));
    r->routes = apr_array_make(p, 64, sizeof(trv_route));
    r->kinds = apr_array_make(p, 16, sizeof(trv_job_kind));
    r->jobs = apr_hash_make(p);
    r->families = apr_hash_make(p);
    r->suppliers = apr_hash_make(p);
    for (; domains && *domains; domains++) {
        const trv_domain *d = *domains;
        if (!name_ok(d->name)) {
            return refuse(p, err, apr_psprintf(p, "a domain needs a name of 1 to 32 lower-case "
                                               "letters, digits or _, starting with a letter "
                                               "(not \"%s\")", d->name ? d->name : ""));
        }
        if (apr_hash_get(names, d->name, APR_HASH_KEY_STRING)) {
            return refuse(p, err, apr_psprintf(p, "domain %s is registered twice", d->name));
        }
        apr_hash_set(names, d->name, APR_HASH_KEY_STRING, d);
        *(const trv_domain **)apr_array_push(r->domains) = d;
        if ((rv = add_routes(p, r, routes, d->name, d->routes, err)) != APR_SUCCESS
            || (rv = add_jobs(p, r, d, err)) != APR_SUCCESS
            || (rv = add_events(p, r, d, events, err)) != APR_SUCCESS
            || (rv = add_suppliers(p, r, d, err)) != APR_SUCCESS) {
            return rv;
        }
    }
    /* Routes one domain serves on behalf of the others come after every
     * domain's own, so the registration order of domains does not matter. */
    for (i = 0; i < r->domains->nelts; i++) {
        const trv_domain *d = APR_ARRAY_IDX(r->domains, i, const trv_domain *);
        if (!d->routes_for) {
            continue;
        }
        for (j = 0; j < r->domains->nelts; j++) {
            const trv_domain *e = APR_ARRAY_IDX(r->domains, j, const trv_domain *);
            if (e != d && !(e->flags & TRV_DOMAIN_OWN_ENDPOINT)
                && apr_hash_get(r->families, trv_domain_family(e), APR_HASH_KEY_STRING)
                && (rv = add_routes(p, r, routes, d->name, d->routes_for(p, e), err))
                   != APR_SUCCESS) {
                return rv;
            }
        }
    }
    memset(apr_array_push(r->routes), 0, sizeof(trv_route));
    memset(apr_array_push(r->kinds), 0, sizeof(trv_job_kind));
    *reg = r;
    return APR_SUCCESS;
}

int trv_registry_domain_count(const trv_registry *reg)
{
    return reg ? reg->domains->nelts : 0;
}

const trv_domain *trv_registry_domain_at(const trv_registry *reg, int i)
{
    return reg && i >= 0 && i < reg->domains->nelts
        ? APR_ARRAY_IDX(reg->domains, i, const trv_domain *) : NULL;
}

const trv_domain *trv_registry_domain(const trv_registry *reg, const char *name)
{
    int i;
    for (i = 0; name && i < trv_registry_domain_count(reg); i++) {
        const trv_domain *d = trv_registry_domain_at(reg, i);
        if (strcmp(d->name, name) == 0) {
            return d;
        }
    }
    return NULL;
}

const trv_route *trv_registry_routes(const trv_registry *reg)
{
    static const trv_route none[] = {{NULL, NULL, NULL, 0}};
    return reg ? (const trv_route *)reg->routes->elts : none;
}

const trv_job_kind *trv_registry_job_kinds(const trv_registry *reg)
{
    static const trv_job_kind none[] = {{NULL, NULL, 0}};
    return reg ? (const trv_job_kind *)reg->kinds->elts : none;
}

const trv_job_spec *trv_registry_job(const trv_registry *reg, const char *kind)
{
    return reg && kind ? apr_hash_get(reg->jobs, kind, APR_HASH_KEY_STRING) : NULL;
}

const char *const *trv_registry_event_types(const trv_registry *reg, const char *family)
{
    const apr_array_header_t *list = reg && family
        ? apr_hash_get(reg->families, family, APR_HASH_KEY_STRING) : NULL;
    return list ? (const char *const *)list->elts : no_names;
}

int trv_registry_event_type_known(const trv_registry *reg, const char *family,
                                  const char *type)
{
    const char *const *t;
    for (t = trv_registry_event_types(reg, family); type && *t; t++) {
        if (strcmp(*t, type) == 0) {
            return 1;
        }
    }
    return 0;
}

const trv_supplier *trv_registry_protocol(const trv_registry *reg, const char *domain,
                                          const char *protocol)
{
    /* No allocation here: lookups run on many threads at once. */
    const trv_domain *d = trv_registry_domain(reg, domain);
    return d ? trv_supplier_find(d->suppliers, protocol) : NULL;
}
