/* The rules every idempotent endpoint shares (core/idempotency.h): a key
 * is 1 to max printable ASCII characters and a bad or missing one is named
 * in the 422's x-idempotency-key error with the endpoint's limit; a
 * fingerprint tells requests apart by method, path, query and body, but
 * not by the order of the body's keys. */
#include "unit.h"

#include <apr_strings.h>
#include <string.h>

#include "core/idempotency.h"
#include "core/json.h"

static json_t *js(apr_pool_t *p, const char *text)
{
    return trv_json_bind(p, json_loads(text, 0, NULL));
}

/* The one error errs holds, on x-idempotency-key: its reason. */
static const char *only_error(const trv_errs *errs)
{
    const json_t *d = errs->details;
    assert_int_equal(json_array_size(d), 1);
    assert_string_equal(trv_json_str(json_array_get(d, 0), "field"), "x-idempotency-key");
    return trv_json_str(json_array_get(d, 0), "reason");
}

static void keys_are_checked_against_the_endpoints_limit(void **state)
{
    apr_pool_t *p = *state;
    char *k256 = apr_pstrdup(p, ""), *k201;
    trv_errs *errs;
    int i;

    for (i = 0; i < 256; i++) {
        k256 = apr_pstrcat(p, k256, "k", NULL);
    }
    k201 = apr_pstrndup(p, k256, 201);
    assert_true(trv_idempotency_key_valid("a"));
    assert_true(trv_idempotency_key_valid(k256));
    assert_false(trv_idempotency_key_valid(apr_pstrcat(p, k256, "k", NULL)));

    errs = trv_errs_new(p);
    assert_true(trv_idempotency_key_check(k256, TRV_IDEMPOTENCY_KEY_MAX, errs));
    assert_true(trv_idempotency_key_check(apr_pstrndup(p, k256, 200),
                                          TRV_IDEMPOTENCY_HOTEL_KEY_MAX, errs));
    assert_false(trv_errs_any(errs));

    errs = trv_errs_new(p);
    assert_false(trv_idempotency_key_check(NULL, TRV_IDEMPOTENCY_KEY_MAX, errs));
    assert_string_equal(only_error(errs), "header is required (1 to 256 characters)");
    errs = trv_errs_new(p);
    assert_false(trv_idempotency_key_check(k201, TRV_IDEMPOTENCY_HOTEL_KEY_MAX, errs));
    assert_string_equal(only_error(errs), "must be 1 to 200 printable ASCII characters");
    errs = trv_errs_new(p);
    assert_false(trv_idempotency_key_check("tab\there", TRV_IDEMPOTENCY_KEY_MAX, errs));
    assert_string_equal(only_error(errs), "must be 1 to 256 printable ASCII characters");
    errs = trv_errs_new(p);
    assert_false(trv_idempotency_key_check("", TRV_IDEMPOTENCY_KEY_MAX, errs));
    assert_true(trv_errs_any(errs));
}

static void fingerprints_tell_requests_apart(void **state)
{
    apr_pool_t *p = *state;
    const json_t *body = js(p, "{\"a\":1,\"b\":[1,2]}");
    const char *fp = trv_idempotency_fingerprint(p, "POST", "/v1/x", NULL, body);

    assert_int_equal(strlen(fp), 64);
    assert_string_equal(fp, trv_idempotency_fingerprint(p, "POST", "/v1/x", "",
                                                        js(p, "{ \"b\": [1, 2], \"a\": 1 }")));
    assert_string_not_equal(fp, trv_idempotency_fingerprint(p, "PUT", "/v1/x", NULL, body));
    assert_string_not_equal(fp, trv_idempotency_fingerprint(p, "POST", "/v1/y", NULL, body));
    assert_string_not_equal(fp, trv_idempotency_fingerprint(p, "POST", "/v1/x", "q=1", body));
    assert_string_not_equal(fp, trv_idempotency_fingerprint(p, "POST", "/v1/x", NULL,
                                                            js(p, "{\"a\":1,\"b\":[2,1]}")));
    assert_string_not_equal(fp, trv_idempotency_fingerprint(p, "POST", "/v1/x", NULL, NULL));
    /* The body hash alone: key order and spacing do not count. */
    assert_string_equal(trv_idempotency_body_hash(p, body),
                        trv_idempotency_body_hash(p, js(p, "{\"b\":[1,2],  \"a\":1}")));
    assert_string_equal(trv_idempotency_body_hash(p, NULL),
                        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(keys_are_checked_against_the_endpoints_limit,
                                        pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(fingerprints_tell_requests_apart, pool_setup,
                                        pool_teardown),
    };
    return UNIT_RUN(tests);
}
