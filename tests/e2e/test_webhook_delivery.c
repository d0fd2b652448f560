/* The delivery engine against the sandbox inbox: events fanned out to
 * matching subscriptions, signed per Standard Webhooks (checked by an
 * independent verifier), retried on the schedule (the test stack's is
 * "1 1 1": four attempts a second apart), paused, replayed by the rules of
 * the service document, and refused at connect time when the address is
 * not a permitted target. */
#include "test_webhook_common.h"

static char *key, *org;

/* Each test has an organization of its own (five subscriptions each). */
static int setup(void **state)
{
    (void)state;
    free(key);
    free(org);
    key = e2e_new_org_key("deliveries", &org);
    return 0;
}

static json_t *subscribe_inbox(const char *family, const char *types, char *inbox,
                               size_t ilen)
{
    char url[256];
    wh_inbox(inbox, ilen, url, sizeof(url));
    return wh_subscribe(key, family, url, types);
}

/* Requests the inbox received for one event. */
static json_t *requests_for(const char *inbox, const char *event_id)
{
    json_t *all = wh_inbox_requests(inbox), *out = json_array(), *r;
    size_t i;
    json_array_foreach(all, i, r) {
        const char *id = wh_header(r, "webhook-id");
        if (id && strcmp(id, event_id) == 0) {
            json_array_append(out, r);
        }
    }
    json_decref(all);
    return out;
}

static void wait_published(const char *event_id)
{
    const char *p[1] = {event_id};
    long t0 = e2e_now_ms();
    while (e2e_sql_long("SELECT count(*) FROM events WHERE id = $1 AND published_at IS NOT NULL",
                        1, p) == 0) {
        assert_true(e2e_now_ms() - t0 < 20000);
        e2e_sleep_ms(50);
    }
}

static long attempt_status(const json_t *d, size_t i)
{
    return (long)json_integer_value(json_object_get(
        json_array_get(json_object_get(d, "attempts"), i), "response_status"));
}

static void event_is_delivered_signed_and_recorded(void **state)
{
    char inbox[64], hinbox[64];
    json_t *s = subscribe_inbox("flight", "[\"flight.booking.confirmed\"]", inbox,
                                sizeof(inbox));
    json_t *hs = subscribe_inbox("hotel", "[\"hotel.booking.confirmed\"]", hinbox,
                                 sizeof(hinbox));
    const char *data = "{\"booking\": {\"id\": \"bkg_demo-1\", \"status\": \"CONFIRMED\", "
                       "\"total_amount\": {\"amount\": 1234.5, \"currency\": \"EUR\"}}}";
    char *ev = wh_emit(org, "flight.booking.confirmed", data);
    char *other = wh_emit(org, "flight.booking.failed", "{\"booking\": {\"id\": \"bkg_2\"}}");
    char *dlv, *tampered;
    json_t *d, *reqs, *req, *body, *sent, *a;
    (void)state;

    dlv = wh_delivery_of(wh_str(s, "id"), ev);
    assert_non_null(dlv);
    assert_true(strncmp(dlv, "dlv_", 4) == 0);
    d = wh_wait_delivery(key, "flight", wh_str(s, "id"), dlv, "DELIVERED", 1, 20000);
    /* The delivery record. */
    assert_string_equal(wh_str(json_object_get(d, "event"), "id"), ev);
    assert_string_equal(wh_str(json_object_get(d, "event"), "type"), "flight.booking.confirmed");
    sent = json_loads(data, 0, NULL);
    assert_true(json_equal(json_object_get(json_object_get(d, "event"), "data"), sent));
    assert_int_equal(json_integer_value(json_object_get(d, "replay_count")), 0);
    assert_true(json_is_null(json_object_get(d, "failure_reason")));
    assert_true(json_is_string(json_object_get(d, "published_at")));
    assert_true(json_is_string(json_object_get(d, "delivered_at")));
    assert_true(json_is_null(json_object_get(d, "failed_at")));
    assert_int_equal(json_array_size(json_object_get(d, "attempts")), 1);
    a = json_array_get(json_object_get(d, "attempts"), 0);
    assert_int_equal(json_integer_value(json_object_get(a, "attempt_number")), 1);
    assert_int_equal(json_integer_value(json_object_get(a, "response_status")), 200);
    assert_non_null(strstr(wh_str(a, "response_body"), "\"received\":true"));
    assert_int_equal(strlen(wh_str(a, "created_at")), 24);

    /* What the receiver got: one signed POST of the event envelope. */
    reqs = requests_for(inbox, ev);
    assert_int_equal(json_array_size(reqs), 1);
    req = json_array_get(reqs, 0);
    assert_string_equal(wh_str(req, "method"), "POST");
    assert_non_null(strstr(wh_header(req, "content-type"), "application/json"));
    assert_string_equal(wh_header(req, "webhook-id"), ev);
    assert_int_equal(wh_signature_count(req), 1);
    assert_true(wh_request_verifies(req, wh_str(s, "signing_secret")));
    assert_false(wh_request_verifies(req, wh_str(hs, "signing_secret")));
    body = json_loads(wh_str(req, "body"), 0, NULL);
    assert_non_null(body);
    assert_string_equal(wh_str(body, "id"), ev);
    assert_string_equal(wh_str(body, "type"), "flight.booking.confirmed");
    assert_string_equal(wh_str(body, "created_at"),
                        wh_str(json_object_get(d, "event"), "created_at"));
    assert_true(json_equal(json_object_get(body, "data"), sent));
    /* A receiver rejects a body changed in transit. */
    tampered = strdup(wh_str(req, "body"));
    tampered[strlen(tampered) - 2] ^= 1;
    assert_false(swh_verify(wh_str(s, "signing_secret"), ev, wh_header(req, "webhook-timestamp"),
                            wh_header(req, "webhook-signature"), tampered, strlen(tampered)));
    free(tampered);

    /* Unsubscribed types and the other family's subscriptions get nothing. */
    wait_published(other);
    {
        const char *p[2] = {other, ev};
        assert_int_equal(e2e_sql_long("SELECT count(*) FROM webhook_deliveries WHERE "
                                      "event_id IN ($1, $2) AND subscription_id IN "
                                      "(SELECT id FROM webhook_subscriptions WHERE family = "
                                      "'hotel')", 2, p), 0);
        assert_int_equal(e2e_sql_long("SELECT count(*) FROM webhook_deliveries WHERE "
                                      "event_id = $1", 1, p), 0);
    }
    json_decref(reqs);
    json_decref(body);
    json_decref(sent);
    json_decref(d);
    free(dlv);
    free(ev);
    free(other);

    /* The hotel family works the same way. */
    ev = wh_emit(org, "hotel.booking.confirmed", "{\"booking\": {\"id\": \"bkg_h1\"}}");
    dlv = wh_delivery_of(wh_str(hs, "id"), ev);
    assert_non_null(dlv);
    d = wh_wait_delivery(key, "hotel", wh_str(hs, "id"), dlv, "DELIVERED", 1, 20000);
    reqs = requests_for(hinbox, ev);
    assert_int_equal(json_array_size(reqs), 1);
    assert_true(wh_request_verifies(json_array_get(reqs, 0), wh_str(hs, "signing_secret")));
    json_decref(reqs);
    json_decref(d);
    free(dlv);
    free(ev);
    json_decref(s);
    json_decref(hs);
}

