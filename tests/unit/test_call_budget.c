/* The operator's call budget per supplier line (core/call_budget.c): the
 * share of a window each class of call may reach (live the whole ceiling,
 * background what a reserve of a quarter leaves, at least one), windows of
 * a second aligned to the clock, the count shared through a counter, a
 * broken counter letting calls through; and through trv_upstream_call: a
 * spent budget keeps the call from the supplier (the transport is never
 * reached), a live call waits for the next window when allowed to, and a
 * background call never waits. */
#include "unit.h"

#include "core/call_budget.h"
#include "core/upstream.h"
#include "core/upstream_limit.h"

#include <apr_hash.h>
#include <apr_strings.h>
#include <string.h>

#define SEC(n) apr_time_from_sec(n)
/* A fixed "now": 2026-11-27T10:00:00.250Z. */
#define NOW (apr_time_from_sec(1795773600) + apr_time_from_msec(250))

/* A counter in a hash, as the socache store behaves (compare, add). */
typedef struct memcounter {
    apr_hash_t *counts;
    apr_pool_t *p;
    int broken;
    int takes;
} memcounter;

static long mem_take(const trv_call_counter *c, const char *key, long ceiling, apr_time_t expiry,
                     apr_pool_t *p)
{
    memcounter *m = c->baton;
    long *n = apr_hash_get(m->counts, key, APR_HASH_KEY_STRING), before;
    (void)expiry;
    (void)p;
    m->takes++;
    if (m->broken) {
        return -1;
    }
    if (!n) {
        n = apr_pcalloc(m->p, sizeof(*n));
        apr_hash_set(m->counts, apr_pstrdup(m->p, key), APR_HASH_KEY_STRING, n);
    }
    before = *n;
    if (*n < ceiling) {
        (*n)++;
    }
    return before;
}

static trv_call_counter *counter(apr_pool_t *p, memcounter **out)
{
    memcounter *m = apr_pcalloc(p, sizeof(*m));
    trv_call_counter *c = apr_pcalloc(p, sizeof(*c));
    m->counts = apr_hash_make(p);
    m->p = p;
    c->take = mem_take;
    c->baton = m;
    if (out) {
        *out = m;
    }
    return c;
}

static trv_upstream line(long per_second)
{
    trv_upstream u;
    memset(&u, 0, sizeof(u));
    u.name = "SUPPLIER_A";
    u.protocol = "liteapi";
    u.base_url = "http://127.0.0.1:1/hotels/a";
    u.max_calls_per_second = per_second;
    return u;
}

static void shares_keep_a_reserve_for_live_calls(void **state)
{
    trv_upstream u = line(8);
    (void)state;
    assert_int_equal(trv_call_budget_share(&u, 0), 8);
    assert_int_equal(trv_call_budget_share(&u, 1), 6);   /* a quarter kept */
    u.max_calls_per_second = 10;
    assert_int_equal(trv_call_budget_share(&u, 1), 7);   /* 10 - ceil(2.5) */
    u.max_calls_per_second = 2;
    assert_int_equal(trv_call_budget_share(&u, 1), 1);
    u.max_calls_per_second = 1;                          /* never starved */
    assert_int_equal(trv_call_budget_share(&u, 1), 1);
    assert_int_equal(trv_call_budget_share(&u, 0), 1);
    u.max_calls_per_second = 0;                          /* no ceiling */
    assert_int_equal(trv_call_budget_share(&u, 0), 0);
    assert_int_equal(trv_call_budget_share(NULL, 1), 0);
}

static void windows_are_whole_seconds(void **state)
{
    apr_int64_t a, b;
    (void)state;
    assert_int_equal(trv_call_budget_window(NOW, &a), apr_time_from_sec(1795773601));
    assert_int_equal(a, 1795773600);
    assert_int_equal(trv_call_budget_window(apr_time_from_sec(1795773601), &b),
                     apr_time_from_sec(1795773602));
    assert_int_equal(b, a + 1);
    assert_int_equal(trv_call_budget_window(apr_time_from_sec(1795773601) - 1, &b),
                     apr_time_from_sec(1795773601));
    assert_int_equal(b, a);
}

