/* Auto-purchase over real HTTP: an armed watch (its mandate confirmed)
 * whose price drops at the sandbox buys the stay through the hotel
 * prebook and book of the API — once, even with extra purchase runs racing
 * on both instances — and sends travel.hotel.watch.purchased (the booking
 * with total_amount, the mandate) instead of watch.triggered; a declined
 * card (pi_test_decline) sends purchase_failed; a hotel of the supplier
 * that charges the card itself is bought with the mandate's instrument
 * (vault and forward); a fresh price above the
 * mandate's max_total puts the watch back to active with no purchase
 * event and nothing bought. The traveller stated when a watch is created
 * is what Expedia Rapid receives on its checks and its purchase
 * (sandbox.rapid_travellers). */
#include "watch_e2e.h"

#include <dirent.h>
#include <signal.h>
#include <sys/types.h>

static char *key, *org;

static int setup(void **state)
{
    (void)state;
    key = e2e_new_org_key("watch-purchase", &org);
    return 0;
}

/* A London hotel the service collects the payment for (priced by
 * SUPPLIER_A or SUPPLIER_B), from the nth result on. */
static void pick(int from, int to, int nth, we_hotel *h)
{
    int i;
    for (i = nth; i < nth + 30; i++) {
        we_pick_hotel(key, from, to, i, h);
        if (strcmp(h->supplier, "SUPPLIER_C") != 0) {
            return;
        }
    }
    fail_msg("no London hotel priced by SUPPLIER_A or SUPPLIER_B");
}

static json_t *armed_watch_as(const we_hotel *h, int from, int to, long trigger, long max,
                              const char *instrument, const we_traveller *t)
{
    char extra[1024], path[256];
    json_t *w;
    e2e_resp *r;
    snprintf(extra, sizeof(extra),
             ",\"auto_purchase\":{\"max_total\":%ld.%02ld,\"payment_instrument_id\":\"%s\","
             "\"contact\":{\"first_name\":\"Ada\",\"last_name\":\"Lovelace\",\"email\":"
             "\"ada@example.com\",\"phone\":\"+441234567890\"},\"rooms\":[{\"guests\":[{"
             "\"first_name\":\"Ada\",\"last_name\":\"Lovelace\",\"type\":\"ADULT\","
             "\"is_lead\":true}]}]}", max / 100, max % 100, instrument);
    w = we_price_watch_as(key, h, from, to, trigger, extra, t);
    snprintf(path, sizeof(path), "/v1/mandate/%s/confirm",
             fe_s(json_object_get(w, "mandate"), "id"));
    r = we_call(key, "POST", path, "{}");
    fe_expect(r, 200, "confirming the mandate");
    e2e_free(r);
    json_decref(we_wait(key, WE_WATCHES, fe_s(w, "id"), "armed", 30000));
    return w;
}

static json_t *armed_watch(const we_hotel *h, int from, int to, long trigger, long max,
                           const char *instrument)
{
    return armed_watch_as(h, from, to, trigger, max, instrument, NULL);
}

/* The watch's events in the log (a new array). */
static json_t *events_of(const char *watch_id)
{
    json_t *out = json_array(), *e;
    e2e_resp *r = we_call(key, "GET", "/v1/watcher/events?limit=200", NULL);
    size_t i;
    fe_expect(r, 200, "the event log");
    json_array_foreach(fe_data(r), i, e) {
        const json_t *w = json_object_get(json_object_get(json_object_get(e, "payload"),
                                                          "data"), "watch");
        if (strcmp(fe_s(w, "id"), watch_id) == 0) {
            json_array_append(out, e);
        }
    }
    e2e_free(r);
    return out;
}

static long bookings_of(const char *watch_id)
{
    const char *p[2] = {org, watch_id};
    return e2e_sql_long("SELECT count(*) FROM hotel_bookings WHERE org_id = $1 "
                        "AND reference_id = $2", 2, p);
}

