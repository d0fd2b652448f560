/* The circuit breaker (docs/webhooks.md, "Circuit breaker"): a receiver
 * that hangs does not hold up another receiver's requests; a subscription
 * whose every request fails for TravelWebhookDisableAfter is DISABLED with
 * a reason, its organization's other subscriptions get a
 * hotel.webhook_subscription.disabled event, events that happen while it
 * is disabled are not sent, and PATCH {"status": "ACTIVE"} re-enables it
 * and sends them, in the order of the log. A PATCH held up says where it
 * waited (TRV3900). */
#include "dashboard_e2e.h"
#include "test_webhook_common.h"

#include <pthread.h>

static char *key, *org;

static int setup(void **state)
{
    (void)state;
    free(key);
    free(org);
    key = e2e_new_org_key("breaker", &org);
    return 0;
}

/* n hotel events written in one statement. */
static void emit_many(int n)
{
    char count[16];
    const char *p[2] = {org, count};
    snprintf(count, sizeof(count), "%d", n);
    e2e_sql_exec("INSERT INTO events (id, org_id, family, type, data) "
                 "SELECT 'evt_' || trv_uuid7(), $1, 'hotel', 'hotel.booking.confirmed', "
                 "jsonb_build_object('booking', jsonb_build_object('id', 'bkg_' || g)) "
                 "FROM generate_series(1, $2::int) g", 2, p);
}

static long count_status(const char *sid, const char *status)
{
    const char *p[2] = {sid, status};
    return e2e_sql_long("SELECT count(*) FROM webhook_deliveries WHERE subscription_id = $1 "
                        "AND status = $2", 2, p);
}

static json_t *get_sub(const char *sid)
{
    char path[256];
    e2e_resp *r;
    json_t *d;
    snprintf(path, sizeof(path), "/v1/hotel/webhook-subscriptions/%s", sid);
    r = wh_call(key, "GET", path, NULL);
    assert_int_equal(r->status, 200);
    d = json_incref(json_object_get(r->json, "data"));
    e2e_free(r);
    return d;
}

static void a_hanging_receiver_does_not_hold_up_another(void **state)
{
    char hang[64], hang_url[256], good[64], good_url[256];
    json_t *h, *g;
    const char *p[2];
    long t0, worst;
    (void)state;
    wh_inbox(hang, sizeof(hang), hang_url, sizeof(hang_url));
    wh_inbox(good, sizeof(good), good_url, sizeof(good_url));
    h = wh_subscribe(key, "hotel", hang_url, "[\"hotel.booking.confirmed\"]");
    g = wh_subscribe(key, "hotel", good_url, "[\"hotel.booking.confirmed\"]");
    /* Answers after 12 s: every request to it times out (10 s). */
    wh_inbox_behave(hang, "{\"status\": 200, \"delay_ms\": 12000}");

    /* 200 events to both: each sender batch holds requests to both. */
    emit_many(200);
    t0 = e2e_now_ms();
    while (count_status(wh_str(g, "id"), "DELIVERED") < 200) {
        if (e2e_now_ms() - t0 > 30000) {
            fail_msg("the healthy receiver has %ld of 200 after 30 s",
                     count_status(wh_str(g, "id"), "DELIVERED"));
        }
        e2e_sleep_ms(100);
    }
    /* Every event reached the healthy receiver well before the hanging
     * one's 10 s timeout: no sender waited for the hanging receiver. A
     * sender that waited for its batch would leave the later batches' events
     * for 10 s. */
    p[0] = good;
    worst = e2e_sql_long("SELECT (max(extract(epoch FROM r.received_at - e.created_at)) "
                         "* 1000)::bigint FROM sandbox.inbox_requests r JOIN events e "
                         "ON e.id = r.headers->>'webhook-id' WHERE r.inbox = $1", 1, p);
    print_message("      healthy receiver: 200 events, worst commit to receipt %ld ms\n",
                  worst);
    assert_true(worst < 6000);
    p[0] = wh_str(h, "id");
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM webhook_deliveries WHERE "
                                  "subscription_id = $1 AND status = 'DELIVERED'", 1, p), 0);
    /* The hanging receiver answers again: its retries end it. */
    {
        char path[256];
        e2e_resp *r;
        snprintf(path, sizeof(path), "/sandbox/inboxes/%s/behavior", hang);
        r = e2e_call(e2e_sandbox_url(), "DELETE", path, NULL, NULL);
        e2e_free(r);
    }
    json_decref(h);
    json_decref(g);
}

