/* A supplier answer written as JSON text directly, piece by piece, instead
 * of built as a Jansson tree and then written out.
 *
 * Why: the sandbox's hotel suppliers built every search answer (hundreds
 * of rates, tens of kB) with json_pack, then wrote and freed the tree:
 * Jansson and the writer were about half of the sandbox's CPU per hotel
 * search, and on a 2-core machine the sandbox's CPU is spent beside the
 * gateway's (docs/performance.md, "The sandbox's answers written as
 * text"). The pieces are core/json_write.c's (trv_jbuf), so strings are
 * escaped and numbers formatted exactly as json_dumps writes the tree the
 * calls describe: the same bytes on the wire.
 *
 * Commas are the writer's: a value or key after another one gets its ','
 * (compact JSON: a value follows '{', '[' or ':' or needs a comma). Keys
 * are written in call order, as Jansson keeps an object's insertion
 * order. */
#ifndef SBX_JTEXT_H
#define SBX_JTEXT_H

#include "core/api.h"
#include "core/json_write.h"

typedef struct sbx_jt {
    trv_jbuf b;
    int bad;          /* a string that is not UTF-8, a real Jansson refuses */
} sbx_jt;

void sbx_jt_init(sbx_jt *t, apr_pool_t *p, apr_size_t cap);

/* '{' or '[' as a value; sbx_jt_close ends it with '}' or ']'. */
void sbx_jt_open(sbx_jt *t, char c);
void sbx_jt_close(sbx_jt *t, char c);
/* An object's key (escaped), then its value's call. */
void sbx_jt_key(sbx_jt *t, const char *k);

/* Values. A NULL string is null (json_pack's "s?"). */
void sbx_jt_str(sbx_jt *t, const char *s);
void sbx_jt_int(sbx_jt *t, apr_int64_t v);
void sbx_jt_bool(sbx_jt *t, int v);
void sbx_jt_null(sbx_jt *t);
void sbx_jt_real(sbx_jt *t, double d);
/* A small tree written in place (e.g. Hotelbeds' auditData). */
void sbx_jt_json(sbx_jt *t, const json_t *v);
/* minor units of currency as sbx_amount writes them ("123.40"), a string. */
void sbx_jt_amount(sbx_jt *t, apr_int64_t minor, const char *currency);
/* minor units as trv_money_amount_json's number (LiteAPI's: 123.4, 120). */
void sbx_jt_money_number(sbx_jt *t, apr_int64_t minor, const char *currency);
/* Unix seconds as sbx_instant writes them, a string. */
void sbx_jt_instant(sbx_jt *t, apr_int64_t unix_secs);

/* key and value in one call. */
void sbx_jt_kstr(sbx_jt *t, const char *k, const char *s);
void sbx_jt_kint(sbx_jt *t, const char *k, apr_int64_t v);
void sbx_jt_kbool(sbx_jt *t, const char *k, int v);
void sbx_jt_kreal(sbx_jt *t, const char *k, double d);
void sbx_jt_kamount(sbx_jt *t, const char *k, apr_int64_t minor, const char *currency);
void sbx_jt_kopen(sbx_jt *t, const char *k, char c);

/* The text so far, NUL-terminated, or NULL after a bad piece. */
const char *sbx_jt_text(sbx_jt *t, apr_size_t *len);
/* A Jansson tree of the text (a new reference), for the few answers that
 * embed a piece in a tree; NULL after a bad piece. */
json_t *sbx_jt_tree(sbx_jt *t);
/* Answers the text as the whole body (what sbx_send does with a tree); a
 * bad piece answers 500, as a tree json_pack could not build would. */
void sbx_jt_send(trv_req *req, trv_resp *resp, int status, sbx_jt *t);

#endif
