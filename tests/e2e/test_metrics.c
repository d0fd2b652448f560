/* The operator's figures on the test stack's API port: /metrics (the
 * Prometheus text of `SetHandler travel-metrics`) and /server-status
 * (mod_status with mod_travel's section). Counts are shared by every child
 * of the httpd: requests spread over fresh connections all count; supplier
 * errors and timeouts made on purpose (sandbox faults) count; a server
 * whose database is down still answers, with travel_database_up 0. */
#include "hotel_e2e.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static e2e_resp *get(const char *base, const char *path)
{
    return e2e_call(base, "GET", path, NULL, NULL);
}

/* The value of the first sample line starting with `series` + " ". */
static double sample(const char *text, const char *series)
{
    size_t n = strlen(series);
    const char *line = text;
    while (line && *line) {
        if (strncmp(line, series, n) == 0 && line[n] == ' ') {
            return atof(line + n + 1);
        }
        line = strchr(line, '\n');
        line = line ? line + 1 : NULL;
    }
    fail_msg("no sample %s in:\n%s", series, text);
    return -1;
}

static char *scrape(const char *base)
{
    e2e_resp *r = get(base, "/metrics");
    char *ct = e2e_header(r, "Content-Type"), *text;
    assert_int_equal(r->status, 200);
    assert_non_null(ct);
    assert_non_null(strstr(ct, "text/plain; version=0.0.4"));
    text = strdup(r->body);
    free(ct);
    e2e_free(r);
    return text;
}

#define ROUTE "route=\"GET /v1/flight/airlines/{iata_code}\""

static void requests_on_every_child_are_counted(void **state)
{
    char *key = e2e_new_org_key("metrics", NULL), *before, *after;
    int i;
    double n0, n1, p50, p99;
    (void)state;
    before = scrape(e2e_url());
    n0 = sample(before, "travel_request_duration_seconds_count{" ROUTE "}");
    /* Each call is a new connection: the children share the serving. */
    for (i = 0; i < 30; i++) {
        e2e_resp *r = e2e_get(key, "/v1/flight/airlines/BA");
        assert_int_equal(r->status, 200);
        e2e_free(r);
    }
    after = scrape(e2e_url());
    n1 = sample(after, "travel_request_duration_seconds_count{" ROUTE "}");
    assert_true(n1 - n0 == 30);
    p50 = sample(after, "travel_request_duration_seconds{" ROUTE ",quantile=\"0.5\"}");
    p99 = sample(after, "travel_request_duration_seconds{" ROUTE ",quantile=\"0.99\"}");
    assert_true(p50 > 0 && p50 <= p99);
    /* The queue and the deliveries, from the database. */
    assert_true(sample(after, "travel_database_up") == 1);
    assert_true(sample(after, "travel_jobs_queued") >= 0);
    assert_true(sample(after, "travel_jobs_oldest_wait_seconds") >= 0);
    assert_true(sample(after, "travel_webhook_deliveries_pending") >= 0);
    assert_true(sample(after, "travel_webhook_deliveries_failed") >= 0);
    free(before);
    free(after);
    free(key);
}

/* A sandbox fault on SUPPLIER_A's offer search for this request id prefix. */
static void fault(const char *prefix, const char *spec)
{
    char body[1024];
    const char *hdrs[] = {"Content-Type: application/json", NULL};
    e2e_resp *r;
    snprintf(body, sizeof(body),
             "{\"api\":\"supplier_a\",\"request_id_prefix\":\"%s\",\"method\":\"POST\",%s,"
             "\"times\":1}", prefix, spec);
    r = e2e_call(e2e_sandbox_url(), "POST", "/sandbox/faults", hdrs, body);
    assert_int_equal(r->status, 201);
    e2e_free(r);
}

static long search(const char *key, const char *rid)
{
    char kh[256], rh[256], body[512];
    const char *hdrs[] = {kh, rh, "Content-Type: application/json", NULL};
    e2e_resp *r;
    long status;
    snprintf(kh, sizeof(kh), "x-api-key: %s", key);
    snprintf(rh, sizeof(rh), "x-request-id: %s", rid);
    snprintf(body, sizeof(body),
             "{\"journeys\":[{\"origin\":\"LHR\",\"destination\":\"JFK\","
             "\"date\":\"%s\"}],\"passengers\":{\"adults\":1},"
             "\"supplier\":\"SUPPLIER_A\",\"limit\":1}", fe_date(45));
    r = e2e_call(e2e_url(), "POST", "/v1/flight/offers", hdrs, body);
    status = r->status;
    if (status != 502 && status != 504) {
        fprintf(stderr, "search answered %ld: %s\n", status, r->body);
    }
    e2e_free(r);
    return status;
}

