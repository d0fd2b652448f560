/* travelctl supplier check NAME: one supplier line of an httpd
 * configuration file tried with one cheap authenticated call, so an
 * operator going live learns before the first booking whether the key, the
 * URL and the network are right. The line is read from the file as httpd
 * would (same options, key files relative to its ServerRoot); the call is
 * the protocol adapter's own (a hotel adapter's check, a flight adapter's
 * airline lookup), so it goes out exactly as the gateway's calls do. */
#include "supplier_check.h"
#include "core/http.h"
#include "core/registry.h"
#include "core/upstream.h"
#include "flight/supplier.h"
#include "gateway/gateway.h"
#include "hotel/supplier.h"

#include <apr_strings.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The words of a line, split at white space (quotes keep spaces). */
static apr_array_header_t *words_of(apr_pool_t *p, const char *line)
{
    apr_array_header_t *w = apr_array_make(p, 8, sizeof(const char *));
    const char *s = line;
    while (*s) {
        const char *start;
        char q = 0;
        while (isspace((unsigned char)*s)) {
            s++;
        }
        if (!*s || *s == '#') {
            break;
        }
        if (*s == '"' || *s == '\'') {
            q = *s++;
        }
        start = s;
        while (*s && (q ? *s != q : !isspace((unsigned char)*s))) {
            s++;
        }
        APR_ARRAY_PUSH(w, const char *) = apr_pstrndup(p, start, (apr_size_t)(s - start));
        if (q && *s) {
            s++;
        }
    }
    return w;
}

/* A key file's first line, trailing white space dropped, or NULL. */
static const char *read_key(apr_pool_t *p, const char *root, const char *path)
{
    char buf[4097];
    size_t n;
    FILE *f = fopen(path[0] == '/' || !root ? path : apr_pstrcat(p, root, "/", path, NULL), "r");
    if (!f) {
        return NULL;
    }
    n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    while (n && isspace((unsigned char)buf[n - 1])) {
        n--;
    }
    buf[n] = '\0';
    return apr_pstrdup(p, buf);
}

/* Fills *u from the line's options as httpd reads them; NULL or why not. */
static const char *line_options(apr_pool_t *p, const char *root, const apr_array_header_t *w,
                                const trv_supplier *proto, trv_upstream *u)
{
    int i;
    for (i = 3; i < w->nelts; i++) {
        const char *word = APR_ARRAY_IDX(w, i, const char *), *eq = strchr(word, '=');
        const char *key = eq ? apr_pstrndup(p, word, (apr_size_t)(eq - word)) : word;
        const char *val = eq ? eq + 1 : "";
        const char *cred = proto->creds.key, *secret = proto->creds.secret;
        if (strcmp(key, cred) == 0) {
            u->api_key = val;
        }
        else if (strcmp(key, apr_pstrcat(p, cred, "_file", NULL)) == 0
                 && !(u->api_key = read_key(p, root, val))) {
            return apr_psprintf(p, "cannot read %s %s", key, val);
        }
        else if (secret && strcmp(key, secret) == 0) {
            u->api_secret = val;
        }
        else if (secret && strcmp(key, apr_pstrcat(p, secret, "_file", NULL)) == 0
                 && !(u->api_secret = read_key(p, root, val))) {
            return apr_psprintf(p, "cannot read %s %s", key, val);
        }
        else if (proto->creds.second_base && strcmp(key, proto->creds.second_base) == 0) {
            u->second_base_url = val;
        }
    }
    return u->api_key ? NULL : apr_psprintf(p, "the line gives no %s", proto->creds.key);
}

/* Finds NAME's line in the file (a hotel line with hotel set, else a
 * flight line, else a hotel line); *hotel says which was found. */
static const char *find_line(apr_pool_t *p, const char *conf, const char *name, int *hotel,
                             apr_array_header_t **words, const char **root)
{
    char line[8192];
    apr_array_header_t *flight_w = NULL, *hotel_w = NULL;
    FILE *f = fopen(conf, "r");
    if (!f) {
        return apr_psprintf(p, "cannot read the configuration %s", conf);
    }
    *root = NULL;
    while (fgets(line, sizeof(line), f)) {
        apr_array_header_t *w = words_of(p, line);
        const char *d = w->nelts ? APR_ARRAY_IDX(w, 0, const char *) : "";
        if (w->nelts >= 2 && strcasecmp(d, "ServerRoot") == 0) {
            *root = APR_ARRAY_IDX(w, 1, const char *);
        }
        if (w->nelts >= 4 && strcmp(APR_ARRAY_IDX(w, 1, const char *), name) == 0) {
            if (strcasecmp(d, "TravelSupplier") == 0 && !flight_w) {
                flight_w = w;
            }
            else if (strcasecmp(d, "TravelHotelSupplier") == 0 && !hotel_w) {
                hotel_w = w;
            }
        }
    }
    fclose(f);
    if (*hotel && !hotel_w) {
        return apr_psprintf(p, "%s has no TravelHotelSupplier line in %s", name, conf);
    }
    *hotel = *hotel || !flight_w;
    *words = *hotel ? hotel_w : flight_w;
    return *words ? NULL : apr_psprintf(p, "%s has no TravelSupplier or TravelHotelSupplier "
                                        "line in %s", name, conf);
}

/* What an outcome means for the operator, in words. retry_at: when a
 * supplier over its rate limit said to come back (0: not said). */
