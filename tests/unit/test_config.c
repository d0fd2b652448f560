/* httpd.conf values: durations and sizes parse to exactly what the operator
 * wrote (or are refused with a reason, never wrapped around), webhook allow
 * networks match precisely their prefix, upstream base URLs are absolute
 * without a trailing slash, and the webhook retry schedule is 1m 5m 30m 2h
 * 12h 24h. */
#include "unit.h"

#include <apr_tables.h>
#include <arpa/inet.h>
#include <string.h>

#include "core/config.h"

static apr_interval_time_t duration_ok(const char *s)
{
    apr_interval_time_t t = -1;
    const char *why = trv_parse_duration(s, &t);
    if (why) {
        fail_msg("duration \"%s\" refused: %s", s, why);
    }
    return t;
}

static void duration_bad(const char *s)
{
    apr_interval_time_t t = 4242;
    if (!trv_parse_duration(s, &t)) {
        fail_msg("duration \"%s\" accepted as %" APR_TIME_T_FMT " usec", s, t);
    }
    assert_true(t == 4242);
}

static apr_off_t size_ok(const char *s)
{
    apr_off_t n = -1;
    const char *why = trv_parse_size(s, &n);
    if (why) {
        fail_msg("size \"%s\" refused: %s", s, why);
    }
    return n;
}

static void size_bad(const char *s)
{
    apr_off_t n = 4242;
    if (!trv_parse_size(s, &n)) {
        fail_msg("size \"%s\" accepted as %" APR_OFF_T_FMT, s, n);
    }
    assert_true(n == 4242);
}

static void test_duration(void **state)
{
    (void)state;
    assert_true(duration_ok("90") == apr_time_from_sec(90));
    assert_true(duration_ok("90s") == apr_time_from_sec(90));
    assert_true(duration_ok("1500ms") == apr_time_from_msec(1500));
    assert_true(duration_ok("5m") == apr_time_from_sec(300));
    assert_true(duration_ok("2h") == apr_time_from_sec(7200));
    assert_true(duration_ok("1d") == apr_time_from_sec(86400));
    assert_true(duration_ok("0") == 0);
    /* The largest accepted value does not overflow in any unit. */
    assert_true(duration_ok("100000000d") == apr_time_from_sec(100000000LL * 86400));
}

static void test_duration_rejects(void **state)
{
    (void)state;
    duration_bad("");
    duration_bad("-1");
    duration_bad("5x");
    duration_bad("m");
    duration_bad("s");
    duration_bad("1.5s");
    duration_bad(" 5");
    duration_bad("5 s");
    duration_bad("5S");
    duration_bad("5sec");
    duration_bad("+5");
    duration_bad("100000001");
    duration_bad("99999999999999999999999s");
    duration_bad(NULL);
}

static void test_size(void **state)
{
    (void)state;
    assert_true(size_ok("1048576") == 1048576);
    assert_true(size_ok("512K") == 512 * 1024);
    assert_true(size_ok("512k") == 512 * 1024);
    assert_true(size_ok("1M") == 1024 * 1024);
    assert_true(size_ok("8m") == 8 * 1024 * 1024);
    assert_true(size_ok("1") == 1);
    assert_true(size_ok("1024M") == 1024LL * 1024 * 1024);
    assert_true(size_ok("1073741824") == 1024LL * 1024 * 1024);
}

static void test_size_rejects(void **state)
{
    (void)state;
    size_bad("");
    size_bad("0");
    size_bad("0K");
    size_bad("-1");
    size_bad("1.5M");
    size_bad("1G");
    size_bad("1MB");
    size_bad("K");
    size_bad(" 1");
    size_bad("1025M");
    size_bad("1073741825");
    /* Huge numbers are refused, not wrapped: 2^44 + 1 mebibytes would be
     * exactly 1M after a 64-bit wrap-around. */
    size_bad("17592186044417M");
    size_bad("9223372036854775807K");
    size_bad("99999999999999999999999");
    size_bad(NULL);
}