/* n hotel events written in one statement, booking ids tag-1..tag-n. */
static void emit_tagged(int n, const char *tag)
{
    char count[16];
    const char *p[3] = {org, count, tag};
    snprintf(count, sizeof(count), "%d", n);
    e2e_sql_exec("INSERT INTO events (id, org_id, family, type, data) "
                 "SELECT 'evt_' || trv_uuid7(), $1, 'hotel', 'hotel.booking.confirmed', "
                 "jsonb_build_object('booking', jsonb_build_object('id', $3 || '-' || g)) "
                 "FROM generate_series(1, $2::int) g", 3, p);
}

/* A receiver that answers, but late (1.5 s: a healthy receiver on a
 * saturated machine), while another hangs. 48 events put more than 8 of
 * its requests going on alone in each child; 12 more, committed while
 * those are still going on, are held back: they must look again within
 * moments and go as soon as the first ones answer, not wait as long as the
 * hanging receiver's timeout (they used to wait until the oldest of its
 * requests would have timed out, and up to half as long again: 10 to 15 s,
 * the flake of the first test on a saturated machine). */
static void a_late_receiver_is_not_held_for_a_timeout(void **state)
{
    char hang[64], hang_url[256], late[64], late_url[256], tag[96];
    json_t *h, *l;
    const char *p[2];
    long t0, worst, first;
    (void)state;
    wh_inbox(hang, sizeof(hang), hang_url, sizeof(hang_url));
    wh_inbox(late, sizeof(late), late_url, sizeof(late_url));
    h = wh_subscribe(key, "hotel", hang_url, "[\"hotel.booking.confirmed\"]");
    l = wh_subscribe(key, "hotel", late_url, "[\"hotel.booking.confirmed\"]");
    wh_inbox_behave(hang, "{\"status\": 200, \"delay_ms\": 12000}");
    wh_inbox_behave(late, "{\"status\": 200, \"delay_ms\": 1500}");

    snprintf(tag, sizeof(tag), "late-%s", late);
    emit_tagged(48, "first");
    e2e_sleep_ms(800);
    emit_tagged(12, tag);
    t0 = e2e_now_ms();
    while (count_status(wh_str(l, "id"), "DELIVERED") < 60) {
        if (e2e_now_ms() - t0 > 40000) {
            fail_msg("the late receiver has %ld of 60 after 40 s",
                     count_status(wh_str(l, "id"), "DELIVERED"));
        }
        e2e_sleep_ms(100);
    }
    p[0] = late;
    p[1] = tag;
    /* Commit to receipt (the inbox records a request when it arrives) of
     * the 12: the first of them could only go once a slot freed. */
    worst = e2e_sql_long("SELECT (max(extract(epoch FROM r.received_at - e.created_at)) "
                         "* 1000)::bigint FROM sandbox.inbox_requests r JOIN events e "
                         "ON e.id = r.headers->>'webhook-id' WHERE r.inbox = $1 "
                         "AND e.data->'booking'->>'id' LIKE $2 || '-%'", 2, p);
    first = e2e_sql_long("SELECT (min(extract(epoch FROM r.received_at - e.created_at)) "
                         "* 1000)::bigint FROM sandbox.inbox_requests r JOIN events e "
                         "ON e.id = r.headers->>'webhook-id' WHERE r.inbox = $1 "
                         "AND e.data->'booking'->>'id' LIKE $2 || '-%'", 2, p);
    print_message("      late receiver: 12 events held back, commit to receipt %ld to %ld ms\n",
                  first, worst);
    /* Not held for a timeout: what a receiver relies on. Whether the 12
     * were held at all depends on how many children had 8 of the first 48
     * going on when they were committed, which the machine's load decides
     * (a held one arrives once the first ones answered, 1.5 s after they
     * went; one not held within tens of milliseconds), so that is reported,
     * not required: a run where none was held has nothing slower to show. */
    if (worst < 700) {
        print_message("      (none of the 12 was held back in this run: free slots)\n");
    }
    assert_true(worst < 6000);
    {
        char path[256];
        e2e_resp *r;
        snprintf(path, sizeof(path), "/sandbox/inboxes/%s/behavior", hang);
        r = e2e_call(e2e_sandbox_url(), "DELETE", path, NULL, NULL);
        e2e_free(r);
    }
    json_decref(h);
    json_decref(l);
}

