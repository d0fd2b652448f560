/* The shared figures: latency quantiles from the fixed buckets, counts per
 * route and per upstream, a second attach (graceful restart) keeping the
 * counts, and the Prometheus text. The shared memory is plain memory here. */
#include "unit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/metrics.h"
#include "core/router.h"

static void nop(trv_req *req, trv_resp *resp)
{
    (void)req;
    (void)resp;
}

static const trv_route routes[] = {
    {"GET", "/v1/flight/bookings", nop, 0},
    {"GET", "/v1/flight/bookings/{id:bkg}", nop, 0},
    {NULL, NULL, NULL, 0},
};
static const trv_route more[] = {
    {"GET", "/v1/health", nop, 0},
    {NULL, NULL, NULL, 0},
};

static void quantiles_interpolate_inside_a_bucket(void **state)
{
    unsigned long long b[TRV_METRICS_BUCKETS] = {0};
    (void)state;
    assert_true(trv_metrics_quantile(b, TRV_METRICS_BUCKETS, 0.5) == 0);
    b[3] = 100; /* all in (5 ms, 10 ms] */
    assert_true(fabs(trv_metrics_quantile(b, TRV_METRICS_BUCKETS, 0.5) - 0.0075) < 1e-9);
    assert_true(fabs(trv_metrics_quantile(b, TRV_METRICS_BUCKETS, 0.99) - 0.00995) < 1e-9);
    b[0] = 100; /* half at or under 1 ms */
    assert_true(trv_metrics_quantile(b, TRV_METRICS_BUCKETS, 0.5) <= 0.001);
    assert_true(trv_metrics_quantile(b, TRV_METRICS_BUCKETS, 0.99) > 0.005);
    memset(b, 0, sizeof(b));
    b[TRV_METRICS_BUCKETS - 1] = 5; /* beyond the last bound: the bound */
    assert_true(trv_metrics_quantile(b, TRV_METRICS_BUCKETS, 0.5)
                == trv_metrics_bounds_s[TRV_METRICS_BUCKETS - 2]);
}

