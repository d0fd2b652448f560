/* Recovery for the flight and hotel families: GET /v1/<family>/events lists
 * the organization's event log oldest first (after, since, limit), and
 * POST .../webhook-subscriptions/{id}/recover {since, until} sends again,
 * once each, every event of the window whose delivery ended FAILED. The
 * main case: a receiver down for 1,000 events gets all 1,000 back, each
 * once, signed, in the order of the log, after one call. */
#include "test_webhook_common.h"

static char *key, *org;

static int setup(void **state)
{
    (void)state;
    free(key);
    free(org);
    key = e2e_new_org_key("recover", &org);
    return 0;
}

/* n hotel events written in one statement, as a burst of bookings would
 * be; ids are UUIDv7 like the module's. */
static void emit_many(int n, const char *type)
{
    char count[16];
    const char *p[3] = {org, type, count};
    snprintf(count, sizeof(count), "%d", n);
    e2e_sql_exec("INSERT INTO events (id, org_id, family, type, data) "
                 "SELECT 'evt_' || trv_uuid7(), $1, split_part($2, '.', 1), $2, "
                 "jsonb_build_object('booking', jsonb_build_object('id', 'bkg_' || g, "
                 "'seq', g)) FROM generate_series(1, $3::int) g", 3, p);
}

static char *db_now(void)
{
    return e2e_sql_text("SELECT trv_ts(clock_timestamp() - interval '1 second')", 0, NULL);
}

static long count_status(const char *sid, const char *status)
{
    const char *p[2] = {sid, status};
    return e2e_sql_long("SELECT count(*) FROM webhook_deliveries WHERE subscription_id = $1 "
                        "AND status = $2", 2, p);
}

static void wait_status(const char *sid, const char *status, long n, long limit_ms)
{
    long t0 = e2e_now_ms(), got = 0;
    while ((got = count_status(sid, status)) < n) {
        if (e2e_now_ms() - t0 > limit_ms) {
            fail_msg("%ld of %ld deliveries %s after %ld ms", got, n, status, limit_ms);
        }
        e2e_sleep_ms(200);
    }
}

/* The whole log of a family through the API, page by page (limit 200). */
static json_t *whole_log(const char *family)
{
    json_t *all = json_array();
    char path[512], *after = NULL;
    while (1) {
        e2e_resp *r;
        json_t *next;
        if (after) {
            snprintf(path, sizeof(path), "/v1/%s/events?limit=200&after=%s", family, after);
        }
        else {
            snprintf(path, sizeof(path), "/v1/%s/events?limit=200", family);
        }
        r = wh_call(key, "GET", path, NULL);
        assert_int_equal(r->status, 200);
        json_array_extend(all, json_object_get(r->json, "data"));
        next = json_object_get(json_object_get(json_object_get(r->json, "meta"), "pagination"),
                               "next_after");
        free(after);
        after = json_is_string(next) ? strdup(json_string_value(next)) : NULL;
        e2e_free(r);
        if (!after) {
            return all;
        }
    }
}