static char *rotate(const char *family, const char *sub_id)
{
    char path[256];
    e2e_resp *r;
    char *secret;
    snprintf(path, sizeof(path), "/v1/%s/webhook-subscriptions/%s/rotate-secret", family,
             sub_id);
    r = wh_call(key, "POST", path, NULL);
    assert_int_equal(r->status, 200);
    secret = strdup(wh_str(json_object_get(r->json, "data"), "signing_secret"));
    e2e_free(r);
    return secret;
}

static void rotation_signs_with_both_secrets_for_new_requests_only(void **state)
{
    char inbox[64];
    json_t *s = subscribe_inbox("flight", "[\"flight.booking.confirmed\"]", inbox,
                                sizeof(inbox));
    const char *s1 = wh_str(s, "signing_secret");
    char *s2, *s3, *e1, *e2, *e3, *d1, *d2, *d3;
    json_t *d, *reqs, *r;
    size_t i;
    (void)state;

    /* e1 is queued, then the secret rotates while it is being retried. */
    wh_inbox_behave(inbox, "{\"status\": 500, \"times\": 2}");
    e1 = wh_emit(org, "flight.booking.confirmed", "{\"booking\": {\"id\": \"bkg_r1\"}}");
    d1 = wh_delivery_of(wh_str(s, "id"), e1);
    assert_non_null(d1);
    s2 = rotate("flight", wh_str(s, "id"));
    d = wh_wait_delivery(key, "flight", wh_str(s, "id"), d1, "DELIVERED", 3, 20000);
    json_decref(d);
    reqs = requests_for(inbox, e1);
    assert_int_equal(json_array_size(reqs), 3);
    json_array_foreach(reqs, i, r) {
        /* Queued before the rotation: the old signature only. */
        assert_int_equal(wh_signature_count(r), 1);
        assert_true(wh_request_verifies(r, s1));
        assert_false(wh_request_verifies(r, s2));
    }
    json_decref(reqs);

    /* A new request carries one signature per live secret. */
    e2 = wh_emit(org, "flight.booking.confirmed", "{\"booking\": {\"id\": \"bkg_r2\"}}");
    d2 = wh_delivery_of(wh_str(s, "id"), e2);
    d = wh_wait_delivery(key, "flight", wh_str(s, "id"), d2, "DELIVERED", 1, 20000);
    json_decref(d);
    reqs = requests_for(inbox, e2);
    assert_int_equal(json_array_size(reqs), 1);
    r = json_array_get(reqs, 0);
    assert_int_equal(wh_signature_count(r), 2);
    assert_true(wh_request_verifies(r, s2));
    assert_true(wh_request_verifies(r, s1));
    json_decref(reqs);

    /* Rotating again replaces the previous secret: s1 is no longer signed. */
    s3 = rotate("flight", wh_str(s, "id"));
    e3 = wh_emit(org, "flight.booking.confirmed", "{\"booking\": {\"id\": \"bkg_r3\"}}");
    d3 = wh_delivery_of(wh_str(s, "id"), e3);
    d = wh_wait_delivery(key, "flight", wh_str(s, "id"), d3, "DELIVERED", 1, 20000);
    json_decref(d);
    reqs = requests_for(inbox, e3);
    r = json_array_get(reqs, 0);
    assert_int_equal(wh_signature_count(r), 2);
    assert_true(wh_request_verifies(r, s3));
    assert_true(wh_request_verifies(r, s2));
    assert_false(wh_request_verifies(r, s1));
    json_decref(reqs);
    free(s2);
    free(s3);
    free(e1);
    free(e2);
    free(e3);
    free(d1);
    free(d2);
    free(d3);
    json_decref(s);
}

