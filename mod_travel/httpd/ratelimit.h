/* Rate limits, counted in httpd's socache so every child of a node (shmcb)
 * or every node (the memcache or redis providers) shares one count:
 *
 *   per API key        TravelRateLimit N [WINDOW]      (window default 1s)
 *   per client address TravelAuthFailLimit N [WINDOW]  (window default 60s):
 *                      failed key attempts; once reached, every request
 *                      from that address is refused until the window ends
 *
 * Windows are fixed and aligned to the epoch. Over a limit the answer is
 * 429 rate_limited with Retry-After; every answer to a counted request
 * carries RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset. */
#ifndef TRV_HTTPD_RATELIMIT_H
#define TRV_HTTPD_RATELIMIT_H

#include "glue.h"

typedef struct trv_rate_conf {
    long key_limit;                 /* requests per window per key; 0 off, -1 unset */
    apr_interval_time_t key_window;
    long fail_limit;                /* failed key attempts per window per address */
    apr_interval_time_t fail_window;
} trv_rate_conf;

void trv_rate_conf_init(trv_rate_conf *c);
void trv_rate_conf_merge(trv_rate_conf *n, const trv_rate_conf *base,
                         const trv_rate_conf *add);
/* Directive handlers' parsing: "N [WINDOW]"; NULL or the reason. */
const char *trv_rate_parse(apr_pool_t *p, const char *args, long *limit,
                           apr_interval_time_t *window);
/* The socache provider and its arguments ("shmcb", "shmcb:/path(512000)",
 * "memcache:host:11211", "redis:host:6379"); global only. */
struct trv_call_counter;

const char *trv_rate_set_cache(apr_pool_t *p, const char *spec);

void trv_rate_pre_config(apr_pool_t *pconf);
/* Creates the cache (and its mutex) when any server has a limit on (or a
 * supplier line a max_calls_per_second); NULL
 * or the reason httpd must not start. */
const char *trv_rate_post_config(apr_pool_t *pconf, apr_pool_t *ptemp, server_rec *s,
                                 int any_limit);
void trv_rate_child_init(apr_pool_t *pchild, server_rec *s);
/* The suppliers' call budgets' counter in the same store
 * (core/call_budget.h); NULL when the store was not created. */
const struct trv_call_counter *trv_rate_call_counter(void);

/* Before the request is handled: 1 to go on, 0 when resp holds the 429.
 * Adds the RateLimit-* headers of the per-key count to resp. */
int trv_rate_admit(request_rec *r, const trv_rate_conf *c, trv_req *req, trv_resp *resp);
/* After it was handled: a refused key counts against the caller's address. */
void trv_rate_after(request_rec *r, const trv_rate_conf *c, const trv_req *req,
                    const trv_resp *resp);

#endif
