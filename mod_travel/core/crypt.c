#include "crypt.h"
#include "ids.h"

#include <apr_base64.h>
#include <apr_strings.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <string.h>

#define NONCE_LEN 12
#define TAG_LEN 16
#define SEAL_PREFIX "v1:"

char *trv_crypt_hex(apr_pool_t *p, const unsigned char *data, apr_size_t len)
{
    static const char digits[] = "0123456789abcdef";
    char *out = apr_palloc(p, len * 2 + 1);
    apr_size_t i;
    for (i = 0; i < len; i++) {
        out[2 * i] = digits[data[i] >> 4];
        out[2 * i + 1] = digits[data[i] & 15];
    }
    out[2 * len] = '\0';
    return out;
}

static char *digest_hex(apr_pool_t *p, const void *s, apr_size_t len, int bits)
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    EVP_Digest(s, len, md, &n, bits == 512 ? EVP_sha512() : EVP_sha256(), NULL);
    return trv_crypt_hex(p, md, n);
}

char *trv_crypt_sha_hex(apr_pool_t *p, const char *text, int bits)
{
    return digest_hex(p, text, strlen(text), bits);
}

char *trv_crypt_sha256_hex(apr_pool_t *p, const char *s, apr_size_t len)
{
    return digest_hex(p, s, len, 256);
}

int trv_crypt_hmac(const unsigned char *key, apr_size_t key_len, const void *msg,
                   apr_size_t msg_len, unsigned char mac[TRV_CRYPT_SHA256_LEN])
{
    unsigned int mac_len = 0;
    return HMAC(EVP_sha256(), key, (int)key_len, msg, msg_len, mac, &mac_len) != NULL
                   && mac_len == TRV_CRYPT_SHA256_LEN
               ? 0 : -1;
}

int trv_crypt_hmac_parts(const unsigned char *key, apr_size_t key_len, int n,
                         const void *const *parts, const apr_size_t *lens,
                         unsigned char mac[TRV_CRYPT_SHA256_LEN])
{
    unsigned char buf[512], *msg = buf, *o;
    apr_size_t total = 0;
    int i, rc;
    for (i = 0; i < n; i++) {
        total += lens[i];
    }
    /* Short messages (tokens, CSRF) stay on the stack. */
    if (total > sizeof(buf) && !(msg = OPENSSL_malloc(total))) {
        return -1;
    }
    for (o = msg, i = 0; i < n; o += lens[i], i++) {
        memcpy(o, parts[i], lens[i]);
    }
    rc = trv_crypt_hmac(key, key_len, msg, total, mac);
    if (msg != buf) {
        OPENSSL_free(msg);
    }
    return rc;
}

int trv_crypt_equal(const void *a, const void *b, apr_size_t len)
{
    return CRYPTO_memcmp(a, b, len) == 0;
}

char *trv_crypt_b64(apr_pool_t *p, const unsigned char *data, apr_size_t len)
{
    char *out = apr_palloc(p, (apr_size_t)apr_base64_encode_len((int)len));
    apr_base64_encode_binary(out, data, (int)len);
    return out;
}

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

static unsigned char *decode(apr_pool_t *p, const char *b64, apr_size_t *len)
{
    unsigned char *out = apr_palloc(p, (apr_size_t)apr_base64_decode_len(b64) + 1);
    int n = apr_base64_decode_binary(out, b64);
    *len = n > 0 ? (apr_size_t)n : 0;
    out[*len] = '\0';
    return out;
}

unsigned char *trv_crypt_b64_decode(apr_pool_t *p, const char *s, apr_size_t *len)
{
    return s && strict_b64(s) ? decode(p, s, len) : NULL;
}

char *trv_crypt_b64url(apr_pool_t *p, const unsigned char *data, apr_size_t len)
{
    char *out = trv_crypt_b64(p, data, len), *s, *d;
    for (s = d = out; *s; s++) {
        if (*s != '=') {
            *d++ = *s == '+' ? '-' : *s == '/' ? '_' : *s;
        }
    }
    *d = '\0';
    return out;
}

unsigned char *trv_crypt_b64url_decode(apr_pool_t *p, const char *s, apr_size_t *len)
{
    apr_size_t n = s ? strlen(s) : 0, i;
    char *b64 = apr_palloc(p, n + 4);
    for (i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
              || c == '-' || c == '_')) {
            return NULL;
        }
        b64[i] = c == '-' ? '+' : c == '_' ? '/' : c;
    }
    while (i % 4) {
        b64[i++] = '=';
    }
    b64[i] = '\0';
    return decode(p, b64, len);
}

apr_status_t trv_crypt_seal(apr_pool_t *p, const unsigned char key[32], const char *aad,
                            const char *plain, const char **sealed)
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
    *sealed = apr_pstrcat(p, SEAL_PREFIX, trv_crypt_b64(p, buf, NONCE_LEN + n + TAG_LEN), NULL);
    return APR_SUCCESS;
}

apr_status_t trv_crypt_open(apr_pool_t *p, const unsigned char key[32], const char *aad,
                            const char *sealed, const char **plain)
{
    apr_size_t n = 0;
    unsigned char *buf, *out;
    EVP_CIPHER_CTX *ctx;
    int len = 0, ok;
    apr_size_t clen;

    if (!sealed || strncmp(sealed, SEAL_PREFIX, strlen(SEAL_PREFIX)) != 0) {
        return APR_EINVAL;
    }
    buf = trv_crypt_b64_decode(p, sealed + strlen(SEAL_PREFIX), &n);
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
