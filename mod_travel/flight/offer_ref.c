#include "offer_ref.h"
#include "core/crypt.h"

#include <apr_strings.h>
#include <stdlib.h>
#include <string.h>

#define TAG_LEN 16
#define MAX_TEXT 600

static void tag_of(const unsigned char *key, const char *org_id, const char *payload,
                   apr_size_t len, unsigned char *tag)
{
    static const unsigned char no_key[32];
    unsigned char mac[TRV_CRYPT_SHA256_LEN];
    /* HMAC(org_id NUL payload): the organization is part of the message. */
    const void *parts[2] = {org_id, payload};
    apr_size_t lens[2] = {strlen(org_id) + 1, len};
    if (trv_crypt_hmac_parts(key ? key : no_key, 32, 2, parts, lens, mac) != 0) {
        memset(tag, 0xff, TAG_LEN); /* matches nothing real */
        return;
    }
    memcpy(tag, mac, TAG_LEN);
}

char *trv_foffer_ref_encode(apr_pool_t *p, const unsigned char *key,
                            const char *org_id, const trv_foffer_ref *o)
{
    const char *payload = apr_psprintf(p, "1|%s|%d|%d|%d|%" APR_INT64_T_FMT "|%s",
                                       o->supplier, o->adults, o->children, o->infants,
                                       (apr_int64_t)apr_time_sec(o->expires_at), o->ref);
    apr_size_t plen = strlen(payload);
    unsigned char *raw = apr_palloc(p, TAG_LEN + plen);

    tag_of(key, org_id, payload, plen, raw);
    memcpy(raw + TAG_LEN, payload, plen);
    return trv_crypt_b64url(p, raw, TAG_LEN + plen);
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

apr_status_t trv_foffer_ref_decode(apr_pool_t *p, const unsigned char *key,
                                   const char *org_id, const char *text,
                                   trv_foffer_ref *out, const char **why)
{
    apr_size_t n = text ? strlen(text) : 0, len;
    char *cursor, *f;
    unsigned char *raw, tag[TAG_LEN];
    char *end;
    long long secs;

    *why = "is not an offer reference from POST /v1/flight/offers";
    if (n < 24 || n > MAX_TEXT) {
        return APR_EINVAL;
    }
    raw = trv_crypt_b64url_decode(p, text, &len);
    if (!raw || len <= TAG_LEN) {
        return APR_EINVAL;
    }
    tag_of(key, org_id, (const char *)raw + TAG_LEN, len - TAG_LEN, tag);
    if (!trv_crypt_equal(tag, raw, TAG_LEN)) {
        return APR_EINVAL;
    }
    cursor = apr_pstrmemdup(p, (const char *)raw + TAG_LEN, len - TAG_LEN);
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
