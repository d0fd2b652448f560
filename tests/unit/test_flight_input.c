/* The flight request bodies: every field of offers and prebook checked and
 * named in the 422 details; the x-idempotency-key rule; the request hash
 * that tells a repeated prebook from a different one; the offer reference
 * bound to its organization; and the offer filters. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <apr_base64.h>
#include <apr_general.h>
#include <apr_pools.h>
#include <apr_strings.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <string.h>

#include "core/clock.h"
#include "core/json.h"
#include "core/idempotency.h"
#include "flight/input.h"
#include "flight/offer_filter.h"
#include "flight/offer_ref.h"

static apr_pool_t *pool;
static apr_time_t now;

static json_t *js(const char *text)
{
    const char *err = NULL;
    json_t *v = trv_json_parse(pool, text, strlen(text), &err);
    if (!v) {
        fail_msg("bad test JSON: %s: %s", text, err);
    }
    return v;
}

/* The fields named in errs, comma-separated. */
static const char *fields(const trv_errs *e)
{
    const char *out = "";
    size_t i;
    for (i = 0; i < json_array_size(e->details); i++) {
        out = apr_pstrcat(pool, out, i ? "," : "",
                          json_string_value(json_object_get(json_array_get(e->details, i),
                                                            "field")), NULL);
    }
    return out;
}

/* The wire names the test stack configures. */
static const char *const suppliers[] = {"SUPPLIER_A", "SUPPLIER_B", NULL};

static const char *offers_errors(const char *body, trv_offers_input *in)
{
    trv_errs *e = trv_errs_new(pool);
    trv_finput_offers(pool, js(body), now, suppliers, in, e);
    return fields(e);
}

#define GOOD_JOURNEY "{\"origin\":\"LHR\",\"destination\":\"JFK\",\"date\":\"2026-06-01\"}"

static void offers_valid(void **state)
{
    trv_offers_input in;
    (void)state;
    assert_string_equal(offers_errors("{\"journeys\":[" GOOD_JOURNEY "],\"passengers\":{\"adults\":2,"
                                      "\"children\":1},\"cabin_class\":\"BUSINESS\"}", &in), "");
    assert_int_equal(in.adults, 2);
    assert_int_equal(in.children, 1);
    assert_int_equal(in.infants, 0);
    assert_int_equal(in.limit, 20);
    assert_null(in.supplier);
    assert_string_equal(trv_json_dump(pool, in.query),
        "{\"journeys\":[{\"origin\":\"LHR\",\"destination\":\"JFK\",\"date\":\"2026-06-01\"}],"
        "\"passengers\":{\"adults\":2,\"children\":1,\"infants\":0},\"limit\":20,"
        "\"cabin_class\":\"BUSINESS\"}");
    assert_int_equal(json_array_size(in.unsupported), 0);
}

