/* Identifiers: "<prefix>_<UUIDv7>" in canonical text, ordered by creation
 * time so ids sort the way they were made; the path check accepts exactly
 * ^prefix_[a-zA-Z0-9-]+$ up to 128 characters; random tokens carry the
 * entropy asked for over [A-Za-z0-9] and never repeat. */
#include "unit.h"

#include <apr_strings.h>
#include <stdlib.h>
#include <string.h>

#include "core/ids.h"

static int is_lower_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/* Asserts u is 8-4-4-4-12 lowercase hex, version 7, RFC 9562 variant. */
static void assert_uuid7(const char *u)
{
    static const int dash[] = {8, 13, 18, 23};
    int i, d = 0;
    assert_non_null(u);
    assert_int_equal(strlen(u), 36);
    for (i = 0; i < 36; i++) {
        if (d < 4 && i == dash[d]) {
            assert_int_equal(u[i], '-');
            d++;
        }
        else if (!is_lower_hex(u[i])) {
            fail_msg("uuid \"%s\": character %d is not lowercase hex", u, i);
        }
    }
    assert_int_equal(u[14], '7');                 /* version nibble */
    assert_non_null(strchr("89ab", u[19]));       /* variant 10xx */
}

static void test_id_shape(void **state)
{
    apr_pool_t *p = *state;
    char *id = trv_id_new(p, "bkg");
    assert_non_null(id);
    assert_int_equal(strncmp(id, "bkg_", 4), 0);
    assert_uuid7(id + 4);
    assert_true(trv_id_valid(id, "bkg"));
    assert_false(trv_id_valid(id, "pay"));
}

static void test_id_carries_current_time(void **state)
{
    apr_pool_t *p = *state;
    apr_time_t before = apr_time_now() / 1000, after;
    char *id = trv_id_new(p, "bkg"), hex[13];
    unsigned long long ms;
    after = apr_time_now() / 1000;
    /* The first 48 bits are Unix milliseconds. */
    memcpy(hex, id + 4, 8);
    memcpy(hex + 8, id + 13, 4);
    hex[12] = '\0';
    ms = strtoull(hex, NULL, 16);
    assert_true((apr_time_t)ms >= before && (apr_time_t)ms <= after);
}

static void test_uuid7_at_known_time(void **state)
{
    apr_pool_t *p = *state;
    /* 2026-01-01T00:00:00.000Z = 1767225600000 ms = 0x019b76daa800 */
    char *u = trv_uuid7_at(p, apr_time_from_sec(1767225600));
    assert_uuid7(u);
    assert_int_equal(strncmp(u, "019b76da-a800-7", 15), 0);
    u = trv_uuid7_at(p, 0);
    assert_uuid7(u);
    assert_int_equal(strncmp(u, "00000000-0000-7", 15), 0);
}

static void test_ids_sort_by_time(void **state)
{
    apr_pool_t *p = *state;
    apr_time_t t = apr_time_from_sec(1767225600) + 123000;
    int i;
    /* Random bits never reorder ids one millisecond apart. */
    for (i = 0; i < 200; i++) {
        char *a = trv_uuid7_at(p, t + i * 1000);
        char *b = trv_uuid7_at(p, t + (i + 1) * 1000);
        if (strcmp(a, b) >= 0) {
            fail_msg("%s made before %s sorts after it", a, b);
        }
    }
    /* Also across a carry into higher hex digits and far apart. */
    assert_true(strcmp(trv_uuid7_at(p, apr_time_from_msec(0xffff)),
                       trv_uuid7_at(p, apr_time_from_msec(0x10000))) < 0);
    assert_true(strcmp(trv_uuid7_at(p, apr_time_from_sec(1)),
                       trv_uuid7_at(p, apr_time_from_sec(4000000000LL))) < 0);
}

static void test_ids_are_unique(void **state)
{
    apr_pool_t *p = *state;
    apr_time_t t = apr_time_from_sec(1767225600);
    /* Same millisecond: the 74 random bits still tell them apart. */
    assert_string_not_equal(trv_uuid7_at(p, t), trv_uuid7_at(p, t));
    assert_string_not_equal(trv_id_new(p, "bkg"), trv_id_new(p, "bkg"));
}

