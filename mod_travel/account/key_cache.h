/* A per-process cache of authenticated API keys, so a request with a known
 * key costs no query. It is only used while this process LISTENs to the
 * database's key-change channel: every change to api_keys (revocation,
 * deletion) notifies every listening process of every instance, which then
 * forgets everything it knew, so a revoked key stops working at once
 * everywhere. While the listener is not connected (startup, PostgreSQL
 * restarting), or while it cannot prove that a NOTIFY reaches it (a
 * pooler between it and PostgreSQL), the cache is off and every request
 * asks the database (account/key_listener.h).
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

/* The channel a change to hotel_supplier_ids notifies (migration 420):
 * the listener flushes env->hotel_sellers (hotel/hotel_store.c). */
#define TRV_HOTEL_SELLERS_CHANNEL "trv_hotel_sellers"

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
/* Whether what another cache keeps under this listener's watch (who
 * sells a hotel) may be used now: the cache is on and no change waits on
 * the listener's socket. 0 for NULL. */
int trv_key_cache_trusted(trv_key_cache *kc);
/* Turns the cache on (the listener is listening) or off (it lost its
 * connection); both forget every key. */
void trv_key_cache_enable(trv_key_cache *kc, int on);

/* How key and job changes reach this process (account/key_listener.h). */
typedef enum trv_notify_state {
    TRV_NOTIFY_STARTING = 0, /* no listener has reported yet */
    TRV_NOTIFY_LISTENING,    /* a NOTIFY was proven to arrive: the cache is on */
    TRV_NOTIFY_POLLING       /* not proven: cache off, workers poll */
} trv_notify_state;

/* The listener's socket while it listens (a hit is not trusted while data
 * waits on it), or -1. */
void trv_key_cache_set_listen_fd(trv_key_cache *kc, int fd);
/* Records the listener's state and its reason (copied; NULL: none). */
void trv_key_cache_set_notify(trv_key_cache *kc, trv_notify_state st, const char *reason);
/* The last recorded state; *reason in p, or NULL. */
trv_notify_state trv_key_cache_notify(trv_key_cache *kc, apr_pool_t *p, const char **reason);

#endif
