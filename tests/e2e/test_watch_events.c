/* Watcher events end to end, over real HTTP between mod_travel, the
 * sandbox suppliers and the sandbox inbox as the organization's endpoint:
 * a price drop set at the sandbox (POST /sandbox/hotel-prices) fires a
 * price watch once, its event is in the log and reaches the endpoint
 * signed with service-signature, which Stripe's own verifier
 * (stripe.webhooks.constructEvent, tests/e2e/watcher-verifier) accepts; a
 * trip watch matches up to three hotels, cheapest first; events written
 * with no endpoint are sent once one is registered; a failing receiver is
 * retried on the schedule (delivered, or failed when the retries run
 * out); re-registering rotates the secret at once; the log pages by
 * `after` for recovery. */
#include "watch_e2e.h"
#include "test_webhook_common.h"

#include <openssl/hmac.h>

static char *key, *org, *other, *other_org;

static int setup(void **state)
{
    (void)state;
    key = e2e_new_org_key("watch-events", &org);
    other = e2e_new_org_key("watch-events-other", &other_org);
    return 0;
}

/* Registers (or replaces) an organization's endpoint at a fresh inbox;
 * returns the secret (malloc'd), fills inbox. */
static char *register_inbox(const char *k, char *inbox, size_t ilen, long expect)
{
    char url[512], body[700];
    e2e_resp *r;
    char *secret;
    wh_inbox(inbox, ilen, url, sizeof(url));
    snprintf(body, sizeof(body), "{\"url\":\"%s\"}", url);
    r = we_call(k, "POST", "/v1/watcher/webhooks", body);
    fe_expect(r, expect, "registering the watcher endpoint");
    assert_string_equal(fe_s(fe_data(r), "url"), url);
    secret = strdup(fe_s(fe_data(r), "signing_secret"));
    assert_int_equal(strncmp(secret, "whsec_", 6), 0);
    e2e_free(r);
    return secret;
}

/* The org's log entries (a new array), all pages of `limit`. */
static json_t *log_all(const char *k, int limit)
{
    json_t *all = json_array();
    char path[256], *after = NULL;
    for (;;) {
        e2e_resp *r;
        size_t n;
        if (after) {
            snprintf(path, sizeof(path), "/v1/watcher/events?limit=%d&after=%s", limit, after);
        }
        else {
            snprintf(path, sizeof(path), "/v1/watcher/events?limit=%d", limit);
        }
        r = we_call(k, "GET", path, NULL);
        fe_expect(r, 200, "reading the event log");
        n = json_array_size(fe_data(r));
        assert_true(n <= (size_t)limit);
        json_array_extend(all, fe_data(r));
        free(after);
        after = n ? strdup(fe_s(json_array_get(fe_data(r), n - 1), "id")) : NULL;
        e2e_free(r);
        if (n < (size_t)limit) {
            free(after);
            return all;
        }
    }
}

/* The log entries of one watch. */
static json_t *log_of_watch(const char *k, const char *watch_id)
{
    json_t *all = log_all(k, 50), *out = json_array(), *e;
    size_t i;
    json_array_foreach(all, i, e) {
        const json_t *w = json_object_get(json_object_get(json_object_get(e, "payload"),
                                                          "data"), "watch");
        if (strcmp(fe_s(w, "id"), watch_id) == 0) {
            json_array_append(out, e);
        }
    }
    json_decref(all);
    return out;
}

/* Waits until the watch's event is in the log with `status`; returns it. */
static json_t *wait_event(const char *k, const char *watch_id, const char *status,
                          long timeout_ms)
{
    long t0 = e2e_now_ms();
    for (;;) {
        json_t *l = log_of_watch(k, watch_id);
        if (json_array_size(l) == 1
            && strcmp(fe_s(json_array_get(l, 0), "status"), status) == 0) {
            json_t *e = json_incref(json_array_get(l, 0));
            json_decref(l);
            return e;
        }
        assert_true(json_array_size(l) <= 1);
        if (e2e_now_ms() - t0 > timeout_ms) {
            char *t = json_dumps(l, 0);
            fail_msg("no %s event of watch %s in the log: %s", status, watch_id, t);
        }
        json_decref(l);
        e2e_sleep_ms(200);
    }
}

/* The inbox's requests carrying event id (by the body's id). */
static json_t *received(const char *inbox, const char *event_id)
{
    json_t *all = wh_inbox_requests(inbox), *out = json_array(), *r;
    size_t i;
    json_array_foreach(all, i, r) {
        json_t *b = json_loads(wh_str(r, "body"), 0, NULL);
        if (b && strcmp(fe_s(b, "id"), event_id) == 0) {
            json_array_append(out, r);
        }
        json_decref(b);
    }
    json_decref(all);
    return out;
}

