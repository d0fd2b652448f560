/* The search cache's store: one socache for the server (TravelSearchCacheStore,
 * default shmcb in the runtime directory, so every child of the node shares
 * it; memcache or redis share it across nodes), handed to the domains as a
 * core/shared_cache.h. Created only when a supplier line sets
 * search_cache=. */
#ifndef TRV_HTTPD_SEARCH_CACHE_H
#define TRV_HTTPD_SEARCH_CACHE_H

#include "glue.h"
#include "core/shared_cache.h"

const char *trv_search_cache_set_store(apr_pool_t *p, const char *spec);
void trv_search_cache_pre_config(apr_pool_t *pconf);
/* Creates the store when any server caches a supplier's searches; NULL or
 * the reason httpd must not start. */
const char *trv_search_cache_post_config(apr_pool_t *pconf, apr_pool_t *ptemp, server_rec *s,
                                         int any);
void trv_search_cache_child_init(apr_pool_t *pchild, server_rec *s);
/* The store, or NULL when there is none. */
const trv_shared_cache *trv_search_cache(void);

#endif
