/* The sandbox's own TZif reader: offsets of real zones around their 2026
 * daylight-saving changes (facts, from the zones' published rules),
 * southern-hemisphere and half-hour zones, wall-clock times in a gap or an
 * overlap, and the POSIX TZ footer rule that governs instants after the
 * last transition of a file. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <apr_general.h>
#include <apr_pools.h>
#include <string.h>

#include "core/clock.h"
#include "sandbox/tzif.h"

#define ZONEINFO "/usr/share/zoneinfo"

static apr_pool_t *pool;

static int setup(void **state)
{
    (void)state;
    apr_initialize();
    return apr_pool_create(&pool, NULL) == APR_SUCCESS ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    apr_pool_destroy(pool);
    return 0;
}

/* Seconds since 1970 of a UTC (or wall-clock) date and time. */
static apr_int64_t at(int y, int mo, int d, int h, int mi, int s)
{
    return (apr_int64_t)trv_days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s;
}

static const sbx_tz *zone(const char *name)
{
    const char *err = NULL;
    const sbx_tz *tz = sbx_tz_load(pool, ZONEINFO, name, &err);
    if (!tz) {
        fail_msg("%s: %s", name, err);
    }
    return tz;
}

static void london_2026(void **state)
{
    const sbx_tz *tz = zone("Europe/London");
    (void)state;
    /* BST from 01:00 UTC on the last Sunday of March to 01:00 UTC on the
     * last Sunday of October. */
    assert_int_equal(sbx_tz_offset(tz, at(2026, 1, 15, 12, 0, 0)), 0);
    assert_int_equal(sbx_tz_offset(tz, at(2026, 3, 29, 0, 59, 59)), 0);
    assert_int_equal(sbx_tz_offset(tz, at(2026, 3, 29, 1, 0, 0)), 3600);
    assert_int_equal(sbx_tz_offset(tz, at(2026, 10, 25, 0, 59, 59)), 3600);
    assert_int_equal(sbx_tz_offset(tz, at(2026, 10, 25, 1, 0, 0)), 0);
}

static void new_york_and_half_hours(void **state)
{
    const sbx_tz *ny = zone("America/New_York"), *ktm = zone("Asia/Kathmandu");
    const sbx_tz *lhi = zone("Australia/Lord_Howe"), *syd = zone("Australia/Sydney");
    (void)state;
    /* EDT from 2026-03-08 02:00 EST (07:00 UTC). */
    assert_int_equal(sbx_tz_offset(ny, at(2026, 3, 8, 6, 59, 59)), -5 * 3600);
    assert_int_equal(sbx_tz_offset(ny, at(2026, 3, 8, 7, 0, 0)), -4 * 3600);
    assert_int_equal(sbx_tz_offset(ny, at(2026, 11, 1, 6, 0, 0)), -5 * 3600);
    assert_int_equal(sbx_tz_offset(ktm, at(2026, 6, 1, 0, 0, 0)), 5 * 3600 + 45 * 60);
    /* Lord Howe Island moves its clocks by half an hour. */
    assert_int_equal(sbx_tz_offset(lhi, at(2026, 7, 1, 0, 0, 0)), 10 * 3600 + 1800);
    assert_int_equal(sbx_tz_offset(lhi, at(2026, 12, 1, 0, 0, 0)), 11 * 3600);
    /* Sydney: daylight time over the new year; ends 2026-04-05 03:00 AEDT. */
    assert_int_equal(sbx_tz_offset(syd, at(2026, 1, 10, 0, 0, 0)), 11 * 3600);
    assert_int_equal(sbx_tz_offset(syd, at(2026, 4, 4, 15, 59, 59)), 11 * 3600);
    assert_int_equal(sbx_tz_offset(syd, at(2026, 4, 4, 16, 0, 0)), 10 * 3600);
    assert_int_equal(sbx_tz_offset(syd, at(2026, 10, 3, 16, 0, 0)), 11 * 3600);
}

static void wall_clock_to_utc(void **state)
{
    const sbx_tz *lon = zone("Europe/London"), *ny = zone("America/New_York");
    (void)state;
    assert_true(sbx_tz_utc_of_local(lon, at(2026, 7, 1, 10, 0, 0)) == at(2026, 7, 1, 9, 0, 0));
    assert_true(sbx_tz_utc_of_local(ny, at(2026, 1, 5, 7, 35, 0)) == at(2026, 1, 5, 12, 35, 0));
    /* 01:30 does not exist on 2026-03-29 in London: read with GMT. */
    assert_true(sbx_tz_utc_of_local(lon, at(2026, 3, 29, 1, 30, 0)) == at(2026, 3, 29, 1, 30, 0));
    /* 01:30 happens twice on 2026-10-25: the first, in BST. */
    assert_true(sbx_tz_utc_of_local(lon, at(2026, 10, 25, 1, 30, 0)) == at(2026, 10, 25, 0, 30, 0));
    assert_true(sbx_tz_utc_of_local(ny, at(2026, 11, 1, 1, 30, 0)) == at(2026, 11, 1, 5, 30, 0));
}

static void put32(unsigned char *b, apr_uint32_t v)
{
    b[0] = (unsigned char)(v >> 24);
    b[1] = (unsigned char)(v >> 16);
    b[2] = (unsigned char)(v >> 8);
    b[3] = (unsigned char)v;
}

