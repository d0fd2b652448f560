/* Signing secrets: made as whsec_ + base64 of 32 random bytes (the
 * Standard Webhooks form), stored only sealed with AES-256-GCM under the
 * key of TravelSecretKeyFile. */
#ifndef TRV_WEBHOOK_SECRET_H
#define TRV_WEBHOOK_SECRET_H

#include <apr_pools.h>

#define TRV_WHSEC_PREFIX "whsec_"
#define TRV_WHSEC_BYTES 32

/* A new secret "whsec_<base64 of 32 random bytes>"; NULL when the random
 * source failed. */
const char *trv_whsec_new(apr_pool_t *p);

/* The HMAC key of a secret: the base64-decoded part after whsec_ (a secret
 * without the prefix is decoded whole). APR_EINVAL when it is not base64. */
apr_status_t trv_whsec_key(apr_pool_t *p, const char *secret,
                           const unsigned char **key, apr_size_t *len);

/* Seals plain text with AES-256-GCM, a fresh random 12-byte nonce and `aad`
 * (binds the ciphertext to its owner, e.g. the subscription id):
 * "v1:" + base64(nonce | ciphertext | tag). */
apr_status_t trv_secret_seal(apr_pool_t *p, const unsigned char key[32],
                             const char *aad, const char *plain,
                             const char **sealed);
/* Opens a sealed text; APR_EINVAL when it is malformed, was sealed with
 * another key or aad, or was tampered with. */
apr_status_t trv_secret_open(apr_pool_t *p, const unsigned char key[32],
                             const char *aad, const char *sealed,
                             const char **plain);

#endif
