/* A per-process cache of authenticated API keys, so a request with a known
 * key costs no query. It is only used while this process LISTENs to the
 * database's key-change channel: every change to api_keys (revocation,
 * deletion) notifies every listening process of every instance, which then
 * forgets everything it knew, so a revoked key stops working at once
 * everywhere. While the listener is not connected (startup, PostgreSQL
 * restarting), the cache is off and every request asks the database.
 * There is one cache and one listener per database: virtual hosts on
 * different databases (tenants) never see each other's keys. */
#ifndef TRV_ACCOUNT_KEY_CACHE_H
#define TRV_ACCOUNT_KEY_CACHE_H

#include "keys.h"
#include "core/env.h"

#include <apr_pools.h>

/* The channel the api_keys trigger notifies (migration 040). */
#define TRV_KEY_CHANNEL "trv_api_keys"
/* The channel an insert into jobs notifies (migration 042): the listener
 * wakes this child's workers (env->wake) on it. */
#define TRV_JOBS_CHANNEL "trv_jobs"

/* An opaque stamp of the cache's state, taken before a database lookup; a
 * lookup result is only kept when no change arrived meanwhile. */
typedef apr_uint64_t trv_key_stamp;

typedef struct trv_key_cache trv_key_cache;
/* An empty cache, off until its listener listens. */
trv_key_cache *trv_key_cache_create(apr_pool_t *p);

/* Found: fills *who (strings in p) and returns 1, after a constant-time
 * comparison of the stored hash with `hash`. 0 otherwise. *stamp is set
 * in both cases, for trv_key_cache_put. */
int trv_key_cache_get(trv_key_cache *kc, apr_pool_t *p, const char *hash,
                      trv_principal *who, trv_key_stamp *stamp);
/* Keeps a successful database lookup, unless the cache is off or a change
 * arrived since `stamp` was taken. kc NULL: no cache (both are no-ops). */
void trv_key_cache_put(trv_key_cache *kc, const char *hash, const trv_principal *who,
                       trv_key_stamp stamp);
/* Forgets every key (a change notification). */
void trv_key_cache_flush(trv_key_cache *kc);
/* Turns the cache on (the listener is listening) or off (it lost its
 * connection); both forget every key. */
void trv_key_cache_enable(trv_key_cache *kc, int on);

/* The listener: a thread that holds one database connection, LISTENs on
 * TRV_KEY_CHANNEL (flushes kc) and TRV_JOBS_CHANNEL (wakes env's workers)
 * on env's database. It reconnects with a backoff while the database is
 * away. */
typedef struct trv_key_listener trv_key_listener;
trv_key_listener *trv_key_listener_start(apr_pool_t *pchild, trv_env *env,
                                         trv_key_cache *kc);
/* Stops and joins the thread (also done by a pre-cleanup of pchild). */
void trv_key_listener_stop(trv_key_listener *l);

#endif
