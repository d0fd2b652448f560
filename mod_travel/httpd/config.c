/* The directives. Each field starts unset and a virtual host inherits what
 * it leaves unset from the main server (the only merge rule). */
#include "travel.h"
#include "search_cache.h"
#include "core/call_budget.h"

#include "http_config.h"

#include <apr_file_io.h>
#include <apr_strings.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define UNSET -1

/* Every directive that takes one duration: where it is kept, its default and
 * its range. One table serves the directive's setter, the per-vhost merge and
 * the defaults, so a new duration is one row. */
typedef struct {
    const char *name;
    apr_size_t offset;              /* of its apr_interval_time_t in trv_config */
    apr_interval_time_t dflt;
    apr_interval_time_t min, max;   /* max 0: no upper bound */
    const char *range;              /* how configtest states [min, max] */
    int zero_words;                 /* "0" (and "off") set 0, below min */
    int global_only;
} trv_duration_slot;

#define SLOT(f) APR_OFFSETOF(trv_config, f)

static const trv_duration_slot duration_slots[] = {
    {"TravelJobLease", SLOT(job_lease), TRV_DEFAULT_LEASE, 1, 0, NULL, 0, 0},
    {"TravelJobPollInterval", SLOT(job_poll), TRV_DEFAULT_POLL, 1, 0, NULL, 0, 0},
    {"TravelWatchInterval", SLOT(watch_interval), TRV_DEFAULT_WATCH_INTERVAL, 1, 0, NULL,
     0, 1},
    {"TravelWebhookDisableAfter", SLOT(webhook_disable_after),
     TRV_DEFAULT_WEBHOOK_DISABLE_AFTER, 1, 0, NULL, 0, 0},
    {"TravelWebhookRetention", SLOT(webhook_retention), TRV_DEFAULT_WEBHOOK_RETENTION, 1, 0,
     NULL, 0, 0},
    {"TravelNotifyCheck", SLOT(notify_check), TRV_DEFAULT_NOTIFY_CHECK, 1, 0, NULL, 0, 0},
    {"TravelSearchDeadline", SLOT(search_deadline), TRV_DEFAULT_SEARCH_DEADLINE,
     apr_time_from_msec(100), apr_time_from_sec(120), "from 100ms to 120s", 0, 0},
    {"TravelHotelContentCache", SLOT(content_ttl), TRV_DEFAULT_CONTENT_TTL, 1, 0, NULL, 1, 0},
    {"TravelSupplierLimitWait", SLOT(supplier_limit_wait), TRV_DEFAULT_SUPPLIER_LIMIT_WAIT,
     1, apr_time_from_sec(60), "from 0 (never wait) to 60s", 1, 0},
};

#define N_DURATION_SLOTS (sizeof(duration_slots) / sizeof(duration_slots[0]))

static apr_interval_time_t *duration_field(trv_config *cfg, const trv_duration_slot *slot)
{
    return (apr_interval_time_t *)((char *)cfg + slot->offset);
}

static const trv_duration_slot *duration_slot_named(const char *name)
{
    apr_size_t i;
    for (i = 0; i < N_DURATION_SLOTS; i++) {
        if (strcmp(duration_slots[i].name, name) == 0) {
            return &duration_slots[i];
        }
    }
    return NULL;
}

void *trv_create_srv_conf(apr_pool_t *p, server_rec *s)
{
    trv_srv_conf *c = apr_pcalloc(p, sizeof(*c));
    apr_size_t i;
    (void)s;
    c->cfg.upstreams = apr_array_make(p, 4, sizeof(trv_upstream));
    c->cfg.hotel_upstreams = apr_array_make(p, 4, sizeof(trv_upstream));
    c->cfg.flight_rows = apr_array_make(p, 4, sizeof(trv_supplier));
    c->cfg.hotel_rows = apr_array_make(p, 4, sizeof(trv_supplier));
    c->cfg.worker_threads = UNSET;
    c->cfg.max_body = UNSET;
    c->cfg.webhook_max_per_second = UNSET;
    c->cfg.db_pooled = UNSET;
    c->cfg.max_response = 0;
    for (i = 0; i < N_DURATION_SLOTS; i++) {
        *duration_field(&c->cfg, &duration_slots[i]) = UNSET;
    }
    trv_rate_conf_init(&c->rate);
    return c;
}

