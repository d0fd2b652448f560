/* mod_travel's private header: the server config record and the pieces of
 * the module spread over config.c, workers.c and mod_travel.c. */
#ifndef TRV_HTTPD_TRAVEL_H
#define TRV_HTTPD_TRAVEL_H

#include "glue.h"
#include "ratelimit.h"
#include "gateway/gateway.h"

APLOG_USE_MODULE(travel);

typedef struct trv_workers trv_workers;

typedef struct trv_srv_conf {
    trv_config cfg;          /* unset fields are -1 / NULL until merged */
    int upstreams_set;
    trv_rate_conf rate;      /* rate limits (httpd/ratelimit.h) */
    int hotel_upstreams_set;
    trv_env *env;            /* per child, made in child_init */
    /* The first server on the same database (tenants.c): its env runs the
     * background work of every server that names this database. */
    server_rec *db_leader;
    /* Neither it nor the main server names a database (a main server that
     * only holds virtual hosts with their own): no workers, no listener. */
    int no_database;
    int dbd_max;             /* mod_dbd's DBDMax (tenants.c) */
} trv_srv_conf;

extern const command_rec trv_directives[];
void *trv_create_srv_conf(apr_pool_t *p, server_rec *s);
void *trv_merge_srv_conf(apr_pool_t *p, void *basev, void *addv);
/* Fills defaults and reads the secret key file; NULL or the error. */
const char *trv_finish_srv_conf(apr_pool_t *p, server_rec *s, trv_srv_conf *c);

/* tenants.c: sets each server's db_leader, grouping the servers by the
 * database they name (mod_dbd's DBDriver and DBDParams), and refuses
 * servers that share a database but not the settings its jobs run with.
 * NULL or the reason (for configtest). */
const char *trv_tenants_group(apr_pool_t *pconf, apr_pool_t *ptemp, server_rec *s);
/* "the main server" or "<VirtualHost> name (file line n)". */
const char *trv_server_label(apr_pool_t *p, const server_rec *sv);

/* Starts the configured number of worker threads in this child; they stop
 * when *stopping becomes non-zero and are joined before pchild goes away. */
trv_workers *trv_workers_start(apr_pool_t *pchild, server_rec *s, trv_env *env,
                               const trv_job_kind *kinds, int n);
void trv_workers_wake(void *workers);
/* Threads that run and came back to their loop within `within`. */
int trv_workers_alive(void *workers, apr_interval_time_t within);
void trv_workers_stop(trv_workers *w);

/* metrics.c: the shared figures (post_config, before the children fork;
 * NULL when no shared memory could be had), the `travel-metrics` handler
 * and the mod_status section. */
struct trv_metrics *trv_httpd_metrics_init(apr_pool_t *pconf, server_rec *s,
                                           const trv_router *routes);
int trv_httpd_metrics_handler(request_rec *r);
void trv_httpd_metrics_hooks(void);

/* supplier_limits.c: the suppliers' rate limits shared by the children
 * (post_config, before they fork; NULL when no shared memory could be had). */
struct trv_upstream_limits *trv_httpd_supplier_limits_init(apr_pool_t *pconf, server_rec *s);
/* Its section of /server-status (register_hooks). */
void trv_httpd_supplier_limits_hooks(void);

/* dashboard.c: the `travel-dashboard` handler (dashboard/dashboard.h). */
int trv_httpd_dashboard_handler(request_rec *r, const trv_gateway *gw);

#endif
