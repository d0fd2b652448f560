#include "ratelimit.h"
#include "travel.h"
#include "account/keys.h"
#include "core/config.h"
#include "core/call_budget.h"
#include "core/crypt.h"

#include "socache.h"

#include <apr_strings.h>
#include <stdlib.h>
#include <string.h>

#define UNSET -1

/* One cache for the whole server (every virtual host counts in it; keys
 * carry what they count). Set up in post_config, inherited by the children. */
static const char *cache_spec;               /* "provider[:args]" */
static trv_socache cache = {"TravelRateLimitCache", "travel-ratelimit", NULL, NULL, NULL};

void trv_rate_conf_init(trv_rate_conf *c)
{
    c->key_limit = UNSET;
    c->key_window = UNSET;
    c->fail_limit = UNSET;
    c->fail_window = UNSET;
}

void trv_rate_conf_merge(trv_rate_conf *n, const trv_rate_conf *base,
                         const trv_rate_conf *add)
{
    int key = add->key_limit != UNSET, fail = add->fail_limit != UNSET;
    n->key_limit = key ? add->key_limit : base->key_limit;
    n->key_window = key ? add->key_window : base->key_window;
    n->fail_limit = fail ? add->fail_limit : base->fail_limit;
    n->fail_window = fail ? add->fail_window : base->fail_window;
}

const char *trv_rate_parse(apr_pool_t *p, const char *args, long *limit,
                           apr_interval_time_t *window)
{
    const char *n = ap_getword_conf(p, &args), *w = ap_getword_conf(p, &args);
    char *end;
    long v = strtol(n, &end, 10);
    if (!*n || *end || v < 0 || v > 1000000000L) {
        return "takes a count from 0 (off) to 1000000000";
    }
    if (*w) {
        const char *err = trv_parse_duration(w, window);
        if (err) {
            return apr_psprintf(p, "window %s", err);
        }
        if (*window < apr_time_from_sec(1)) {
            return "window must be at least 1s";
        }
    }
    if (*ap_getword_conf(p, &args)) {
        return "takes a count and an optional window";
    }
    *limit = v;
    return NULL;
}

const char *trv_rate_set_cache(apr_pool_t *p, const char *spec)
{
    cache_spec = apr_pstrdup(p, spec);
    return NULL;
}

void trv_rate_pre_config(apr_pool_t *pconf)
{
    cache_spec = "shmcb";
    trv_socache_pre_config(&cache, pconf);
}

const char *trv_rate_post_config(apr_pool_t *pconf, apr_pool_t *ptemp, server_rec *s,
                                 int any_limit)
{
    struct ap_socache_hints hints = {64, 4, apr_time_from_sec(60)};
    if (!any_limit) {
        return NULL;
    }
    return trv_socache_create(&cache, cache_spec, "mod_travel-ratelimit", &hints, pconf,
                              ptemp, s);
}

/* How long a count is kept: its window's end and two seconds more. The
 * key names its window, so a count kept longer is never read for another.
 * Why: memcached keeps an item a whole number of seconds on a clock of its
 * own that turns once a second (mod_socache_memcache sends the seconds
 * left, rounded down, and refuses to store under one), so an item kept
 * "1 s" may be gone a moment after it was written, and one kept for the
 * fraction of a second left of its window is not stored at all: the count
 * started again and a node let more through than its limit (seen as a
 * third call of a budget of two, test_shared_limits). Kept two seconds
 * past its end, it lives at least a second past it on any provider. */
static apr_time_t kept_until(apr_time_t end)
{
    return end + apr_time_from_sec(2);
}

/* The suppliers' call budgets (core/call_budget.h) count in the same
 * store: read, compared and written under one lock, so the children of a
 * node never let one call too many through. */
static long budget_take(const trv_call_counter *c, const char *key, long ceiling,
                        apr_time_t expiry, apr_pool_t *p)
{
    unsigned char buf[8];
    unsigned int len = sizeof(buf);
    apr_uint32_t n = 0;
    if (!trv_socache_lock(&cache)) {
        return -1;
    }
    if (trv_socache_get(&cache, c->baton, key, buf, &len, p) == APR_SUCCESS
        && len == sizeof(n)) {
        memcpy(&n, buf, sizeof(n));
    }
    if ((long)n < ceiling) {
        apr_uint32_t next = n + 1;
        memcpy(buf, &next, sizeof(next));
        trv_socache_put(&cache, c->baton, key, kept_until(expiry), buf, sizeof(next), p);
    }
    trv_socache_unlock(&cache);
    return (long)n;
}

