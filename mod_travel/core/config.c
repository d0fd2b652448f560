#include "config.h"
#include "registry.h"

#include <apr_strings.h>
#include <arpa/inet.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

apr_array_header_t *trv_default_retry_schedule(apr_pool_t *p)
{
    static const int secs[] = {60, 300, 1800, 7200, 43200, 86400};
    apr_array_header_t *a = apr_array_make(p, 6, sizeof(apr_interval_time_t));
    size_t i;
    for (i = 0; i < sizeof(secs) / sizeof(secs[0]); i++) {
        APR_ARRAY_PUSH(a, apr_interval_time_t) = apr_time_from_sec(secs[i]);
    }
    return a;
}

const char *trv_parse_duration(const char *s, apr_interval_time_t *out)
{
    char *end;
    long long v;
    apr_interval_time_t unit;

    if (!s || !isdigit((unsigned char)*s)) {
        return "must be a number followed by an optional unit (ms, s, m, h, d)";
    }
    v = strtoll(s, &end, 10);
    if (v < 0 || v > 100000000LL) {
        return "is out of range";
    }
    if (!*end || strcmp(end, "s") == 0) {
        unit = APR_USEC_PER_SEC;
    }
    else if (strcmp(end, "ms") == 0) {
        unit = 1000;
    }
    else if (strcmp(end, "m") == 0) {
        unit = 60 * APR_USEC_PER_SEC;
    }
    else if (strcmp(end, "h") == 0) {
        unit = 3600 * APR_USEC_PER_SEC;
    }
    else if (strcmp(end, "d") == 0) {
        unit = 86400 * APR_USEC_PER_SEC;
    }
    else {
        return "has an unknown unit (use ms, s, m, h or d)";
    }
    *out = (apr_interval_time_t)v * unit;
    return NULL;
}

const char *trv_parse_size(const char *s, apr_off_t *out)
{
    char *end;
    long long v;
    if (!s || !isdigit((unsigned char)*s)) {
        return "must be a number of bytes, optionally with K or M";
    }
    v = strtoll(s, &end, 10);
    if (v > 1024LL * 1024 * 1024) { /* before scaling, which could overflow */
        return "must be between 1 byte and 1G";
    }
    if (*end == 'K' || *end == 'k') {
        v *= 1024;
        end++;
    }
    else if (*end == 'M' || *end == 'm') {
        v *= 1024 * 1024;
        end++;
    }
    if (*end || v <= 0 || v > 1024LL * 1024 * 1024) {
        return "must be between 1 byte and 1G";
    }
    *out = (apr_off_t)v;
    return NULL;
}

const char *trv_parse_cidr(apr_pool_t *p, const char *s, trv_cidr *out)
{
    char *addr = apr_pstrdup(p, s), *slash = strchr(addr, '/');
    int max;
    memset(out, 0, sizeof(*out));
    if (slash) {
        *slash++ = '\0';
    }
    if (inet_pton(AF_INET, addr, out->addr) == 1) {
        out->family = APR_INET;
        max = 32;
    }
    else if (inet_pton(AF_INET6, addr, out->addr) == 1) {
        out->family = APR_INET6;
        max = 128;
    }
    else {
        return "is not an IPv4 or IPv6 address";
    }
    out->bits = max;
    if (slash) {
        char *end;
        long b = strtol(slash, &end, 10);
        if (!*slash || *end || b < 0 || b > max) {
            return "has an invalid prefix length";
        }
        out->bits = (int)b;
    }
    out->text = apr_pstrdup(p, s);
    return NULL;
}

int trv_cidr_contains(const trv_cidr *net, int family, const unsigned char *addr)
{
    int full, rest;
    if (family != net->family) {
        return 0;
    }
    full = net->bits / 8;
    rest = net->bits % 8;
    if (memcmp(net->addr, addr, (size_t)full) != 0) {
        return 0;
    }
    if (rest) {
        unsigned char mask = (unsigned char)(0xff << (8 - rest));
        return (net->addr[full] & mask) == (addr[full] & mask);
    }
    return 1;
}

