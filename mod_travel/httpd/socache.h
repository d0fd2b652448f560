/* One httpd socache instance ("provider[:args]": shmcb for the children of
 * a node, memcache or redis across nodes) with the global mutex that
 * providers which are not safe across processes need. Created in
 * post_config, inherited by the children; each use is one short locked
 * call. Used by the rate limits and the search cache. */
#ifndef TRV_HTTPD_SOCACHE_H
#define TRV_HTTPD_SOCACHE_H

#include "glue.h"

#include "ap_socache.h"

#include <apr_global_mutex.h>

typedef struct trv_socache {
    const char *directive;              /* the directive that sets spec, for messages */
    const char *mutex_type;             /* registered with ap_mutex_register */
    const ap_socache_provider_t *provider;
    ap_socache_instance_t *instance;    /* NULL: not created, or unusable */
    apr_global_mutex_t *mutex;
} trv_socache;

/* In pre_config: registers the mutex type and forgets the last generation's
 * instance. */
void trv_socache_pre_config(trv_socache *c, apr_pool_t *pconf);
/* Creates the instance of spec, named ns; NULL or the reason httpd must not
 * start. */
const char *trv_socache_create(trv_socache *c, const char *spec, const char *ns,
                               struct ap_socache_hints *hints, apr_pool_t *pconf,
                               apr_pool_t *ptemp, server_rec *s);
/* In child_init; a mutex the child cannot reopen makes the cache unusable
 * in it (logged). */
void trv_socache_child_init(trv_socache *c, apr_pool_t *pchild, server_rec *s);

/* 1 when the cache is usable and, for a provider that needs it, its mutex
 * is held: then get and put may be called, and unlock after them. */
int trv_socache_lock(trv_socache *c);
void trv_socache_unlock(trv_socache *c);
/* Retrieve and store, under the lock; APR_NOTFOUND for a miss. */
apr_status_t trv_socache_get(trv_socache *c, server_rec *s, const char *key,
                             unsigned char *dest, unsigned int *len, apr_pool_t *p);
apr_status_t trv_socache_put(trv_socache *c, server_rec *s, const char *key,
                             apr_time_t expiry, const unsigned char *val, unsigned int len,
                             apr_pool_t *p);

#endif
