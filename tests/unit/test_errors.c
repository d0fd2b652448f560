/* The response envelopes clients parse: errors are
 * {"error": {code, message, request_id[, details]}} carrying the request's
 * id, validation failures are 422 with every collected {field, reason},
 * successes are {data[, meta]}, and each status has its documented code. */
#include "unit.h"

#include <apr_strings.h>
#include <stdio.h>
#include <string.h>

#include "core/api.h"
#include "core/errors.h"
#include "core/json.h"

static trv_req *make_req(apr_pool_t *p, const char *request_id)
{
    trv_req *req = apr_pcalloc(p, sizeof(*req));
    req->pool = p;
    req->method = "GET";
    req->path = "/v1/flight/bookings";
    req->request_id = request_id;
    return req;
}

/* The document the response would send, as compact text. */
static const char *doc_text(apr_pool_t *p, const trv_resp *resp)
{
    return trv_json_dump(p, trv_json_bind(p, trv_resp_document(resp)));
}

static void test_error_doc_without_details(void **state)
{
    apr_pool_t *p = *state;
    json_t *doc = trv_json_bind(p, trv_error_doc("not_found", "No such booking",
                                                 "req-1", NULL));
    assert_string_equal(trv_json_dump(p, doc),
        "{\"error\":{\"code\":\"not_found\",\"message\":\"No such booking\","
        "\"request_id\":\"req-1\"}}");
    assert_int_equal(json_object_size(doc), 1);
    assert_null(json_object_get(json_object_get(doc, "error"), "details"));
}

static void test_error_doc_with_details(void **state)
{
    apr_pool_t *p = *state;
    json_t *details = trv_json_bind(p, json_pack("[{s:s,s:s}]", "field", "limit",
                                                 "reason", "must be an integer"));
    json_t *doc = trv_json_bind(p, trv_error_doc("validation_failed", "limit: bad",
                                                 "req-2", details));
    assert_string_equal(trv_json_dump(p, doc),
        "{\"error\":{\"code\":\"validation_failed\",\"message\":\"limit: bad\","
        "\"request_id\":\"req-2\",\"details\":[{\"field\":\"limit\","
        "\"reason\":\"must be an integer\"}]}}");
}

static void test_error_doc_without_request_id(void **state)
{
    apr_pool_t *p = *state;
    json_t *doc = trv_json_bind(p, trv_error_doc("internal_error", "x", NULL, NULL));
    /* Always present, so clients can read it unconditionally. */
    assert_string_equal(json_string_value(json_object_get(
                            json_object_get(doc, "error"), "request_id")), "");
}

static void test_errs_collect(void **state)
{
    apr_pool_t *p = *state;
    trv_errs *e = trv_errs_new(p);
    assert_false(trv_errs_any(e));
    assert_false(trv_errs_any(NULL));
    trv_errs_add(e, "limit", "must be from %d to %d", 1, 100);
    assert_true(trv_errs_any(e));
    trv_errs_add(e, "contact.email", "is required");
    assert_string_equal(trv_json_dump(p, e->details),
        "[{\"field\":\"limit\",\"reason\":\"must be from 1 to 100\"},"
        "{\"field\":\"contact.email\",\"reason\":\"is required\"}]");
}

static void test_fail(void **state)
{
    apr_pool_t *p = *state;
    trv_req *req = make_req(p, "req-abc");
    trv_resp resp = {0};
    trv_fail(req, &resp, 404, "not_found", "No booking %s", "bkg_x");
    assert_int_equal(resp.status, 404);
    assert_string_equal(resp.error_code, "not_found");
    assert_null(resp.data);
    assert_string_equal(doc_text(p, &resp),
        "{\"error\":{\"code\":\"not_found\",\"message\":\"No booking bkg_x\","
        "\"request_id\":\"req-abc\"}}");
}

static void test_fail_replaces_earlier_success(void **state)
{
    apr_pool_t *p = *state;
    trv_req *req = make_req(p, "req-abc");
    trv_resp resp = {0};
    trv_ok(req, &resp, 200, json_pack("{s:i}", "n", 1), json_object());
    trv_fail(req, &resp, 503, "unavailable", "down");
    assert_int_equal(resp.status, 503);
    assert_null(resp.data);
    assert_null(resp.meta);
    assert_non_null(json_object_get(trv_json_bind(p, trv_resp_document(&resp)),
                                    "error"));
}