static void failed_attempts_are_retried_on_the_schedule_then_delivered(void **state)
{
    char inbox[64];
    json_t *s = subscribe_inbox("flight", "[\"flight.booking.failed\"]", inbox, sizeof(inbox));
    char *ev, *dlv;
    json_t *d, *att;
    const char *p[2];
    (void)state;
    wh_inbox_behave(inbox, "{\"status\": 500, \"times\": 2}");
    ev = wh_emit(org, "flight.booking.failed", "{\"booking\": {\"id\": \"bkg_f\"}}");
    dlv = wh_delivery_of(wh_str(s, "id"), ev);
    d = wh_wait_delivery(key, "flight", wh_str(s, "id"), dlv, "DELIVERED", 3, 20000);
    att = json_object_get(d, "attempts");
    assert_int_equal(json_array_size(att), 3);
    assert_int_equal(attempt_status(d, 0), 500);
    assert_int_equal(attempt_status(d, 1), 500);
    assert_int_equal(attempt_status(d, 2), 200);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(att, 2),
                                                        "attempt_number")), 3);
    assert_non_null(strstr(wh_str(json_array_get(att, 0), "response_body"),
                           "inbox_told_to_fail"));
    /* A second apart, as the schedule says. */
    p[0] = dlv;
    assert_true(e2e_sql_long("SELECT min(gap) FROM (SELECT extract(epoch FROM created_at - "
                             "lag(created_at) OVER (ORDER BY attempt_number)) * 1000 AS gap "
                             "FROM webhook_attempts WHERE delivery_id = $1) g", 1, p) >= 900);
    {
        json_t *reqs = requests_for(inbox, ev);
        assert_int_equal(json_array_size(reqs), 3);
        json_decref(reqs);
    }
    json_decref(d);
    free(ev);
    free(dlv);
    json_decref(s);
}

static json_t *replay(const char *family, const char *sub_id, const char *dlv,
                      long expect_status, const char *expect_code)
{
    char path[512];
    e2e_resp *r;
    json_t *d = NULL;
    snprintf(path, sizeof(path), "/v1/%s/webhook-subscriptions/%s/deliveries/%s/replay",
             family, sub_id, dlv);
    r = wh_call(key, "POST", path, NULL);
    if (expect_code) {
        e2e_assert_error(r, expect_status, expect_code);
    }
    else {
        if (r->status != expect_status) {
            fail_msg("replay %s: %ld %s", dlv, r->status, r->body);
        }
        d = json_incref(json_object_get(r->json, "data"));
    }
    e2e_free(r);
    return d;
}

