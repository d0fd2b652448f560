/* A read-only JSON document for suppliers' answers: parsed in one pass
 * into one flat array of values, its strings left where they are in the
 * answer's own buffer.
 *
 * Why: a supplier answer read with Jansson becomes a tree of one
 * allocation per value and one hashtable per object, walked again to be
 * freed; that was most of the gateway's CPU on the search path
 * (docs/performance.md). An adapter reads a few fields of each answer:
 * here a value is 24 bytes of one array, a key is found by comparing the
 * object's keys in order, and the whole document goes with its pool.
 *
 * It accepts exactly what trv_json_parse (Jansson with JSON_DECODE_ANY |
 * JSON_REJECT_DUPLICATES) accepts, so an answer refused before is refused
 * now (tests/unit/test_jval.c, tests/fuzz/fuzz_jval.c compare the two):
 * any value at the top, well-formed UTF-8, no \u0000, no duplicate key in
 * an object, integers within 64 bits, reals within a double, depth up to
 * 2048. Numbers are read as Jansson reads them (an integer is a number
 * without fraction or exponent). */
#ifndef TRV_CORE_JVAL_H
#define TRV_CORE_JVAL_H

#include <apr_pools.h>

enum {
    TRV_JVAL_NULL = 0,
    TRV_JVAL_FALSE,
    TRV_JVAL_TRUE,
    TRV_JVAL_INT,
    TRV_JVAL_REAL,
    TRV_JVAL_STRING,
    TRV_JVAL_ARRAY,
    TRV_JVAL_OBJECT
};

/* One value. An array's items follow it in order, an object's members as
 * key (a string) then value; skip counts this value's nodes, itself
 * included, so the next sibling is at v + v->skip. */
typedef struct trv_jval {
    unsigned char type;
    apr_uint32_t n;          /* a string's length; an array's items; an object's members */
    apr_uint32_t skip;
    union {
        const char *s;       /* a string's text, NUL-terminated (in the parsed buffer) */
        apr_int64_t i;
        double d;
    } u;
} trv_jval;

/* Parses buf[0..len), which it changes: strings are unescaped in place
 * and NUL-terminated (buf must stay as long as the document). The
 * document's root, allocated from p, or NULL with *error (may be NULL) a
 * sentence saying where and why. */
const trv_jval *trv_jval_parse(apr_pool_t *p, char *buf, apr_size_t len, const char **error);

/* Readers, NULL-safe as Jansson's: a missing or mistyped value reads as
 * NULL, 0 or false. */
const trv_jval *trv_jval_get(const trv_jval *obj, const char *key);
/* An array's item i (walks the items before it: use trv_jval_foreach to
 * read them all). */
const trv_jval *trv_jval_at(const trv_jval *arr, apr_size_t i);
/* An array's items (0 for anything else). */
apr_size_t trv_jval_len(const trv_jval *v);
/* An object's members (0 for anything else). */
apr_size_t trv_jval_members(const trv_jval *v);
/* A string's text, or NULL. */
const char *trv_jval_str(const trv_jval *v);
/* The text of obj's member key when it is a string (trv_json_str's twin). */
const char *trv_jval_strget(const trv_jval *obj, const char *key);
/* An integer's value (0 for anything else: json_integer_value). */
apr_int64_t trv_jval_int(const trv_jval *v);
/* A number's value, integer or real (0 for anything else:
 * json_number_value). */
double trv_jval_num(const trv_jval *v);

#define trv_jval_is(v, t) ((v) && (v)->type == (t))
#define trv_jval_is_object(v) trv_jval_is(v, TRV_JVAL_OBJECT)
#define trv_jval_is_array(v) trv_jval_is(v, TRV_JVAL_ARRAY)
#define trv_jval_is_string(v) trv_jval_is(v, TRV_JVAL_STRING)
#define trv_jval_is_int(v) trv_jval_is(v, TRV_JVAL_INT)
#define trv_jval_is_true(v) trv_jval_is(v, TRV_JVAL_TRUE)
#define trv_jval_is_number(v) ((v) && ((v)->type == TRV_JVAL_INT || (v)->type == TRV_JVAL_REAL))

/* The next sibling of an item or member value. */
#define trv_jval_next(v) ((v) + (v)->skip)

/* for each item v (index i) of arr; none when arr is not an array. */
#define trv_jval_foreach(arr, i, v)                                                   \
    for ((i) = 0, (v) = trv_jval_len(arr) ? (arr) + 1 : NULL; (i) < trv_jval_len(arr); \
         (i)++, (v) = (i) < trv_jval_len(arr) ? trv_jval_next(v) : NULL)

/* for each member of obj: key (its text) and value v, index i. */
#define trv_jval_foreach_member(obj, i, key, v)                                        \
    for ((i) = 0, (v) = trv_jval_members(obj) ? (obj) + 2 : NULL,                       \
         (key) = (v) ? ((v) - 1)->u.s : NULL;                                           \
         (i) < trv_jval_members(obj);                                                  \
         (i)++, (v) = (i) < trv_jval_members(obj) ? trv_jval_next(v) + 1 : NULL,       \
         (key) = (v) ? ((v) - 1)->u.s : NULL)

#endif