static void offers_fields(void **state)
{
    trv_offers_input in;
    (void)state;
    assert_string_equal(offers_errors("{}", &in), "journeys,passengers");
    assert_string_equal(offers_errors("{\"journeys\":[],\"passengers\":{\"adults\":1}}", &in),
                        "journeys");
    assert_string_equal(offers_errors("{\"journeys\":[{\"origin\":\"lhr\",\"destination\":\"JFK1\","
                                      "\"date\":\"2026-02-30\"}],\"passengers\":{\"adults\":1}}", &in),
                        "journeys[0].origin,journeys[0].destination,journeys[0].date");
    assert_string_equal(offers_errors("{\"journeys\":[{\"origin\":\"LHR\",\"destination\":\"LHR\","
                                      "\"date\":\"2026-06-01\"}],\"passengers\":{\"adults\":1}}", &in),
                        "journeys[0].destination");
    /* In the past; more than a year ahead; out of order. */
    assert_string_equal(offers_errors("{\"journeys\":[{\"origin\":\"LHR\",\"destination\":\"JFK\","
                                      "\"date\":\"2026-01-01\"}],\"passengers\":{\"adults\":1}}", &in),
                        "journeys[0].date");
    assert_string_equal(offers_errors("{\"journeys\":[{\"origin\":\"LHR\",\"destination\":\"JFK\","
                                      "\"date\":\"2027-06-01\"}],\"passengers\":{\"adults\":1}}", &in),
                        "journeys[0].date");
    assert_string_equal(offers_errors("{\"journeys\":[" GOOD_JOURNEY ",{\"origin\":\"JFK\","
                                      "\"destination\":\"LHR\",\"date\":\"2026-05-01\"}],"
                                      "\"passengers\":{\"adults\":1}}", &in),
                        "journeys[1].date");
    assert_string_equal(offers_errors("{\"journeys\":[" GOOD_JOURNEY "],\"passengers\":{\"adults\":0}}",
                                      &in), "passengers.adults");
    assert_string_equal(offers_errors("{\"journeys\":[" GOOD_JOURNEY "],\"passengers\":{\"adults\":1,"
                                      "\"infants\":2}}", &in), "passengers.infants");
    assert_string_equal(offers_errors("{\"journeys\":[" GOOD_JOURNEY "],\"passengers\":{\"adults\":5,"
                                      "\"children\":5}}", &in), "passengers");
    assert_string_equal(offers_errors("{\"journeys\":[" GOOD_JOURNEY "],\"passengers\":{\"adults\":1,"
                                      "\"seniors\":1}}", &in), "passengers.seniors");
    assert_string_equal(offers_errors("{\"journeys\":[" GOOD_JOURNEY "],\"passengers\":{\"adults\":1},"
                                      "\"supplier\":\"SUPPLIER_C\",\"limit\":0,\"cabin_class\":\"LUXURY\","
                                      "\"sort\":\"price\"}", &in),
                        "sort,supplier,limit,cabin_class");
}

static void offers_filters(void **state)
{
    trv_offers_input in;
    (void)state;
    assert_string_equal(offers_errors("{\"journeys\":[" GOOD_JOURNEY "],\"passengers\":{\"adults\":1},"
                                      "\"filters\":{\"max_stops\":0,\"carriers\":[\"BA\",\"AA\"],"
                                      "\"price\":{\"max\":500}}}", &in), "");
    assert_int_equal(in.max_stops, 0);
    assert_int_equal(json_array_size(in.carriers), 2);
    /* Listed, not refused. */
    assert_string_equal(trv_json_dump(pool, in.unsupported), "[\"price\"]");
    assert_string_equal(offers_errors("{\"journeys\":[" GOOD_JOURNEY "],\"passengers\":{\"adults\":1},"
                                      "\"filters\":{\"max_stops\":9,\"carriers\":[\"ba\"],"
                                      "\"price\":{\"max\":-1},\"colour\":\"red\"}}", &in),
                        "filters.colour,filters.max_stops,filters.carriers[0],filters.price");
}

static const char *prebook_errors(const char *body, trv_prebook_input *in)
{
    trv_errs *e = trv_errs_new(pool);
    trv_finput_prebook(pool, js(body), now, in, e);
    return fields(e);
}

#define CONTACT "\"contact\":{\"first_name\":\"Ada\",\"last_name\":\"Lovelace\"," \
    "\"email\":\"ada@example.com\",\"phone_number\":\"2071234567\",\"phone_country_code\":\"44\"}"
#define PAX "{\"first_name\":\"Ada\",\"last_name\":\"Lovelace\",\"birthday\":\"1990-12-10\"," \
    "\"type\":\"ADULT\",\"gender\":\"F\",\"nationality\":\"GB\"," \
    "\"loyalty_accounts\":[{\"airline_iata_code\":\"BA\",\"membership_number\":\"12345678\"}]}"

