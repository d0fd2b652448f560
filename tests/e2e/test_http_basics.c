/* What every endpoint shares: authentication, request ids, and the JSON
 * error envelope for every failure status, never an HTML page. */
#include "e2e.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *key;
static char *org;

static int setup(void **state)
{
    (void)state;
    key = e2e_new_org_key("alice", &org);
    return 0;
}

static void missing_key_is_401(void **state)
{
    e2e_resp *r = e2e_get(NULL, "/v1/flight/bookings");
    (void)state;
    e2e_assert_error(r, 401, "unauthorized");
    e2e_free(r);
}

static void unknown_and_malformed_keys_are_401(void **state)
{
    e2e_resp *r = e2e_get("tk_test_ThisKeyWasNeverIssuedByAnyoneAtAll0000000", "/v1/flight/bookings");
    (void)state;
    e2e_assert_error(r, 401, "unauthorized");
    e2e_free(r);
    r = e2e_get("not-a-key", "/v1/flight/bookings");
    e2e_assert_error(r, 401, "unauthorized");
    e2e_free(r);
    /* Unknown routes are not revealed to anonymous callers either. */
    r = e2e_get(NULL, "/v1/no/such/thing");
    e2e_assert_error(r, 401, "unauthorized");
    e2e_free(r);
}

/* The key as a bearer token (RFC 6750), as Stripe-style clients send it:
 * the same principal as x-api-key; a bad or revoked bearer key is 401, and
 * another scheme carries no key. */
static void bearer_key_is_accepted(void **state)
{
    char bearer[512], lower[512], *k = e2e_new_key(org, "carol"), *key_id;
    const char *params[1] = {org};
    const char *h[2] = {bearer, NULL}, *hl[2] = {lower, NULL};
    const char *basic[2] = {"Authorization: Basic dXNlcjpwYXNz", NULL};
    const char *wrong[2] = {"Authorization: Bearer tk_test_ThisKeyWasNeverIssuedByAnyone0000", NULL};
    e2e_resp *r;
    (void)state;
    snprintf(bearer, sizeof(bearer), "Authorization: Bearer %s", k);
    snprintf(lower, sizeof(lower), "authorization: bearer   %s", k);
    r = e2e_call(e2e_url(), "GET", "/v1/flight/bookings", h, NULL);
    assert_int_equal(r->status, 200);
    e2e_free(r);
    r = e2e_call(e2e_url(), "GET", "/v1/flight/bookings", hl, NULL);
    assert_int_equal(r->status, 200);
    e2e_free(r);
    r = e2e_call(e2e_url(), "GET", "/v1/flight/bookings", basic, NULL);
    e2e_assert_error(r, 401, "unauthorized");
    assert_non_null(strstr(json_string_value(json_object_get(json_object_get(r->json, "error"),
                                                             "message")),
                           "Authorization: Bearer"));
    e2e_free(r);
    r = e2e_call(e2e_url(), "GET", "/v1/flight/bookings", wrong, NULL);
    e2e_assert_error(r, 401, "unauthorized");
    e2e_free(r);
    key_id = e2e_sql_text("SELECT k.id FROM api_keys k JOIN users u ON u.id = k.user_id "
                          "WHERE k.org_id = $1 AND u.name = 'carol'", 1, params);
    assert_non_null(key_id);
    free(e2e_travelctl("key revoke %s", key_id));
    /* Each httpd child that has the key cached forgets it when the
     * database's change notification reaches it, milliseconds after the
     * commit (bounded here for a loaded machine), then refuses it for good. */
    {
        long until = e2e_now_ms() + 5000;
        int i;
        for (;;) {
            r = e2e_call(e2e_url(), "GET", "/v1/flight/bookings", h, NULL);
            if (r->status == 401 || e2e_now_ms() > until) {
                break;
            }
            e2e_free(r);
            e2e_sleep_ms(10);
        }
        e2e_assert_error(r, 401, "unauthorized");
        e2e_free(r);
        for (i = 0; i < 10; i++) {
            r = e2e_call(e2e_url(), "GET", "/v1/flight/bookings", h, NULL);
            e2e_assert_error(r, 401, "unauthorized");
            e2e_free(r);
        }
    }
    free(key_id);
    free(k);
}

