/* Money: amounts are integer minor units of an ISO 4217 currency and reach
 * JSON as the exact decimal the user expects (0.1 + 0.2 EUR prints 0.3,
 * 1234 JPY prints 1234, 1.234 KWD prints 1.234); parsing refuses anything
 * that is not an exact amount of the currency, and sums never mix
 * currencies or leave the range the JSON printer reproduces exactly. */
#include "unit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "core/json_text.h"
#include "core/money.h"

/* The JSON text of {amount, currency} for minor units of currency. */
static const char *money_text(apr_pool_t *p, apr_int64_t minor, const char *cur)
{
    trv_money m;
    assert_int_equal(trv_money_make(&m, minor, cur), APR_SUCCESS);
    return trv_json_dump(p, trv_json_bind(p, trv_money_json(&m)));
}

static apr_int64_t parse_ok(const char *s, int exponent)
{
    apr_int64_t minor = -424242;
    assert_int_equal(trv_money_parse_decimal(s, exponent, &minor), APR_SUCCESS);
    return minor;
}

static void parse_bad(const char *s, int exponent)
{
    apr_int64_t minor = -424242;
    if (trv_money_parse_decimal(s, exponent, &minor) == APR_SUCCESS) {
        fail_msg("\"%s\" (exponent %d) was accepted as %" APR_INT64_T_FMT,
                 s, exponent, minor);
    }
    assert_true(minor == -424242); /* untouched on failure */
}

static void test_exponents(void **state)
{
    (void)state;
    assert_int_equal(trv_currency_exponent("EUR"), 2);
    assert_int_equal(trv_currency_exponent("USD"), 2);
    assert_int_equal(trv_currency_exponent("JPY"), 0);
    assert_int_equal(trv_currency_exponent("KWD"), 3);
    assert_int_equal(trv_currency_exponent("CLF"), 4);
    /* First and last of the table: the binary search reaches both ends. */
    assert_int_equal(trv_currency_exponent("AED"), 2);
    assert_int_equal(trv_currency_exponent("ZWG"), 2);
}

static void test_unknown_currency(void **state)
{
    trv_money m;
    (void)state;
    assert_int_equal(trv_currency_exponent("XXX"), -1);
    assert_int_equal(trv_currency_exponent("eur"), -1);
    assert_int_equal(trv_currency_exponent("EU"), -1);
    assert_int_equal(trv_currency_exponent("EURO"), -1);
    assert_int_equal(trv_currency_exponent(""), -1);
    assert_int_equal(trv_currency_exponent(NULL), -1);
    assert_int_not_equal(trv_money_make(&m, 100, "XXX"), APR_SUCCESS);
    assert_int_not_equal(trv_money_make(&m, 100, "eur"), APR_SUCCESS);
}

static void test_point_one_plus_point_two(void **state)
{
    apr_pool_t *p = *state;
    trv_money a, b;
    assert_int_equal(trv_money_make(&a, 10, "EUR"), APR_SUCCESS);
    assert_int_equal(trv_money_make(&b, 20, "EUR"), APR_SUCCESS);
    assert_int_equal(trv_money_add(&a, &b), APR_SUCCESS);
    assert_true(a.minor == 30);
    assert_string_equal(trv_json_dump(p, trv_json_bind(p, trv_money_json(&a))),
                        "{\"amount\":0.3,\"currency\":\"EUR\"}");
}

static void test_json_decimals(void **state)
{
    apr_pool_t *p = *state;
    assert_string_equal(money_text(p, 1234, "JPY"),
                        "{\"amount\":1234,\"currency\":\"JPY\"}");
    assert_string_equal(money_text(p, 1234, "KWD"),
                        "{\"amount\":1.234,\"currency\":\"KWD\"}");
    assert_string_equal(money_text(p, 1500, "KWD"),
                        "{\"amount\":1.5,\"currency\":\"KWD\"}");
    assert_string_equal(money_text(p, 1230, "EUR"),
                        "{\"amount\":12.3,\"currency\":\"EUR\"}");
    assert_string_equal(money_text(p, 1, "EUR"),
                        "{\"amount\":0.01,\"currency\":\"EUR\"}");
    /* The largest amount still prints back exactly. */
    assert_string_equal(money_text(p, TRV_MONEY_MAX_MINOR, "EUR"),
                        "{\"amount\":9999999999999.99,\"currency\":\"EUR\"}");
}

