/* mod_travel: the module record and its hooks. */
#include "travel.h"
#include "gateway/idempotency.h"
#include "account/key_listener.h"
#include "core/dbpool.h"
#include "core/json_arena.h"
#include "core/json_cache.h"
#include "core/text_cache.h"
#include "search_cache.h"

#include "ap_mpm.h"
#include "http_core.h"
#include "http_protocol.h"
#include "http_request.h"
#include "mpm_common.h"

#include <apr_strings.h>
#include <strings.h>

static trv_gateway *gateway;      /* routes; built in post_config */
static apr_array_header_t *worker_sets; /* trv_workers *: one per database */
static apr_uint32_t stopping;     /* this child is stopping */
static trv_http *http_client;     /* this child's upstream client */
static trv_http *webhook_client;  /* this child's webhook sender client */
/* Hotel content of this child's recent search areas (core/json_cache.h):
 * three suppliers' lists of an area each, for a few hundred areas. */
#define CONTENT_CACHE_ENTRIES 512
static trv_json_cache *content_cache;
/* Hotel ids of this child's recent pages, and who sells the hotels of its
 * recent offers (hotel/hotel_store.c), per database: a slot a hotel, at
 * most a few hundred bytes each. */
#define HOTEL_ID_SLOTS 16384
#define HOTEL_SELLER_SLOTS 4096
static struct trv_metrics *metrics; /* shared by the children (metrics.c) */
static struct trv_upstream_limits *supplier_limits; /* the same (supplier_limits.c) */

/* Errors httpd raises itself (before or around the handler) are answered
 * by an internal redirect to this path, which the handler renders as the
 * JSON error envelope: no HTML error page ever leaves /v1. */
#define ERROR_URI "/v1/.error"

static int pre_config(apr_pool_t *pconf, apr_pool_t *plog, apr_pool_t *ptemp)
{
    (void)plog;
    (void)ptemp;
    trv_rate_pre_config(pconf);
    trv_search_cache_pre_config(pconf);
    return OK;
}

/* Also run by configtest (-t), which stops before post_config: a virtual
 * host that shares a database but not its jobs' settings is refused
 * there. */