static void requests_and_upstreams_are_counted(void **state)
{
    apr_pool_t *p = *state;
    void *mem = calloc(1, trv_metrics_size());
    trv_router *rt = trv_router_make(p), *rt2;
    const char *ups[] = {"SUPPLIER_A", "PAYMENT", NULL};
    trv_metrics *m;
    trv_metrics_route_fig *rf;
    trv_metrics_upstream_fig *uf;
    char *text;
    int n, i;

    trv_router_add(rt, routes);
    m = trv_metrics_attach(p, mem, rt, ups);
    for (i = 0; i < 10; i++) {
        trv_metrics_request(m, trv_router_at(rt, 1), 200, apr_time_from_msec(3));
    }
    trv_metrics_request(m, trv_router_at(rt, 1), 503, apr_time_from_msec(2000));
    trv_metrics_request(m, NULL, 404, 100);
    trv_metrics_upstream(m, "SUPPLIER_A", 0, apr_time_from_msec(20));
    trv_metrics_upstream(m, "SUPPLIER_A", 1, apr_time_from_msec(30));
    trv_metrics_upstream(m, "SUPPLIER_A", 2, apr_time_from_sec(20));
    trv_metrics_upstream(m, "UNKNOWN", 1, 100); /* not configured: ignored */

    n = trv_metrics_routes(m, p, &rf);
    assert_int_equal(n, 3); /* two routes and "(no route)" */
    assert_string_equal(rf[1].route, "GET /v1/flight/bookings/{id}");
    assert_int_equal(rf[1].count, 11);
    assert_int_equal(rf[1].errors, 1);
    assert_true(rf[1].p50_s > 0.0025 && rf[1].p50_s <= 0.005);
    assert_true(rf[1].p99_s > 1.0);
    assert_int_equal(rf[2].count, 1);
    n = trv_metrics_upstreams(m, p, &uf);
    assert_int_equal(n, 2);
    assert_int_equal(uf[0].calls, 3);
    assert_int_equal(uf[0].errors, 1);
    assert_int_equal(uf[0].timeouts, 1);
    /* Durations: two calls of 20-30 ms and a timeout of 20 s. */
    assert_true(uf[0].p50_s > 0.01 && uf[0].p50_s <= 0.05);
    assert_true(uf[0].p99_s > 1.0);
    assert_true(uf[0].sum_s > 20.0 && uf[0].sum_s < 20.1);

    /* A graceful restart attaches again: counts kept, a new route added. */
    rt2 = trv_router_make(p);
    trv_router_add(rt2, more);
    trv_router_add(rt2, routes);
    m = trv_metrics_attach(p, mem, rt2, ups);
    n = trv_metrics_routes(m, p, &rf);
    assert_int_equal(n, 4);
    assert_int_equal(rf[1].count, 11);
    trv_metrics_request(m, trv_router_at(rt2, 2), 200, 1000);
    n = trv_metrics_routes(m, p, &rf);
    assert_int_equal(rf[1].count, 12);

    trv_metrics_upstream_event(m, "SUPPLIER_A", TRV_METRIC_429);
    trv_metrics_upstream_event(m, "SUPPLIER_A", TRV_METRIC_BUDGET_REFUSED);
    trv_metrics_upstream_event(m, "SUPPLIER_A", TRV_METRIC_BUDGET_REFUSED);
    trv_metrics_upstream_event(m, "SUPPLIER_A", TRV_METRIC_CACHE_HIT);
    trv_metrics_upstream_event(m, "UNKNOWN", TRV_METRIC_CACHE_HIT); /* ignored */
    for (i = 0; i < 3; i++) {
        trv_metrics_upstream_event(m, "SUPPLIER_A", TRV_METRIC_SEARCH);
    }
    trv_metrics_upstream_event(m, "SUPPLIER_A", TRV_METRIC_BOOKING);
    {
        trv_metrics_queue q = {1, 4, 1, 2, 12.5, 3, 7};
        text = trv_metrics_prometheus(m, p, &q);
    }
    /* Per supplier: the histogram (cumulative), 429s, refusals, the cache. */
    assert_non_null(strstr(text, "# TYPE travel_upstream_call_seconds histogram\n"));
    assert_non_null(strstr(text, "travel_upstream_call_seconds_bucket{upstream=\"SUPPLIER_A\","
                                 "le=\"0.01\"} 0\n"));
    assert_non_null(strstr(text, "travel_upstream_call_seconds_bucket{upstream=\"SUPPLIER_A\","
                                 "le=\"0.05\"} 2\n"));
    assert_non_null(strstr(text, "travel_upstream_call_seconds_bucket{upstream=\"SUPPLIER_A\","
                                 "le=\"+Inf\"} 3\n"));
    assert_non_null(strstr(text, "travel_upstream_call_seconds_count{upstream=\"SUPPLIER_A\"} 3\n"));
    assert_non_null(strstr(text, "travel_upstream_429_total{upstream=\"SUPPLIER_A\"} 1\n"));
    assert_non_null(strstr(text, "travel_upstream_budget_refused_total{upstream=\"SUPPLIER_A\"} 2\n"));
    assert_non_null(strstr(text, "travel_search_cache_hits_total{upstream=\"SUPPLIER_A\"} 1\n"));
    assert_non_null(strstr(text, "travel_search_cache_misses_total{upstream=\"SUPPLIER_A\"} 0\n"));
    assert_non_null(strstr(text, "travel_upstream_searches_per_booking{upstream=\"SUPPLIER_A\"} "
                                 "3.000\n"));
    assert_non_null(strstr(text, "travel_upstream_searches_per_booking{upstream=\"PAYMENT\"} NaN\n"));
    assert_non_null(strstr(text, "# TYPE travel_request_duration_seconds summary\n"));
    assert_non_null(strstr(text, "travel_request_duration_seconds_count{route=\"GET "
                                 "/v1/flight/bookings/{id}\"} 12\n"));
    assert_non_null(strstr(text, "travel_request_errors_total{route=\"GET "
                                 "/v1/flight/bookings/{id}\"} 1\n"));
    assert_non_null(strstr(text, "travel_request_duration_seconds{route=\"GET /v1/health\","
                                 "quantile=\"0.5\"} NaN\n"));
    assert_non_null(strstr(text, "travel_upstream_timeouts_total{upstream=\"SUPPLIER_A\"} 1\n"));
    assert_non_null(strstr(text, "# TYPE travel_upstream_duration_seconds summary\n"));
    assert_non_null(strstr(text, "travel_upstream_duration_seconds_count{upstream="
                                 "\"SUPPLIER_A\"} 3\n"));
    assert_non_null(strstr(text, "travel_upstream_duration_seconds{upstream=\"PAYMENT\","
                                 "quantile=\"0.5\"} NaN\n"));
    /* No booking yet: no ratio. */
    assert_non_null(strstr(text, "travel_searches_per_booking{family=\"flight\"} NaN\n"));
    assert_non_null(strstr(text, "travel_jobs_queued 4\n"));
    assert_non_null(strstr(text, "travel_jobs_oldest_wait_seconds 12.500\n"));
    assert_non_null(strstr(text, "travel_webhook_deliveries_failed 7\n"));
    assert_non_null(strstr(text, "travel_database_up 1\n"));
    free(mem);
}

