/* Time on the wire: instants print as UTC ISO 8601 with exactly three
 * fraction digits and Z (sub-millisecond parts truncated, also before 1970),
 * parse from RFC 3339 only with a zone (offsets shift to UTC), and dates are
 * real calendar dates. What is printed parses back to the same instant. */
#include "unit.h"


#include "core/clock.h"

#include <stdio.h>
#include <time.h>

/* 2026-11-22T22:08:46Z */
#define T2026 ((apr_time_t)1795385326 * APR_USEC_PER_SEC)

static apr_time_t parse_ok(const char *s)
{
    apr_time_t t = -1;
    if (trv_time_parse(s, &t) != APR_SUCCESS) {
        fail_msg("\"%s\" was refused", s);
    }
    return t;
}

static void parse_bad(const char *s)
{
    apr_time_t t = 4242;
    if (trv_time_parse(s, &t) == APR_SUCCESS) {
        fail_msg("\"%s\" was accepted", s);
    }
    assert_true(t == 4242);
}

static apr_time_t date_ok(const char *s)
{
    apr_time_t t = -1;
    if (trv_date_parse(s, &t) != APR_SUCCESS) {
        fail_msg("date \"%s\" was refused", s);
    }
    return t;
}

static void date_bad(const char *s)
{
    apr_time_t t = 4242;
    if (trv_date_parse(s, &t) == APR_SUCCESS) {
        fail_msg("date \"%s\" was accepted", s);
    }
    assert_true(t == 4242);
}

static void test_format_known_instants(void **state)
{
    apr_pool_t *p = *state;
    assert_string_equal(trv_time_format(p, 0), "1970-01-01T00:00:00.000Z");
    assert_string_equal(trv_time_format(p, T2026), "2026-11-22T22:08:46.000Z");
    assert_string_equal(trv_time_format(p, T2026 + 123000),
                        "2026-11-22T22:08:46.123Z");
    assert_string_equal(trv_time_format(p, apr_time_from_sec(951782400)),
                        "2000-02-29T00:00:00.000Z");
    assert_string_equal(trv_time_format(p, apr_time_from_sec(86400) - 1000),
                        "1970-01-01T23:59:59.999Z");
}

/* Random instants from year 1 to 9999 as the C library's gmtime names
 * them, to the millisecond. */
static void test_format_matches_gmtime(void **state)
{
    apr_pool_t *p = *state;
    unsigned long long r = 0x2545f4914f6cdd1dULL;
    /* 0001-01-01 and 9999-12-31T23:59:59 in seconds since the epoch. */
    const long long lo = -62135596800LL, hi = 253402300799LL;
    int i;
    for (i = 0; i < 100000; i++) {
        long long sec = lo + (long long)(unit_rnd(&r) % (unsigned long long)(hi - lo + 1));
        int ms = (int)(unit_rnd(&r) % 1000);
        time_t tt = (time_t)sec;
        struct tm tm;
        char want[80];
        assert_non_null(gmtime_r(&tt, &tm));
        snprintf(want, sizeof(want), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ms);
        assert_string_equal(trv_time_format(p, (apr_time_t)sec * APR_USEC_PER_SEC
                                                   + (apr_time_t)ms * 1000 + (i % 1000)),
                            want);
    }
}

static void test_format_truncates_to_ms(void **state)
{
    apr_pool_t *p = *state;
    assert_string_equal(trv_time_format(p, T2026 + 123999),
                        "2026-11-22T22:08:46.123Z");
    assert_string_equal(trv_time_format(p, T2026 + 999),
                        "2026-11-22T22:08:46.000Z");
    assert_string_equal(trv_time_format(p, T2026 + 999999),
                        "2026-11-22T22:08:46.999Z");
}

static void test_format_before_epoch(void **state)
{
    apr_pool_t *p = *state;
    /* Truncation goes toward the past, never into the next millisecond. */
    assert_string_equal(trv_time_format(p, -1), "1969-12-31T23:59:59.999Z");
    assert_string_equal(trv_time_format(p, -1000), "1969-12-31T23:59:59.999Z");
    assert_string_equal(trv_time_format(p, -1001), "1969-12-31T23:59:59.998Z");
    assert_string_equal(trv_time_format(p, -apr_time_from_sec(86400)),
                        "1969-12-31T00:00:00.000Z");
}

