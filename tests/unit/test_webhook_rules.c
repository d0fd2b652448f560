/* The webhook engine's rules needing no network: which addresses a webhook
 * may reach (SSRF), the shape of a target URL, the retry schedule with
 * Retry-After, and what of a receiver's answer is kept. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <apr_general.h>
#include <apr_pools.h>
#include <apr_strings.h>
#include <apr_tables.h>
#include <arpa/inet.h>
#include <string.h>

#include "core/config.h"
#include "webhook/schedule.h"
#include "webhook/send.h"
#include "webhook/target.h"

static int pool_setup(void **state)
{
    apr_pool_t *p;
    if (apr_pool_create(&p, NULL) != APR_SUCCESS) {
        return -1;
    }
    *state = p;
    return 0;
}

static int pool_teardown(void **state)
{
    apr_pool_destroy(*state);
    return 0;
}

/* The refusal for a textual address, or NULL when it is allowed. */
static const char *refusal(const apr_array_header_t *allow, const char *text)
{
    unsigned char raw[16];
    if (strchr(text, ':')) {
        assert_int_equal(inet_pton(AF_INET6, text, raw), 1);
        return trv_webhook_address_refusal(allow, APR_INET6, raw);
    }
    assert_int_equal(inet_pton(AF_INET, text, raw), 1);
    return trv_webhook_address_refusal(allow, APR_INET, raw);
}

static void non_public_addresses_are_refused(void **state)
{
    static const char *const refused[] = {
        "127.0.0.1", "127.255.0.9", "10.0.0.1", "10.255.255.255", "172.16.0.1",
        "172.31.255.254", "192.168.1.1", "169.254.169.254", "169.254.0.1", "100.64.0.1",
        "100.127.255.254", "0.0.0.0", "0.1.2.3", "224.0.0.1", "239.255.255.250",
        "255.255.255.255", "240.0.0.1", "192.0.2.10", "198.18.0.1", "198.51.100.7",
        "203.0.113.9", "192.0.0.8",
        "::", "::1", "fe80::1", "febf::1", "fc00::1", "fd12:3456::1", "fd00:ec2::254",
        "ff02::1", "::ffff:127.0.0.1", "::ffff:10.1.2.3", "::ffff:169.254.169.254",
        "64:ff9b::a00:1", "64:ff9b::7f00:1", "2001:db8::1", "::10.0.0.1", "fec0::1",
        NULL};
    const char *const *a;
    (void)state;
    for (a = refused; *a; a++) {
        if (!refusal(NULL, *a)) {
            fail_msg("%s was allowed", *a);
        }
    }
    assert_string_equal(refusal(NULL, "169.254.169.254"), "the cloud metadata address");
    assert_string_equal(refusal(NULL, "10.1.1.1"), "a private address");
    assert_string_equal(refusal(NULL, "::ffff:127.0.0.1"), "a loopback address");
}

static void public_addresses_are_allowed(void **state)
{
    static const char *const allowed[] = {
        "8.8.8.8", "1.1.1.1", "93.184.216.34", "172.32.0.1", "172.15.255.255",
        "100.63.255.255", "100.128.0.0", "169.253.255.255", "11.0.0.1", "192.169.0.1",
        "2606:4700:4700::1111", "2a00:1450:4001::200e", "::ffff:8.8.8.8",
        "64:ff9b::808:808", NULL};
    const char *const *a;
    (void)state;
    for (a = allowed; *a; a++) {
        const char *why = refusal(NULL, *a);
        if (why) {
            fail_msg("%s was refused: %s", *a, why);
        }
    }
}

static void operator_networks_are_allowed_anyway(void **state)
{
    apr_pool_t *p = *state;
    apr_array_header_t *allow = apr_array_make(p, 2, sizeof(trv_cidr));
    trv_webhook_connect_rule https_rule = {allow, 1}, http_rule = {allow, 0};
    unsigned char raw[16];
    assert_null(trv_parse_cidr(p, "127.0.0.0/8", apr_array_push(allow)));
    assert_null(trv_parse_cidr(p, "::1", apr_array_push(allow)));
    assert_null(refusal(allow, "127.0.0.1"));
    assert_null(refusal(allow, "::1"));
    assert_null(refusal(allow, "::ffff:127.0.0.5"));
    assert_non_null(refusal(allow, "10.0.0.1"));
    assert_non_null(refusal(allow, "0.0.0.0"));
    /* At connect time http:// reaches only the allowed networks. */
    inet_pton(AF_INET, "127.0.0.1", raw);
    assert_true(trv_webhook_allow_address(&http_rule, APR_INET, raw));
    assert_true(trv_webhook_allow_address(&https_rule, APR_INET, raw));
    inet_pton(AF_INET, "8.8.8.8", raw);
    assert_false(trv_webhook_allow_address(&http_rule, APR_INET, raw));
    assert_true(trv_webhook_allow_address(&https_rule, APR_INET, raw));
    inet_pton(AF_INET, "192.168.0.1", raw);
    assert_false(trv_webhook_allow_address(&https_rule, APR_INET, raw));
}

