/* mod_travel_sandbox: test mode as a module of its own. Load it and give a
 * virtual host "SetHandler travel-sandbox" to get the sandbox suppliers,
 * payment provider and webhook inbox on that host's port.
 *
 * Directives (server config or virtual host):
 *   TravelSandboxData DIR               the OpenFlights files (airports.dat, ...)
 *   TravelSandboxZoneinfo DIR           TZif files (default /usr/share/zoneinfo)
 *   TravelSandboxApiKey supplier_a|supplier_b|payments|hotel_a KEY
 *   TravelSandboxApiKey hotel_b|hotel_c KEY SECRET   (signed schemes)
 *   TravelSandboxLatency MIN [MAX]      added to every API call (50ms 150ms)
 *   TravelSandboxHang DURATION          how long a book with Unknown hangs (30s)
 *   TravelSandboxAsyncTicketing DURATION  ticketing time of Async (3s)
 *   TravelSandboxSlowCard DURATION      pi_test_slowcard's card is readable after (2s)
 *   TravelSandboxHoldTime DURATION      SUPPLIER_B's itinerary hold (2h)
 *   TravelSandboxDuffelRate N           SUPPLIER_A's (Duffel's) requests a minute
 *                                       per child before it answers 429 (6000) */
#include "faults.h"
#include "gzip.h"
#include "air/duffel.h"
#include "hotel/hotelbeds.h"
#include "hotel/rapid.h"
#include "sandbox.h"
#include "hotel/catalog.h"
#include "core/dispatch.h"
#include "core/ids.h"
#include "core/json_arena.h"
#include "httpd/glue.h"

#include "http_core.h"
#include "http_protocol.h"
#include "http_request.h"
#include "mpm_common.h"

#include "changes.h"

#include <apr_atomic.h>
#include <apr_strings.h>

extern module AP_MODULE_DECLARE_DATA travel_sandbox_module;
APLOG_USE_MODULE(travel_sandbox);

#define UNSET_TIME ((apr_interval_time_t)-1)

typedef struct sbx_conf {
    sbx_ctx *ctx;             /* per child, made in child_init */
    trv_config cfg;
    sbx_settings set;         /* unset: NULL / UNSET_TIME until merged */
} sbx_conf;

static trv_router *router;
static apr_uint32_t stopping;
static int curl_ready;           /* libcurl is initialized once per process */
static const sbx_world *world;   /* loaded in post_config, shared read-only */
static const sbx_hotels *hotels; /* built from the world in post_config, idem */

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
    c->set.latency_min = c->set.latency_max = UNSET_TIME;
    c->set.hang = c->set.async_ticketing = c->set.slow_card = UNSET_TIME;
    c->set.offer_ttl_a = c->set.offer_ttl_b = c->set.hold_ttl = UNSET_TIME;
    return c;
}

#define MERGE_PTR(f) n->set.f = add->set.f ? add->set.f : base->set.f
#define MERGE_TIME(f) n->set.f = add->set.f != UNSET_TIME ? add->set.f : base->set.f

static void *merge_conf(apr_pool_t *p, void *basev, void *addv)
{
    sbx_conf *base = basev, *add = addv, *n = apr_pcalloc(p, sizeof(*n));
    n->cfg = add->cfg;
    MERGE_PTR(data_dir);
    MERGE_PTR(zoneinfo_dir);
    MERGE_PTR(key_a);
    MERGE_PTR(key_b);
    MERGE_PTR(key_pay);
    MERGE_PTR(key_ha);
    MERGE_PTR(key_hb);
    MERGE_PTR(secret_hb);
    MERGE_PTR(key_hc);
    MERGE_PTR(secret_hc);
    MERGE_TIME(latency_min);
    MERGE_TIME(latency_max);
    MERGE_TIME(hang);
    MERGE_TIME(async_ticketing);
    MERGE_TIME(slow_card);
    MERGE_TIME(offer_ttl_a);
    MERGE_TIME(offer_ttl_b);
    MERGE_TIME(hold_ttl);
    n->set.duffel_rate = add->set.duffel_rate ? add->set.duffel_rate : base->set.duffel_rate;
    return n;
}

