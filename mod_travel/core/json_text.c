#include "json_text.h"
#include "json_scan.h"
#include "money.h"
#include "utf8.h"

#include <stdio.h>
#include <string.h>

void trv_jtext_init(trv_jtext *t, apr_pool_t *p, apr_size_t cap)
{
    memset(t, 0, sizeof(*t));
    t->p = p;
    t->cap = cap < 64 ? 64 : cap;
    t->buf = apr_palloc(p, t->cap);
}

/* The buffer doubled until n more bytes and the final NUL fit (rare: out
 * of line). */
static __attribute__((noinline)) void grow(trv_jtext *t, apr_size_t n)
{
    apr_size_t cap = t->cap;
    char *nb;
    while (cap < t->len + n + 1) {
        cap *= 2;
    }
    nb = apr_palloc(t->p, cap);
    memcpy(nb, t->buf, t->len);
    t->buf = nb;
    t->cap = cap;
}

/* Room for n more bytes and the final NUL. Inline, as sep below: called
 * for every piece written (the sandbox's hotel search answers: their calls
 * were a twentieth of its instructions, docs/performance.md). */
static inline __attribute__((always_inline)) void room(trv_jtext *t, apr_size_t n)
{
    if (t->len + n + 1 > t->cap) {
        grow(t, n);
    }
}

void trv_jtext_put(trv_jtext *t, const char *s, apr_size_t n)
{
    room(t, n);
    memcpy(t->buf + t->len, s, n);
    t->len += n;
}

static inline __attribute__((always_inline)) void put1(trv_jtext *t, char c)
{
    room(t, 1);
    t->buf[t->len++] = c;
}

int trv_jtext_string(trv_jtext *t, const char *s, apr_size_t n)
{
    apr_size_t i = 0, run = trv_json_plain_len(s, n);
    int high = 0;
    /* Room for the string as it is: most need no escape, and are copied
     * in one piece. */
    room(t, n + 2);
    t->buf[t->len++] = '"';
    if (run == n) {
        memcpy(t->buf + t->len, s, n);
        t->len += n;
        t->buf[t->len++] = '"';
        return 0;
    }
    while (i < n) {
        run = i + trv_json_plain_len(s + i, n - i);
        /* Bytes from 0x80 are written as they are (Jansson escapes them
         * only with JSON_ENSURE_ASCII), and the whole checked at the end. */
        while (run < n && (unsigned char)s[run] >= 0x80) {
            high = 1;
            run++;
        }
        if (run > i) {
            trv_jtext_put(t, s + i, run - i);
            i = run;
            continue;
        }
        if (i < n) {
            unsigned char c = (unsigned char)s[i++];
            char seq[8];
            switch (c) {
            case '"': trv_jtext_put(t, "\\\"", 2); break;
            case '\\': trv_jtext_put(t, "\\\\", 2); break;
            case '\b': trv_jtext_put(t, "\\b", 2); break;
            case '\f': trv_jtext_put(t, "\\f", 2); break;
            case '\n': trv_jtext_put(t, "\\n", 2); break;
            case '\r': trv_jtext_put(t, "\\r", 2); break;
            case '\t': trv_jtext_put(t, "\\t", 2); break;
            default:
                snprintf(seq, sizeof(seq), "\\u%04X", (unsigned)c);
                trv_jtext_put(t, seq, 6);
            }
        }
    }
    put1(t, '"');
    /* Jansson refuses text that is not UTF-8; so does this (its caller
     * then asks Jansson, or refuses the text). */
    return high && !trv_utf8_valid(s, n) ? -1 : 0;
}

/* The money fast path of trv_jtext_number: d the double nearest to a
 * whole number of hundredths k, |k| < 10^13, is written as that decimal
 * without %.15g (whose digit generation was a twentieth of a hotel offers
 * answer's CPU, docs/performance.md). The same text: k/100 has at most 13
 * significant digits and d lies within half an ulp of it (2^-53
 * relative), far inside half a unit of the 15th digit, so %.15g rounds d
 * to exactly k/100, in fixed notation (exponent -2 to 10), trailing zeros
 * dropped; Jansson then adds ".0" to a whole number. Negative zero
 * ("-0.0") and anything else answer 0: left to snprintf. */
static int real_cents(trv_jtext *t, double d)
{
    char b[32], *p = b + sizeof(b);
    long long k;
    unsigned long long u;
    unsigned frac;
    if (!trv_money_hundredths(d, &k)) {
        return 0;
    }
    u = k < 0 ? 0 - (unsigned long long)k : (unsigned long long)k;
    frac = (unsigned)(u % 100);
    u /= 100;
    if (frac % 10) {
        *--p = (char)('0' + frac % 10);
    }
    *--p = (char)('0' + frac / 10);
    *--p = '.';
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (k < 0) {
        *--p = '-';
    }
    trv_jtext_put(t, p, (apr_size_t)(b + sizeof(b) - p));
    return 1;
}

/* Jansson's jsonp_dtostr with JSON_REAL_PRECISION(15) into its 24-byte
 * buffer: %.15g, ".0" when neither '.' nor 'e' is there, the exponent
 * without '+' and leading zeros. -1 where Jansson's dump fails. */