static void test_whole_amounts_are_integers(void **state)
{
    apr_pool_t *p = *state;
    json_t *amount;
    assert_string_equal(money_text(p, 120000, "EUR"),
                        "{\"amount\":1200,\"currency\":\"EUR\"}");
    assert_string_equal(money_text(p, 0, "EUR"),
                        "{\"amount\":0,\"currency\":\"EUR\"}");
    assert_string_equal(money_text(p, 5000, "KWD"),
                        "{\"amount\":5,\"currency\":\"KWD\"}");
    amount = trv_json_bind(p, trv_money_amount_json(120000, 2));
    assert_true(json_is_integer(amount));
    assert_true(json_integer_value(amount) == 1200);
}

static void test_negative_amounts(void **state)
{
    apr_pool_t *p = *state;
    assert_string_equal(money_text(p, -405, "EUR"),
                        "{\"amount\":-4.05,\"currency\":\"EUR\"}");
    assert_string_equal(money_text(p, -5, "EUR"),
                        "{\"amount\":-0.05,\"currency\":\"EUR\"}");
    assert_string_equal(money_text(p, -120000, "EUR"),
                        "{\"amount\":-1200,\"currency\":\"EUR\"}");
    assert_string_equal(trv_money_decimal(p, -405, 2), "-4.05");
    assert_string_equal(trv_money_decimal(p, -5, 2), "-0.05");
}

/* An amount with a fraction is the double strtod makes of its exact
 * decimal, and is written back as that decimal: for amounts of every size
 * up to TRV_MONEY_MAX_MINOR, signs and the exponents in use. */
static void test_fraction_amounts_are_their_decimal(void **state)
{
    apr_pool_t *p = *state;
    unsigned long long r = 0x9e3779b97f4a7c15ULL;
    int i, e;
    for (i = 0; i < 200000; i++) {
        for (e = 1; e <= 4; e++) {
            apr_int64_t minor = (apr_int64_t)(unit_rnd(&r) % (TRV_MONEY_MAX_MINOR + 1)
                                              >> (unit_rnd(&r) % 50));
            const char *dec;
            json_t *amount;
            if (i & 1) {
                minor = -minor;
            }
            dec = trv_money_decimal(p, minor, e);
            amount = trv_json_bind(p, trv_money_amount_json(minor, e));
            if (!strchr(dec, '.')) {
                assert_true(json_is_integer(amount));
                continue;
            }
            assert_true(json_is_real(amount));
            if (json_real_value(amount) != strtod(dec, NULL)) {
                fail_msg("%lld at exponent %d: %.17g, strtod(%s) %.17g", (long long)minor, e,
                         json_real_value(amount), dec, strtod(dec, NULL));
            }
            if (i % 64 == 0) {
                assert_string_equal(trv_json_dump(p, amount), dec);
            }
        }
    }
}

static void test_decimal_text(void **state)
{
    apr_pool_t *p = *state;
    assert_string_equal(trv_money_decimal(p, 1230, 2), "12.3");
    assert_string_equal(trv_money_decimal(p, 1200, 2), "12");
    assert_string_equal(trv_money_decimal(p, 1234, 3), "1.234");
    assert_string_equal(trv_money_decimal(p, 1234, 0), "1234");
    assert_string_equal(trv_money_decimal(p, 7, 3), "0.007");
}

static void test_parse_accepts(void **state)
{
    (void)state;
    assert_true(parse_ok("12", 2) == 1200);
    assert_true(parse_ok("12.3", 2) == 1230);
    assert_true(parse_ok("-4.05", 2) == -405);
    assert_true(parse_ok("0.1", 2) == 10);
    assert_true(parse_ok("1.50", 2) == 150);   /* exactly the exponent */
    assert_true(parse_ok("1.500", 2) == 150);  /* trailing zeros are exact */
    assert_true(parse_ok("1234", 0) == 1234);  /* JPY */
    assert_true(parse_ok("1.234", 3) == 1234); /* KWD */
    assert_true(parse_ok("1.5", 3) == 1500);
    assert_true(parse_ok("0", 2) == 0);
}

static void test_parse_rejects(void **state)
{
    (void)state;
    parse_bad("", 2);
    parse_bad("1.2.3", 2);
    parse_bad("abc", 2);
    parse_bad("1e5", 2);
    parse_bad("1.505", 2);   /* a fraction of a cent */
    parse_bad("1.001", 2);
    parse_bad("12.5", 0);    /* half a yen */
    parse_bad("1.2345", 3);
    parse_bad("-", 2);
    parse_bad(".", 2);
    parse_bad("1,5", 2);
    parse_bad(" 1", 2);
    parse_bad("1 ", 2);
    parse_bad("--1", 2);
    parse_bad("0x10", 2);
    parse_bad(NULL, 2);
}

