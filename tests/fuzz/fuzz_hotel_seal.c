/* The hotel API's sealed tokens (hotel/seal.c): search cursors and offer
 * references come back from clients as text and are opened under the
 * server's key, bound to the organization and to their purpose. Input:
 * one byte choosing how the rest is used, then
 *   0: the rest is a token as a client sends it, opened as a cursor and as
 *      an offer reference (under the key and under the all-zero key);
 *   1, 2: the rest is a payload (what search.c and offers.c seal), sealed
 *      as a cursor (1) or an offer reference (2): it must open to itself,
 *      for its purpose, organization and key only;
 *   3: byte 1 says where, the rest is a payload: its token with one
 *      character changed to another of the alphabet must be refused.
 * Beyond not crashing: a token that opens is the canonical text of what
 * it holds (sealing the payload again gives the same text), and holds no
 * NUL. */
#include "fuzz.h"

#include "hotel/seal.h"

static const unsigned char key[32] = "fuzz-hotel-seal-key-32-bytes-abc";
static const char *const org = "org_fuzz";
static const char *const purposes[2] = {"hotel-search", "hotel-offer"};
static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

static void open_any(apr_pool_t *p, const char *text)
{
    int i, k;
    for (i = 0; i < 2; i++) {
        for (k = 0; k < 2; k++) {
            const unsigned char *kk = k ? key : NULL;
            char *payload = NULL;
            if (trv_hotel_unseal(p, kk, org, purposes[i], text, &payload) == APR_SUCCESS) {
                FZ_ASSERT(payload != NULL);
                FZ_ASSERT(strcmp(trv_hotel_seal(p, kk, org, purposes[i], payload), text) == 0);
            }
        }
    }
}

static void roundtrip(apr_pool_t *p, const char *payload, int purpose)
{
    const char *text = trv_hotel_seal(p, key, org, purposes[purpose], payload);
    char *back = NULL;
    /* The server never seals an empty payload; a token too long to be
     * taken back is refused, not cut. */
    if (!*payload || strlen(text) > 4096) {
        FZ_ASSERT(trv_hotel_unseal(p, key, org, purposes[purpose], text, &back) == APR_EINVAL);
        return;
    }
    FZ_ASSERT(trv_hotel_unseal(p, key, org, purposes[purpose], text, &back) == APR_SUCCESS);
    FZ_ASSERT(strcmp(back, payload) == 0);
    FZ_ASSERT(trv_hotel_unseal(p, key, org, purposes[!purpose], text, &back) == APR_EINVAL);
    FZ_ASSERT(trv_hotel_unseal(p, key, "org_other", purposes[purpose], text, &back)
              == APR_EINVAL);
    FZ_ASSERT(trv_hotel_unseal(p, NULL, org, purposes[purpose], text, &back) == APR_EINVAL);
}

static void edited(apr_pool_t *p, uint8_t where, const char *payload)
{
    char *text = apr_pstrdup(p, trv_hotel_seal(p, key, org, purposes[0], payload)), *back;
    size_t n = strlen(text), at;
    const char *c;
    if (!*payload || n > 4096) {
        return;
    }
    at = where % n;
    c = strchr(alphabet, text[at]);
    FZ_ASSERT(c != NULL);
    text[at] = alphabet[(size_t)(c - alphabet + 1 + where % 63) % 64];
    FZ_ASSERT(trv_hotel_unseal(p, key, org, purposes[0], text, &back) == APR_EINVAL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    apr_pool_t *p;
    if (size < 2) {
        return 0;
    }
    p = fz_begin();
    switch (data[0] % 4) {
    case 0:
        open_any(p, fz_str(p, data + 1, size - 1));
        break;
    case 1:
    case 2:
        roundtrip(p, fz_str(p, data + 1, size - 1), data[0] % 4 == 2);
        break;
    default:
        edited(p, data[1], fz_str(p, data + 2, size - 2));
    }
    fz_end(p);
    return 0;
}
