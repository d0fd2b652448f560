/* The operator's call budget per supplier line (max_calls_per_second=,
 * core/call_budget.h) over real HTTP, on an instance of its own whose
 * flight SUPPLIER_A line allows 3 calls a second and hotel SUPPLIER_A 2,
 * with TravelSupplierLimitWait 0 (a call the budget holds is refused at
 * once, so what one second lets through is exact) and no worker threads
 * (a background call, such as another test's order poll, would take its
 * share of the window the parallel requests count on). Requests sent in
 * parallel, started just after a second turns:
 *  - flight offers: at most 3 reach the sandbox (a counting fault sees
 *    them), the others answer 429 rate_limited with Retry-After naming the
 *    supplier, none answers 5xx, and /metrics counts the refusals;
 *  - hotel search (three suppliers): at most 2 reach hotel SUPPLIER_A;
 *    every search answers 200, those it held out name SUPPLIER_A in
 *    meta.unanswered_suppliers;
 *  - /metrics has, per supplier, the duration histogram, 429s (a sandbox
 *    429 moves it), search cache hits and misses (SUPPLIER_C keeps its
 *    answers here), searches and bookings;
 *  - price watches (on the shared stack's instances, which run the
 *    workers): checks that meet the supplier's 429s are deferred, not failed:
 *    no watch.price job dies and the watch is checked once the 429s end. */
#include "watch_e2e.h"

#include <pthread.h>

static char *key;
static char url[128];
static long pid;

#define PARALLEL 8
#define PARIS "{\"city\":\"Paris\",\"country_code\":\"FR\"}"

static int setup(void **state)
{
    static const char *const edits[] = {
        "token=sandbox-key-a ", "token=sandbox-key-a max_calls_per_second=3 ",
        "api_key=sandbox-key-hotel-a ", "api_key=sandbox-key-hotel-a max_calls_per_second=2 ",
        "api_secret=sandbox-secret-hotel-c ", "api_secret=sandbox-secret-hotel-c search_cache=60s ",
        NULL, NULL};
    (void)state;
    key = e2e_new_org_key("supplier-budget", NULL);
    pid = e2e_start_instance("budget", edits, "TravelSupplierLimitWait 0\nTravelWorkerThreads 0", url, sizeof(url));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    e2e_stop_pid(pid);
    /* The watch test's faults meet every job's calls: none may outlive it. */
    e2e_free(e2e_call(e2e_sandbox_url(), "DELETE", "/sandbox/faults?request_id_prefix=job_",
                      NULL, NULL));
    return 0;
}

typedef struct call {
    const char *path, *body;
    char rid[200];
    long status;
    char code[64];
    char retry_after[16];
    char message[300];
    json_t *unanswered;       /* meta.unanswered_suppliers, or NULL */
} call;

static void *run(void *arg)
{
    call *c = arg;
    char kh[512], rh[300];
    const char *hdrs[4] = {kh, "Content-Type: application/json", rh, NULL};
    e2e_resp *r;
    char *ra;
    snprintf(kh, sizeof(kh), "x-api-key: %s", key);
    snprintf(rh, sizeof(rh), "x-request-id: %s", c->rid);
    r = e2e_call(url, "POST", c->path, hdrs, c->body);
    c->status = r->status;
    snprintf(c->code, sizeof(c->code), "%s", e2e_error_code(r));
    if ((ra = e2e_header(r, "Retry-After"))) {
        snprintf(c->retry_after, sizeof(c->retry_after), "%s", ra);
        free(ra);
    }
    if (json_is_string(json_object_get(json_object_get(r->json, "error"), "message"))) {
        snprintf(c->message, sizeof(c->message), "%s", json_string_value(json_object_get(
                     json_object_get(r->json, "error"), "message")));
    }
    c->unanswered = json_incref(json_object_get(json_object_get(r->json, "meta"),
                                                "unanswered_suppliers"));
    e2e_free(r);
    return NULL;
}

/* Waits until a second of the wall clock (the budget's windows are the
 * server's wall-clock seconds) has just turned; returns how many whole
 * seconds (windows) the calls made after it span, given when they ended.
 * (With the monotonic clock's seconds a race that looked like one window
 * could span two of the server's, and 6 calls go where 3 were counted.) */