static void live_calls_spend_the_ceiling_background_calls_their_share(void **state)
{
    apr_pool_t *p = *state;
    trv_call_counter *c = counter(p, NULL);
    trv_upstream u = line(4), other = line(4);
    apr_time_t end = apr_time_from_sec(1795773601);
    int i;
    other.name = "SUPPLIER_B";
    /* Background calls first: 3 of 4 (one kept for searches). */
    for (i = 0; i < 3; i++) {
        assert_int_equal(trv_call_budget_take(c, p, &u, 1, NOW), 0);
    }
    assert_int_equal(trv_call_budget_take(c, p, &u, 1, NOW), end);
    /* A live call still finds the reserved one, then none is left. */
    assert_int_equal(trv_call_budget_take(c, p, &u, 0, NOW), 0);
    assert_int_equal(trv_call_budget_take(c, p, &u, 0, NOW + 1000), end);
    assert_int_equal(trv_call_budget_take(c, p, &u, 1, NOW), end);
    /* Another line counts apart; the next window starts again. */
    assert_int_equal(trv_call_budget_take(c, p, &other, 0, NOW), 0);
    assert_int_equal(trv_call_budget_take(c, p, &u, 0, end), 0);
    assert_int_equal(trv_call_budget_take(c, p, &u, 1, end), 0);
}

static void live_searches_first_leave_nothing_to_watches(void **state)
{
    apr_pool_t *p = *state;
    trv_call_counter *c = counter(p, NULL);
    trv_upstream u = line(4);
    int i;
    for (i = 0; i < 3; i++) {
        assert_int_equal(trv_call_budget_take(c, p, &u, 0, NOW), 0);
    }
    /* Nearly spent: the watch yields although one live call is left. */
    assert_int_not_equal(trv_call_budget_take(c, p, &u, 1, NOW), 0);
    assert_int_equal(trv_call_budget_take(c, p, &u, 0, NOW), 0);
}

static void no_ceiling_no_counter_or_a_broken_one_let_calls_go(void **state)
{
    apr_pool_t *p = *state;
    memcounter *m;
    trv_call_counter *c = counter(p, &m);
    trv_upstream free_line = line(0), u = line(1);
    int i;
    for (i = 0; i < 5; i++) {
        assert_int_equal(trv_call_budget_take(c, p, &free_line, 0, NOW), 0);
    }
    assert_int_equal(m->takes, 0); /* a line without a ceiling is not counted */
    assert_int_equal(trv_call_budget_take(NULL, p, &u, 0, NOW), 0);
    m->broken = 1;
    for (i = 0; i < 3; i++) {
        assert_int_equal(trv_call_budget_take(c, p, &u, 0, NOW), 0);
    }
}

/* ---- through trv_upstream_call ---- */

static int sent;

static apr_status_t fake_perform(trv_http *h, apr_pool_t *p, const trv_http_req *req,
                                 trv_http_resp *resp)
{
    (void)h;
    (void)req;
    memset(resp, 0, sizeof(*resp));
    sent++;
    resp->status = 200;
    resp->headers = apr_table_make(p, 1);
    resp->body = apr_pstrdup(p, "{}");
    resp->body_len = 2;
    return APR_SUCCESS;
}

static void env_of(apr_pool_t *p, trv_env *env, trv_config *cfg, trv_http *http,
                   apr_interval_time_t wait)
{
    memset(env, 0, sizeof(*env));
    memset(cfg, 0, sizeof(*cfg));
    memset(http, 0, sizeof(*http));
    http->perform = fake_perform;
    cfg->supplier_limit_wait = wait;
    env->cfg = cfg;
    env->http = http;
    env->call_counter = counter(p, NULL);
    env->upstream_limits = trv_upstream_limits_attach(p, apr_pcalloc(p,
                                                      trv_upstream_limits_size()));
}