static void supplier_errors_and_timeouts_are_counted(void **state)
{
    char *key = e2e_new_org_key("metrics", NULL), *t0, *t1, *t2, prefix[128], rid[160];
    (void)state;
    snprintf(prefix, sizeof(prefix), "metrics-%d-%ld-", (int)getpid(), e2e_now_ms());
    t0 = scrape(e2e_url());

    snprintf(rid, sizeof(rid), "%serror", prefix);
    fault(rid, "\"action\":\"error\",\"status\":503");
    assert_int_equal(search(key, rid), 502);
    t1 = scrape(e2e_url());
    assert_true(sample(t1, "travel_upstream_errors_total{upstream=\"SUPPLIER_A\"}")
                >= sample(t0, "travel_upstream_errors_total{upstream=\"SUPPLIER_A\"}") + 1);
    assert_true(sample(t1, "travel_upstream_calls_total{upstream=\"SUPPLIER_A\"}")
                >= sample(t0, "travel_upstream_calls_total{upstream=\"SUPPLIER_A\"}") + 1);

    /* An answer later than the supplier timeout (6 s on the test stack). */
    snprintf(rid, sizeof(rid), "%stimeout", prefix);
    fault(rid, "\"action\":\"respond\",\"delay_ms\":9000");
    assert_int_equal(search(key, rid), 504);
    t2 = scrape(e2e_url());
    assert_true(sample(t2, "travel_upstream_timeouts_total{upstream=\"SUPPLIER_A\"}")
                >= sample(t1, "travel_upstream_timeouts_total{upstream=\"SUPPLIER_A\"}") + 1);
    /* The calls' durations: both counted, the timeout's 6 s in the sum. */
    assert_true(sample(t2, "travel_upstream_duration_seconds_count{upstream=\"SUPPLIER_A\"}")
                >= sample(t0, "travel_upstream_duration_seconds_count{upstream="
                              "\"SUPPLIER_A\"}") + 2);
    assert_true(sample(t2, "travel_upstream_duration_seconds_sum{upstream=\"SUPPLIER_A\"}")
                >= sample(t1, "travel_upstream_duration_seconds_sum{upstream="
                              "\"SUPPLIER_A\"}") + 5.9);
    assert_true(sample(t2, "travel_upstream_duration_seconds{upstream=\"SUPPLIER_A\","
                           "quantile=\"0.99\"}") > 0);
    free(t0);
    free(t1);
    free(t2);
    free(key);
}

/* Searches per booking: after a flight search and a prebook the figure is
 * a number (not NaN: a booking was made) of at least one search per
 * booking's worth. */
static void searches_per_booking_is_exported(void **state)
{
    char *key = e2e_new_org_key("metrics", NULL), *text;
    json_t *b;
    double v;
    (void)state;
    b = fe_ready(key, "SUPPLIER_A", "Funnel", NULL);
    text = scrape(e2e_url());
    v = sample(text, "travel_searches_per_booking{family=\"flight\"}");
    assert_true(v == v && v > 0);
    assert_non_null(strstr(text, "# TYPE travel_searches_per_booking gauge\n"));
    json_decref(b);
    free(text);
    free(key);
}

/* The hotel suppliers' calls count too, under "hotel <name>" (a hotel
 * supplier may share its name with a flight one). */
static void hotel_supplier_calls_are_counted(void **state)
{
    char *key = e2e_new_org_key("metrics", NULL), *t0, *t1;
    json_t *b;
    (void)state;
    t0 = scrape(e2e_url());
    b = he_ready(key, "SUPPLIER_A", "metrics-hotel", "Counted");
    t1 = scrape(e2e_url());
    assert_true(sample(t1, "travel_upstream_calls_total{upstream=\"hotel SUPPLIER_A\"}")
                >= sample(t0, "travel_upstream_calls_total{upstream=\"hotel SUPPLIER_A\"}")
                       + 2);
    assert_true(sample(t1, "travel_upstream_duration_seconds{upstream=\"hotel SUPPLIER_A\","
                           "quantile=\"0.5\"}") > 0);
    json_decref(b);
    free(t0);
    free(t1);
    free(key);
}

static void the_status_page_has_a_travel_section(void **state)
{
    e2e_resp *r;
    (void)state;
    r = get(e2e_url(), "/server-status?auto");
    assert_int_equal(r->status, 200);
    assert_non_null(strstr(r->body, "TravelDatabaseUp: 1\n"));
    assert_non_null(strstr(r->body, "TravelJobsQueued: "));
    assert_non_null(strstr(r->body, "TravelJobsOldestWaitSeconds: "));
    assert_non_null(strstr(r->body, "TravelDeliveriesPending: "));
    assert_non_null(strstr(r->body, "TravelDeliveriesFailed: "));
    assert_non_null(strstr(r->body, "TravelUpstream: SUPPLIER_A calls="));
    assert_non_null(strstr(r->body, "TravelRoute: GET /v1/flight/airlines/{iata_code} count="));
    e2e_free(r);
    r = get(e2e_url(), "/server-status");
    assert_int_equal(r->status, 200);
    assert_non_null(strstr(r->body, "<h2>mod_travel</h2>"));
    e2e_free(r);
}

static void a_server_without_its_database_still_reports(void **state)
{
    char *text;
    (void)state;
    text = scrape(e2e_env("TRAVEL_TEST_URL_NODB"));
    assert_true(sample(text, "travel_database_up") == 0);
    assert_null(strstr(text, "travel_jobs_queued"));
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(requests_on_every_child_are_counted),
        cmocka_unit_test(supplier_errors_and_timeouts_are_counted),
        cmocka_unit_test(searches_per_booking_is_exported),
        cmocka_unit_test(hotel_supplier_calls_are_counted),
        cmocka_unit_test(the_status_page_has_a_travel_section),
        cmocka_unit_test(a_server_without_its_database_still_reports),
    };
    return E2E_RUN("metrics", tests);
}