#define MERGE(f) n->cfg.f = (add->cfg.f != UNSET ? add->cfg.f : base->cfg.f)
#define MERGE_PTR(f) n->cfg.f = (add->cfg.f ? add->cfg.f : base->cfg.f)

void *trv_merge_srv_conf(apr_pool_t *p, void *basev, void *addv)
{
    trv_srv_conf *base = basev, *add = addv;
    trv_srv_conf *n = apr_pcalloc(p, sizeof(*n));
    apr_size_t i;
    for (i = 0; i < N_DURATION_SLOTS; i++) {
        apr_interval_time_t a = *duration_field(&add->cfg, &duration_slots[i]);
        *duration_field(&n->cfg, &duration_slots[i]) =
            a != UNSET ? a : *duration_field(&base->cfg, &duration_slots[i]);
    }
    n->cfg.upstreams = add->upstreams_set ? add->cfg.upstreams : base->cfg.upstreams;
    n->cfg.flight_rows = add->upstreams_set ? add->cfg.flight_rows : base->cfg.flight_rows;
    n->upstreams_set = add->upstreams_set || base->upstreams_set;
    n->cfg.hotel_upstreams = add->hotel_upstreams_set ? add->cfg.hotel_upstreams
                                                      : base->cfg.hotel_upstreams;
    n->cfg.hotel_rows = add->hotel_upstreams_set ? add->cfg.hotel_rows : base->cfg.hotel_rows;
    n->hotel_upstreams_set = add->hotel_upstreams_set || base->hotel_upstreams_set;
    MERGE_PTR(payment);
    MERGE(worker_threads);
    MERGE_PTR(retry_schedule);
    MERGE(max_body);
    MERGE_PTR(webhook_allow);
    MERGE(webhook_max_per_second);
    MERGE(db_pooled);
    MERGE_PTR(notify_conninfo);
    MERGE_PTR(standby_conninfo);
    trv_rate_conf_merge(&n->rate, &base->rate, &add->rate);
    n->cfg.max_response = add->cfg.max_response ? add->cfg.max_response
                                                : base->cfg.max_response;
    if (add->cfg.have_secret_key) {
        n->cfg.secret_key_file = add->cfg.secret_key_file;
        memcpy(n->cfg.secret_key, add->cfg.secret_key, sizeof(n->cfg.secret_key));
        n->cfg.have_secret_key = 1;
    }
    else {
        n->cfg.secret_key_file = base->cfg.secret_key_file;
        memcpy(n->cfg.secret_key, base->cfg.secret_key, sizeof(n->cfg.secret_key));
        n->cfg.have_secret_key = base->cfg.have_secret_key;
    }
    return n;
}

/* Settings of the whole process, not of a tenant: the upstream client
 * (TravelUpstreamMaxResponse) is one per child and the rate-limit cache one
 * per server. Everything else may differ per <VirtualHost>; virtual hosts
 * that share a database must agree on what its jobs use (tenants.c). */
#define GLOBAL_ONLY_CHECK(cmd) \
    do { \
        const char *ctx_err = ap_check_cmd_context((cmd), GLOBAL_ONLY); \
        if (ctx_err) { \
            return ctx_err; \
        } \
    } while (0)

static trv_srv_conf *conf_of(cmd_parms *cmd)
{
    return ap_get_module_config(cmd->server->module_config, &travel_module);
}

/* A key or secret kept in a file (relative to ServerRoot, at most 4 KB,
 * trailing white space dropped), or NULL when it cannot be read. */
static const char *read_key_file(cmd_parms *cmd, const char *val)
{
    char *buf;
    apr_size_t len;
    apr_file_t *f;
    apr_finfo_t fi;
    const char *path = ap_server_root_relative(cmd->temp_pool, val);
    if (!path || apr_file_open(&f, path, APR_READ, 0, cmd->temp_pool) != APR_SUCCESS) {
        return NULL;
    }
    if (apr_file_info_get(&fi, APR_FINFO_SIZE, f) != APR_SUCCESS || fi.size > 4096) {
        apr_file_close(f);
        return NULL;
    }
    len = (apr_size_t)fi.size;
    buf = apr_palloc(cmd->pool, len + 1);
    apr_file_read_full(f, buf, len, &len);
    apr_file_close(f);
    while (len && isspace((unsigned char)buf[len - 1])) {
        len--;
    }
    buf[len] = '\0';
    return buf;
}

