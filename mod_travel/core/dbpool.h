/* A database source of this process's own libpq connections to one
 * conninfo, shared by its threads: what mod_dbd does for DBDParams, for a
 * second database it knows nothing of (a streaming standby that serves
 * reads: gateway/standby.h). Connections are opened when first needed, at
 * most `max` at once, closed after `ttl` unused; one that broke (the server
 * went away, trv_dbc.drop) is discarded rather than given out again. */
#ifndef TRV_DBPOOL_H
#define TRV_DBPOOL_H

#include "db.h"

#include <apr_pools.h>
#include <apr_time.h>

/* NULL when the pool cannot be made (it then says why in *error). Opening
 * a connection happens at trv_db_open, which fails like mod_dbd's source
 * when the server cannot be reached. */
trv_dbsrc *trv_dbpool_create(apr_pool_t *p, const char *conninfo, int max,
                             apr_interval_time_t ttl, const char **error);

#endif
