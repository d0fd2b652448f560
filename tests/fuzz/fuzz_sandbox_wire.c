/* The sandbox's parsers of what arrives on its wire (the gateway, or a
 * test, is the client): base64url, supplier amounts, the supplier offer
 * references (client text, and payloads signed with the supplier's key so
 * the fields behind the signature are reached), and the fault-control
 * bodies. Input: one byte choosing the parser, then its text. Beyond not
 * crashing: base64url round-trips, accepted amounts are in range, a
 * decoded offer is this supplier's with 1..4 journeys. */
#include "fuzz.h"

#include "core/money.h"
#include "sandbox/faults.h"
#include "sandbox/offers.h"
#include "sandbox/sbx_api.h"
#include "sandbox/world.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

static const char *const key = "fuzz-sandbox-key";

/* The OpenFlights world the sandbox serves (loaded once; run.sh runs the
 * targets from the repository root). */
static const sbx_world *world(void)
{
    static const sbx_world *w;
    if (!w) {
        const char *err = NULL, *dir = getenv("TRAVEL_TEST_DATA");
        w = sbx_world_load(fz_root, dir ? dir : "data/openflights", "/usr/share/zoneinfo",
                           &err);
        if (!w) {
            fprintf(stderr, "world: %s\n", err);
            abort();
        }
    }
    return w;
}

static void b64(apr_pool_t *p, const uint8_t *data, size_t size)
{
    const char *text = fz_str(p, data, size), *again;
    apr_size_t n = 0, m = 0;
    unsigned char *raw = sbx_b64url_decode(p, text, &n), *back;
    if (raw) {
        again = sbx_b64url(p, raw, n);
        back = sbx_b64url_decode(p, again, &m);
        FZ_ASSERT(back && m == n && memcmp(back, raw, n) == 0);
    }
    /* Any bytes survive encoding (up to the decoder's 4096 characters). */
    if (size <= 3000) {
        back = sbx_b64url_decode(p, sbx_b64url(p, data, size), &m);
        FZ_ASSERT(back && m == size && memcmp(back, data, size) == 0);
    }
}

static void amount(apr_pool_t *p, const uint8_t *data, size_t size)
{
    static const char *const currencies[] = {"EUR", "JPY", "KWD", "CLF", "XXX"};
    const char *cur = currencies[size ? data[0] % 5 : 0];
    const char *text = size ? fz_str(p, data + 1, size - 1) : "";
    json_t *v = trv_json_parse(p, text, strlen(text), NULL);
    apr_int64_t minor = 0;
    if (!v) {
        v = trv_json_bind(p, json_string(text)); /* amounts arrive as strings too */
    }
    if (v && sbx_amount_parse(v, cur, &minor) == 0) {
        FZ_ASSERT(minor <= TRV_MONEY_MAX_MINOR && minor >= -TRV_MONEY_MAX_MINOR);
    }
}

static void offer(apr_pool_t *p, const uint8_t *data, size_t size, int signed_payload)
{
    const char *ref;
    sbx_offer o;
    char supplier = size && data[0] & 1 ? 'B' : 'A';
    if (size) {
        data++;
        size--;
    }
    if (signed_payload) {
        unsigned char mac[EVP_MAX_MD_SIZE], *buf = apr_palloc(p, size + 8);
        unsigned int n = 0;
        HMAC(EVP_sha256(), key, (int)strlen(key), data, size, mac, &n);
        memcpy(buf, data, size);
        memcpy(buf + size, mac, 8);
        ref = sbx_b64url(p, buf, size + 8);
    }
    else {
        ref = fz_str(p, data, size);
    }
    /* Behind a valid signature the fields are the sandbox's own, so only
     * what decoding itself checks is asserted: the rest must not crash. */
    if (sbx_offer_decode(p, world(), ref, supplier, key, 1795413600, &o) == 0) {
        FZ_ASSERT(o.supplier == supplier);
        FZ_ASSERT(o.q.nj >= 1 && o.q.nj <= SBX_MAX_JOURNEYS);
    }
}

static void fault(apr_pool_t *p, const uint8_t *data, size_t size)
{
    json_t *body = trv_json_parse(p, (const char *)data, size, NULL);
    sbx_fault_rule rule;
    trv_errs *errs = trv_errs_new(p);
    if (!json_is_object(body)) {
        return;
    }
    memset(&rule, 0, sizeof(rule));
    sbx_fault_parse(p, body, &rule, errs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    apr_pool_t *p;
    if (size < 1) {
        return 0;
    }
    p = fz_begin();
    switch (data[0] % 5) {
    case 0: b64(p, data + 1, size - 1); break;
    case 1: amount(p, data + 1, size - 1); break;
    case 2: offer(p, data + 1, size - 1, 0); break;
    case 3: offer(p, data + 1, size - 1, 1); break;
    default: fault(p, data + 1, size - 1);
    }
    fz_end(p);
    return 0;
}