static void test_id_valid(void **state)
{
    apr_pool_t *p = *state;
    char *longest, *too_long;

    assert_true(trv_id_valid("bkg_0193f1c4-7a2e-7c3d-9a1b-2f0c1d2e3f40", "bkg"));
    assert_true(trv_id_valid("bkg_a", "bkg"));
    assert_true(trv_id_valid("bkg_ABC-def-123", "bkg"));

    assert_false(trv_id_valid("pay_0193f1c4-7a2e-7c3d-9a1b-2f0c1d2e3f40", "bkg"));
    assert_false(trv_id_valid("bkgx_abc", "bkg"));
    assert_false(trv_id_valid("bk_abc", "bkg"));
    assert_false(trv_id_valid("BKG_abc", "bkg"));
    assert_false(trv_id_valid("bkg", "bkg"));
    assert_false(trv_id_valid("bkg_", "bkg"));
    assert_false(trv_id_valid("bkg-abc", "bkg"));
    assert_false(trv_id_valid("bkg_abc/def", "bkg"));
    assert_false(trv_id_valid("bkg_ab cd", "bkg"));
    assert_false(trv_id_valid("bkg_ab_cd", "bkg"));
    assert_false(trv_id_valid("bkg_abc\n", "bkg"));
    assert_false(trv_id_valid("bkg_ab%2f", "bkg"));
    assert_false(trv_id_valid("bkg_caf\xc3\xa9", "bkg"));
    assert_false(trv_id_valid("", "bkg"));
    assert_false(trv_id_valid(NULL, "bkg"));

    /* 128 characters in all is the limit. */
    longest = apr_pstrcat(p, "bkg_", apr_psprintf(p, "%0124d", 0), NULL);
    assert_int_equal(strlen(longest), TRV_ID_MAX_LEN);
    assert_true(trv_id_valid(longest, "bkg"));
    too_long = apr_pstrcat(p, longest, "0", NULL);
    assert_false(trv_id_valid(too_long, "bkg"));
}

static void assert_token(const char *tok, apr_size_t bytes)
{
    size_t i, n;
    assert_non_null(tok);
    n = strlen(tok);
    /* Each symbol of 62 carries log2(62) > 5.954 bits: enough symbols for
     * `bytes` bytes. */
    if (n * 5954 < bytes * 8 * 1000) {
        fail_msg("token of %zu characters carries less than %zu bytes",
                 n, (size_t)bytes);
    }
    assert_true(n <= bytes * 2 + 2); /* and not absurdly long */
    for (i = 0; i < n; i++) {
        char c = tok[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9'))) {
            fail_msg("token \"%s\": character %zu is outside [A-Za-z0-9]", tok, i);
        }
    }
}

static void test_random_token(void **state)
{
    apr_pool_t *p = *state;
    char *a = trv_random_token(p, 32), *b = trv_random_token(p, 32);
    assert_token(a, 32);
    assert_token(b, 32);
    assert_int_equal(strlen(a), strlen(b)); /* the length depends on bytes alone */
    assert_string_not_equal(a, b);
    assert_true(strlen(a) >= 43);           /* 256 bits need 43 symbols */
    assert_token(trv_random_token(p, 1), 1);
    assert_token(trv_random_token(p, 16), 16);
    assert_token(trv_random_token(p, 100), 100);
}

static void test_random_token_uses_whole_alphabet(void **state)
{
    apr_pool_t *p = *state;
    int seen[256] = {0}, i, distinct = 0;
    /* ~9000 symbols: every one of the 62 shows up unless the mapping is broken. */
    for (i = 0; i < 200; i++) {
        const char *t = trv_random_token(p, 32);
        for (; *t; t++) {
            seen[(unsigned char)*t] = 1;
        }
    }
    for (i = 0; i < 256; i++) {
        distinct += seen[i];
    }
    assert_int_equal(distinct, 62);
}

static void test_random_bytes(void **state)
{
    unsigned char a[32], b[32];
    (void)state;
    assert_int_equal(trv_random_bytes(a, sizeof(a)), APR_SUCCESS);
    assert_int_equal(trv_random_bytes(b, sizeof(b)), APR_SUCCESS);
    assert_memory_not_equal(a, b, sizeof(a));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_id_shape, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(test_id_carries_current_time, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(test_uuid7_at_known_time, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(test_ids_sort_by_time, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(test_ids_are_unique, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(test_id_valid, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(test_random_token, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(test_random_token_uses_whole_alphabet, pool_setup, pool_teardown),
        cmocka_unit_test(test_random_bytes),
    };
    return UNIT_RUN(tests);
}
