#include "json_write.h"
#include "money.h"
#include "utf8.h"

#include <stdint.h>
#include <stdio.h>
#include <math.h>
#include <string.h>

typedef trv_jbuf out;

/* Grows the buffer for n more bytes and the final NUL. */
static void grow(out *o, apr_size_t n)
{
    apr_size_t cap = o->cap;
    char *nb;
    while (cap < o->len + n + 1) {
        cap *= 2;
    }
    nb = apr_palloc(o->p, cap);
    memcpy(nb, o->buf, o->len);
    o->buf = nb;
    o->cap = cap;
}

/* Room for n more bytes and the final NUL (inline: every piece asks). */
static inline int room(out *o, apr_size_t n)
{
    if (o->len + n + 1 > o->cap) {
        grow(o, n);
    }
    return 0;
}

static inline void put(out *o, const char *s, apr_size_t n)
{
    room(o, n);
    memcpy(o->buf + o->len, s, n);
    o->len += n;
}

static inline void put1(out *o, char c)
{
    room(o, 1);
    o->buf[o->len++] = c;
}

/* Which bytes Jansson escapes (dump_string without JSON_ENSURE_ASCII or
 * JSON_ESCAPE_SLASH): the quote, the backslash and every control byte
 * (1); bytes of multi-byte UTF-8 are written as they are, the text then
 * checked (2). A table: one load a byte where the tests were several. */
static const unsigned char byte_class[256] = {
    [0x00 ... 0x1f] = 1, ['"'] = 1, ['\\'] = 1, [0x80 ... 0xff] = 2,
};

/* Whether 8 bytes are all printable ASCII that Jansson writes as they are
 * (none below 0x20, none '"' or '\\', none from 0x80): the usual case,
 * tested a word at a time (bytes below n: (w - n*ones) & ~w & highs; a
 * byte equal to c: one below 1 of w ^ c*ones). Answers for the 8 bytes
 * together only, which is all the scan asks. */
#define ONES 0x0101010101010101ull
#define HIGHS 0x8080808080808080ull
static int plain8(const char *s)
{
    uint64_t w, q, b;
    memcpy(&w, s, 8);
    q = w ^ (ONES * '"');
    b = w ^ (ONES * '\\');
    return !(((w - ONES * 0x20) & ~w & HIGHS) | ((q - ONES) & ~q & HIGHS)
             | ((b - ONES) & ~b & HIGHS) | (w & HIGHS));
}

static int string(out *o, const char *s, apr_size_t n)
{
    apr_size_t i = 0, run;
    int high = 0;
    put1(o, '"');
    while (i < n) {
        /* Plain runs a word at a time (strings were a sixth of the sandbox's
         * answers written as text, docs/performance.md), then byte by byte
         * up to the next byte to escape. */
        run = i;
        for (;;) {
            while (run + 8 <= n && plain8(s + run)) {
                run += 8;
            }
            while (run < n && !byte_class[(unsigned char)s[run]]) {
                run++;
            }
            if (run < n && byte_class[(unsigned char)s[run]] == 2) {
                high = 1;
                run++;
                continue;
            }
            break;
        }
        if (run > i) {
            put(o, s + i, run - i);
            i = run;
        }
        if (i < n) {
            unsigned char c = (unsigned char)s[i++];
            char seq[8];
            switch (c) {
            case '"': put(o, "\\\"", 2); break;
            case '\\': put(o, "\\\\", 2); break;
            case '\b': put(o, "\\b", 2); break;
            case '\f': put(o, "\\f", 2); break;
            case '\n': put(o, "\\n", 2); break;
            case '\r': put(o, "\\r", 2); break;
            case '\t': put(o, "\\t", 2); break;
            default:
                snprintf(seq, sizeof(seq), "\\u%04X", (unsigned)c);
                put(o, seq, 6);
            }
        }
    }
    put1(o, '"');
    /* Jansson refuses text that is not UTF-8; so does this (its caller
     * then asks Jansson). */
    return high && !trv_utf8_valid(s, n) ? -1 : 0;
}