static void exhausted_retries_fail_the_delivery_and_replay_sends_it_again(void **state)
{
    char inbox[64], path[256];
    json_t *s = subscribe_inbox("hotel", "[\"hotel.booking.canceled\"]", inbox, sizeof(inbox));
    char *ev, *dlv;
    json_t *d, *reqs;
    e2e_resp *r;
    (void)state;
    wh_inbox_behave(inbox, "{\"status\": 503}");
    ev = wh_emit(org, "hotel.booking.canceled", "{\"booking\": {\"id\": \"bkg_x\"}}");
    dlv = wh_delivery_of(wh_str(s, "id"), ev);
    d = wh_wait_delivery(key, "hotel", wh_str(s, "id"), dlv, "FAILED", 4, 20000);
    assert_string_equal(wh_str(d, "failure_reason"), "retries_exhausted");
    assert_true(json_is_string(json_object_get(d, "failed_at")));
    assert_true(json_is_null(json_object_get(d, "delivered_at")));
    assert_int_equal(json_array_size(json_object_get(d, "attempts")), 4);
    assert_int_equal(attempt_status(d, 3), 503);
    json_decref(d);
    e2e_sleep_ms(1500); /* no fifth attempt comes */
    reqs = requests_for(inbox, ev);
    assert_int_equal(json_array_size(reqs), 4);
    json_decref(reqs);

    /* The receiver is fixed; a replay sends the same event again. */
    snprintf(path, sizeof(path), "/sandbox/inboxes/%s/behavior", inbox);
    r = e2e_call(e2e_sandbox_url(), "DELETE", path, NULL, NULL);
    e2e_free(r);
    d = replay("hotel", wh_str(s, "id"), dlv, 200, NULL);
    assert_string_equal(wh_str(d, "id"), dlv);
    assert_int_equal(json_integer_value(json_object_get(d, "replay_count")), 1);
    assert_string_equal(wh_str(d, "status"), "PENDING");
    assert_int_equal(json_array_size(json_object_get(d, "attempts")), 0);
    assert_true(json_is_null(json_object_get(d, "failure_reason")));
    assert_string_equal(wh_str(json_object_get(d, "event"), "id"), ev);
    json_decref(d);
    d = wh_wait_delivery(key, "hotel", wh_str(s, "id"), dlv, "DELIVERED", 1, 20000);
    /* Attempts are those of the current replay. */
    assert_int_equal(json_array_size(json_object_get(d, "attempts")), 1);
    assert_int_equal(attempt_status(d, 0), 200);
    assert_int_equal(json_integer_value(json_object_get(d, "replay_count")), 1);
    json_decref(d);
    reqs = requests_for(inbox, ev);
    assert_int_equal(json_array_size(reqs), 5);
    assert_true(wh_request_verifies(json_array_get(reqs, 4), wh_str(s, "signing_secret")));
    json_decref(reqs);
    free(ev);
    free(dlv);
    json_decref(s);
}

static void retry_after_on_429_is_answered_by_a_later_attempt(void **state)
{
    char inbox[64];
    json_t *s = subscribe_inbox("flight", "[\"flight.booking.canceled\"]", inbox, sizeof(inbox));
    char *ev, *dlv;
    json_t *d;
    const char *p[1];
    (void)state;
    wh_inbox_behave(inbox, "{\"status\": 429, \"retry_after\": 1, \"times\": 1}");
    ev = wh_emit(org, "flight.booking.canceled", "{\"booking\": {\"id\": \"bkg_c\"}}");
    dlv = wh_delivery_of(wh_str(s, "id"), ev);
    d = wh_wait_delivery(key, "flight", wh_str(s, "id"), dlv, "DELIVERED", 2, 20000);
    assert_int_equal(attempt_status(d, 0), 429);
    assert_int_equal(attempt_status(d, 1), 200);
    p[0] = dlv;
    assert_true(e2e_sql_long("SELECT extract(epoch FROM max(created_at) - min(created_at)) "
                             "* 1000 FROM webhook_attempts WHERE delivery_id = $1", 1, p) >= 900);
    json_decref(d);
    free(ev);
    free(dlv);
    json_decref(s);
}

static void a_hanging_receiver_is_given_up_on_after_10_seconds(void **state)
{
    char inbox[64];
    json_t *s = subscribe_inbox("flight", "[\"flight.booking.confirmed\"]", inbox,
                                sizeof(inbox));
    char *ev, *dlv;
    json_t *d, *a, *reqs;
    long t0 = e2e_now_ms(), ms;
    (void)state;
    wh_inbox_behave(inbox, "{\"status\": 200, \"delay_ms\": 15000, \"times\": 1}");
    ev = wh_emit(org, "flight.booking.confirmed", "{\"booking\": {\"id\": \"bkg_slow\"}}");
    dlv = wh_delivery_of(wh_str(s, "id"), ev);
    d = wh_wait_delivery(key, "flight", wh_str(s, "id"), dlv, "DELIVERED", 2, 40000);
    a = json_array_get(json_object_get(d, "attempts"), 0);
    assert_int_equal(json_integer_value(json_object_get(a, "response_status")), 0);
    assert_non_null(strstr(wh_str(a, "error"), "imed out"));
    ms = (long)json_integer_value(json_object_get(a, "duration_ms"));
    assert_true(ms >= 9900 && ms < 12000);
    assert_int_equal(attempt_status(d, 1), 200);
    assert_true(e2e_now_ms() - t0 >= 10000);
    /* Held past the job lease while waiting: nobody sent it twice. */
    reqs = requests_for(inbox, ev);
    assert_int_equal(json_array_size(reqs), 2);
    json_decref(reqs);
    json_decref(d);
    free(ev);
    free(dlv);
    json_decref(s);
}

