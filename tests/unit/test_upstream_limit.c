/* A supplier's own rate limit (core/upstream_limit.c): a 429's Retry-After
 * (seconds or a date) or its reset stops calls until then; an answer with
 * no call left in the window stops them until its reset; a known count is
 * spent call by call; the header forms (delta, epoch, HTTP date against
 * the answer's Date) and the cap on what a supplier may ask for. */
#include "unit.h"

#include "core/upstream_limit.h"

#include <apr_strings.h>
#include <apr_tables.h>
#include <stdlib.h>
#include <string.h>

#define SEC(n) apr_time_from_sec(n)
/* A fixed "now": 2026-11-27T10:00:00Z. */
#define NOW apr_time_from_sec(1795773600)

static trv_upstream duffel = {"SUPPLIER_A", "duffel", "http://127.0.0.1:1/suppliers/a"};
static trv_upstream liteapi = {"SUPPLIER_A", "liteapi", "http://127.0.0.1:1/suppliers/hotel-a"};
static trv_upstream other = {"SUPPLIER_B", "travel-air", "http://127.0.0.1:1/suppliers/b"};

static trv_upstream_limits *fresh(apr_pool_t *p)
{
    void *mem = apr_pcalloc(p, trv_upstream_limits_size());
    trv_upstream_limits *lim = trv_upstream_limits_attach(p, mem);
    assert_int_equal(trv_upstream_limits_add(lim, &duffel), 0);
    assert_int_equal(trv_upstream_limits_add(lim, &liteapi), 0);
    assert_int_equal(trv_upstream_limits_add(lim, &other), 0);
    return lim;
}

static apr_table_t *headers(apr_pool_t *p, const char *const *kv)
{
    apr_table_t *t = apr_table_make(p, 4);
    for (; kv && kv[0]; kv += 2) {
        apr_table_setn(t, kv[0], kv[1]);
    }
    return t;
}

static void retry_after_seconds_stops_that_supplier_only(void **state)
{
    apr_pool_t *p = *state;
    trv_upstream_limits *lim = fresh(p);
    const char *h[] = {"Retry-After", "30", NULL};
    apr_time_t at = trv_upstream_limit_note(lim, &liteapi, NOW, 429, headers(p, h));
    assert_true(at == NOW + SEC(30));
    assert_true(trv_upstream_limit_take(lim, &liteapi, NOW + SEC(1)) == NOW + SEC(30));
    assert_true(trv_upstream_limit_until(lim, &liteapi, NOW + SEC(29)) == NOW + SEC(30));
    /* Same wire name, other line (the flight SUPPLIER_A): not limited. */
    assert_true(trv_upstream_limit_take(lim, &duffel, NOW + SEC(1)) == 0);
    assert_true(trv_upstream_limit_take(lim, &other, NOW + SEC(1)) == 0);
    /* Over at the time it said. */
    assert_true(trv_upstream_limit_take(lim, &liteapi, NOW + SEC(30)) == 0);
}

static void a_later_429_never_shortens_the_stop(void **state)
{
    apr_pool_t *p = *state;
    trv_upstream_limits *lim = fresh(p);
    const char *long_h[] = {"Retry-After", "60", NULL}, *short_h[] = {"Retry-After", "5", NULL};
    trv_upstream_limit_note(lim, &other, NOW, 429, headers(p, long_h));
    trv_upstream_limit_note(lim, &other, NOW, 429, headers(p, short_h));
    assert_true(trv_upstream_limit_until(lim, &other, NOW + SEC(10)) == NOW + SEC(60));
}

static void duffel_headers_remaining_zero_stop_until_reset(void **state)
{
    apr_pool_t *p = *state;
    trv_upstream_limits *lim = fresh(p);
    char date[APR_RFC822_DATE_LEN], reset[APR_RFC822_DATE_LEN];
    const char *h[] = {"Date", date, "ratelimit-limit", "60", "ratelimit-remaining", "0",
                       "ratelimit-reset", reset, NULL};
    apr_rfc822_date(date, NOW);
    apr_rfc822_date(reset, NOW + SEC(12));
    /* A 200 that spent the last call: nothing to retry, but no call before the reset. */
    assert_true(trv_upstream_limit_note(lim, &duffel, NOW, 200, headers(p, h)) == 0);
    assert_true(trv_upstream_limit_take(lim, &duffel, NOW + SEC(1)) == NOW + SEC(12));
    assert_true(trv_upstream_limit_take(lim, &duffel, NOW + SEC(12)) == 0);
}