static void a_spent_budget_keeps_the_call_from_the_supplier(void **state)
{
    apr_pool_t *p = *state;
    trv_env env;
    trv_config cfg;
    trv_http http;
    trv_up_result res;
    trv_upstream u = line(2), bg;
    apr_time_t start;
    int i, went = 0;
    env_of(p, &env, &cfg, &http, 0);
    assert_int_equal(trv_upstream_limits_add(env.upstream_limits, &u), 0);
    u.timeout = SEC(5);
    bg = u;
    bg.background = 1;
    sent = 0;
    /* Start just after a window turns, so that all five meet in one. */
    while (apr_time_now() % SEC(1) > apr_time_from_msec(300)) {
        apr_sleep(apr_time_from_msec(20));
    }
    start = apr_time_now();
    /* Within one second at most 2 go; the others are refused unsent. */
    for (i = 0; i < 5; i++) {
        went += trv_upstream_call_h(&env, p, &u, "GET", "/x", NULL, NULL, "req_t", NULL, &res)
                == TRV_UP_OK;
    }
    assert_int_equal(apr_time_sec(apr_time_now()), apr_time_sec(start));
    {
        assert_int_equal(went, 2);
        assert_int_equal(sent, 2);
        assert_int_equal(res.status, TRV_UP_UNAVAILABLE);
        assert_string_equal(res.code, TRV_CALL_BUDGET_SPENT);
        assert_int_equal(res.http_status, 0);
        assert_true(res.retry_at > apr_time_now() && res.retry_at <= apr_time_now() + SEC(1));
        /* The request that met it can tell (it answers 429, not 502). */
        assert_true(trv_upstream_limit_budget_until(env.upstream_limits, &u, apr_time_now())
                    > 0);
        /* A background call is refused at once too. */
        assert_int_equal(trv_upstream_call_h(&env, p, &bg, "GET", "/x", NULL, NULL, "job_t",
                                             NULL, &res), TRV_UP_UNAVAILABLE);
        assert_string_equal(res.code, TRV_CALL_BUDGET_SPENT);
        assert_int_equal(sent, 2);
    }
}

static void a_live_call_waits_for_the_next_window_a_background_call_does_not(void **state)
{
    apr_pool_t *p = *state;
    trv_env env;
    trv_config cfg;
    trv_http http;
    trv_up_result res;
    trv_upstream u = line(1), bg;
    apr_time_t t0, t1;
    env_of(p, &env, &cfg, &http, SEC(2));
    u.timeout = SEC(5);
    bg = u;
    bg.background = 1;
    sent = 0;
    /* Start just after a window turns, so the two live calls meet in one. */
    while (apr_time_now() % SEC(1) > apr_time_from_msec(300)) {
        apr_sleep(apr_time_from_msec(20));
    }
    t0 = apr_time_now();
    assert_int_equal(trv_upstream_call_h(&env, p, &u, "GET", "/x", NULL, NULL, "r1", NULL,
                                         &res), TRV_UP_OK);
    /* Background: no share left in this window, refused without a wait. */
    assert_int_equal(trv_upstream_call_h(&env, p, &bg, "GET", "/x", NULL, NULL, "j1", NULL,
                                         &res), TRV_UP_UNAVAILABLE);
    assert_true(apr_time_now() - t0 < apr_time_from_msec(500));
    /* Live: waits for the next window, then goes. */
    assert_int_equal(trv_upstream_call_h(&env, p, &u, "GET", "/x", NULL, NULL, "r2", NULL,
                                         &res), TRV_UP_OK);
    t1 = apr_time_now();
    assert_true(apr_time_sec(t1) > apr_time_sec(t0));
    assert_true(t1 - t0 < SEC(2));
    assert_int_equal(sent, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shares_keep_a_reserve_for_live_calls),
        cmocka_unit_test(windows_are_whole_seconds),
        cmocka_unit_test_setup_teardown(live_calls_spend_the_ceiling_background_calls_their_share,
                                        pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(live_searches_first_leave_nothing_to_watches, pool_setup,
                                        pool_teardown),
        cmocka_unit_test_setup_teardown(no_ceiling_no_counter_or_a_broken_one_let_calls_go,
                                        pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(a_spent_budget_keeps_the_call_from_the_supplier,
                                        pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(
            a_live_call_waits_for_the_next_window_a_background_call_does_not, pool_setup,
            pool_teardown),
    };
    return UNIT_RUN(tests);
}