static long window_start(void)
{
    while (e2e_wall_ms() % 1000 > 150) {
        e2e_sleep_ms(10);
    }
    return e2e_wall_ms() / 1000;
}

static long race(call *c, int n)
{
    pthread_t t[PARALLEL];
    long first = window_start();
    int i;
    for (i = 0; i < n; i++) {
        assert_int_equal(pthread_create(&t[i], NULL, run, &c[i]), 0);
    }
    for (i = 0; i < n; i++) {
        pthread_join(t[i], NULL);
    }
    return e2e_wall_ms() / 1000 - first + 1;
}

static char *metrics_of(const char *base)
{
    e2e_resp *r = e2e_call(base, "GET", "/metrics", NULL, NULL);
    char *t;
    assert_int_equal(r->status, 200);
    t = strdup(r->body);
    e2e_free(r);
    return t;
}

/* A series' value, -1 when absent. */
static double sample(const char *text, const char *series)
{
    const char *at = text;
    size_t n = strlen(series);
    while ((at = strstr(at, series))) {
        if ((at == text || at[-1] == '\n') && at[n] == ' ') {
            return strtod(at + n + 1, NULL);
        }
        at += n;
    }
    return -1;
}

static void flight_offers_in_parallel_stay_within_the_ceiling(void **state)
{
    char *scope = fe_rid("budget", "flights"), body[512], *m0, *m1;
    call c[PARALLEL];
    long windows, ok = 0, held = 0, hits;
    int i;
    (void)state;
    snprintf(body, sizeof(body), "{\"journeys\":[{\"origin\":\"LHR\",\"destination\":\"JFK\","
             "\"date\":\"%s\"}],\"passengers\":{\"adults\":1},\"supplier\":\"SUPPLIER_A\","
             "\"limit\":3}", fe_date(30));
    fe_fault("supplier_a", scope, FE_COUNTER);
    m0 = metrics_of(url);
    memset(c, 0, sizeof(c));
    for (i = 0; i < PARALLEL; i++) {
        c[i].path = "/v1/flight/offers";
        c[i].body = body;
        snprintf(c[i].rid, sizeof(c[i].rid), "%s-%d", scope, i);
    }
    windows = race(c, PARALLEL);
    for (i = 0; i < PARALLEL; i++) {
        if (c[i].status == 200) {
            ok++;
        }
        else if (c[i].status == 429 && strcmp(c[i].code, "rate_limited") == 0) {
            held++;
            assert_string_equal(c[i].retry_after, "1");
            assert_non_null(strstr(c[i].message, "SUPPLIER_A"));
        }
        else {
            fail_msg("flight offers answered %ld %s: %s", c[i].status, c[i].code, c[i].message);
        }
    }
    hits = fe_counted(scope);
    /* 3 a second: within one window exactly 3 go (8 asked), none more. */
    assert_true(hits <= 3 * windows);
    assert_int_equal(ok, hits);
    if (windows == 1) {
        assert_int_equal(ok, 3);
        assert_int_equal(held, PARALLEL - 3);
    }
    m1 = metrics_of(url);
    assert_true(sample(m1, "travel_upstream_budget_refused_total{upstream=\"SUPPLIER_A\"}")
                >= sample(m0, "travel_upstream_budget_refused_total{upstream=\"SUPPLIER_A\"}")
                       + (double)held);
    assert_true(sample(m1, "travel_upstream_searches_total{upstream=\"SUPPLIER_A\"}")
                >= sample(m0, "travel_upstream_searches_total{upstream=\"SUPPLIER_A\"}")
                       + PARALLEL);
    /* Refused calls were never sent: calls moved by what reached it. */
    assert_true(sample(m1, "travel_upstream_calls_total{upstream=\"SUPPLIER_A\"}")
                == sample(m0, "travel_upstream_calls_total{upstream=\"SUPPLIER_A\"}")
                       + (double)hits);
    free(m0);
    free(m1);
    free(scope);
}