/* A trip watch of London that matches at once (a high amount). */
static json_t *trip_watch(const char *k, int from, int to)
{
    char body[1024], *stay = we_stay(from, to);
    e2e_resp *r;
    json_t *w;
    snprintf(body, sizeof(body), "{\"destination\":\"London\",%s,\"trigger\":{\"type\":"
             "\"below_total\",\"amount\":100000}}", stay);
    r = we_call(k, "POST", WE_TRIPS, body);
    fe_expect(r, 201, "creating a trip watch");
    w = json_incref(fe_data(r));
    e2e_free(r);
    free(stay);
    return w;
}

/* Stripe's verifier over the cases; skipped when node or the package is
 * missing (make test installs it). */
static void stripe_check(json_t *cases)
{
    char root[2048], dir[4096], cmd[8192], file[] = "/tmp/wtc-cases-XXXXXX", line[256];
    const char *ctl = e2e_env("TRAVEL_TEST_TRAVELCTL");
    FILE *f;
    int fd, rc;
    snprintf(root, sizeof(root), "%s", ctl);
    *strrchr(root, '/') = '\0';
    *strrchr(root, '/') = '\0';
    snprintf(dir, sizeof(dir), "%s/tests/e2e/watcher-verifier", root);
    snprintf(cmd, sizeof(cmd), "command -v node >/dev/null && test -d %s/node_modules/stripe",
             dir);
    if (system(cmd) != 0) {
        print_message("      node or the stripe package is missing (make test installs "
                      "it): the stripe cross-check is skipped\n");
        return;
    }
    fd = mkstemp(file);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(json_dump_file(cases, file, 0), 0);
    snprintf(cmd, sizeof(cmd), "node %s/verify.mjs %s 2>&1", dir, file);
    f = popen(cmd, "r");
    assert_non_null(f);
    while (fgets(line, sizeof(line), f)) {
        print_message("      stripe: %s", line);
    }
    rc = pclose(f);
    unlink(file);
    assert_int_equal(rc, 0);
}

/* service-signature for body at t under secret, as the document says. */
static char *sign(const char *secret, long long t, const char *body)
{
    unsigned char mac[EVP_MAX_MD_SIZE];
    unsigned int n = 0, i;
    char *msg, *out = malloc(128);
    size_t len = strlen(body) + 32;
    msg = malloc(len);
    snprintf(msg, len, "%lld.%s", t, body);
    HMAC(EVP_sha256(), secret, (int)strlen(secret), (unsigned char *)msg, strlen(msg), mac, &n);
    i = (unsigned int)snprintf(out, 128, "t=%lld,v1=", t);
    for (unsigned int k = 0; k < n; k++) {
        i += (unsigned int)sprintf(out + i, "%02x", mac[k]);
    }
    free(msg);
    return out;
}

static void add_case(json_t *cases, const char *secret, const char *header, const char *body,
                     int expect)
{
    json_array_append_new(cases, json_pack("{s:s,s:s,s:s,s:b}", "secret", secret, "header",
                                           header, "body", body, "expect", expect));
}

