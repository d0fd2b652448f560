#include "ids.h"

#include <apr_strings.h>
#include <openssl/rand.h>
#include <string.h>

apr_status_t trv_random_bytes(unsigned char *buf, apr_size_t n)
{
    return RAND_bytes(buf, (int)n) == 1 ? APR_SUCCESS : APR_EGENERAL;
}

char *trv_uuid7_at(apr_pool_t *p, apr_time_t now)
{
    unsigned char b[16];
    apr_uint64_t ms = (apr_uint64_t)(now / 1000);
    int i;

    if (trv_random_bytes(b + 6, 10) != APR_SUCCESS) {
        return NULL;
    }
    for (i = 0; i < 6; i++) {
        b[i] = (unsigned char)(ms >> (8 * (5 - i)));
    }
    b[6] = (unsigned char)(0x70 | (b[6] & 0x0f)); /* version 7 */
    b[8] = (unsigned char)(0x80 | (b[8] & 0x3f)); /* RFC 9562 variant */
    return apr_psprintf(p,
        "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
        b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10],
        b[11], b[12], b[13], b[14], b[15]);
}

char *trv_id_new(apr_pool_t *p, const char *prefix)
{
    char *u = trv_uuid7_at(p, apr_time_now());
    return u ? apr_pstrcat(p, prefix, "_", u, NULL) : NULL;
}

int trv_id_valid(const char *id, const char *prefix)
{
    size_t plen = strlen(prefix);
    const char *s;
    if (!id || strlen(id) > TRV_ID_MAX_LEN || strncmp(id, prefix, plen) != 0
        || id[plen] != '_' || id[plen + 1] == '\0') {
        return 0;
    }
    for (s = id + plen + 1; *s; s++) {
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')
              || (*s >= '0' && *s <= '9') || *s == '-')) {
            return 0;
        }
    }
    return 1;
}

char *trv_random_token(apr_pool_t *p, apr_size_t bytes)
{
    static const char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    /* 62 symbols carry log2(62) > 5.95 bits; 43 symbols >= 256 bits. */
    apr_size_t n = (bytes * 8 * 100 + 594) / 595 + 1, i = 0;
    char *out = apr_palloc(p, n + 1);
    unsigned char buf[64];

    while (i < n) {
        apr_size_t j;
        if (trv_random_bytes(buf, sizeof(buf)) != APR_SUCCESS) {
            return NULL;
        }
        for (j = 0; j < sizeof(buf) && i < n; j++) {
            if (buf[j] < 248) { /* 248 = 4 * 62: reject to stay unbiased */
                out[i++] = alphabet[buf[j] % 62];
            }
        }
    }
    out[n] = '\0';
    return out;
}
