/* mod_travel_sandbox over real HTTP: its health endpoint, and the webhook
 * inbox that records every request (headers and raw body) and answers as
 * told, which the webhook tests rely on. */
#include "e2e.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char inbox[64];

static int setup(void **state)
{
    (void)state;
    snprintf(inbox, sizeof(inbox), "t%ld", e2e_now_ms());
    return 0;
}

static void health_answers(void **state)
{
    e2e_resp *r = e2e_call(e2e_sandbox_url(), "GET", "/health", NULL, NULL);
    (void)state;
    assert_int_equal(r->status, 200);
    assert_string_equal(json_string_value(json_object_get(json_object_get(r->json, "data"),
                                                          "status")), "ok");
    e2e_free(r);
}

static json_t *requests(void)
{
    char path[128];
    e2e_resp *r;
    json_t *data;
    snprintf(path, sizeof(path), "/sandbox/inboxes/%s/requests", inbox);
    r = e2e_call(e2e_sandbox_url(), "GET", path, NULL, NULL);
    assert_int_equal(r->status, 200);
    data = json_incref(json_object_get(r->json, "data"));
    e2e_free(r);
    return data;
}

static void records_headers_and_raw_body(void **state)
{
    char path[128];
    const char *hdrs[] = {"Content-Type: application/json", "webhook-id: evt_1",
                          "X-Custom: a", NULL};
    const char *body = "{\"b\": 1,  \"a\":\"\\u00e9\"}";
    e2e_resp *r;
    json_t *got, *one;
    (void)state;
    snprintf(path, sizeof(path), "/inbox/%s/hooks", inbox);
    r = e2e_call(e2e_sandbox_url(), "POST", path, hdrs, body);
    assert_int_equal(r->status, 200);
    e2e_free(r);
    got = requests();
    assert_int_equal(json_array_size(got), 1);
    one = json_array_get(got, 0);
    assert_string_equal(json_string_value(json_object_get(one, "method")), "POST");
    assert_string_equal(json_string_value(json_object_get(one, "path")), path);
    /* Byte for byte: signatures are verified over the raw body. */
    assert_string_equal(json_string_value(json_object_get(one, "body")), body);
    assert_string_equal(json_string_value(json_object_get(json_object_get(one, "headers"),
                                                          "webhook-id")), "evt_1");
    assert_string_equal(json_string_value(json_object_get(json_object_get(one, "headers"),
                                                          "x-custom")), "a");
    json_decref(got);
}

static void answers_as_told_then_recovers(void **state)
{
    char path[128], bpath[128];
    const char *hdrs[] = {"Content-Type: application/json", NULL};
    e2e_resp *r;
    char *ra;
    (void)state;
    snprintf(path, sizeof(path), "/inbox/%s", inbox);
    snprintf(bpath, sizeof(bpath), "/sandbox/inboxes/%s/behavior", inbox);
    r = e2e_call(e2e_sandbox_url(), "PUT", bpath, hdrs,
                 "{\"status\": 429, \"retry_after\": 7, \"times\": 2}");
    assert_int_equal(r->status, 200);
    e2e_free(r);
    r = e2e_call(e2e_sandbox_url(), "POST", path, hdrs, "{}");
    assert_int_equal(r->status, 429);
    ra = e2e_header(r, "retry-after");
    assert_string_equal(ra, "7");
    free(ra);
    e2e_free(r);
    r = e2e_call(e2e_sandbox_url(), "POST", path, hdrs, "{}");
    assert_int_equal(r->status, 429);
    e2e_free(r);
    r = e2e_call(e2e_sandbox_url(), "POST", path, hdrs, "{}");
    assert_int_equal(r->status, 200);
    e2e_free(r);
    /* A delay holds the answer back. */
    r = e2e_call(e2e_sandbox_url(), "PUT", bpath, hdrs,
                 "{\"status\": 503, \"delay_ms\": 600, \"times\": 1}");
    e2e_free(r);
    {
        long t0 = e2e_now_ms();
        r = e2e_call(e2e_sandbox_url(), "POST", path, hdrs, "{}");
        assert_int_equal(r->status, 503);
        assert_true(e2e_now_ms() - t0 >= 550);
        e2e_free(r);
    }
    /* Recorded statuses match what was answered. */
    {
        json_t *got = requests();
        size_t n = json_array_size(got);
        assert_int_equal(n, 5);
        assert_int_equal(json_integer_value(json_object_get(json_array_get(got, 1), "status")), 429);
        assert_int_equal(json_integer_value(json_object_get(json_array_get(got, 3), "status")), 200);
        assert_int_equal(json_integer_value(json_object_get(json_array_get(got, 4), "status")), 503);
        json_decref(got);
    }
}

static void invalid_behavior_is_422(void **state)
{
    char bpath[128];
    const char *hdrs[] = {"Content-Type: application/json", NULL};
    e2e_resp *r;
    (void)state;
    snprintf(bpath, sizeof(bpath), "/sandbox/inboxes/%s/behavior", inbox);
    r = e2e_call(e2e_sandbox_url(), "PUT", bpath, hdrs, "{\"status\": 99}");
    e2e_assert_error(r, 422, "validation_failed");
    e2e_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(health_answers, setup),
        cmocka_unit_test(records_headers_and_raw_body),
        cmocka_unit_test(answers_as_told_then_recovers),
        cmocka_unit_test(invalid_behavior_is_422),
    };
    return E2E_RUN("sandbox inbox", tests);
}