/* A version 2 file with no transitions at all, only a footer rule, as
 * "slim" zone files are for dates after their last listed change. */
static size_t slim_file(unsigned char *buf, const char *rule, long std_off)
{
    size_t n = 0;
    int part;
    for (part = 0; part < 2; part++) {
        memcpy(buf + n, "TZif2", 5);
        memset(buf + n + 5, 0, 15);
        put32(buf + n + 20, 0);  /* isutcnt */
        put32(buf + n + 24, 0);  /* isstdcnt */
        put32(buf + n + 28, 0);  /* leapcnt */
        put32(buf + n + 32, 0);  /* timecnt */
        put32(buf + n + 36, 1);  /* typecnt */
        put32(buf + n + 40, 4);  /* charcnt */
        n += 44;
        put32(buf + n, (apr_uint32_t)std_off);
        buf[n + 4] = 0;
        buf[n + 5] = 0;
        n += 6;
        memcpy(buf + n, "STD", 4);
        n += 4;
    }
    buf[n++] = '\n';
    memcpy(buf + n, rule, strlen(rule));
    n += strlen(rule);
    buf[n++] = '\n';
    return n;
}

static void footer_rules_after_the_last_transition(void **state)
{
    unsigned char buf[512];
    const char *err = NULL;
    size_t n = slim_file(buf, "EST5EDT,M3.2.0,M11.1.0", -5 * 3600);
    const sbx_tz *tz = sbx_tz_parse(pool, "slim", buf, n, &err);
    (void)state;
    assert_non_null(tz);
    /* 2040: second Sunday of March is the 11th, first of November the 4th. */
    assert_int_equal(sbx_tz_offset(tz, at(2040, 3, 11, 6, 59, 59)), -5 * 3600);
    assert_int_equal(sbx_tz_offset(tz, at(2040, 3, 11, 7, 0, 0)), -4 * 3600);
    assert_int_equal(sbx_tz_offset(tz, at(2040, 11, 4, 5, 59, 59)), -4 * 3600);
    assert_int_equal(sbx_tz_offset(tz, at(2040, 11, 4, 6, 0, 0)), -5 * 3600);
    /* A southern rule with a quoted numeric name: DST over the new year. */
    n = slim_file(buf, "<+1030>-10:30<+11>-11,M10.1.0,M4.1.0", 37800);
    tz = sbx_tz_parse(pool, "slim-south", buf, n, &err);
    assert_non_null(tz);
    assert_int_equal(sbx_tz_offset(tz, at(2041, 1, 1, 0, 0, 0)), 11 * 3600);
    assert_int_equal(sbx_tz_offset(tz, at(2041, 7, 1, 0, 0, 0)), 37800);
    /* A fixed zone. */
    n = slim_file(buf, "<+0545>-5:45", 20700);
    tz = sbx_tz_parse(pool, "fixed", buf, n, &err);
    assert_int_equal(sbx_tz_offset(tz, at(2050, 6, 1, 0, 0, 0)), 20700);
}

static void rule_strings(void **state)
{
    sbx_tz_rule r;
    (void)state;
    assert_true(sbx_tz_rule_parse("UTC0", &r));
    assert_false(r.has_dst);
    assert_int_equal(r.std_off, 0);
    assert_true(sbx_tz_rule_parse("<-03>3", &r));
    assert_int_equal(r.std_off, -3 * 3600);
    /* Israel: times beyond 24 hours (RFC 8536). */
    assert_true(sbx_tz_rule_parse("IST-2IDT,M3.4.4/26,M10.5.0", &r));
    assert_int_equal(r.start.secs, 26 * 3600);
    assert_int_equal(r.dst_off, 3 * 3600);
    assert_true(sbx_tz_rule_parse("CET-1CEST,M3.5.0,M10.5.0/3", &r));
    assert_int_equal(r.end.secs, 3 * 3600);
    assert_false(sbx_tz_rule_parse("", &r));
    assert_false(sbx_tz_rule_parse("EST", &r));
    assert_false(sbx_tz_rule_parse("EST5EDT,M13.1.0,M11.1.0", &r));
    assert_false(sbx_tz_rule_parse("EST5EDT,M3.2.0", &r));
}

static void refuses_what_is_not_tzif(void **state)
{
    unsigned char buf[512];
    const char *err = NULL;
    size_t n = slim_file(buf, "EST5EDT,M3.2.0,M11.1.0", -5 * 3600);
    (void)state;
    assert_null(sbx_tz_parse(pool, "x", (const unsigned char *)"hello", 5, &err));
    assert_non_null(err);
    err = NULL;
    assert_null(sbx_tz_parse(pool, "x", buf, 50, &err)); /* truncated */
    assert_non_null(err);
    assert_null(sbx_tz_load(pool, ZONEINFO, "../../etc/passwd", &err));
    assert_null(sbx_tz_load(pool, ZONEINFO, "No/Such_Zone", &err));
    (void)n;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(london_2026),
        cmocka_unit_test(new_york_and_half_hours),
        cmocka_unit_test(wall_clock_to_utc),
        cmocka_unit_test(footer_rules_after_the_last_transition),
        cmocka_unit_test(rule_strings),
        cmocka_unit_test(refuses_what_is_not_tzif),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
