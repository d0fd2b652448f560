/* Amounts read exactly from the text of a JSON number: a request's amount
 * is never rounded through a double, so 50.000000000000001 EUR (which the
 * double of the number cannot tell from 50) is refused as having digits
 * beyond the cents, like 50.0000000001 always was, and an amount written
 * with an exponent is read exactly too. */
#include "unit.h"

#include <string.h>

#include "core/json.h"
#include "core/json_numbers.h"
#include "core/money.h"

static apr_int64_t number_ok(const char *s, int exponent)
{
    apr_int64_t minor = -424242;
    if (trv_money_parse_number(s, exponent, &minor) != APR_SUCCESS) {
        fail_msg("\"%s\" (exponent %d) was refused", s, exponent);
    }
    return minor;
}

static void number_bad(const char *s, int exponent)
{
    apr_int64_t minor = -424242;
    if (trv_money_parse_number(s, exponent, &minor) == APR_SUCCESS) {
        fail_msg("\"%s\" (exponent %d) was accepted as %" APR_INT64_T_FMT, s, exponent,
                 minor);
    }
    assert_true(minor == -424242);
}

static void test_exact_amounts(void **state)
{
    (void)state;
    assert_true(number_ok("50", 2) == 5000);
    assert_true(number_ok("50.5", 2) == 5050);
    assert_true(number_ok("50.50000000000000000000", 2) == 5050);
    assert_true(number_ok("-12.34", 2) == -1234);
    assert_true(number_ok("0", 2) == 0);
    assert_true(number_ok("-0.000", 2) == 0);
    assert_true(number_ok("0e999999999999", 2) == 0);
    assert_true(number_ok("100", 0) == 100);
    assert_true(number_ok("100.000", 0) == 100);
    assert_true(number_ok("1.234", 3) == 1234);
    assert_true(number_ok("1.5e2", 2) == 15000);
    assert_true(number_ok("15E-1", 2) == 150);
    assert_true(number_ok("1234e-2", 2) == 1234);
    assert_true(number_ok("0.01", 2) == 1);
    assert_true(number_ok("0.5e-1", 2) == 5);
    assert_true(number_ok("1000000", 0) == 1000000);
    assert_true(number_ok("9999999999999.99", 2) == 999999999999999LL);
    assert_true(number_ok("999999999999999", 0) == 999999999999999LL);
}

static void test_digits_beyond_minor_units(void **state)
{
    (void)state;
    /* The probe's amounts: a double rounds each to a valid one. */
    number_bad("50.000000000000001", 2);
    number_bad("1.0000000000000000000001", 2);
    number_bad("100.0000000000000001", 0);
    number_bad("60.000000000000001", 2);
    number_bad("50.0000000001", 2);
    number_bad("0.001", 2);
    number_bad("1.5", 0);
    number_bad("1e-3", 2);
    number_bad("0.5e-2", 2);
    number_bad("1e-999999999999999999999", 2);
}

static void test_range_and_grammar(void **state)
{
    (void)state;
    number_bad("10000000000000", 2);       /* 10^15 minor units */
    number_bad("1e13", 2);
    number_bad("1e999999999999999999999", 2);
    number_bad("9999999999999999", 0);
    number_bad("", 2);
    number_bad("-", 2);
    number_bad("+1", 2);
    number_bad("01", 2);
    number_bad(".5", 2);
    number_bad("5.", 2);
    number_bad("1e", 2);
    number_bad("1e+", 2);
    number_bad("1.2.3", 2);
    number_bad("1 ", 2);
    number_bad("NaN", 2);
    number_bad("Infinity", 2);
    number_bad("0x10", 2);
    number_bad("1", -1);
}

/* A request body's amounts, through the parser the gateway uses: the text
 * is kept, so the reader sees the digits the client sent. */
static void test_request_amounts_read_from_their_text(void **state)
{
    apr_pool_t *p = *state;
    const char *body = "{\"a\": 50.000000000000001, \"b\": [1, {\"c\": 60.5}, "
                       "\"x\\\"1.5\", 7e0], \"d\": 100.0000000000000001, \"e\": 12}";
    json_t *doc = trv_json_parse(p, body, strlen(body), NULL);
    trv_money m;
    assert_non_null(doc);
    trv_json_numbers_keep(p, doc, body, strlen(body));
    /* The double of 50.000000000000001 is 50: read through it, the amount
     * passed (what the probe found). */
    assert_int_equal(trv_money_from_json_number(json_object_get(doc, "a"), "EUR", &m),
                     APR_SUCCESS);
    assert_int_not_equal(trv_money_from_request(p, json_object_get(doc, "a"), "EUR", &m),
                         APR_SUCCESS);
    assert_int_not_equal(trv_money_from_request(p, json_object_get(doc, "d"), "JPY", &m),
                         APR_SUCCESS);
    assert_int_equal(trv_money_from_request(p, json_object_get(json_array_get(
                                                json_object_get(doc, "b"), 1), "c"),
                                            "EUR", &m), APR_SUCCESS);
    assert_true(m.minor == 6050);
    assert_string_equal(m.currency, "EUR");
    assert_string_equal(trv_json_numbers_text(p, json_array_get(json_object_get(doc, "b"), 3)),
                        "7e0");
    assert_int_equal(trv_money_from_request(p, json_array_get(json_object_get(doc, "b"), 3),
                                            "JPY", &m), APR_SUCCESS);
    assert_true(m.minor == 7);
    assert_int_equal(trv_money_from_request(p, json_object_get(doc, "e"), "EUR", &m),
                     APR_SUCCESS);
    assert_true(m.minor == 1200);
    /* A number made in code has no text: read as before. */
    assert_null(trv_json_numbers_text(p, trv_json_bind(p, json_real(2.5))));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_amounts),
        cmocka_unit_test(test_digits_beyond_minor_units),
        cmocka_unit_test(test_range_and_grammar),
        cmocka_unit_test_setup_teardown(test_request_amounts_read_from_their_text, pool_setup,
                                        pool_teardown),
    };
    return UNIT_RUN(tests);
}
