/* A supplier's own rate limit over real HTTP (core/upstream_limit.h), on an
 * instance of its own (its shared memory is its own, so no other test
 * meets a limit this one provokes) with TravelSupplierLimitWait 2s. The
 * sandbox answers 429 or "no call left" on demand (POST /sandbox/faults
 * with retry_after / headers); a second fault of the same scope, taken
 * only once the first is spent, counts the calls that still reached the
 * sandbox. Checked: after a 429 the supplier is not called again before
 * the time it gave, the client gets 503 supplier_rate_limited naming it
 * with Retry-After, and calls go again afterwards; Duffel's
 * ratelimit-remaining: 0 stops calls until ratelimit-reset, and a reset
 * near enough is waited for; other suppliers are unaffected; hotel offers
 * and search leave the limited supplier out and name it in
 * meta.unanswered_suppliers. */
#include "hotel_e2e.h"

static char *key;
static char url[128];
static long pid;

#define PARIS "{\"city\":\"Paris\",\"country_code\":\"FR\"}"
/* Counts the calls that reach the sandbox once the first fault is spent. */

static int setup(void **state)
{
    (void)state;
    key = e2e_new_org_key("supplier-limits", NULL);
    pid = e2e_start_instance("limits", NULL, "TravelSupplierLimitWait 2s", url, sizeof(url));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    e2e_stop_pid(pid);
    return 0;
}

static e2e_resp *post(const char *rid, const char *path, const char *body)
{
    char kh[512], rh[300];
    const char *hdrs[4] = {kh, "Content-Type: application/json", rh, NULL};
    snprintf(kh, sizeof(kh), "x-api-key: %s", key);
    snprintf(rh, sizeof(rh), "x-request-id: %s", rid);
    return e2e_call(url, "POST", path, hdrs, body);
}

static char *flight_body(const char *supplier)
{
    char *b = malloc(512);
    snprintf(b, 512, "{\"journeys\":[{\"origin\":\"LHR\",\"destination\":\"JFK\","
             "\"date\":\"%s\"}],\"passengers\":{\"adults\":1},\"supplier\":\"%s\","
             "\"limit\":3}", fe_date(30), supplier);
    return b;
}

/* The n-th call's request id under scope (faults match the prefix). */
static const char *rid_n(const char *scope, int n)
{
    static char buf[4][256];
    char *b = buf[n % 4];
    snprintf(b, 256, "%s-%d", scope, n);
    return b;
}

/* 503 supplier_rate_limited naming the supplier; returns Retry-After. */
static long assert_limited(const e2e_resp *r, const char *supplier)
{
    char *ra;
    long secs;
    e2e_assert_error(r, 503, "supplier_rate_limited");
    assert_non_null(strstr(json_string_value(json_object_get(
                               json_object_get(r->json, "error"), "message")), supplier));
    ra = e2e_header(r, "Retry-After");
    assert_non_null(ra);
    secs = atol(ra);
    free(ra);
    return secs;
}