static void prebook_valid(void **state)
{
    trv_prebook_input in;
    (void)state;
    assert_string_equal(prebook_errors("{\"offer_reference\":\"abc\"," CONTACT ",\"passengers\":["
                                       PAX "],\"use_payment_sdk\":true,\"services\":[\"bag_1\","
                                       "{\"id\":\"bag_2\",\"quantity\":2}]}", &in), "");
    assert_string_equal(in.offer_reference, "abc");
    assert_true(in.use_payment_sdk);
    assert_int_equal(in.adults, 1);
    assert_string_equal(trv_json_dump(pool, in.services),
                        "[{\"id\":\"bag_1\",\"quantity\":1},{\"id\":\"bag_2\",\"quantity\":2}]");
    /* Loyalty numbers are kept in full for the airline. */
    assert_non_null(strstr(trv_json_dump(pool, in.passengers), "\"12345678\""));
}

static void prebook_fields(void **state)
{
    trv_prebook_input in;
    (void)state;
    assert_string_equal(prebook_errors("{}", &in), "offer_reference,contact,passengers");
    assert_string_equal(prebook_errors("{\"offer_reference\":\"abc\",\"contact\":{\"first_name\":\"\","
                                       "\"last_name\":\"L\",\"email\":\"nope\",\"phone_number\":\"+44\","
                                       "\"phone_country_code\":\"+44\"},\"passengers\":[" PAX "]}", &in),
                        "contact.first_name,contact.email,contact.phone_number,"
                        "contact.phone_country_code");
    assert_string_equal(prebook_errors("{\"offer_reference\":\"abc\"," CONTACT ",\"passengers\":[{"
                                       "\"first_name\":\"A\",\"last_name\":\"B\",\"birthday\":\"2099-01-01\","
                                       "\"type\":\"SENIOR\",\"gender\":\"Q\",\"nationality\":\"gbr\","
                                       "\"loyalty_accounts\":[{\"airline_iata_code\":\"B\","
                                       "\"membership_number\":\"12-34\"}]}]}", &in),
                        "passengers[0].birthday,passengers[0].type,passengers[0].gender,"
                        "passengers[0].nationality,"
                        "passengers[0].loyalty_accounts[0].airline_iata_code,"
                        "passengers[0].loyalty_accounts[0].membership_number");
    assert_string_equal(prebook_errors("{\"offer_reference\":\"abc\"," CONTACT ",\"passengers\":["
                                       PAX "],\"services\":[\"bag_1\",\"bag_1\",{\"id\":\"bag_2\","
                                       "\"quantity\":0},7],\"use_payment_sdk\":\"yes\",\"seat\":1}", &in),
                        "seat,use_payment_sdk,services[1],services[2].quantity,services[3]");
    /* An infant needs an adult's lap. */
    assert_string_equal(prebook_errors("{\"offer_reference\":\"abc\"," CONTACT ",\"passengers\":[{"
                                       "\"first_name\":\"A\",\"last_name\":\"B\",\"birthday\":\"2025-12-01\","
                                       "\"type\":\"INFANT\",\"gender\":\"F\"}]}", &in), "passengers");
}

static void idempotency_keys(void **state)
{
    char key[300];
    (void)state;
    assert_true(trv_idempotency_key_valid("a"));
    memset(key, 'k', 256);
    key[256] = '\0';
    assert_true(trv_idempotency_key_valid(key));
    key[256] = 'k';
    key[257] = '\0';
    assert_false(trv_idempotency_key_valid(key));
    assert_false(trv_idempotency_key_valid(""));
    assert_false(trv_idempotency_key_valid("tab\there"));
}

static void request_hash(void **state)
{
    const char *a = trv_idempotency_body_hash(pool, js("{\"a\":1,\"b\":{\"x\":[1,2],\"y\":\"z\"}}"));
    (void)state;
    assert_int_equal(strlen(a), 64);
    /* Key order and whitespace do not matter ... */
    assert_string_equal(a, trv_idempotency_body_hash(pool, js("{ \"b\" : {\"y\":\"z\",\"x\":[1,2]}, \"a\":1 }")));
    /* ... values and array order do. */
    assert_string_not_equal(a, trv_idempotency_body_hash(pool, js("{\"a\":2,\"b\":{\"x\":[1,2],\"y\":\"z\"}}")));
    assert_string_not_equal(a, trv_idempotency_body_hash(pool, js("{\"a\":1,\"b\":{\"x\":[2,1],\"y\":\"z\"}}")));
}