static void a_known_count_is_spent_call_by_call(void **state)
{
    apr_pool_t *p = *state;
    trv_upstream_limits *lim = fresh(p);
    const char *h[] = {"ratelimit-remaining", "2", "ratelimit-reset", "20", NULL};
    trv_upstream_limit_note(lim, &duffel, NOW, 200, headers(p, h));
    assert_true(trv_upstream_limit_take(lim, &duffel, NOW) == 0);
    assert_true(trv_upstream_limit_take(lim, &duffel, NOW) == 0);
    /* The third call in the window would be over the limit. */
    assert_true(trv_upstream_limit_take(lim, &duffel, NOW) == NOW + SEC(20));
    /* Asking does not spend. */
    assert_true(trv_upstream_limit_until(lim, &duffel, NOW) == NOW + SEC(20));
    /* A new window: the next answer will tell. */
    assert_true(trv_upstream_limit_take(lim, &duffel, NOW + SEC(20)) == 0);
}

static void a_429_without_retry_after_uses_the_reset_or_a_short_default(void **state)
{
    apr_pool_t *p = *state;
    trv_upstream_limits *lim = fresh(p);
    const char *with_reset[] = {"ratelimit-remaining", "0", "ratelimit-reset", "9", NULL};
    assert_true(trv_upstream_limit_note(lim, &duffel, NOW, 429, headers(p, with_reset))
                == NOW + SEC(9));
    assert_true(trv_upstream_limit_note(lim, &other, NOW, 429, headers(p, NULL))
                == NOW + TRV_UPSTREAM_LIMIT_DEFAULT);
    assert_true(trv_upstream_limit_until(lim, &other, NOW) == NOW + TRV_UPSTREAM_LIMIT_DEFAULT);
}

static void time_forms_are_read_and_capped(void **state)
{
    char date[APR_RFC822_DATE_LEN], later[APR_RFC822_DATE_LEN];
    (void)state;
    assert_true(trv_upstream_limit_time("7", NULL, NOW) == NOW + SEC(7));
    assert_true(trv_upstream_limit_time("1.5", NULL, NOW) == NOW + apr_time_from_msec(1500));
    /* Epoch seconds. */
    assert_true(trv_upstream_limit_time("1795773640", NULL, NOW) == NOW + SEC(40));
    /* An HTTP date counts from the answer's Date: the supplier's clock is 100 s behind. */
    apr_rfc822_date(date, NOW - SEC(100));
    apr_rfc822_date(later, NOW - SEC(70));
    assert_true(trv_upstream_limit_time(later, date, NOW) == NOW + SEC(30));
    /* Without a Date, as written. */
    apr_rfc822_date(later, NOW + SEC(45));
    assert_true(trv_upstream_limit_time(later, NULL, NOW) == NOW + SEC(45));
    /* A stop longer than the cap is not believed. */
    assert_true(trv_upstream_limit_time("999999", NULL, NOW) == NOW + TRV_UPSTREAM_LIMIT_MAX);
    /* Unreadable. */
    assert_true(trv_upstream_limit_time("soon", NULL, NOW) == 0);
    assert_true(trv_upstream_limit_time("-3", NULL, NOW) == 0);
    assert_true(trv_upstream_limit_time("", NULL, NOW) == 0);
    assert_true(trv_upstream_limit_time(NULL, NULL, NOW) == 0);
}

static void untracked_upstreams_and_no_state_are_never_limited(void **state)
{
    apr_pool_t *p = *state;
    trv_upstream_limits *lim = fresh(p);
    trv_upstream payment = {"payment", NULL, "http://127.0.0.1:1/payments"};
    const char *h[] = {"Retry-After", "30", NULL};
    /* The time is still told, though nothing is remembered. */
    assert_true(trv_upstream_limit_note(lim, &payment, NOW, 429, headers(p, h)) == NOW + SEC(30));
    assert_true(trv_upstream_limit_take(lim, &payment, NOW) == 0);
    assert_true(trv_upstream_limit_note(NULL, &duffel, NOW, 429, headers(p, h)) == NOW + SEC(30));
    assert_true(trv_upstream_limit_take(NULL, &duffel, NOW) == 0);
    assert_true(trv_upstream_limit_take(lim, &duffel, NOW) == 0);
}

