#include "jval.h"
#include "json_scan.h"

#include <apr_strings.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Jansson's JSON_PARSER_MAX_DEPTH. */
#define MAX_DEPTH 2048

/* Objects of up to this many keys are checked for a repeated key pair by
 * pair (behind a filter), larger ones with a table. */
#define TRV_JVAL_PAIRWISE 32

typedef struct parser {
    apr_pool_t *p;
    char *buf;
    apr_size_t len, pos;
    trv_jval *nodes;
    apr_uint32_t count, cap;
    const char *error;
} parser;

static int fail(parser *ps, const char *why)
{
    ps->error = apr_psprintf(ps->p, "%s at byte %" APR_SIZE_T_FMT, why, ps->pos);
    return -1;
}

/* The value array twice as large (rare: it starts at one value per 6
 * bytes of answer). */
static __attribute__((noinline)) int grow(parser *ps)
{
    trv_jval *grown;
    if (ps->cap >= 0x40000000u) {
        return fail(ps, "too many values");
    }
    grown = apr_palloc(ps->p, sizeof(trv_jval) * ps->cap * 2);
    memcpy(grown, ps->nodes, sizeof(trv_jval) * ps->count);
    ps->nodes = grown;
    ps->cap *= 2;
    return 0;
}

/* A new node (its index), the array doubled when full. Inline: called
 * for every value (840,000 times in 40 hotel searches). */
static inline __attribute__((always_inline)) long add(parser *ps, unsigned char type)
{
    trv_jval *v;
    if (ps->count == ps->cap && grow(ps) < 0) {
        return -1;
    }
    v = &ps->nodes[ps->count];
    v->type = type;
    v->n = 0;
    v->skip = 1;
    v->u.i = 0;
    return (long)ps->count++;
}

/* Inline, and a byte above the space answered first: called before every
 * value and after it (42,000 times a hotel search), nearly always on a
 * byte that is not white space (suppliers answer compact JSON), so the
 * call itself was most of its cost (docs/performance.md, "The hotel
 * search's gateway CPU"). */
static inline __attribute__((always_inline)) void skip_ws(parser *ps)
{
    while (ps->pos < ps->len) {
        unsigned char c = (unsigned char)ps->buf[ps->pos];
        if (c > ' ' || (c != ' ' && c != '\t' && c != '\n' && c != '\r')) {
            return;
        }
        ps->pos++;
    }
}

static int hex4(const char *s, unsigned *out)
{
    unsigned v = 0;
    int i;
    for (i = 0; i < 4; i++) {
        char c = s[i];
        v <<= 4;
        if (c >= '0' && c <= '9') {
            v |= (unsigned)(c - '0');
        }
        else if (c >= 'a' && c <= 'f') {
            v |= (unsigned)(c - 'a' + 10);
        }
        else if (c >= 'A' && c <= 'F') {
            v |= (unsigned)(c - 'A' + 10);
        }
        else {
            return -1;
        }
    }
    *out = v;
    return 0;
}

static char *put_utf8(char *d, unsigned cp)
{
    if (cp < 0x80) {
        *d++ = (char)cp;
    }
    else if (cp < 0x800) {
        *d++ = (char)(0xC0 | (cp >> 6));
        *d++ = (char)(0x80 | (cp & 0x3F));
    }
    else if (cp < 0x10000) {
        *d++ = (char)(0xE0 | (cp >> 12));
        *d++ = (char)(0x80 | ((cp >> 6) & 0x3F));
        *d++ = (char)(0x80 | (cp & 0x3F));
    }
    else {
        *d++ = (char)(0xF0 | (cp >> 18));
        *d++ = (char)(0x80 | ((cp >> 12) & 0x3F));
        *d++ = (char)(0x80 | ((cp >> 6) & 0x3F));
        *d++ = (char)(0x80 | (cp & 0x3F));
    }
    return d;
}

/* The length of the well-formed UTF-8 sequence at s (at most left bytes)
 * that starts with a byte >= 0x80, or 0: Jansson's utf8_check_full. */
static int utf8_seq(const unsigned char *s, apr_size_t left)
{
    unsigned cp;
    int n, i;
    if (s[0] >= 0xC2 && s[0] <= 0xDF) {
        n = 2;
        cp = s[0] & 0x1F;
    }
    else if (s[0] >= 0xE0 && s[0] <= 0xEF) {
        n = 3;
        cp = s[0] & 0x0F;
    }
    else if (s[0] >= 0xF0 && s[0] <= 0xF4) {
        n = 4;
        cp = s[0] & 0x07;
    }
    else {
        return 0;
    }
    if ((apr_size_t)n > left) {
        return 0;
    }
    for (i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80) {
            return 0;
        }
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if ((n == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF)))
        || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF))) {
        return 0;
    }
    return n;
}

