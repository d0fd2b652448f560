/* JSON text written as it is made, without a Jansson tree: the same bytes
 * json_dumps writes with TRV_JSON_DUMP_FLAGS for the same members in the
 * same order (compact; strings escaped as Jansson escapes them; integers
 * %lld; reals %.15g with Jansson's touch-ups), into one growing buffer of
 * a pool.
 *
 * Why: an answer built as a tree costs a value, a key and a hashtable
 * insert per member, then a walk to write it and another to free it. The
 * sandbox's flight offers answer (148 kB, docs/performance.md) was half
 * its CPU in that. core/json_write.c writes trees with the same pieces
 * (trv_jtext_string, trv_jtext_real), so a tree and a text made here are
 * escaped and formatted by one implementation.
 *
 * Use: trv_jtext_init, then values; inside an object each member is
 * trv_jtext_key then one value (or one of the trv_jtext_k* shorthands).
 * Commas are the writer's business. A string that is not UTF-8 (which
 * Jansson would refuse), a real Jansson would not write, nesting beyond
 * TRV_JTEXT_MAX_DEPTH or an unbalanced end make trv_jtext_done answer
 * NULL. */
#ifndef TRV_CORE_JSON_TEXT_H
#define TRV_CORE_JSON_TEXT_H

#include <apr_pools.h>

#define TRV_JTEXT_MAX_DEPTH 32

typedef struct trv_jtext {
    apr_pool_t *p;
    char *buf;
    apr_size_t len, cap;
    int depth;
    int after_key;                        /* the next value follows a key */
    int bad;                              /* something not writable met */
    char open[TRV_JTEXT_MAX_DEPTH];       /* '{' or '[' at each depth */
    unsigned char some[TRV_JTEXT_MAX_DEPTH]; /* a member written at it */
} trv_jtext;

/* An empty text with room for cap bytes (it grows by doubling). */
void trv_jtext_init(trv_jtext *t, apr_pool_t *p, apr_size_t cap);

void trv_jtext_obj(trv_jtext *t);             /* { */
void trv_jtext_arr(trv_jtext *t);             /* [ */
void trv_jtext_end(trv_jtext *t);             /* } or ], whichever is open */
void trv_jtext_key(trv_jtext *t, const char *key);
void trv_jtext_keyn(trv_jtext *t, const char *key, apr_size_t n);
/* s as a JSON string; NULL writes null. */
void trv_jtext_str(trv_jtext *t, const char *s);
void trv_jtext_strn(trv_jtext *t, const char *s, apr_size_t n);
void trv_jtext_null(trv_jtext *t);
void trv_jtext_bool(trv_jtext *t, int v);
void trv_jtext_int(trv_jtext *t, long long v);
void trv_jtext_real(trv_jtext *t, double v);
/* A value that is already JSON text (one written by this writer or
 * trv_json_write), copied as it is. */
void trv_jtext_raw(trv_jtext *t, const char *text, apr_size_t n);

/* Key and value at once. */
void trv_jtext_kstr(trv_jtext *t, const char *key, const char *s);
void trv_jtext_knull(trv_jtext *t, const char *key);
void trv_jtext_kbool(trv_jtext *t, const char *key, int v);
void trv_jtext_kint(trv_jtext *t, const char *key, long long v);
void trv_jtext_kreal(trv_jtext *t, const char *key, double v);
void trv_jtext_kobj(trv_jtext *t, const char *key);  /* "key":{ */
void trv_jtext_karr(trv_jtext *t, const char *key);  /* "key":[ */

/* The text (NUL-terminated, in the pool; *len its length when len is not
 * NULL), or NULL when something above was met or a value is still open. */
const char *trv_jtext_done(trv_jtext *t, apr_size_t *len);

/* ---- the pieces, for writers that place their own commas ---- */

/* Appends n bytes as they are. */
void trv_jtext_put(trv_jtext *t, const char *s, apr_size_t n);
/* The comma (or nothing) due before the next value or key, for a writer
 * that then writes one value with the pieces below (core/json_write.c's
 * trv_json_write_to). */
void trv_jtext_sep(trv_jtext *t);
/* A quoted, escaped string; -1 (nothing else wrong) when s is not UTF-8. */
int trv_jtext_string(trv_jtext *t, const char *s, apr_size_t n);
/* An integer as Jansson writes it (%lld). */
void trv_jtext_integer(trv_jtext *t, long long v);
/* A real as Jansson writes it; -1 when Jansson would not write it. */
int trv_jtext_number(trv_jtext *t, double d);

#endif
