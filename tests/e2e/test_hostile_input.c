/* Hostile input under /v1: bytes that are not UTF-8, pairs that cannot be
 * decoded, requests httpd refuses before mod_travel runs, long paths, huge
 * bodies of tiny members. Every answer is the JSON error envelope with a
 * request id, nothing reaches PostgreSQL, nothing is logged as an error
 * (the runner fails on unexpected [error] lines). */
#include "e2e.h"
#include "flight_e2e.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

static char *key;

static int setup(void **state)
{
    (void)state;
    key = e2e_new_org_key("hostile", NULL);
    return 0;
}

/* The details of a 422, as "field=reason;..." for messages. */
static int has_detail(const e2e_resp *r, const char *field, const char *reason_part)
{
    json_t *d = json_object_get(json_object_get(r->json, "error"), "details"), *x;
    size_t i;
    json_array_foreach(d, i, x) {
        const char *f = json_string_value(json_object_get(x, "field"));
        const char *why = json_string_value(json_object_get(x, "reason"));
        if (f && why && strcmp(f, field) == 0 && strstr(why, reason_part)) {
            return 1;
        }
    }
    return 0;
}

static void expect_422(const char *path, const char *field, const char *reason_part)
{
    e2e_resp *r = e2e_get(key, path);
    e2e_assert_error(r, 422, "validation_failed");
    if (!has_detail(r, field, reason_part)) {
        fail_msg("%s: no detail %s (%s) in %s", path, field, reason_part, r->body);
    }
    e2e_free(r);
}

static void invalid_utf8_in_a_query_value_is_422(void **state)
{
    (void)state;
    /* These reached PostgreSQL, which refused the bytes: 500 before. */
    expect_422("/v1/flight/airlines?q=%ff", "q", "UTF-8");
    expect_422("/v1/flight/airlines?alliance=%ff", "alliance", "UTF-8");
    expect_422("/v1/flight/bookings?supplier_reference=%ff", "supplier_reference", "UTF-8");
    expect_422("/v1/flight/bookings?supplier_reference=%c3%28", "supplier_reference",
               "UTF-8");
}

static void undecodable_pairs_are_422_not_dropped(void **state)
{
    e2e_resp *r;
    (void)state;
    /* Each answered 200 before: the bad pair was dropped. */
    expect_422("/v1/flight/bookings?limit=1&limit=5%00", "limit", "control");
    expect_422("/v1/flight/bookings?bogus=%", "bogus", "percent-encoding");
    expect_422("/v1/flight/bookings?limit=%2", "limit", "percent-encoding");
    expect_422("/v1/flight/bookings?%ff=1", "query", "UTF-8");
    /* Valid UTF-8 and empty pieces are fine. */
    r = e2e_get(key, "/v1/flight/airlines?q=Z%C3%BCrich&&limit=5&");
    assert_int_equal(r->status, 200);
    e2e_free(r);
}

static void invalid_utf8_in_the_path_is_the_envelope(void **state)
{
    e2e_resp *r;
    (void)state;
    /* Answered 404 {"data":null} before: the message quoting the path was
     * not UTF-8 and the error document was lost. */
    expect_422("/v1/%ff", "path", "UTF-8");
    expect_422("/v1/flight/bookings/bkg_%ff", "path", "UTF-8");
    r = e2e_get(key, "/v1/%ff");
    assert_non_null(json_object_get(json_object_get(r->json, "error"), "request_id"));
    assert_null(json_object_get(r->json, "data"));
    e2e_free(r);
}

static void long_paths_are_not_files(void **state)
{
    size_t n = 5000;
    char *path = malloc(n + 64), *seg = malloc(n + 1);
    e2e_resp *r;
    (void)state;
    memset(seg, 'a', n);
    seg[300] = '\0';
    /* A 300-character segment is an offer reference like any other. */
    snprintf(path, n + 64, "/v1/flight/offers/%s/bags", seg);
    r = e2e_get(key, path);
    e2e_assert_error(r, 404, "not_found");
    e2e_free(r);
    /* A path longer than the file system takes was 403 "File name too
     * long" (AH00127): the API path was mapped onto DocumentRoot. */
    seg[n] = '\0';
    memset(seg, 'a', n);
    snprintf(path, n + 64, "/v1/flight/offers/%s/bags", seg);
    r = e2e_get(key, path);
    e2e_assert_error(r, 422, "validation_failed");
    assert_true(has_detail(r, "offer_reference", "512"));
    e2e_free(r);
    free(seg);
    free(path);
}

/* A raw exchange over TCP, for requests curl will not send. Returns the
 * whole answer (headers and body, malloc'd). */