static void hotel_searches_leave_the_spent_supplier_out(void **state)
{
    char *scope = fe_rid("budget", "hotels"), *body = he_search_body(PARIS, "");
    call c[PARALLEL];
    long windows, left_out = 0, hits;
    int i;
    size_t k;
    (void)state;
    fe_fault("hotel_a", scope, FE_COUNTER);
    memset(c, 0, sizeof(c));
    for (i = 0; i < 6; i++) {
        c[i].path = "/v1/hotel/search";
        c[i].body = body;
        snprintf(c[i].rid, sizeof(c[i].rid), "%s-%d", scope, i);
    }
    windows = race(c, 6);
    for (i = 0; i < 6; i++) {
        if (c[i].status != 200) {
            fail_msg("hotel search answered %ld %s: %s", c[i].status, c[i].code, c[i].message);
        }
        for (k = 0; c[i].unanswered && k < json_array_size(c[i].unanswered); k++) {
            const char *s = json_string_value(json_array_get(c[i].unanswered, k));
            assert_string_equal(s, "SUPPLIER_A");
            left_out++;
        }
        json_decref(c[i].unanswered);
    }
    hits = fe_counted(scope);
    assert_true(hits <= 2 * windows);
    /* A search calls SUPPLIER_A at least once: 6 searches, 2 calls a second. */
    if (windows == 1) {
        assert_true(left_out >= 4);
    }
    assert_true(left_out >= 1);
    free(body);
    free(scope);
}

static void metrics_per_supplier_move(void **state)
{
    char *scope = fe_rid("budget", "metrics"), body[512], *m0, *m1, *search;
    call one;
    int i;
    (void)state;
    m0 = metrics_of(url);
    /* The histogram, one line per bucket up to +Inf. */
    assert_true(sample(m0, "travel_upstream_call_seconds_bucket{upstream=\"SUPPLIER_A\","
                           "le=\"+Inf\"}") >= 0);
    assert_true(sample(m0, "travel_upstream_call_seconds_bucket{upstream=\"hotel SUPPLIER_A\","
                           "le=\"0.1\"}") >= 0);
    assert_non_null(strstr(m0, "travel_upstream_searches_per_booking{upstream=\"SUPPLIER_A\"} "));
    /* A 429 from the sandbox (Retry-After 1 s). */
    window_start();
    snprintf(body, sizeof(body), "{\"journeys\":[{\"origin\":\"LHR\",\"destination\":\"JFK\","
             "\"date\":\"%s\"}],\"passengers\":{\"adults\":1},\"supplier\":\"SUPPLIER_B\","
             "\"limit\":3}", fe_date(31));
    fe_fault("supplier_b", scope, "\"status\":429,\"code\":\"rate_limited\",\"retry_after\":\"1\","
             "\"times\":1");
    memset(&one, 0, sizeof(one));
    one.path = "/v1/flight/offers";
    one.body = body;
    snprintf(one.rid, sizeof(one.rid), "%s-429", scope);
    run(&one);
    json_decref(one.unanswered);
    e2e_sleep_ms(1200);
    /* The same search twice at a supplier that keeps answers: a miss, a hit. */
    /* A stay no other test of this instance searched: its first is a miss. */
    search = malloc(1024);
    snprintf(search, 1024, "{\"destination\":" PARIS ",\"check_in\":\"%s\",\"check_out\":"
             "\"%s\",\"occupancy\":[{\"adults\":1}],\"guest_nationality\":\"GB\","
             "\"guest_residence\":\"GB\",\"currency\":\"EUR\",\"supplier\":\"SUPPLIER_C\"}",
             fe_date(61), fe_date(62));
    for (i = 0; i < 2; i++) {
        memset(&one, 0, sizeof(one));
        one.path = "/v1/hotel/search";
        one.body = search;
        snprintf(one.rid, sizeof(one.rid), "%s-cache-%d", scope, i);
        run(&one);
        json_decref(one.unanswered);
        assert_int_equal(one.status, 200);
    }
    m1 = metrics_of(url);
    assert_true(sample(m1, "travel_upstream_429_total{upstream=\"SUPPLIER_B\"}")
                >= sample(m0, "travel_upstream_429_total{upstream=\"SUPPLIER_B\"}") + 1);
    assert_true(sample(m1, "travel_search_cache_misses_total{upstream=\"hotel SUPPLIER_C\"}")
                >= sample(m0, "travel_search_cache_misses_total{upstream=\"hotel SUPPLIER_C\"}")
                       + 1);
    assert_true(sample(m1, "travel_search_cache_hits_total{upstream=\"hotel SUPPLIER_C\"}")
                >= sample(m0, "travel_search_cache_hits_total{upstream=\"hotel SUPPLIER_C\"}")
                       + 1);
    assert_true(sample(m1, "travel_upstream_searches_total{upstream=\"hotel SUPPLIER_C\"}")
                >= sample(m0, "travel_upstream_searches_total{upstream=\"hotel SUPPLIER_C\"}")
                       + 2);
    assert_true(sample(m1, "travel_upstream_call_seconds_count{upstream=\"hotel SUPPLIER_C\"}")
                >= sample(m0, "travel_upstream_call_seconds_count{upstream=\"hotel SUPPLIER_C\"}")
                       + 1);
    free(search);
    free(m0);
    free(m1);
    free(scope);
}

