/* Ed25519 signing keys, for the Standard Webhooks "v1a" scheme: the
 * private key is "whsk_" + base64 of its 32-byte seed (stored sealed like
 * a whsec_ secret, never shown), the public key given to the receiver is
 * "whpk_" + base64 of the raw 32-byte public key, and a signature is
 * "v1a,<base64 of the 64-byte Ed25519 signature of "<id>.<timestamp>.<body>">"
 * (OpenSSL EVP). */
#ifndef TRV_WEBHOOK_SIGNING_KEY_H
#define TRV_WEBHOOK_SIGNING_KEY_H

#include <apr_pools.h>

#define TRV_WHSK_PREFIX "whsk_"
#define TRV_WHPK_PREFIX "whpk_"

/* A new private key; NULL when the random source failed. */
const char *trv_whsk_new(apr_pool_t *p);

/* The whpk_ public key of a whsk_ private key; NULL when it is not one. */
const char *trv_whsk_public(apr_pool_t *p, const char *private_key);

/* "v1a,<base64 signature>" of msg (msg_len bytes); NULL when the key is
 * not a whsk_ key or signing failed. */
const char *trv_whsk_sign(apr_pool_t *p, const char *private_key, const unsigned char *msg,
                          apr_size_t msg_len);

#endif