/* While a receiver hangs its circuit is open: the sends of events that
 * happen meanwhile are queued due when its line of held requests reaches
 * them (open_until), not at once, so no sender claims them, holds them and
 * puts them back in the meantime (each such cycle was three statements
 * beside the healthy receivers' own). Once the receiver answers, a 2xx
 * closes the circuit and every event reaches it, each delivered once. */
static void an_open_circuit_keeps_new_sends_out_of_the_queue(void **state)
{
    char hang[64], hang_url[256], tag[96], path[256];
    json_t *h;
    const char *sid, *p[2];
    long t0, n;
    e2e_resp *r;
    (void)state;
    wh_inbox(hang, sizeof(hang), hang_url, sizeof(hang_url));
    h = wh_subscribe(key, "hotel", hang_url, "[\"hotel.booking.confirmed\"]");
    sid = wh_str(h, "id");
    wh_inbox_behave(hang, "{\"status\": 200, \"delay_ms\": 12000}");

    /* More than 8 per child: the rest are held, and once a request has
     * gone 1 s unanswered (the receiver has not answered yet: slow.h) the
     * receiver hangs and they are put in line. */
    emit_many(40);
    p[0] = sid;
    t0 = e2e_now_ms();
    while (e2e_sql_long("SELECT count(*) FROM webhook_subscriptions WHERE id = $1 "
                        "AND open_until > now() + interval '2 seconds' "
                        "AND failing_since IS NOT NULL", 1, p) == 0) {
        if (e2e_now_ms() - t0 > 20000) {
            fail_msg("the hanging receiver's circuit is not open after 20 s");
        }
        e2e_sleep_ms(100);
    }
    print_message("      circuit open %ld ms after the first events\n", e2e_now_ms() - t0);

    /* Events while it is open (2 s ahead at least): a second later their
     * sends are still queued, never claimed (a claim publishes the delivery
     * and counts the job's attempt), due later. */
    snprintf(tag, sizeof(tag), "open-%s", hang);
    emit_tagged(5, tag);
    e2e_sleep_ms(1000);
    p[1] = tag;
    n = e2e_sql_long(
        "SELECT count(*) FROM webhook_deliveries d JOIN events e ON e.id = d.event_id "
        "JOIN jobs j ON j.payload->>'delivery_id' = d.id "
        "WHERE d.subscription_id = $1 AND e.data->'booking'->>'id' LIKE $2 || '-%' "
        "AND d.status = 'PENDING' AND j.attempts = 0 AND j.available_at > now()", 2, p);
    assert_int_equal(n, 5);

    /* It answers again: every one of the 45 events is delivered, once. */
    snprintf(path, sizeof(path), "/sandbox/inboxes/%s/behavior", hang);
    r = e2e_call(e2e_sandbox_url(), "DELETE", path, NULL, NULL);
    e2e_free(r);
    t0 = e2e_now_ms();
    while (count_status(sid, "DELIVERED") < 45) {
        if (e2e_now_ms() - t0 > 90000) {
            fail_msg("the receiver has %ld of 45 after 90 s", count_status(sid, "DELIVERED"));
        }
        e2e_sleep_ms(200);
    }
    print_message("      all 45 delivered %ld ms after it answered again\n", e2e_now_ms() - t0);
    assert_int_equal(e2e_sql_long(
        "SELECT count(*) FROM (SELECT d.id FROM webhook_deliveries d JOIN webhook_attempts a "
        "ON a.delivery_id = d.id WHERE d.subscription_id = $1 AND a.response_status "
        "BETWEEN 200 AND 299 GROUP BY d.id HAVING count(*) = 1) x", 1, p), 45);
    /* The 2xx closed the circuit. */
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM webhook_subscriptions WHERE id = $1 "
                                  "AND open_until IS NULL AND failing_since IS NULL", 1, p), 1);
    json_decref(h);
}