static void test_fail_invalid(void **state)
{
    apr_pool_t *p = *state;
    trv_req *req = make_req(p, "req-422");
    trv_resp resp = {0};
    trv_errs *e = trv_errs_new(p);
    json_t *doc, *err, *details;

    trv_errs_add(e, "limit", "must be an integer from 1 to 100");
    trv_errs_add(e, "status", "must be one of confirmed, cancelled");
    trv_fail_invalid(req, &resp, e);

    assert_int_equal(resp.status, 422);
    assert_string_equal(resp.error_code, "validation_failed");
    doc = trv_json_bind(p, trv_resp_document(&resp));
    err = json_object_get(doc, "error");
    assert_string_equal(json_string_value(json_object_get(err, "code")),
                        "validation_failed");
    assert_string_equal(json_string_value(json_object_get(err, "request_id")),
                        "req-422");
    /* The message names the first problem and how many more there are. */
    assert_string_equal(json_string_value(json_object_get(err, "message")),
                        "limit: must be an integer from 1 to 100 (and 1 more)");
    details = json_object_get(err, "details");
    assert_int_equal(json_array_size(details), 2);
    assert_string_equal(trv_json_dump(p, details),
        "[{\"field\":\"limit\",\"reason\":\"must be an integer from 1 to 100\"},"
        "{\"field\":\"status\",\"reason\":\"must be one of confirmed, cancelled\"}]");
}

static void test_fail_invalid_single(void **state)
{
    apr_pool_t *p = *state;
    trv_req *req = make_req(p, "req-1");
    trv_resp resp = {0};
    trv_errs *e = trv_errs_new(p);
    json_t *err;
    trv_errs_add(e, "id", "must match ^bkg_[a-zA-Z0-9-]+$");
    trv_fail_invalid(req, &resp, e);
    err = json_object_get(trv_json_bind(p, trv_resp_document(&resp)), "error");
    assert_string_equal(json_string_value(json_object_get(err, "message")),
                        "id: must match ^bkg_[a-zA-Z0-9-]+$");
}

static int logged_level;
static char logged[512];

static void capture_log(void *baton, int level, const char *request_id,
                        const char *msg)
{
    (void)baton;
    logged_level = level;
    snprintf(logged, sizeof(logged), "[%s] %s", request_id, msg);
}

static void test_fail_db(void **state)
{
    apr_pool_t *p = *state;
    trv_req *req = make_req(p, "req-db");
    trv_resp resp = {0};
    trv_dbc c = {0};
    req->log.emit = capture_log;

    /* Unreachable database: 503, the cause only in the log. */
    c.unavailable = 1;
    c.error = "connection refused";
    logged[0] = '\0';
    trv_fail_db(req, &resp, &c, 42, "loading booking");
    assert_int_equal(resp.status, 503);
    assert_string_equal(resp.error_code, "unavailable");
    assert_null(strstr(doc_text(p, &resp), "connection refused"));
    assert_int_equal(logged_level, TRV_LOG_ERR);
    assert_string_equal(logged, "[req-db] TRV042: loading booking: connection refused");

    /* Any other failure: 500. */
    memset(&resp, 0, sizeof(resp));
    c.unavailable = 0;
    c.error = "syntax error";
    trv_fail_db(req, &resp, &c, 43, "saving");
    assert_int_equal(resp.status, 500);
    assert_string_equal(resp.error_code, "internal_error");
    assert_null(strstr(doc_text(p, &resp), "syntax error"));

    /* No connection at all counts as unavailable. */
    memset(&resp, 0, sizeof(resp));
    trv_fail_db(req, &resp, NULL, 44, "opening");
    assert_int_equal(resp.status, 503);
}

static void test_ok_with_meta(void **state)
{
    apr_pool_t *p = *state;
    trv_req *req = make_req(p, "req-ok");
    trv_resp resp = {0};
    trv_ok(req, &resp, 200, json_pack("[i,i]", 1, 2),
           json_pack("{s:b}", "has_more", 0));
    assert_int_equal(resp.status, 200);
    assert_null(resp.error);
    assert_string_equal(doc_text(p, &resp),
                        "{\"data\":[1,2],\"meta\":{\"has_more\":false}}");
}

