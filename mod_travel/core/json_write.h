/* A Jansson value written as JSON text the way json_dumps writes it with
 * TRV_JSON_DUMP_FLAGS | JSON_ENCODE_ANY, byte for byte, into one buffer of
 * the pool.
 *
 * Why: json_dumps hands every piece (each key, each quote, each comma) to
 * a callback that appends it to a growing buffer, escapes strings one
 * code point at a time, and its text is then copied into the pool; that
 * was a quarter of a hotel offers request's CPU (59 kB of answer,
 * docs/performance.md). Here a string is copied in runs up to the next
 * byte that needs escaping, numbers are formatted as Jansson formats them
 * (integers as %lld, reals with %.15g and Jansson's touch-ups), and the
 * text is made where it stays.
 *
 * What it does not write as Jansson would (text that is not well-formed
 * UTF-8, a tree deeper than TRV_JSON_WRITE_MAX_DEPTH, a real Jansson's
 * buffer would not hold) it does not write at all: NULL, and the caller
 * asks json_dumps (trv_json_dump does), so the outcome is Jansson's in
 * every case. tests/unit/test_json_write.c compares the two on random
 * trees. */
#ifndef TRV_CORE_JSON_WRITE_H
#define TRV_CORE_JSON_WRITE_H

#include <apr_pools.h>
#include <jansson.h>

#define TRV_JSON_WRITE_MAX_DEPTH 512

/* v's text in p (NUL-terminated; *len its length when len is not NULL),
 * or NULL when v is NULL or is one of the cases above. */
char *trv_json_write(apr_pool_t *p, const json_t *v, apr_size_t *len);

/* The writer's buffer and pieces, for text written piece by piece without
 * a tree (the sandbox's supplier answers, sandbox/jtext.c): the same
 * escaping and number forms as trv_json_write, so the same bytes as
 * json_dumps of the tree those pieces describe. The buffer grows in p. */
typedef struct trv_jbuf {
    apr_pool_t *p;
    char *buf;
    apr_size_t len, cap;
} trv_jbuf;

void trv_jbuf_init(trv_jbuf *b, apr_pool_t *p, apr_size_t cap);
void trv_jbuf_put(trv_jbuf *b, const char *s, apr_size_t n);
void trv_jbuf_put1(trv_jbuf *b, char c);
/* s (n bytes) as a JSON string; -1 (written all the same) when s is not
 * UTF-8, which Jansson would refuse. */
int trv_jbuf_string(trv_jbuf *b, const char *s, apr_size_t n);
/* d as Jansson writes a real; -1 (nothing written) where its dump fails. */
int trv_jbuf_real(trv_jbuf *b, double d);
/* v as trv_json_write writes it; -1 where it gives NULL. */
int trv_jbuf_value(trv_jbuf *b, const json_t *v);
/* The text so far, NUL-terminated (b->len bytes). */
char *trv_jbuf_text(trv_jbuf *b);

#endif
