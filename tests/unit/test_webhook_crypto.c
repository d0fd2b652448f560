/* Webhook signing secrets and signatures: whsec_ secrets, AES-256-GCM
 * sealing at rest (tampering, wrong key and wrong owner are refused), and
 * Standard Webhooks signatures checked against the specification's own
 * test vector; v1a Ed25519 keys and signatures against RFC 8032's; payload
 * filters checked as a subscription is saved. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <apr_general.h>
#include <apr_pools.h>
#include <apr_strings.h>
#include <apr_tables.h>
#include <string.h>

#include "core/crypt.h"
#include "webhook/secret.h"
#include "webhook/filter.h"
#include "webhook/signature.h"
#include "webhook/signing_key.h"
#include "core/json.h"

static const unsigned char key_a[32] = "0123456789abcdef0123456789abcdef";
static const unsigned char key_b[32] = "fedcba9876543210fedcba9876543210";

static int pool_setup(void **state)
{
    apr_pool_t *p;
    if (apr_pool_create(&p, NULL) != APR_SUCCESS) {
        return -1;
    }
    *state = p;
    return 0;
}

static int pool_teardown(void **state)
{
    apr_pool_destroy(*state);
    return 0;
}

static void secrets_are_whsec_base64_of_32_random_bytes(void **state)
{
    apr_pool_t *p = *state;
    const char *a = trv_whsec_new(p), *b = trv_whsec_new(p);
    const unsigned char *k;
    apr_size_t n = 0;
    assert_non_null(a);
    assert_true(strncmp(a, "whsec_", 6) == 0);
    assert_int_equal(strlen(a), 6 + 44);
    assert_string_not_equal(a, b);
    assert_int_equal(trv_whsec_key(p, a, &k, &n), APR_SUCCESS);
    assert_int_equal(n, 32);
}

static void secret_keys_decode_strictly(void **state)
{
    apr_pool_t *p = *state;
    const unsigned char *k;
    apr_size_t n = 0;
    assert_int_equal(trv_whsec_key(p, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", &k, &n),
                     APR_SUCCESS);
    assert_int_equal(n, 24);
    /* Without the prefix the whole text is the base64. */
    assert_int_equal(trv_whsec_key(p, "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", &k, &n), APR_SUCCESS);
    assert_int_equal(trv_whsec_key(p, "whsec_", &k, &n), APR_EINVAL);
    assert_int_equal(trv_whsec_key(p, "whsec_abc", &k, &n), APR_EINVAL);
    assert_int_equal(trv_whsec_key(p, "whsec_ab!d", &k, &n), APR_EINVAL);
    assert_int_equal(trv_whsec_key(p, "whsec_a=bc", &k, &n), APR_EINVAL);
    assert_int_equal(trv_whsec_key(p, NULL, &k, &n), APR_EINVAL);
}

static void sealing_round_trips_and_hides_the_secret(void **state)
{
    apr_pool_t *p = *state;
    const char *secret = "whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXg=";
    const char *s1, *s2, *plain;
    assert_int_equal(trv_crypt_seal(p, key_a, "whs_1", secret, &s1), APR_SUCCESS);
    assert_int_equal(trv_crypt_seal(p, key_a, "whs_1", secret, &s2), APR_SUCCESS);
    assert_true(strncmp(s1, "v1:", 3) == 0);
    assert_null(strstr(s1, "c2VjcmV0"));
    /* A fresh nonce each time. */
    assert_string_not_equal(s1, s2);
    assert_int_equal(trv_crypt_open(p, key_a, "whs_1", s1, &plain), APR_SUCCESS);
    assert_string_equal(plain, secret);
    assert_int_equal(trv_crypt_open(p, key_a, "whs_1", s2, &plain), APR_SUCCESS);
    assert_string_equal(plain, secret);
}