/* Defaults for whatever the configuration leaves unset. */
static void finish_settings(sbx_settings *s)
{
#define DEFAULT_TIME(f, v) if (s->f == UNSET_TIME) s->f = (v)
    DEFAULT_TIME(latency_min, apr_time_from_msec(50));
    DEFAULT_TIME(latency_max, s->latency_min > apr_time_from_msec(150) ? s->latency_min
                                                                        : apr_time_from_msec(150));
    DEFAULT_TIME(hang, apr_time_from_sec(30));
    DEFAULT_TIME(async_ticketing, apr_time_from_sec(3));
    DEFAULT_TIME(slow_card, apr_time_from_sec(2));
    DEFAULT_TIME(offer_ttl_a, apr_time_from_sec(30 * 60));
    DEFAULT_TIME(offer_ttl_b, apr_time_from_sec(20 * 60));
    DEFAULT_TIME(hold_ttl, apr_time_from_sec(2 * 3600));
#undef DEFAULT_TIME
    if (!s->duffel_rate) {
        s->duffel_rate = SBX_DUFFEL_RATE_LIMIT;
    }
    if (!s->zoneinfo_dir) {
        s->zoneinfo_dir = "/usr/share/zoneinfo";
    }
}

static sbx_conf *conf_of(cmd_parms *cmd)
{
    return ap_get_module_config(cmd->server->module_config, &travel_sandbox_module);
}

static const char *set_data(cmd_parms *cmd, void *d, const char *arg)
{
    (void)d;
    conf_of(cmd)->set.data_dir = ap_server_root_relative(cmd->pool, arg);
    return NULL;
}

static const char *set_zoneinfo(cmd_parms *cmd, void *d, const char *arg)
{
    (void)d;
    conf_of(cmd)->set.zoneinfo_dir = ap_server_root_relative(cmd->pool, arg);
    return NULL;
}

static const char *set_key(cmd_parms *cmd, void *d, const char *api, const char *key,
                           const char *secret)
{
    sbx_settings *s = &conf_of(cmd)->set;
    int signed_api = strcmp(api, "hotel_b") == 0 || strcmp(api, "hotel_c") == 0;
    (void)d;
    if (!*key) {
        return "TravelSandboxApiKey: the key cannot be empty";
    }
    if (signed_api != (secret != NULL) || (secret && !*secret)) {
        return signed_api ? "TravelSandboxApiKey: hotel_b and hotel_c take a KEY and a SECRET"
                          : "TravelSandboxApiKey: only hotel_b and hotel_c take a SECRET";
    }
    if (strcmp(api, "hotel_a") == 0) {
        s->key_ha = key;
        return NULL;
    }
    if (strcmp(api, "hotel_b") == 0) {
        s->key_hb = key;
        s->secret_hb = secret;
        return NULL;
    }
    if (strcmp(api, "hotel_c") == 0) {
        s->key_hc = key;
        s->secret_hc = secret;
        return NULL;
    }
    if (strcmp(api, "supplier_a") == 0) {
        s->key_a = key;
    }
    else if (strcmp(api, "supplier_b") == 0) {
        s->key_b = key;
    }
    else if (strcmp(api, "payments") == 0) {
        s->key_pay = key;
    }
    else {
        return "TravelSandboxApiKey: the API is supplier_a, supplier_b, payments, hotel_a, "
               "hotel_b or hotel_c";
    }
    return NULL;
}

static const char *set_latency(cmd_parms *cmd, void *d, const char *min, const char *max)
{
    sbx_settings *s = &conf_of(cmd)->set;
    const char *err;
    (void)d;
    if ((err = trv_parse_duration(min, &s->latency_min))
        || (max && (err = trv_parse_duration(max, &s->latency_max)))) {
        return apr_psprintf(cmd->pool, "TravelSandboxLatency: %s", err);
    }
    if (!max) {
        s->latency_max = s->latency_min;
    }
    if (s->latency_min < 0 || s->latency_max < s->latency_min) {
        return "TravelSandboxLatency: MIN must be >= 0 and MAX >= MIN";
    }
    return NULL;
}

static const char *set_duffel_rate(cmd_parms *cmd, void *d, const char *arg)
{
    char *end;
    long n = strtol(arg, &end, 10);
    (void)d;
    if (*end || n < 1 || n > 100000000) {
        return "TravelSandboxDuffelRate takes a number of requests a minute, 1 to 100000000";
    }
    conf_of(cmd)->set.duffel_rate = (int)n;
    return NULL;
}

static const char *set_time(cmd_parms *cmd, void *d, const char *arg)
{
    sbx_settings *s = &conf_of(cmd)->set;
    apr_interval_time_t t;
    const char *err = trv_parse_duration(arg, &t);
    const char *name = cmd->cmd->name;
    (void)d;
    if (err) {
        return apr_psprintf(cmd->pool, "%s: %s", name, err);
    }
    if (t < 0) {
        return apr_psprintf(cmd->pool, "%s cannot be negative", name);
    }
    if (strcasecmp(name, "TravelSandboxHang") == 0) {
        s->hang = t;
    }
    else if (strcasecmp(name, "TravelSandboxAsyncTicketing") == 0) {
        s->async_ticketing = t;
    }
    else if (strcasecmp(name, "TravelSandboxSlowCard") == 0) {
        s->slow_card = t;
    }
    else {
        s->hold_ttl = t;
    }
    return NULL;
}

