/* Asking several upstreams at once (the suppliers of a hotel search, the
 * receivers of a webhook batch): a caller that needs every answer waits for the
 * slowest, not for their sum. Each call runs on its own APR thread with a
 * pool of its own allocator (APR pools and allocators are not shared
 * between threads); the request thread runs the first call itself and
 * joins the others, so it never returns before every call has. The HTTP
 * client is shared already by every thread of the child. */
#ifndef TRV_CORE_FANOUT_H
#define TRV_CORE_FANOUT_H

#include <apr_pools.h>

/* A pool for one call, a child of parent (destroyed with it) with its own
 * allocator, safe to use from another thread; NULL when out of memory. */
apr_pool_t *trv_call_pool(apr_pool_t *parent);

/* Runs fn(batons[i]) for i in 0..n-1, at once; returns when all have.
 * A thread that cannot be started runs its call in this thread instead.
 * p: the request's pool (thread bookkeeping). */
void trv_fanout(apr_pool_t *p, int n, void (*fn)(void *baton), void **batons);

#endif