static void opening_refuses_wrong_key_owner_or_tampering(void **state)
{
    apr_pool_t *p = *state;
    const char *sealed, *plain = NULL;
    char *bad;
    size_t i;
    assert_int_equal(trv_crypt_seal(p, key_a, "whs_1", "whsec_AAAA", &sealed), APR_SUCCESS);
    assert_int_equal(trv_crypt_open(p, key_b, "whs_1", sealed, &plain), APR_EINVAL);
    /* Sealed for one subscription, it cannot be moved to another. */
    assert_int_equal(trv_crypt_open(p, key_a, "whs_2", sealed, &plain), APR_EINVAL);
    /* Any changed character of nonce, ciphertext or tag is caught. */
    for (i = 3; i < strlen(sealed) - 2; i++) {
        bad = apr_pstrdup(p, sealed);
        bad[i] = bad[i] == 'A' ? 'B' : 'A';
        assert_int_not_equal(trv_crypt_open(p, key_a, "whs_1", bad, &plain), APR_SUCCESS);
    }
    assert_int_equal(trv_crypt_open(p, key_a, "whs_1", "v1:", &plain), APR_EINVAL);
    assert_int_equal(trv_crypt_open(p, key_a, "whs_1", "v1:AAAA", &plain), APR_EINVAL);
    assert_int_equal(trv_crypt_open(p, key_a, "whs_1", "v2:AAAA", &plain), APR_EINVAL);
    assert_int_equal(trv_crypt_open(p, key_a, "whs_1", NULL, &plain), APR_EINVAL);
    assert_int_equal(trv_crypt_open(p, key_a, "whs_1", "whsec_AAAA", &plain), APR_EINVAL);
}