/* The option names key and key_file set *out (a file is read now, so
 * configtest catches an unreadable one); 0 when key is neither, else 1 with
 * *err set when the file cannot be read. */
static int credential_option(cmd_parms *cmd, const char *name, const char *key,
                             const char *val, const char **out, const char **err)
{
    size_t n = name ? strlen(name) : 0;
    if (!name || strncmp(key, name, n) != 0 || (key[n] && strcmp(key + n, "_file") != 0)) {
        return 0;
    }
    if (!key[n]) {
        *out = val;
    }
    else if (!(*out = read_key_file(cmd, val))) {
        *err = apr_psprintf(cmd->pool, "cannot read %s %s", key, val);
    }
    return 1;
}

/* The options of an upstream line: the credentials creds names (as
 * <name>=... or <name>_file=...), connect_timeout and timeout. */
static const char *upstream_options(cmd_parms *cmd, trv_upstream *u, const char *args,
                                    const trv_supplier_creds *creds)
{
    const char *word;
    u->connect_timeout = TRV_DEFAULT_CONNECT_TIMEOUT;
    u->timeout = TRV_DEFAULT_TIMEOUT;
    while (*(word = ap_getword_conf(cmd->temp_pool, &args))) {
        char *eq = strchr(word, '=');
        const char *key, *val, *err = NULL;
        if (!eq) {
            return apr_psprintf(cmd->pool, "%s: option '%s' must be key=value",
                                cmd->cmd->name, word);
        }
        key = apr_pstrndup(cmd->temp_pool, word, (apr_size_t)(eq - word));
        val = apr_pstrdup(cmd->pool, eq + 1);
        if (credential_option(cmd, creds->key, key, val, &u->api_key, &err)
            || credential_option(cmd, creds->secret, key, val, &u->api_secret, &err)) {
            if (err) {
                return apr_psprintf(cmd->pool, "%s: %s", cmd->cmd->name, err);
            }
        }
        else if (creds->second_base && strcmp(key, creds->second_base) == 0) {
            if ((err = trv_check_base_url(val))) {
                return apr_psprintf(cmd->pool, "%s %s: %s %s", cmd->cmd->name, u->name, key,
                                    err);
            }
            u->second_base_url = val;
        }
        else if (strcmp(key, "connect_timeout") == 0) {
            err = trv_parse_duration(val, &u->connect_timeout);
        }
        else if (strcmp(key, "timeout") == 0) {
            err = trv_parse_duration(val, &u->timeout);
        }
        else if (strcmp(key, "max_calls_per_second") == 0 && u->protocol) {
            char *end;
            long n = strtol(val, &end, 10);
            if (!*val || *end || n < 1 || n > TRV_CALL_BUDGET_MAX) {
                err = apr_psprintf(cmd->pool, "must be a whole number from 1 to %d",
                                   TRV_CALL_BUDGET_MAX);
            }
            u->max_calls_per_second = n;
        }
        else if (strcmp(key, "search_cache") == 0 && u->protocol
                 && strcmp(cmd->cmd->name, "TravelHotelSupplier") == 0) {
            err = trv_parse_duration(val, &u->search_cache);
            if (!err && u->search_cache > apr_time_from_sec(3600)) {
                err = "must be at most 1h (a search's prices go stale)";
            }
        }
        else {
            return apr_psprintf(cmd->pool, "%s: unknown option '%s' (known: %s, %s_file, "
                                "%s%s%s%s%sconnect_timeout, timeout%s%s)",
                                cmd->cmd->name, key, creds->key, creds->key,
                                creds->secret ? creds->secret : "",
                                creds->secret ? ", " : "",
                                creds->secret ? apr_pstrcat(cmd->temp_pool, creds->secret,
                                                            "_file, ", NULL) : "",
                                creds->second_base ? creds->second_base : "",
                                creds->second_base ? ", " : "",
                                u->protocol ? ", max_calls_per_second" : "",
                                u->protocol && strcmp(cmd->cmd->name,
                                                      "TravelHotelSupplier") == 0
                                    ? ", search_cache" : "");
        }
        if (err) {
            return apr_psprintf(cmd->pool, "%s: %s %s", cmd->cmd->name, key, err);
        }
    }
    if (u->connect_timeout <= 0 || u->timeout <= 0) {
        return apr_psprintf(cmd->pool, "%s: timeouts must be positive", cmd->cmd->name);
    }
    return NULL;
}