static void a_failing_subscription_is_disabled_and_resumes_when_re_enabled(void **state)
{
    char bad[64], bad_url[256], good[64], good_url[256], inst_url[128], path[256];
    json_t *f, *g, *s;
    const char *fid, *p[3];
    char *mark, *evts[3];
    long pid, t0, n;
    e2e_resp *r;
    PGresult *res;
    int i;
    (void)state;
    wh_inbox(bad, sizeof(bad), bad_url, sizeof(bad_url));
    wh_inbox(good, sizeof(good), good_url, sizeof(good_url));
    f = wh_subscribe(key, "hotel", bad_url, "[\"hotel.booking.confirmed\"]");
    g = wh_subscribe(key, "hotel", good_url, "[\"hotel.booking.canceled\"]");
    fid = wh_str(f, "id");
    wh_inbox_behave(bad, "{\"status\": 500}");
    assert_true(json_is_null(json_object_get(f, "disabled_reason")));

    /* An instance that disables after 2 s of failures (the others keep the
     * default 5 days: they record failures but never disable). */
    pid = e2e_start_instance("breaker", NULL, "TravelWebhookDisableAfter 2s", inst_url,
                             sizeof(inst_url));
    t0 = e2e_now_ms();
    while (1) {
        char *id = wh_emit(org, "hotel.booking.confirmed", "{\"booking\": {\"id\": \"b\"}}");
        free(id);
        e2e_sleep_ms(300);
        s = get_sub(fid);
        if (strcmp(wh_str(s, "status"), "DISABLED") == 0) {
            break;
        }
        json_decref(s);
        if (e2e_now_ms() - t0 > 60000) {
            fail_msg("the failing subscription was not disabled within 60 s");
        }
    }
    e2e_stop_pid(pid);
    print_message("      disabled after %ld ms of failures: %s\n", e2e_now_ms() - t0,
                  wh_str(s, "disabled_reason"));
    assert_non_null(strstr(wh_str(s, "disabled_reason"), "no 2xx answer since"));
    assert_non_null(strstr(wh_str(s, "disabled_reason"), "HTTP 500"));
    json_decref(s);
    /* The dashboard shows it, with the reason, and offers Resume. */
    {
        char login[64];
        dash_session ds;
        e2e_resp *dr;
        const char *at;
        dash_login_name(login, sizeof(login), "breaker");
        dash_htpasswd(login, "correct-horse-battery");
        dash_grant(org, login);
        dash_open(&ds, login, "correct-horse-battery");
        dr = dash_get(&ds, DASH_PATH);
        assert_int_equal(dr->status, 200);
        at = strstr(dr->body, fid);
        assert_non_null(at);
        assert_non_null(strstr(at, "data-status=\"DISABLED\""));
        assert_non_null(strstr(at, "data-disabled-reason>Disabled by the circuit breaker: "
                                   "no 2xx answer since"));
        assert_non_null(strstr(at, "aria-label=\"Resume"));
        e2e_free(dr);
    }
    /* Nothing of it is queued any more. */
    p[0] = fid;
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM webhook_deliveries WHERE "
                                  "subscription_id = $1 AND status IN ('PENDING', 'PUBLISHED')",
                                  1, p), 0);

    /* The other subscription (which asked for other types) is told, signed
     * with its own secret; the event is in the log. */
    p[0] = good;
    t0 = e2e_now_ms();
    while (e2e_sql_long("SELECT count(*) FROM sandbox.inbox_requests WHERE inbox = $1", 1, p)
           < 1) {
        if (e2e_now_ms() - t0 > 20000) {
            fail_msg("the other subscription was not told within 20 s");
        }
        e2e_sleep_ms(100);
    }
    res = PQexecParams(e2e_db(),
                       "SELECT headers->>'webhook-id', headers->>'webhook-timestamp', "
                       "headers->>'webhook-signature', convert_from(body, 'UTF8') "
                       "FROM sandbox.inbox_requests WHERE inbox = $1 ORDER BY id",
                       1, NULL, p, NULL, NULL, 0);
    assert_int_equal(PQntuples(res), 1);
    {
        const char *body = PQgetvalue(res, 0, 3);
        json_t *ev = json_loads(body, 0, NULL);
        assert_non_null(ev);
        assert_string_equal(wh_str(ev, "type"), "hotel.webhook_subscription.disabled");
        assert_string_equal(wh_str(json_object_get(json_object_get(ev, "data"),
                                                   "subscription"), "id"), fid);
        assert_string_equal(wh_str(json_object_get(json_object_get(ev, "data"),
                                                   "subscription"), "status"), "DISABLED");
        assert_true(swh_verify(wh_str(g, "signing_secret"), PQgetvalue(res, 0, 0),
                               PQgetvalue(res, 0, 1), PQgetvalue(res, 0, 2), body,
                               strlen(body)));
        json_decref(ev);
    }
    PQclear(res);
    r = wh_call(key, "GET", "/v1/hotel/events?limit=200", NULL);
    assert_int_equal(r->status, 200);
    assert_non_null(strstr(r->body, "hotel.webhook_subscription.disabled"));
    e2e_free(r);

    /* Disabled: replay and recover are refused, new events are not sent. */
    snprintf(path, sizeof(path), "/v1/hotel/webhook-subscriptions/%s/recover", fid);
    {
        char body[128], *since = e2e_sql_text("SELECT trv_ts(now() - interval '1 hour')", 0,
                                              NULL);
        snprintf(body, sizeof(body), "{\"since\": \"%s\"}", since);
        free(since);
        r = wh_call(key, "POST", path, body);
    }
    e2e_assert_error(r, 409, "subscription_paused");
    e2e_free(r);
    p[0] = bad;
    mark = e2e_sql_text("SELECT coalesce(max(id), 0)::text FROM sandbox.inbox_requests "
                        "WHERE inbox = $1", 1, p);
    for (i = 0; i < 3; i++) {
        char data[64];
        snprintf(data, sizeof(data), "{\"booking\": {\"id\": \"while-disabled-%d\"}}", i);
        evts[i] = wh_emit(org, "hotel.booking.confirmed", data);
        e2e_sleep_ms(5);
    }
    for (i = 0; i < 3; i++) {
        char *dlv = wh_delivery_of(fid, evts[i]);
        json_t *d;
        assert_non_null(dlv);
        d = wh_get_delivery(key, "hotel", fid, dlv);
        assert_string_equal(wh_str(d, "status"), "FAILED");
        assert_string_equal(wh_str(d, "failure_reason"), "subscription_disabled");
        json_decref(d);
        free(dlv);
    }

    /* The receiver is back; re-enabling sends what it missed, in the order
     * of the log, each once. */
    {
        char bpath[256];
        snprintf(bpath, sizeof(bpath), "/sandbox/inboxes/%s/behavior", bad);
        r = e2e_call(e2e_sandbox_url(), "DELETE", bpath, NULL, NULL);
        e2e_free(r);
    }
    /* As if its receiver had also hung before it was disabled: a circuit
     * left open for another 10 minutes (sql/400). Re-enabling closes it,
     * or the events after the re-enabling would wait for it. */
    p[0] = fid;
    e2e_sql_exec("UPDATE webhook_subscriptions SET open_until = now() + interval '10 minutes' "
                 "WHERE id = $1", 1, p);
    snprintf(path, sizeof(path), "/v1/hotel/webhook-subscriptions/%s", fid);
    r = wh_call(key, "PATCH", path, "{\"status\": \"ACTIVE\"}");
    assert_int_equal(r->status, 200);
    s = json_object_get(r->json, "data");
    assert_string_equal(wh_str(s, "status"), "ACTIVE");
    assert_true(json_is_null(json_object_get(s, "disabled_reason")));
    e2e_free(r);
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM webhook_subscriptions WHERE id = $1 "
                                  "AND open_until IS NULL", 1, p), 1);
    p[0] = fid;
    t0 = e2e_now_ms();
    while (e2e_sql_long("SELECT count(*) FROM webhook_deliveries WHERE subscription_id = $1 "
                        "AND failure_reason = 'subscription_disabled'", 1, p) > 0
           || count_status(fid, "PENDING") + count_status(fid, "PUBLISHED") > 0) {
        if (e2e_now_ms() - t0 > 60000) {
            fail_msg("the re-enabled subscription's missed events were not sent in 60 s");
        }
        e2e_sleep_ms(200);
    }
    for (i = 0; i < 3; i++) {
        char *dlv = wh_delivery_of(fid, evts[i]);
        json_t *d = wh_get_delivery(key, "hotel", fid, dlv);
        assert_string_equal(wh_str(d, "status"), "DELIVERED");
        json_decref(d);
        free(dlv);
    }
    /* What the receiver got since: each event once, in the order of the log. */
    p[0] = bad;
    p[1] = mark;
    n = e2e_sql_long("SELECT count(*) FROM (SELECT r.id, e.created_at, e.id AS eid, "
                     "lag(e.created_at) OVER (ORDER BY r.id) AS pc, "
                     "lag(e.id) OVER (ORDER BY r.id) AS pid "
                     "FROM sandbox.inbox_requests r JOIN events e "
                     "ON e.id = r.headers->>'webhook-id' WHERE r.inbox = $1 "
                     "AND r.id > $2::bigint) x WHERE (x.created_at, x.eid) < (x.pc, x.pid)",
                     2, p);
    assert_int_equal(n, 0);
    assert_int_equal(e2e_sql_long("SELECT count(*) - count(DISTINCT headers->>'webhook-id') "
                                  "FROM sandbox.inbox_requests WHERE inbox = $1 "
                                  "AND id > $2::bigint", 2, p), 0);
    assert_true(e2e_sql_long("SELECT count(*) FROM sandbox.inbox_requests WHERE inbox = $1 "
                             "AND id > $2::bigint", 2, p) >= 3);
    /* An event after the re-enabling goes at once, not at the end of the
     * circuit that was left open (after the order check: it is not one of
     * the missed events, which go out one at a time). */
    p[0] = fid;
    {
        char *after = wh_emit(org, "hotel.booking.confirmed",
                              "{\"booking\": {\"id\": \"after-re-enabling\"}}");
        char *dlv;
        p[1] = after;
        t0 = e2e_now_ms();
        while (e2e_sql_long("SELECT count(*) FROM webhook_deliveries WHERE subscription_id = $1 "
                            "AND event_id = $2 AND status = 'DELIVERED'", 2, p) == 0) {
            if (e2e_now_ms() - t0 > 60000) {
                fail_msg("an event after the re-enabling was not delivered in 60 s");
            }
            e2e_sleep_ms(200);
        }
        dlv = wh_delivery_of(fid, after);
        assert_non_null(dlv);
        free(dlv);
        free(after);
    }
    for (i = 0; i < 3; i++) {
        free(evts[i]);
    }
    free(mark);
    json_decref(f);
    json_decref(g);
}