static void addr4(const char *s, unsigned char out[16])
{
    memset(out, 0, 16);
    assert_int_equal(inet_pton(AF_INET, s, out), 1);
}

static void addr6(const char *s, unsigned char out[16])
{
    assert_int_equal(inet_pton(AF_INET6, s, out), 1);
}

static int in4(const trv_cidr *net, const char *s)
{
    unsigned char a[16];
    addr4(s, a);
    return trv_cidr_contains(net, APR_INET, a);
}

static int in6(const trv_cidr *net, const char *s)
{
    unsigned char a[16];
    addr6(s, a);
    return trv_cidr_contains(net, APR_INET6, a);
}

static void test_cidr_ipv4(void **state)
{
    apr_pool_t *p = *state;
    trv_cidr net;

    assert_null(trv_parse_cidr(p, "127.0.0.0/8", &net));
    assert_int_equal(net.family, APR_INET);
    assert_int_equal(net.bits, 8);
    assert_string_equal(net.text, "127.0.0.0/8");
    assert_true(in4(&net, "127.1.2.3"));
    assert_true(in4(&net, "127.255.255.255"));
    assert_false(in4(&net, "128.0.0.1"));
    assert_false(in4(&net, "126.255.255.255"));
    assert_false(in6(&net, "::1")); /* other family */

    assert_null(trv_parse_cidr(p, "10.0.0.0/8", &net));
    assert_true(in4(&net, "10.200.3.4"));
    assert_false(in4(&net, "11.0.0.0"));

    /* A prefix off the byte boundary. */
    assert_null(trv_parse_cidr(p, "192.168.0.0/20", &net));
    assert_true(in4(&net, "192.168.15.255"));
    assert_false(in4(&net, "192.168.16.0"));

    /* A single address, with or without /32. */
    assert_null(trv_parse_cidr(p, "203.0.113.7", &net));
    assert_int_equal(net.bits, 32);
    assert_true(in4(&net, "203.0.113.7"));
    assert_false(in4(&net, "203.0.113.6"));
    assert_null(trv_parse_cidr(p, "203.0.113.7/32", &net));
    assert_false(in4(&net, "203.0.113.8"));

    /* /0 is every IPv4 address, and still no IPv6 one. */
    assert_null(trv_parse_cidr(p, "0.0.0.0/0", &net));
    assert_true(in4(&net, "1.2.3.4"));
    assert_true(in4(&net, "255.255.255.255"));
    assert_false(in6(&net, "2001:db8::1"));
}

static void test_cidr_ipv6(void **state)
{
    apr_pool_t *p = *state;
    trv_cidr net;

    assert_null(trv_parse_cidr(p, "::1/128", &net));
    assert_int_equal(net.family, APR_INET6);
    assert_int_equal(net.bits, 128);
    assert_true(in6(&net, "::1"));
    assert_false(in6(&net, "::2"));
    assert_false(in4(&net, "127.0.0.1"));

    assert_null(trv_parse_cidr(p, "::1", &net));
    assert_int_equal(net.bits, 128);
    assert_true(in6(&net, "::1"));

    assert_null(trv_parse_cidr(p, "fd00::/8", &net));
    assert_true(in6(&net, "fdab:1234::1"));
    assert_false(in6(&net, "fe80::1"));

    assert_null(trv_parse_cidr(p, "2001:db8::/33", &net));
    assert_true(in6(&net, "2001:db8:7fff::1"));
    assert_false(in6(&net, "2001:db8:8000::1"));

    assert_null(trv_parse_cidr(p, "::/0", &net));
    assert_true(in6(&net, "2001:db8::1"));
    assert_false(in4(&net, "1.2.3.4"));
}

