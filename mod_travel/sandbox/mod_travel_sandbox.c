/* mod_travel_sandbox: test mode as a module of its own. Load it and give a
 * virtual host "SetHandler travel-sandbox" to get the sandbox suppliers,
 * payment provider and webhook inbox on that host's port. */
#include "sandbox.h"
#include "core/dispatch.h"
#include "httpd/glue.h"

#include "http_protocol.h"
#include "http_request.h"

#include <apr_atomic.h>
#include <apr_strings.h>

extern module AP_MODULE_DECLARE_DATA travel_sandbox_module;
APLOG_USE_MODULE(travel_sandbox);

typedef struct sbx_conf {
    trv_env *env;
    trv_config cfg;
} sbx_conf;

static trv_router *router;
static apr_uint32_t stopping;

static void health(trv_req *req, trv_resp *resp)
{
    static const trv_stmt ping = {"sbx_ping", "SELECT 1 AS ok"};
    trv_dbc *c;
    trv_rows *rows;
    const char *db = "ok";
    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS) {
        db = "unreachable";
    }
    else {
        if (trv_db_select(c, req->pool, &ping, &rows, 0, NULL) != APR_SUCCESS) {
            db = "failing";
        }
        trv_db_close(req->env->db, c);
    }
    trv_ok(req, resp, strcmp(db, "ok") == 0 ? 200 : 503,
           json_pack("{s:s,s:s}", "status", strcmp(db, "ok") == 0 ? "ok" : "degraded",
                     "database", db), NULL);
}

static const trv_route base_routes[] = {
    {"GET", "/health", health, TRV_ROUTE_PUBLIC},
    {NULL, NULL, NULL, 0},
};

static void *create_conf(apr_pool_t *p, server_rec *s)
{
    sbx_conf *c = apr_pcalloc(p, sizeof(*c));
    (void)s;
    c->cfg.max_body = TRV_DEFAULT_MAX_BODY;
    return c;
}

static int post_config(apr_pool_t *pconf, apr_pool_t *plog, apr_pool_t *ptemp,
                       server_rec *s)
{
    const char *err;
    (void)plog;
    (void)ptemp;
    if ((err = trv_httpd_dbd_check())) {
        ap_log_error(APLOG_MARK, APLOG_CRIT, 0, s, TRVLOGNO(901) "%s [request_id -]", err);
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    router = trv_router_make(pconf);
    trv_router_add(router, base_routes);
    trv_router_add(router, trv_sandbox_inbox_routes);
    return OK;
}

static void child_init(apr_pool_t *pchild, server_rec *s)
{
    server_rec *sv;
    for (sv = s; sv; sv = sv->next) {
        sbx_conf *c = ap_get_module_config(sv->module_config, &travel_sandbox_module);
        trv_env *env = apr_pcalloc(pchild, sizeof(*env));
        env->log = trv_httpd_server_log(sv);
        env->db = trv_httpd_dbsrc(pchild, sv);
        env->cfg = &c->cfg;
        env->stopping = &stopping;
        c->env = env;
    }
}

static int handler(request_rec *r)
{
    sbx_conf *c;
    trv_req req;
    trv_resp resp;
    int st;

    if (!r->handler || strcmp(r->handler, "travel-sandbox") != 0) {
        return DECLINED;
    }
    c = ap_get_module_config(r->server->module_config, &travel_sandbox_module);
    memset(&resp, 0, sizeof(resp));
    resp.headers = apr_table_make(r->pool, 2);
    st = trv_httpd_read_request(r, c->cfg.max_body, &req);
    req.env = c->env;
    if (st) {
        trv_fail(&req, &resp, st, st == 413 ? "payload_too_large" : "bad_request",
                 "The request body could not be read");
    }
    else if (strncmp(req.path, "/inbox/", 7) == 0) {
        /* Any method, any sub-path: the inbox is named by the first segment. */
        const char *name = req.path + 7;
        const char *slash = strchr(name, '/');
        trv_sandbox_inbox_receive(&req, &resp,
                                  slash ? apr_pstrndup(r->pool, name, (apr_size_t)(slash - name))
                                        : name);
    }
    else {
        trv_dispatch(router, NULL, &req, &resp);
    }
    return trv_httpd_write_response(r, &resp);
}

static void register_hooks(apr_pool_t *p)
{
    static const char *const after_dbd[] = {"mod_dbd.c", NULL};
    (void)p;
    trv_httpd_glue_init(&travel_sandbox_module);
    ap_hook_post_config(post_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_child_init(child_init, after_dbd, NULL, APR_HOOK_MIDDLE);
    ap_hook_handler(handler, NULL, NULL, APR_HOOK_MIDDLE);
}

__attribute__((visibility("default")))
module AP_MODULE_DECLARE_DATA travel_sandbox_module = {
    STANDARD20_MODULE_STUFF,
    NULL,
    NULL,
    create_conf,
    NULL,
    NULL,
    register_hooks,
    AP_MODULE_FLAG_ALWAYS_MERGE
};