static void price_drop_fires_once_signed_and_logged(void **state)
{
    char inbox[64], *secret, *tampered, *stale;
    we_hotel h;
    json_t *w, *got, *ev, *reqs, *payload, *body, *cases = json_array();
    const json_t *data, *req;
    const char *sig, *eid;
    e2e_resp *r;
    long t0;
    (void)state;
    secret = register_inbox(key, inbox, sizeof(inbox), 201);
    r = we_call(key, "GET", "/v1/watcher/webhooks", NULL);
    fe_expect(r, 200, "reading the registration");
    assert_null(json_object_get(fe_data(r), "signing_secret"));
    e2e_free(r);
    we_pick_hotel(key, 50, 52, 2, &h);
    /* Below 80% of today's price: not met yet. */
    w = we_price_watch(key, &h, 50, 52, h.cents * 8 / 10, NULL);
    got = we_wait(key, WE_WATCHES, fe_s(w, "id"), "active", 30000);
    assert_int_equal(he_minor(json_object_get(got, "last_price")), h.cents);
    json_decref(got);
    /* The price halves at the supplier: the next check fires the watch. */
    we_price_factor(h.supplier, h.sid, "0.5");
    got = we_wait(key, WE_WATCHES, fe_s(w, "id"), "triggered", 30000);
    assert_non_null(fe_s(got, "triggered_at"));
    assert_true(he_minor(json_object_get(got, "last_price")) <= h.cents * 8 / 10);
    json_decref(got);
    ev = wait_event(key, fe_s(w, "id"), "delivered", 30000);
    eid = fe_s(ev, "id");
    payload = json_object_get(ev, "payload");
    assert_string_equal(fe_s(ev, "type"), "travel.hotel.watch.triggered");
    assert_string_equal(fe_s(payload, "id"), eid);
    assert_string_equal(fe_s(payload, "type"), "travel.hotel.watch.triggered");
    data = json_object_get(payload, "data");
    assert_string_equal(fe_s(data, "user_id"), fe_s(w, "user_id"));
    assert_string_equal(fe_s(json_object_get(data, "watch"), "status"), "triggered");
    assert_string_equal(fe_s(json_object_get(data, "current"), "currency"), "EUR");
    assert_true(he_minor(json_pack("{s:O}", "amount", json_object_get(json_object_get(
                    data, "current"), "total"))) <= h.cents * 8 / 10);
    /* Fires once: more checks of the hotel, no second event. */
    t0 = e2e_now_ms();
    while (e2e_now_ms() - t0 < 3000) {
        e2e_sleep_ms(500);
    }
    json_decref(wait_event(key, fe_s(w, "id"), "delivered", 1000));
    /* The endpoint got exactly the logged body, signed. */
    reqs = received(inbox, eid);
    assert_int_equal(json_array_size(reqs), 1);
    req = json_array_get(reqs, 0);
    body = json_loads(wh_str(req, "body"), 0, NULL);
    assert_non_null(body);
    assert_true(json_equal(body, payload));
    sig = wh_header(req, "service-signature");
    assert_non_null(sig);
    assert_int_equal(strncmp(sig, "t=", 2), 0);
    {
        long long t = strtoll(sig + 2, NULL, 10);
        char *mine = sign(secret, t, wh_str(req, "body"));
        assert_string_equal(sig, mine);
        free(mine);
        stale = sign(secret, t - 400, wh_str(req, "body"));
    }
    tampered = strdup(wh_str(req, "body"));
    tampered[strlen(tampered) / 2] ^= 1;
    add_case(cases, secret, sig, wh_str(req, "body"), 1);
    add_case(cases, "whsec_not-the-secret", sig, wh_str(req, "body"), 0);
    add_case(cases, secret, sig, tampered, 0);
    add_case(cases, secret, stale, wh_str(req, "body"), 0);
    stripe_check(cases);
    we_prices_restore();
    free(tampered);
    free(stale);
    free(secret);
    json_decref(body);
    json_decref(reqs);
    json_decref(ev);
    json_decref(cases);
    json_decref(w);
}

static void trip_watch_matches_cheapest_first_and_waits_for_an_endpoint(void **state)
{
    char inbox[64], *secret;
    json_t *w = trip_watch(other, 60, 62), *ev, *reqs;
    const json_t *matches, *m;
    size_t i;
    long prev = 0;
    (void)state;
    /* No endpoint yet: the event is logged and stays pending. */
    ev = wait_event(other, fe_s(w, "id"), "pending", 60000);
    assert_string_equal(fe_s(ev, "type"), "travel.hotel.trip_watch.triggered");
    matches = json_object_get(json_object_get(json_object_get(ev, "payload"), "data"),
                              "matches");
    assert_int_equal(json_array_size(matches), 3);
    json_array_foreach(matches, i, m) {
        long c = he_minor(json_pack("{s:O}", "amount", json_object_get(m, "total")));
        assert_int_equal(strncmp(fe_s(m, "hotel_id"), "htl_", 4), 0);
        assert_non_null(fe_s(m, "name"));
        assert_string_equal(fe_s(m, "currency"), "EUR");
        assert_true(c > 0 && c <= 10000000);
        assert_true(c >= prev);
        prev = c;
    }
    e2e_sleep_ms(1500);
    json_decref(ev);
    ev = wait_event(other, fe_s(w, "id"), "pending", 1000);
    /* Registering sends it. */
    secret = register_inbox(other, inbox, sizeof(inbox), 201);
    json_decref(ev);
    ev = wait_event(other, fe_s(w, "id"), "delivered", 30000);
    reqs = received(inbox, fe_s(ev, "id"));
    assert_int_equal(json_array_size(reqs), 1);
    json_decref(reqs);
    json_decref(ev);
    free(secret);
    json_decref(w);
}

static void a_failing_receiver_is_retried_then_delivered_or_failed(void **state)
{
    char inbox[64], *secret;
    json_t *w, *ev, *reqs;
    (void)state;
    secret = register_inbox(key, inbox, sizeof(inbox), 200);
    wh_inbox_behave(inbox, "{\"status\": 500, \"times\": 2}");
    w = trip_watch(key, 70, 72);
    ev = wait_event(key, fe_s(w, "id"), "delivered", 60000);
    reqs = received(inbox, fe_s(ev, "id"));
    assert_int_equal(json_array_size(reqs), 3);   /* 500, 500, then 200 */
    json_decref(reqs);
    json_decref(ev);
    json_decref(w);
    /* Every attempt refused: failed once the schedule (1 1 1) is used up. */
    wh_inbox_behave(inbox, "{\"status\": 503, \"times\": 100}");
    w = trip_watch(key, 73, 75);
    ev = wait_event(key, fe_s(w, "id"), "failed", 60000);
    reqs = received(inbox, fe_s(ev, "id"));
    assert_int_equal(json_array_size(reqs), 4);
    json_decref(reqs);
    json_decref(ev);
    json_decref(w);
    free(secret);
}

