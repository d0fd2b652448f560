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
 * text is made where it stays. The strings and numbers are written by
 * core/json_text.c, which also writes text without a tree.
 *
 * What it does not write as Jansson would (text that is not well-formed
 * UTF-8, a tree deeper than TRV_JSON_WRITE_MAX_DEPTH, a real Jansson's
 * buffer would not hold) it does not write at all: NULL, and the caller
 * asks json_dumps (trv_json_dump does), so the outcome is Jansson's in
 * every case. tests/unit/test_json_write.c compares the two on random
 * trees. */
#ifndef TRV_CORE_JSON_WRITE_H
#define TRV_CORE_JSON_WRITE_H

#include "json_text.h"

#include <apr_pools.h>
#include <jansson.h>

#define TRV_JSON_WRITE_MAX_DEPTH 512

/* v's text in p (NUL-terminated; *len its length when len is not NULL),
 * or NULL when v is NULL or is one of the cases above. */
char *trv_json_write(apr_pool_t *p, const json_t *v, apr_size_t *len);

/* v written as t's next value (its comma placed as trv_jtext's own values
 * place theirs): a tree inside text made without one. 0, or -1 (t then
 * answers NULL at trv_jtext_done) when v is NULL or one of the cases
 * above. */
int trv_json_write_to(trv_jtext *t, const json_t *v);

#endif