const char *trv_check_base_url(const char *s)
{
    const char *host;
    if (!s) {
        return "is missing";
    }
    if (strncmp(s, "https://", 8) == 0) {
        host = s + 8;
    }
    else if (strncmp(s, "http://", 7) == 0) {
        host = s + 7;
    }
    else {
        return "must start with http:// or https://";
    }
    if (!*host || *host == '/' || *host == ':') {
        return "has no host";
    }
    if (s[strlen(s) - 1] == '/') {
        return "must not end with /";
    }
    return NULL;
}

static const trv_upstream *upstream_in(const apr_array_header_t *list, const char *name)
{
    int i;
    if (!list || !name) {
        return NULL;
    }
    for (i = 0; i < list->nelts; i++) {
        const trv_upstream *u = &APR_ARRAY_IDX(list, i, trv_upstream);
        if (strcmp(u->name, name) == 0) {
            return u;
        }
    }
    return NULL;
}

const trv_upstream *trv_config_upstream(const trv_config *cfg, const char *name)
{
    return cfg ? upstream_in(cfg->upstreams, name) : NULL;
}

static int is_hotel(const char *domain)
{
    return domain && strcmp(domain, "hotel") == 0;
}

void trv_config_add_supplier(apr_pool_t *p, trv_config *cfg, const trv_upstream *u,
                             const trv_supplier *protocol)
{
    int hotel = is_hotel(protocol->domain);
    apr_array_header_t **ups = hotel ? &cfg->hotel_upstreams : &cfg->upstreams;
    apr_array_header_t **rows = hotel ? &cfg->hotel_rows : &cfg->flight_rows;
    trv_supplier *row;
    if (!*ups) {
        *ups = apr_array_make(p, 4, sizeof(trv_upstream));
    }
    if (!*rows) {
        *rows = apr_array_make(p, 4, sizeof(trv_supplier));
    }
    else {
        apr_array_pop(*rows); /* the terminating row */
    }
    *(trv_upstream *)apr_array_push(*ups) = *u;
    row = apr_array_push(*rows);
    *row = *protocol;
    row->name = u->name;
    row->protocol = protocol->name;
    memset(apr_array_push(*rows), 0, sizeof(trv_supplier));
}

const trv_supplier *trv_config_suppliers(const trv_config *cfg, const char *domain)
{
    static const trv_supplier none[1];
    const apr_array_header_t *rows = !cfg ? NULL
                                     : is_hotel(domain) ? cfg->hotel_rows
                                     : domain && strcmp(domain, "flight") == 0 ? cfg->flight_rows
                                     : NULL;
    return rows && rows->nelts ? (const trv_supplier *)rows->elts : none;
}

const trv_supplier *trv_config_supplier(const trv_config *cfg, const char *domain,
                                        const char *name)
{
    return trv_supplier_find(trv_config_suppliers(cfg, domain), name);
}

const trv_upstream *trv_config_hotel_upstream(const trv_config *cfg, const char *name)
{
    return cfg ? upstream_in(cfg->hotel_upstreams, name) : NULL;
}

apr_interval_time_t trv_config_call_budget(const trv_config *cfg,
                                           trv_config_upstream_fn upstream_of,
                                           const char *name, int supplier_calls,
                                           int payment_calls)
{
    const trv_upstream *supplier = name ? upstream_of(cfg, name) : NULL;
    const trv_upstream *pay = cfg ? cfg->payment : NULL;
    apr_interval_time_t t = apr_time_from_sec(5);
    t += supplier_calls * (supplier ? supplier->connect_timeout + supplier->timeout
                                    : TRV_DEFAULT_TIMEOUT);
    t += payment_calls * (pay ? pay->connect_timeout + pay->timeout : TRV_DEFAULT_TIMEOUT);
    return t;
}
