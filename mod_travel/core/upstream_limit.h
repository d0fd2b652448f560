/* A supplier's own rate limit, as the supplier states it, obeyed by every
 * call to it: a 429 (with Retry-After, or the rate-limit headers) or an
 * answer saying no call is left in the window (ratelimit-remaining: 0 and
 * ratelimit-reset, as Duffel sends on every answer) stops calls to that
 * supplier until the time it gave. A call made meanwhile waits when the
 * time is near (at most TravelSupplierLimitWait and its own timeout), else
 * is refused at once without reaching the supplier: nothing happened, and
 * the caller knows when to retry. While a window's count is known, each
 * call spends one, so the children do not overrun it between answers.
 *
 * The state is one slot per supplier line (its name and base URL), in
 * memory the caller provides: a shared memory segment made before httpd's
 * children fork (httpd/supplier_limits.c), so every thread of every child
 * obeys the same limit; only atomic operations touch it. */
#ifndef TRV_UPSTREAM_LIMIT_H
#define TRV_UPSTREAM_LIMIT_H

#include "config.h"

#include <apr_tables.h>

#define TRV_UPSTREAM_LIMIT_SLOTS 32
/* How long a 429 without Retry-After or a reset stops calls. */
#define TRV_UPSTREAM_LIMIT_DEFAULT apr_time_from_sec(2)
/* The longest stop a supplier's headers may ask for: a supplier that
 * writes a reset days away (a clock or unit mistake) is not believed. */
#define TRV_UPSTREAM_LIMIT_MAX apr_time_from_sec(3600)

typedef struct trv_upstream_limits trv_upstream_limits;

/* Bytes of memory trv_upstream_limits_attach needs. */
apr_size_t trv_upstream_limits_size(void);

/* A process-local handle on the slots at mem (zeroed by the caller when
 * new, kept as is when reused after a graceful restart). */
trv_upstream_limits *trv_upstream_limits_attach(apr_pool_t *p, void *mem);

/* Gives up a slot to an upstream (found when already there); before the
 * children fork, from one thread. 0, or -1 when every slot is taken (the
 * upstream's limits are then not tracked). */
int trv_upstream_limits_add(trv_upstream_limits *lim, const trv_upstream *up);

/* Before a call at now: 0 when it may go (one call of a known window is
 * spent), else the time the supplier said calls may resume. lim or up
 * unknown to it: 0. */
apr_time_t trv_upstream_limit_take(trv_upstream_limits *lim, const trv_upstream *up,
                                   apr_time_t now);

/* The same question without spending a call: the time calls may resume,
 * or 0 when the supplier is not over its limit now. */
apr_time_t trv_upstream_limit_until(const trv_upstream_limits *lim, const trv_upstream *up,
                                    apr_time_t now);

/* After an answer of HTTP status with these headers at now: remembers what
 * the supplier said of its limit. Returns, for a 429, the time the caller
 * may retry; 0 otherwise. Works with lim NULL (nothing remembered) so the
 * caller learns the time anyway. */
apr_time_t trv_upstream_limit_note(trv_upstream_limits *lim, const trv_upstream *up,
                                   apr_time_t now, int status, const apr_table_t *headers);

/* A live call to up was refused unsent because the operator's ceiling
 * (core/call_budget.h) was spent: remembered until `until`, so that the
 * request that made it answers for that reason (not as a failure of the
 * supplier). */
void trv_upstream_limit_budget_spent(trv_upstream_limits *lim, const trv_upstream *up,
                                     apr_time_t until);
/* Until when such a refusal is remembered; 0 when none is now. */
apr_time_t trv_upstream_limit_budget_until(const trv_upstream_limits *lim,
                                           const trv_upstream *up, apr_time_t now);

/* What one slot holds now, for the operator's view (mod_status). */
typedef struct trv_upstream_limit_fig {
    const char *line;          /* "NAME base_url" */
    apr_time_t until;          /* calls held until then; 0: not held */
    long remaining;            /* calls left in the current window; -1: unknown */
} trv_upstream_limit_fig;

/* Every slot's figures at now (a consistent-enough copy: each read
 * atomically); returns how many. */
int trv_upstream_limits_figures(const trv_upstream_limits *lim, apr_pool_t *p, apr_time_t now,
                                trv_upstream_limit_fig **out);

/* A rate-limit time header's value as an instant: delta seconds ("30"),
 * epoch seconds (a number beyond a year of seconds) or an HTTP date (read
 * against the answer's Date, so a supplier's clock skew does not count),
 * capped at now + TRV_UPSTREAM_LIMIT_MAX. 0 when unreadable. */
apr_time_t trv_upstream_limit_time(const char *value, const char *date, apr_time_t now);

#endif
