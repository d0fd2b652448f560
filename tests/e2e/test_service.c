/* The endpoints a load balancer and an API client use without a key:
 * GET /v1/health (200 with the database and the workers up; 503
 * unavailable with Retry-After when the database is down), Retry-After on
 * every 503 of the API, and GET /v1/openapi.yaml (the checkout's
 * docs/openapi.yaml, byte for byte). */
#include "e2e.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *nodb(void) { return e2e_env("TRAVEL_TEST_URL_NODB"); }

static void assert_retry_after(const e2e_resp *r)
{
    char *ra = e2e_header(r, "Retry-After");
    if (!ra) {
        fail_msg("a %ld without Retry-After: %s", r->status, r->headers);
    }
    assert_true(atoi(ra) >= 1);
    free(ra);
}

static void health_is_ok_with_database_and_workers(void **state)
{
    const char *bad_key[] = {"x-api-key: tk_test_not-a-key", NULL};
    e2e_resp *r;
    json_t *d, *w;
    (void)state;
    r = e2e_call(e2e_url(), "GET", "/v1/health", NULL, NULL);
    assert_int_equal(r->status, 200);
    d = json_object_get(r->json, "data");
    assert_string_equal(json_string_value(json_object_get(d, "status")), "ok");
    assert_string_equal(json_string_value(json_object_get(d, "database")), "ok");
    w = json_object_get(d, "workers");
    /* Instance a runs background workers; every one of them is up. */
    assert_true(json_integer_value(json_object_get(w, "configured")) >= 1);
    assert_int_equal(json_integer_value(json_object_get(w, "running")),
                     json_integer_value(json_object_get(w, "configured")));
    e2e_free(r);
    /* No key needed, and a wrong one does not matter. */
    r = e2e_call(e2e_url(), "GET", "/v1/health", bad_key, NULL);
    assert_int_equal(r->status, 200);
    e2e_free(r);
}

static void health_is_503_when_the_database_is_down(void **state)
{
    e2e_resp *r;
    (void)state;
    r = e2e_call(nodb(), "GET", "/v1/health", NULL, NULL);
    e2e_assert_error(r, 503, "unavailable");
    assert_retry_after(r);
    e2e_free(r);
}

static void every_503_says_when_to_retry(void **state)
{
    char *key;
    char kh[256];
    const char *hdrs[] = {kh, "Content-Type: application/json", NULL};
    e2e_resp *r;
    (void)state;
    key = e2e_new_org_key("retry", NULL);
    snprintf(kh, sizeof(kh), "x-api-key: %s", key);
    r = e2e_call(nodb(), "GET", "/v1/flight/bookings", hdrs, NULL);
    e2e_assert_error(r, 503, "unavailable");
    assert_retry_after(r);
    e2e_free(r);
    r = e2e_call(nodb(), "POST", "/v1/flight/webhook-subscriptions", hdrs,
                 "{\"url\":\"https://example.com/hook\"}");
    e2e_assert_error(r, 503, "unavailable");
    assert_retry_after(r);
    e2e_free(r);
    free(key);
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc((size_t)n + 1);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static void the_openapi_document_is_served(void **state)
{
    char path[4096], *slash, *doc, *ct;
    size_t len;
    e2e_resp *r;
    (void)state;
    /* TRAVEL_TEST_TRAVELCTL is <checkout>/bin/travelctl. */
    snprintf(path, sizeof(path), "%s", e2e_env("TRAVEL_TEST_TRAVELCTL"));
    if ((slash = strrchr(path, '/'))) {
        *slash = '\0';
    }
    strncat(path, "/../docs/openapi.yaml", sizeof(path) - strlen(path) - 1);
    doc = slurp(path, &len);
    r = e2e_call(e2e_url(), "GET", "/v1/openapi.yaml", NULL, NULL);
    assert_int_equal(r->status, 200);
    ct = e2e_header(r, "Content-Type");
    assert_non_null(ct);
    assert_non_null(strstr(ct, "application/yaml"));
    assert_int_equal(r->body_len, len);
    assert_memory_equal(r->body, doc, len);
    free(ct);
    free(doc);
    e2e_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(health_is_ok_with_database_and_workers),
        cmocka_unit_test(health_is_503_when_the_database_is_down),
        cmocka_unit_test(every_503_says_when_to_retry),
        cmocka_unit_test(the_openapi_document_is_served),
    };
    return E2E_RUN("service endpoints", tests);
}
