/* Loyalty membership numbers are stored in full and shown masked: never
 * whole, never more than the last four characters, and passengers as the
 * API shows them carry nothing else of the party (no birthday, gender,
 * nationality). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <apr_general.h>
#include <apr_pools.h>
#include <string.h>

#include "core/json.h"
#include "flight/mask.h"

static apr_pool_t *pool;

static void masks_numbers(void **state)
{
    (void)state;
    assert_string_equal(trv_fmask_membership(pool, "1234567890"), "******7890");
    assert_string_equal(trv_fmask_membership(pool, "LH992200113344"), "**********3344");
    assert_string_equal(trv_fmask_membership(pool, "123456789"), "*****6789");
    /* 8 or fewer: the last half only, so a short number is never whole. */
    assert_string_equal(trv_fmask_membership(pool, "12345678"), "****5678");
    assert_string_equal(trv_fmask_membership(pool, "ABC123"), "***123");
    assert_string_equal(trv_fmask_membership(pool, "12345"), "***45");
    assert_string_equal(trv_fmask_membership(pool, "12"), "*2");
    assert_string_equal(trv_fmask_membership(pool, "7"), "*");
    assert_string_equal(trv_fmask_membership(pool, ""), "");
    assert_string_equal(trv_fmask_membership(pool, NULL), "");
}

static void never_shows_the_number(void **state)
{
    const char *numbers[] = {"9", "12", "123", "1234", "12345678", "123456789012", NULL};
    int i;
    (void)state;
    for (i = 0; numbers[i]; i++) {
        const char *m = trv_fmask_membership(pool, numbers[i]);
        assert_int_equal(strlen(m), strlen(numbers[i]));
        assert_true(strcmp(m, numbers[i]) != 0);
        assert_true(m[0] == '*');
    }
}

static void passengers_public(void **state)
{
    const char *stored =
        "[{\"id\":\"psg_1\",\"first_name\":\"Ada\",\"last_name\":\"Lovelace\","
        "\"birthday\":\"1990-12-10\",\"type\":\"ADULT\",\"gender\":\"F\",\"nationality\":\"GB\","
        "\"loyalty_accounts\":[{\"airline_iata_code\":\"BA\",\"membership_number\":\"12345678901\"}]},"
        "{\"id\":\"psg_2\",\"first_name\":\"Bo\",\"last_name\":\"Li\",\"birthday\":\"2019-01-01\","
        "\"type\":\"CHILD\",\"gender\":\"M\",\"loyalty_accounts\":[]}]";
    json_t *in = trv_json_parse(pool, stored, strlen(stored), NULL);
    json_t *out = trv_json_bind(pool, trv_fmask_passengers(pool, in));
    const char *text = trv_json_dump(pool, out);
    (void)state;
    assert_string_equal(text,
        "[{\"id\":\"psg_1\",\"first_name\":\"Ada\",\"last_name\":\"Lovelace\","
        "\"loyalty_accounts\":[{\"airline_iata_code\":\"BA\",\"membership_number\":\"*******8901\"}]},"
        "{\"id\":\"psg_2\",\"first_name\":\"Bo\",\"last_name\":\"Li\",\"loyalty_accounts\":[]}]");
    assert_null(strstr(text, "12345678901"));
    assert_null(strstr(text, "1990"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(masks_numbers),
        cmocka_unit_test(never_shows_the_number),
        cmocka_unit_test(passengers_public),
    };
    int rc;
    apr_initialize();
    apr_pool_create(&pool, NULL);
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    apr_pool_destroy(pool);
    apr_terminate();
    return rc;
}