static void test_parse_range(void **state)
{
    (void)state;
    /* TRV_MONEY_MAX_MINOR is 999999999999999: 15 digits of minor units. */
    assert_true(parse_ok("9999999999999.99", 2) == TRV_MONEY_MAX_MINOR);
    assert_true(parse_ok("-9999999999999.99", 2) == -TRV_MONEY_MAX_MINOR);
    assert_true(parse_ok("999999999999999", 0) == TRV_MONEY_MAX_MINOR);
    parse_bad("10000000000000", 2);          /* MAX + 1 cent, via scaling */
    parse_bad("10000000000000.00", 2);
    parse_bad("1000000000000000", 0);
    parse_bad("99999999999999999999999999", 0); /* would overflow int64 */
}

static void test_make_range(void **state)
{
    trv_money m;
    (void)state;
    assert_int_equal(trv_money_make(&m, TRV_MONEY_MAX_MINOR, "EUR"), APR_SUCCESS);
    assert_int_equal(trv_money_make(&m, -TRV_MONEY_MAX_MINOR, "EUR"), APR_SUCCESS);
    assert_int_not_equal(trv_money_make(&m, TRV_MONEY_MAX_MINOR + 1, "EUR"), APR_SUCCESS);
    assert_int_not_equal(trv_money_make(&m, -TRV_MONEY_MAX_MINOR - 1, "EUR"), APR_SUCCESS);
}

static void test_from_json_number(void **state)
{
    apr_pool_t *p = *state;
    trv_money m;

    assert_int_equal(trv_money_from_json_number(trv_json_bind(p, json_real(12.34)),
                                                "EUR", &m), APR_SUCCESS);
    assert_true(m.minor == 1234);
    assert_string_equal(m.currency, "EUR");

    assert_int_equal(trv_money_from_json_number(trv_json_bind(p, json_real(0.1)),
                                                "EUR", &m), APR_SUCCESS);
    assert_true(m.minor == 10);

    assert_int_equal(trv_money_from_json_number(trv_json_bind(p, json_real(0.3)),
                                                "EUR", &m), APR_SUCCESS);
    assert_true(m.minor == 30);

    assert_int_equal(trv_money_from_json_number(trv_json_bind(p, json_integer(1234)),
                                                "JPY", &m), APR_SUCCESS);
    assert_true(m.minor == 1234);

    assert_int_equal(trv_money_from_json_number(trv_json_bind(p, json_real(1.234)),
                                                "KWD", &m), APR_SUCCESS);
    assert_true(m.minor == 1234);

    assert_int_equal(trv_money_from_json_number(trv_json_bind(p, json_real(-4.05)),
                                                "EUR", &m), APR_SUCCESS);
    assert_true(m.minor == -405);

    /* A fraction the currency does not have. */
    assert_int_not_equal(trv_money_from_json_number(trv_json_bind(p, json_real(12.5)),
                                                    "JPY", &m), APR_SUCCESS);
    assert_int_not_equal(trv_money_from_json_number(trv_json_bind(p, json_real(1.505)),
                                                    "EUR", &m), APR_SUCCESS);
    /* Out of range, not a number, unknown currency. */
    assert_int_not_equal(trv_money_from_json_number(trv_json_bind(p, json_real(1e20)),
                                                    "EUR", &m), APR_SUCCESS);
    assert_int_not_equal(trv_money_from_json_number(trv_json_bind(p, json_integer(10000000000000LL)),
                                                    "EUR", &m), APR_SUCCESS);
    assert_int_not_equal(trv_money_from_json_number(trv_json_bind(p, json_string("1.00")),
                                                    "EUR", &m), APR_SUCCESS);
    assert_int_not_equal(trv_money_from_json_number(trv_json_bind(p, json_integer(1)),
                                                    "XXX", &m), APR_SUCCESS);
}

static void test_from_json_round_trip(void **state)
{
    apr_pool_t *p = *state;
    const char *reason = NULL;
    trv_money in, out;
    const char *text;
    json_t *doc;

    assert_int_equal(trv_money_make(&in, 1999, "EUR"), APR_SUCCESS);
    /* Through text, as a client would send it back. */
    text = trv_json_dump(p, trv_json_bind(p, trv_money_json(&in)));
    doc = trv_json_parse(p, text, strlen(text), NULL);
    assert_non_null(doc);
    assert_int_equal(trv_money_from_json(doc, &out, &reason), APR_SUCCESS);
    assert_true(out.minor == 1999);
    assert_string_equal(out.currency, "EUR");
}

/* What a supplier's real amount read as before number_minor's hundredths
 * path: %.15g's decimal, parsed. */
