/* base64url and signed tokens; see token.h. */
#include "token.h"
#include "core/crypt.h"

#include <apr_strings.h>
#include <openssl/crypto.h>
#include <string.h>

/* ---- base64url ---- */

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

char *sbx_b64url(apr_pool_t *p, const unsigned char *d, apr_size_t len)
{
    char *out = apr_palloc(p, len / 3 * 4 + 5), *o = out;
    apr_size_t i;
    for (i = 0; i + 2 < len; i += 3) {
        *o++ = b64[d[i] >> 2];
        *o++ = b64[((d[i] & 3) << 4) | (d[i + 1] >> 4)];
        *o++ = b64[((d[i + 1] & 15) << 2) | (d[i + 2] >> 6)];
        *o++ = b64[d[i + 2] & 63];
    }
    if (len - i == 1) {
        *o++ = b64[d[i] >> 2];
        *o++ = b64[(d[i] & 3) << 4];
    }
    else if (len - i == 2) {
        *o++ = b64[d[i] >> 2];
        *o++ = b64[((d[i] & 3) << 4) | (d[i + 1] >> 4)];
        *o++ = b64[(d[i + 1] & 15) << 2];
    }
    *o = '\0';
    return out;
}

static int b64val(int c)
{
    const char *s = c ? strchr(b64, c) : NULL;
    return s ? (int)(s - b64) : -1;
}

unsigned char *sbx_b64url_decode(apr_pool_t *p, const char *s, apr_size_t *len)
{
    apr_size_t n = strlen(s), i, o = 0;
    unsigned char *out;
    if (n % 4 == 1 || n > 4096) {
        return NULL;
    }
    out = apr_palloc(p, n / 4 * 3 + 3);
    for (i = 0; i < n; i += 4) {
        int v[4], k, m = (n - i) < 4 ? (int)(n - i) : 4;
        for (k = 0; k < 4; k++) {
            v[k] = k < m ? b64val((unsigned char)s[i + (apr_size_t)k]) : 0;
            if (v[k] < 0) {
                return NULL;
            }
        }
        out[o++] = (unsigned char)((v[0] << 2) | (v[1] >> 4));
        if (m > 2) {
            out[o++] = (unsigned char)(((v[1] & 15) << 4) | (v[2] >> 2));
        }
        if (m > 3) {
            out[o++] = (unsigned char)(((v[2] & 3) << 6) | v[3]);
        }
    }
    *len = o;
    return out;
}

#define TOKEN_TAG 10

/* HMAC-SHA256 of msg under key (core/crypt.c's, made from the digest),
 * its first TOKEN_TAG bytes; -1 (the tag all zeros) when OpenSSL failed.
 * tests/unit/test_sandbox_jtext.c compares it with OpenSSL's HMAC(). */
static int tag_of(const char *key, const char *msg, apr_size_t len, unsigned char *tag)
{
    unsigned char mac[TRV_CRYPT_SHA256_LEN];
    int rc = trv_crypt_hmac((const unsigned char *)key, strlen(key), msg, len, mac);
    if (rc != 0) {
        memset(mac, 0, sizeof(mac));
    }
    memcpy(tag, mac, TOKEN_TAG);
    OPENSSL_cleanse(mac, sizeof(mac));
    return rc;
}

char *sbx_token_seal(apr_pool_t *p, const char *key, const char *payload)
{
    apr_size_t len = strlen(payload);
    unsigned char *buf = apr_palloc(p, len + TOKEN_TAG);
    memcpy(buf, payload, len);
    (void)tag_of(key, payload, len, buf + len);   /* a zero tag opens nothing */
    return sbx_b64url(p, buf, len + TOKEN_TAG);
}

char *sbx_token_open(apr_pool_t *p, const char *key, const char *token)
{
    apr_size_t len;
    unsigned char *raw = token ? sbx_b64url_decode(p, token, &len) : NULL, tag[TOKEN_TAG];
    char *msg;
    if (!raw || len <= TOKEN_TAG) {
        return NULL;
    }
    msg = apr_pstrndup(p, (const char *)raw, len - TOKEN_TAG);
    if (strlen(msg) != len - TOKEN_TAG) {
        return NULL;
    }
    if (tag_of(key, msg, len - TOKEN_TAG, tag) != 0) {
        return NULL;
    }
    return CRYPTO_memcmp(tag, raw + len - TOKEN_TAG, TOKEN_TAG) == 0 ? msg : NULL;
}
