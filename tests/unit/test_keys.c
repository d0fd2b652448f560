/* API keys, the parts needing no database: a key is stored only as the
 * lowercase hex SHA-256 of its text, and only keys shaped tk_live_ /
 * tk_test_ + [A-Za-z0-9]+ (200 characters at most) are ever looked up. */
#include "unit.h"

#include <apr_strings.h>
#include <string.h>

#include "account/keys.h"
#include "core/crypt.h"

static void test_sha256_known_digests(void **state)
{
    apr_pool_t *p = *state;
    assert_string_equal(trv_crypt_sha256_hex(p, "abc", 3),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    assert_string_equal(trv_crypt_sha256_hex(p, "", 0),
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    /* The length given is what is hashed, not up to a NUL. */
    assert_string_equal(trv_crypt_sha256_hex(p, "abcdef", 3),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    assert_string_not_equal(trv_crypt_sha256_hex(p, "tk_test_a", 9),
                            trv_crypt_sha256_hex(p, "tk_test_b", 9));
}

static char *key_of(apr_pool_t *p, const char *prefix, size_t tail)
{
    char *k = apr_palloc(p, strlen(prefix) + tail + 1);
    strcpy(k, prefix);
    memset(k + strlen(prefix), 'a', tail);
    k[strlen(prefix) + tail] = '\0';
    return k;
}

static void test_well_formed(void **state)
{
    apr_pool_t *p = *state;
    assert_true(trv_key_well_formed("tk_test_abc123XYZ"));
    assert_true(trv_key_well_formed("tk_live_0"));
    assert_true(trv_key_well_formed(key_of(p, "tk_live_", 192))); /* 200 in all */
}

static void test_malformed(void **state)
{
    apr_pool_t *p = *state;
    static const char *const bad[] = {
        "", "tk_test_", "tk_live_",                 /* empty tail */
        "tk_prod_abc", "sk_test_abc", "tk_abc",     /* other prefixes */
        "TK_TEST_abc", "tk_Test_abc", "tk_test-abc", "tk_testabc",
        "tk_test_ab-c", "tk_test_ab_c", "tk_test_ab c", "tk_test_abc\n",
        "tk_test_ab.c", "tk_test_ab/c", "tk_test_ab%20", "tk_test_caf\xc3\xa9",
        " tk_test_abc", "Bearer tk_test_abc",
        NULL
    };
    const char *const *b;
    for (b = bad; *b; b++) {
        if (trv_key_well_formed(*b)) {
            fail_msg("\"%s\" was taken for a key", *b);
        }
    }
    assert_false(trv_key_well_formed(NULL));
    assert_false(trv_key_well_formed(key_of(p, "tk_live_", 193))); /* 201 */
    assert_false(trv_key_well_formed(key_of(p, "tk_test_", 5000)));
}

/* Where a request's key is read: x-api-key, else a Bearer token (any case
 * of the scheme, extra spaces); another scheme or an empty token is none. */
static void test_key_of_headers(void **state)
{
    apr_pool_t *p = *state;
    apr_table_t *h = apr_table_make(p, 4);
    assert_null(trv_key_of_headers(h));
    apr_table_set(h, "Authorization", "Bearer tk_test_abc");
    assert_string_equal(trv_key_of_headers(h), "tk_test_abc");
    apr_table_set(h, "authorization", "bEaReR    tk_test_def");
    assert_string_equal(trv_key_of_headers(h), "tk_test_def");
    apr_table_set(h, "Authorization", "Basic dXNlcjpwYXNz");
    assert_null(trv_key_of_headers(h));
    apr_table_set(h, "Authorization", "Bearer ");
    assert_null(trv_key_of_headers(h));
    apr_table_set(h, "Authorization", "Bearertk_test_abc");
    assert_null(trv_key_of_headers(h));
    apr_table_set(h, "Authorization", "Bearer tk_test_abc");
    apr_table_set(h, "X-Api-Key", "tk_test_xyz");
    assert_string_equal(trv_key_of_headers(h), "tk_test_xyz");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_sha256_known_digests, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(test_well_formed, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(test_malformed, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(test_key_of_headers, pool_setup, pool_teardown),
    };
    return UNIT_RUN(tests);
}
