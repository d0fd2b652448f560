#include "seal.h"
#include "core/crypt.h"

#include <apr_strings.h>
#include <string.h>

#define TAG_LEN 16
#define MAX_TEXT 4096

/* HMAC(purpose NUL org_id NUL payload). */
static void tag_of(const unsigned char *key, const char *org_id, const char *purpose,
                   const char *payload, apr_size_t len, unsigned char *tag)
{
    static const unsigned char no_key[32];
    unsigned char mac[TRV_CRYPT_SHA256_LEN];
    const void *parts[3] = {purpose, org_id, payload};
    apr_size_t lens[3] = {strlen(purpose) + 1, strlen(org_id) + 1, len};
    if (trv_crypt_hmac_parts(key ? key : no_key, 32, 3, parts, lens, mac) != 0) {
        memset(tag, 0xff, TAG_LEN); /* matches nothing real */
        return;
    }
    memcpy(tag, mac, TAG_LEN);
}

char *trv_hotel_seal(apr_pool_t *p, const unsigned char *key, const char *org_id,
                     const char *purpose, const char *payload)
{
    apr_size_t len = strlen(payload);
    unsigned char *raw = apr_palloc(p, TAG_LEN + len);
    tag_of(key, org_id, purpose, payload, len, raw);
    memcpy(raw + TAG_LEN, payload, len);
    return trv_crypt_b64url(p, raw, TAG_LEN + len);
}

apr_status_t trv_hotel_unseal(apr_pool_t *p, const unsigned char *key, const char *org_id,
                              const char *purpose, const char *text, char **payload)
{
    apr_size_t n = text ? strlen(text) : 0, len;
    unsigned char *raw, tag[TAG_LEN];
    /* The shortest token holds the tag and one byte of payload: 17 bytes,
     * 23 characters unpadded (seal makes those too). */
    if (n < (TAG_LEN + 1) * 4 / 3 + 1 || n > MAX_TEXT) {
        return APR_EINVAL;
    }
    raw = trv_crypt_b64url_decode(p, text, &len);
    if (!raw || len <= TAG_LEN) {
        return APR_EINVAL;
    }
    if (memchr(raw + TAG_LEN, '\0', len - TAG_LEN)) {
        return APR_EINVAL;
    }
    tag_of(key, org_id, purpose, (const char *)raw + TAG_LEN, len - TAG_LEN, tag);
    if (!trv_crypt_equal(tag, raw, TAG_LEN)) {
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