static json_t *patch(const char *family, const char *sub_id, const char *body)
{
    char path[256];
    e2e_resp *r;
    json_t *d;
    snprintf(path, sizeof(path), "/v1/%s/webhook-subscriptions/%s", family, sub_id);
    r = wh_call(key, "PATCH", path, body);
    assert_int_equal(r->status, 200);
    d = json_incref(json_object_get(r->json, "data"));
    e2e_free(r);
    return d;
}

static void pausing_stops_new_events_but_not_queued_requests(void **state)
{
    char inbox_a[64], inbox_b[64], url_b[256], body[512];
    json_t *s = subscribe_inbox("flight", "[\"flight.booking.confirmed\"]", inbox_a,
                                sizeof(inbox_a));
    const char *sid = wh_str(s, "id");
    char *e1, *e2, *d1, *d2;
    json_t *d, *reqs;
    (void)state;
    wh_inbox(inbox_b, sizeof(inbox_b), url_b, sizeof(url_b));

    /* e1 is queued (and failing) when the subscription is paused and moved. */
    wh_inbox_behave(inbox_a, "{\"status\": 500, \"times\": 2}");
    e1 = wh_emit(org, "flight.booking.confirmed", "{\"booking\": {\"id\": \"bkg_p1\"}}");
    d1 = wh_delivery_of(sid, e1);
    assert_non_null(d1);
    snprintf(body, sizeof(body), "{\"status\": \"PAUSED\", \"url\": \"%s\"}", url_b);
    json_decref(patch("flight", sid, body));
    /* Its retries still go, to the URL it was queued with. */
    d = wh_wait_delivery(key, "flight", sid, d1, "DELIVERED", 3, 20000);
    json_decref(d);
    reqs = requests_for(inbox_a, e1);
    assert_int_equal(json_array_size(reqs), 3);
    json_decref(reqs);
    reqs = requests_for(inbox_b, e1);
    assert_int_equal(json_array_size(reqs), 0);
    json_decref(reqs);

    /* An event while paused fails at once and is never sent... */
    e2 = wh_emit(org, "flight.booking.confirmed", "{\"booking\": {\"id\": \"bkg_p2\"}}");
    d2 = wh_delivery_of(sid, e2);
    assert_non_null(d2);
    d = wh_get_delivery(key, "flight", sid, d2);
    assert_string_equal(wh_str(d, "status"), "FAILED");
    assert_string_equal(wh_str(d, "failure_reason"), "subscription_paused");
    assert_true(json_is_string(json_object_get(d, "failed_at")));
    assert_int_equal(json_array_size(json_object_get(d, "attempts")), 0);
    json_decref(d);
    /* ...nor can it be replayed while paused. */
    replay("flight", sid, d2, 409, "subscription_paused");
    replay("flight", sid, d1, 409, "subscription_paused");
    /* Resuming does not send it later by itself. */
    json_decref(patch("flight", sid, "{\"status\": \"ACTIVE\"}"));
    e2e_sleep_ms(1500);
    reqs = requests_for(inbox_a, e2);
    assert_int_equal(json_array_size(reqs), 0);
    json_decref(reqs);
    reqs = requests_for(inbox_b, e2);
    assert_int_equal(json_array_size(reqs), 0);
    json_decref(reqs);
    /* A replay after resuming sends it, to the subscription's URL now. */
    d = replay("flight", sid, d2, 200, NULL);
    json_decref(d);
    d = wh_wait_delivery(key, "flight", sid, d2, "DELIVERED", 1, 20000);
    json_decref(d);
    reqs = requests_for(inbox_b, e2);
    assert_int_equal(json_array_size(reqs), 1);
    assert_true(wh_request_verifies(json_array_get(reqs, 0), wh_str(s, "signing_secret")));
    json_decref(reqs);
    free(e1);
    free(e2);
    free(d1);
    free(d2);
    json_decref(s);
}

/* A delivery in a given state, made directly in the database: an event
 * that was published and a delivery row, with no send job (a sender would
 * otherwise move it on before the test looks). */
static char *fixture_delivery(const char *sub_id, const char *status, const char *age_sql,
                              char **event_id)
{
    const char *p[4] = {org, sub_id, status, age_sql};
    char *ev = e2e_sql_text("INSERT INTO events (id, org_id, family, type, data, published_at) "
                            "VALUES ('evt_' || gen_random_uuid(), $1, 'flight', "
                            "'flight.booking.confirmed', '{\"booking\": {\"id\": \"bkg_fx\"}}', "
                            "now()) RETURNING id", 1, p);
    const char *q[4] = {sub_id, ev, status, age_sql};
    char *dlv = e2e_sql_text("INSERT INTO webhook_deliveries (id, subscription_id, org_id, "
                             "event_id, status, url, secrets_enc, queued_at, published_at) "
                             "SELECT 'dlv_' || gen_random_uuid(), s.id, s.org_id, $2, $3, "
                             "s.url, ARRAY[s.secret_enc], now() - $4::interval, "
                             "CASE WHEN $3 = 'PUBLISHED' THEN now() - $4::interval END "
                             "FROM webhook_subscriptions s WHERE s.id = $1 RETURNING id", 4, q);
    assert_non_null(dlv);
    *event_id = ev;
    return dlv;
}