static void an_armed_watch_buys_once(void **state)
{
    we_hotel h;
    json_t *w, *got, *ev;
    const json_t *data, *booking;
    const char *p[1];
    char path[256];
    e2e_resp *r;
    int i;
    (void)state;
    pick(55, 57, 0, &h);
    w = armed_watch(&h, 55, 57, h.cents * 8 / 10, h.cents * 9 / 10, "pi_test_visa");
    p[0] = fe_s(w, "id");
    we_price_factor(h.supplier, h.sid, "0.5");
    /* Purchase runs racing the scheduled one, without its dedupe key: they
     * may run on either instance at once. */
    for (i = 0; i < 3; i++) {
        e2e_sql_exec("INSERT INTO jobs (kind, payload, max_attempts) VALUES ('watch.purchase', "
                     "jsonb_build_object('watch_id', $1::text), 40)", 1, p);
    }
    got = we_wait(key, WE_WATCHES, p[0], "purchased", 60000);
    json_decref(got);
    /* Let every racing run finish. */
    for (i = 0; i < 100 && e2e_sql_long("SELECT count(*) FROM jobs WHERE kind = "
                                        "'watch.purchase' AND payload->>'watch_id' = $1",
                                        1, p) > 0; i++) {
        e2e_sleep_ms(200);
    }
    ev = events_of(p[0]);
    assert_int_equal(json_array_size(ev), 1);
    assert_string_equal(fe_s(json_array_get(ev, 0), "type"), "travel.hotel.watch.purchased");
    data = json_object_get(json_object_get(json_array_get(ev, 0), "payload"), "data");
    booking = json_object_get(data, "booking");
    assert_string_equal(fe_s(data, "mandate_id"), fe_s(json_object_get(w, "mandate"), "id"));
    assert_string_equal(fe_s(booking, "status"), "CONFIRMED");
    assert_string_equal(fe_s(booking, "reference_id"), p[0]);
    assert_true(he_minor(json_object_get(booking, "total_amount")) <= h.cents * 9 / 10);
    assert_int_equal(he_minor(json_object_get(booking, "total_amount")),
                     he_minor(json_object_get(booking, "total")));
    /* One booking, one charge, readable through the API. */
    assert_int_equal(bookings_of(p[0]), 1);
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM hotel_payments y JOIN hotel_bookings b "
                                  "ON b.id = y.booking_id WHERE b.reference_id = $1", 1, p), 1);
    snprintf(path, sizeof(path), "/v1/hotel/bookings/%s", fe_s(booking, "id"));
    r = we_call(key, "GET", path, NULL);
    fe_expect(r, 200, "the bought booking");
    assert_string_equal(fe_s(fe_data(r), "status"), "CONFIRMED");
    e2e_free(r);
    we_prices_restore();
    json_decref(ev);
    json_decref(w);
}

static void a_declined_card_sends_purchase_failed(void **state)
{
    we_hotel h;
    json_t *w, *ev;
    const json_t *data;
    (void)state;
    pick(58, 60, 3, &h);
    w = armed_watch(&h, 58, 60, h.cents * 8 / 10, h.cents * 9 / 10, "pi_test_decline");
    we_price_factor(h.supplier, h.sid, "0.5");
    json_decref(we_wait(key, WE_WATCHES, fe_s(w, "id"), "purchase_failed", 60000));
    ev = events_of(fe_s(w, "id"));
    assert_int_equal(json_array_size(ev), 1);
    assert_string_equal(fe_s(json_array_get(ev, 0), "type"),
                        "travel.hotel.watch.purchase_failed");
    data = json_object_get(json_object_get(json_array_get(ev, 0), "payload"), "data");
    assert_string_equal(fe_s(data, "reason"), "payment_declined");
    assert_string_equal(fe_s(json_object_get(data, "current"), "currency"), "EUR");
    we_prices_restore();
    json_decref(ev);
    json_decref(w);
}

static void above_max_total_goes_back_to_active_without_buying(void **state)
{
    we_hotel h;
    json_t *w, *ev;
    size_t i;
    (void)state;
    pick(63, 65, 6, &h);
    /* The trigger is met at half price, the mandate's cap is not. */
    w = armed_watch(&h, 63, 65, h.cents * 8 / 10, h.cents * 3 / 10, "pi_test_visa");
    we_price_factor(h.supplier, h.sid, "0.5");
    /* Active again, then (no longer armed) it fires as a plain watch. */
    json_decref(we_wait(key, WE_WATCHES, fe_s(w, "id"), "triggered", 60000));
    ev = events_of(fe_s(w, "id"));
    for (i = 0; i < json_array_size(ev); i++) {
        assert_string_equal(fe_s(json_array_get(ev, i), "type"),
                            "travel.hotel.watch.triggered");
    }
    assert_int_equal(bookings_of(fe_s(w, "id")), 0);
    we_prices_restore();
    json_decref(ev);
    json_decref(w);
}