/* The test vector of the Standard Webhooks specification. */
static void signature_matches_the_specification_vector(void **state)
{
    apr_pool_t *p = *state;
    const char *body = "{\"test\": 2432232314}";
    assert_string_equal(trv_webhook_sign1(p, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
                                          "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330LL,
                                          body, strlen(body)),
                        "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
    /* Every input is signed: id, timestamp and each body byte. */
    assert_string_not_equal(trv_webhook_sign1(p, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
                                              "msg_p5jXN8AQM9LWM0D4loKWxJeK", 1614265330LL,
                                              body, strlen(body)),
                            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
    assert_string_not_equal(trv_webhook_sign1(p, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
                                              "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265331LL,
                                              body, strlen(body)),
                            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
    assert_string_not_equal(trv_webhook_sign1(p, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
                                              "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330LL,
                                              body, strlen(body) - 1),
                            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
    assert_null(trv_webhook_sign1(p, "whsec_!!", "msg_1", 1, body, strlen(body)));
}

static void one_signature_per_secret_space_separated(void **state)
{
    apr_pool_t *p = *state;
    apr_array_header_t *secrets = apr_array_make(p, 2, sizeof(const char *));
    const char *body = "{}", *one, *two, *both;
    one = trv_webhook_sign1(p, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "evt_1", 5, body, 2);
    two = trv_webhook_sign1(p, "whsec_c2Vjb25kLXNlY3JldA==", "evt_1", 5, body, 2);
    assert_null(trv_webhook_signature(p, secrets, "evt_1", 5, body, 2));
    APR_ARRAY_PUSH(secrets, const char *) = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    assert_string_equal(trv_webhook_signature(p, secrets, "evt_1", 5, body, 2), one);
    APR_ARRAY_PUSH(secrets, const char *) = "whsec_c2Vjb25kLXNlY3JldA==";
    both = trv_webhook_signature(p, secrets, "evt_1", 5, body, 2);
    assert_string_equal(both, apr_pstrcat(p, one, " ", two, NULL));
    APR_ARRAY_PUSH(secrets, const char *) = "not base64!";
    assert_null(trv_webhook_signature(p, secrets, "evt_1", 5, body, 2));
}

/* RFC 8032, 7.1, TEST 2: the one-byte message 0x72 ('r'). */
static void ed25519_keys_and_signatures_match_rfc8032(void **state)
{
    apr_pool_t *p = *state;
    const char *sk = "whsk_TM0Imyj/ltqdtsNG7BFOD1uKMZ81q6Yk2oz27U+4pvs=";
    const char *a = trv_whsk_new(p), *b = trv_whsk_new(p);
    assert_string_equal(trv_whsk_public(p, sk),
                        "whpk_PUAXw+hDiVqStwqnTRt+vJyYLM8uxJaMwM1V8Sr0Zgw=");
    assert_string_equal(trv_whsk_sign(p, sk, (const unsigned char *)"r", 1),
                        "v1a,kqAJqfDUyrhyDoILX2QlQKKye1QWUD+Ps3YiI+vbadoIWsHkPhWZbkWPNhPQ8R2M"
                        "OHsurrQwKu6wDSkWErsMAA==");
    /* New keys: whsk_ + base64 of a 32-byte seed, each different. */
    assert_non_null(a);
    assert_int_equal(strlen(a), 5 + 44);
    assert_string_not_equal(a, b);
    assert_int_equal(strlen(trv_whsk_public(p, a)), 5 + 44);
    /* Not a key: a whsec_ secret, a short seed, garbage. */
    assert_null(trv_whsk_public(p, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"));
    assert_null(trv_whsk_public(p, "whsk_c2hvcnQ="));
    assert_null(trv_whsk_sign(p, "whsk_!!!!", (const unsigned char *)"r", 1));
}

/* The header mixes schemes during a change of scheme: one entry per key. */
static void a_v1a_key_signs_the_standard_content_beside_v1(void **state)
{
    apr_pool_t *p = *state;
    apr_array_header_t *keys = apr_array_make(p, 2, sizeof(const char *));
    const char *sk = "whsk_TM0Imyj/ltqdtsNG7BFOD1uKMZ81q6Yk2oz27U+4pvs=", *h;
    const char *v1 = trv_webhook_sign1(p, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "evt_1",
                                       5, "{}", 2);
    APR_ARRAY_PUSH(keys, const char *) = sk;
    APR_ARRAY_PUSH(keys, const char *) = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    h = trv_webhook_signature(p, keys, "evt_1", 5, "{}", 2);
    assert_string_equal(h, apr_pstrcat(p, trv_whsk_sign(p, sk, (const unsigned char *)
                                                        "evt_1.5.{}", 10),
                                       " ", v1, NULL));
}

static const char *filter_errors(apr_pool_t *p, const char *text, json_t **out)
{
    trv_errs *errs = trv_errs_new(p);
    json_t *in = trv_json_bind(p, json_loads(text, JSON_DECODE_ANY, NULL));
    *out = trv_webhook_filters_check(p, in, errs);
    return trv_errs_any(errs) ? "bad" : NULL;
}

static void filters_are_checked_and_stored_as_lists(void **state)
{
    apr_pool_t *p = *state;
    json_t *f;
    assert_null(filter_errors(p, "{\"data.booking.status\": \"CONFIRMED\", "
                              "\"data.booking.rooms\": [1, 2], \"data.x_1\": true}", &f));
    assert_string_equal(trv_json_dump(p, f), "{\"data.booking.status\":[\"CONFIRMED\"],"
                        "\"data.booking.rooms\":[1,2],\"data.x_1\":[true]}");
    assert_null(filter_errors(p, "null", &f));
    assert_null(f);
    assert_non_null(filter_errors(p, "{\"data\": 1}", &f));
    assert_non_null(filter_errors(p, "{\"data.\": 1}", &f));
    assert_non_null(filter_errors(p, "{\"data.a-b\": 1}", &f));
    assert_non_null(filter_errors(p, "{\"type\": \"x\"}", &f));
    assert_non_null(filter_errors(p, "{\"data.a\": [1, 1]}", &f));
    assert_non_null(filter_errors(p, "{\"data.a\": [{}]}", &f));
    assert_non_null(filter_errors(p, "{\"data.a\": []}", &f));
    assert_non_null(filter_errors(p, "\"data.a\"", &f));
    assert_null(filter_errors(p, "{\"data.a.b.c.d.e.f.g.h\": 1}", &f));
    assert_non_null(filter_errors(p, "{\"data.a.b.c.d.e.f.g.h.i\": 1}", &f));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(secrets_are_whsec_base64_of_32_random_bytes,
                                        pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(secret_keys_decode_strictly, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(sealing_round_trips_and_hides_the_secret, pool_setup,
                                        pool_teardown),
        cmocka_unit_test_setup_teardown(opening_refuses_wrong_key_owner_or_tampering,
                                        pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(signature_matches_the_specification_vector,
                                        pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(one_signature_per_secret_space_separated, pool_setup,
                                        pool_teardown),
        cmocka_unit_test_setup_teardown(ed25519_keys_and_signatures_match_rfc8032, pool_setup,
                                        pool_teardown),
        cmocka_unit_test_setup_teardown(a_v1a_key_signs_the_standard_content_beside_v1,
                                        pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(filters_are_checked_and_stored_as_lists, pool_setup,
                                        pool_teardown),
    };
    int rc;
    apr_initialize();
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    apr_terminate();
    return rc;
}