/* The string whose opening quote is at pos, unescaped in place. Inline:
 * a string is most values and every key, and the call's own cost was a
 * fifth of reading one. */
static inline __attribute__((always_inline)) int string(parser *ps, unsigned char type,
                                                        long *idx)
{
    char *b = ps->buf, *start, *d;
    apr_size_t s = ps->pos + 1, len = ps->len;
    if ((*idx = add(ps, type)) < 0) {
        return -1;
    }
    start = d = b + s;
    for (;;) {
        unsigned char c;
        /* A run of plain ASCII, moved only once an escape has made the
         * text shorter than the answer's (most strings have none and stay
         * where they are). */
        apr_size_t run = s + trv_json_plain_len(b + s, len - s);
        if (run > s) {
            if (d != b + s) {
                memmove(d, b + s, run - s);
            }
            d += run - s;
            s = run;
        }
        if (s >= len) {
            ps->pos = s;
            return fail(ps, "premature end of input in a string");
        }
        c = (unsigned char)b[s];
        if (c == '"') {
            break;
        }
        if (c < 0x20) {
            ps->pos = s;
            return fail(ps, "control character in a string");
        }
        if (c >= 0x80) {
            int n = utf8_seq((const unsigned char *)b + s, len - s);
            if (!n) {
                ps->pos = s;
                return fail(ps, "invalid UTF-8 in a string");
            }
            memmove(d, b + s, (size_t)n);
            d += n;
            s += (apr_size_t)n;
            continue;
        }
        /* An escape. */
        if (s + 1 >= len) {
            ps->pos = s;
            return fail(ps, "premature end of input in a string");
        }
        c = (unsigned char)b[s + 1];
        switch (c) {
        case '"': case '\\': case '/': *d++ = (char)c; break;
        case 'b': *d++ = '\b'; break;
        case 'f': *d++ = '\f'; break;
        case 'n': *d++ = '\n'; break;
        case 'r': *d++ = '\r'; break;
        case 't': *d++ = '\t'; break;
        case 'u': {
            unsigned cp, lo;
            if (s + 6 > len || hex4(b + s + 2, &cp) != 0) {
                ps->pos = s;
                return fail(ps, "invalid \\u escape");
            }
            if (cp >= 0xDC00 && cp <= 0xDFFF) {
                ps->pos = s;
                return fail(ps, "invalid Unicode (a lone low surrogate)");
            }
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                if (s + 12 > len || b[s + 6] != '\\' || b[s + 7] != 'u'
                    || hex4(b + s + 8, &lo) != 0 || lo < 0xDC00 || lo > 0xDFFF) {
                    ps->pos = s;
                    return fail(ps, "invalid Unicode (a high surrogate without its pair)");
                }
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                s += 6;
            }
            if (cp == 0) {
                ps->pos = s;
                return fail(ps, "\\u0000 is not allowed");
            }
            d = put_utf8(d, cp);
            s += 6;
            continue;
        }
        default:
            ps->pos = s;
            return fail(ps, "invalid escape");
        }
        s += 2;
    }
    /* The text is never longer than its escaped form: d <= the quote. */
    *d = '\0';
    ps->nodes[*idx].u.s = start;
    ps->nodes[*idx].n = (apr_uint32_t)(d - start);
    ps->pos = s + 1;
    return 0;
}

/* Jansson reads one byte past a number or a word and puts it back; a NUL
 * byte put back reads as "nothing buffered" and is skipped. Skipped here
 * too, so the same answers are refused. */