static const char *verdict(apr_pool_t *p, const trv_upstream *u, trv_up_status st, int http,
                           const char *code, const char *message, long timeout,
                           apr_time_t retry_at, int *ok)
{
    *ok = 0;
    if (http == 429 || (code && strstr(code, "rate_limit"))) {
        return apr_psprintf(p, "the supplier says this key is over its rate limit (HTTP 429)%s: "
                            "wait and check again; the gateway holds its calls to it that "
                            "long (docs/suppliers.md, \"Supplier rate limits\")",
                            retry_at > apr_time_now()
                                ? apr_psprintf(p, " for %" APR_TIME_T_FMT " s more",
                                               apr_time_sec(retry_at - apr_time_now()
                                                            + APR_USEC_PER_SEC - 1))
                                : "");
    }
    if (http == 401 || http == 403 || (code && strcmp(code, "unauthorized") == 0)) {
        return apr_psprintf(p, "the key was refused (HTTP %d): check the line's credentials "
                            "(a test key for a test URL, a live key for a live one)", http);
    }
    if (st == TRV_UP_TIMEOUT) {
        return apr_psprintf(p, "no answer from %s within %ld s: a firewall, a proxy or an "
                            "overloaded endpoint (timeout=... on the line sets the wait)",
                            u->base_url, timeout);
    }
    if (st == TRV_UP_UNAVAILABLE && !http) {
        return apr_psprintf(p, "cannot reach %s: %s (check the host name, the port and the "
                            "network)", u->base_url, message ? message : "no connection");
    }
    if (http == 404 || st == TRV_UP_BAD_RESPONSE) {
        return apr_psprintf(p, "%s answered, but not as the API (%s): check the base URL "
                            "(its path and version)", u->base_url,
                            http == 404 ? "HTTP 404" : "not the API's JSON");
    }
    if (st == TRV_UP_UNAVAILABLE) {
        return apr_psprintf(p, "the supplier is unavailable now (HTTP %d): try again later",
                            http);
    }
    *ok = 1;
    return apr_psprintf(p, "ok: %s accepted the key (HTTP %d)", u->base_url, http);
}

int trv_cli_supplier_check(apr_pool_t *p, const char *name, const char *conf, int hotel,
                           long timeout)
{
    static volatile apr_uint32_t stopping;
    apr_array_header_t *w;
    const char *root, *err, *protocol, *message = NULL, *code = NULL, *said;
    const trv_supplier *proto;
    trv_config cfg;
    trv_env env;
    trv_upstream u;
    trv_up_status st;
    apr_time_t retry_at = 0;
    int http = 0, ok;

    if ((err = find_line(p, conf, name, &hotel, &w, &root))) {
        fprintf(stderr, "travelctl: %s\n", err);
        return 1;
    }
    protocol = APR_ARRAY_IDX(w, 2, const char *);
    proto = trv_protocol_lookup(trv_gateway_domains(), protocol);
    if (!proto || strcmp(proto->domain, hotel ? "hotel" : "flight") != 0) {
        fprintf(stderr, "travelctl: %s: unknown %s protocol %s (apachectl -t says why)\n", name,
                hotel ? "hotel" : "flight", protocol);
        return 1;
    }
    memset(&u, 0, sizeof(u));
    u.name = name;
    u.protocol = protocol;
    u.base_url = APR_ARRAY_IDX(w, 3, const char *);
    u.connect_timeout = apr_time_from_sec(timeout);
    u.timeout = apr_time_from_sec(timeout);
    if ((err = line_options(p, root, w, proto, &u))) {
        fprintf(stderr, "travelctl: %s: %s\n", name, err);
        return 1;
    }
    memset(&cfg, 0, sizeof(cfg));
    memset(&env, 0, sizeof(env));
    cfg.max_response = TRV_DEFAULT_MAX_RESPONSE;
    env.cfg = &cfg;
    env.stopping = &stopping;
    trv_http_global_init();
    env.http = trv_http_curl_create(p, &stopping, 0);
    if (hotel) {
        const trv_hotel_supplier *a = proto->adapter;
        trv_hotel_ctx ctx = {.env = &env, .pool = p, .request_id = "travelctl-supplier-check",
                             .up = &u};
        trv_up_result res;
        if (!a->check) {
            fprintf(stderr, "travelctl: %s: protocol %s has no check yet\n", name, protocol);
            return 1;
        }
        st = a->check(&ctx, &res);
        http = res.http_status;
        retry_at = res.retry_at;
        code = res.code;
        message = res.message;
    }
    else {
        /* The cheapest call every flight protocol has: one airline. */
        const trv_flight_supplier *a = proto->adapter;
        trv_flight_ctx ctx = {.env = &env, .pool = p, .request_id = "travelctl-supplier-check",
                              .up = &u};
        trv_sup_err e = {NULL, NULL};
        json_t *airline = NULL;
        st = a->airline(&ctx, "BA", &airline, &e);
        code = e.code;
        message = e.message;
        /* The adapter reports the HTTP status in its message only. */
        if (message && strstr(message, "answered 401")) {
            http = 401;
        }
        else if (message && strstr(message, "answered 404")) {
            http = 404;
        }
        else if (st == TRV_UP_OK || st == TRV_UP_NOT_FOUND) {
            http = st == TRV_UP_OK ? 200 : 404;
        }
    }
    said = verdict(p, &u, st, http, code, message, timeout, retry_at, &ok);
    printf("%s (%s, %s): %s\n", name, protocol, hotel ? "hotel" : "flight", said);
    return ok ? 0 : 1;
}
