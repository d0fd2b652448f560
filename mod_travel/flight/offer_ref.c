#include "offer_ref.h"

#include <apr_base64.h>
#include <apr_strings.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdlib.h>
#include <string.h>

#define TAG_LEN 16
#define MAX_TEXT 600

static void tag_of(const unsigned char *key, const char *org_id, const char *payload,
                   apr_size_t len, unsigned char *tag)
{
    static const unsigned char no_key[32];
    unsigned char mac[EVP_MAX_MD_SIZE];
    unsigned int maclen = 0;
    /* HMAC(org_id NUL payload): the organization is part of the message. */
    apr_size_t olen = strlen(org_id);
    unsigned char *msg = malloc(olen + 1 + len);
    if (!msg) {
        memset(tag, 0xff, TAG_LEN); /* matches nothing real */
        return;
    }
    memcpy(msg, org_id, olen);
    msg[olen] = 0;
    memcpy(msg + olen + 1, payload, len);
    HMAC(EVP_sha256(), key ? key : no_key, 32, msg, olen + 1 + len, mac, &maclen);
    free(msg);
    memcpy(tag, mac, TAG_LEN);
}

char *trv_offer_ref_encode(apr_pool_t *p, const unsigned char *key,
                           const char *org_id, const trv_offer_ref *o)
{
    const char *payload = apr_psprintf(p, "1|%s|%d|%d|%d|%" APR_INT64_T_FMT "|%s",
                                       o->supplier, o->adults, o->children, o->infants,
                                       (apr_int64_t)apr_time_sec(o->expires_at), o->ref);
    apr_size_t plen = strlen(payload);
    unsigned char *raw = apr_palloc(p, TAG_LEN + plen);
    char *out, *s, *d;

    tag_of(key, org_id, payload, plen, raw);
    memcpy(raw + TAG_LEN, payload, plen);
    out = apr_palloc(p, (apr_size_t)apr_base64_encode_len((int)(TAG_LEN + plen)));
    apr_base64_encode_binary(out, raw, (int)(TAG_LEN + plen));
    /* base64url without padding */
    for (s = d = out; *s; s++) {
        if (*s == '=') {
            continue;
        }
        *d++ = *s == '+' ? '-' : *s == '/' ? '_' : *s;
    }
    *d = '\0';
    return out;
}

static int next_field(char **cursor, char **field)
{
    char *bar = strchr(*cursor, '|');
    if (!bar) {
        return 0;
    }
    *bar = '\0';
    *field = *cursor;
    *cursor = bar + 1;
    return 1;
}

static int small_int(const char *s, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < 0 || v > 99) {
        return 0;
    }
    *out = (int)v;
    return 1;
}

apr_status_t trv_offer_ref_decode(apr_pool_t *p, const unsigned char *key,
                                  const char *org_id, const char *text,
                                  trv_offer_ref *out, const char **why)
{
    apr_size_t n = text ? strlen(text) : 0, i;
    char *b64, *cursor, *f;
    unsigned char *raw, tag[TAG_LEN];
    int len;
    char *end;
    long long secs;

    *why = "is not an offer reference from POST /v1/flight/offers";
    if (n < 24 || n > MAX_TEXT) {
        return APR_EINVAL;
    }
    b64 = apr_palloc(p, n + 4);
    for (i = 0; i < n; i++) {
        char c = text[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
              || c == '-' || c == '_')) {
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
    tag_of(key, org_id, (const char *)raw + TAG_LEN, (apr_size_t)(len - TAG_LEN), tag);
    if (CRYPTO_memcmp(tag, raw, TAG_LEN) != 0) {
        return APR_EINVAL;
    }
    cursor = apr_pstrmemdup(p, (const char *)raw + TAG_LEN, (apr_size_t)(len - TAG_LEN));
    memset(out, 0, sizeof(*out));
    if (!next_field(&cursor, &f) || strcmp(f, "1") != 0
        || !next_field(&cursor, &f) || !*f) {
        return APR_EINVAL;
    }
    out->supplier = f;
    if (!next_field(&cursor, &f) || !small_int(f, &out->adults)
        || !next_field(&cursor, &f) || !small_int(f, &out->children)
        || !next_field(&cursor, &f) || !small_int(f, &out->infants)
        || !next_field(&cursor, &f)) {
        return APR_EINVAL;
    }
    secs = strtoll(f, &end, 10);
    /* Only what apr_time_t can hold: the multiplication would overflow. */
    if (*end || !*cursor || secs > APR_INT64_MAX / APR_USEC_PER_SEC
        || secs < -(APR_INT64_MAX / APR_USEC_PER_SEC)) {
        return APR_EINVAL;
    }
    out->expires_at = apr_time_from_sec(secs);
    out->ref = cursor;
    return APR_SUCCESS;
}
