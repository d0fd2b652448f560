/* core/http, the one libcurl user, against the sandbox over real HTTP:
 * x-request-id goes upstream, every call has a timeout, answers are capped,
 * and connections are reused. */
#include "e2e.h"
#include "core/http.h"

#include <apr_atomic.h>
#include <apr_general.h>
#include <apr_strings.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static apr_pool_t *pool;
static trv_http *client;
static char inbox[64];
static apr_uint32_t stopping;

static int setup(void **state)
{
    (void)state;
    apr_initialize();
    apr_pool_create(&pool, NULL);
    trv_http_global_init();
    client = trv_http_curl_create(pool, &stopping, 0);
    snprintf(inbox, sizeof(inbox), "http%ld", e2e_now_ms());
    return 0;
}

static void call(const char *method, const char *path, const char *rid,
                 apr_interval_time_t timeout, apr_size_t cap, int keep, trv_http_resp *resp)
{
    trv_http_req req;
    memset(&req, 0, sizeof(req));
    req.method = method;
    req.url = apr_pstrcat(pool, e2e_sandbox_url(), path, NULL);
    req.request_id = rid;
    req.timeout = timeout;
    req.max_response = cap;
    req.keep_truncated = keep;
    req.body = strcmp(method, "POST") == 0 ? "{\"k\":1}" : NULL;
    req.body_len = req.body ? strlen(req.body) : 0;
    trv_http_perform(client, pool, &req, resp);
}

static void request_id_goes_upstream(void **state)
{
    trv_http_resp resp;
    const char *path = apr_pstrcat(pool, "/inbox/", inbox, NULL);
    e2e_resp *r;
    json_t *hdrs;
    (void)state;
    call("POST", path, "req_from-the-caller", 0, 0, 0, &resp);
    assert_int_equal(resp.status, 200);
    r = e2e_call(e2e_sandbox_url(), "GET",
                 apr_pstrcat(pool, "/sandbox/inboxes/", inbox, "/requests", NULL), NULL, NULL);
    hdrs = json_object_get(json_array_get(json_object_get(r->json, "data"), 0), "headers");
    assert_string_equal(json_string_value(json_object_get(hdrs, "x-request-id")),
                        "req_from-the-caller");
    e2e_free(r);
}

static void connections_are_reused(void **state)
{
    trv_http_resp a, b;
    (void)state;
    call("GET", "/health", NULL, 0, 0, 0, &a);
    call("GET", "/health", NULL, 0, 0, 0, &b);
    assert_int_equal(a.status, 200);
    assert_int_equal(b.status, 200);
    assert_int_equal(b.new_connections, 0);
}

static void slow_answers_time_out(void **state)
{
    trv_http_resp resp;
    const char *path = apr_pstrcat(pool, "/inbox/", inbox, NULL);
    const char *hdrs[] = {"Content-Type: application/json", NULL};
    e2e_resp *r = e2e_call(e2e_sandbox_url(), "PUT",
                           apr_pstrcat(pool, "/sandbox/inboxes/", inbox, "/behavior", NULL),
                           hdrs, "{\"status\": 200, \"delay_ms\": 3000, \"times\": 1}");
    long t0;
    (void)state;
    e2e_free(r);
    t0 = e2e_now_ms();
    call("POST", path, NULL, apr_time_from_msec(500), 0, 0, &resp);
    assert_int_equal(resp.status, 0);
    assert_true(resp.timed_out);
    assert_non_null(resp.error);
    assert_true(e2e_now_ms() - t0 < 2500);
}

static void answers_are_capped(void **state)
{
    trv_http_resp resp;
    const char *list = apr_pstrcat(pool, "/sandbox/inboxes/", inbox, "/requests", NULL);
    (void)state;
    /* The inbox list is a few hundred bytes: over a 64-byte cap it fails ... */
    call("GET", list, NULL, 0, 64, 0, &resp);
    assert_int_equal(resp.status, 0);
    assert_true(resp.truncated);
    assert_non_null(strstr(resp.error, "larger than 64 bytes"));
    /* ... or, when asked, keeps the head only. */
    call("GET", list, NULL, 0, 64, 1, &resp);
    assert_int_equal(resp.status, 200);
    assert_true(resp.truncated);
    assert_int_equal(resp.body_len, 64);
}

static void stopping_aborts_transfers(void **state)
{
    trv_http_resp resp;
    const char *path = apr_pstrcat(pool, "/inbox/", inbox, NULL);
    const char *hdrs[] = {"Content-Type: application/json", NULL};
    e2e_resp *r = e2e_call(e2e_sandbox_url(), "PUT",
                           apr_pstrcat(pool, "/sandbox/inboxes/", inbox, "/behavior", NULL),
                           hdrs, "{\"status\": 200, \"delay_ms\": 3000, \"times\": 1}");
    long t0;
    (void)state;
    e2e_free(r);
    apr_atomic_set32(&stopping, 1);
    t0 = e2e_now_ms();
    call("POST", path, NULL, apr_time_from_sec(10), 0, 0, &resp);
    apr_atomic_set32(&stopping, 0);
    assert_true(resp.aborted);
    assert_int_equal(resp.status, 0);
    /* Nothing went out: the caller may take it that nothing happened. */
    assert_false(resp.unanswered);
    assert_true(e2e_now_ms() - t0 < 2500);
}

static void *stop_soon(void *u)
{
    (void)u;
    e2e_sleep_ms(700);
    apr_atomic_set32(&stopping, 1);
    return NULL;
}

/* A graceful restart stops the process while a call waits for its answer:
 * the request was sent and may have acted (an authorization made), so the
 * abort is reported as unanswered, never as "nothing happened". */
static void stopping_after_the_request_went_out_is_unanswered(void **state)
{
    trv_http_resp resp;
    char box[96];
    const char *path, *hdrs[] = {"Content-Type: application/json", NULL};
    pthread_t t;
    e2e_resp *r;
    long t0;
    (void)state;
    snprintf(box, sizeof(box), "%s-sent", inbox);
    path = apr_pstrcat(pool, "/inbox/", box, NULL);
    r = e2e_call(e2e_sandbox_url(), "PUT",
                 apr_pstrcat(pool, "/sandbox/inboxes/", box, "/behavior", NULL), hdrs,
                 "{\"status\": 200, \"delay_ms\": 4000, \"times\": 1}");
    e2e_free(r);
    assert_int_equal(pthread_create(&t, NULL, stop_soon, NULL), 0);
    t0 = e2e_now_ms();
    call("POST", path, NULL, apr_time_from_sec(20), 0, 0, &resp);
    pthread_join(t, NULL);
    apr_atomic_set32(&stopping, 0);
    assert_true(resp.aborted);
    assert_int_equal(resp.status, 0);
    assert_true(resp.unanswered);
    assert_true(e2e_now_ms() - t0 < 4000);
    /* It did reach the receiver. */
    r = e2e_call(e2e_sandbox_url(), "GET",
                 apr_pstrcat(pool, "/sandbox/inboxes/", box, "/requests", NULL), NULL, NULL);
    assert_int_equal(json_array_size(json_object_get(r->json, "data")), 1);
    e2e_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(request_id_goes_upstream, setup),
        cmocka_unit_test(connections_are_reused),
        cmocka_unit_test(slow_answers_time_out),
        cmocka_unit_test(answers_are_capped),
        cmocka_unit_test(stopping_aborts_transfers),
        cmocka_unit_test(stopping_after_the_request_went_out_is_unanswered),
    };
    return E2E_RUN("http client", tests);
}
