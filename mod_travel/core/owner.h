/* Who runs a piece of work that outlives no process (a booking's book
 * step, an idempotent request): "<host>/<boot id>/<pid namespace>:<pid>" of
 * the process. Whoever finds the work unfinished takes it over at once when
 * that process is provably gone (same machine and namespace, no such pid:
 * the httpd child was killed), and otherwise only after the work's
 * deadline (its calls have all timed out by then). Flights, hotels and the
 * gateway's idempotency keys share it. */
#ifndef TRV_OWNER_H
#define TRV_OWNER_H

#include <apr_pools.h>

const char *trv_owner_self(apr_pool_t *p);

/* 1 only when the owner is certainly not running any more. */
int trv_owner_gone(apr_pool_t *p, const char *owner);

#endif