/* kill -9 every child of an httpd parent; returns how many. */
static int kill_children(long parent)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    int n = 0;
    while (d && (e = readdir(d))) {
        char path[300], buf[512], *q;
        long ppid = -1, pid = atol(e->d_name);
        FILE *f;
        if (pid <= 1) {
            continue;
        }
        snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
        if (!(f = fopen(path, "r"))) {
            continue;
        }
        if (fgets(buf, sizeof(buf), f) && (q = strrchr(buf, ')'))) {
            sscanf(q + 2, "%*c %ld", &ppid);
        }
        fclose(f);
        if (ppid == parent && kill((pid_t)pid, SIGKILL) == 0) {
            n++;
        }
    }
    if (d) {
        closedir(d);
    }
    return n;
}

/* A hotel whose supplier charges the traveller's card itself (SUPPLIER_C,
 * the merchant of record) is bought with the mandate's instrument too: the
 * payment provider forwards its card to the supplier. */
static void a_merchant_of_record_hotel_is_bought_too(void **state)
{
    we_hotel h;
    json_t *w, *ev;
    const json_t *booking, *pay;
    const char *p[1];
    int i;
    (void)state;
    for (i = 0; i < 40; i++) {
        we_pick_hotel(key, 70, 72, i, &h);
        if (strcmp(h.supplier, "SUPPLIER_C") == 0) {
            break;
        }
    }
    assert_string_equal(h.supplier, "SUPPLIER_C");
    w = armed_watch(&h, 70, 72, h.cents * 8 / 10, h.cents * 9 / 10, "pi_test_visa");
    p[0] = fe_s(w, "id");
    we_price_factor(h.supplier, h.sid, "0.5");
    json_decref(we_wait(key, WE_WATCHES, p[0], "purchased", 60000));
    ev = events_of(p[0]);
    assert_int_equal(json_array_size(ev), 1);
    assert_string_equal(fe_s(json_array_get(ev, 0), "type"), "travel.hotel.watch.purchased");
    booking = json_object_get(json_object_get(json_object_get(json_array_get(ev, 0), "payload"),
                                              "data"), "booking");
    pay = json_array_get(json_object_get(booking, "payments"), 0);
    assert_string_equal(fe_s(booking, "status"), "CONFIRMED");
    assert_string_equal(fe_s(booking, "supplier"), "SUPPLIER_C");
    assert_string_equal(fe_s(pay, "collected_by"), "SUPPLIER");
    assert_string_equal(fe_s(json_object_get(json_object_get(pay, "payment_method"), "card"),
                             "last4"), "4242");
    assert_int_equal(bookings_of(p[0]), 1);
    we_prices_restore();
    json_decref(ev);
    json_decref(w);
}

/* Calls that reached the sandbox's Rapid (sandbox.rapid_travellers):
 * those of request ids matching `like`, and of them those carrying ip
 * and session (and, when the call has one, the language). */
static long rapid_calls(const char *like)
{
    return e2e_sql_long("SELECT count(*) FROM sandbox.rapid_travellers WHERE request_id LIKE $1",
                        1, (const char *const[]){like});
}

static long rapid_calls_as(const char *like, const we_traveller *t, const char *language)
{
    return e2e_sql_long("SELECT count(*) FROM sandbox.rapid_travellers WHERE request_id LIKE $1 "
                        "AND customer_ip = $2 AND customer_session_id = $3 "
                        "AND (language IS NULL OR language = $4)", 4,
                        (const char *const[]){like, t->ip, t->session, language});
}

/* A watch's checks and auto-purchase run without any traveller's request:
 * the traveller stated when the watch was created (kept with it) is what
 * Expedia Rapid (SUPPLIER_C) receives as Customer-Ip, Customer-Session-Id
 * and language, on the check (a watch.price job) and on every call of the
 * purchase. Two watches of the same hotel and stay created for different
 * travellers are checked by a call each, each stating its own. */