static char *raw(const char *request, size_t len)
{
    const char *url = e2e_url(), *colon = strrchr(url, ':');
    struct sockaddr_in sa;
    struct timeval tv = {20, 0};
    char *out = calloc(1, 1);
    size_t n = 0, off = 0;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_port = htons((unsigned short)atoi(colon + 1));
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
    while (off < len) {
        ssize_t w = send(fd, request + off, len - off, MSG_NOSIGNAL);
        if (w <= 0) {
            break; /* httpd may answer and close before reading it all */
        }
        off += (size_t)w;
    }
    shutdown(fd, SHUT_WR);
    for (;;) {
        char buf[4096];
        ssize_t k = recv(fd, buf, sizeof(buf), 0);
        if (k <= 0) {
            break;
        }
        out = realloc(out, n + (size_t)k + 1);
        memcpy(out + n, buf, (size_t)k);
        n += (size_t)k;
        out[n] = '\0';
    }
    close(fd);
    return out;
}

static void expect_raw_envelope(const char *what, const char *request, size_t len,
                                int status)
{
    char *ans = raw(request, len), *body, line[64];
    json_t *doc, *err;
    snprintf(line, sizeof(line), "HTTP/1.1 %d ", status);
    if (strncmp(ans, line, strlen(line)) != 0) {
        fail_msg("%s: expected %d, got: %.200s", what, status, ans);
    }
    if (!strcasestr(ans, "\r\nContent-Type: application/json")) {
        fail_msg("%s: not JSON: %.600s", what, ans);
    }
    body = strstr(ans, "\r\n\r\n");
    assert_non_null(body);
    doc = json_loads(body + 4, 0, NULL);
    err = json_object_get(doc, "error");
    if (!json_is_string(json_object_get(err, "code"))
        || strncmp(json_string_value(json_object_get(err, "request_id")), "req_", 4) != 0) {
        fail_msg("%s: not the error envelope: %s", what, body + 4);
    }
    json_decref(doc);
    free(ans);
}

static void refused_before_the_module_runs_is_json(void **state)
{
    size_t big = 9000, i;
    char *req = malloc(big * 2 + 4096), *p;
    (void)state;
#define RAW(what, s, st) expect_raw_envelope(what, s, strlen(s), st)
    RAW("no Host", "GET /v1/flight/bookings HTTP/1.1\r\n\r\n", 400);
    RAW("Expect: bogus", "GET /v1/flight/bookings HTTP/1.1\r\nHost: x\r\n"
        "Expect: bogus\r\nConnection: close\r\n\r\n", 417);
    RAW("Content-Length: -1", "POST /v1/flight/bookings HTTP/1.1\r\nHost: x\r\n"
        "Content-Length: -1\r\n\r\n", 400);
    RAW("control byte in a header", "GET /v1/flight/bookings HTTP/1.1\r\nHost: x\r\n"
        "X-C: a\001b\r\n\r\n", 400);
    /* A request line over LimitRequestLine (8190). */
    p = req + sprintf(req, "GET /v1/");
    memset(p, 'a', big);
    strcpy(p + big, " HTTP/1.1\r\nHost: x\r\n\r\n");
    RAW("URL over 8 KB", req, 414);
    /* A header over LimitRequestFieldSize (8190). */
    p = req + sprintf(req, "GET /v1/flight/bookings HTTP/1.1\r\nHost: x\r\nX-Big: ");
    memset(p, 'a', big);
    strcpy(p + big, "\r\n\r\n");
    RAW("header over 8 KB", req, 400);
    /* More than LimitRequestFields (100) headers. */
    p = req + sprintf(req, "GET /v1/flight/bookings HTTP/1.1\r\nHost: x\r\n");
    for (i = 0; i < 105; i++) {
        p += sprintf(p, "X-H%zu: 1\r\n", i);
    }
    strcpy(p, "\r\n");
    RAW("over 100 headers", req, 400);
#undef RAW
    free(req);
}

static void server_header_and_nothing_else_served(void **state)
{
    e2e_resp *r;
    char *server;
    (void)state;
    r = e2e_get(key, "/v1/flight/bookings");
    server = e2e_header(r, "server");
    /* ServerTokens Prod: no version, no modules. */
    assert_non_null(server);
    assert_string_equal(server, "Apache");
    free(server);
    e2e_free(r);
    /* The API port is not a web server for /var/www/html. */
    r = e2e_call(e2e_url(), "GET", "/index.html", NULL, NULL);
    assert_int_equal(r->status, 404);
    e2e_free(r);
}

static void null_is_not_an_integer(void **state)
{
    char body[512];
    e2e_resp *r;
    (void)state;
    snprintf(body, sizeof(body), "{\"journeys\":[{\"origin\":\"LHR\",\"destination\":\"JFK\","
             "\"date\":\"%s\"}],\"passengers\":{\"adults\":1},\"limit\":null}", fe_date(30));
    r = e2e_post(key, "/v1/flight/offers", body);
    e2e_assert_error(r, 422, "validation_failed");
    assert_true(has_detail(r, "limit", "integer"));
    e2e_free(r);
    snprintf(body, sizeof(body), "{\"journeys\":[{\"origin\":\"LHR\",\"destination\":\"JFK\","
             "\"date\":\"%s\"}],\"passengers\":{\"adults\":1,\"children\":null}}",
             fe_date(30));
    r = e2e_post(key, "/v1/flight/offers", body);
    e2e_assert_error(r, 422, "validation_failed");
    assert_true(has_detail(r, "passengers.children", "integer"));
    e2e_free(r);
}