static void test_parse_utc(void **state)
{
    (void)state;
    assert_true(parse_ok("2026-11-22T22:08:46Z") == T2026);
    assert_true(parse_ok("2026-11-22T22:08:46.123Z") == T2026 + 123000);
    assert_true(parse_ok("2026-11-22t22:08:46z") == T2026);
    assert_true(parse_ok("1970-01-01T00:00:00.000Z") == 0);
    assert_true(parse_ok("2026-11-22T22:08:46+00:00") == T2026);
    assert_true(parse_ok("2026-11-22T22:08:46-00:00") == T2026);
}

static void test_parse_offsets(void **state)
{
    (void)state;
    /* Local 00:08:46 on the 23rd at +02:00 is 22:08:46Z on the 22nd. */
    assert_true(parse_ok("2026-11-23T00:08:46+02:00") == T2026);
    assert_true(parse_ok("2026-11-22T16:38:46-05:30") == T2026);
    assert_true(parse_ok("2026-11-22T23:08:46.5+01:00") == T2026 + 500000);
    assert_true(parse_ok("2026-11-22T22:08:46+23:59")
                == T2026 - apr_time_from_sec(23 * 3600 + 59 * 60));
}

static void test_parse_fractions(void **state)
{
    (void)state;
    assert_true(parse_ok("2026-11-22T22:08:46.1Z") == T2026 + 100000);
    assert_true(parse_ok("2026-11-22T22:08:46.12Z") == T2026 + 120000);
    assert_true(parse_ok("2026-11-22T22:08:46.000001Z") == T2026 + 1);
    assert_true(parse_ok("2026-11-22T22:08:46.123456Z") == T2026 + 123456);
    /* Beyond microseconds the digits are accepted and dropped. */
    assert_true(parse_ok("2026-11-22T22:08:46.1234567Z") == T2026 + 123456);
    assert_true(parse_ok("2026-11-22T22:08:46.123456789Z") == T2026 + 123456);
    assert_true(parse_ok("2026-11-22T22:08:46.999999999Z") == T2026 + 999999);
    parse_bad("2026-11-22T22:08:46.1234567891Z"); /* 10 digits */
    parse_bad("2026-11-22T22:08:46.Z");
    parse_bad("2026-11-22T22:08:46.12a3Z");
}

static void test_parse_rejects(void **state)
{
    (void)state;
    parse_bad("2026-11-22T22:08:46");         /* no zone */
    parse_bad("2026-11-22T22:08:46.123");     /* no zone */
    parse_bad("2026-11-22");
    parse_bad("2026-02-30T00:00:00Z");
    parse_bad("2026-02-29T00:00:00Z");
    parse_bad("2026-13-01T00:00:00Z");
    parse_bad("2026-11-22T24:00:00Z");
    parse_bad("2026-11-22T25:00:00Z");
    parse_bad("2026-11-22T22:60:00Z");
    parse_bad("2026-11-22T22:08:60Z");
    parse_bad("2026-11-22X22:08:46Z");
    parse_bad("2026-11-22T22:08:46+0200");
    parse_bad("2026-11-22T22:08:46+2:00");
    parse_bad("2026-11-22T22:08:46+24:00");
    parse_bad("2026-11-22T22:08:46+02:60");
    parse_bad("2026-11-22T22:08:46ZZ");
    parse_bad("2026-11-22T22:08:46Z ");
    parse_bad("2026-11-22T22:08:46+02:00x");
    parse_bad(" 2026-11-22T22:08:46Z");
    parse_bad("2026-11-22T2:08:46Z");
    parse_bad("");
    parse_bad(NULL);
}