static void a_429_stops_calls_until_retry_after(void **state)
{
    char *scope = fe_rid("limits", "f429"), *body = flight_body("SUPPLIER_A");
    char *other = flight_body("SUPPLIER_B");
    e2e_resp *r;
    long ra, told_at;
    (void)state;
    fe_fault("supplier_a", scope,
             "\"status\":429,\"code\":\"rate_limit_exceeded\",\"retry_after\":\"4\",\"times\":1");
    fe_fault("supplier_a", scope, FE_COUNTER);
    r = post(rid_n(scope, 1), "/v1/flight/offers", body);
    ra = assert_limited(r, "SUPPLIER_A");
    assert_true(ra >= 1 && ra <= 4);
    e2e_free(r);
    /* Refused at once, without a call: the limit ends beyond the 2 s wait. */
    r = post(rid_n(scope, 2), "/v1/flight/offers", body);
    told_at = e2e_now_ms();
    ra = assert_limited(r, "SUPPLIER_A");
    assert_true(ra >= 1 && ra <= 4);
    e2e_free(r);
    assert_int_equal(fe_counted(scope), 0);
    /* The operator sees it held on /server-status. */
    {
        e2e_resp *st = e2e_call(url, "GET", "/server-status?auto", NULL, NULL);
        char line[300];
        const char *at;
        assert_int_equal(st->status, 200);
        snprintf(line, sizeof(line), "TravelSupplierLimit: SUPPLIER_A %s/suppliers/a held_for=",
                 e2e_sandbox_url());
        at = strstr(st->body, line);
        if (!at) {
            fail_msg("no %s line: %s", line, st->body);
        }
        assert_true(atol(at + strlen(line)) >= 1);
        e2e_free(st);
    }
    /* Another supplier answers meanwhile. */
    r = post(rid_n(scope, 3), "/v1/flight/offers", other);
    fe_expect(r, 200, "SUPPLIER_B while SUPPLIER_A is limited");
    e2e_free(r);
    /* Once the Retry-After it was told has passed, SUPPLIER_A is called again. */
    while (e2e_now_ms() - told_at < ra * 1000) {
        e2e_sleep_ms(100);
    }
    r = post(rid_n(scope, 4), "/v1/flight/offers", body);
    fe_expect(r, 200, "SUPPLIER_A once its limit is over");
    assert_true(json_array_size(fe_data(r)) > 0);
    e2e_free(r);
    assert_int_equal(fe_counted(scope), 1);
    fe_fault_clear(scope);
    free(scope);
    free(body);
    free(other);
}

static void duffel_no_call_left_stops_calls_until_its_reset(void **state)
{
    char *scope = fe_rid("limits", "fleft"), *body = flight_body("SUPPLIER_A");
    e2e_resp *r;
    long ra;
    (void)state;
    /* A 200 whose headers say the window is spent for 30 s more. */
    fe_fault("supplier_a", scope, "\"action\":\"respond\",\"headers\":{\"ratelimit-remaining\":"
             "\"0\",\"ratelimit-reset\":\"30\"},\"times\":1");
    fe_fault("supplier_a", scope, FE_COUNTER);
    r = post(rid_n(scope, 1), "/v1/flight/offers", body);
    fe_expect(r, 200, "the search that spent the window");
    e2e_free(r);
    r = post(rid_n(scope, 2), "/v1/flight/offers", body);
    ra = assert_limited(r, "SUPPLIER_A");
    assert_true(ra >= 25 && ra <= 30);
    e2e_free(r);
    assert_int_equal(fe_counted(scope), 0);
    fe_fault_clear(scope);
    free(scope);
    free(body);
}

static void a_reset_near_enough_is_waited_for(void **state)
{
    char *scope = fe_rid("limits", "fwait"), *body = flight_body("SUPPLIER_B");
    e2e_resp *r;
    long t0;
    (void)state;
    /* SUPPLIER_B (LiteAPI Flights, which sends no such headers) this time: any supplier's
     * headers count. The window is over in one second. */
    fe_fault("supplier_b", scope, "\"action\":\"respond\",\"headers\":{\"ratelimit-remaining\":"
             "\"0\",\"ratelimit-reset\":\"1\"},\"times\":1");
    fe_fault("supplier_b", scope, FE_COUNTER);
    /* The reset is a second after the first answer, so after t0 + 1 s. */
    t0 = e2e_now_ms();
    r = post(rid_n(scope, 1), "/v1/flight/offers", body);
    fe_expect(r, 200, "the search that spent the window");
    e2e_free(r);
    r = post(rid_n(scope, 2), "/v1/flight/offers", body);
    fe_expect(r, 200, "a search that waited for the reset");
    e2e_free(r);
    assert_true(e2e_now_ms() - t0 >= 1000);
    assert_int_equal(fe_counted(scope), 1);
    fe_fault_clear(scope);
    free(scope);
    free(body);
}

static const json_t *unanswered(const e2e_resp *r)
{
    return json_object_get(json_object_get(r->json, "meta"), "unanswered_suppliers");
}

