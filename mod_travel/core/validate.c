#include "validate.h"
#include "clock.h"

#include <apr_strings.h>
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Length in characters (UTF-8 code points), as messages say "characters". */
static size_t utf8_length(const char *s)
{
    size_t n = 0;
    for (; *s; s++) {
        if (((unsigned char)*s & 0xC0) != 0x80) {
            n++;
        }
    }
    return n;
}

typedef struct count_ctx {
    const char *const *known;
    trv_errs *errs;
    apr_table_t *seen;
} count_ctx;

static int check_one(void *u, const char *key, const char *val)
{
    count_ctx *c = u;
    const char *const *k;
    (void)val;
    for (k = c->known; *k; k++) {
        if (strcmp(*k, key) == 0) {
            break;
        }
    }
    if (!*k) {
        trv_errs_add(c->errs, key, "is not a known parameter");
    }
    else if (apr_table_get(c->seen, key)) {
        trv_errs_add(c->errs, key, "must be given once");
    }
    else {
        apr_table_setn(c->seen, key, "1");
    }
    return 1;
}

void trv_query_known(apr_table_t *q, const char *const *known, trv_errs *errs)
{
    count_ctx c;
    c.known = known;
    c.errs = errs;
    c.seen = apr_table_make(errs->pool, 8);
    apr_table_do(check_one, &c, q, NULL);
}

long trv_query_int(apr_table_t *q, const char *name, long dflt, long min,
                   long max, trv_errs *errs)
{
    const char *v = apr_table_get(q, name);
    char *end;
    long n;
    if (!v) {
        return dflt;
    }
    errno = 0;
    n = strtol(v, &end, 10);
    /* Canonical decimal only: strtol would also take leading whitespace,
     * '+' and leading zeros. */
    if (!*v || *end || errno || n < min || n > max
        || !(isdigit((unsigned char)v[0]) || v[0] == '-')
        || (v[0] == '0' && v[1]) || (v[0] == '-' && v[1] == '0')) {
        if (max == LONG_MAX) {
            trv_errs_add(errs, name, "must be an integer >= %ld", min);
        }
        else {
            trv_errs_add(errs, name, "must be an integer from %ld to %ld", min, max);
        }
        return dflt;
    }
    return n;
}

const char *trv_query_enum(apr_table_t *q, const char *name,
                           const char *const *values, const char *dflt,
                           trv_errs *errs)
{
    const char *v = apr_table_get(q, name);
    const char *const *k;
    const char *list = NULL;
    if (!v) {
        return dflt;
    }
    for (k = values; *k; k++) {
        if (strcmp(*k, v) == 0) {
            return *k;
        }
        list = list ? apr_pstrcat(errs->pool, list, ", ", *k, NULL) : *k;
    }
    trv_errs_add(errs, name, "must be one of %s", list);
    return dflt;
}

const char *trv_query_str(apr_table_t *q, const char *name, size_t min,
                          size_t max, trv_errs *errs)
{
    const char *v = apr_table_get(q, name);
    size_t len;
    if (!v) {
        return NULL;
    }
    len = utf8_length(v);
    if (len < min || len > max) {
        if (max >= 100000) {
            trv_errs_add(errs, name, "must be at least %" APR_SIZE_T_FMT " characters", min);
        }
        else {
            trv_errs_add(errs, name, "must be %" APR_SIZE_T_FMT " to %" APR_SIZE_T_FMT " characters", min, max);
        }
        return NULL;
    }
    return v;
}

int trv_query_bool(apr_table_t *q, const char *name, int dflt, trv_errs *errs)
{
    const char *v = apr_table_get(q, name);
    if (!v) {
        return dflt;
    }
    if (strcmp(v, "true") == 0) {
        return 1;
    }
    if (strcmp(v, "false") == 0) {
        return 0;
    }
    trv_errs_add(errs, name, "must be 'true' or 'false'");
    return dflt;
}

int trv_query_instant(apr_table_t *q, const char *name, int end_of_day,
                      apr_time_t *out, trv_errs *errs)
{
    const char *v = apr_table_get(q, name);
    if (!v) {
        return 0;
    }
    if (strlen(v) == 10 && trv_date_parse(v, out) == APR_SUCCESS) {
        if (end_of_day) {
            *out += apr_time_from_sec(86400) - 1000; /* last millisecond */
        }
        return 1;
    }
    if (trv_time_parse(v, out) == APR_SUCCESS) {
        return 1;
    }
    trv_errs_add(errs, name, "must be a date YYYY-MM-DD or an ISO 8601 timestamp "
                 "with a zone, e.g. 2026-11-22T10:00:00.000Z");
    return 0;
}

const char *trv_json_req_str(const json_t *obj, const char *key,
                             const char *field, int required, size_t min,
                             size_t max, trv_errs *errs)
{
    const json_t *v = json_object_get(obj, key);
    size_t len;
    if (!v || json_is_null(v)) {
        if (required) {
            trv_errs_add(errs, field, "is required");
        }
        return NULL;
    }
    if (!json_is_string(v)) {
        trv_errs_add(errs, field, "must be a string");
        return NULL;
    }
    len = utf8_length(json_string_value(v));
    if (len < min || len > max) {
        trv_errs_add(errs, field, "must be %" APR_SIZE_T_FMT " to %" APR_SIZE_T_FMT " characters", min, max);
        return NULL;
    }
    return json_string_value(v);
}

void trv_json_known(const json_t *obj, const char *prefix,
                    const char *const *known, trv_errs *errs)
{
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)obj, key, val) {
        const char *const *k;
        (void)val;
        for (k = known; *k; k++) {
            if (strcmp(*k, key) == 0) {
                break;
            }
        }
        if (!*k) {
            trv_errs_add(errs, prefix ? apr_pstrcat(errs->pool, prefix, ".", key, NULL)
                                      : key,
                         "is not a known field");
        }
    }
}

int trv_printable(const char *s, size_t min, size_t max)
{
    size_t n = 0;
    if (!s) {
        return 0;
    }
    for (; s[n]; n++) {
        if ((unsigned char)s[n] < 0x20 || (unsigned char)s[n] > 0x7e) {
            return 0;
        }
    }
    return n >= min && n <= max;
}

int trv_ip_literal(const char *s)
{
    unsigned char buf[sizeof(struct in6_addr)];
    return s && strlen(s) <= 45
           && (inet_pton(AF_INET, s, buf) == 1 || inet_pton(AF_INET6, s, buf) == 1);
}
