/* The per-subscription throttle: a subscription with max_per_second gets
 * at most that many requests in any second, spread rather than dropped,
 * every event once, while both test instances (a and b, one database)
 * send; bad values are a 422. */
#include "test_webhook_common.h"

static char *key, *org;

static int setup(void **state)
{
    (void)state;
    free(key);
    free(org);
    key = e2e_new_org_key("throttle", &org);
    return 0;
}

static void a_slow_receiver_gets_at_most_5_a_second_and_every_event_once(void **state)
{
    char inbox[64], url[256], body[512];
    const char *p[3];
    json_t *s;
    e2e_resp *r;
    PGresult *res;
    long t0, *at, worst = 0, span;
    int i, j, n, events = 25;
    (void)state;
    wh_inbox(inbox, sizeof(inbox), url, sizeof(url));
    /* The receiver takes 200 ms to answer each request. */
    wh_inbox_behave(inbox, "{\"status\": 200, \"delay_ms\": 200}");
    snprintf(body, sizeof(body), "{\"url\": \"%s\", \"event_types\": "
             "[\"hotel.booking.confirmed\"], \"max_per_second\": 5}", url);
    r = wh_call(key, "POST", "/v1/hotel/webhook-subscriptions", body);
    assert_int_equal(r->status, 201);
    s = json_incref(json_object_get(r->json, "data"));
    e2e_free(r);
    assert_int_equal(json_integer_value(json_object_get(s, "max_per_second")), 5);

    /* A burst: 25 events in one statement, all due at once. */
    p[0] = org;
    e2e_sql_exec("INSERT INTO events (id, org_id, family, type, data) "
                 "SELECT 'evt_' || trv_uuid7(), $1, 'hotel', 'hotel.booking.confirmed', "
                 "jsonb_build_object('booking', jsonb_build_object('id', 'bkg_' || g)) "
                 "FROM generate_series(1, 25) g", 1, p);
    p[0] = wh_str(s, "id");
    t0 = e2e_now_ms();
    while (e2e_sql_long("SELECT count(*) FROM webhook_deliveries WHERE subscription_id = $1 "
                        "AND status = 'DELIVERED'", 1, p) < events) {
        if (e2e_now_ms() - t0 > 60000) {
            fail_msg("not every event was delivered within 60 s");
        }
        e2e_sleep_ms(200);
    }

    /* Every event once, and no second with more than 5 requests: for each
     * request, those that arrived in the second starting with it. */
    p[0] = inbox;
    res = PQexecParams(e2e_db(),
                       "SELECT (extract(epoch FROM received_at) * 1000)::bigint "
                       "FROM sandbox.inbox_requests WHERE inbox = $1 ORDER BY received_at",
                       1, NULL, p, NULL, NULL, 0);
    assert_int_equal(PQresultStatus(res), PGRES_TUPLES_OK);
    n = PQntuples(res);
    assert_int_equal(n, events);
    assert_int_equal(e2e_sql_long("SELECT count(DISTINCT headers->>'webhook-id') FROM "
                                  "sandbox.inbox_requests WHERE inbox = $1", 1, p), events);
    at = calloc((size_t)n, sizeof(*at));
    for (i = 0; i < n; i++) {
        at[i] = atol(PQgetvalue(res, i, 0));
    }
    PQclear(res);
    for (i = 0; i < n; i++) {
        long in_second = 0;
        for (j = i; j < n && at[j] < at[i] + 1000; j++) {
            in_second++;
        }
        worst = in_second > worst ? in_second : worst;
    }
    span = at[n - 1] - at[0];
    print_message("      %d requests over %ld ms, at most %ld in any second\n", n, span, worst);
    assert_true(worst <= 5);
    /* Spread, not dropped: 25 requests at 5 a second take over 4 seconds. */
    assert_true(span >= 4000);
    free(at);
    json_decref(s);
}

static void max_per_second_is_checked_and_can_be_removed(void **state)
{
    static const char *const bad[] = {"0", "1001", "\"5\"", "2.5", "true"};
    char url[256], name[64], body[512], path[256];
    json_t *s;
    e2e_resp *r;
    size_t i;
    (void)state;
    wh_inbox(name, sizeof(name), url, sizeof(url));
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        snprintf(body, sizeof(body), "{\"url\": \"%s\", \"event_types\": "
                 "[\"flight.booking.confirmed\"], \"max_per_second\": %s}", url, bad[i]);
        r = wh_call(key, "POST", "/v1/flight/webhook-subscriptions", body);
        e2e_assert_error(r, 422, "validation_failed");
        assert_non_null(wh_detail(r, "max_per_second"));
        e2e_free(r);
    }
    s = wh_subscribe(key, "flight", url, "[\"flight.booking.confirmed\"]");
    assert_true(json_is_null(json_object_get(s, "max_per_second")));
    snprintf(path, sizeof(path), "/v1/flight/webhook-subscriptions/%s", wh_str(s, "id"));
    r = wh_call(key, "PATCH", path, "{\"max_per_second\": 1000}");
    assert_int_equal(r->status, 200);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(r->json, "data"),
                                                        "max_per_second")), 1000);
    e2e_free(r);
    r = wh_call(key, "PATCH", path, "{\"max_per_second\": 0}");
    e2e_assert_error(r, 422, "validation_failed");
    e2e_free(r);
    r = wh_call(key, "PATCH", path, "{\"max_per_second\": null}");
    assert_int_equal(r->status, 200);
    assert_true(json_is_null(json_object_get(json_object_get(r->json, "data"),
                                             "max_per_second")));
    e2e_free(r);
    json_decref(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(a_slow_receiver_gets_at_most_5_a_second_and_every_event_once,
                               setup),
        cmocka_unit_test_setup(max_per_second_is_checked_and_can_be_removed, setup),
    };
    return E2E_RUN("webhook throttle", tests);
}