static void the_event_log_pages_oldest_first_by_after_and_since(void **state)
{
    char *e1, *e2, *e3, *t, path[512];
    e2e_resp *r;
    json_t *d;
    char *other_key, *other_org;
    (void)state;
    e1 = wh_emit(org, "flight.booking.confirmed", "{\"booking\": {\"id\": \"b1\"}}");
    e2 = wh_emit(org, "flight.booking.failed", "{\"booking\": {\"id\": \"b2\", \"n\": 1.50}}");
    e2e_sleep_ms(20);
    t = e2e_sql_text("SELECT trv_ts(clock_timestamp())", 0, NULL);
    e2e_sleep_ms(20);
    e3 = wh_emit(org, "flight.booking.canceled", "{\"booking\": {\"id\": \"b3\"}}");
    wh_emit(org, "hotel.booking.confirmed", "{\"booking\": {\"id\": \"h1\"}}");

    r = wh_call(key, "GET", "/v1/flight/events?limit=2", NULL);
    assert_int_equal(r->status, 200);
    d = json_object_get(r->json, "data");
    assert_int_equal(json_array_size(d), 2);
    assert_string_equal(wh_str(json_array_get(d, 0), "id"), e1);
    assert_string_equal(wh_str(json_array_get(d, 1), "id"), e2);
    assert_string_equal(wh_str(json_array_get(d, 1), "type"), "flight.booking.failed");
    /* data as delivered: the number as written. */
    assert_non_null(strstr(r->body, "\"n\": 1.50") ? strstr(r->body, "\"n\": 1.50")
                                                    : strstr(r->body, "\"n\":1.50"));
    assert_string_equal(json_string_value(json_object_get(json_object_get(json_object_get(
                            r->json, "meta"), "pagination"), "next_after")), e2);
    e2e_free(r);
    snprintf(path, sizeof(path), "/v1/flight/events?after=%s", e2);
    r = wh_call(key, "GET", path, NULL);
    d = json_object_get(r->json, "data");
    assert_int_equal(json_array_size(d), 1);
    assert_string_equal(wh_str(json_array_get(d, 0), "id"), e3);
    assert_true(json_is_null(json_object_get(json_object_get(json_object_get(
        r->json, "meta"), "pagination"), "next_after")));
    e2e_free(r);
    snprintf(path, sizeof(path), "/v1/flight/events?since=%s", t);
    r = wh_call(key, "GET", path, NULL);
    d = json_object_get(r->json, "data");
    assert_int_equal(json_array_size(d), 1);
    assert_string_equal(wh_str(json_array_get(d, 0), "id"), e3);
    e2e_free(r);
    /* The hotel log holds only the hotel event. */
    r = wh_call(key, "GET", "/v1/hotel/events", NULL);
    assert_int_equal(json_array_size(json_object_get(r->json, "data")), 1);
    e2e_free(r);

    /* Bad input, and another organization's event id. */
    r = wh_call(key, "GET", "/v1/flight/events?after=nope", NULL);
    e2e_assert_error(r, 422, "validation_failed");
    assert_non_null(wh_detail(r, "after"));
    e2e_free(r);
    r = wh_call(key, "GET", "/v1/flight/events?since=yesterday&limit=0", NULL);
    e2e_assert_error(r, 422, "validation_failed");
    assert_non_null(wh_detail(r, "since"));
    assert_non_null(wh_detail(r, "limit"));
    e2e_free(r);
    other_key = e2e_new_org_key("recover-other", &other_org);
    snprintf(path, sizeof(path), "/v1/flight/events?after=%s", e1);
    r = wh_call(other_key, "GET", path, NULL);
    e2e_assert_error(r, 404, "not_found");
    e2e_free(r);
    r = wh_call(other_key, "GET", "/v1/flight/events", NULL);
    assert_int_equal(json_array_size(json_object_get(r->json, "data")), 0);
    e2e_free(r);
    free(other_key);
    free(other_org);
    free(e1);
    free(e2);
    free(e3);
    free(t);
}

static void a_receiver_down_for_1000_events_recovers_each_once(void **state)
{
    char inbox[64], url[256], path[512], body[256], maxid[32];
    json_t *s, *log, *got;
    char *since, *until;
    const char *sid, *secret;
    e2e_resp *r;
    PGresult *res;
    const char *p[2];
    long before, t0;
    int i, n, bad_sig = 0, displaced = 0, max_shift = 0;
    (void)state;
    wh_inbox(inbox, sizeof(inbox), url, sizeof(url));
    s = wh_subscribe(key, "hotel", url, "[\"hotel.booking.confirmed\"]");
    sid = wh_str(s, "id");
    secret = wh_str(s, "signing_secret");
    wh_inbox_behave(inbox, "{\"status\": 500}");

    since = db_now();
    emit_many(1000, "hotel.booking.confirmed");
    /* The test stack retries 3 times a second apart: every delivery FAILED. */
    wait_status(sid, "FAILED", 1000, 120000);
    until = e2e_sql_text("SELECT trv_ts(clock_timestamp())", 0, NULL);
    {
        char bpath[256];
        snprintf(bpath, sizeof(bpath), "/sandbox/inboxes/%s/behavior", inbox);
        r = e2e_call(e2e_sandbox_url(), "DELETE", bpath, NULL, NULL);
        assert_true(r->status == 200 || r->status == 204);
        e2e_free(r);
    }
    p[0] = inbox;
    before = e2e_sql_long("SELECT coalesce(max(id), 0) FROM sandbox.inbox_requests "
                          "WHERE inbox = $1", 1, p);
    snprintf(maxid, sizeof(maxid), "%ld", before);

    /* A paused subscription is not recovered. */
    snprintf(path, sizeof(path), "/v1/hotel/webhook-subscriptions/%s", sid);
    r = wh_call(key, "PATCH", path, "{\"status\": \"PAUSED\"}");
    assert_int_equal(r->status, 200);
    e2e_free(r);
    snprintf(path, sizeof(path), "/v1/hotel/webhook-subscriptions/%s/recover", sid);
    snprintf(body, sizeof(body), "{\"since\": \"%s\", \"until\": \"%s\"}", since, until);
    r = wh_call(key, "POST", path, body);
    e2e_assert_error(r, 409, "subscription_paused");
    e2e_free(r);
    snprintf(path, sizeof(path), "/v1/hotel/webhook-subscriptions/%s", sid);
    r = wh_call(key, "PATCH", path, "{\"status\": \"ACTIVE\"}");
    assert_int_equal(r->status, 200);
    e2e_free(r);

    snprintf(path, sizeof(path), "/v1/hotel/webhook-subscriptions/%s/recover", sid);
    t0 = e2e_now_ms();
    r = wh_call(key, "POST", path, body);
    assert_int_equal(r->status, 202);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(r->json, "data"),
                                                        "events")), 1000);
    e2e_free(r);
    /* Once each: nothing is FAILED any more, so a second call sends nothing. */
    r = wh_call(key, "POST", path, body);
    assert_int_equal(r->status, 202);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(r->json, "data"),
                                                        "events")), 0);
    e2e_free(r);
    wait_status(sid, "DELIVERED", 1000, 120000);
    print_message("      1000 events recovered in %ld ms\n", e2e_now_ms() - t0);

    /* What the receiver got after it came back: each event once, answered
     * 200, signed, in the order of the log (docs/webhooks.md, Recovery). */
    log = whole_log("hotel");
    assert_int_equal(json_array_size(log), 1000);
    p[1] = maxid;
    res = PQexecParams(e2e_db(),
                       "SELECT headers->>'webhook-id', headers->>'webhook-timestamp', "
                       "headers->>'webhook-signature', convert_from(body, 'UTF8'), status "
                       "FROM sandbox.inbox_requests WHERE inbox = $1 AND id > $2::bigint "
                       "ORDER BY id", 2, NULL, p, NULL, NULL, 0);
    assert_int_equal(PQresultStatus(res), PGRES_TUPLES_OK);
    n = PQntuples(res);
    assert_int_equal(n, 1000);
    got = json_object();
    for (i = 0; i < n; i++) {
        const char *id = PQgetvalue(res, i, 0);
        const char *b = PQgetvalue(res, i, 3);
        int pos;
        assert_string_equal(PQgetvalue(res, i, 4), "200");
        assert_null(json_object_get(got, id));  /* once */
        json_object_set_new(got, id, json_integer(i));
        if (!swh_verify(secret, id, PQgetvalue(res, i, 1), PQgetvalue(res, i, 2), b,
                        strlen(b))) {
            bad_sig++;
        }
        for (pos = 0; pos < 1000; pos++) {
            if (strcmp(wh_str(json_array_get(log, (size_t)pos), "id"), id) == 0) {
                break;
            }
        }
        assert_true(pos < 1000);
        if (pos != i) {
            displaced++;
        }
        if (abs(pos - i) > max_shift) {
            max_shift = abs(pos - i);
        }
    }
    if (displaced) {
        fail_msg("receipt vs log order: %d of 1000 out of place, at most %d places",
                 displaced, max_shift);
    }
    PQclear(res);
    assert_int_equal(bad_sig, 0);
    assert_int_equal(json_object_size(got), 1000);
    json_decref(got);
    json_decref(log);
    free(since);
    free(until);
    json_decref(s);
}