static void age(const char *dlv, const char *age_sql)
{
    const char *p[2] = {dlv, age_sql};
    e2e_sql_exec("UPDATE webhook_deliveries SET queued_at = now() - $2::interval, "
                 "published_at = CASE WHEN status = 'PUBLISHED' THEN now() - $2::interval END "
                 "WHERE id = $1", 2, p);
}

static void replay_follows_the_documented_rules(void **state)
{
    char inbox[64], inbox2[64];
    json_t *s = subscribe_inbox("flight", "[\"flight.booking.confirmed\"]", inbox,
                                sizeof(inbox));
    json_t *s2 = subscribe_inbox("flight", "[\"flight.booking.confirmed\"]", inbox2,
                                 sizeof(inbox2));
    const char *sid = wh_str(s, "id");
    char *ev, *dlv, *other_key;
    json_t *d, *reqs;
    (void)state;

    /* PENDING: only after a minute. */
    dlv = fixture_delivery(sid, "PENDING", "30 seconds", &ev);
    replay("flight", sid, dlv, 409, "not_replayable");
    age(dlv, "61 seconds");
    d = replay("flight", sid, dlv, 200, NULL);
    assert_int_equal(json_integer_value(json_object_get(d, "replay_count")), 1);
    json_decref(d);
    d = wh_wait_delivery(key, "flight", sid, dlv, "DELIVERED", 1, 20000);
    json_decref(d);
    free(dlv);
    free(ev);

    /* PUBLISHED: only 2 h 15 min after it was published without a result. */
    dlv = fixture_delivery(sid, "PUBLISHED", "2 hours", &ev);
    replay("flight", sid, dlv, 409, "not_replayable");
    age(dlv, "2 hours 14 minutes 50 seconds");
    replay("flight", sid, dlv, 409, "not_replayable");
    age(dlv, "2 hours 15 minutes 10 seconds");
    d = replay("flight", sid, dlv, 200, NULL);
    json_decref(d);
    d = wh_wait_delivery(key, "flight", sid, dlv, "DELIVERED", 1, 20000);
    json_decref(d);

    /* DELIVERED: yes, again and again, keeping the event id and signing afresh. */
    d = replay("flight", sid, dlv, 200, NULL);
    assert_int_equal(json_integer_value(json_object_get(d, "replay_count")), 2);
    json_decref(d);
    d = wh_wait_delivery(key, "flight", sid, dlv, "DELIVERED", 1, 20000);
    assert_int_equal(json_integer_value(json_object_get(d, "replay_count")), 2);
    assert_string_equal(wh_str(json_object_get(d, "event"), "id"), ev);
    json_decref(d);
    reqs = requests_for(inbox, ev);
    assert_int_equal(json_array_size(reqs), 2);
    assert_true(wh_request_verifies(json_array_get(reqs, 0), wh_str(s, "signing_secret")));
    assert_true(wh_request_verifies(json_array_get(reqs, 1), wh_str(s, "signing_secret")));
    json_decref(reqs);

    /* Not another subscription's or organization's delivery. */
    replay("flight", wh_str(s2, "id"), dlv, 404, "not_found");
    other_key = e2e_new_org_key("stranger", NULL);
    {
        char path[512];
        e2e_resp *r;
        snprintf(path, sizeof(path), "/v1/flight/webhook-subscriptions/%s/deliveries/%s/replay",
                 sid, dlv);
        r = wh_call(other_key, "POST", path, NULL);
        e2e_assert_error(r, 404, "not_found");
        e2e_free(r);
        snprintf(path, sizeof(path), "/v1/hotel/webhook-subscriptions/%s/deliveries/%s/replay",
                 sid, dlv);
        r = wh_call(key, "POST", path, NULL);
        e2e_assert_error(r, 404, "not_found");
        e2e_free(r);
    }
    replay("flight", sid, "dlv_0000-unknown", 404, "not_found");
    free(other_key);
    free(dlv);
    free(ev);
    json_decref(s);
    json_decref(s2);
}