static apr_status_t minor_through_printf(double d, int exponent, apr_int64_t *minor)
{
    char buf[64];
    snprintf(buf, sizeof(buf), "%.15g", d);
    if (strchr(buf, 'e') || strchr(buf, 'n') || strchr(buf, 'i')) {
        return APR_EINVAL;
    }
    return trv_money_parse_decimal(buf, exponent, minor);
}

/* One real in EUR, KWD and JPY: the same status and minor units as
 * through %.15g. */
static void same_as_printf(double d)
{
    static const char *const curs[] = { "EUR", "KWD", "JPY" };
    size_t c;
    for (c = 0; c < sizeof(curs) / sizeof(curs[0]); c++) {
        apr_int64_t want = 0;
        apr_status_t ws = minor_through_printf(d, trv_currency_exponent(curs[c]), &want);
        json_t *num = json_real(d);
        trv_money got;
        apr_status_t gs = trv_money_from_json_number(num, curs[c], &got);
        json_decref(num);
        if (gs != ws || (ws == APR_SUCCESS && got.minor != want)) {
            fail_msg("%.17g %s: %d/%lld, through %%.15g %d/%lld", d, curs[c], gs,
                     (long long)got.minor, ws, (long long)want);
        }
    }
}

/* Suppliers' reals (LiteAPI's, Hotelbeds' numbers) that are whole
 * hundredths are read without printing them; every real reads as the
 * decimal %.15g gives it, whatever path it takes: every hundredth to
 * +-2,000, 200,000 random ones to +-10^11 with their neighbouring doubles,
 * thousandths, the range's ends and negative zero. */
static void test_supplier_reals_read_as_their_15_digits(void **state)
{
    unsigned long long x = 88172645463325252ULL;
    long long k;
    int i;
    (void)state;
    for (k = -200000; k <= 200000; k++) {
        same_as_printf((double)k / 100.0);
    }
    for (i = 0; i < 200000; i++) {
        double d;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        k = (long long)(x % 20000000000000ULL) - 10000000000000LL;
        d = (double)k / 100.0;
        same_as_printf(d);
        same_as_printf(nextafter(d, 1e300));
        same_as_printf(nextafter(d, -1e300));
        same_as_printf((double)(k % 100000000000LL) / 1000.0);
    }
    same_as_printf(-0.0);
    same_as_printf(99999999999.99);
    same_as_printf(-99999999999.99);
    same_as_printf(1e11);
    same_as_printf(123456789012.34);
    same_as_printf(0.005);
    same_as_printf(1e-7);
}

static void from_json_fails(apr_pool_t *p, const char *text, const char *reason_has)
{
    const char *reason = NULL;
    trv_money m;
    json_t *doc = trv_json_parse(p, text, strlen(text), NULL);
    assert_non_null(doc);
    assert_int_equal(trv_money_from_json(doc, &m, &reason), APR_EINVAL);
    assert_non_null(reason);
    assert_non_null(strstr(reason, reason_has));
}

static void test_from_json_errors(void **state)
{
    apr_pool_t *p = *state;
    from_json_fails(p, "{\"amount\":1,\"currency\":\"XXX\"}", "currency");
    from_json_fails(p, "{\"amount\":1,\"currency\":\"eur\"}", "currency");
    from_json_fails(p, "{\"amount\":1,\"currency\":7}", "currency");
    from_json_fails(p, "{\"amount\":1}", "currency");
    from_json_fails(p, "{\"currency\":\"EUR\"}", "amount");
    from_json_fails(p, "{\"amount\":\"1.00\",\"currency\":\"EUR\"}", "amount");
    from_json_fails(p, "{\"amount\":null,\"currency\":\"EUR\"}", "amount");
    from_json_fails(p, "{\"amount\":12.5,\"currency\":\"JPY\"}", "decimals");
    from_json_fails(p, "[1,\"EUR\"]", "object");
}

static void test_add(void **state)
{
    trv_money acc, m;
    (void)state;
    assert_int_equal(trv_money_make(&acc, 1000, "EUR"), APR_SUCCESS);
    assert_int_equal(trv_money_make(&m, -2500, "EUR"), APR_SUCCESS);
    assert_int_equal(trv_money_add(&acc, &m), APR_SUCCESS);
    assert_true(acc.minor == -1500);
}

static void test_add_refuses_mixed_currencies(void **state)
{
    trv_money acc, m;
    (void)state;
    assert_int_equal(trv_money_make(&acc, 1000, "EUR"), APR_SUCCESS);
    assert_int_equal(trv_money_make(&m, 1000, "USD"), APR_SUCCESS);
    assert_int_not_equal(trv_money_add(&acc, &m), APR_SUCCESS);
    assert_true(acc.minor == 1000);
    assert_string_equal(acc.currency, "EUR");
}

