#include "search_cache.h"
#include "socache.h"

#include "http_config.h"

#include <apr_strings.h>

/* Big enough for a supplier's answer for a few hundred hotels; a larger
 * value is not kept. shmcb holds an object in one of its subcaches, so the
 * store is sized for many of them. */
#define MAX_VALUE (256 * 1024)
#define DEFAULT_SHMCB_SIZE (32 * 1024 * 1024)
#define FIRST_TRY (16 * 1024)

static const char *store_spec; /* NULL: the default shmcb */
static trv_socache cache = {"TravelSearchCacheStore", "travel-searchcache", NULL, NULL, NULL};
static trv_shared_cache shared;

const char *trv_search_cache_set_store(apr_pool_t *p, const char *spec)
{
    store_spec = apr_pstrdup(p, spec);
    return NULL;
}

void trv_search_cache_pre_config(apr_pool_t *pconf)
{
    store_spec = NULL;
    trv_socache_pre_config(&cache, pconf);
}

const char *trv_search_cache_post_config(apr_pool_t *pconf, apr_pool_t *ptemp, server_rec *s,
                                         int any)
{
    struct ap_socache_hints hints = {64, 8192, apr_time_from_sec(60)};
    const char *spec = store_spec;
    if (!any) {
        return NULL;
    }
    if (!spec) {
        spec = apr_psprintf(ptemp, "shmcb:%s(%d)",
                            ap_runtime_dir_relative(ptemp, "mod_travel-search-cache"),
                            DEFAULT_SHMCB_SIZE);
    }
    return trv_socache_create(&cache, spec, "mod_travel-search", &hints, pconf, ptemp, s);
}

static apr_status_t retrieve(const trv_shared_cache *c, const char *key, apr_pool_t *p,
                             unsigned char **buf, unsigned int *n)
{
    apr_status_t rv;
    if (!trv_socache_lock(&cache)) {
        return APR_EGENERAL;
    }
    *buf = apr_palloc(p, *n + 1);
    rv = trv_socache_get(&cache, c->baton, key, *buf, n, p);
    trv_socache_unlock(&cache);
    return rv;
}

static int get(const trv_shared_cache *c, const char *key, apr_pool_t *p, char **val,
               apr_size_t *len)
{
    unsigned char *buf;
    unsigned int n = FIRST_TRY;
    /* Most answers fit a small buffer; a larger one is read again into the
     * largest. shmcb passes over an entry that does not fit as if it were
     * not there (memcache answers an error), so any failure asks again: a
     * true miss costs a second look, next to the supplier call it leads to. */
    apr_status_t rv = retrieve(c, key, p, &buf, &n);
    if (rv != APR_SUCCESS) {
        n = MAX_VALUE;
        rv = retrieve(c, key, p, &buf, &n);
    }
    if (rv != APR_SUCCESS) {
        return 0;
    }
    buf[n] = '\0';
    *val = (char *)buf;
    *len = n;
    return 1;
}

static void put(const trv_shared_cache *c, const char *key, const char *val, apr_size_t len,
                apr_time_t expiry, apr_pool_t *p)
{
    if (len > MAX_VALUE || !trv_socache_lock(&cache)) {
        return;
    }
    trv_socache_put(&cache, c->baton, key, expiry, (const unsigned char *)val,
                    (unsigned int)len, p);
    trv_socache_unlock(&cache);
}

void trv_search_cache_child_init(apr_pool_t *pchild, server_rec *s)
{
    trv_socache_child_init(&cache, pchild, s);
    shared.get = get;
    shared.put = put;
    shared.baton = s;
}

const trv_shared_cache *trv_search_cache(void)
{
    return cache.instance ? &shared : NULL;
}
