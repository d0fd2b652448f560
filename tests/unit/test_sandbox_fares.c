/* The sandbox's pure flight arithmetic: great-circle distance and block
 * times, currency per market and conversion in integer minor units, and
 * the fare model (cabins, brands, days ahead, weekdays, bags). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <apr_general.h>
#include <math.h>
#include <string.h>

#include "core/money.h"
#include "sandbox/air/pricing.h"

static void great_circle(void **state)
{
    (void)state;
    /* London Heathrow - New York JFK, about 5,540 km. */
    assert_true(fabs(sbx_distance_km(51.4706, -0.461941, 40.6398, -73.7789) - 5540) < 10);
    /* Sydney - Los Angeles across the date line, about 12,060 km. */
    assert_true(fabs(sbx_distance_km(-33.9461, 151.177, 33.9425, -118.408) - 12060) < 20);
    assert_true(sbx_distance_km(10, 20, 10, 20) < 0.001);
    /* Symmetric. */
    assert_true(fabs(sbx_distance_km(1, 2, 3, 4) - sbx_distance_km(3, 4, 1, 2)) < 1e-9);
}

static void block_times(void **state)
{
    int km, last = 0;
    (void)state;
    for (km = 100; km < 16000; km += 250) {
        int m = sbx_block_minutes(km);
        assert_int_equal(m % 5, 0);
        assert_true(m >= last);
        /* Faster than 950 km/h nowhere, slower than 600 km/h plus an hour nowhere. */
        assert_true(m >= km * 60 / 950);
        assert_true(m <= km * 60 / 600 + 60);
        last = m;
    }
    assert_int_equal(sbx_block_minutes(5540), 450);
}

static void markets_and_currencies(void **state)
{
    static const char *const countries[] = {"GB", "US", "DE", "FR", "JP", "KW", "CH", "AU",
                                            "IN", "BR", "CL", "IS", "VN", "ZZ", "", NULL};
    int i;
    (void)state;
    assert_string_equal(sbx_market_currency("GB"), "GBP");
    assert_string_equal(sbx_market_currency("DE"), "EUR");
    assert_string_equal(sbx_market_currency("JP"), "JPY");
    assert_string_equal(sbx_market_currency("ZZ"), "USD");
    /* Every market sells in a real currency with its ISO 4217 exponent. */
    for (i = 0; countries[i]; i++) {
        const char *c = sbx_market_currency(countries[i]);
        assert_true(trv_currency_exponent(c) >= 0);
        assert_int_equal(sbx_currency_exp(c), trv_currency_exponent(c));
    }
}

static void conversion_in_minor_units(void **state)
{
    (void)state;
    assert_int_equal(sbx_from_eur(12345, "EUR", 0), 12345);
    assert_int_equal(sbx_from_eur(12345, "EUR", 1), 12300);   /* whole euros */
    assert_int_equal(sbx_from_eur(10000, "GBP", 0), 8500);    /* 100 EUR = 85.00 GBP */
    assert_int_equal(sbx_from_eur(10000, "JPY", 0), 16000);   /* yen have no minor unit */
    assert_int_equal(sbx_from_eur(10012, "JPY", 1) % 10, 0);  /* fares in tens of yen */
    assert_int_equal(sbx_from_eur(10000, "KWD", 0), 33200);   /* 33.200 KWD, three decimals */
    assert_int_equal(sbx_from_eur(10000, "KWD", 1) % 1000, 0);
    assert_true(sbx_from_eur(1, "EUR", 1) > 0);               /* never a free fare */
    assert_int_equal(sbx_penalty(60, "EUR"), 6000);
    assert_int_equal(sbx_penalty(0, "EUR"), 0);
}