/* The protocol a supplier line names, looked up among every domain's
 * protocols; NULL with *err saying why when it is unknown or belongs under
 * the other directive. */
static const trv_supplier *line_protocol(cmd_parms *cmd, const char *domain,
                                         const char *name, const char *protocol,
                                         const char **err)
{
    const trv_supplier *row = trv_protocol_lookup(trv_gateway_domains(), protocol);
    const char *dir = cmd->cmd->name;
    if (!row) {
        const trv_supplier *r;
        const trv_domain *const *d;
        const char *known = "";
        for (d = trv_gateway_domains(); *d; d++) {
            for (r = strcmp((*d)->name, domain) == 0 ? (*d)->suppliers : NULL; r && r->name;
                 r++) {
                known = apr_pstrcat(cmd->temp_pool, known, *known ? ", " : "", r->name, NULL);
            }
        }
        *err = apr_psprintf(cmd->pool, "%s %s: unknown protocol '%s' (%s protocols: %s; the "
                            "line is %s NAME PROTOCOL BASE_URL credentials...)", dir, name,
                            protocol, domain, known, dir);
        return NULL;
    }
    if (strcmp(row->domain, domain) != 0) {
        *err = apr_psprintf(cmd->pool, "%s %s: protocol %s is a %s protocol: it belongs on a "
                            "%s line", dir, name, protocol, row->domain,
                            strcmp(row->domain, "hotel") == 0 ? "TravelHotelSupplier"
                                                               : "TravelSupplier");
        return NULL;
    }
    return row;
}

/* TravelSupplier (flights) and TravelHotelSupplier (hotels): the same line,
 * each domain's own list, since both domains name suppliers SUPPLIER_A...:
 * NAME (the wire name the API shows), PROTOCOL (the adapter that speaks the
 * vendor's API), BASE_URL and the protocol's credentials. */
static const char *set_supplier(cmd_parms *cmd, void *d, const char *args)
{
    trv_srv_conf *c = conf_of(cmd);
    const char *domain = cmd->info;
    int hotel = strcmp(domain, "hotel") == 0;
    const char *dir = cmd->cmd->name;
    const trv_supplier *proto;
    trv_upstream u;
    const char *err = NULL;
    const char *s;
    (void)d;
    memset(&u, 0, sizeof(u));
    u.name = ap_getword_conf(cmd->pool, &args);
    u.protocol = ap_getword_conf(cmd->pool, &args);
    u.base_url = ap_getword_conf(cmd->pool, &args);
    if (!*u.name || !*u.protocol || !*u.base_url) {
        return apr_psprintf(cmd->pool, "%s takes a name, a protocol, a base URL and "
                            "options: %s", dir, hotel
                            ? "TravelHotelSupplier LITEAPI liteapi "
                              "https://api.liteapi.travel/v3.0 api_key_file=..."
                            : "TravelSupplier DUFFEL duffel https://api.duffel.com "
                              "token_file=...");
    }
    for (s = u.name; *s; s++) {
        if (!(isupper((unsigned char)*s) || isdigit((unsigned char)*s) || *s == '_')) {
            return apr_psprintf(cmd->pool, "%s: name '%s' must be upper-case "
                                "letters, digits and _ (e.g. SUPPLIER_A)", dir, u.name);
        }
    }
    if (trv_config_supplier(&c->cfg, domain, u.name)) {
        return apr_psprintf(cmd->pool, "%s %s is configured twice", dir, u.name);
    }
    if (!(proto = line_protocol(cmd, domain, u.name, u.protocol, &err))) {
        return err;
    }
    if ((err = trv_check_base_url(u.base_url))) {
        return apr_psprintf(cmd->pool, "%s %s: base URL %s", dir, u.name, err);
    }
    if ((err = upstream_options(cmd, &u, args, &proto->creds))) {
        return err;
    }
    if (!u.api_key || (proto->creds.secret && !u.api_secret)) {
        const char *missing = !u.api_key ? proto->creds.key : proto->creds.secret;
        return apr_psprintf(cmd->pool, "%s %s: protocol %s needs the credential %s "
                            "(%s=... or %s_file=...)", dir, u.name, u.protocol, missing,
                            missing, missing);
    }
    if (proto->creds.second_base && !u.second_base_url) {
        return apr_psprintf(cmd->pool, "%s %s: protocol %s needs %s=... (the vendor's second "
                            "base URL)", dir, u.name, u.protocol, proto->creds.second_base);
    }
    trv_config_add_supplier(cmd->pool, &c->cfg, &u, proto);
    if (hotel) {
        c->hotel_upstreams_set = 1;
    }
    else {
        c->upstreams_set = 1;
    }
    return NULL;
}