static void test_ok_without_meta(void **state)
{
    apr_pool_t *p = *state;
    trv_req *req = make_req(p, "req-ok");
    trv_resp resp = {0};
    trv_ok(req, &resp, 201, json_pack("{s:s}", "id", "bkg_1"), NULL);
    assert_int_equal(resp.status, 201);
    assert_string_equal(doc_text(p, &resp), "{\"data\":{\"id\":\"bkg_1\"}}");
}

static void test_ok_null_data(void **state)
{
    apr_pool_t *p = *state;
    trv_req *req = make_req(p, "req-ok");
    trv_resp resp = {0};
    trv_ok(req, &resp, 200, NULL, NULL);
    assert_null(resp.data);
    assert_string_equal(doc_text(p, &resp), "{\"data\":null}");
}

/* A page of stored texts goes out as the same bytes as the joined array
 * would through trv_ok_text, with and without meta and when empty. */
static void test_ok_items_same_bytes_as_text(void **state)
{
    apr_pool_t *p = *state;
    trv_req *req = make_req(p, "req-ok");
    apr_array_header_t *items = apr_array_make(p, 3, sizeof(const char *));
    const char *const texts[3] = {"{\"id\":\"a\"}", "{\"id\":\"b\",\"n\":[1,2]}", "{}"};
    const char *joined[4] = {"[]", "[{\"id\":\"a\"}]",
                             "[{\"id\":\"a\"},{\"id\":\"b\",\"n\":[1,2]}]",
                             "[{\"id\":\"a\"},{\"id\":\"b\",\"n\":[1,2]},{}]"};
    int n, with_meta;
    for (n = 0; n <= 3; n++) {
        for (with_meta = 0; with_meta < 2; with_meta++) {
            trv_resp a = {0}, b = {0};
            json_t *meta = with_meta ? json_pack("{s:{s:i}}", "pagination", "total", n) : NULL;
            json_t *meta2 = meta ? json_deep_copy(meta) : NULL;
            items->nelts = 0;
            if (n > 0) {
                int i;
                for (i = 0; i < n; i++) {
                    APR_ARRAY_PUSH(items, const char *) = texts[i];
                }
            }
            trv_ok_items(req, &a, 200, items, meta);
            trv_ok_text(req, &b, 200, joined[n], meta2);
            assert_int_equal(a.status, 200);
            assert_non_null(a.raw);
            assert_int_equal(a.raw_len, strlen(a.raw));
            assert_string_equal(a.raw_type, "application/json");
            assert_string_equal(a.raw, trv_resp_body(p, &b));
        }
    }
}

static void test_status_codes(void **state)
{
    (void)state;
    assert_string_equal(trv_status_code(400), "invalid_json");
    assert_string_equal(trv_status_code(401), "unauthorized");
    assert_string_equal(trv_status_code(404), "not_found");
    assert_string_equal(trv_status_code(405), "method_not_allowed");
    assert_string_equal(trv_status_code(409), "conflict");
    assert_string_equal(trv_status_code(413), "payload_too_large");
    assert_string_equal(trv_status_code(415), "unsupported_media_type");
    assert_string_equal(trv_status_code(422), "validation_failed");
    assert_string_equal(trv_status_code(502), "supplier_error");
    assert_string_equal(trv_status_code(503), "unavailable");
    assert_string_equal(trv_status_code(504), "supplier_timeout");
    /* Anything else still gets a code of the right class. */
    assert_string_equal(trv_status_code(500), "internal_error");
    assert_string_equal(trv_status_code(507), "internal_error");
    assert_string_equal(trv_status_code(418), "bad_request");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_error_doc_without_details, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(test_error_doc_with_details, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(test_error_doc_without_request_id, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(test_errs_collect, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(test_fail, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(test_fail_replaces_earlier_success, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(test_fail_invalid, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(test_fail_invalid_single, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(test_fail_db, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(test_ok_with_meta, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(test_ok_without_meta, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(test_ok_null_data, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(test_ok_items_same_bytes_as_text, pool_setup, pool_teardown),
        cmocka_unit_test(test_status_codes),
    };
    return UNIT_RUN(tests);
}
