/* A cache shared by every child of a node (and, with a networked provider,
 * by every node): httpd's socache behind two callbacks, so core and domain
 * code keep away from httpd.h. Values are opaque bytes with an expiry; a
 * miss, an expired entry, a value too large or an unusable cache all read
 * as "not kept", and a put that fails is forgotten: the cache only ever
 * saves work. */
#ifndef TRV_SHARED_CACHE_H
#define TRV_SHARED_CACHE_H

#include <apr_pools.h>
#include <apr_time.h>

typedef struct trv_shared_cache {
    /* 1 with *val (pool memory, NUL-terminated) and *len when key is kept
     * and not expired, else 0. */
    int (*get)(const struct trv_shared_cache *c, const char *key, apr_pool_t *p,
               char **val, apr_size_t *len);
    /* Keeps val under key until expiry. */
    void (*put)(const struct trv_shared_cache *c, const char *key, const char *val,
                apr_size_t len, apr_time_t expiry, apr_pool_t *p);
    void *baton;
} trv_shared_cache;

#endif
