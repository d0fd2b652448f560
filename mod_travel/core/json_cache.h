/* A process's cache of parsed JSON documents that do not change for a
 * while (a hotel supplier's content: the hotels of an area), so that the
 * searches of that area parse them once per process and freshness period
 * instead of once per search (docs/performance.md: parsing the suppliers'
 * answers is most of a search's CPU, and content most of those bytes).
 *
 * A cached document is shared read-only by every thread of the process:
 * callers get a new reference and must not change it. Jansson's reference
 * counts are atomic, and reading a tree changes nothing. The cache holds
 * at most `max_entries` documents; a full cache drops the entry closest to
 * its expiry. */
#ifndef TRV_JSON_CACHE_H
#define TRV_JSON_CACHE_H

#include <apr_pools.h>
#include <apr_time.h>
#include <jansson.h>

typedef struct trv_json_cache trv_json_cache;

/* NULL when max_entries < 1 or the mutex cannot be made: no cache. */
trv_json_cache *trv_json_cache_create(apr_pool_t *p, int max_entries);

/* A new reference to the document kept under key before its expiry, or
 * NULL. */
json_t *trv_json_cache_get(trv_json_cache *c, const char *key, apr_time_t now);

/* Keeps doc (its own reference) under key until now + ttl. */
void trv_json_cache_put(trv_json_cache *c, const char *key, json_t *doc, apr_time_t now,
                        apr_interval_time_t ttl);

#endif