static const char *set_payment(cmd_parms *cmd, void *d, const char *args)
{
    static const trv_supplier_creds payment_creds = {"api_key", NULL};
    trv_srv_conf *c = conf_of(cmd);
    trv_upstream *u = apr_pcalloc(cmd->pool, sizeof(*u));
    const char *err;
    (void)d;
    u->name = "PAYMENT";
    u->base_url = ap_getword_conf(cmd->pool, &args);
    if ((err = trv_check_base_url(u->base_url))) {
        return apr_psprintf(cmd->pool, "TravelPaymentProvider: base URL %s", err);
    }
    if ((err = upstream_options(cmd, u, args, &payment_creds))) {
        return err;
    }
    c->cfg.payment = u;
    return NULL;
}

static const char *set_workers(cmd_parms *cmd, void *d, const char *arg)
{
    char *end;
    long n = strtol(arg, &end, 10);
    (void)d;
    if (*end || n < 0 || n > 64) {
        return "TravelWorkerThreads must be a number from 0 to 64";
    }
    conf_of(cmd)->cfg.worker_threads = (int)n;
    return NULL;
}

static const char *set_webhook_rate(cmd_parms *cmd, void *d, const char *arg)
{
    char *end;
    long n = strtol(arg, &end, 10);
    (void)d;
    if (strcmp(arg, "off") == 0) {
        n = 0;
    }
    else if (*end || end == arg || n < 1 || n > 1000) {
        return "TravelWebhookMaxPerSecond must be off or a number from 1 to 1000";
    }
    conf_of(cmd)->cfg.webhook_max_per_second = (int)n;
    return NULL;
}

static const char *set_retry(cmd_parms *cmd, void *d, const char *args)
{
    trv_srv_conf *c = conf_of(cmd);
    apr_array_header_t *a = apr_array_make(cmd->pool, 8, sizeof(apr_interval_time_t));
    const char *word;
    (void)d;
    while (*(word = ap_getword_conf(cmd->temp_pool, &args))) {
        apr_interval_time_t t;
        const char *err = trv_parse_duration(word, &t);
        if (err) {
            return apr_psprintf(cmd->pool, "TravelWebhookRetrySchedule: '%s' %s", word, err);
        }
        if (t <= 0) {
            return "TravelWebhookRetrySchedule: delays must be positive";
        }
        APR_ARRAY_PUSH(a, apr_interval_time_t) = t;
    }
    if (a->nelts == 0 || a->nelts > 20) {
        return "TravelWebhookRetrySchedule takes 1 to 20 delays, e.g. 1m 5m 30m 2h 12h 24h";
    }
    c->cfg.retry_schedule = a;
    return NULL;
}

static const char *set_size(cmd_parms *cmd, const char *arg, apr_off_t *out)
{
    const char *err = trv_parse_size(arg, out);
    return err ? apr_psprintf(cmd->pool, "%s %s", cmd->cmd->name, err) : NULL;
}

static const char *set_max_body(cmd_parms *cmd, void *d, const char *arg)
{
    (void)d;
    return set_size(cmd, arg, &conf_of(cmd)->cfg.max_body);
}

static const char *set_max_response(cmd_parms *cmd, void *d, const char *arg)
{
    apr_off_t n;
    const char *err = set_size(cmd, arg, &n);
    GLOBAL_ONLY_CHECK(cmd);
    (void)d;
    if (!err) {
        conf_of(cmd)->cfg.max_response = (apr_size_t)n;
    }
    return err;
}

static const char *set_allow(cmd_parms *cmd, void *d, const char *arg)
{
    trv_srv_conf *c = conf_of(cmd);
    trv_cidr net;
    const char *err = trv_parse_cidr(cmd->pool, arg, &net);
    (void)d;
    if (err) {
        return apr_psprintf(cmd->pool, "TravelWebhookAllowNetwork: '%s' %s", arg, err);
    }
    if (!c->cfg.webhook_allow) {
        c->cfg.webhook_allow = apr_array_make(cmd->pool, 4, sizeof(trv_cidr));
    }
    APR_ARRAY_PUSH(c->cfg.webhook_allow, trv_cidr) = net;
    return NULL;
}