static const command_rec directives[] = {
    AP_INIT_TAKE1("TravelSandboxData", set_data, NULL, RSRC_CONF,
                  "Folder of the OpenFlights files the sandbox airlines fly"),
    AP_INIT_TAKE1("TravelSandboxZoneinfo", set_zoneinfo, NULL, RSRC_CONF,
                  "Folder of the TZif time zone files (/usr/share/zoneinfo)"),
    AP_INIT_TAKE23("TravelSandboxApiKey", set_key, NULL, RSRC_CONF,
                   "supplier_a|supplier_b|payments|hotel_a KEY, or hotel_b|hotel_c KEY SECRET: "
                   "the credentials each simulated API accepts"),
    AP_INIT_TAKE12("TravelSandboxLatency", set_latency, NULL, RSRC_CONF,
                   "Latency added to each API call: MIN [MAX], e.g. 50ms 150ms"),
    AP_INIT_TAKE1("TravelSandboxDuffelRate", set_duffel_rate, NULL, RSRC_CONF,
                  "SUPPLIER_A's requests a minute per child before it answers 429 (6000)"),
    AP_INIT_TAKE1("TravelSandboxHang", set_time, NULL, RSRC_CONF,
                  "How long a book with the Unknown trigger hangs (30s)"),
    AP_INIT_TAKE1("TravelSandboxAsyncTicketing", set_time, NULL, RSRC_CONF,
                  "How long ticketing takes with the Async trigger (3s)"),
    AP_INIT_TAKE1("TravelSandboxSlowCard", set_time, NULL, RSRC_CONF,
                  "When pi_test_slowcard's card details become readable (2s)"),
    AP_INIT_TAKE1("TravelSandboxHoldTime", set_time, NULL, RSRC_CONF,
                  "How long SUPPLIER_B holds an itinerary (2h)"),
    {NULL}
};

static int post_config(apr_pool_t *pconf, apr_pool_t *plog, apr_pool_t *ptemp,
                       server_rec *s)
{
    const char *err, *loaded_from = NULL;
    server_rec *sv;
    (void)plog;
    (void)ptemp;
    if ((err = trv_httpd_dbd_check())) {
        ap_log_error(APLOG_MARK, APLOG_CRIT, 0, s, TRVLOGNO(901) "%s [request_id -]", err);
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    /* The payment provider's vault and forward calls out (pay/forward.c). */
    if (!curl_ready) {
        if (trv_http_global_init() != APR_SUCCESS) {
            ap_log_error(APLOG_MARK, APLOG_CRIT, 0, s,
                         TRVLOGNO(2512) "libcurl failed to initialize [request_id -]");
            return HTTP_INTERNAL_SERVER_ERROR;
        }
        curl_ready = 1;
    }
    if (sbx_changes_init(s->process->pool) != APR_SUCCESS) {
        ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s, TRVLOGNO(3870) "sandbox: no shared "
                     "memory for the settings' version: faults and price factors are read "
                     "on every request [request_id -]");
    }
    world = NULL;
    hotels = NULL;
    for (sv = s; sv; sv = sv->next) {
        sbx_conf *c = ap_get_module_config(sv->module_config, &travel_sandbox_module);
        finish_settings(&c->set);
        if (!c->set.data_dir) {
            continue;
        }
        if (loaded_from && strcmp(loaded_from, c->set.data_dir) != 0) {
            ap_log_error(APLOG_MARK, APLOG_CRIT, 0, s, TRVLOGNO(902)
                         "TravelSandboxData names two folders (%s, %s); use one "
                         "[request_id -]", loaded_from, c->set.data_dir);
            return HTTP_INTERNAL_SERVER_ERROR;
        }
        if (!loaded_from) {
            apr_time_t t0 = apr_time_now();
            /* Once per configuration: every child inherits it by fork. */
            world = sbx_world_load(pconf, c->set.data_dir, c->set.zoneinfo_dir, &err);
            if (!world) {
                ap_log_error(APLOG_MARK, APLOG_CRIT, 0, s, TRVLOGNO(903)
                             "TravelSandboxData %s: %s [request_id -]", c->set.data_dir, err);
                return HTTP_INTERNAL_SERVER_ERROR;
            }
            loaded_from = c->set.data_dir;
            t0 = apr_time_now();
            hotels = sbx_hotels_build(pconf, world, &err);
            if (!hotels) {
                ap_log_error(APLOG_MARK, APLOG_CRIT, 0, s, TRVLOGNO(1708)
                             "sandbox hotels: %s [request_id -]", err);
                return HTTP_INTERNAL_SERVER_ERROR;
            }
            ap_log_error(APLOG_MARK, APLOG_INFO, 0, s, TRVLOGNO(1709)
                         "sandbox: %d hotels in %d cities (A %d, B %d, C %d) built in %"
                         APR_TIME_T_FMT " ms [request_id -]", hotels->n_hotels,
                         hotels->n_cities, hotels->per_supplier[0], hotels->per_supplier[1],
                         hotels->per_supplier[2], apr_time_as_msec(apr_time_now() - t0));
            ap_log_error(APLOG_MARK, APLOG_INFO, 0, s, TRVLOGNO(904)
                         "sandbox: %d airports, %d airlines, %d routes, %d time zones "
                         "loaded in %" APR_TIME_T_FMT " ms [request_id -]",
                         world->n_airports, world->n_airlines, world->n_routes,
                         world->n_zones, apr_time_as_msec(apr_time_now() - t0));
        }
    }
    router = trv_router_make(pconf);
    trv_router_add(router, base_routes);
    trv_router_add(router, trv_sandbox_inbox_routes);
    trv_router_add(router, sbx_air_a_routes);
    trv_router_add(router, sbx_air_b_routes);
    trv_router_add(router, sbx_pay_routes);
    trv_router_add(router, sbx_pay_forward_routes);
    trv_router_add(router, sbx_control_routes);
    trv_router_add(router, sbx_fault_routes);
    trv_router_add(router, sbx_hotel_a_routes);
    trv_router_add(router, sbx_hotel_b_routes);
    trv_router_add(router, sbx_hotel_c_routes);
    trv_router_add(router, sbx_hotel_control_routes);
    trv_router_add(router, sbx_stays_routes);
    trv_router_add(router, sbx_supplier_list_routes);
    return OK;
}