/* The money fast path of real(): d the double nearest to a whole number of
 * hundredths k, |k| < 10^13, is written as that decimal without %.15g
 * (whose digit generation was a twentieth of a hotel offers answer's CPU,
 * docs/performance.md). The same text: k/100 has at most 13 significant
 * digits and d lies within half an ulp of it (2^-53 relative), far inside
 * half a unit of the 15th digit, so %.15g rounds d to exactly k/100, in
 * fixed notation (exponent -2 to 10), trailing zeros dropped; Jansson then
 * adds ".0" to a whole number. Negative zero ("-0.0") and anything else
 * answer 0: left to snprintf. */
static int real_cents(out *o, double d)
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
    put(o, p, (apr_size_t)(b + sizeof(b) - p));
    return 1;
}

/* Jansson's jsonp_dtostr with JSON_REAL_PRECISION(15) into its 24-byte
 * buffer: %.15g, ".0" when neither '.' nor 'e' is there, the exponent
 * without '+' and leading zeros. -1 where Jansson's dump fails. */
static int real(out *o, double d)
{
    char b[64], *start, *end;
    int n;
    apr_size_t len;
    if (real_cents(o, d)) {
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
    put(o, b, len);
    return 0;
}

static int value(out *o, const json_t *v, int depth)
{
    char b[32];
    int n;
    if (depth > TRV_JSON_WRITE_MAX_DEPTH) {
        return -1;
    }
    switch (json_typeof(v)) {
    case JSON_NULL: put(o, "null", 4); return 0;
    case JSON_TRUE: put(o, "true", 4); return 0;
    case JSON_FALSE: put(o, "false", 5); return 0;
    case JSON_INTEGER:
        n = snprintf(b, sizeof(b), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        put(o, b, (apr_size_t)n);
        return 0;
    case JSON_REAL:
        return real(o, json_real_value(v));
    case JSON_STRING:
        return string(o, json_string_value(v), json_string_length(v));
    case JSON_ARRAY: {
        size_t i, size = json_array_size(v);
        put1(o, '[');
        for (i = 0; i < size; i++) {
            if (i) {
                put1(o, ',');
            }
            if (value(o, json_array_get(v, i), depth + 1) != 0) {
                return -1;
            }
        }
        put1(o, ']');
        return 0;
    }
    case JSON_OBJECT: {
        /* Insertion order, as json_dumps without JSON_SORT_KEYS. */
        void *it = json_object_iter((json_t *)v);
        int first = 1;
        put1(o, '{');
        for (; it; it = json_object_iter_next((json_t *)v, it), first = 0) {
            const char *k = json_object_iter_key(it);
            if (!first) {
                put1(o, ',');
            }
            if (string(o, k, json_object_iter_key_len(it)) != 0) {
                return -1;
            }
            put1(o, ':');
            if (value(o, json_object_iter_value(it), depth + 1) != 0) {
                return -1;
            }
        }
        put1(o, '}');
        return 0;
    }
    default:
        return -1;
    }
}

void trv_jbuf_init(trv_jbuf *b, apr_pool_t *p, apr_size_t cap)
{
    b->p = p;
    b->cap = cap < 64 ? 64 : cap;
    b->len = 0;
    b->buf = apr_palloc(p, b->cap);
}

void trv_jbuf_put(trv_jbuf *b, const char *s, apr_size_t n)
{
    put(b, s, n);
}

void trv_jbuf_put1(trv_jbuf *b, char c)
{
    put1(b, c);
}

int trv_jbuf_string(trv_jbuf *b, const char *s, apr_size_t n)
{
    return string(b, s, n);
}

int trv_jbuf_real(trv_jbuf *b, double d)
{
    return real(b, d);
}

int trv_jbuf_value(trv_jbuf *b, const json_t *v)
{
    return value(b, v, 0);
}

char *trv_jbuf_text(trv_jbuf *b)
{
    room(b, 0);
    b->buf[b->len] = '\0';
    return b->buf;
}

char *trv_json_write(apr_pool_t *p, const json_t *v, apr_size_t *len)
{
    out o;
    if (!v) {
        return NULL;
    }
    trv_jbuf_init(&o, p, 1024);
    if (value(&o, v, 0) != 0) {
        return NULL;
    }
    o.buf[o.len] = '\0';
    if (len) {
        *len = o.len;
    }
    return o.buf;
}
