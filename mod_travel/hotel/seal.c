#include "seal.h"

#include <apr_base64.h>
#include <apr_lib.h>
#include <apr_strings.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <string.h>

#define TAG_LEN 16
#define MAX_TEXT 4096

/* HMAC(purpose NUL org_id NUL payload). */
static void tag_of(apr_pool_t *p, const unsigned char *key, const char *org_id,
                   const char *purpose, const char *payload, apr_size_t len,
                   unsigned char *tag)
{
    static const unsigned char no_key[32];
    unsigned char mac[EVP_MAX_MD_SIZE];
    unsigned int maclen = 0;
    apr_size_t plen = strlen(purpose), olen = strlen(org_id);
    unsigned char *msg = apr_palloc(p, plen + olen + 2 + len);
    memcpy(msg, purpose, plen + 1);
    memcpy(msg + plen + 1, org_id, olen + 1);
    memcpy(msg + plen + olen + 2, payload, len);
    HMAC(EVP_sha256(), key ? key : no_key, 32, msg, plen + olen + 2 + len, mac, &maclen);
    memcpy(tag, mac, TAG_LEN);
}

char *trv_hotel_seal(apr_pool_t *p, const unsigned char *key, const char *org_id,
                     const char *purpose, const char *payload)
{
    apr_size_t len = strlen(payload);
    unsigned char *raw = apr_palloc(p, TAG_LEN + len);
    char *out, *s, *d;
    tag_of(p, key, org_id, purpose, payload, len, raw);
    memcpy(raw + TAG_LEN, payload, len);
    out = apr_palloc(p, (apr_size_t)apr_base64_encode_len((int)(TAG_LEN + len)));
    apr_base64_encode_binary(out, raw, (int)(TAG_LEN + len));
    for (s = d = out; *s; s++) { /* base64url without padding */
        if (*s != '=') {
            *d++ = *s == '+' ? '-' : *s == '/' ? '_' : *s;
        }
    }
    *d = '\0';
    return out;
}

apr_status_t trv_hotel_unseal(apr_pool_t *p, const unsigned char *key, const char *org_id,
                              const char *purpose, const char *text, char **payload)
{
    apr_size_t n = text ? strlen(text) : 0, i;
    char *b64;
    unsigned char *raw, tag[TAG_LEN];
    int len;
    /* The shortest token holds the tag and one byte of payload: 17 bytes,
     * 23 characters unpadded (seal makes those too). */
    if (n < (TAG_LEN + 1) * 4 / 3 + 1 || n > MAX_TEXT) {
        return APR_EINVAL;
    }
    b64 = apr_palloc(p, n + 4);
    for (i = 0; i < n; i++) {
        char c = text[i];
        if (!(apr_isalnum(c) || c == '-' || c == '_')) {
            return APR_EINVAL;
        }
        b64[i] = c == '-' ? '+' : c == '_' ? '/' : c;
    }
    while (i % 4) {
        b64[i++] = '=';
    }
    b64[i] = '\0';
    raw = apr_palloc(p, (apr_size_t)apr_base64_decode_len(b64) + 1);
    len = apr_base64_decode_binary(raw, b64);
    if (len <= TAG_LEN) {
        return APR_EINVAL;
    }
    raw[len] = '\0';
    if (memchr(raw + TAG_LEN, '\0', (apr_size_t)len - TAG_LEN)) {
        return APR_EINVAL;
    }
    tag_of(p, key, org_id, purpose, (const char *)raw + TAG_LEN, (apr_size_t)len - TAG_LEN, tag);
    if (CRYPTO_memcmp(tag, raw, TAG_LEN) != 0) {
        return APR_EINVAL;
    }
    /* One text per token: base64 leaves spare bits in the last character,
     * which a decoder ignores; a text that is not the canonical encoding is
     * refused, so no two texts pass for one token. */
    if (strcmp(trv_hotel_seal(p, key, org_id, purpose, (const char *)raw + TAG_LEN), text) != 0) {
        return APR_EINVAL;
    }
    *payload = apr_pstrdup(p, (const char *)raw + TAG_LEN);
    return APR_SUCCESS;
}