static void child_init(apr_pool_t *pchild, server_rec *s)
{
    server_rec *sv;
    /* The suppliers' search answers (routes flagged TRV_ROUTE_JSON_ARENA)
     * build their Jansson trees in a request arena, as the gateway's
     * search path does: half of their CPU was malloc and free of tree
     * pieces (docs/performance.md). In the child, before its threads. */
    if (trv_json_arena_install() != 0) {
        ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s, TRVLOGNO(3680) "no address space for "
                     "the sandbox's request JSON arena: Jansson keeps malloc [request_id -]");
    }
    for (sv = s; sv; sv = sv->next) {
        sbx_conf *c = ap_get_module_config(sv->module_config, &travel_sandbox_module);
        sbx_ctx *ctx = apr_pcalloc(pchild, sizeof(*ctx));
        ctx->env.log = trv_httpd_server_log(sv);
        ctx->env.db = trv_httpd_dbsrc(pchild, sv);
        ctx->env.cfg = &c->cfg;
        ctx->env.stopping = &stopping;
        ctx->env.http = trv_http_curl_create(pchild, &stopping, 1024 * 1024);
        ctx->set = &c->set;
        ctx->world = c->set.data_dir ? world : NULL;
        ctx->hotels = c->set.data_dir ? hotels : NULL;
        c->ctx = ctx;
    }
}

static void child_stopping(apr_pool_t *pchild, int graceful)
{
    (void)pchild;
    (void)graceful;
    /* Ends the waits of Unknown and of the latency early. */
    apr_atomic_set32(&stopping, 1);
}

/* Uniform in [min, max]: each call of a real API takes its own time. */
static void simulate_latency(const sbx_settings *set, const trv_req *req)
{
    apr_interval_time_t t = set->latency_min;
    if (set->latency_max > set->latency_min) {
        apr_uint32_t r = 0;
        trv_random_bytes((unsigned char *)&r, sizeof(r));
        t += (apr_interval_time_t)(r % (apr_uint32_t)(set->latency_max - set->latency_min + 1));
    }
    if (t > 0 && !TRV_STOPPING(req->env)) {
        apr_sleep(t);
    }
}

/* A fault's "garbage": what a proxy in front of a supplier answers when
 * the supplier is not there, an HTML page where JSON was expected. */