/* A PATCH on its own thread (the main one holds the row it needs). */
typedef struct patch_call {
    char path[256];
    long status;
    char *new_status;
} patch_call;

/* Static: a test that fails while the PATCH is on its way leaves it
 * nothing freed to write to. */
static patch_call pc;

static void *patch_run(void *arg)
{
    patch_call *c = arg;
    e2e_resp *r = wh_call(key, "PATCH", c->path, "{\"status\": \"PAUSED\"}");
    c->status = r->status;
    c->new_status = strdup(wh_str(json_object_get(r->json, "data"), "status"));
    e2e_free(r);
    return NULL;
}

/* The TRV3900 line of instance a's error log naming `sub` (malloc'd), or
 * NULL after 10 s. */
static char *slow_patch_line(const char *sub)
{
    char path[4200];
    const char *needles[] = {"TRV3900: ", sub, NULL};
    snprintf(path, sizeof(path), "%s/httpd-a/error.log", e2e_env("TRAVEL_TEST_DIR"));
    return e2e_log_line(path, needles);
}

/* A PATCH held up (the re-enabling once answered after 61 s, and nothing
 * said why) says where its time went: here the subscription's row is
 * locked by another transaction for 2.5 s after the PATCH began waiting
 * for it; the PATCH answers once it is free, and its TRV3900 warning puts
 * those seconds on the subscription lock, not on the pool or elsewhere. */