static void hotel_offers_and_search_leave_the_limited_supplier_out(void **state)
{
    char *scope = fe_rid("limits", "h429"), *body = he_search_body(PARIS, ",\"limit\":5");
    char *only = he_search_body(PARIS, ",\"limit\":5,\"supplier\":\"SUPPLIER_A\"");
    char *all = he_search_body(PARIS, ",\"limit\":50"), offers[1024];
    const char *only_b = NULL, *of_a = NULL;
    const json_t *h, *o;
    e2e_resp *r, *s;
    size_t i;
    long ra;
    (void)state;
    /* A hotel only SUPPLIER_B sells and one SUPPLIER_A sells, while A answers. */
    s = post("limits-before-the-fault", "/v1/hotel/search", all);
    fe_expect(s, 200, "the hotels of Paris");
    json_array_foreach(fe_data(s), i, h) {
        const json_t *sup = json_object_get(h, "suppliers");
        if (!only_b && json_array_size(sup) == 1
            && strcmp(json_string_value(json_array_get(sup, 0)), "SUPPLIER_B") == 0) {
            only_b = fe_s(h, "hotel_id");
        }
        if (!of_a && strcmp(json_string_value(json_array_get(sup, 0)), "SUPPLIER_A") == 0) {
            of_a = fe_s(h, "hotel_id");
        }
    }
    assert_non_null(only_b);
    assert_non_null(of_a);
    fe_fault("hotel_a", scope, "\"status\":429,\"code\":\"rate_limited\",\"retry_after\":\"30\","
             "\"times\":1");
    fe_fault("hotel_a", scope, FE_COUNTER);
    /* Offers: A answers 429; B's hotel has its offers, A is named. */
    snprintf(offers, sizeof(offers), "{\"hotel_ids\":[\"%s\",\"%s\"],\"check_in\":\"%s\","
             "\"check_out\":\"%s\",\"occupancy\":[{\"adults\":2}],\"guest_nationality\":"
             "\"GB\",\"guest_residence\":\"GB\",\"currency\":\"EUR\"}", only_b, of_a,
             fe_date(30), fe_date(32));
    r = post(rid_n(scope, 1), "/v1/hotel/offers", offers);
    fe_expect(r, 200, "offers with a limited supplier");
    assert_int_equal(json_array_size(unanswered(r)), 1);
    assert_string_equal(json_string_value(json_array_get(unanswered(r), 0)), "SUPPLIER_A");
    assert_true(json_array_size(fe_data(r)) > 0);
    json_array_foreach(fe_data(r), i, o) {
        assert_string_equal(fe_s(o, "hotel_id"), only_b);
    }
    e2e_free(r);
    /* A search now leaves A out without calling it. */
    r = post(rid_n(scope, 2), "/v1/hotel/search", body);
    fe_expect(r, 200, "a search with a limited supplier");
    assert_int_equal(json_array_size(unanswered(r)), 1);
    assert_string_equal(json_string_value(json_array_get(unanswered(r), 0)), "SUPPLIER_A");
    assert_true(json_array_size(fe_data(r)) > 0);
    json_array_foreach(fe_data(r), i, h) {
        assert_string_not_equal(fe_s(h, "supplier"), "SUPPLIER_A");
    }
    e2e_free(r);
    /* Asked alone, it answers when to retry. */
    r = post(rid_n(scope, 3), "/v1/hotel/search", only);
    ra = assert_limited(r, "SUPPLIER_A");
    assert_true(ra >= 25 && ra <= 30);
    e2e_free(r);
    assert_int_equal(fe_counted(scope), 0);
    fe_fault_clear(scope);
    e2e_free(s);
    free(scope);
    free(body);
    free(only);
    free(all);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_429_stops_calls_until_retry_after),
        cmocka_unit_test(duffel_no_call_left_stops_calls_until_its_reset),
        cmocka_unit_test(a_reset_near_enough_is_waited_for),
        /* Last: hotel SUPPLIER_A stays limited for 30 s on this instance. */
        cmocka_unit_test(hotel_offers_and_search_leave_the_limited_supplier_out),
    };
    int rc;
    if (setup(NULL) != 0) {
        return 1;
    }
    rc = E2E_RUN("supplier_limits", tests);
    teardown(NULL);
    return rc;
}