static void revoked_key_is_401(void **state)
{
    char *k = e2e_new_key(org, "bob");
    const char *params[1];
    char *key_id, *out;
    e2e_resp *r;
    (void)state;
    r = e2e_get(k, "/v1/flight/bookings");
    assert_int_equal(r->status, 200);
    e2e_free(r);
    params[0] = org;
    key_id = e2e_sql_text("SELECT k.id FROM api_keys k JOIN users u ON u.id = k.user_id "
                          "WHERE k.org_id = $1 AND u.name = 'bob'", 1, params);
    assert_non_null(key_id);
    out = e2e_travelctl("key revoke %s", key_id);
    assert_non_null(out);
    r = e2e_get(k, "/v1/flight/bookings");
    e2e_assert_error(r, 401, "unauthorized");
    e2e_free(r);
    free(out);
    free(key_id);
    free(k);
}

static void keys_are_stored_hashed(void **state)
{
    const char *params[1] = {key};
    (void)state;
    /* Neither the key nor its secret part is anywhere in the table. */
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM api_keys WHERE key_hash = $1 "
                                  "OR key_prefix = $1", 1, params), 0);
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM api_keys WHERE "
                                  "key_hash = encode(sha256(convert_to($1, 'UTF8')), 'hex')",
                                  1, params), 1);
}

static void request_id_is_echoed(void **state)
{
    char kh[256];
    const char *hdrs[] = {kh, "x-request-id: client-chosen-id.42", NULL};
    e2e_resp *r;
    char *rid;
    (void)state;
    snprintf(kh, sizeof(kh), "x-api-key: %s", key);
    r = e2e_call(e2e_url(), "GET", "/v1/flight/bookings", hdrs, NULL);
    assert_int_equal(r->status, 200);
    rid = e2e_header(r, "x-request-id");
    assert_string_equal(rid, "client-chosen-id.42");
    free(rid);
    e2e_free(r);
    /* Errors carry it in the body too. */
    r = e2e_call(e2e_url(), "GET", "/v1/nowhere", hdrs, NULL);
    e2e_assert_error(r, 404, "not_found");
    assert_string_equal(json_string_value(json_object_get(json_object_get(r->json, "error"),
                                                          "request_id")),
                        "client-chosen-id.42");
    e2e_free(r);
}

static void request_id_is_generated(void **state)
{
    char kh[256], longid[260];
    const char *hdrs[] = {kh, longid, NULL};
    e2e_resp *r;
    char *a, *b;
    (void)state;
    r = e2e_get(key, "/v1/flight/bookings");
    a = e2e_header(r, "x-request-id");
    assert_non_null(a);
    assert_int_equal(strncmp(a, "req_", 4), 0);
    assert_int_equal(strlen(a), 4 + 36);
    e2e_free(r);
    r = e2e_get(key, "/v1/flight/bookings");
    b = e2e_header(r, "x-request-id");
    assert_string_not_equal(a, b);
    e2e_free(r);
    /* Over 200 characters is not accepted: a fresh one is generated. */
    snprintf(kh, sizeof(kh), "x-api-key: %s", key);
    strcpy(longid, "x-request-id: ");
    memset(longid + 14, 'x', 201);
    longid[215] = '\0';
    r = e2e_call(e2e_url(), "GET", "/v1/flight/bookings", hdrs, NULL);
    free(a);
    a = e2e_header(r, "x-request-id");
    assert_int_equal(strncmp(a, "req_", 4), 0);
    e2e_free(r);
    free(a);
    free(b);
}

static void unknown_route_is_404(void **state)
{
    e2e_resp *r = e2e_get(key, "/v1/flight/nothing-here");
    (void)state;
    e2e_assert_error(r, 404, "not_found");
    e2e_free(r);
    r = e2e_get(key, "/v1/flight/bookings/");
    e2e_assert_error(r, 404, "not_found");
    e2e_free(r);
}

static void wrong_method_is_405_with_allow(void **state)
{
    e2e_resp *r;
    char kh[256], *allow;
    const char *hdrs[] = {kh, NULL};
    (void)state;
    snprintf(kh, sizeof(kh), "x-api-key: %s", key);
    r = e2e_call(e2e_url(), "DELETE", "/v1/flight/bookings", hdrs, NULL);
    e2e_assert_error(r, 405, "method_not_allowed");
    allow = e2e_header(r, "allow");
    assert_non_null(allow);
    assert_non_null(strstr(allow, "GET"));
    free(allow);
    e2e_free(r);
}

static void malformed_json_is_400(void **state)
{
    e2e_resp *r = e2e_post(key, "/v1/flight/bookings", "{\"a\": ");
    (void)state;
    e2e_assert_error(r, 400, "invalid_json");
    e2e_free(r);
}

static void non_object_body_is_422(void **state)
{
    e2e_resp *r = e2e_post(key, "/v1/flight/bookings", "[1,2]");
    (void)state;
    e2e_assert_error(r, 422, "validation_failed");
    assert_string_equal(json_string_value(json_object_get(json_array_get(
        json_object_get(json_object_get(r->json, "error"), "details"), 0), "field")), "body");
    e2e_free(r);
}