static void the_watch_travellers_reach_rapid(void **state)
{
    we_hotel h;
    we_traveller buyer, other;
    char s1[64], s2[64], ip1[32], ip2[32], purchase[200], like_check[128];
    json_t *w, *w2;
    const char *p[1];
    long t0;
    int i;
    (void)state;
    snprintf(ip1, sizeof(ip1), "203.0.113.%d", 1 + (int)(getpid() % 200));
    snprintf(ip2, sizeof(ip2), "198.51.100.%d", 1 + (int)(getpid() % 200));
    snprintf(s1, sizeof(s1), "watch-shop-%ld-1", (long)getpid());
    snprintf(s2, sizeof(s2), "watch-shop-%ld-2", (long)getpid());
    buyer = (we_traveller){ip1, s1, "fr-BE,fr;q=0.9"};
    other = (we_traveller){ip2, s2, NULL};
    for (i = 0; i < 40; i++) {
        we_pick_hotel(key, 76, 78, i, &h);
        if (strcmp(h.supplier, "SUPPLIER_C") == 0) {
            break;
        }
    }
    assert_string_equal(h.supplier, "SUPPLIER_C");
    {
        /* A malformed traveller is refused, naming the header; nothing kept. */
        char body[1024], *st = we_stay(76, 78);
        const we_traveller bad = {"203.0.113.7:443", NULL, NULL};
        long before = e2e_sql_long("SELECT count(*) FROM watches WHERE org_id = $1", 1,
                                   (const char *const[]){org});
        e2e_resp *r;
        snprintf(body, sizeof(body), "{\"hotel_id\":\"%s\",%s,\"trigger\":{\"type\":"
                 "\"below_total\",\"amount\":1}}", h.hotel_id, st);
        r = we_post_as(key, WE_WATCHES, body, &bad);
        e2e_assert_error(r, 422, "validation_failed");
        assert_non_null(strstr(r->body, "x-travel-customer-ip"));
        e2e_free(r);
        free(st);
        assert_int_equal(e2e_sql_long("SELECT count(*) FROM watches WHERE org_id = $1", 1,
                                      (const char *const[]){org}), before);
    }
    /* The other traveller's watch of the same hotel and stay never fires. */
    w2 = we_price_watch_as(key, &h, 76, 78, h.cents / 10, NULL, &other);
    w = armed_watch_as(&h, 76, 78, h.cents * 8 / 10, h.cents * 9 / 10, "pi_test_visa", &buyer);
    p[0] = fe_s(w, "id");
    /* Kept with the watch as stated. */
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM watches WHERE id = $1 AND "
                                  "customer->>'ip' = $2 AND customer->>'session' = $3 AND "
                                  "customer->>'language' = $4", 4,
                                  (const char *const[]){p[0], ip1, s1, buyer.language}), 1);
    we_price_factor(h.supplier, h.sid, "0.5");
    json_decref(we_wait(key, WE_WATCHES, p[0], "purchased", 60000));
    json_decref(we_wait(key, WE_WATCHES, fe_s(w2, "id"), "active", 30000));
    /* The purchase's calls (offers, prebook, book, reads): every one as
     * the buyer, in the buyer's language (fr-BE is Rapid's fr-FR). */
    snprintf(purchase, sizeof(purchase), "purchase_%s", p[0]);
    assert_true(rapid_calls(purchase) >= 2);
    assert_int_equal(rapid_calls_as(purchase, &buyer, "fr-FR"), rapid_calls(purchase));
    /* The booking it made keeps the buyer for its later calls. */
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM hotel_bookings WHERE reference_id = $1 "
                                  "AND customer->>'ip' = $2", 2,
                                  (const char *const[]){p[0], ip1}), 1);
    /* The checks (watch.price jobs, request ids job_<id>): the buyer's
     * watch and the other's each reached Rapid as their own traveller,
     * so they were not priced by one shared call. */
    snprintf(like_check, sizeof(like_check), "job\\_%%");
    t0 = e2e_now_ms();
    while ((rapid_calls_as(like_check, &buyer, "fr-FR") < 1
            || rapid_calls_as(like_check, &other, "en-US") < 1)
           && e2e_now_ms() - t0 < 30000) {
        e2e_sleep_ms(200);
    }
    assert_true(rapid_calls_as(like_check, &buyer, "fr-FR") >= 1);
    assert_true(rapid_calls_as(like_check, &other, "en-US") >= 1);
    /* Nobody's check or purchase went out as the stand-in with these
     * travellers' sessions. */
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM sandbox.rapid_travellers WHERE "
                                  "customer_session_id IN ($1, $2) AND customer_ip <> "
                                  "CASE customer_session_id WHEN $1 THEN $3 ELSE $4 END", 4,
                                  (const char *const[]){s1, s2, ip1, ip2}), 0);
    we_prices_restore();
    json_decref(w2);
    json_decref(w);
}

/* A trip watch's check states the traveller kept with it too (its
 * search reaches Rapid among every configured supplier). */
