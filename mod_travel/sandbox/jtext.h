/* The sandbox's pieces of a supplier answer written as JSON text
 * (core/json_text.h's trv_jtext), beside the writer's own: amounts as the
 * suppliers write them, LiteAPI's money numbers, instants, a small tree in
 * place, and the answer sent as the whole body.
 *
 * Why: the hotel suppliers built every search answer (hundreds of rates,
 * tens of kB) with json_pack, then wrote and freed the tree: Jansson and
 * the writer were about half of the sandbox's CPU per hotel search, and on
 * a 2-core machine the sandbox's CPU is spent beside the gateway's
 * (docs/performance.md, "The sandbox's hotel answers written as text").
 * Each piece writes what the tree it replaces was dumped as, so the
 * answers are the same bytes. */
#ifndef SBX_JTEXT_H
#define SBX_JTEXT_H

#include "core/api.h"
#include "core/json_text.h"

#include <jansson.h>

/* minor units of currency as sbx_amount writes them ("123.40"), a string. */
void sbx_jt_amount(trv_jtext *t, apr_int64_t minor, const char *currency);
void sbx_jt_kamount(trv_jtext *t, const char *key, apr_int64_t minor, const char *currency);
/* minor units as trv_money_amount_json's number (LiteAPI's: 123.4, 120). */
void sbx_jt_money_number(trv_jtext *t, apr_int64_t minor, const char *currency);
/* Unix seconds as sbx_instant writes them, a string. */
void sbx_jt_instant(trv_jtext *t, apr_int64_t unix_secs);
/* A small tree written in place (Hotelbeds' auditData). */
void sbx_jt_json(trv_jtext *t, const json_t *v);

/* A Jansson tree of the finished text (a new reference), for the few
 * answers that embed a piece in a tree; NULL when the text is not whole. */
json_t *sbx_jt_tree(trv_jtext *t);
/* Answers the finished text as the whole body (what sbx_send does with a
 * tree); a text that is not whole answers 500, as a tree json_pack could
 * not build would. */
void sbx_jt_send(trv_req *req, trv_resp *resp, int status, trv_jtext *t);

#endif
