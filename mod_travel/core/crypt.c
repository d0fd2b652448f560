#include "crypt.h"
#include "ids.h"

#include <apr_base64.h>
#include <apr_strings.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdlib.h>
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

/* SHA-256, fetched once per process: OpenSSL 3 looks an algorithm up in
 * its provider store (locks, a hash table) at every implicit use. */
static EVP_MD *sha256;
static pthread_once_t sha256_once = PTHREAD_ONCE_INIT;

static void sha256_fetch(void)
{
    sha256 = EVP_MD_fetch(NULL, "SHA256", NULL);
}

/* A pass of HMAC begun: the digest of (k XOR the pad byte) so far. */
static int padded_start(EVP_MD_CTX *ctx, const unsigned char k[64], unsigned char byte)
{
    unsigned char pad[64];
    int i, ok;
    for (i = 0; i < (int)sizeof(pad); i++) {
        pad[i] = k[i] ^ byte;
    }
    ok = EVP_DigestInit_ex(ctx, sha256, NULL) && EVP_DigestUpdate(ctx, pad, sizeof(pad));
    OPENSSL_cleanse(pad, sizeof(pad));
    return ok ? 0 : -1;
}

/* The pass ended: the parts added to ctx (begun), its digest into out. */
static int pass_end(EVP_MD_CTX *ctx, int n, const void *const *parts, const apr_size_t *lens,
                    unsigned char *out)
{
    unsigned int len = 0;
    int i, ok = 1;
    for (i = 0; ok && i < n; i++) {
        ok = EVP_DigestUpdate(ctx, parts[i], lens[i]);
    }
    return ok && EVP_DigestFinal_ex(ctx, out, &len) && len == TRV_CRYPT_SHA256_LEN ? 0 : -1;
}

/* One pass of HMAC: the digest of (k XOR the pad byte) followed by the
 * parts. */
static int padded_digest(EVP_MD_CTX *ctx, const unsigned char k[64], unsigned char byte,
                         int n, const void *const *parts, const apr_size_t *lens,
                         unsigned char *out)
{
    return padded_start(ctx, k, byte) == 0 ? pass_end(ctx, n, parts, lens, out) : -1;
}

/* One pass from a begun one kept for the key (work takes a copy of it). */
static int padded_finish(EVP_MD_CTX *work, const EVP_MD_CTX *begun, int n,
                         const void *const *parts, const apr_size_t *lens, unsigned char *out)
{
    return EVP_MD_CTX_copy_ex(work, begun) ? pass_end(work, n, parts, lens, out) : -1;
}

/* A key's two padded blocks, absorbed once per thread: the first block of
 * each of HMAC's two passes depends on the key alone, so a thread that
 * signs again with the same key (the server's secret for every offer
 * reference and hotel seal, the sandbox's for every rate token) starts
 * each pass from a copy of the state after it, two SHA-256 blocks and two
 * digest set-ups fewer per MAC (SHA-256's blocks were 15 % of the
 * sandbox's instructions per hotel search; docs/performance.md, "The
 * thirteenth pass"). Keys up to one block long, the only ones in use, are
 * kept; longer ones take the long way. */
typedef struct hmac_state {
    unsigned char key[64];
    apr_size_t key_len;
    int ready;
    EVP_MD_CTX *inner, *outer, *work;
} hmac_state;

static pthread_key_t hmac_key;
static pthread_once_t hmac_key_once = PTHREAD_ONCE_INIT;
static __thread hmac_state *hmac_mine;

static void hmac_state_free(void *v)
{
    hmac_state *h = v;
    EVP_MD_CTX_free(h->inner);
    EVP_MD_CTX_free(h->outer);
    EVP_MD_CTX_free(h->work);
    OPENSSL_cleanse(h, sizeof(*h));
    free(h);
}

static void hmac_key_make(void)
{
    pthread_key_create(&hmac_key, hmac_state_free);
}

/* This thread's state for key (at most 64 bytes), made ready; NULL when
 * it cannot be. */
