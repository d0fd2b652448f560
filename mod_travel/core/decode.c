#include "decode.h"

#include <apr_strings.h>
#include <string.h>

static int hexval(int c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

typedef enum { DEC_OK, DEC_ESCAPE, DEC_CONTROL, DEC_UTF8 } dec_status;

/* Decodes s[0..n) into a new string *out; says what is wrong with it. */
static dec_status decode_part(apr_pool_t *p, const char *s, size_t n, char **out)
{
    char *d = apr_palloc(p, n + 1);
    size_t i, o = 0;
    int control = 0;
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '%') {
            int hi = i + 1 < n ? hexval(s[i + 1]) : -1;
            int lo = i + 2 < n ? hexval(s[i + 2]) : -1;
            if (hi < 0 || lo < 0) {
                return DEC_ESCAPE;
            }
            c = (unsigned char)(hi * 16 + lo);
            i += 2;
        }
        else if (c == '+') {
            c = ' ';
        }
        if (c < 0x20 || c == 0x7F) {
            control = 1;
        }
        d[o++] = (char)c;
    }
    d[o] = '\0';
    *out = d;
    if (control) {
        return DEC_CONTROL;
    }
    return trv_utf8_valid(d, o) ? DEC_OK : DEC_UTF8;
}

static const char *reason_of(dec_status st)
{
    switch (st) {
    case DEC_ESCAPE: return "is not valid percent-encoding (% must be followed by two hex digits)";
    case DEC_CONTROL: return "must not contain control characters";
    default: return "must be valid UTF-8";
    }
}

void trv_query_decode(apr_pool_t *p, const char *args, apr_table_t *t, trv_errs *errs)
{
    const char *s = args;
    while (s && *s) {
        const char *end = strchr(s, '&'), *eq;
        size_t n = end ? (size_t)(end - s) : strlen(s);
        char *name = NULL, *val = "";
        dec_status st;
        if (n > 0) {
            eq = memchr(s, '=', n);
            st = decode_part(p, s, eq ? (size_t)(eq - s) : n, &name);
            if (st != DEC_OK) {
                trv_errs_add(errs, "query", "a parameter name %s", reason_of(st));
            }
            else if (eq && (st = decode_part(p, eq + 1, n - (size_t)(eq + 1 - s), &val))
                               != DEC_OK) {
                trv_errs_add(errs, name, "%s", reason_of(st));
            }
            else {
                apr_table_add(t, name, val);
            }
        }
        s = end ? end + 1 : NULL;
    }
}

int trv_path_check(const char *path, trv_errs *errs)
{
    const unsigned char *u = (const unsigned char *)path;
    size_t n = strlen(path), i;
    for (i = 0; i < n; i++) {
        if (u[i] < 0x20 || u[i] == 0x7F) {
            trv_errs_add(errs, "path", "must not contain control characters");
            return 0;
        }
    }
    if (!trv_utf8_valid(path, n)) {
        trv_errs_add(errs, "path", "must be valid UTF-8");
        return 0;
    }
    return 1;
}
