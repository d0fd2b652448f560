/* Rate limits, on the test instance `rl` (TravelRateLimit 5 60s,
 * TravelAuthFailLimit 5 60s; the other instances' limits are generous so
 * no other test meets them). Windows are fixed and aligned to the epoch, so
 * a window may end during a test: each test sends up to twice the limit
 * plus one request, which crosses a limit within one 60 s window whatever
 * the machine's speed. The per-key test runs first: the failed-key test
 * then blocks this address on `rl` for the rest of its window. */
#include "e2e.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LIMIT 5
#define WINDOW 60

static char *key1, *key2;

static int setup(void **state)
{
    char *org;
    (void)state;
    key1 = e2e_new_org_key("rate-one", &org);
    key2 = e2e_new_key(org, "rate-two");
    free(org);
    return 0;
}

static const char *rl_url(void)
{
    return e2e_env("TRAVEL_TEST_URL_RL");
}

static e2e_resp *get_with(const char *key)
{
    char kh[512];
    const char *hdrs[] = {kh, NULL};
    snprintf(kh, sizeof(kh), "x-api-key: %s", key);
    return e2e_call(rl_url(), "GET", "/v1/flight/bookings", hdrs, NULL);
}

static long header_long(const e2e_resp *r, const char *name)
{
    char *v = e2e_header(r, name);
    long n = v ? atol(v) : -1;
    if (!v) {
        fail_msg("no %s header in %s", name, r->headers);
    }
    free(v);
    return n;
}

static void assert_limited(const e2e_resp *r)
{
    long retry = header_long(r, "retry-after"), reset = header_long(r, "ratelimit-reset");
    e2e_assert_error(r, 429, "rate_limited");
    assert_int_equal(header_long(r, "ratelimit-limit"), LIMIT);
    assert_int_equal(header_long(r, "ratelimit-remaining"), 0);
    assert_true(retry >= 1 && retry <= WINDOW);
    assert_true(reset >= 1 && reset <= WINDOW);
}

static void requests_per_key_are_limited(void **state)
{
    e2e_resp *r = NULL;
    long last_remaining = LIMIT;
    int i, ok = 0;
    (void)state;
    for (i = 0; i < 2 * LIMIT + 1; i++) {
        e2e_free(r);
        r = get_with(key1);
        if (r->status == 429) {
            break;
        }
        assert_int_equal(r->status, 200);
        ok++;
        /* Every counted answer says where the caller stands. */
        assert_int_equal(header_long(r, "ratelimit-limit"), LIMIT);
        if (header_long(r, "ratelimit-remaining") > last_remaining) {
            ok = 1; /* a new window began: count again */
        }
        last_remaining = header_long(r, "ratelimit-remaining");
        assert_true(last_remaining >= 0 && last_remaining < LIMIT);
    }
    if (r->status != 429) {
        fail_msg("no 429 after %d requests with one key (limit %d)", i, LIMIT);
    }
    assert_true(ok >= LIMIT);
    assert_limited(r);
    e2e_free(r);
    /* Another key of the same organization has its own count. */
    r = get_with(key2);
    assert_int_equal(r->status, 200);
    assert_int_equal(header_long(r, "ratelimit-remaining"), LIMIT - 1);
    e2e_free(r);
}

static void failed_keys_are_limited_per_address(void **state)
{
    e2e_resp *r = NULL;
    int i, refused = 0;
    (void)state;
    for (i = 0; i < 2 * LIMIT + 1; i++) {
        char guess[64];
        e2e_free(r);
        snprintf(guess, sizeof(guess), "tk_test_guess%d%0*d", i, 40, i);
        r = get_with(guess);
        if (r->status == 429) {
            break;
        }
        e2e_assert_error(r, 401, "unauthorized");
        refused++;
    }
    if (r->status != 429) {
        fail_msg("no 429 after %d failed keys (limit %d)", i, LIMIT);
    }
    assert_true(refused >= LIMIT);
    assert_limited(r);
    e2e_free(r);
    /* The address is refused now, whatever key it sends, until the window
     * ends; the 429 says when. */
    r = get_with(key2);
    assert_limited(r);
    e2e_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(requests_per_key_are_limited, setup),
        cmocka_unit_test(failed_keys_are_limited_per_address),
    };
    return E2E_RUN("rate limits", tests);
}