static const char *set_duration(cmd_parms *cmd, const char *arg,
                                apr_interval_time_t *out)
{
    const char *err = trv_parse_duration(arg, out);
    if (err) {
        return apr_psprintf(cmd->pool, "%s %s", cmd->cmd->name, err);
    }
    if (*out <= 0) {
        return apr_psprintf(cmd->pool, "%s must be positive", cmd->cmd->name);
    }
    return NULL;
}

static const char *set_duration_slot(cmd_parms *cmd, void *d, const char *arg)
{
    const trv_duration_slot *slot = duration_slot_named(cmd->cmd->name);
    apr_interval_time_t t = 0;
    const char *err = NULL;
    (void)d;
    if (slot->global_only) {
        GLOBAL_ONLY_CHECK(cmd);
    }
    if (!(slot->zero_words && (strcmp(arg, "0") == 0 || strcasecmp(arg, "off") == 0))) {
        err = set_duration(cmd, arg, &t);
        if (err) {
            return err;
        }
        if (t < slot->min || (slot->max && t > slot->max)) {
            return apr_psprintf(cmd->pool, "%s: %s", cmd->cmd->name, slot->range);
        }
    }
    *duration_field(&conf_of(cmd)->cfg, slot) = t;
    return NULL;
}

static const char *set_db_mode(cmd_parms *cmd, void *d, const char *arg)
{
    (void)d;
    if (strcasecmp(arg, "direct") == 0) {
        conf_of(cmd)->cfg.db_pooled = 0;
    }
    else if (strcasecmp(arg, "pooled") == 0) {
        conf_of(cmd)->cfg.db_pooled = 1;
    }
    else {
        return "TravelDBMode is direct (DBDParams names PostgreSQL itself) or pooled "
               "(a transaction-pooling PgBouncer)";
    }
    return NULL;
}

static const char *set_notify_conninfo(cmd_parms *cmd, void *d, const char *arg)
{
    (void)d;
    if (!*arg) {
        return "TravelNotifyConnInfo needs a libpq connection string";
    }
    conf_of(cmd)->cfg.notify_conninfo = arg;
    return NULL;
}

static const char *set_standby_conninfo(cmd_parms *cmd, void *d, const char *arg)
{
    (void)d;
    if (!*arg) {
        return "TravelStandbyConnInfo needs a libpq connection string";
    }
    conf_of(cmd)->cfg.standby_conninfo = arg;
    return NULL;
}

static const char *read_secret_key(apr_pool_t *p, trv_config *cfg)
{
    apr_file_t *f;
    char buf[130];
    apr_size_t len = sizeof(buf) - 1;
    int i;
    if (apr_file_open(&f, cfg->secret_key_file, APR_READ, 0, p) != APR_SUCCESS) {
        return apr_psprintf(p, "TravelSecretKeyFile %s cannot be read",
                            cfg->secret_key_file);
    }
    apr_file_read(f, buf, &len);
    apr_file_close(f);
    while (len && isspace((unsigned char)buf[len - 1])) {
        len--;
    }
    if (len != 64) {
        return apr_psprintf(p, "TravelSecretKeyFile %s must hold 64 hex digits "
                            "(e.g. from: openssl rand -hex 32)", cfg->secret_key_file);
    }
    for (i = 0; i < 32; i++) {
        char hx[3] = {buf[2 * i], buf[2 * i + 1], 0};
        char *end;
        long v = strtol(hx, &end, 16);
        if (*end || !isxdigit((unsigned char)hx[0])) {
            return apr_psprintf(p, "TravelSecretKeyFile %s must hold 64 hex digits",
                                cfg->secret_key_file);
        }
        cfg->secret_key[i] = (unsigned char)v;
    }
    cfg->have_secret_key = 1;
    return NULL;
}

/* Read here, at configuration time, so `apachectl configtest` catches a
 * missing or malformed key file. */