static void offer_reference(void **state)
{
    unsigned char key[32];
    trv_foffer_ref o, back;
    const char *text, *why;
    char *tampered;
    (void)state;
    memset(key, 7, sizeof(key));
    memset(&o, 0, sizeof(o));
    o.supplier = "SUPPLIER_A";
    o.ref = "OFF|123/456+x";
    o.adults = 2;
    o.children = 1;
    o.infants = 1;
    o.expires_at = apr_time_from_sec(1780000000);
    text = trv_foffer_ref_encode(pool, key, "org_1", &o);
    assert_null(strpbrk(text, "+/="));
    assert_int_equal(trv_foffer_ref_decode(pool, key, "org_1", text, &back, &why), APR_SUCCESS);
    assert_string_equal(back.supplier, "SUPPLIER_A");
    assert_string_equal(back.ref, "OFF|123/456+x");
    assert_int_equal(back.adults, 2);
    assert_int_equal(back.children, 1);
    assert_int_equal(back.infants, 1);
    assert_true(back.expires_at == o.expires_at);
    /* Another organization, another key, an edited reference: refused. */
    assert_int_equal(trv_foffer_ref_decode(pool, key, "org_2", text, &back, &why), APR_EINVAL);
    key[0] = 8;
    assert_int_equal(trv_foffer_ref_decode(pool, key, "org_1", text, &back, &why), APR_EINVAL);
    key[0] = 7;
    tampered = apr_pstrdup(pool, text);
    tampered[30] = tampered[30] == 'A' ? 'B' : 'A';
    assert_int_equal(trv_foffer_ref_decode(pool, key, "org_1", tampered, &back, &why), APR_EINVAL);
    assert_int_equal(trv_foffer_ref_decode(pool, key, "org_1", "short", &back, &why), APR_EINVAL);
    assert_int_equal(trv_foffer_ref_decode(pool, key, "org_1", "not base64 at all!!!!!!!!!!", &back,
                                           &why), APR_EINVAL);
}

/* A reference the server could have signed around any payload: base64url
 * of HMAC-SHA256(key, org NUL payload)[0..16) followed by the payload (the
 * construction of flight/offer_ref.c). */
static const char *signed_ref(const unsigned char *key, const char *org, const char *payload)
{
    unsigned char mac[EVP_MAX_MD_SIZE], raw[512], msg[512];
    unsigned int maclen = 0;
    size_t olen = strlen(org), plen = strlen(payload);
    char *out = apr_palloc(pool, (apr_size_t)apr_base64_encode_len((int)(16 + plen))), *s, *d;
    memcpy(msg, org, olen + 1);
    memcpy(msg + olen + 1, payload, plen);
    HMAC(EVP_sha256(), key, 32, msg, olen + 1 + plen, mac, &maclen);
    memcpy(raw, mac, 16);
    memcpy(raw + 16, payload, plen);
    apr_base64_encode_binary(out, raw, (int)(16 + plen));
    for (s = d = out; *s; s++) {
        if (*s != '=') {
            *d++ = *s == '+' ? '-' : *s == '/' ? '_' : *s;
        }
    }
    *d = '\0';
    return out;
}

/* Found by tests/fuzz/fuzz_offer_ref: an expiry beyond what apr_time_t
 * holds overflowed (undefined behaviour) while decoding; it is refused. */
