/* The operator's view of one httpd: the figures of core/metrics.c kept in
 * a shared memory segment made by the parent before the children fork
 * (anonymous, so nothing on disk; held by the process pool, so a graceful
 * restart keeps the counts), served as Prometheus text by
 * `SetHandler travel-metrics` and as a mod_travel section of mod_status. */
#include "travel.h"
#include "core/metrics.h"

#include "http_protocol.h"
#include "mod_status.h"

#include <apr_shm.h>
#include <apr_strings.h>

static trv_metrics *metrics; /* set in post_config, inherited by the children */

/* name (may be NULL) added to names unless there already. */
static void add_once(apr_array_header_t *names, const char *name)
{
    int j;
    for (j = 0; name && j < names->nelts; j++) {
        if (strcmp(APR_ARRAY_IDX(names, j, const char *), name) == 0) {
            return;
        }
    }
    if (name) {
        *(const char **)apr_array_push(names) = name;
    }
}

trv_metrics *trv_httpd_metrics_init(apr_pool_t *pconf, server_rec *s,
                                    const trv_router *routes)
{
    static const char key[] = "travel-metrics-shm";
    trv_srv_conf *c;
    server_rec *sv;
    apr_array_header_t *names = apr_array_make(pconf, 8, sizeof(const char *));
    apr_shm_t *shm;
    void *data = NULL;
    int i;

    apr_pool_userdata_get(&data, key, s->process->pool);
    shm = data;
    /* A restart into a module whose figures take more room (a new layout:
     * trv_metrics_attach starts them afresh) needs a larger segment; the
     * old one stays with the process pool. */
    if (shm && apr_shm_size_get(shm) < trv_metrics_size()) {
        shm = NULL;
    }
    if (!shm) {
        apr_status_t rv = apr_shm_create(&shm, trv_metrics_size(), NULL, s->process->pool);
        if (rv != APR_SUCCESS) {
            ap_log_error(APLOG_MARK, APLOG_WARNING, rv, s,
                         TRVLOGNO(2600) "no shared memory for the metrics; /metrics and "
                         "the status page show no request figures [request_id -]");
            metrics = NULL;
            return NULL;
        }
        memset(apr_shm_baseaddr_get(shm), 0, trv_metrics_size());
        apr_pool_userdata_set(shm, key, apr_pool_cleanup_null, s->process->pool);
    }
    /* Every server's suppliers (virtual hosts may name their own), each
     * name once: the figures are per upstream name for the whole httpd. */
    for (sv = s; sv; sv = sv->next) {
        c = ap_get_module_config(sv->module_config, &travel_module);
        for (i = 0; c->cfg.upstreams && i <= c->cfg.upstreams->nelts; i++) {
            const char *name = i < c->cfg.upstreams->nelts
                                   ? APR_ARRAY_IDX(c->cfg.upstreams, i, trv_upstream).name
                                   : c->cfg.payment ? c->cfg.payment->name : NULL;
            add_once(names, name);
        }
    }
    /* The hotel suppliers, as "hotel <name>" (hotel/suppliers/wire.c): a
     * hotel supplier may share its name with a flight one. */
    for (sv = s; sv; sv = sv->next) {
        c = ap_get_module_config(sv->module_config, &travel_module);
        for (i = 0; c->cfg.hotel_upstreams && i < c->cfg.hotel_upstreams->nelts; i++) {
            const char *name = apr_pstrcat(pconf, "hotel ",
                                           APR_ARRAY_IDX(c->cfg.hotel_upstreams, i,
                                                         trv_upstream).name, NULL);
            add_once(names, name);
        }
    }
    *(const char **)apr_array_push(names) = NULL;
    metrics = trv_metrics_attach(pconf, apr_shm_baseaddr_get(shm), routes,
                                 (const char *const *)names->elts);
    return metrics;
}

/* The database's figures, through this server's connection source. */
static void read_queue(request_rec *r, trv_metrics_queue *q)
{
    trv_srv_conf *c = ap_get_module_config(r->server->module_config, &travel_module);
    trv_dbc *dbc = NULL;
    memset(q, 0, sizeof(*q));
    if (c->env && trv_db_open(c->env->db, r->pool, &dbc) == APR_SUCCESS) {
        trv_metrics_queue_read(dbc, r->pool, q);
        trv_db_close(c->env->db, dbc);
    }
}