static void test_cidr_rejects(void **state)
{
    apr_pool_t *p = *state;
    trv_cidr net;
    assert_non_null(trv_parse_cidr(p, "10.0.0.0/33", &net));
    assert_non_null(trv_parse_cidr(p, "::1/129", &net));
    assert_non_null(trv_parse_cidr(p, "10.0.0.0/", &net));
    assert_non_null(trv_parse_cidr(p, "10.0.0.0/-1", &net));
    assert_non_null(trv_parse_cidr(p, "10.0.0.0/8x", &net));
    assert_non_null(trv_parse_cidr(p, "10.0.0.0/x", &net));
    assert_non_null(trv_parse_cidr(p, "10.0.0/8", &net));
    assert_non_null(trv_parse_cidr(p, "256.0.0.0/8", &net));
    assert_non_null(trv_parse_cidr(p, "localhost", &net));
    assert_non_null(trv_parse_cidr(p, "", &net));
    assert_non_null(trv_parse_cidr(p, "/8", &net));
}

static void test_base_url(void **state)
{
    (void)state;
    assert_null(trv_check_base_url("https://api.example.com"));
    assert_null(trv_check_base_url("http://localhost:8080"));
    assert_null(trv_check_base_url("https://api.example.com/v1"));
    assert_null(trv_check_base_url("http://127.0.0.1:9000/supplier-a"));

    assert_non_null(trv_check_base_url(NULL));
    assert_non_null(trv_check_base_url(""));
    assert_non_null(trv_check_base_url("api.example.com"));
    assert_non_null(trv_check_base_url("ftp://example.com"));
    assert_non_null(trv_check_base_url("https:/example.com"));
    assert_non_null(trv_check_base_url("https://"));
    assert_non_null(trv_check_base_url("https:///v1"));
    assert_non_null(trv_check_base_url("https://:443"));
    assert_non_null(trv_check_base_url("https://api.example.com/"));
    assert_non_null(trv_check_base_url("https://api.example.com/v1/"));
}

static void test_retry_schedule(void **state)
{
    apr_pool_t *p = *state;
    static const long want[] = {60, 300, 1800, 7200, 43200, 86400};
    apr_array_header_t *a = trv_default_retry_schedule(p);
    int i;
    assert_int_equal(a->nelts, 6);
    assert_int_equal(a->elt_size, sizeof(apr_interval_time_t));
    for (i = 0; i < 6; i++) {
        assert_true(APR_ARRAY_IDX(a, i, apr_interval_time_t) == apr_time_from_sec(want[i]));
    }
}

static void test_config_upstream(void **state)
{
    apr_pool_t *p = *state;
    trv_config cfg;
    trv_upstream *u;
    memset(&cfg, 0, sizeof(cfg));
    assert_null(trv_config_upstream(&cfg, "SUPPLIER_A"));
    cfg.upstreams = apr_array_make(p, 2, sizeof(trv_upstream));
    u = apr_array_push(cfg.upstreams);
    memset(u, 0, sizeof(*u));
    u->name = "SUPPLIER_A";
    u->base_url = "http://a";
    u = apr_array_push(cfg.upstreams);
    memset(u, 0, sizeof(*u));
    u->name = "payment";
    u->base_url = "http://pay";
    assert_string_equal(trv_config_upstream(&cfg, "payment")->base_url, "http://pay");
    assert_string_equal(trv_config_upstream(&cfg, "SUPPLIER_A")->base_url, "http://a");
    assert_null(trv_config_upstream(&cfg, "SUPPLIER_B"));
    assert_null(trv_config_upstream(&cfg, NULL));
    assert_null(trv_config_upstream(NULL, "payment"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_duration),
        cmocka_unit_test(test_duration_rejects),
        cmocka_unit_test(test_size),
        cmocka_unit_test(test_size_rejects),
        cmocka_unit_test_setup_teardown(test_cidr_ipv4, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(test_cidr_ipv6, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(test_cidr_rejects, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(test_base_url, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(test_retry_schedule, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(test_config_upstream, pool_setup, pool_teardown),
    };
    return UNIT_RUN(tests);
}
