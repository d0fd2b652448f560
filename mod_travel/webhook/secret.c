#include "secret.h"
#include "core/ids.h"

#include <apr_base64.h>
#include <apr_strings.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <string.h>

#define NONCE_LEN 12
#define TAG_LEN 16
#define SEAL_PREFIX "v1:"

static char *b64(apr_pool_t *p, const unsigned char *data, apr_size_t len)
{
    char *out = apr_palloc(p, (apr_size_t)apr_base64_encode_len((int)len));
    apr_base64_encode_binary(out, data, (int)len);
    return out;
}

/* Strict base64 (standard alphabet, padded): apr_base64_decode skips what
 * it does not know, which would accept garbage. */
static int strict_b64(const char *s)
{
    size_t n = strlen(s), i, pad = 0;
    if (n == 0 || n % 4 != 0) {
        return 0;
    }
    for (i = 0; i < n; i++) {
        char c = s[i];
        if (c == '=') {
            pad++;
            if (i < n - 2) {
                return 0;
            }
        }
        else if (pad || !((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')
                          || (c >= '0' && c <= '9') || c == '+' || c == '/')) {
            return 0;
        }
    }
    return pad <= 2;
}

static unsigned char *unb64(apr_pool_t *p, const char *s, apr_size_t *len)
{
    unsigned char *out;
    if (!strict_b64(s)) {
        return NULL;
    }
    out = apr_palloc(p, (apr_size_t)apr_base64_decode_len(s) + 1);
    *len = (apr_size_t)apr_base64_decode_binary(out, s);
    return out;
}

const char *trv_whsec_new(apr_pool_t *p)
{
    unsigned char raw[TRV_WHSEC_BYTES];
    const char *s;
    if (trv_random_bytes(raw, sizeof(raw)) != APR_SUCCESS) {
        return NULL;
    }
    s = apr_pstrcat(p, TRV_WHSEC_PREFIX, b64(p, raw, sizeof(raw)), NULL);
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
    k = unb64(p, body, len);
    if (!k || *len == 0) {
        return APR_EINVAL;
    }
    *key = k;
    return APR_SUCCESS;
}

apr_status_t trv_secret_seal(apr_pool_t *p, const unsigned char key[32],
                             const char *aad, const char *plain,
                             const char **sealed)
{
    apr_size_t n = strlen(plain);
    unsigned char *buf = apr_palloc(p, NONCE_LEN + n + TAG_LEN);
    EVP_CIPHER_CTX *ctx;
    int len = 0, ok;

    if (trv_random_bytes(buf, NONCE_LEN) != APR_SUCCESS) {
        return APR_EGENERAL;
    }
    ctx = EVP_CIPHER_CTX_new();
    if (!ctx) {
        return APR_ENOMEM;
    }
    ok = EVP_EncryptInit_ex(ctx, EVP_aes_256_gcm(), NULL, NULL, NULL) == 1
        && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, NONCE_LEN, NULL) == 1
        && EVP_EncryptInit_ex(ctx, NULL, NULL, key, buf) == 1
        && EVP_EncryptUpdate(ctx, NULL, &len, (const unsigned char *)aad,
                             (int)strlen(aad)) == 1
        && EVP_EncryptUpdate(ctx, buf + NONCE_LEN, &len, (const unsigned char *)plain,
                             (int)n) == 1
        && EVP_EncryptFinal_ex(ctx, buf + NONCE_LEN + len, &len) == 1
        && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, TAG_LEN,
                               buf + NONCE_LEN + n) == 1;
    EVP_CIPHER_CTX_free(ctx);
    if (!ok) {
        return APR_EGENERAL;
    }
    *sealed = apr_pstrcat(p, SEAL_PREFIX, b64(p, buf, NONCE_LEN + n + TAG_LEN), NULL);
    return APR_SUCCESS;
}

apr_status_t trv_secret_open(apr_pool_t *p, const unsigned char key[32],
                             const char *aad, const char *sealed,
                             const char **plain)
{
    apr_size_t n = 0;
    unsigned char *buf, *out;
    EVP_CIPHER_CTX *ctx;
    int len = 0, ok;
    apr_size_t clen;

    if (!sealed || strncmp(sealed, SEAL_PREFIX, strlen(SEAL_PREFIX)) != 0) {
        return APR_EINVAL;
    }
    buf = unb64(p, sealed + strlen(SEAL_PREFIX), &n);
    if (!buf || n < NONCE_LEN + TAG_LEN) {
        return APR_EINVAL;
    }
    clen = n - NONCE_LEN - TAG_LEN;
    out = apr_palloc(p, clen + 1);
    ctx = EVP_CIPHER_CTX_new();
    if (!ctx) {
        return APR_ENOMEM;
    }
    ok = EVP_DecryptInit_ex(ctx, EVP_aes_256_gcm(), NULL, NULL, NULL) == 1
        && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, NONCE_LEN, NULL) == 1
        && EVP_DecryptInit_ex(ctx, NULL, NULL, key, buf) == 1
        && EVP_DecryptUpdate(ctx, NULL, &len, (const unsigned char *)aad,
                             (int)strlen(aad)) == 1
        && EVP_DecryptUpdate(ctx, out, &len, buf + NONCE_LEN, (int)clen) == 1
        && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, TAG_LEN,
                               buf + NONCE_LEN + clen) == 1
        && EVP_DecryptFinal_ex(ctx, out + len, &len) == 1;
    EVP_CIPHER_CTX_free(ctx);
    if (!ok) {
        OPENSSL_cleanse(out, clen);
        return APR_EINVAL;
    }
    out[clen] = '\0';
    if (memchr(out, '\0', clen)) {
        return APR_EINVAL;
    }
    *plain = (const char *)out;
    return APR_SUCCESS;
}
