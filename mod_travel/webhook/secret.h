/* Signing secrets: made as whsec_ + base64 of 32 random bytes (the
 * Standard Webhooks form), stored only sealed (trv_crypt_seal, core/crypt.h)
 * under the key of TravelSecretKeyFile. */
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

#endif