static void re_registering_rotates_the_secret_at_once(void **state)
{
    char inbox1[64], inbox2[64], *s1, *s2;
    json_t *w, *ev, *reqs, *cases = json_array();
    const json_t *req;
    e2e_resp *r;
    (void)state;
    s1 = register_inbox(key, inbox1, sizeof(inbox1), 200);
    s2 = register_inbox(key, inbox2, sizeof(inbox2), 200);
    assert_string_not_equal(s1, s2);
    r = we_call(key, "GET", "/v1/watcher/webhooks", NULL);
    fe_expect(r, 200, "reading the registration");
    assert_non_null(strstr(fe_s(fe_data(r), "url"), inbox2));
    e2e_free(r);
    w = trip_watch(key, 80, 82);
    ev = wait_event(key, fe_s(w, "id"), "delivered", 60000);
    assert_int_equal(json_array_size(received(inbox1, fe_s(ev, "id"))), 0);
    reqs = received(inbox2, fe_s(ev, "id"));
    assert_int_equal(json_array_size(reqs), 1);
    req = json_array_get(reqs, 0);
    add_case(cases, s2, wh_header(req, "service-signature"), wh_str(req, "body"), 1);
    add_case(cases, s1, wh_header(req, "service-signature"), wh_str(req, "body"), 0);
    stripe_check(cases);
    json_decref(cases);
    json_decref(reqs);
    json_decref(ev);
    json_decref(w);
    free(s1);
    free(s2);
}

static void the_log_pages_by_after_for_recovery(void **state)
{
    json_t *all, *page1, *w[3];
    char path[256];
    e2e_resp *r;
    size_t i, before = json_array_size(log_all(key, 200));
    (void)state;
    for (i = 0; i < 3; i++) {
        w[i] = trip_watch(key, 90 + 3 * (int)i, 91 + 3 * (int)i);
    }
    for (i = 0; i < 3; i++) {
        json_decref(wait_event(key, fe_s(w[i], "id"), "delivered", 60000));
    }
    all = log_all(key, 2);   /* pages of two until a short page */
    assert_int_equal(json_array_size(all), before + 3);
    for (i = 1; i < json_array_size(all); i++) {
        assert_true(strcmp(fe_s(json_array_get(all, i - 1), "id"),
                           fe_s(json_array_get(all, i), "id")) < 0);
    }
    page1 = log_all(key, 200);
    assert_true(json_equal(all, page1));
    /* after: the entries after that one only. */
    snprintf(path, sizeof(path), "/v1/watcher/events?after=%s",
             fe_s(json_array_get(all, before), "id"));
    r = we_call(key, "GET", path, NULL);
    fe_expect(r, 200, "the log after an entry");
    assert_int_equal(json_array_size(fe_data(r)), 2);
    e2e_free(r);
    /* An id not in this organization's log is a 404. */
    r = we_call(other, "GET", path, NULL);
    e2e_assert_error(r, 404, "not_found");
    e2e_free(r);
    r = we_call(key, "GET", "/v1/watcher/events?after=evt_0193f1c4-7a2e-7c3d-9a1b-2f0c1d2e3f40",
                NULL);
    e2e_assert_error(r, 404, "not_found");
    e2e_free(r);
    r = we_call(key, "GET", "/v1/watcher/events?limit=0", NULL);
    e2e_assert_error(r, 422, "validation_failed");
    e2e_free(r);
    r = we_call(key, "GET", "/v1/watcher/events?limit=201", NULL);
    e2e_assert_error(r, 422, "validation_failed");
    e2e_free(r);
    for (i = 0; i < 3; i++) {
        json_decref(w[i]);
    }
    json_decref(all);
    json_decref(page1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(price_drop_fires_once_signed_and_logged, setup),
        cmocka_unit_test(trip_watch_matches_cheapest_first_and_waits_for_an_endpoint),
        cmocka_unit_test(a_failing_receiver_is_retried_then_delivered_or_failed),
        cmocka_unit_test(re_registering_rotates_the_secret_at_once),
        cmocka_unit_test(the_log_pages_by_after_for_recovery),
    };
    return E2E_RUN("watch_events", tests);
}