static void deliveries_are_listed_newest_first_with_filters(void **state)
{
    char inbox[64], path[512];
    json_t *s = subscribe_inbox("hotel", "[\"hotel.booking.confirmed\"]", inbox, sizeof(inbox));
    const char *sid = wh_str(s, "id");
    char *ev[3], *dlv[3];
    e2e_resp *r;
    json_t *data, *meta;
    int i;
    (void)state;
    for (i = 0; i < 3; i++) {
        json_t *d;
        ev[i] = wh_emit(org, "hotel.booking.confirmed", "{\"booking\": {\"id\": \"bkg_l\"}}");
        dlv[i] = wh_delivery_of(sid, ev[i]);
        d = wh_wait_delivery(key, "hotel", sid, dlv[i], "DELIVERED", 1, 20000);
        json_decref(d);
    }
    snprintf(path, sizeof(path), "/v1/hotel/webhook-subscriptions/%s/deliveries", sid);
    r = wh_call(key, "GET", path, NULL);
    assert_int_equal(r->status, 200);
    data = json_object_get(r->json, "data");
    meta = json_object_get(r->json, "meta");
    assert_int_equal(json_array_size(data), 3);
    for (i = 0; i < 3; i++) {
        json_t *d = json_array_get(data, (size_t)i);
        assert_string_equal(wh_str(d, "id"), dlv[2 - i]);
        assert_string_equal(wh_str(json_object_get(d, "event"), "id"), ev[2 - i]);
        assert_int_equal(json_array_size(json_object_get(d, "attempts")), 1);
    }
    assert_int_equal(json_integer_value(json_object_get(meta, "limit")), 25);
    assert_int_equal(json_integer_value(json_object_get(meta, "offset")), 0);
    assert_false(json_is_true(json_object_get(json_object_get(meta, "pagination"), "has_more")));
    e2e_free(r);

    snprintf(path, sizeof(path), "/v1/hotel/webhook-subscriptions/%s/deliveries?limit=2", sid);
    r = wh_call(key, "GET", path, NULL);
    data = json_object_get(r->json, "data");
    assert_int_equal(json_array_size(data), 2);
    assert_string_equal(wh_str(json_array_get(data, 0), "id"), dlv[2]);
    assert_true(json_is_true(json_object_get(json_object_get(json_object_get(r->json, "meta"),
                                                             "pagination"), "has_more")));
    e2e_free(r);
    snprintf(path, sizeof(path), "/v1/hotel/webhook-subscriptions/%s/deliveries?limit=2&offset=2",
             sid);
    r = wh_call(key, "GET", path, NULL);
    data = json_object_get(r->json, "data");
    assert_int_equal(json_array_size(data), 1);
    assert_string_equal(wh_str(json_array_get(data, 0), "id"), dlv[0]);
    e2e_free(r);
    snprintf(path, sizeof(path), "/v1/hotel/webhook-subscriptions/%s/deliveries?status=FAILED",
             sid);
    r = wh_call(key, "GET", path, NULL);
    assert_int_equal(json_array_size(json_object_get(r->json, "data")), 0);
    e2e_free(r);
    snprintf(path, sizeof(path),
             "/v1/hotel/webhook-subscriptions/%s/deliveries?status=DELIVERED", sid);
    r = wh_call(key, "GET", path, NULL);
    assert_int_equal(json_array_size(json_object_get(r->json, "data")), 3);
    e2e_free(r);
    /* The flight path does not show hotel subscriptions' deliveries. */
    snprintf(path, sizeof(path), "/v1/flight/webhook-subscriptions/%s/deliveries", sid);
    r = wh_call(key, "GET", path, NULL);
    e2e_assert_error(r, 404, "not_found");
    e2e_free(r);
    for (i = 0; i < 3; i++) {
        free(ev[i]);
        free(dlv[i]);
    }
    json_decref(s);
}

static void a_refused_address_is_caught_at_connect_time(void **state)
{
    char inbox[64], url[256];
    json_t *s = subscribe_inbox("flight", "[\"flight.booking.confirmed\"]", inbox,
                                sizeof(inbox));
    char *ev, *dlv;
    json_t *d, *a, *reqs;
    size_t i;
    const char *p[2];
    (void)state;
    /* As if the subscription's host now resolved to a refused address
     * (DNS rebinding): the queued request names 0.0.0.0, which would reach
     * this machine's sandbox port if it were let through. */
    snprintf(url, sizeof(url), "http://0.0.0.0:%s/inbox/%s",
             strrchr(e2e_sandbox_url(), ':') + 1, inbox);
    dlv = fixture_delivery(wh_str(s, "id"), "PENDING", "0 seconds", &ev);
    p[0] = dlv;
    p[1] = url;
    e2e_sql_exec("WITH d AS (UPDATE webhook_deliveries SET url = $2 WHERE id = $1 RETURNING id) "
                 "INSERT INTO jobs (kind, payload, max_attempts) SELECT 'webhook.send', "
                 "jsonb_build_object('delivery_id', id, 'replay', 0, 'attempt', 1), 25 FROM d",
                 2, p);
    d = wh_wait_delivery(key, "flight", wh_str(s, "id"), dlv, "FAILED", 4, 20000);
    assert_string_equal(wh_str(d, "failure_reason"), "retries_exhausted");
    json_array_foreach(json_object_get(d, "attempts"), i, a) {
        assert_int_equal(json_integer_value(json_object_get(a, "response_status")), 0);
        assert_non_null(strstr(wh_str(a, "error"), "not allowed"));
    }
    reqs = requests_for(inbox, ev);
    assert_int_equal(json_array_size(reqs), 0);
    json_decref(reqs);
    json_decref(d);
    free(ev);
    free(dlv);
    json_decref(s);
}