static void test_add_refuses_overflow(void **state)
{
    trv_money acc, m;
    (void)state;
    assert_int_equal(trv_money_make(&acc, TRV_MONEY_MAX_MINOR, "EUR"), APR_SUCCESS);
    assert_int_equal(trv_money_make(&m, 1, "EUR"), APR_SUCCESS);
    assert_int_not_equal(trv_money_add(&acc, &m), APR_SUCCESS);
    assert_true(acc.minor == TRV_MONEY_MAX_MINOR); /* unchanged */

    assert_int_equal(trv_money_make(&acc, -TRV_MONEY_MAX_MINOR, "EUR"), APR_SUCCESS);
    assert_int_equal(trv_money_make(&m, -1, "EUR"), APR_SUCCESS);
    assert_int_not_equal(trv_money_add(&acc, &m), APR_SUCCESS);
    assert_true(acc.minor == -TRV_MONEY_MAX_MINOR);

    /* Exactly reaching the limit is fine. */
    assert_int_equal(trv_money_make(&acc, TRV_MONEY_MAX_MINOR - 1, "EUR"), APR_SUCCESS);
    assert_int_equal(trv_money_add(&acc, &m), APR_SUCCESS);
    assert_int_equal(trv_money_make(&m, 2, "EUR"), APR_SUCCESS);
    assert_int_equal(trv_money_add(&acc, &m), APR_SUCCESS);
    assert_true(acc.minor == TRV_MONEY_MAX_MINOR);
}

/* Money written as text (trv_money_write). */
static const char *written_text(apr_pool_t *p, apr_int64_t minor, const char *cur)
{
    trv_money m;
    trv_jtext t;
    const char *text;
    assert_int_equal(trv_money_make(&m, minor, cur), APR_SUCCESS);
    trv_jtext_init(&t, p, 8);
    trv_money_write(&t, &m);
    assert_non_null(text = trv_jtext_done(&t, NULL));
    return text;
}

/* Money written as text is the same bytes as its tree written: whole and
 * fractional amounts, signs, every exponent in use, amounts of every size
 * up to TRV_MONEY_MAX_MINOR (the flight offers are written so). */
static void test_written_as_its_tree(void **state)
{
    apr_pool_t *p = *state;
    static const char *const curs[] = {"EUR", "JPY", "BHD", "CLF", "GBP"};
    unsigned long long r = 0x2545f4914f6cdd1dULL;
    int i;
    for (i = 0; i < 20000; i++) {
        apr_int64_t minor = (apr_int64_t)(unit_rnd(&r) % (TRV_MONEY_MAX_MINOR + 1)
                                          >> (unit_rnd(&r) % 60));
        if (i & 1) {
            minor = -minor;
        }
        assert_string_equal(written_text(p, minor, curs[i % 5]),
                            money_text(p, minor, curs[i % 5]));
    }
    assert_string_equal(written_text(p, 61601, "GBP"),
                        "{\"amount\":616.01,\"currency\":\"GBP\"}");
    assert_string_equal(written_text(p, 61600, "GBP"),
                        "{\"amount\":616,\"currency\":\"GBP\"}");
    assert_string_equal(written_text(p, -1, "BHD"),
                        "{\"amount\":-0.001,\"currency\":\"BHD\"}");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exponents),
        cmocka_unit_test(test_unknown_currency),
        cmocka_unit_test_setup_teardown(test_point_one_plus_point_two, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(test_json_decimals, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(test_whole_amounts_are_integers, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(test_negative_amounts, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(test_decimal_text, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(test_fraction_amounts_are_their_decimal, pool_setup,
                                        pool_teardown),
        cmocka_unit_test_setup_teardown(test_written_as_its_tree, pool_setup, pool_teardown),
        cmocka_unit_test(test_parse_accepts),
        cmocka_unit_test(test_parse_rejects),
        cmocka_unit_test(test_parse_range),
        cmocka_unit_test(test_make_range),
        cmocka_unit_test_setup_teardown(test_from_json_number, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(test_from_json_round_trip, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(test_from_json_errors, pool_setup, pool_teardown),
        cmocka_unit_test(test_supplier_reals_read_as_their_15_digits),
        cmocka_unit_test(test_add),
        cmocka_unit_test(test_add_refuses_mixed_currencies),
        cmocka_unit_test(test_add_refuses_overflow),
    };
    return UNIT_RUN(tests);
}
