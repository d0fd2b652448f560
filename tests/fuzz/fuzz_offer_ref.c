/* Offer references: the text a client sends back at bags and prebook (a
 * path segment or a body field) is decoded under the server's key. Input:
 * one byte choosing how the rest is used, then
 *   0: the rest is the reference text as a client sends it;
 *   1: the rest is a payload signed the way the server signs it, so the
 *      fields after the signature check are reached too;
 *   2: lines supplier\nref\nadults\nchildren\ninfants\nexpiry: encode, then
 *      decode must give them back, and under another organization fail.
 * A decoded reference must always hold what the encoder can make. */
#include "fuzz.h"

#include "flight/offer_ref.h"

#include <apr_base64.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

static const unsigned char key[32] = "fuzz-offer-reference-key-32bytes";
static const char *const org = "org_fuzz";

static void check_decoded(const trv_foffer_ref *o)
{
    FZ_ASSERT(o->supplier && *o->supplier && !strchr(o->supplier, '|'));
    FZ_ASSERT(o->ref && *o->ref);
    FZ_ASSERT(o->adults >= 0 && o->adults <= 99);
    FZ_ASSERT(o->children >= 0 && o->children <= 99);
    FZ_ASSERT(o->infants >= 0 && o->infants <= 99);
}

/* base64url(HMAC-SHA256(key, org NUL payload)[0..16) payload): what
 * trv_foffer_ref_encode produces for a payload it wrote itself. */
static char *sign(apr_pool_t *p, const char *payload, size_t len)
{
    unsigned char mac[EVP_MAX_MD_SIZE], *raw = apr_palloc(p, 16 + len);
    unsigned char *msg = apr_palloc(p, strlen(org) + 1 + len);
    unsigned int maclen = 0;
    char *out, *s, *d;
    memcpy(msg, org, strlen(org) + 1);
    memcpy(msg + strlen(org) + 1, payload, len);
    HMAC(EVP_sha256(), key, 32, msg, strlen(org) + 1 + len, mac, &maclen);
    memcpy(raw, mac, 16);
    memcpy(raw + 16, payload, len);
    out = apr_palloc(p, (apr_size_t)apr_base64_encode_len((int)(16 + len)));
    apr_base64_encode_binary(out, raw, (int)(16 + len));
    for (s = d = out; *s; s++) {
        if (*s != '=') {
            *d++ = *s == '+' ? '-' : *s == '/' ? '_' : *s;
        }
    }
    *d = '\0';
    return out;
}

static void roundtrip(apr_pool_t *p, const uint8_t *data, size_t size)
{
    trv_foffer_ref in, out;
    const char *why, *text;
    memset(&in, 0, sizeof(in));
    in.supplier = fz_line(p, &data, &size);
    in.ref = fz_line(p, &data, &size);
    in.adults = atoi(fz_line(p, &data, &size)) % 100;
    in.children = atoi(fz_line(p, &data, &size)) % 100;
    in.infants = atoi(fz_line(p, &data, &size)) % 100;
    /* Supplier expiries: seconds since the epoch, within apr_time_t. */
    in.expires_at = apr_time_from_sec(strtoll(fz_line(p, &data, &size), NULL, 10)
                                      % 100000000000LL);
    if (!*in.supplier || strchr(in.supplier, '|') || !*in.ref || in.adults < 0
        || in.children < 0 || in.infants < 0) {
        return; /* not something the gateway would encode */
    }
    text = trv_foffer_ref_encode(p, key, org, &in);
    if (strlen(text) > 600) {
        /* Too long to be accepted back: decode must say so, not crash. */
        FZ_ASSERT(trv_foffer_ref_decode(p, key, org, text, &out, &why) == APR_EINVAL);
        return;
    }
    FZ_ASSERT(trv_foffer_ref_decode(p, key, org, text, &out, &why) == APR_SUCCESS);
    check_decoded(&out);
    FZ_ASSERT(strcmp(out.supplier, in.supplier) == 0 && strcmp(out.ref, in.ref) == 0);
    FZ_ASSERT(out.adults == in.adults && out.children == in.children
              && out.infants == in.infants);
    FZ_ASSERT(apr_time_sec(out.expires_at) == apr_time_sec(in.expires_at));
    /* Bound to the organization that searched. */
    FZ_ASSERT(trv_foffer_ref_decode(p, key, "org_other", text, &out, &why) == APR_EINVAL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    apr_pool_t *p;
    trv_foffer_ref out;
    const char *why = NULL;
    if (size < 1) {
        return 0;
    }
    p = fz_begin();
    switch (data[0] % 3) {
    case 0:
        if (trv_foffer_ref_decode(p, key, org, fz_str(p, data + 1, size - 1), &out, &why)
            == APR_SUCCESS) {
            check_decoded(&out);
        }
        else {
            FZ_ASSERT(why && *why);
        }
        break;
    case 1:
        if (trv_foffer_ref_decode(p, key, org, sign(p, (const char *)data + 1, size - 1),
                                  &out, &why) == APR_SUCCESS) {
            check_decoded(&out);
        }
        break;
    default:
        roundtrip(p, data + 1, size - 1);
    }
    fz_end(p);
    return 0;
}
