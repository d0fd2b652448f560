/* Tokens the sandbox hands out instead of storing state (offer ids, rate
 * keys, prebook ids): a text payload and a truncated HMAC-SHA256 under an
 * API's key, base64url-encoded. Anyone can read them; only the sandbox can
 * make them, so a tampered token is refused. */
#ifndef SBX_TOKEN_H
#define SBX_TOKEN_H

#include <apr_pools.h>

/* base64url without padding. */
char *sbx_b64url(apr_pool_t *p, const unsigned char *data, apr_size_t len);
/* Decodes base64url; NULL when malformed. */
unsigned char *sbx_b64url_decode(apr_pool_t *p, const char *s, apr_size_t *len);

/* payload (no NUL bytes) signed with key. */
char *sbx_token_seal(apr_pool_t *p, const char *key, const char *payload);
/* The payload of a token signed with key, or NULL (malformed, forged). */
char *sbx_token_open(apr_pool_t *p, const char *key, const char *token);

#endif