static const char *api_of(const char *supplier)
{
    return strcmp(supplier, "SUPPLIER_A") == 0 ? "hotel_a"
           : strcmp(supplier, "SUPPLIER_B") == 0 ? "hotel_b" : "hotel_c";
}

static void watch_checks_meeting_429s_are_deferred_not_lost(void **state)
{
    we_hotel h;
    json_t *w, *seen;
    char since[64], sql_since[64], metric[128], *m0a, *m0b, *m1a, *m1b;
    const char *params[2];
    long dead, hits;
    (void)state;
    we_pick_hotel(key, 50, 52, 0, &h);
    snprintf(since, sizeof(since), "%ld", e2e_now_ms());
    snprintf(sql_since, sizeof(sql_since), "%s", since);
    snprintf(metric, sizeof(metric), "travel_upstream_deferred_total{upstream=\"hotel %s\"}",
             h.supplier);
    m0a = metrics_of(e2e_url());
    m0b = metrics_of(e2e_env("TRAVEL_TEST_URL_B"));
    /* Every background call to that supplier meets six 429s (1 s each):
     * more than a watch.price job's three attempts. */
    fe_fault(api_of(h.supplier), "job_", "\"status\":429,\"code\":\"rate_limited\","
             "\"retry_after\":\"1\",\"times\":6");
    w = we_price_watch(key, &h, 50, 52, 1, NULL);
    /* Checked (at the supplier's price, far above the trigger) once the
     * 429s are spent. */
    seen = we_wait(key, WE_WATCHES, fe_s(w, "id"), "active", 60000);
    hits = fe_fault_hits("job_");
    assert_int_equal(hits, 6);
    params[0] = sql_since;
    dead = e2e_sql_long("SELECT count(*) FROM jobs WHERE kind = 'watch.price' AND status = 'dead' "
                        "AND updated_at >= to_timestamp($1::bigint / 1000.0)", 1, params);
    assert_int_equal(dead, 0);
    m1a = metrics_of(e2e_url());
    m1b = metrics_of(e2e_env("TRAVEL_TEST_URL_B"));
    /* One of the shared stack's instances deferred. */
    assert_true(sample(m1a, metric) + sample(m1b, metric)
                >= sample(m0a, metric) + sample(m0b, metric) + 1);
    json_decref(seen);
    json_decref(w);
    free(m0a);
    free(m0b);
    free(m1a);
    free(m1b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(flight_offers_in_parallel_stay_within_the_ceiling),
        cmocka_unit_test(hotel_searches_leave_the_spent_supplier_out),
        cmocka_unit_test(metrics_per_supplier_move),
        cmocka_unit_test(watch_checks_meeting_429s_are_deferred_not_lost),
    };
    int rc;
    if (setup(NULL) != 0) {
        return 1;
    }
    rc = E2E_RUN("supplier_budget", tests);
    teardown(NULL);
    return rc;
}