int trv_httpd_metrics_handler(request_rec *r)
{
    trv_metrics_queue q;
    r->allowed = (AP_METHOD_BIT << M_GET);
    if (r->method_number != M_GET) {
        return HTTP_METHOD_NOT_ALLOWED;
    }
    read_queue(r, &q);
    ap_set_content_type(r, "text/plain; version=0.0.4; charset=utf-8");
    apr_table_setn(r->headers_out, "Cache-Control", "no-store");
    if (!r->header_only) {
        ap_rputs(trv_metrics_prometheus(metrics, r->pool, &q), r);
    }
    return OK;
}

static int status_hook(request_rec *r, int flags)
{
    trv_metrics_queue q;
    trv_metrics_route_fig *rf;
    trv_metrics_upstream_fig *uf;
    int i, nr, nu;

    if (!ap_get_module_config(r->server->module_config, &travel_module)) {
        return DECLINED;
    }
    read_queue(r, &q);
    nr = trv_metrics_routes(metrics, r->pool, &rf);
    nu = trv_metrics_upstreams(metrics, r->pool, &uf);
    if (flags & AP_STATUS_SHORT) {
        ap_rprintf(r, "TravelDatabaseUp: %d\n", q.db_up);
        if (q.db_up) {
            ap_rprintf(r, "TravelJobsQueued: %ld\nTravelJobsRunning: %ld\nTravelJobsDead: %ld\n"
                       "TravelJobsOldestWaitSeconds: %.3f\nTravelDeliveriesPending: %ld\n"
                       "TravelDeliveriesFailed: %ld\n", q.jobs_queued, q.jobs_running,
                       q.jobs_dead, q.oldest_job_s, q.deliveries_pending,
                       q.deliveries_failed);
        }
        for (i = 0; i < nu; i++) {
            ap_rprintf(r, "TravelUpstream: %s calls=%" APR_UINT64_T_FMT " errors=%" APR_UINT64_T_FMT " timeouts=%" APR_UINT64_T_FMT "\n",
                       uf[i].upstream, uf[i].calls, uf[i].errors, uf[i].timeouts);
        }
        for (i = 0; i < nr; i++) {
            if (rf[i].count) {
                ap_rprintf(r, "TravelRoute: %s count=%" APR_UINT64_T_FMT " errors=%" APR_UINT64_T_FMT " p50=%.4f p99=%.4f\n",
                           rf[i].route, rf[i].count, rf[i].errors, rf[i].p50_s, rf[i].p99_s);
            }
        }
        return OK;
    }
    ap_rputs("<hr />\n<h2>mod_travel</h2>\n", r);
    if (!q.db_up) {
        ap_rputs("<p>The database does not answer.</p>\n", r);
    }
    else {
        ap_rprintf(r, "<dl><dt>Background jobs</dt><dd>%ld queued, %ld running, %ld dead; the "
                   "oldest due job has waited %.1f s</dd>\n<dt>Webhook deliveries</dt>"
                   "<dd>%ld pending, %ld failed</dd></dl>\n", q.jobs_queued, q.jobs_running,
                   q.jobs_dead, q.oldest_job_s, q.deliveries_pending, q.deliveries_failed);
    }
    ap_rputs("<table border=\"0\"><tr><th>Upstream</th><th>Calls</th><th>Errors</th>"
             "<th>Timeouts</th></tr>\n", r);
    for (i = 0; i < nu; i++) {
        ap_rprintf(r, "<tr><td>%s</td><td>%" APR_UINT64_T_FMT "</td><td>%" APR_UINT64_T_FMT "</td><td>%" APR_UINT64_T_FMT "</td></tr>\n",
                   ap_escape_html(r->pool, uf[i].upstream), uf[i].calls, uf[i].errors,
                   uf[i].timeouts);
    }
    ap_rputs("</table>\n<table border=\"0\"><tr><th>Route</th><th>Answers</th>"
             "<th>5xx</th><th>p50 ms</th><th>p99 ms</th></tr>\n", r);
    for (i = 0; i < nr; i++) {
        if (rf[i].count) {
            ap_rprintf(r, "<tr><td>%s</td><td>%" APR_UINT64_T_FMT "</td><td>%" APR_UINT64_T_FMT "</td><td>%.1f</td>"
                       "<td>%.1f</td></tr>\n", ap_escape_html(r->pool, rf[i].route),
                       rf[i].count, rf[i].errors, rf[i].p50_s * 1000, rf[i].p99_s * 1000);
        }
    }
    ap_rputs("</table>\n", r);
    return OK;
}

void trv_httpd_metrics_hooks(void)
{
    APR_OPTIONAL_HOOK(ap, status_hook, status_hook, NULL, NULL, APR_HOOK_MIDDLE);
}