static void slots_are_kept_over_a_restart_and_bounded(void **state)
{
    apr_pool_t *p = *state;
    void *mem = apr_pcalloc(p, trv_upstream_limits_size());
    trv_upstream_limits *lim = trv_upstream_limits_attach(p, mem);
    const char *h[] = {"Retry-After", "30", NULL};
    int i;
    assert_int_equal(trv_upstream_limits_add(lim, &other), 0);
    trv_upstream_limit_note(lim, &other, NOW, 429, headers(p, h));
    /* A graceful restart attaches the same memory again and adds the lines again. */
    lim = trv_upstream_limits_attach(p, mem);
    assert_int_equal(trv_upstream_limits_add(lim, &other), 0);
    assert_true(trv_upstream_limit_until(lim, &other, NOW) == NOW + SEC(30));
    for (i = 1; i < TRV_UPSTREAM_LIMIT_SLOTS; i++) {
        trv_upstream u = {apr_psprintf(p, "S%d", i), "x", "http://127.0.0.1:1"};
        assert_int_equal(trv_upstream_limits_add(lim, &u), 0);
    }
    {
        trv_upstream u = {"ONE_TOO_MANY", "x", "http://127.0.0.1:1"};
        assert_int_equal(trv_upstream_limits_add(lim, &u), -1);
    }
}

static void figures_show_what_is_held_and_what_is_left(void **state)
{
    apr_pool_t *p = *state;
    trv_upstream_limits *lim = fresh(p);
    const char *stop[] = {"Retry-After", "30", NULL};
    const char *window[] = {"ratelimit-remaining", "7", "ratelimit-reset", "20", NULL};
    trv_upstream_limit_fig *f;
    trv_upstream_limit_note(lim, &liteapi, NOW, 429, headers(p, stop));
    trv_upstream_limit_note(lim, &duffel, NOW, 200, headers(p, window));
    assert_int_equal(trv_upstream_limits_figures(lim, p, NOW + SEC(1), &f), 3);
    assert_string_equal(f[0].line, "SUPPLIER_A http://127.0.0.1:1/suppliers/a");
    assert_true(f[0].until == 0);
    assert_int_equal(f[0].remaining, 7);
    assert_string_equal(f[1].line, "SUPPLIER_A http://127.0.0.1:1/suppliers/hotel-a");
    assert_true(f[1].until == NOW + SEC(30));
    assert_int_equal(f[1].remaining, -1);
    assert_true(f[2].until == 0);
    assert_int_equal(f[2].remaining, -1);
    /* The window over: its count is no longer known. */
    assert_int_equal(trv_upstream_limits_figures(lim, p, NOW + SEC(21), &f), 3);
    assert_int_equal(f[0].remaining, -1);
    assert_int_equal(trv_upstream_limits_figures(NULL, p, NOW, &f), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(retry_after_seconds_stops_that_supplier_only,
                                        pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(a_later_429_never_shortens_the_stop, pool_setup,
                                        pool_teardown),
        cmocka_unit_test_setup_teardown(duffel_headers_remaining_zero_stop_until_reset,
                                        pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(a_known_count_is_spent_call_by_call, pool_setup,
                                        pool_teardown),
        cmocka_unit_test_setup_teardown(
            a_429_without_retry_after_uses_the_reset_or_a_short_default, pool_setup,
            pool_teardown),
        cmocka_unit_test_setup_teardown(time_forms_are_read_and_capped, pool_setup,
                                        pool_teardown),
        cmocka_unit_test_setup_teardown(untracked_upstreams_and_no_state_are_never_limited,
                                        pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(slots_are_kept_over_a_restart_and_bounded, pool_setup,
                                        pool_teardown),
        cmocka_unit_test_setup_teardown(figures_show_what_is_held_and_what_is_left, pool_setup,
                                        pool_teardown),
    };
    return UNIT_RUN(tests);
}