static void url_shapes(void **state)
{
    apr_pool_t *p = *state;
    const char *host;
    int port, https;
    char *longurl;
    assert_null(trv_webhook_url_shape(p, "https://hooks.example.com/in?x=1", &host, &port,
                                      &https));
    assert_string_equal(host, "hooks.example.com");
    assert_int_equal(port, 443);
    assert_true(https);
    assert_null(trv_webhook_url_shape(p, "http://[::1]:8081/inbox", &host, &port, &https));
    assert_string_equal(host, "::1");
    assert_int_equal(port, 8081);
    assert_false(https);
    assert_non_null(trv_webhook_url_shape(p, "ftp://x.example/", &host, &port, &https));
    assert_non_null(trv_webhook_url_shape(p, "https://", &host, &port, &https));
    assert_non_null(trv_webhook_url_shape(p, "https:///path", &host, &port, &https));
    assert_non_null(trv_webhook_url_shape(p, "https://u:p@x.example/", &host, &port, &https));
    assert_non_null(trv_webhook_url_shape(p, "https://x.example/#f", &host, &port, &https));
    assert_non_null(trv_webhook_url_shape(p, "https://x.example/a b", &host, &port, &https));
    assert_non_null(trv_webhook_url_shape(p, "https://x.example:0/", &host, &port, &https));
    /* Ports beyond 16 bits are refused, not wrapped (99999 was 34463). */
    assert_non_null(trv_webhook_url_shape(p, "https://x.example:99999/", &host, &port, &https));
    assert_non_null(trv_webhook_url_shape(p, "https://x.example:65536/", &host, &port, &https));
    assert_non_null(trv_webhook_url_shape(p, "https://x.example:-1/", &host, &port, &https));
    assert_non_null(trv_webhook_url_shape(p, "https://x.example:+443/", &host, &port, &https));
    assert_non_null(trv_webhook_url_shape(p, "https://x.example:0443000/", &host, &port,
                                          &https));
    assert_null(trv_webhook_url_shape(p, "https://x.example:65535/", &host, &port, &https));
    assert_int_equal(port, 65535);
    longurl = apr_pstrcat(p, "https://x.example/", apr_pstrndup(p, memset(apr_palloc(p, 2100),
                          'a', 2100), 2100), NULL);
    assert_non_null(trv_webhook_url_shape(p, longurl, &host, &port, &https));
    /* The save-time check on literal addresses (no DNS involved). */
    assert_non_null(trv_webhook_url_check(p, NULL, "https://10.0.0.1/x"));
    assert_non_null(trv_webhook_url_check(p, NULL, "https://[::1]/x"));
    assert_non_null(trv_webhook_url_check(p, NULL, "http://8.8.8.8/x"));
    assert_null(trv_webhook_url_check(p, NULL, "https://8.8.8.8/x"));
}

static apr_array_header_t *schedule(apr_pool_t *p, const int *secs, int n)
{
    apr_array_header_t *a = apr_array_make(p, n, sizeof(apr_interval_time_t));
    int i;
    for (i = 0; i < n; i++) {
        APR_ARRAY_PUSH(a, apr_interval_time_t) = apr_time_from_sec(secs[i]);
    }
    return a;
}

static void the_production_schedule_then_exhaustion(void **state)
{
    apr_pool_t *p = *state;
    apr_array_header_t *s = trv_default_retry_schedule(p);
    static const int want[] = {60, 300, 1800, 7200, 43200, 86400};
    apr_interval_time_t d;
    int i;
    for (i = 0; i < 6; i++) {
        assert_true(trv_webhook_next_delay(s, i + 1, 500, NULL, 0, &d));
        assert_true(d == apr_time_from_sec(want[i]));
    }
    /* After the seventh attempt (the sixth retry) there is none. */
    assert_false(trv_webhook_next_delay(s, 7, 500, NULL, 0, &d));
    assert_false(trv_webhook_next_delay(s, 0, 500, NULL, 0, &d));
}

