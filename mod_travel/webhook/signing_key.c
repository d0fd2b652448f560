#include "signing_key.h"
#include "secret.h"
#include "core/ids.h"

#include <apr_base64.h>
#include <apr_strings.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <string.h>

#define SEED_LEN 32
#define SIG_LEN 64

static char *b64(apr_pool_t *p, const char *prefix, const unsigned char *data,
                 apr_size_t len)
{
    apr_size_t plen = strlen(prefix);
    char *out = apr_palloc(p, plen + (apr_size_t)apr_base64_encode_len((int)len));
    memcpy(out, prefix, plen);
    apr_base64_encode_binary(out + plen, data, (int)len);
    return out;
}

/* The OpenSSL key of a whsk_ text; NULL when it is not a 32-byte seed. */
static EVP_PKEY *private_of(apr_pool_t *p, const char *private_key)
{
    const unsigned char *seed;
    apr_size_t len;
    if (!private_key || strncmp(private_key, TRV_WHSK_PREFIX, strlen(TRV_WHSK_PREFIX)) != 0
        || trv_whsec_key(p, private_key + strlen(TRV_WHSK_PREFIX), &seed, &len)
               != APR_SUCCESS
        || len != SEED_LEN) {
        return NULL;
    }
    return EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, NULL, seed, SEED_LEN);
}

const char *trv_whsk_new(apr_pool_t *p)
{
    unsigned char seed[SEED_LEN];
    const char *s;
    if (trv_random_bytes(seed, sizeof(seed)) != APR_SUCCESS) {
        return NULL;
    }
    s = b64(p, TRV_WHSK_PREFIX, seed, sizeof(seed));
    OPENSSL_cleanse(seed, sizeof(seed));
    return s;
}

const char *trv_whsk_public(apr_pool_t *p, const char *private_key)
{
    EVP_PKEY *k = private_of(p, private_key);
    unsigned char pub[32];
    size_t len = sizeof(pub);
    int ok;
    if (!k) {
        return NULL;
    }
    ok = EVP_PKEY_get_raw_public_key(k, pub, &len) == 1 && len == sizeof(pub);
    EVP_PKEY_free(k);
    return ok ? b64(p, TRV_WHPK_PREFIX, pub, sizeof(pub)) : NULL;
}

const char *trv_whsk_sign(apr_pool_t *p, const char *private_key, const unsigned char *msg,
                          apr_size_t msg_len)
{
    EVP_PKEY *k = private_of(p, private_key);
    EVP_MD_CTX *ctx;
    unsigned char sig[SIG_LEN];
    size_t sig_len = sizeof(sig);
    int ok;
    if (!k) {
        return NULL;
    }
    /* Ed25519 signs the message itself (no digest: NULL md, one shot). */
    ctx = EVP_MD_CTX_new();
    ok = ctx && EVP_DigestSignInit(ctx, NULL, NULL, NULL, k) == 1
         && EVP_DigestSign(ctx, sig, &sig_len, msg, msg_len) == 1 && sig_len == SIG_LEN;
    EVP_MD_CTX_free(ctx);
    EVP_PKEY_free(k);
    return ok ? b64(p, "v1a,", sig, sig_len) : NULL;
}