static int write_garbage(request_rec *r, const trv_resp *resp)
{
    static const char page[] = "<html><head><title>Bad Gateway</title></head><body>"
                               "<h1>Bad Gateway</h1><p>The upstream is not answering.</p>"
                               "</body></html>\n";
    r->status = resp->status ? resp->status : HTTP_OK;
    apr_table_overlap(r->headers_out, resp->headers, APR_OVERLAP_TABLES_SET);
    ap_set_content_type(r, "text/html");
    ap_set_content_length(r, (apr_off_t)(sizeof(page) - 1));
    if (!r->header_only) {
        ap_rwrite(page, (int)(sizeof(page) - 1), r);
    }
    return OK;
}

/* A fault's "drop": the connection closes without a byte of answer, as
 * when a supplier's server dies mid-request (before or after it acted). */
static int drop_connection(request_rec *r)
{
    apr_socket_t *sock = ap_get_conn_socket(r->connection);
    r->connection->keepalive = AP_CONN_CLOSE;
    if (sock) {
        apr_socket_shutdown(sock, APR_SHUTDOWN_READWRITE);
    }
    /* Nothing more is written: httpd discards output on an aborted
     * connection and closes it. */
    r->connection->aborted = 1;
    return DONE;
}

static int handler(request_rec *r)
{
    sbx_conf *c;
    trv_req req;
    trv_resp resp;
    sbx_fault_outcome out = SBX_FAULT_NONE;
    int st;

    if (!r->handler || strcmp(r->handler, "travel-sandbox") != 0) {
        return DECLINED;
    }
    c = ap_get_module_config(r->server->module_config, &travel_sandbox_module);
    memset(&resp, 0, sizeof(resp));
    resp.headers = apr_table_make(r->pool, 2);
    st = trv_httpd_read_request(r, c->cfg.max_body, &req);
    req.env = &c->ctx->env;
    if (st) {
        trv_fail(&req, &resp, st, st == 413 ? "payload_too_large" : "bad_request",
                 "The request body could not be read");
    }
    else if (strncmp(req.path, "/inbox/", 7) == 0) {
        /* Any method, any sub-path: the inbox is named by the first segment. */
        const char *name = req.path + 7;
        const char *slash = strchr(name, '/');
        out = trv_sandbox_inbox_receive(&req, &resp,
                                        slash ? apr_pstrndup(r->pool, name,
                                                             (apr_size_t)(slash - name))
                                              : name);
    }
    else {
        if (sbx_duffel_path(req.path)) {
            sbx_duffel_path_fix(&req);
            /* Duffel (Air and Stays) documents no Idempotency-Key and
             * ignores the header: so does the sandbox, from the door. */
            apr_table_unset(req.headers, "Idempotency-Key");
        }
        if (sbx_is_api_path(req.path)) {
            simulate_latency(&c->set, &req);
            out = sbx_api_fault(&req, &resp);
        }
        if ((out == SBX_FAULT_NONE || out == SBX_FAULT_DROP_AFTER)
            && (!sbx_duffel_path(req.path)
                || (sbx_duffel_rate_ok(&req, &resp) && sbx_duffel_version_ok(&req, &resp)))) {
            trv_dispatch(router, sbx_authenticate, &req, &resp);
        }
        if (sbx_duffel_path(req.path)) {
            if (out == SBX_FAULT_ANSWERED) {
                sbx_duffel_rate_fault(&req, &resp);
            }
            sbx_duffel_finish(&req, &resp);
        }
        else if (sbx_hotelbeds_path(req.path)) {
            sbx_hotelbeds_finish(&req, &resp);
        }
        else if (sbx_rapid_path(req.path)) {
            sbx_rapid_finish(&req, &resp);
            sbx_rapid_record(&req, &resp);
        }
    }
    if (out == SBX_FAULT_DROP || out == SBX_FAULT_DROP_AFTER) {
        return drop_connection(r);
    }
    if (out == SBX_FAULT_GARBAGE) {
        return write_garbage(r, &resp);
    }
    if (sbx_hotelbeds_path(req.path)) {
        /* Hotelbeds compresses its answers for clients that accept gzip
         * (and asks them to): so does the sandbox's. */
        sbx_gzip_answer(&req, &resp);
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
    ap_hook_child_stopping(child_stopping, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_handler(handler, NULL, NULL, APR_HOOK_MIDDLE);
}

__attribute__((visibility("default")))
module AP_MODULE_DECLARE_DATA travel_sandbox_module = {
    STANDARD20_MODULE_STUFF,
    NULL,
    NULL,
    create_conf,
    merge_conf,
    directives,
    register_hooks,
    AP_MODULE_FLAG_ALWAYS_MERGE
};