static void offer_reference_expiry_range(void **state)
{
    unsigned char key[32];
    trv_foffer_ref back;
    const char *why;
    (void)state;
    memset(key, 7, sizeof(key));
    /* The helper signs what the encoder signs. */
    assert_int_equal(trv_foffer_ref_decode(pool, key, "org_1",
                                           signed_ref(key, "org_1", "1|SUPPLIER_A|1|0|0|1780000000|R1"),
                                           &back, &why), APR_SUCCESS);
    assert_true(back.expires_at == apr_time_from_sec(1780000000));
    assert_string_equal(back.ref, "R1");
    /* The largest expiry that fits still decodes... */
    assert_int_equal(trv_foffer_ref_decode(pool, key, "org_1",
                                           signed_ref(key, "org_1", "1|SUPPLIER_A|1|0|0|9223372036854|R1"),
                                           &back, &why), APR_SUCCESS);
    /* ...one beyond, or beyond long long, is refused. */
    assert_int_equal(trv_foffer_ref_decode(pool, key, "org_1",
                                           signed_ref(key, "org_1", "1|SUPPLIER_A|1|0|0|9223372036855|R1"),
                                           &back, &why), APR_EINVAL);
    assert_int_equal(trv_foffer_ref_decode(pool, key, "org_1",
                                           signed_ref(key, "org_1", "1|1|1|0|1|1222222222222222222222|R"),
                                           &back, &why), APR_EINVAL);
    assert_int_equal(trv_foffer_ref_decode(pool, key, "org_1",
                                           signed_ref(key, "org_1", "1|SUPPLIER_A|1|0|0|-9223372036855|R1"),
                                           &back, &why), APR_EINVAL);
}

/* An offer as an adapter writes one: member n, its most stops, its
 * segments' carriers. */
static void offer(trv_foffer_list *l, int n, int stops, const char *c1, const char *c2)
{
    trv_foffer_text *o = trv_foffer_list_open(l, apr_psprintf(pool, "ref%d", n), NULL);
    trv_jtext_kint(&l->text, "n", n);
    o->stops = stops;
    trv_foffer_text_carrier(o, c1);
    if (c2) {
        trv_foffer_text_carrier(o, c2);
    }
    trv_foffer_list_close(l);
}

/* The kept offers as the answer's data, each under reference "w<ref>". */
static const char *written(const apr_array_header_t *kept)
{
    trv_jtext t;
    int i;
    trv_jtext_init(&t, pool, 16);
    trv_jtext_arr(&t);
    for (i = 0; i < kept->nelts; i++) {
        const trv_foffer_text *o = APR_ARRAY_IDX(kept, i, const trv_foffer_text *);
        trv_foffer_text_write(&t, o, apr_pstrcat(pool, "w", o->ref, NULL));
    }
    trv_jtext_end(&t);
    return trv_jtext_done(&t, NULL);
}

static void filters(void **state)
{
    json_t *ba = js("[\"BA\"]"), *baaa = js("[\"BA\",\"AA\"]");
    apr_array_header_t *offers, *out;
    trv_foffer_list l;
    int more;
    (void)state;
    trv_foffer_list_init(&l, pool);
    offer(&l, 1, 0, "BA", NULL);
    offer(&l, 2, 1, "BA", "AA");
    offer(&l, 3, 0, "LH", NULL);
    offer(&l, 4, 2, "BA", "BA");
    offer(&l, 5, 0, NULL, NULL); /* a segment whose carrier is not named */
    assert_non_null(offers = trv_foffer_list_done(&l));
    out = trv_foffer_filter_apply(pool, offers, -1, NULL, 10, &more);
    assert_string_equal(written(out),
        "[{\"offer_reference\":\"wref1\",\"n\":1},{\"offer_reference\":\"wref2\",\"n\":2},"
        "{\"offer_reference\":\"wref3\",\"n\":3},{\"offer_reference\":\"wref4\",\"n\":4},"
        "{\"offer_reference\":\"wref5\",\"n\":5}]");
    assert_false(more);
    /* Every journey within max_stops: the most stops of any journey. */
    out = trv_foffer_filter_apply(pool, offers, 0, NULL, 10, &more);
    assert_string_equal(written(out),
        "[{\"offer_reference\":\"wref1\",\"n\":1},{\"offer_reference\":\"wref3\",\"n\":3},"
        "{\"offer_reference\":\"wref5\",\"n\":5}]");
    /* Every segment by a listed carrier; an unnamed one is not listed. */
    out = trv_foffer_filter_apply(pool, offers, -1, ba, 10, &more);
    assert_string_equal(written(out),
        "[{\"offer_reference\":\"wref1\",\"n\":1},{\"offer_reference\":\"wref4\",\"n\":4}]");
    out = trv_foffer_filter_apply(pool, offers, 1, baaa, 10, &more);
    assert_string_equal(written(out),
        "[{\"offer_reference\":\"wref1\",\"n\":1},{\"offer_reference\":\"wref2\",\"n\":2}]");
    /* limit cuts, and says more matched. */
    out = trv_foffer_filter_apply(pool, offers, -1, NULL, 2, &more);
    assert_int_equal(out->nelts, 2);
    assert_true(more);
    out = trv_foffer_filter_apply(pool, offers, 0, NULL, 3, &more);
    assert_int_equal(out->nelts, 3);
    assert_false(more);
}