int trv_jtext_number(trv_jtext *t, double d)
{
    char b[64], *start, *end;
    int n;
    apr_size_t len;
    if (real_cents(t, d)) {
        return 0;
    }
    n = snprintf(b, sizeof(b), "%.15g", d);
    if (n < 0 || n >= 24) {
        return -1;
    }
    len = (apr_size_t)n;
    if (!strchr(b, '.') && !strchr(b, 'e')) {
        if (len + 3 >= 24) {
            return -1;
        }
        b[len++] = '.';
        b[len++] = '0';
        b[len] = '\0';
    }
    if ((start = strchr(b, 'e'))) {
        start++;
        end = start + 1;
        if (*start == '-') {
            start++;
        }
        while (*end == '0') {
            end++;
        }
        if (end != start) {
            memmove(start, end, len - (apr_size_t)(end - b) + 1);
            len -= (apr_size_t)(end - start);
        }
    }
    trv_jtext_put(t, b, len);
    return 0;
}

/* ---- values with their commas ---- */

/* Before a value or a key: the comma after the level's last member. */
static inline __attribute__((always_inline)) void sep(trv_jtext *t)
{
    if (t->after_key) {
        t->after_key = 0;
        return;
    }
    if (t->depth > 0) {
        if (t->some[t->depth - 1]) {
            put1(t, ',');
        }
        t->some[t->depth - 1] = 1;
    }
}

void trv_jtext_sep(trv_jtext *t)
{
    sep(t);
}

static void open_with(trv_jtext *t, char c)
{
    sep(t);
    if (t->depth >= TRV_JTEXT_MAX_DEPTH) {
        t->bad = 1;
        return;
    }
    t->open[t->depth] = c;
    t->some[t->depth] = 0;
    t->depth++;
    put1(t, c);
}

void trv_jtext_obj(trv_jtext *t)
{
    open_with(t, '{');
}

void trv_jtext_arr(trv_jtext *t)
{
    open_with(t, '[');
}

void trv_jtext_end(trv_jtext *t)
{
    if (t->depth <= 0 || t->after_key) {
        t->bad = 1;
        return;
    }
    t->depth--;
    put1(t, t->open[t->depth] == '{' ? '}' : ']');
}

void trv_jtext_key(trv_jtext *t, const char *key)
{
    trv_jtext_keyn(t, key, strlen(key));
}

void trv_jtext_keyn(trv_jtext *t, const char *key, apr_size_t n)
{
    if (t->depth <= 0 || t->open[t->depth - 1] != '{' || t->after_key) {
        t->bad = 1;
        return;
    }
    sep(t);
    if (trv_jtext_string(t, key, n) != 0) {
        t->bad = 1;
    }
    put1(t, ':');
    t->after_key = 1;
}

void trv_jtext_strn(trv_jtext *t, const char *s, apr_size_t n)
{
    sep(t);
    if (trv_jtext_string(t, s, n) != 0) {
        t->bad = 1;
    }
}

void trv_jtext_str(trv_jtext *t, const char *s)
{
    if (!s) {
        trv_jtext_null(t);
        return;
    }
    trv_jtext_strn(t, s, strlen(s));
}

void trv_jtext_null(trv_jtext *t)
{
    sep(t);
    trv_jtext_put(t, "null", 4);
}

void trv_jtext_bool(trv_jtext *t, int v)
{
    sep(t);
    if (v) {
        trv_jtext_put(t, "true", 4);
    }
    else {
        trv_jtext_put(t, "false", 5);
    }
}

/* Digits by hand, not snprintf: an answer's integers (counts, ids,
 * occupancies) were a twentieth of the sandbox's writing. */
void trv_jtext_integer(trv_jtext *t, long long v)
{
    char b[24], *p = b + sizeof(b);
    unsigned long long u = v < 0 ? 0 - (unsigned long long)v : (unsigned long long)v;
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0) {
        *--p = '-';
    }
    trv_jtext_put(t, p, (apr_size_t)(b + sizeof(b) - p));
}

void trv_jtext_int(trv_jtext *t, long long v)
{
    sep(t);
    trv_jtext_integer(t, v);
}

void trv_jtext_real(trv_jtext *t, double v)
{
    sep(t);
    if (trv_jtext_number(t, v) != 0) {
        t->bad = 1;
    }
}

void trv_jtext_raw(trv_jtext *t, const char *text, apr_size_t n)
{
    sep(t);
    trv_jtext_put(t, text, n);
}

void trv_jtext_kstr(trv_jtext *t, const char *key, const char *s)
{
    trv_jtext_key(t, key);
    trv_jtext_str(t, s);
}

void trv_jtext_knull(trv_jtext *t, const char *key)
{
    trv_jtext_key(t, key);
    trv_jtext_null(t);
}

void trv_jtext_kbool(trv_jtext *t, const char *key, int v)
{
    trv_jtext_key(t, key);
    trv_jtext_bool(t, v);
}

void trv_jtext_kint(trv_jtext *t, const char *key, long long v)
{
    trv_jtext_key(t, key);
    trv_jtext_int(t, v);
}

void trv_jtext_kreal(trv_jtext *t, const char *key, double v)
{
    trv_jtext_key(t, key);
    trv_jtext_real(t, v);
}

void trv_jtext_kobj(trv_jtext *t, const char *key)
{
    trv_jtext_key(t, key);
    trv_jtext_obj(t);
}

void trv_jtext_karr(trv_jtext *t, const char *key)
{
    trv_jtext_key(t, key);
    trv_jtext_arr(t);
}

const char *trv_jtext_done(trv_jtext *t, apr_size_t *len)
{
    if (t->bad || t->depth != 0 || t->after_key || t->len == 0) {
        return NULL;
    }
    t->buf[t->len] = '\0';
    if (len) {
        *len = t->len;
    }
    return t->buf;
}
