/* GET /sandbox/suppliers lists what the sandbox simulates so a tool can be
 * pointed at it without reading the code: each supplier's wire name, kind,
 * protocol, base URL (on the port the sandbox answered on), its other bases
 * and the credentials it accepts. The listing is checked by using it: each
 * base URL with its listed credentials gets past the supplier's
 * authentication, and the same call with a wrong key does not. */
#include "e2e.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static json_t *listing(void)
{
    e2e_resp *r = e2e_call(e2e_sandbox_url(), "GET", "/sandbox/suppliers", NULL, NULL);
    json_t *list;
    assert_int_equal(r->status, 200);
    assert_true(json_is_array(r->json));
    list = json_incref(r->json);
    e2e_free(r);
    return list;
}

static json_t *entry(const json_t *list, const char *kind, const char *name)
{
    size_t i;
    json_t *e;
    json_array_foreach(list, i, e) {
        if (strcmp(json_string_value(json_object_get(e, "kind")), kind) == 0
            && strcmp(json_string_value(json_object_get(e, "name")), name) == 0) {
            return e;
        }
    }
    fail_msg("no %s supplier %s in the listing", kind, name);
    return NULL;
}

static const char *str(const json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    assert_non_null(s);
    return s;
}

static void every_supplier_is_listed_with_its_protocol(void **state)
{
    json_t *list = listing(), *e;
    const char *sbx = e2e_sandbox_url();
    char want[512];
    size_t i;
    (void)state;
    assert_int_equal(json_array_size(list), 6);
    assert_string_equal(str(entry(list, "flight", "SUPPLIER_A"), "protocol"), "duffel");
    assert_string_equal(str(entry(list, "flight", "SUPPLIER_B"), "protocol"), "liteapi-flights");
    assert_string_equal(str(entry(list, "hotel", "SUPPLIER_A"), "protocol"), "liteapi");
    assert_string_equal(str(entry(list, "hotel", "SUPPLIER_B"), "protocol"), "hotelbeds");
    assert_string_equal(str(entry(list, "hotel", "SUPPLIER_C"), "protocol"), "expedia-rapid");
    assert_string_equal(str(entry(list, "hotel", "DUFFEL_STAYS"), "protocol"), "duffel-stays");
    json_array_foreach(list, i, e) {
        /* Every base is on the port the sandbox answered on. */
        assert_int_equal(strncmp(str(e, "base_url"), sbx, strlen(sbx)), 0);
        assert_true(json_is_object(json_object_get(e, "base_urls")));
        assert_true(json_is_object(json_object_get(e, "test_credentials")));
    }
    /* LiteAPI's two hosts: data and rates, and the booking host. */
    e = entry(list, "hotel", "SUPPLIER_A");
    snprintf(want, sizeof(want), "%s/hotels/a/v3.0", sbx);
    assert_string_equal(str(e, "base_url"), want);
    snprintf(want, sizeof(want), "%s/hotels/a/book/v3.0", sbx);
    assert_string_equal(str(json_object_get(e, "base_urls"), "book"), want);
    /* LiteAPI Flights: one host, the same version path as its hotels. */
    snprintf(want, sizeof(want), "%s/suppliers/b/v3.0", sbx);
    assert_string_equal(str(entry(list, "flight", "SUPPLIER_B"), "base_url"), want);
    assert_int_equal(json_object_size(json_object_get(entry(list, "flight", "SUPPLIER_B"),
                                                      "base_urls")), 0);
    /* The credentials under the names the TravelSupplier lines use. */
    assert_string_equal(str(json_object_get(entry(list, "flight", "SUPPLIER_A"),
                                            "test_credentials"), "token"), "sandbox-key-a");
    assert_string_equal(str(json_object_get(entry(list, "hotel", "SUPPLIER_C"),
                                            "test_credentials"), "api_secret"),
                        "sandbox-secret-hotel-c");
    json_decref(list);
}

static void hex_digest(const EVP_MD *md, const char *msg, char *out)
{
    unsigned char d[EVP_MAX_MD_SIZE];
    unsigned int n = 0, i;
    EVP_Digest(msg, strlen(msg), d, &n, md, NULL);
    for (i = 0; i < n; i++) {
        sprintf(out + 2 * i, "%02x", d[i]);
    }
}

/* The authentication headers of a protocol with a key (and secret). */
static void auth_for(const char *protocol, const char *key, const char *secret,
                     char h[2][400])
{
    char msg[300], sig[200];
    long ts = (long)time(NULL);
    h[0][0] = h[1][0] = '\0';
    if (strncmp(protocol, "liteapi", 7) == 0) { /* liteapi, liteapi-flights */
        snprintf(h[0], 400, "X-API-Key: %s", key);
    }
    else if (strcmp(protocol, "hotelbeds") == 0) {
        snprintf(msg, sizeof(msg), "%s%s%ld", key, secret, ts);
        hex_digest(EVP_sha256(), msg, sig);
        snprintf(h[0], 400, "Api-key: %s", key);
        snprintf(h[1], 400, "X-Signature: %s", sig);
    }
    else if (strcmp(protocol, "expedia-rapid") == 0) {
        snprintf(msg, sizeof(msg), "%s%s%ld", key, secret, ts);
        hex_digest(EVP_sha512(), msg, sig);
        snprintf(h[0], 400, "Authorization: EAN APIKey=%s,Signature=%s,timestamp=%ld", key,
                 sig, ts);
    }
    else {
        snprintf(h[0], 400, "Authorization: Bearer %s", key);
        /* Duffel answers nothing without the API version it speaks. */
        if (strncmp(protocol, "duffel", 6) == 0) {
            snprintf(h[1], 400, "Duffel-Version: v2");
        }
    }
}

/* GET base + /sandbox-listing-probe with the headers: the path exists at no
 * supplier, so an authenticated call is answered 404 and an
 * unauthenticated one 401. */
static long probe(const char *base, char h[2][400])
{
    const char *hs[3] = {h[0], h[1][0] ? h[1] : NULL, NULL};
    e2e_resp *r = e2e_call(base, "GET", "/sandbox-listing-probe", hs, NULL);
    long st = r->status;
    e2e_free(r);
    return st;
}

static void the_listed_bases_take_the_listed_credentials(void **state)
{
    json_t *list = listing(), *e;
    size_t i;
    (void)state;
    json_array_foreach(list, i, e) {
        const json_t *c = json_object_get(e, "test_credentials");
        const char *protocol = str(e, "protocol");
        const char *key = json_string_value(json_object_get(c, "token"));
        const char *secret = json_string_value(json_object_get(c, "api_secret"));
        char h[2][400];
        const char *other;
        json_t *url;
        if (!key) {
            key = str(c, "api_key");
        }
        auth_for(protocol, key, secret, h);
        if (probe(str(e, "base_url"), h) != 404) {
            fail_msg("%s %s: the listed credentials are refused at %s", str(e, "kind"),
                     str(e, "name"), str(e, "base_url"));
        }
        json_object_foreach(json_object_get(e, "base_urls"), other, url) {
            assert_int_equal(probe(json_string_value(url), h), 404);
        }
        auth_for(protocol, "not-the-key", secret ? "not-the-secret" : NULL, h);
        if (probe(str(e, "base_url"), h) != 401) {
            fail_msg("%s %s: a wrong key is not refused at %s", str(e, "kind"), str(e, "name"),
                     str(e, "base_url"));
        }
    }
    json_decref(list);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_supplier_is_listed_with_its_protocol),
        cmocka_unit_test(the_listed_bases_take_the_listed_credentials),
    };
    return E2E_RUN("test_sandbox_suppliers", tests);
}