/* What the adapter wrote must be JSON: a string that is not UTF-8, or an
 * offer left open, makes the list unusable rather than the answer broken. */
static void offer_text_refused(void **state)
{
    trv_foffer_list l;
    int more;
    (void)state;
    trv_foffer_list_init(&l, pool);
    trv_foffer_list_open(&l, "ref1", NULL);
    trv_jtext_kstr(&l.text, "fare_family", "Basic\xff");
    trv_foffer_list_close(&l);
    assert_null(trv_foffer_list_done(&l));
    trv_foffer_list_init(&l, pool);
    offer(&l, 1, 0, "BA", NULL);
    trv_foffer_list_open(&l, "ref2", NULL);
    assert_null(trv_foffer_list_done(&l));
    /* An offer of no members is still an object. */
    trv_foffer_list_init(&l, pool);
    trv_foffer_list_open(&l, "ref1", "2027-01-01T00:00:00Z");
    trv_foffer_list_close(&l);
    assert_non_null(trv_foffer_list_done(&l));
    assert_int_equal(APR_ARRAY_IDX(l.offers, 0, trv_foffer_text).members_len, 0);
    assert_string_equal(written(trv_foffer_filter_apply(pool, l.offers, -1, NULL, 5, &more)),
                        "[{\"offer_reference\":\"wref1\"}]");
}

static void book_body(void **state)
{
    trv_errs *e = trv_errs_new(pool);
    (void)state;
    assert_string_equal(trv_finput_book(pool, js("{\"payment_instrument_id\":\"pi_test_visa\"}"),
                                        e), "pi_test_visa");
    assert_null(trv_finput_book(pool, js("{}"), e));
    assert_null(trv_finput_book(pool, NULL, e));
    assert_string_equal(fields(e), "");
    assert_null(trv_finput_book(pool, js("{\"payment_instrument_id\":5,\"card\":1}"), e));
    assert_string_equal(fields(e), "card,payment_instrument_id");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(offers_valid),
        cmocka_unit_test(offers_fields),
        cmocka_unit_test(offers_filters),
        cmocka_unit_test(prebook_valid),
        cmocka_unit_test(prebook_fields),
        cmocka_unit_test(idempotency_keys),
        cmocka_unit_test(request_hash),
        cmocka_unit_test(offer_reference),
        cmocka_unit_test(offer_reference_expiry_range),
        cmocka_unit_test(filters),
        cmocka_unit_test(offer_text_refused),
        cmocka_unit_test(book_body),
    };
    int rc;
    apr_initialize();
    apr_pool_create(&pool, NULL);
    /* A fixed "now": 2026-03-15 12:00 UTC. */
    trv_time_parse("2026-03-15T12:00:00Z", &now);
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    apr_pool_destroy(pool);
    apr_terminate();
    return rc;
}