static trv_call_counter counter = {budget_take, NULL};

void trv_rate_child_init(apr_pool_t *pchild, server_rec *s)
{
    trv_socache_child_init(&cache, pchild, s);
    counter.baton = s;
}

const trv_call_counter *trv_rate_call_counter(void)
{
    return cache.instance ? &counter : NULL;
}

/* The count of `who` in the current window (after adding `add`) and the
 * window's end. 0 when the cache fails: a limit then lets requests through
 * rather than refusing everyone. */
static apr_uint32_t count(request_rec *r, const char *kind, const char *who,
                          apr_interval_time_t window, int add, apr_time_t *end)
{
    apr_time_t now = apr_time_now();
    apr_int64_t idx = now / window;
    const char *id = apr_psprintf(r->pool, "trv:%s:%s:%" APR_INT64_T_FMT, kind, who, idx);
    unsigned char buf[8];
    unsigned int len = sizeof(buf);
    apr_uint32_t n = 0;
    *end = (apr_time_t)(idx + 1) * window;
    /* Read and written under one lock: children count without losing one. */
    if (!trv_socache_lock(&cache)) {
        return 0;
    }
    if (trv_socache_get(&cache, r->server, id, buf, &len, r->pool) == APR_SUCCESS
        && len == sizeof(n)) {
        memcpy(&n, buf, sizeof(n));
    }
    if (add) {
        n++;
        memcpy(buf, &n, sizeof(n));
        trv_socache_put(&cache, r->server, id, kept_until(*end), buf, sizeof(n), r->pool);
    }
    trv_socache_unlock(&cache);
    return n;
}

static void headers(apr_table_t *h, long limit, long remaining, apr_time_t end)
{
    apr_interval_time_t left = end - apr_time_now();
    long secs = (long)((left + APR_USEC_PER_SEC - 1) / APR_USEC_PER_SEC);
    if (secs < 1) {
        secs = 1;
    }
    apr_table_setn(h, "RateLimit-Limit", apr_ltoa(apr_table_elts(h)->pool, limit));
    apr_table_setn(h, "RateLimit-Remaining",
                   apr_ltoa(apr_table_elts(h)->pool, remaining < 0 ? 0 : remaining));
    apr_table_setn(h, "RateLimit-Reset", apr_ltoa(apr_table_elts(h)->pool, secs));
}

static int refuse(trv_req *req, trv_resp *resp, long limit, apr_time_t end,
                  const char *what)
{
    const char *reset;
    headers(resp->headers, limit, 0, end);
    reset = apr_table_get(resp->headers, "RateLimit-Reset");
    apr_table_setn(resp->headers, "Retry-After", reset);
    trv_fail(req, resp, 429, "rate_limited", "Too many %s; retry after %s seconds", what,
             reset);
    return 0;
}

static apr_interval_time_t window_of(apr_interval_time_t w, apr_interval_time_t dflt)
{
    return w > 0 ? w : dflt;
}

int trv_rate_admit(request_rec *r, const trv_rate_conf *c, trv_req *req, trv_resp *resp)
{
    const char *key = trv_key_of_headers(r->headers_in);
    apr_time_t end;
    if (c->fail_limit > 0) {
        apr_uint32_t n = count(r, "f", r->useragent_ip, window_of(c->fail_window,
                               apr_time_from_sec(60)), 0, &end);
        if ((long)n >= c->fail_limit) {
            return refuse(req, resp, c->fail_limit, end,
                          "failed API key attempts from this address");
        }
    }
    if (c->key_limit > 0 && key && *key) {
        /* Counted by the key's hash: the key itself never enters the cache. */
        const char *who = trv_crypt_sha256_hex(r->pool, key, strlen(key));
        apr_uint32_t n = count(r, "k", who, window_of(c->key_window, apr_time_from_sec(1)),
                               1, &end);
        if ((long)n > c->key_limit) {
            return refuse(req, resp, c->key_limit, end, "requests with this API key");
        }
        headers(resp->headers, c->key_limit, c->key_limit - (long)n, end);
    }
    return 1;
}

void trv_rate_after(request_rec *r, const trv_rate_conf *c, const trv_req *req,
                    const trv_resp *resp)
{
    const char *key = trv_key_of_headers(r->headers_in);
    apr_time_t end;
    (void)req;
    if (c->fail_limit > 0 && resp->status == 401 && key && *key) {
        count(r, "f", r->useragent_ip, window_of(c->fail_window, apr_time_from_sec(60)), 1,
              &end);
    }
}
