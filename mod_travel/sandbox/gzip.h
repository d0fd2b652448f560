/* The sandbox's gzip of its answers, for the suppliers that compress
 * theirs (Hotelbeds): done by the handler itself with libdeflate, the
 * library the gateway decodes them with, rather than by mod_deflate
 * (zlib), whose level-1 compression and CRC were a seventh of the
 * sandbox's CPU in a hotel search (docs/performance.md). The sandbox's CPU
 * is shared by every gateway a bench compares. */
#ifndef SBX_GZIP_H
#define SBX_GZIP_H

#include "core/api.h"

/* 1 when an Accept-Encoding value accepts gzip: a "gzip" coding (any
 * case) whose q is not 0. NULL accepts nothing. */
int sbx_gzip_accepted(const char *accept_encoding);

/* Compresses resp's answer for req when req accepts gzip: the body
 * becomes resp->raw, a gzip member (Content-Encoding: gzip), of the same
 * type. A 204 or 304, or an answer already encoded, is left as it is;
 * every answer says Vary: Accept-Encoding, as mod_deflate's did. */
void sbx_gzip_answer(trv_req *req, trv_resp *resp);

#endif