static const char *set_secret_file(cmd_parms *cmd, void *d, const char *arg)
{
    trv_config *cfg = &conf_of(cmd)->cfg;
    (void)d;
    cfg->secret_key_file = ap_server_root_relative(cmd->pool, arg);
    if (!cfg->secret_key_file) {
        return apr_psprintf(cmd->pool, "TravelSecretKeyFile: invalid path %s", arg);
    }
    return read_secret_key(cmd->pool, cfg);
}

/* Rate limits may differ per virtual host; the cache they count in is one
 * for the server. */
static const char *set_rate(cmd_parms *cmd, void *d, const char *args)
{
    trv_rate_conf *rc = &conf_of(cmd)->rate;
    int per_key = cmd->info != NULL;
    long *limit = per_key ? &rc->key_limit : &rc->fail_limit;
    apr_interval_time_t *window = per_key ? &rc->key_window : &rc->fail_window;
    const char *err;
    (void)d;
    *window = per_key ? apr_time_from_sec(1) : apr_time_from_sec(60);
    err = trv_rate_parse(cmd->temp_pool, args, limit, window);
    return err ? apr_psprintf(cmd->pool, "%s %s", cmd->cmd->name, err) : NULL;
}

static const char *set_rate_cache(cmd_parms *cmd, void *d, const char *arg)
{
    GLOBAL_ONLY_CHECK(cmd);
    (void)d;
    return trv_rate_set_cache(cmd->pool, arg);
}

static const char *set_search_cache_store(cmd_parms *cmd, void *d, const char *arg)
{
    GLOBAL_ONLY_CHECK(cmd);
    (void)d;
    return trv_search_cache_set_store(cmd->pool, arg);
}

const command_rec trv_directives[] = {
    AP_INIT_RAW_ARGS("TravelSupplier", set_supplier, (void *)"flight", RSRC_CONF,
        "NAME PROTOCOL BASE_URL credentials (as the protocol names them, e.g. token=... or "
        "token_file=...) [connect_timeout=5s] [timeout=30s]"),
    AP_INIT_RAW_ARGS("TravelHotelSupplier", set_supplier, (void *)"hotel", RSRC_CONF,
        "NAME PROTOCOL BASE_URL credentials (as the protocol names them, e.g. api_key=... or "
        "api_key_file=..., api_secret=...) [connect_timeout=5s] [timeout=30s]"),
    AP_INIT_RAW_ARGS("TravelPaymentProvider", set_payment, NULL, RSRC_CONF,
        "BASE_URL [api_key=...|api_key_file=...] [connect_timeout=5s] [timeout=30s]"),
    AP_INIT_TAKE1("TravelWorkerThreads", set_workers, NULL, RSRC_CONF,
        "background worker threads per child (0-64, default 2)"),
    AP_INIT_RAW_ARGS("TravelWebhookRetrySchedule", set_retry, NULL, RSRC_CONF,
        "delays between webhook attempts (default 1m 5m 30m 2h 12h 24h)"),
    AP_INIT_TAKE1("TravelWebhookMaxPerSecond", set_webhook_rate, NULL, RSRC_CONF,
        "webhook requests per second to a subscription without max_per_second "
        "(1-1000, or off: the default)"),
    AP_INIT_TAKE1("TravelWebhookDisableAfter", set_duration_slot, NULL, RSRC_CONF,
        "how long a webhook subscription may fail every request before it is disabled "
        "(default 5d)"),
    AP_INIT_TAKE1("TravelWebhookRetention", set_duration_slot, NULL, RSRC_CONF,
        "how long webhook deliveries, attempts and events are kept (default 30d)"),
    AP_INIT_TAKE1("TravelMaxBodySize", set_max_body, NULL, RSRC_CONF,
        "largest accepted request body (default 1M)"),
    AP_INIT_TAKE1("TravelUpstreamMaxResponse", set_max_response, NULL, RSRC_CONF,
        "largest accepted supplier response (default 8M)"),
    AP_INIT_ITERATE("TravelWebhookAllowNetwork", set_allow, NULL, RSRC_CONF,
        "networks (CIDR) allowed as webhook targets despite the SSRF rules; "
        "http:// is accepted only inside them"),
    AP_INIT_TAKE1("TravelJobLease", set_duration_slot, NULL, RSRC_CONF,
        "how long a claimed background job is reserved (default 60s)"),
    AP_INIT_TAKE1("TravelJobPollInterval", set_duration_slot, NULL, RSRC_CONF,
        "how often idle workers look for due jobs (default 500ms)"),
    AP_INIT_TAKE1("TravelSearchDeadline", set_duration_slot, NULL, RSRC_CONF,
        "how long hotel search and offers wait for their suppliers (default 8s)"),
    AP_INIT_TAKE1("TravelHotelContentCache", set_duration_slot, NULL, RSRC_CONF,
        "how long each process keeps a hotel supplier's content of an area (default 1h; off)"),
    AP_INIT_TAKE1("TravelSupplierLimitWait", set_duration_slot, NULL, RSRC_CONF,
        "how long a supplier call waits for the supplier's rate limit to end before it is "
        "refused (default 1s; 0 = never wait)"),
    AP_INIT_TAKE1("TravelWatchInterval", set_duration_slot, NULL, RSRC_CONF,
        "time between two price checks of one watch (default 15m)"),
    AP_INIT_TAKE1("TravelSecretKeyFile", set_secret_file, NULL, RSRC_CONF,
        "file holding the 32-byte key (64 hex digits) that encrypts secrets at rest"),
    AP_INIT_RAW_ARGS("TravelRateLimit", set_rate, (void *)"key", RSRC_CONF,
        "requests per API key per window: N [WINDOW] (window default 1s; 0 = off, "
        "the default)"),
    AP_INIT_RAW_ARGS("TravelAuthFailLimit", set_rate, NULL, RSRC_CONF,
        "failed API key attempts per client address per window: N [WINDOW] "
        "(window default 60s; 0 = off, the default)"),
    AP_INIT_TAKE1("TravelRateLimitCache", set_rate_cache, NULL, RSRC_CONF,
        "socache provider[:args] the rate limits count in (default shmcb)"),
    AP_INIT_TAKE1("TravelSearchCacheStore", set_search_cache_store, NULL, RSRC_CONF,
        "socache provider[:args] suppliers' search answers are kept in when a hotel "
        "supplier line sets search_cache= (default shmcb in the runtime directory, 32 MB)"),
    AP_INIT_TAKE1("TravelDBMode", set_db_mode, NULL, RSRC_CONF,
        "direct (labelled prepared statements; the default) or pooled (statements "
        "safe behind a transaction-pooling PgBouncer)"),
    AP_INIT_TAKE1("TravelNotifyConnInfo", set_notify_conninfo, NULL, RSRC_CONF,
        "direct (unpooled) libpq connection string the key/job listener LISTENs on"),
    AP_INIT_TAKE1("TravelStandbyConnInfo", set_standby_conninfo, NULL, RSRC_CONF,
        "libpq connection string of a streaming standby that may serve reads of "
        "bookings no older than the client's own writes (default: none)"),
    AP_INIT_TAKE1("TravelNotifyCheck", set_duration_slot, NULL, RSRC_CONF,
        "how often the listener proves a NOTIFY still reaches it (default 10s)"),
    {NULL}
};