static void oversized_body_is_413(void **state)
{
    size_t n = 1024 * 1024 + 10;
    char *big = malloc(n + 1);
    char kh[256];
    const char *chunked[] = {kh, "Content-Type: application/json",
                             "Transfer-Encoding: chunked", NULL};
    e2e_resp *r;
    (void)state;
    memset(big, ' ', n);
    big[0] = '{';
    big[n - 1] = '}';
    big[n] = '\0';
    r = e2e_post(key, "/v1/flight/bookings", big);
    e2e_assert_error(r, 413, "payload_too_large");
    e2e_free(r);
    /* Without a Content-Length the cap still holds. */
    snprintf(kh, sizeof(kh), "x-api-key: %s", key);
    r = e2e_call(e2e_url(), "POST", "/v1/flight/bookings", chunked, big);
    e2e_assert_error(r, 413, "payload_too_large");
    e2e_free(r);
    free(big);
}

static void wrong_content_type_is_415(void **state)
{
    char kh[256];
    const char *hdrs[] = {kh, "Content-Type: text/plain", NULL};
    e2e_resp *r;
    (void)state;
    snprintf(kh, sizeof(kh), "x-api-key: %s", key);
    r = e2e_call(e2e_url(), "POST", "/v1/flight/bookings", hdrs, "{}");
    e2e_assert_error(r, 415, "unsupported_media_type");
    e2e_free(r);
}

static void bad_path_parameter_is_422(void **state)
{
    e2e_resp *r = e2e_get(key, "/v1/flight/bookings/not_a_booking");
    json_t *d;
    (void)state;
    e2e_assert_error(r, 422, "validation_failed");
    d = json_array_get(json_object_get(json_object_get(r->json, "error"), "details"), 0);
    assert_string_equal(json_string_value(json_object_get(d, "field")), "id");
    assert_non_null(strstr(json_string_value(json_object_get(d, "reason")), "^bkg_"));
    e2e_free(r);
}

static void database_down_is_503(void **state)
{
    char kh[256];
    const char *hdrs[] = {kh, NULL};
    e2e_resp *r;
    (void)state;
    snprintf(kh, sizeof(kh), "x-api-key: %s", key);
    r = e2e_call(e2e_env("TRAVEL_TEST_URL_NODB"), "GET", "/v1/flight/bookings", hdrs, NULL);
    e2e_assert_error(r, 503, "unavailable");
    e2e_free(r);
}

static void no_html_error_pages(void **state)
{
    char kh[256];
    const char *hdrs[] = {kh, NULL};
    e2e_resp *r;
    (void)state;
    snprintf(kh, sizeof(kh), "x-api-key: %s", key);
    /* httpd itself refuses these before mod_travel's handler runs. */
    r = e2e_call(e2e_url(), "TRACE", "/v1/flight/bookings", hdrs, NULL);
    e2e_assert_error(r, 405, "method_not_allowed");
    e2e_free(r);
    r = e2e_call(e2e_url(), "GET", "/v1/flight/bookings/a%2Fb", hdrs, NULL);
    e2e_assert_error(r, 404, "not_found");
    e2e_free(r);
}

static void head_answers_like_get(void **state)
{
    char kh[256];
    const char *hdrs[] = {kh, NULL};
    e2e_resp *r;
    (void)state;
    snprintf(kh, sizeof(kh), "x-api-key: %s", key);
    r = e2e_call(e2e_url(), "HEAD", "/v1/flight/bookings", hdrs, NULL);
    assert_int_equal(r->status, 200);
    assert_int_equal(r->body_len, 0);
    e2e_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(missing_key_is_401, setup),
        cmocka_unit_test(unknown_and_malformed_keys_are_401),
        cmocka_unit_test(revoked_key_is_401),
        cmocka_unit_test(bearer_key_is_accepted),
        cmocka_unit_test(keys_are_stored_hashed),
        cmocka_unit_test(request_id_is_echoed),
        cmocka_unit_test(request_id_is_generated),
        cmocka_unit_test(unknown_route_is_404),
        cmocka_unit_test(wrong_method_is_405_with_allow),
        cmocka_unit_test(malformed_json_is_400),
        cmocka_unit_test(non_object_body_is_422),
        cmocka_unit_test(oversized_body_is_413),
        cmocka_unit_test(wrong_content_type_is_415),
        cmocka_unit_test(bad_path_parameter_is_422),
        cmocka_unit_test(database_down_is_503),
        cmocka_unit_test(no_html_error_pages),
        cmocka_unit_test(head_answers_like_get),
    };
    return E2E_RUN("http basics", tests);
}
