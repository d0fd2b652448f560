/* A ceiling of calls per second per supplier line, set by the operator
 * (max_calls_per_second= on the line): the calls of every child, and of
 * every node whose counting store is shared (TravelRateLimitCache:
 * memcache or redis), are counted together in windows of one second
 * aligned to the clock. A live call (a client's search) may take the whole
 * window; a background call (a price watch) only what is left after a
 * reserve kept for live calls, so watches spend what searches leave.
 *
 * This file is the arithmetic and the window's key; the count itself is
 * kept by a trv_call_counter the glue provides (httpd/ratelimit.c), and
 * core/upstream.c asks it before every call of a line with a ceiling. */
#ifndef TRV_CALL_BUDGET_H
#define TRV_CALL_BUDGET_H

#include "config.h"

#include <apr_pools.h>
#include <apr_time.h>

/* The largest ceiling a line may set. */
#define TRV_CALL_BUDGET_MAX 100000
/* The budget's window: counts start again each whole second. */
#define TRV_CALL_BUDGET_WINDOW apr_time_from_sec(1)
/* The code of a call not sent because its line's budget was spent
 * (trv_up_result.code). */
#define TRV_CALL_BUDGET_SPENT "call_budget_spent"

/* A count shared by every child (and node): take adds one to key's count
 * when that count is below ceiling, keeping it until expiry. Returns the
 * count before the call (so a value >= ceiling means nothing was added),
 * or -1 when the store could not be used (the call then goes: a broken
 * store must not stop every search). */
typedef struct trv_call_counter {
    long (*take)(const struct trv_call_counter *c, const char *key, long ceiling,
                 apr_time_t expiry, apr_pool_t *p);
    void *baton;
} trv_call_counter;

/* How many calls of a window a class of call may reach: live, the line's
 * whole ceiling; background, the ceiling less a reserve of a quarter
 * (rounded up) kept for live calls, but never less than one call. 0 for a
 * line without a ceiling. */
long trv_call_budget_share(const trv_upstream *up, int background);

/* The window that holds now: its number (seconds since the epoch) in
 * *index, and when it ends (the next one starts). */
apr_time_t trv_call_budget_window(apr_time_t now, apr_int64_t *index);

/* The counter's key for a line's window: the line is its name and base
 * URL, as the suppliers' own limits key it (core/upstream_limit.h). */
const char *trv_call_budget_key(apr_pool_t *p, const trv_upstream *up, apr_int64_t index);

/* Takes one call of up's budget at now for a live or background call:
 * 0 when it may go (or the line has no ceiling, or there is no counter),
 * else the time the next window starts. */
apr_time_t trv_call_budget_take(const trv_call_counter *c, apr_pool_t *p, const trv_upstream *up,
                                int background, apr_time_t now);

#endif