const char *trv_finish_srv_conf(apr_pool_t *p, server_rec *s, trv_srv_conf *c)
{
    trv_config *cfg = &c->cfg;
    apr_size_t i;
    (void)s;
    for (i = 0; i < N_DURATION_SLOTS; i++) {
        apr_interval_time_t *t = duration_field(cfg, &duration_slots[i]);
        if (*t == UNSET) {
            *t = duration_slots[i].dflt;
        }
    }
    if (cfg->worker_threads == UNSET) {
        cfg->worker_threads = TRV_DEFAULT_WORKERS;
    }
    if (cfg->max_body == UNSET) {
        cfg->max_body = TRV_DEFAULT_MAX_BODY;
    }
    if (cfg->webhook_max_per_second == UNSET) {
        cfg->webhook_max_per_second = 0;
    }
    if (cfg->db_pooled == UNSET) {
        cfg->db_pooled = 0;
    }
    if (!cfg->max_response) {
        cfg->max_response = TRV_DEFAULT_MAX_RESPONSE;
    }
    if (!cfg->retry_schedule) {
        cfg->retry_schedule = trv_default_retry_schedule(p);
    }
    if (!cfg->webhook_allow) {
        cfg->webhook_allow = apr_array_make(p, 1, sizeof(trv_cidr));
    }
    if (c->rate.key_limit == UNSET) {
        c->rate.key_limit = 0;
    }
    if (c->rate.fail_limit == UNSET) {
        c->rate.fail_limit = 0;
    }
    return NULL;
}
