/* The services a request or a background job works with. Built once per
 * child by the httpd glue, by travelctl, or by a test. */
#ifndef TRV_ENV_H
#define TRV_ENV_H

#include "config.h"
#include "db.h"
#include "http.h"
#include "log.h"

#include <apr_atomic.h>

struct trv_registry;
struct trv_req;
struct trv_resp;

/* Idempotent requests (routes flagged TRV_ROUTE_IDEMPOTENT): begin returns
 * 1 to run the handler (with *token set when the answer is to be kept), 0
 * when resp already holds the answer (a replay or a conflict); finish keeps
 * the handler's answer. user_scoped: the route acts on a resource of the
 * calling user (TRV_ROUTE_USER_SCOPED), so the key is the user's, not the
 * organization's. */
typedef struct trv_idempotency {
    int (*begin)(struct trv_req *req, struct trv_resp *resp, int user_scoped, void **token);
    void (*finish)(struct trv_req *req, const struct trv_resp *resp, void *token);
    /* Stores what finish could not (the database was away when the
     * request ended); run often by a background thread (the listener).
     * NULL: nothing is deferred. */
    void (*retry_pending)(apr_pool_t *p);
} trv_idempotency;
struct trv_metrics; /* core/metrics.h */
struct trv_key_cache; /* account/key_cache.h */
struct trv_text_cache; /* core/text_cache.h */
struct trv_json_cache; /* core/json_cache.h */
struct trv_shared_cache; /* core/shared_cache.h */
struct trv_upstream_limits; /* core/upstream_limit.h */
struct trv_call_counter; /* core/call_budget.h */

typedef struct trv_env {
    trv_log log;
    trv_dbsrc *db;
    /* A streaming standby that may serve reads (gateway/standby.h); NULL:
     * every read goes to db. */
    trv_dbsrc *standby;
    trv_http *http;
    /* Webhook sends only: connections to customers' URLs are never
     * shared with supplier calls. NULL: use http. */
    trv_http *webhook_http;
    const trv_config *cfg;
    /* What the domains registered (registry.h); NULL outside the module. */
    const struct trv_registry *registry;
    volatile apr_uint32_t *stopping; /* non-zero once the process is stopping */
    /* Wakes this process's background workers (work was just committed). */
    void (*wake)(void *baton);
    void *wake_baton;
    /* NULL: x-idempotency-key is not honoured beyond the routes' own rules. */
    const trv_idempotency *idempotency;
    /* How many of this process's background worker threads run and came
     * back to their loop within `within` (GET /v1/health compares it with
     * cfg->worker_threads); called with wake_baton. NULL: none started. */
    int (*workers_alive)(void *baton, apr_interval_time_t within);
    /* Figures shared by the children of this httpd; NULL: not kept. */
    struct trv_metrics *metrics;
    /* The authenticated API keys of this env's database (account/
     * key_cache.h), shared by the virtual hosts on that database; NULL:
     * every request asks the database. */
    struct trv_key_cache *key_cache;
    /* The htl_ ids of hotels all of whose supplier ids are mapped in this
     * env's database, and who sells each hotel (hotel/hotel_store.c),
     * shared like key_cache; NULL: every request asks the database. */
    struct trv_text_cache *hotel_ids, *hotel_sellers;
    /* How many connections of db this process may hold at once (mod_dbd's
     * DBDMax); 0: unknown. */
    int db_pool_max;
    /* Hotel suppliers' content kept parsed in this process (shared by its
     * virtual hosts); NULL: none kept. */
    struct trv_json_cache *content_cache;
    /* Suppliers' search answers shared by every child (and node) for the
     * freshness their lines allow (hotel/search_cache.h); NULL: none. */
    const struct trv_shared_cache *search_cache;
    /* The suppliers' own rate limits as they stated them, shared by the
     * children of this httpd (core/upstream_limit.h); NULL: not obeyed
     * (travelctl, tests of other things). */
    struct trv_upstream_limits *upstream_limits;
    /* Where the suppliers' call budgets (max_calls_per_second=) are
     * counted, shared by the children (and nodes) (core/call_budget.h);
     * NULL: the ceilings are not applied. */
    const struct trv_call_counter *call_counter;
} trv_env;

static inline void trv_env_wake(const trv_env *env)
{
    if (env->wake) {
        env->wake(env->wake_baton);
    }
}

#define TRV_STOPPING(env) ((env)->stopping && apr_atomic_read32((env)->stopping))

#endif
