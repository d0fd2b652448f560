#include "secret.h"
#include "core/crypt.h"
#include "core/ids.h"

#include <apr_strings.h>
#include <openssl/crypto.h>
#include <string.h>

const char *trv_whsec_new(apr_pool_t *p)
{
    unsigned char raw[TRV_WHSEC_BYTES];
    const char *s;
    if (trv_random_bytes(raw, sizeof(raw)) != APR_SUCCESS) {
        return NULL;
    }
    s = apr_pstrcat(p, TRV_WHSEC_PREFIX, trv_crypt_b64(p, raw, sizeof(raw)), NULL);
    OPENSSL_cleanse(raw, sizeof(raw));
    return s;
}

apr_status_t trv_whsec_key(apr_pool_t *p, const char *secret,
                           const unsigned char **key, apr_size_t *len)
{
    const char *body = secret;
    unsigned char *k;
    if (!secret) {
        return APR_EINVAL;
    }
    if (strncmp(secret, TRV_WHSEC_PREFIX, strlen(TRV_WHSEC_PREFIX)) == 0) {
        body = secret + strlen(TRV_WHSEC_PREFIX);
    }
    k = trv_crypt_b64_decode(p, body, len);
    if (!k || *len == 0) {
        return APR_EINVAL;
    }
    *key = k;
    return APR_SUCCESS;
}