static void ungot_nul(parser *ps)
{
    if (ps->pos < ps->len && ps->buf[ps->pos] == '\0') {
        ps->pos++;
    }
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* The short numbers answers are made of, without strtoll/strtod (a tenth
 * of reading a flight search's answer; docs/performance.md): an integer
 * of up to 18 digits cannot overflow; a real without an exponent and of
 * up to 15 digits is its digits (exactly a double, below 2^53) over a
 * power of ten (exactly a double up to 10^22), and one IEEE division of
 * two exact values is correctly rounded, as strtod is: the same double
 * (Clinger's fast path). 0 when the number is not such: strto* read it. */
static int fast_number(const char *t, const char *end, int real, trv_jval *v)
{
    static const double pow10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
                                   1e11, 1e12, 1e13, 1e14, 1e15};
    apr_uint64_t m = 0;
    int neg = *t == '-', digits = 0, frac = -1;
    for (t += neg; t < end; t++) {
        if (*t == '.') {
            frac = 0;
            continue;
        }
        if (*t < '0' || *t > '9') {
            return 0;   /* an exponent */
        }
        m = m * 10 + (apr_uint64_t)(*t - '0');
        digits++;
        frac += frac >= 0;
        if (digits > (real ? 15 : 18)) {
            return 0;
        }
    }
    if (!real) {
        v->u.i = neg ? -(apr_int64_t)m : (apr_int64_t)m;
    }
    else {
        double d = (double)m / pow10[frac];
        v->u.d = neg ? -d : d;
    }
    return 1;
}

/* The number at pos, as Jansson lexes it. */
static int number(parser *ps)
{
    const char *b = ps->buf;
    apr_size_t s = ps->pos, e = s, len = ps->len;
    int real = 0;
    char small[64], *text;
    long idx;
    if (e < len && b[e] == '-') {
        e++;
    }
    if (e < len && b[e] == '0') {
        e++;
        if (e < len && is_digit(b[e])) {
            return fail(ps, "invalid number (a leading zero)");
        }
    }
    else if (e < len && is_digit(b[e])) {
        while (e < len && is_digit(b[e])) {
            e++;
        }
    }
    else {
        return fail(ps, "invalid token");
    }
    if (e < len && b[e] == '.') {
        e++;
        if (!(e < len && is_digit(b[e]))) {
            return fail(ps, "invalid number (no digit after the point)");
        }
        while (e < len && is_digit(b[e])) {
            e++;
        }
        real = 1;
    }
    if (e < len && (b[e] == 'e' || b[e] == 'E')) {
        e++;
        if (e < len && (b[e] == '+' || b[e] == '-')) {
            e++;
        }
        if (!(e < len && is_digit(b[e]))) {
            return fail(ps, "invalid number (no digit in the exponent)");
        }
        while (e < len && is_digit(b[e])) {
            e++;
        }
        real = 1;
    }
    if ((idx = add(ps, real ? TRV_JVAL_REAL : TRV_JVAL_INT)) < 0) {
        return -1;
    }
    if (fast_number(b + s, b + e, real, &ps->nodes[idx])) {
        ps->pos = e;
        ungot_nul(ps);
        return 0;
    }
    text = e - s < sizeof(small) ? small : apr_palloc(ps->p, e - s + 1);
    memcpy(text, b + s, e - s);
    text[e - s] = '\0';
    errno = 0;
    if (real) {
        double d = strtod(text, NULL);
        /* Jansson refuses an overflow, not an underflow. */
        if (isinf(d)) {
            return fail(ps, "real number overflow");
        }
        ps->nodes[idx].u.d = d;
    }
    else {
        long long v = strtoll(text, NULL, 10);
        if (errno == ERANGE) {
            return fail(ps, v < 0 ? "too big negative integer" : "too big integer");
        }
        ps->nodes[idx].u.i = (apr_int64_t)v;
    }
    ps->pos = e;
    ungot_nul(ps);
    return 0;
}

/* Inline, so that word's length and comparison are constants. */
static inline __attribute__((always_inline)) int literal(parser *ps, const char *word,
                                                         unsigned char type)
{
    apr_size_t n = strlen(word);
    if (ps->len - ps->pos < n || memcmp(ps->buf + ps->pos, word, n) != 0) {
        return fail(ps, "invalid token");
    }
    ps->pos += n;
    ungot_nul(ps);
    return add(ps, type) < 0 ? -1 : 0;
}

/* FNV-1a of a key's bytes. */
static apr_uint32_t key_hash(const char *s, apr_uint32_t n)
{
    apr_uint32_t h = 2166136261u, i;
    for (i = 0; i < n; i++) {
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    }
    return h;
}

/* 0 when the object at index obj has no key twice (JSON_REJECT_DUPLICATES).
 * A few keys are compared pairwise; more go into an open-addressed table
 * of at least twice as many slots (was: sorted with qsort, 4,000
 * instructions an object of a hotel answer, docs/performance.md, "The
 * hotel search's gateway CPU"). */
static int unique_keys(parser *ps, apr_uint32_t obj)
{
    const trv_jval *o = &ps->nodes[obj], *k;
    apr_uint32_t n = o->n, i, j;
    if (n < 2) {
        return 0;
    }
    if (n <= TRV_JVAL_PAIRWISE) {
        const trv_jval *keys[TRV_JVAL_PAIRWISE];
        /* A bit for each key's (length, first byte, last byte): a key is
         * compared with the others only when its bit was already set, as
         * a repeated key's always is (the pairs were a tenth of reading a
         * flight search's answer). */
        apr_uint64_t seen = 0;
        for (i = 0, k = o + 1; i < n; i++, k = k + 1 + k[1].skip) {
            apr_uint32_t h = k->n & 0xff;
            apr_uint64_t bit;
            if (k->n) {
                h |= (apr_uint32_t)(unsigned char)k->u.s[0] << 8
                     | (apr_uint32_t)(unsigned char)k->u.s[k->n - 1] << 16;
            }
            bit = (apr_uint64_t)1 << ((h * 0x9E3779B1u) >> 26);
            keys[i] = k;
            if (!(seen & bit)) {
                seen |= bit;
                continue;
            }
            for (j = 0; j < i; j++) {
                /* The length and first byte first: most keys differ there,
                 * and a call to memcmp for each pair was a sixth of
                 * reading an answer. */
                if (keys[j]->n == k->n && (k->n == 0 || keys[j]->u.s[0] == k->u.s[0])
                    && memcmp(keys[j]->u.s, k->u.s, k->n) == 0) {
                    return fail(ps, "duplicate object key");
                }
            }
        }
        return 0;
    }
    {
        /* Up to 128 keys in a table on the stack, more in one malloc'd. */
        const trv_jval *local[256], **slots = local;
        apr_uint32_t size = 32, mask;
        int dup = 0;
        while (size < 2 * n) {
            size *= 2;
        }
        if (size > 256 && !(slots = malloc(sizeof(*slots) * size))) {
            return fail(ps, "out of memory");
        }
        memset(slots, 0, sizeof(*slots) * size);
        mask = size - 1;
        for (i = 0, k = o + 1; i < n && !dup; i++, k = k + 1 + k[1].skip) {
            apr_uint32_t h = key_hash(k->u.s, k->n) & mask;
            while (slots[h]) {
                if (slots[h]->n == k->n && memcmp(slots[h]->u.s, k->u.s, k->n) == 0) {
                    dup = 1;
                    break;
                }
                h = (h + 1) & mask;
            }
            slots[h] = k;
        }
        if (slots != local) {
            free(slots);
        }
        return dup ? fail(ps, "duplicate object key") : 0;
    }
}

const trv_jval *trv_jval_parse(apr_pool_t *p, char *buf, apr_size_t len, const char **error)
{
    parser ps;
    apr_uint32_t *stack = NULL;
    int depth = 0;
    long idx;
    memset(&ps, 0, sizeof(ps));
    ps.p = p;
    ps.buf = buf;
    ps.len = len;
    /* Room for one value (a key is one) per 6 bytes: compact answers
     * such as Duffel's offers hold about one per 7-8, and a full array is
     * copied to one twice its size (one per 12, as before, made every
     * flight search copy 300 kB). Pages beyond the last value are not
     * touched. */
    ps.cap = (apr_uint32_t)(len / 6 > 64 ? (len / 6 < 0x1000000 ? len / 6 : 0x1000000) : 64);
    ps.nodes = apr_palloc(p, sizeof(trv_jval) * ps.cap);

value:
    skip_ws(&ps);
    if (ps.pos >= ps.len) {
        fail(&ps, "premature end of input");
        goto error;
    }
    switch (ps.buf[ps.pos]) {
    case '{':
    case '[':
        if (depth == MAX_DEPTH) {
            fail(&ps, "maximum parsing depth reached");
            goto error;
        }
        if (!stack) {
            stack = apr_palloc(p, sizeof(*stack) * MAX_DEPTH);
        }
        if ((idx = add(&ps, ps.buf[ps.pos] == '{' ? TRV_JVAL_OBJECT : TRV_JVAL_ARRAY)) < 0) {
            goto error;
        }
        stack[depth++] = (apr_uint32_t)idx;
        ps.pos++;
        skip_ws(&ps);
        if (ps.pos < ps.len && ps.buf[ps.pos] == (ps.nodes[idx].type == TRV_JVAL_OBJECT ? '}' : ']')) {
            ps.pos++;
            goto close;
        }
        if (ps.nodes[idx].type == TRV_JVAL_OBJECT) {
            goto key;
        }
        goto value;
    case '"':
        if (string(&ps, TRV_JVAL_STRING, &idx) != 0) {
            goto error;
        }
        goto after;
    case 't':
        if (literal(&ps, "true", TRV_JVAL_TRUE) != 0) {
            goto error;
        }
        goto after;
    case 'f':
        if (literal(&ps, "false", TRV_JVAL_FALSE) != 0) {
            goto error;
        }
        goto after;
    case 'n':
        if (literal(&ps, "null", TRV_JVAL_NULL) != 0) {
            goto error;
        }
        goto after;
    default:
        if (number(&ps) != 0) {
            goto error;
        }
        goto after;
    }

key:
    skip_ws(&ps);
    if (ps.pos >= ps.len || ps.buf[ps.pos] != '"') {
        fail(&ps, ps.pos >= ps.len ? "premature end of input" : "string or '}' expected");
        goto error;
    }
    if (string(&ps, TRV_JVAL_STRING, &idx) != 0) {
        goto error;
    }
    skip_ws(&ps);
    if (ps.pos >= ps.len || ps.buf[ps.pos] != ':') {
        fail(&ps, "':' expected");
        goto error;
    }
    ps.pos++;
    goto value;

close: {
        apr_uint32_t top = stack[--depth];
        ps.nodes[top].skip = ps.count - top;
        if (ps.nodes[top].type == TRV_JVAL_OBJECT && unique_keys(&ps, top) != 0) {
            goto error;
        }
    }
    /* fall through: the container is a value of its own container */
after:
    if (depth == 0) {
        skip_ws(&ps);
        if (ps.pos != ps.len) {
            fail(&ps, "end of input expected");
            goto error;
        }
        return &ps.nodes[0];
    }
    {
        trv_jval *top = &ps.nodes[stack[depth - 1]];
        int obj = top->type == TRV_JVAL_OBJECT;
        top->n++;
        skip_ws(&ps);
        if (ps.pos < ps.len && ps.buf[ps.pos] == ',') {
            ps.pos++;
            if (obj) {
                goto key;
            }
            goto value;
        }
        if (ps.pos < ps.len && ps.buf[ps.pos] == (obj ? '}' : ']')) {
            ps.pos++;
            goto close;
        }
        fail(&ps, ps.pos >= ps.len ? "premature end of input"
                                   : obj ? "'}' expected" : "']' expected");
    }

error:
    if (error) {
        *error = ps.error;
    }
    return NULL;
}

const trv_jval *trv_jval_get(const trv_jval *obj, const char *key)
{
    const trv_jval *k;
    apr_size_t n, i, kl;
    if (!obj || obj->type != TRV_JVAL_OBJECT || !key) {
        return NULL;
    }
    n = obj->n;
    kl = strlen(key);
    for (i = 0, k = obj + 1; i < n; i++, k = k + 1 + k[1].skip) {
        if (k->n == kl && memcmp(k->u.s, key, kl) == 0) {
            return k + 1;
        }
    }
    return NULL;
}

const trv_jval *trv_jval_at(const trv_jval *arr, apr_size_t i)
{
    const trv_jval *v;
    apr_size_t k;
    if (!arr || arr->type != TRV_JVAL_ARRAY || i >= arr->n) {
        return NULL;
    }
    for (k = 0, v = arr + 1; k < i; k++) {
        v += v->skip;
    }
    return v;
}

apr_size_t trv_jval_len(const trv_jval *v)
{
    return v && v->type == TRV_JVAL_ARRAY ? v->n : 0;
}

apr_size_t trv_jval_members(const trv_jval *v)
{
    return v && v->type == TRV_JVAL_OBJECT ? v->n : 0;
}

const char *trv_jval_str(const trv_jval *v)
{
    return v && v->type == TRV_JVAL_STRING ? v->u.s : NULL;
}

const char *trv_jval_strget(const trv_jval *obj, const char *key)
{
    return trv_jval_str(trv_jval_get(obj, key));
}

apr_int64_t trv_jval_int(const trv_jval *v)
{
    return v && v->type == TRV_JVAL_INT ? v->u.i : 0;
}

double trv_jval_num(const trv_jval *v)
{
    if (!v) {
        return 0;
    }
    return v->type == TRV_JVAL_INT ? (double)v->u.i : v->type == TRV_JVAL_REAL ? v->u.d : 0;
}