static void a_trip_watch_check_states_its_traveller(void **state)
{
    char ip[32], session[64], body[1024], like_check[32], *st = we_stay(84, 86);
    we_traveller t;
    e2e_resp *r;
    long t0;
    (void)state;
    snprintf(ip, sizeof(ip), "192.0.2.%d", 1 + (int)(getpid() % 200));
    snprintf(session, sizeof(session), "trip-shop-%ld", (long)getpid());
    t = (we_traveller){ip, session, "de-CH"};
    /* Never fires (1.00 EUR): it is only checked. */
    snprintf(body, sizeof(body), "{\"destination\":\"London\",%s,\"trigger\":{\"type\":"
             "\"below_total\",\"amount\":1}}", st);
    r = we_post_as(key, WE_TRIPS, body, &t);
    fe_expect(r, 201, "creating a trip watch");
    json_decref(we_wait(key, WE_TRIPS, fe_s(fe_data(r), "id"), "active", 60000));
    snprintf(like_check, sizeof(like_check), "job\\_%%");
    t0 = e2e_now_ms();
    while (rapid_calls_as(like_check, &t, "de-DE") < 1 && e2e_now_ms() - t0 < 15000) {
        e2e_sleep_ms(200);
    }
    assert_true(rapid_calls_as(like_check, &t, "de-DE") >= 1);
    e2e_free(r);
    free(st);
}

static void a_purchase_killed_mid_book_still_buys_once(void **state)
{
    we_hotel h;
    json_t *w, *ev;
    char rid[200];
    const char *p[1];
    long a = e2e_instance_pid("a"), b = e2e_instance_pid("b"), t0;
    int i;
    (void)state;
    for (i = 9; i < 40; i++) {
        we_pick_hotel(key, 66, 68, i, &h);
        if (strcmp(h.supplier, "SUPPLIER_A") == 0) {
            break;
        }
    }
    assert_string_equal(h.supplier, "SUPPLIER_A");
    w = armed_watch(&h, 66, 68, h.cents * 8 / 10, h.cents * 9 / 10, "pi_test_visa");
    p[0] = fe_s(w, "id");
    /* The supplier takes 3 s to answer the purchase's book: every httpd
     * child (the worker running it included) is killed meanwhile. */
    snprintf(rid, sizeof(rid), "purchase_%s", p[0]);
    fe_fault("hotel_a", rid, "\"method\":\"POST\",\"path\":\"/book/v3.0/rates/book\","
             "\"action\":\"respond\",\"delay_ms\":3000");
    we_price_factor(h.supplier, h.sid, "0.5");
    t0 = e2e_now_ms();
    while (fe_fault_hits(rid) < 1) {
        assert_true(e2e_now_ms() - t0 < 60000);
        e2e_sleep_ms(100);
    }
    e2e_sleep_ms(500);
    e2e_expect_log("AH00052: .*exit signal Killed");
    assert_true(kill_children(a) + kill_children(b) >= 2);
    json_decref(we_wait(key, WE_WATCHES, p[0], "purchased", 90000));
    fe_fault_clear(rid);
    ev = events_of(p[0]);
    assert_int_equal(json_array_size(ev), 1);
    assert_string_equal(fe_s(json_array_get(ev, 0), "type"), "travel.hotel.watch.purchased");
    assert_int_equal(bookings_of(p[0]), 1);
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM hotel_payments y JOIN hotel_bookings b "
                                  "ON b.id = y.booking_id WHERE b.reference_id = $1", 1, p), 1);
    /* One booking at the supplier for it. */
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM sandbox.hotel_bookings s JOIN "
                                  "hotel_bookings b ON s.client_reference LIKE b.id || '/%' "
                                  "WHERE b.reference_id = $1", 1, p), 1);
    we_prices_restore();
    json_decref(ev);
    json_decref(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(an_armed_watch_buys_once, setup),
        cmocka_unit_test(a_declined_card_sends_purchase_failed),
        cmocka_unit_test(above_max_total_goes_back_to_active_without_buying),
        cmocka_unit_test(a_merchant_of_record_hotel_is_bought_too),
        cmocka_unit_test(the_watch_travellers_reach_rapid),
        cmocka_unit_test(a_trip_watch_check_states_its_traveller),
        cmocka_unit_test(a_purchase_killed_mid_book_still_buys_once),
    };
    return E2E_RUN("watch_purchase", tests);
}