static void days_ahead_and_weekdays(void **state)
{
    int d;
    (void)state;
    /* Last-minute fares cost more; prices never rise as departure nears
     * less than they do further out, up to the cheapest window. */
    for (d = 0; d < 60; d++) {
        assert_true(sbx_days_ahead_permille(d) >= sbx_days_ahead_permille(d + 1));
    }
    assert_true(sbx_days_ahead_permille(1) > sbx_days_ahead_permille(45));
    assert_true(sbx_weekday_permille(5) > sbx_weekday_permille(3)); /* Friday over Wednesday */
    assert_int_equal(sbx_weekday(0), 4);                             /* 1970-01-01: Thursday */
    assert_int_equal(sbx_weekday(20520), 0);                         /* 2026-03-08: Sunday */
}

static void cabins_and_brands(void **state)
{
    int c, b;
    (void)state;
    assert_int_equal(sbx_cabin_parse("business"), SBX_BUSINESS);
    assert_int_equal(sbx_cabin_parse("PREMIUM_ECONOMY"), SBX_PREMIUM_ECONOMY);
    assert_int_equal(sbx_cabin_parse("coach"), -1);
    assert_string_equal(sbx_cabin_code(SBX_FIRST), "FIRST");
    assert_string_equal(sbx_brand_get(SBX_ECONOMY, 0)->name, "Basic");
    assert_string_equal(sbx_brand_get(SBX_ECONOMY, 2)->name, "Flex");
    assert_null(sbx_brand_get(SBX_FIRST, 1));
    for (c = 0; c < SBX_NCABINS; c++) {
        for (b = 1; b < sbx_brand_count(c); b++) {
            const sbx_brand *lo = sbx_brand_get(c, b - 1), *hi = sbx_brand_get(c, b);
            /* A dearer brand gives at least as much. */
            assert_true(hi->factor_permille > lo->factor_permille);
            assert_true(hi->checked_bags >= lo->checked_bags);
            assert_true(hi->refund_allowed >= lo->refund_allowed);
        }
    }
    /* Basic: no checked bag, none refunded or changed; cabin bag on long-haul only. */
    assert_int_equal(sbx_brand_get(SBX_ECONOMY, 0)->checked_bags, 0);
    assert_false(sbx_brand_carry_on(sbx_brand_get(SBX_ECONOMY, 0), 800));
    assert_true(sbx_brand_carry_on(sbx_brand_get(SBX_ECONOMY, 0), 5000));
}

static void bags(void **state)
{
    (void)state;
    /* Basic short-haul sells a cabin bag and up to three checked bags;
     * Standard includes one checked bag and sells two more. */
    assert_int_equal(sbx_bag_max(SBX_BAG_CARRY_ON, SBX_ECONOMY, 0, 800), 1);
    assert_int_equal(sbx_bag_max(SBX_BAG_CARRY_ON, SBX_ECONOMY, 0, 5000), 0);
    assert_int_equal(sbx_bag_max(SBX_BAG_CHECKED, SBX_ECONOMY, 0, 800), 3);
    assert_int_equal(sbx_bag_max(SBX_BAG_CHECKED, SBX_ECONOMY, 1, 800), 2);
    assert_int_equal(sbx_bag_max(SBX_BAG_CHECKED, SBX_FIRST, 0, 9000), 0);
    assert_true(sbx_bag_price(SBX_BAG_CHECKED, 9000, "EUR")
                > sbx_bag_price(SBX_BAG_CHECKED, 500, "EUR"));
    assert_int_equal(sbx_bag_price(SBX_BAG_CHECKED, 500, "EUR") % 100, 0);
    assert_int_equal(sbx_bag_weight(SBX_BAG_CHECKED, SBX_ECONOMY), 23);
    assert_int_equal(sbx_bag_weight(SBX_BAG_CHECKED, SBX_BUSINESS), 32);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(great_circle),
        cmocka_unit_test(block_times),
        cmocka_unit_test(markets_and_currencies),
        cmocka_unit_test(conversion_in_minor_units),
        cmocka_unit_test(days_ahead_and_weekdays),
        cmocka_unit_test(cabins_and_brands),
        cmocka_unit_test(bags),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