/* Searches per booking: the search routes' answers over the prebook
 * routes' (hotel: search and offers together). */
static void searches_per_booking(void **state)
{
    static const trv_route funnel[] = {
        {"POST", "/v1/flight/offers", nop, 0},
        {"POST", "/v1/flight/prebook", nop, 0},
        {"POST", "/v1/hotel/search", nop, 0},
        {"POST", "/v1/hotel/offers", nop, 0},
        {"POST", "/v1/hotel/prebook", nop, 0},
        {NULL, NULL, NULL, 0},
    };
    apr_pool_t *p = *state;
    void *mem = calloc(1, trv_metrics_size());
    trv_router *rt = trv_router_make(p);
    const char *ups[] = {NULL};
    trv_metrics *m;
    trv_metrics_funnel_fig *f;
    trv_metrics_queue q = {0, 0, 0, 0, 0, 0, 0};
    char *text;
    int i;
    trv_router_add(rt, funnel);
    m = trv_metrics_attach(p, mem, rt, ups);
    for (i = 0; i < 7; i++) {
        trv_metrics_request(m, trv_router_at(rt, 0), 200, 1000);
    }
    trv_metrics_request(m, trv_router_at(rt, 1), 201, 1000);
    trv_metrics_request(m, trv_router_at(rt, 1), 201, 1000);
    trv_metrics_request(m, trv_router_at(rt, 2), 200, 1000);
    trv_metrics_request(m, trv_router_at(rt, 3), 200, 1000);
    assert_int_equal(trv_metrics_funnels(m, p, &f), 2);
    assert_string_equal(f[0].family, "flight");
    assert_int_equal(f[0].searches, 7);
    assert_int_equal(f[0].bookings, 2);
    assert_string_equal(f[1].family, "hotel");
    assert_int_equal(f[1].searches, 2);
    assert_int_equal(f[1].bookings, 0);
    text = trv_metrics_prometheus(m, p, &q);
    assert_non_null(strstr(text, "travel_searches_per_booking{family=\"flight\"} 3.500\n"));
    assert_non_null(strstr(text, "travel_searches_per_booking{family=\"hotel\"} NaN\n"));
    free(mem);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(quantiles_interpolate_inside_a_bucket),
        cmocka_unit_test_setup_teardown(requests_and_upstreams_are_counted, pool_setup,
                                        pool_teardown),
        cmocka_unit_test_setup_teardown(searches_per_booking, pool_setup, pool_teardown),
    };
    return UNIT_RUN(tests);
}