static int check_config(apr_pool_t *pconf, apr_pool_t *plog, apr_pool_t *ptemp,
                        server_rec *s)
{
    const char *err;
    server_rec *sv;
    (void)plog;
    for (sv = s; sv; sv = sv->next) {
        trv_srv_conf *c = ap_get_module_config(sv->module_config, &travel_module);
        if ((err = trv_finish_srv_conf(pconf, sv, c))) {
            ap_log_error(APLOG_MARK, APLOG_CRIT, 0, sv, TRVLOGNO(502) "%s [request_id -]",
                         err);
            return HTTP_INTERNAL_SERVER_ERROR;
        }
    }
    if ((err = trv_tenants_group(pconf, ptemp, s))) {
        ap_log_error(APLOG_MARK, APLOG_CRIT, 0, s, TRVLOGNO(1650) "%s [request_id -]", err);
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    return OK;
}

static int post_config(apr_pool_t *pconf, apr_pool_t *plog, apr_pool_t *ptemp,
                       server_rec *s)
{
    static int curl_ready;
    const char *err;
    server_rec *sv;
    int any_limit = 0, any_search_cache = 0;
    (void)plog;
    (void)ptemp;

    if ((err = trv_httpd_dbd_check())) {
        ap_log_error(APLOG_MARK, APLOG_CRIT, 0, s, TRVLOGNO(501) "%s [request_id -]", err);
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    /* check_config, run before on every read of the configuration, has
     * finished each server's configuration. */
    for (sv = s; sv; sv = sv->next) {
        trv_srv_conf *c = ap_get_module_config(sv->module_config, &travel_module);
        int i;
        any_limit |= c->rate.key_limit > 0 || c->rate.fail_limit > 0;
        for (i = 0; c->cfg.hotel_upstreams && i < c->cfg.hotel_upstreams->nelts; i++) {
            any_search_cache |=
                APR_ARRAY_IDX(c->cfg.hotel_upstreams, i, trv_upstream).search_cache > 0;
            any_limit |=
                APR_ARRAY_IDX(c->cfg.hotel_upstreams, i, trv_upstream).max_calls_per_second > 0;
        }
        for (i = 0; c->cfg.upstreams && i < c->cfg.upstreams->nelts; i++) {
            any_limit |=
                APR_ARRAY_IDX(c->cfg.upstreams, i, trv_upstream).max_calls_per_second > 0;
        }
    }
    if ((err = trv_rate_post_config(pconf, ptemp, s, any_limit))) {
        ap_log_error(APLOG_MARK, APLOG_CRIT, 0, s, TRVLOGNO(506) "%s [request_id -]", err);
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    if ((err = trv_search_cache_post_config(pconf, ptemp, s, any_search_cache))) {
        ap_log_error(APLOG_MARK, APLOG_CRIT, 0, s, TRVLOGNO(3201) "%s [request_id -]", err);
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    if (!curl_ready) {
        if (trv_http_global_init() != APR_SUCCESS) {
            ap_log_error(APLOG_MARK, APLOG_CRIT, 0, s,
                         TRVLOGNO(503) "libcurl failed to initialize [request_id -]");
            return HTTP_INTERNAL_SERVER_ERROR;
        }
        curl_ready = 1;
    }
    if (trv_gateway_make(pconf, &gateway, &err) != APR_SUCCESS) {
        /* A domain registered something twice or incomplete: a build error
         * that must not start serving. */
        ap_log_error(APLOG_MARK, APLOG_CRIT, 0, s,
                     TRVLOGNO(590) "the domains' registrations are refused: %s "
                     "[request_id -]", err);
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    metrics = trv_httpd_metrics_init(pconf, s, trv_gateway_router(gateway));
    supplier_limits = trv_httpd_supplier_limits_init(pconf, s);
    return OK;
}

static void child_init(apr_pool_t *pchild, server_rec *s)
{
    server_rec *sv;
    trv_srv_conf *main_conf = ap_get_module_config(s->module_config, &travel_module);

    apr_atomic_set32(&stopping, 0);
    /* Here, in the child and before its threads: never in the parent,
     * whose modules are unloaded on a restart while Jansson would still
     * point into this one (core/json_arena.h). */
    if (trv_json_arena_install() != 0) {
        ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s, TRVLOGNO(3240) "no address space for "
                     "the request JSON arena: Jansson keeps malloc [request_id -]");
    }
    trv_rate_child_init(pchild, s);
    trv_search_cache_child_init(pchild, s);
    /* Supplier and payment calls are never aborted when the child stops: a
     * graceful restart lets requests finish, and a call cut short after it
     * went out leaves its outcome unknown (an authorization made, an order
     * placed) for a booking to be settled by hand. They end within their
     * timeouts; a child killed meanwhile is recovered from like any other.
     * Webhook sends are aborted (and sent again by another child): a
     * repeated delivery is allowed, a slow receiver must not hold the
     * child. */
    http_client = trv_http_curl_create(pchild, NULL, main_conf->cfg.max_response);
    content_cache = trv_json_cache_create(pchild, CONTENT_CACHE_ENTRIES);
    webhook_client = trv_http_curl_create(pchild, &stopping, 64 * 1024);
    for (sv = s; sv; sv = sv->next) {
        trv_srv_conf *c = ap_get_module_config(sv->module_config, &travel_module);
        trv_env *env = apr_pcalloc(pchild, sizeof(*env));
        env->log = trv_httpd_server_log(sv);
        env->db = trv_httpd_dbsrc(pchild, sv);
        env->db->unnamed = c->cfg.db_pooled;
        env->db_pool_max = c->dbd_max;
        if (c->cfg.standby_conninfo) {
            const char *err = NULL;
            /* As many as the primary's pool; unused ones close after 60 s. */
            env->standby = trv_dbpool_create(pchild, c->cfg.standby_conninfo,
                                             c->dbd_max > 0 ? c->dbd_max : 6,
                                             apr_time_from_sec(60), &err);
            if (!env->standby) {
                ap_log_error(APLOG_MARK, APLOG_ERR, 0, sv, TRVLOGNO(2802)
                             "TravelStandbyConnInfo: %s; every read goes to the primary "
                             "[request_id -]", err);
            }
        }
        env->http = http_client;
        env->content_cache = c->cfg.content_ttl > 0 ? content_cache : NULL;
        env->search_cache = trv_search_cache();
        env->webhook_http = webhook_client;
        env->cfg = &c->cfg;
        env->registry = trv_gateway_registry(gateway);
        env->stopping = &stopping;
        env->idempotency = trv_gateway_idempotency();
        env->metrics = metrics;
        env->upstream_limits = supplier_limits;
        env->call_counter = trv_rate_call_counter();
        c->env = env;
    }
    /* One worker set, key cache and listener per database (each server's
     * db_leader, tenants.c), not per virtual host. */
    worker_sets = apr_array_make(pchild, 2, sizeof(trv_workers *));
    for (sv = s; sv; sv = sv->next) {
        trv_srv_conf *c = ap_get_module_config(sv->module_config, &travel_module);
        if ((c->db_leader && c->db_leader != sv) || c->no_database) {
            continue;
        }
        c->env->key_cache = trv_key_cache_create(pchild);
        c->env->hotel_ids = trv_text_cache_create(pchild, HOTEL_ID_SLOTS);
        c->env->hotel_sellers = trv_text_cache_create(pchild, HOTEL_SELLER_SLOTS);
        if (c->cfg.worker_threads > 0) {
            APR_ARRAY_PUSH(worker_sets, trv_workers *) =
                trv_workers_start(pchild, sv, c->env, trv_gateway_job_kinds(gateway),
                                  c->cfg.worker_threads);
        }
        /* Keys are cached in this child only while it hears about key
         * changes; the same listener wakes the workers (set up above) on
         * new jobs. */
        trv_key_listener_start(pchild, c->env, c->env->key_cache);
    }
    for (sv = s; sv; sv = sv->next) {
        trv_srv_conf *c = ap_get_module_config(sv->module_config, &travel_module);
        trv_env *lead;
        if (!c->db_leader || c->db_leader == sv) {
            continue;
        }
        lead = ((trv_srv_conf *)ap_get_module_config(c->db_leader->module_config,
                                                     &travel_module))->env;
        c->env->key_cache = lead->key_cache;
        c->env->hotel_ids = lead->hotel_ids;
        c->env->hotel_sellers = lead->hotel_sellers;
        c->env->wake = lead->wake;
        c->env->wake_baton = lead->wake_baton;
        c->env->workers_alive = lead->workers_alive;
    }
}

static void child_stopping(apr_pool_t *pchild, int graceful)
{
    int i;
    (void)pchild;
    (void)graceful;
    apr_atomic_set32(&stopping, 1);
    for (i = 0; worker_sets && i < worker_sets->nelts; i++) {
        trv_workers_stop(APR_ARRAY_IDX(worker_sets, i, trv_workers *));
    }
}

static int handler(request_rec *r)
{
    trv_srv_conf *c;
    trv_req req;
    trv_resp resp;
    int st, redirected;

    if (r->handler && strcmp(r->handler, "travel-metrics") == 0) {
        return trv_httpd_metrics_handler(r);
    }
    if (r->handler && strcmp(r->handler, "travel-dashboard") == 0) {
        return trv_httpd_dashboard_handler(r, gateway);
    }
    if (!r->handler || strcmp(r->handler, "travel") != 0) {
        return DECLINED;
    }
    c = ap_get_module_config(r->server->module_config, &travel_module);
    memset(&resp, 0, sizeof(resp));
    resp.headers = apr_table_make(r->pool, 2);
    redirected = r->prev && strcmp(r->uri, ERROR_URI) == 0;
    /* After an error redirect the body is the original request's business. */
    st = trv_httpd_read_request(r, redirected ? -1 : c->cfg.max_body, &req);
    req.env = c->env;
    if (redirected) {
        const char *status = apr_table_get(r->subprocess_env, "REDIRECT_STATUS");
        trv_gateway_error(&req, &resp, status ? atoi(status) : r->prev->status);
    }
    else if (st) {
        trv_gateway_error(&req, &resp, st);
    }
    else if (trv_rate_admit(r, &c->rate, &req, &resp)) {
        trv_gateway_handle(gateway, &req, &resp);
        trv_rate_after(r, &c->rate, &req, &resp);
    }
    if (resp.status >= 500) {
        /* Every failure answer is in the error log with its request id. */
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                      TRVLOGNO(504) "%s %s answered %d %s [request_id %s]", r->method,
                      r->uri, resp.status, resp.error_code ? resp.error_code : "",
                      req.request_id);
    }
    return trv_httpd_write_response(r, &resp);
}

/* httpd's own error pages under /v1 are the API's JSON envelope instead
 * (ERROR_URI). In any letter case: /V1/flight/bookings is no endpoint (API
 * paths are case-sensitive, and <Location /v1> does not take it), but a
 * client that typed it expects the API's 404, not httpd's HTML page. */
static int post_read_request(request_rec *r)
{
    static const int statuses[] = {400, 401, 403, 404, 405, 408, 411, 413, 414,
                                   415, 417, 431, 500, 501, 502, 503, 504};
    size_t i;
    if (strncasecmp(r->uri, "/v1/", 4) != 0 && strcasecmp(r->uri, "/v1") != 0) {
        return DECLINED;
    }
    for (i = 0; i < sizeof(statuses) / sizeof(statuses[0]); i++) {
        ap_custom_response(r, statuses[i], ERROR_URI);
    }
    return DECLINED;
}

/* API paths are not files. Left to httpd's core, a /v1 path is merged with
 * DocumentRoot and walked directory by directory: a long path then fails
 * with "File name too long" (AH00127, 403) and a directory that happens to
 * exist changes the answer. A request whose location is handled by
 * mod_travel gets a filename that names no file, and the storage walk is
 * skipped for it (as mod_proxy does for its URLs); <Location> sections
 * still apply. */
#define TRV_FILENAME "travel:"

static int claims(request_rec *r)
{
    core_dir_config *d = ap_get_core_module_config(r->per_dir_config);
    const char *err = NULL, *h;
    if (!d || !d->expr_handler) {
        return 0;
    }
    h = ap_expr_str_exec(r, d->expr_handler, &err);
    return !err && h && strcmp(h, "travel") == 0;
}

static int translate_name(request_rec *r)
{
    if (!r->uri || r->uri[0] != '/' || !claims(r)) {
        return DECLINED;
    }
    r->filename = apr_pstrcat(r->pool, TRV_FILENAME, r->uri, NULL);
    return OK;
}

static int map_to_storage(request_rec *r)
{
    return r->filename && strncmp(r->filename, TRV_FILENAME, sizeof(TRV_FILENAME) - 1) == 0
               ? OK : DECLINED;
}

static void register_hooks(apr_pool_t *p)
{
    static const char *const after_dbd[] = {"mod_dbd.c", NULL};
    (void)p;
    trv_httpd_glue_init(&travel_module);
    ap_hook_pre_config(pre_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_check_config(check_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_post_config(post_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_child_init(child_init, after_dbd, NULL, APR_HOOK_MIDDLE);
    ap_hook_child_stopping(child_stopping, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_post_read_request(post_read_request, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_translate_name(translate_name, NULL, NULL, APR_HOOK_FIRST);
    ap_hook_map_to_storage(map_to_storage, NULL, NULL, APR_HOOK_FIRST);
    ap_hook_handler(handler, NULL, NULL, APR_HOOK_MIDDLE);
    trv_httpd_metrics_hooks();
    trv_httpd_supplier_limits_hooks();
}

__attribute__((visibility("default")))
module AP_MODULE_DECLARE_DATA travel_module = {
    STANDARD20_MODULE_STUFF,
    NULL,
    NULL,
    trv_create_srv_conf,
    trv_merge_srv_conf,
    trv_directives,
    register_hooks,
    AP_MODULE_FLAG_ALWAYS_MERGE
};