/* The receiver's side with a Standard Webhooks library from npm
 * (tests/e2e/webhook-verifier, installed by make test), so the signatures
 * are checked by code that is not ours. */
static void add_case(json_t *cases, const json_t *req, const char *secret, const char *body,
                     int expect)
{
    json_array_append_new(cases, json_pack("{s:s,s:{s:s,s:s,s:s},s:s,s:b}",
        "secret", secret, "headers",
        "webhook-id", wh_header(req, "webhook-id"),
        "webhook-timestamp", wh_header(req, "webhook-timestamp"),
        "webhook-signature", wh_header(req, "webhook-signature"),
        "body", body ? body : wh_str(req, "body"), "expect", expect));
}

static void a_standard_webhooks_library_accepts_every_delivery(void **state)
{
    char inbox[64];
    json_t *s = subscribe_inbox("hotel", "[\"hotel.booking.confirmed\"]", inbox, sizeof(inbox));
    const char *sid = wh_str(s, "id"), *s1 = wh_str(s, "signing_secret");
    char *s2, *e1, *e2, *d1, *d2, *tampered;
    json_t *d, *r1, *r2, *cases = json_array();
    (void)state;
    if (!wh_node_verifier()) {
        print_message("      node or the standardwebhooks package is missing "
                      "(make test installs it): skipped\n");
        json_decref(cases);
        json_decref(s);
        skip();
    }
    e1 = wh_emit(org, "hotel.booking.confirmed", "{\"booking\": {\"id\": \"bkg_n1\", "
                 "\"total\": {\"amount\": 99.99, \"currency\": \"EUR\"}}}");
    d1 = wh_delivery_of(sid, e1);
    json_decref(wh_wait_delivery(key, "hotel", sid, d1, "DELIVERED", 1, 20000));
    s2 = rotate("hotel", sid);
    e2 = wh_emit(org, "hotel.booking.confirmed", "{\"booking\": {\"id\": \"bkg_n2\", "
                 "\"note\": \"\u00e9t\u00e9 \u2708\"}}");
    d2 = wh_delivery_of(sid, e2);
    json_decref(wh_wait_delivery(key, "hotel", sid, d2, "DELIVERED", 1, 20000));
    d = requests_for(inbox, e1);
    r1 = json_incref(json_array_get(d, 0));
    json_decref(d);
    d = requests_for(inbox, e2);
    r2 = json_incref(json_array_get(d, 0));
    json_decref(d);
    assert_non_null(r1);
    assert_non_null(r2);
    add_case(cases, r1, s1, NULL, 1);
    add_case(cases, r1, s2, NULL, 0);   /* queued before the rotation */
    add_case(cases, r2, s2, NULL, 1);   /* both secrets sign it */
    add_case(cases, r2, s1, NULL, 1);
    add_case(cases, r2, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", NULL, 0);
    tampered = strdup(wh_str(r2, "body"));
    tampered[10] = tampered[10] == 'x' ? 'y' : 'x';
    add_case(cases, r2, s2, tampered, 0);
    wh_node_verify(cases);
    free(tampered);
    free(s2);
    free(e1);
    free(e2);
    free(d1);
    free(d2);
    json_decref(r1);
    json_decref(r2);
    json_decref(cases);
    json_decref(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(event_is_delivered_signed_and_recorded, setup),
        cmocka_unit_test_setup(rotation_signs_with_both_secrets_for_new_requests_only, setup),
        cmocka_unit_test_setup(failed_attempts_are_retried_on_the_schedule_then_delivered, setup),
        cmocka_unit_test_setup(exhausted_retries_fail_the_delivery_and_replay_sends_it_again, setup),
        cmocka_unit_test_setup(retry_after_on_429_is_answered_by_a_later_attempt, setup),
        cmocka_unit_test_setup(a_hanging_receiver_is_given_up_on_after_10_seconds, setup),
        cmocka_unit_test_setup(pausing_stops_new_events_but_not_queued_requests, setup),
        cmocka_unit_test_setup(replay_follows_the_documented_rules, setup),
        cmocka_unit_test_setup(deliveries_are_listed_newest_first_with_filters, setup),
        cmocka_unit_test_setup(a_refused_address_is_caught_at_connect_time, setup),
        cmocka_unit_test_setup(a_standard_webhooks_library_accepts_every_delivery, setup),
    };
    return E2E_RUN("webhook deliveries", tests);
}
