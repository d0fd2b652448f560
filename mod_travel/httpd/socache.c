#include "socache.h"

#include "ap_provider.h"
#include "util_mutex.h"

#include <apr_strings.h>
#include <string.h>

void trv_socache_pre_config(trv_socache *c, apr_pool_t *pconf)
{
    c->provider = NULL;
    c->instance = NULL;
    c->mutex = NULL;
    ap_mutex_register(pconf, c->mutex_type, NULL, APR_LOCK_DEFAULT, 0);
}

typedef struct destroy_baton {
    trv_socache *c;
    server_rec *s;
} destroy_baton;

static apr_status_t destroy(void *data)
{
    destroy_baton *b = data;
    if (b->c->instance && b->c->provider) {
        b->c->provider->destroy(b->c->instance, b->s);
    }
    b->c->instance = NULL;
    return APR_SUCCESS;
}

const char *trv_socache_create(trv_socache *c, const char *spec, const char *ns,
                               struct ap_socache_hints *hints, apr_pool_t *pconf,
                               apr_pool_t *ptemp, server_rec *s)
{
    const char *name = spec, *args = NULL, *colon = strchr(spec, ':'), *err;
    destroy_baton *b;
    apr_status_t rv;
    if (colon) {
        name = apr_pstrndup(ptemp, spec, (apr_size_t)(colon - spec));
        args = colon + 1;
    }
    c->provider = ap_lookup_provider(AP_SOCACHE_PROVIDER_GROUP, name,
                                     AP_SOCACHE_PROVIDER_VERSION);
    if (!c->provider) {
        return apr_psprintf(ptemp, "%s: no socache provider '%s' (load mod_socache_%s)",
                            c->directive, name, name);
    }
    if ((err = c->provider->create(&c->instance, args, ptemp, pconf))) {
        c->instance = NULL;
        return apr_psprintf(ptemp, "%s %s: %s", c->directive, spec, err);
    }
    if (c->provider->flags & AP_SOCACHE_FLAG_NOTMPSAFE) {
        rv = ap_global_mutex_create(&c->mutex, NULL, c->mutex_type, NULL, s, pconf, 0);
        if (rv != APR_SUCCESS) {
            c->instance = NULL;
            return apr_psprintf(ptemp, "%s: cannot create the %s mutex", c->directive,
                                c->mutex_type);
        }
    }
    rv = c->provider->init(c->instance, ns, hints, s, pconf);
    if (rv != APR_SUCCESS) {
        c->instance = NULL;
        return apr_psprintf(ptemp, "%s %s: initialization failed", c->directive, spec);
    }
    b = apr_palloc(pconf, sizeof(*b));
    b->c = c;
    b->s = s;
    apr_pool_cleanup_register(pconf, b, destroy, apr_pool_cleanup_null);
    return NULL;
}

void trv_socache_child_init(trv_socache *c, apr_pool_t *pchild, server_rec *s)
{
    if (c->mutex && apr_global_mutex_child_init(&c->mutex, apr_global_mutex_lockfile(c->mutex),
                                                pchild) != APR_SUCCESS) {
        ap_log_error(APLOG_MARK, APLOG_CRIT, 0, s, TRVLOGNO(3200) "the %s mutex is unusable "
                     "in this child: %s is not applied [request_id -]", c->mutex_type,
                     c->directive);
        c->mutex = NULL;
        c->instance = NULL;
    }
}

int trv_socache_lock(trv_socache *c)
{
    return c->instance && (!c->mutex || apr_global_mutex_lock(c->mutex) == APR_SUCCESS);
}

void trv_socache_unlock(trv_socache *c)
{
    if (c->mutex) {
        apr_global_mutex_unlock(c->mutex);
    }
}

apr_status_t trv_socache_get(trv_socache *c, server_rec *s, const char *key,
                             unsigned char *dest, unsigned int *len, apr_pool_t *p)
{
    return c->provider->retrieve(c->instance, s, (const unsigned char *)key,
                                 (unsigned int)strlen(key), dest, len, p);
}

apr_status_t trv_socache_put(trv_socache *c, server_rec *s, const char *key,
                             apr_time_t expiry, const unsigned char *val, unsigned int len,
                             apr_pool_t *p)
{
    return c->provider->store(c->instance, s, (const unsigned char *)key,
                              (unsigned int)strlen(key), expiry, (unsigned char *)val, len, p);
}