static void retry_after_is_honoured_within_the_schedule(void **state)
{
    apr_pool_t *p = *state;
    apr_array_header_t *s = trv_default_retry_schedule(p);
    static const int small[] = {1, 2, 4};
    apr_array_header_t *t = schedule(p, small, 3);
    apr_interval_time_t d;
    apr_time_t now = apr_time_from_sec(1700000000);
    /* Longer than the schedule's step: waited for. */
    assert_true(trv_webhook_next_delay(s, 1, 429, "600", now, &d));
    assert_true(d == apr_time_from_sec(600));
    assert_true(trv_webhook_next_delay(s, 1, 503, "3600", now, &d));
    assert_true(d == apr_time_from_sec(3600));
    /* Never sooner than the schedule. */
    assert_true(trv_webhook_next_delay(s, 2, 429, "5", now, &d));
    assert_true(d == apr_time_from_sec(300));
    /* Never longer than its longest delay. */
    assert_true(trv_webhook_next_delay(s, 1, 429, "999999", now, &d));
    assert_true(d == apr_time_from_sec(86400));
    assert_true(trv_webhook_next_delay(t, 1, 429, "100", now, &d));
    assert_true(d == apr_time_from_sec(4));
    /* Only for 429 and 503. */
    assert_true(trv_webhook_next_delay(s, 1, 500, "600", now, &d));
    assert_true(d == apr_time_from_sec(60));
    /* An HTTP date. */
    assert_true(trv_webhook_next_delay(s, 1, 503, "Tue, 14 Nov 2023 22:23:20 GMT", now, &d));
    assert_true(d == apr_time_from_sec(600));
    /* Malformed: the schedule. */
    assert_true(trv_webhook_next_delay(s, 1, 429, "soon", now, &d));
    assert_true(d == apr_time_from_sec(60));
    assert_true(trv_webhook_next_delay(s, 1, 429, "-5", now, &d));
    assert_true(d == apr_time_from_sec(60));
    /* Retry-After does not extend a schedule that is used up. */
    assert_false(trv_webhook_next_delay(t, 4, 429, "1", now, &d));
}

static void retry_after_parsing(void **state)
{
    apr_interval_time_t w;
    apr_time_t now = apr_time_from_sec(1700000000);
    (void)state;
    assert_true(trv_webhook_retry_after("120", now, &w));
    assert_true(w == apr_time_from_sec(120));
    assert_true(trv_webhook_retry_after(" 7 ", now, &w));
    assert_true(w == apr_time_from_sec(7));
    assert_true(trv_webhook_retry_after("Tue, 14 Nov 2023 22:13:20 GMT", now, &w));
    assert_true(w == 0); /* exactly now */
    assert_true(trv_webhook_retry_after("Mon, 13 Nov 2023 22:13:20 GMT", now, &w));
    assert_true(w == 0); /* in the past */
    assert_false(trv_webhook_retry_after(NULL, now, &w));
    assert_false(trv_webhook_retry_after("", now, &w));
    assert_false(trv_webhook_retry_after("12s", now, &w));
    assert_false(trv_webhook_retry_after("tomorrow", now, &w));
}

static void accepted_means_2xx(void **state)
{
    (void)state;
    assert_true(trv_webhook_accepted(200));
    assert_true(trv_webhook_accepted(204));
    assert_true(trv_webhook_accepted(299));
    assert_false(trv_webhook_accepted(0));
    assert_false(trv_webhook_accepted(199));
    assert_false(trv_webhook_accepted(301));
    assert_false(trv_webhook_accepted(410));
}

static void kept_answers_are_valid_text(void **state)
{
    apr_pool_t *p = *state;
    char big[5000];
    const char *t;
    assert_string_equal(trv_webhook_clean_text(p, "ok", 2), "ok");
    assert_string_equal(trv_webhook_clean_text(p, NULL, 0), "");
    assert_string_equal(trv_webhook_clean_text(p, "a\0b", 3), "a?b");
    assert_string_equal(trv_webhook_clean_text(p, "caf\xc3\xa9", 5), "caf\xc3\xa9");
    assert_string_equal(trv_webhook_clean_text(p, "x\xff\xfey", 4), "x??y");
    /* A sequence cut short, overlong forms and surrogates are not text. */
    assert_string_equal(trv_webhook_clean_text(p, "x\xc3", 2), "x?");
    assert_string_equal(trv_webhook_clean_text(p, "\xc0\xaf", 2), "??");
    assert_string_equal(trv_webhook_clean_text(p, "\xed\xa0\x80", 3), "???");
    assert_string_equal(trv_webhook_clean_text(p, "\xf0\x9f\x98\x80", 4), "\xf0\x9f\x98\x80");
    memset(big, 'z', sizeof(big));
    t = trv_webhook_clean_text(p, big, sizeof(big));
    assert_int_equal(strlen(t), TRV_WEBHOOK_KEEP_BODY);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(non_public_addresses_are_refused),
        cmocka_unit_test(public_addresses_are_allowed),
        cmocka_unit_test_setup_teardown(operator_networks_are_allowed_anyway, pool_setup,
                                        pool_teardown),
        cmocka_unit_test_setup_teardown(url_shapes, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(the_production_schedule_then_exhaustion, pool_setup,
                                        pool_teardown),
        cmocka_unit_test_setup_teardown(retry_after_is_honoured_within_the_schedule,
                                        pool_setup, pool_teardown),
        cmocka_unit_test(retry_after_parsing),
        cmocka_unit_test(accepted_means_2xx),
        cmocka_unit_test_setup_teardown(kept_answers_are_valid_text, pool_setup, pool_teardown),
    };
    int rc;
    apr_initialize();
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    apr_terminate();
    return rc;
}
