/* The settings a database's background jobs run with. Jobs do not know
 * which virtual host queued them: the workers of one database run every
 * job there with one configuration, so virtual hosts that share a
 * database must agree on these (httpd/tenants.c refuses them otherwise).
 * A new trv_config field that a job reads belongs in the comparison too. */
#ifndef TRV_CONFIG_JOBS_H
#define TRV_CONFIG_JOBS_H

#include "config.h"

/* NULL when a and b agree on every setting the jobs use (suppliers, hotel
 * suppliers, payment provider, secret key, webhook retry schedule and
 * allowed networks, worker threads, job lease and poll interval, watch
 * interval); else the
 * name of the first directive where they differ. Both are complete (the
 * defaults filled in). */
const char *trv_config_jobs_differ(const trv_config *a, const trv_config *b);

#endif
