/* The suppliers' own rate limits (core/upstream_limit.h) in a shared memory
 * segment the parent makes before the children fork, so a 429 one child
 * met stops every child's calls to that supplier. Anonymous like the
 * metrics' segment, held by the process pool: a graceful restart keeps
 * what the suppliers said. */
#include "travel.h"
#include "core/upstream_limit.h"

#include <apr_shm.h>

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