static void webhook_ports_beyond_16_bits_are_refused(void **state)
{
    const char *ports[] = {"99999", "65536", "-1"};
    char body[512], kh[512];
    const char *hdrs[] = {kh, "Content-Type: application/json", NULL};
    size_t i;
    long before = e2e_sql_long("SELECT count(*) FROM webhook_subscriptions", 0, NULL);
    (void)state;
    snprintf(kh, sizeof(kh), "x-api-key: %s", key);
    for (i = 0; i < sizeof(ports) / sizeof(ports[0]); i++) {
        e2e_resp *r;
        snprintf(body, sizeof(body), "{\"url\": \"https://hooks.example.com:%s/in\", "
                 "\"event_types\": [\"flight.booking.confirmed\"]}", ports[i]);
        r = e2e_call(e2e_url(), "POST", "/v1/flight/webhook-subscriptions", hdrs, body);
        e2e_assert_error(r, 422, "validation_failed");
        assert_true(has_detail(r, "url", "port"));
        e2e_free(r);
    }
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM webhook_subscriptions", 0, NULL),
                     before);
}

/* {"f0":0,"f1":0,...}: n members, all unknown to the endpoint. */
static char *wide_object(size_t n)
{
    char *s = malloc(n * 16 + 3), *p = s;
    size_t i;
    *p++ = '{';
    for (i = 0; i < n; i++) {
        p += sprintf(p, "%s\"f%zu\":0", i ? "," : "", i);
    }
    strcpy(p, "}");
    return s;
}

static void wide_bodies_are_refused_briefly(void **state)
{
    char *body = wide_object(60000);
    e2e_resp *r;
    (void)state;
    /* 60,000 unknown members: the 422 listed each (3 MB) after Jansson had
     * built them all. Now the body's shape is refused before parsing. */
    r = e2e_post(key, "/v1/flight/offers", body);
    e2e_assert_error(r, 422, "validation_failed");
    assert_true(has_detail(r, "body", "256 members"));
    assert_true(r->body_len < 4096);
    e2e_free(r);
    free(body);
    /* Within the shape limits, the details are capped at 50 and the message
     * counts them all. */
    body = wide_object(200);
    r = e2e_post(key, "/v1/flight/offers", body);
    e2e_assert_error(r, 422, "validation_failed");
    assert_int_equal(json_array_size(json_object_get(json_object_get(r->json, "error"),
                                                     "details")), 50);
    assert_non_null(strstr(json_string_value(json_object_get(json_object_get(r->json,
                                                                             "error"),
                                                             "message")), "more"));
    e2e_free(r);
    free(body);
}

/* API paths are case-sensitive: /V1/... is no endpoint. But a client that
 * typed it gets the API's JSON 404, not httpd's HTML page (with or
 * without a key: nothing about the API is in it). */
static void an_upper_case_v1_is_the_json_404(void **state)
{
    static const char *const paths[] = {"/V1/flight/bookings", "/V1", "/v1/FLIGHT/bookings"};
    size_t i;
    (void)state;
    for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
        e2e_resp *r = e2e_get(key, paths[i]);
        char *ct = e2e_header(r, "content-type");
        e2e_assert_error(r, 404, "not_found");
        assert_non_null(ct);
        assert_non_null(strstr(ct, "application/json"));
        assert_null(strstr(r->body, "<html"));
        assert_non_null(json_object_get(json_object_get(r->json, "error"), "request_id"));
        free(ct);
        e2e_free(r);
        r = e2e_get(NULL, paths[i]);
        assert_true(r->status == 404 || r->status == 401);
        assert_non_null(r->json);
        e2e_free(r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(invalid_utf8_in_a_query_value_is_422, setup),
        cmocka_unit_test(undecodable_pairs_are_422_not_dropped),
        cmocka_unit_test(invalid_utf8_in_the_path_is_the_envelope),
        cmocka_unit_test(long_paths_are_not_files),
        cmocka_unit_test(refused_before_the_module_runs_is_json),
        cmocka_unit_test(server_header_and_nothing_else_served),
        cmocka_unit_test(null_is_not_an_integer),
        cmocka_unit_test(webhook_ports_beyond_16_bits_are_refused),
        cmocka_unit_test(wide_bodies_are_refused_briefly),
        cmocka_unit_test(an_upper_case_v1_is_the_json_404),
    };
    return E2E_RUN("hostile input", tests);
}
