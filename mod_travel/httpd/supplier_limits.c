/* The suppliers' own rate limits (core/upstream_limit.h) in a shared memory
 * segment the parent makes before the children fork, so a 429 one child
 * met stops every child's calls to that supplier. Anonymous like the
 * metrics' segment, held by the process pool: a graceful restart keeps
 * what the suppliers said. */
#include "travel.h"
#include "core/upstream_limit.h"

#include "http_protocol.h"
#include "mod_status.h"

#include <apr_shm.h>
#include <apr_strings.h>

static trv_upstream_limits *limits; /* set in post_config, inherited by the children */

static void add_all(server_rec *s, const apr_array_header_t *ups)
{
    int i;
    for (i = 0; ups && i < ups->nelts; i++) {
        const trv_upstream *u = &APR_ARRAY_IDX(ups, i, trv_upstream);
        if (trv_upstream_limits_add(limits, u) != 0) {
            ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s,
                         TRVLOGNO(3000) "more than %d supplier lines: %s's rate limit is "
                         "not obeyed [request_id -]", TRV_UPSTREAM_LIMIT_SLOTS, u->name);
        }
    }
}

trv_upstream_limits *trv_httpd_supplier_limits_init(apr_pool_t *pconf, server_rec *s)
{
    static const char key[] = "travel-supplier-limits-shm";
    server_rec *sv;
    apr_shm_t *shm;
    void *data = NULL;

    apr_pool_userdata_get(&data, key, s->process->pool);
    shm = data;
    if (!shm) {
        apr_status_t rv = apr_shm_create(&shm, trv_upstream_limits_size(), NULL,
                                         s->process->pool);
        if (rv != APR_SUCCESS) {
            ap_log_error(APLOG_MARK, APLOG_WARNING, rv, s,
                         TRVLOGNO(3001) "no shared memory for the suppliers' rate limits; "
                         "each supplier's 429 is obeyed by nobody [request_id -]");
            return limits = NULL;
        }
        memset(apr_shm_baseaddr_get(shm), 0, trv_upstream_limits_size());
        apr_pool_userdata_set(shm, key, apr_pool_cleanup_null, s->process->pool);
    }
    limits = trv_upstream_limits_attach(pconf, apr_shm_baseaddr_get(shm));
    /* Every server's lines (virtual hosts may name their own); a line is
     * its name and base URL, so two servers with the same line share it. */
    for (sv = s; sv; sv = sv->next) {
        trv_srv_conf *c = ap_get_module_config(sv->module_config, &travel_module);
        add_all(s, c->cfg.upstreams);
        add_all(s, c->cfg.hotel_upstreams);
    }
    return limits;
}

/* Whole seconds until calls go again, rounded up; 0 when they go now. */
static apr_time_t held_for(const trv_upstream_limit_fig *f, apr_time_t now)
{
    return f->until ? apr_time_sec(f->until - now + APR_USEC_PER_SEC - 1) : 0;
}

/* The mod_travel section of /server-status: each supplier line, whether
 * its calls are held and for how long, and the calls its window has left. */
static int status_hook(request_rec *r, int flags)
{
    trv_upstream_limit_fig *f;
    apr_time_t now = apr_time_now();
    int i, n;
    if (!limits || !ap_get_module_config(r->server->module_config, &travel_module)) {
        return DECLINED;
    }
    n = trv_upstream_limits_figures(limits, r->pool, now, &f);
    if (flags & AP_STATUS_SHORT) {
        for (i = 0; i < n; i++) {
            ap_rprintf(r, "TravelSupplierLimit: %s held_for=%" APR_TIME_T_FMT " remaining=%ld\n",
                       f[i].line, held_for(&f[i], now), f[i].remaining);
        }
        return OK;
    }
    ap_rputs("<table border=\"0\"><tr><th>Supplier line</th><th>Calls held for (s)</th>"
             "<th>Calls left in its window</th></tr>\n", r);
    for (i = 0; i < n; i++) {
        ap_rprintf(r, "<tr><td>%s</td><td>%" APR_TIME_T_FMT "</td><td>%s</td></tr>\n",
                   ap_escape_html(r->pool, f[i].line), held_for(&f[i], now),
                   f[i].remaining < 0 ? "unknown" : apr_ltoa(r->pool, f[i].remaining));
    }
    ap_rputs("</table>\n", r);
    return OK;
}

void trv_httpd_supplier_limits_hooks(void)
{
    APR_OPTIONAL_HOOK(ap, status_hook, status_hook, NULL, NULL, APR_HOOK_MIDDLE);
}