static void test_date_parse(void **state)
{
    (void)state;
    assert_true(date_ok("1970-01-01") == 0);
    assert_true(date_ok("2024-02-29") == apr_time_from_sec(19782LL * 86400));
    assert_true(date_ok("2000-02-29") == apr_time_from_sec(951782400));
    assert_true(date_ok("2026-12-31") == apr_time_from_sec(1798675200));
    assert_int_equal(trv_date_parse("2026-11-22", NULL), APR_SUCCESS);

    date_bad("2026-02-29");
    date_bad("1900-02-29");   /* centuries are not leap years ... */
    date_bad("2026-02-30");
    date_bad("2026-04-31");
    date_bad("2026-13-01");
    date_bad("2026-00-10");
    date_bad("2026-01-00");
    date_bad("2026-01-32");
    date_bad("2026-1-01");
    date_bad("2026-01-1");
    date_bad("26-01-01");
    date_bad("2026/01/01");
    date_bad("2026-01-01T00:00:00Z");
    date_bad("2026-01-01 ");
    date_bad("0000-01-01");
    date_bad("");
    date_bad(NULL);
}

static void test_round_trip(void **state)
{
    apr_pool_t *p = *state;
    /* Milliseconds from 1900 to 2200 in uneven steps. */
    apr_time_t t = -(apr_time_t)2208988800LL * APR_USEC_PER_SEC + 7000;
    apr_time_t end = (apr_time_t)7258118400LL * APR_USEC_PER_SEC;
    int n = 0;
    for (; t < end; t += (apr_time_t)86400 * 997 * 1000 * 1000 + 13579000) {
        const char *s = trv_time_format(p, t);
        apr_time_t back = parse_ok(s);
        if (back != t) {
            fail_msg("%s parsed back %" APR_TIME_T_FMT " usec off", s, back - t);
        }
        n++;
    }
    assert_true(n > 100);
    /* Sub-millisecond parts are what the round trip loses, nothing more. */
    assert_true(parse_ok(trv_time_format(p, T2026 + 123456)) == T2026 + 123000);
}

static void test_civil_known_days(void **state)
{
    int y, m, d;
    (void)state;
    assert_int_equal(trv_days_from_civil(1970, 1, 1), 0);
    assert_int_equal(trv_days_from_civil(1969, 12, 31), -1);
    assert_int_equal(trv_days_from_civil(2000, 3, 1), 11017);
    assert_int_equal(trv_days_from_civil(2024, 2, 29), 19782);
    assert_int_equal(trv_days_from_civil(1900, 3, 1), -25508);
    assert_int_equal(trv_days_from_civil(1, 1, 1), -719162);
    assert_int_equal(trv_days_from_civil(9999, 12, 31), 2932896);
    trv_civil_from_days(-719162, &y, &m, &d);
    assert_int_equal(y, 1);
    assert_int_equal(m, 1);
    assert_int_equal(d, 1);
    trv_civil_from_days(19782, &y, &m, &d);
    assert_int_equal(y, 2024);
    assert_int_equal(m, 2);
    assert_int_equal(d, 29);
}

static void test_civil_inverse(void **state)
{
    long days;
    int py, pm, pd;
    (void)state;
    trv_civil_from_days(-719163, &py, &pm, &pd);
    /* Every day from 0001-01-01 to 9999-12-31: inverse, and consecutive
     * days are consecutive dates. */
    for (days = -719162; days <= 2932896; days++) {
        int y, m, d;
        trv_civil_from_days(days, &y, &m, &d);
        if (trv_days_from_civil(y, m, d) != days) {
            fail_msg("day %ld -> %04d-%02d-%02d -> %ld", days, y, m, d,
                     trv_days_from_civil(y, m, d));
        }
        if (!((y == py && m == pm && d == pd + 1)
              || (y == py && m == pm + 1 && d == 1)
              || (y == py + 1 && m == 1 && pm == 12 && d == 1))) {
            fail_msg("day %ld is %04d-%02d-%02d after %04d-%02d-%02d", days,
                     y, m, d, py, pm, pd);
        }
        py = y;
        pm = m;
        pd = d;
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_format_known_instants, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(test_format_matches_gmtime, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(test_format_truncates_to_ms, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(test_format_before_epoch, pool_setup, pool_teardown),
        cmocka_unit_test(test_parse_utc),
        cmocka_unit_test(test_parse_offsets),
        cmocka_unit_test(test_parse_fractions),
        cmocka_unit_test(test_parse_rejects),
        cmocka_unit_test(test_date_parse),
        cmocka_unit_test_setup_teardown(test_round_trip, pool_setup, pool_teardown),
        cmocka_unit_test(test_civil_known_days),
        cmocka_unit_test(test_civil_inverse),
    };
    return UNIT_RUN(tests);
}