static hmac_state *hmac_state_for(const unsigned char *key, apr_size_t key_len)
{
    hmac_state *h = hmac_mine;
    unsigned char k[64];
    if (!h) {
        pthread_once(&hmac_key_once, hmac_key_make);
        if (!(h = calloc(1, sizeof(*h)))) {
            return NULL;
        }
        h->inner = EVP_MD_CTX_new();
        h->outer = EVP_MD_CTX_new();
        h->work = EVP_MD_CTX_new();
        if (!h->inner || !h->outer || !h->work || pthread_setspecific(hmac_key, h) != 0) {
            hmac_state_free(h);
            return NULL;
        }
        hmac_mine = h;
    }
    if (h->ready && h->key_len == key_len && CRYPTO_memcmp(h->key, key, key_len) == 0) {
        return h;
    }
    h->ready = 0;
    memset(k, 0, sizeof(k));
    if (key_len) {
        memcpy(k, key, key_len);
    }
    if (padded_start(h->inner, k, 0x36) != 0 || padded_start(h->outer, k, 0x5c) != 0) {
        OPENSSL_cleanse(k, sizeof(k));
        return NULL;
    }
    OPENSSL_cleanse(k, sizeof(k));
    if (key_len) {
        memcpy(h->key, key, key_len);
    }
    h->key_len = key_len;
    h->ready = 1;
    return h;
}

/* HMAC-SHA256 (RFC 2104) made from the digest rather than with HMAC():
 * OpenSSL 3's one-shot HMAC() fetches the MAC and the digest and builds
 * three contexts per call, which made each sealed hotel offer and each
 * sandbox rate token cost several times its hashing (a hotel offers
 * answer seals fifty; docs/performance.md). tests/unit/test_crypt.c checks
 * it against RFC 4231's vectors and HMAC(). */
int trv_crypt_hmac_parts(const unsigned char *key, apr_size_t key_len, int n,
                         const void *const *parts, const apr_size_t *lens,
                         unsigned char mac[TRV_CRYPT_SHA256_LEN])
{
    unsigned char k[64], inner[TRV_CRYPT_SHA256_LEN];
    const void *outer[1] = {inner};
    const apr_size_t outer_len[1] = {sizeof(inner)};
    unsigned int klen = 0;
    EVP_MD_CTX *ctx;
    hmac_state *h;
    int rc = -1;
    pthread_once(&sha256_once, sha256_fetch);
    if (!sha256) {
        return -1;
    }
    if (key_len <= sizeof(k) && (h = hmac_state_for(key, key_len))) {
        rc = padded_finish(h->work, h->inner, n, parts, lens, inner) == 0
             && padded_finish(h->work, h->outer, 1, outer, outer_len, mac) == 0 ? 0 : -1;
        OPENSSL_cleanse(inner, sizeof(inner));
        return rc;
    }
    if (!(ctx = EVP_MD_CTX_new())) {
        return -1;
    }
    memset(k, 0, sizeof(k));
    if (key_len > sizeof(k)) {
        if (!EVP_DigestInit_ex(ctx, sha256, NULL) || !EVP_DigestUpdate(ctx, key, key_len)
            || !EVP_DigestFinal_ex(ctx, k, &klen)) {
            goto done;
        }
    }
    else if (key_len > 0) {
        memcpy(k, key, key_len);
    }
    if (padded_digest(ctx, k, 0x36, n, parts, lens, inner) == 0
        && padded_digest(ctx, k, 0x5c, 1, outer, outer_len, mac) == 0) {
        rc = 0;
    }
done:
    EVP_MD_CTX_free(ctx);
    OPENSSL_cleanse(k, sizeof(k));
    OPENSSL_cleanse(inner, sizeof(inner));
    return rc;
}

int trv_crypt_hmac(const unsigned char *key, apr_size_t key_len, const void *msg,
                   apr_size_t msg_len, unsigned char mac[TRV_CRYPT_SHA256_LEN])
{
    return trv_crypt_hmac_parts(key, key_len, 1, &msg, &msg_len, mac);
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

/* Written directly rather than as base64 then translated: every sealed
 * offer reference is one (a thirtieth of a hotel offers request). */
char *trv_crypt_b64url(apr_pool_t *p, const unsigned char *data, apr_size_t len)
{
    static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    char *out = apr_palloc(p, len / 3 * 4 + 4), *d = out;
    apr_size_t i = 0;
    for (; i + 3 <= len; i += 3) {
        unsigned v = (unsigned)data[i] << 16 | (unsigned)data[i + 1] << 8 | data[i + 2];
        d[0] = abc[v >> 18];
        d[1] = abc[(v >> 12) & 63];
        d[2] = abc[(v >> 6) & 63];
        d[3] = abc[v & 63];
        d += 4;
    }
    if (len - i == 1) {
        *d++ = abc[data[i] >> 2];
        *d++ = abc[(data[i] & 3) << 4];
    }
    else if (len - i == 2) {
        *d++ = abc[data[i] >> 2];
        *d++ = abc[((data[i] & 3) << 4) | (data[i + 1] >> 4)];
        *d++ = abc[(data[i + 1] & 15) << 2];
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