static void recover_checks_its_window(void **state)
{
    char url[256], name[64], path[512], body[256];
    char *since, *until;
    json_t *s;
    e2e_resp *r;
    (void)state;
    wh_inbox(name, sizeof(name), url, sizeof(url));
    s = wh_subscribe(key, "flight", url, "[\"flight.booking.confirmed\"]");
    snprintf(path, sizeof(path), "/v1/flight/webhook-subscriptions/%s/recover",
             wh_str(s, "id"));
    r = wh_call(key, "POST", path, "{}");
    e2e_assert_error(r, 422, "validation_failed");
    assert_non_null(wh_detail(r, "since"));
    e2e_free(r);
    /* Times within the retention period (30 days on the test stack). */
    since = e2e_sql_text("SELECT trv_ts(now() - interval '1 hour')", 0, NULL);
    until = e2e_sql_text("SELECT trv_ts(now() - interval '2 hours')", 0, NULL);
    snprintf(body, sizeof(body), "{\"since\": \"%s\", \"until\": \"%s\", \"x\": 1}", since,
             until);
    r = wh_call(key, "POST", path, body);
    e2e_assert_error(r, 422, "validation_failed");
    assert_non_null(wh_detail(r, "until"));
    assert_non_null(wh_detail(r, "x"));
    e2e_free(r);
    r = wh_call(key, "POST", path, "{\"since\": \"2026-11-24 10:00\"}");
    e2e_assert_error(r, 422, "validation_failed");
    e2e_free(r);
    /* The other family's path does not know the subscription. */
    snprintf(path, sizeof(path), "/v1/hotel/webhook-subscriptions/%s/recover",
             wh_str(s, "id"));
    snprintf(body, sizeof(body), "{\"since\": \"%s\"}", since);
    r = wh_call(key, "POST", path, body);
    e2e_assert_error(r, 404, "not_found");
    e2e_free(r);
    free(since);
    free(until);
    json_decref(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(the_event_log_pages_oldest_first_by_after_and_since, setup),
        cmocka_unit_test_setup(recover_checks_its_window, setup),
        cmocka_unit_test_setup(a_receiver_down_for_1000_events_recovers_each_once,
                               setup),
    };
    return E2E_RUN("webhook recovery", tests);
}