static void a_held_up_patch_says_where_it_waited(void **state)
{
    char inbox[64], inbox_url[256];
    json_t *s;
    const char *sid, *p[1];
    char pid[16], *line, *at;
    pthread_t th;
    PGconn *hold;
    PGresult *res;
    long t0;
    double lock_ms;
    (void)state;
    wh_inbox(inbox, sizeof(inbox), inbox_url, sizeof(inbox_url));
    s = wh_subscribe(key, "hotel", inbox_url, "[\"hotel.booking.confirmed\"]");
    sid = wh_str(s, "id");
    memset(&pc, 0, sizeof(pc));
    snprintf(pc.path, sizeof(pc.path), "/v1/hotel/webhook-subscriptions/%s", sid);

    hold = PQconnectdb(e2e_conninfo());
    assert_int_equal(PQstatus(hold), CONNECTION_OK);
    PQclear(PQexec(hold, "BEGIN"));
    p[0] = sid;
    res = PQexecParams(hold, "SELECT 1 FROM webhook_subscriptions WHERE id = $1 FOR UPDATE", 1,
                       NULL, p, NULL, NULL, 0);
    assert_int_equal(PQntuples(res), 1);
    PQclear(res);

    assert_int_equal(pthread_create(&th, NULL, patch_run, &pc), 0);
    /* The PATCH's transaction waits for this one. */
    snprintf(pid, sizeof(pid), "%d", PQbackendPID(hold));
    p[0] = pid;
    t0 = e2e_now_ms();
    while (e2e_sql_long("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                        "AND $1::int = ANY (pg_blocking_pids(pid))", 1, p) == 0) {
        if (e2e_now_ms() - t0 > 20000) {
            PQfinish(hold);
            fail_msg("the PATCH did not wait for the subscription's row within 20 s");
        }
        e2e_sleep_ms(20);
    }
    e2e_sleep_ms(2500);
    PQclear(PQexec(hold, "COMMIT"));
    PQfinish(hold);
    assert_int_equal(pthread_join(th, NULL), 0);
    assert_int_equal(pc.status, 200);
    assert_string_equal(pc.new_status, "PAUSED");
    free(pc.new_status);

    line = slow_patch_line(sid);
    if (!line) {
        fail_msg("no TRV3900 line for the PATCH of %s in instance a's error log", sid);
    }
    print_message("      %s\n", strstr(line, "TRV3900: "));
    assert_non_null(strstr(line, "[travel:warn]"));
    at = strstr(line, "subscription lock ");
    assert_non_null(at);
    lock_ms = atof(at + strlen("subscription lock "));
    assert_true(lock_ms >= 2500.0);
    free(line);
    json_decref(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(a_hanging_receiver_does_not_hold_up_another, setup),
        cmocka_unit_test_setup(a_late_receiver_is_not_held_for_a_timeout, setup),
        cmocka_unit_test_setup(an_open_circuit_keeps_new_sends_out_of_the_queue, setup),
        cmocka_unit_test_setup(a_failing_subscription_is_disabled_and_resumes_when_re_enabled,
                               setup),
        cmocka_unit_test_setup(a_held_up_patch_says_where_it_waited, setup),
    };
    return E2E_RUN("webhook circuit breaker", tests);
}
