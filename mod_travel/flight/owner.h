/* Who runs a book step: "<host>/<boot id>/<pid namespace>:<pid>" of the
 * process. A background job that finds a step unfinished takes it over at
 * once when that process is provably gone (same machine and namespace, no
 * such pid: the httpd child was killed), and otherwise only after the
 * step's deadline (its calls have all timed out by then). */
#ifndef TRV_FLIGHT_OWNER_H
#define TRV_FLIGHT_OWNER_H

#include <apr_pools.h>

const char *trv_flight_owner_self(apr_pool_t *p);

/* 1 only when the owner is certainly not running any more. */
int trv_flight_owner_gone(apr_pool_t *p, const char *owner);

#endif
