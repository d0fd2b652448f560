/* The sandbox flight suppliers over real HTTP, judged against the
 * OpenFlights files themselves (read here, independently of the
 * sandbox's code): offers only on listed routes and carriers, local times
 * that match the airports' zones across a daylight-saving change,
 * fares that vary by date and cabin but not between equal searches,
 * offer lifetimes, bearer keys, one order per SUPPLIER_A offer (the
 * Idempotency-Key ignored, as Duffel documents none), the order list's
 * filters, and the test triggers (SUPPLIER_B, LiteAPI Flights:
 * test_sandbox_liteapi_flights); and
 * SUPPLIER_A's Duffel wire: Duffel-Version, errors[] with meta, rate-limit
 * headers, cursor pages, loyalty accounts on an offer's passenger, hold
 * orders paid later, airline-initiated changes. */
#include "e2e.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/time.h>
#include <time.h>
#include <curl/curl.h>

#define KEY_A "sandbox-key-a"

/* ---- routes.dat, read by the test ---- */

static char **routes;
static size_t nroutes;

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void load_routes(void)
{
    const char *dir = getenv("TRAVEL_TEST_DATA");
    char path[1024], line[512];
    FILE *f;
    size_t cap = 80000;
    if (routes) {
        return;
    }
    snprintf(path, sizeof(path), "%s/routes.dat", dir ? dir : "data/openflights");
    f = fopen(path, "r");
    assert_non_null(f);
    routes = malloc(cap * sizeof(char *));
    while (fgets(line, sizeof(line), f) && nroutes < cap) {
        char al[8], from[8], to[8];
        /* airline,airline_id,from,from_id,to,to_id,codeshare,stops,equipment */
        if (sscanf(line, "%7[^,],%*[^,],%7[^,],%*[^,],%7[^,],", al, from, to) == 3) {
            char key[32];
            snprintf(key, sizeof(key), "%s %s %s", al, from, to);
            routes[nroutes++] = strdup(key);
        }
    }
    fclose(f);
    qsort(routes, nroutes, sizeof(char *), cmp_str);
}

static int listed(const char *airline, const char *from, const char *to)
{
    char key[32], *k = key;
    snprintf(key, sizeof(key), "%s %s %s", airline, from, to);
    return bsearch(&k, routes, nroutes, sizeof(char *), cmp_str) != NULL;
}

static int any_listed(const char *from, const char *to)
{
    size_t i;
    for (i = 0; i < nroutes; i++) {
        const char *sp = strchr(routes[i], ' ');
        char key[16];
        snprintf(key, sizeof(key), "%s %s", from, to);
        if (sp && strcmp(sp + 1, key) == 0) {
            return 1;
        }
    }
    return 0;
}

/* ---- calls ---- */

static e2e_resp *call(const char *method, const char *path, const char *key,
                      const char *idem, const char *body)
{
    char auth[128], ik[300];
    const char *h[5] = {"Content-Type: application/json", NULL, NULL, NULL, NULL};
    int n = 1;
    if (strncmp(path, "/suppliers/a/", 13) == 0) {
        h[n++] = "Duffel-Version: v2"; /* Duffel refuses a call without it */
    }
    if (key) {
        snprintf(auth, sizeof(auth), "Authorization: Bearer %s", key);
        h[n++] = auth;
    }
    if (idem) {
        snprintf(ik, sizeof(ik), "Idempotency-Key: %s", idem);
        h[n++] = ik;
    }
    return e2e_call(e2e_sandbox_url(), method, path, h, body);
}

static const char *date_in(int days, char *buf)
{
    time_t t = time(NULL) + (time_t)days * 86400;
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, 11, "%Y-%m-%d", &tm);
    return buf;
}

static json_t *a_search(const char *from, const char *to, const char *date, const char *cabin,
                        int adults, int max)
{
    char body[1024], path[] = "/suppliers/a/air/offer_requests";
    e2e_resp *r;
    json_t *offers;
    int i, n = 0;
    n += snprintf(body + n, sizeof(body) - (size_t)n,
                  "{\"data\": {\"slices\": [{\"origin\": \"%s\", \"destination\": \"%s\", "
                  "\"departure_date\": \"%s\"}], \"passengers\": [", from, to, date);
    for (i = 0; i < adults; i++) {
        n += snprintf(body + n, sizeof(body) - (size_t)n, "%s{\"type\": \"adult\"}", i ? "," : "");
    }
    /* Duffel answers every offer of the search (no maximum to ask for). */
    (void)max;
    snprintf(body + n, sizeof(body) - (size_t)n, "], \"cabin_class\": \"%s\"}}", cabin);
    r = call("POST", path, KEY_A, NULL, body);
    if (r->status != 201) {
        fail_msg("search %s-%s %s: %ld %s", from, to, date, r->status, r->body);
    }
    offers = json_incref(json_object_get(json_object_get(r->json, "data"), "offers"));
    e2e_free(r);
    return offers;
}

static const char *s(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

static const char *code(const json_t *o, const char *k)
{
    return s(json_object_get(o, k), "iata_code");
}

/* The code of an error: Duffel's errors[0].code at SUPPLIER_A, else the
 * sandbox's error.code. */
static const char *err_code(const e2e_resp *r)
{
    const json_t *e = json_array_get(json_object_get(r->json, "errors"), 0);
    return e ? s(e, "code") : e2e_error_code(r);
}

/* What a Duffel order says of its state: cancelled once cancelled_at is
 * set, ticketed once it holds e-tickets, else awaiting ticketing. */
static const char *a_state(const json_t *order)
{
    const json_t *docs = json_object_get(order, "documents");
    if (json_is_string(json_object_get(order, "cancelled_at"))) {
        return "cancelled";
    }
    if (json_array_size(docs) > 0
        && strcmp(s(json_array_get(docs, 0), "type"), "electronic_ticket") == 0) {
        return "ticketed";
    }
    return json_is_true(json_object_get(json_object_get(order, "payment_status"),
                                        "awaiting_payment")) ? "awaiting_payment"
                                                             : "pending_ticketing";
}

/* ---- auth ---- */

static void every_api_wants_its_own_key(void **state)
{
    /* SUPPLIER_B's X-API-Key: test_sandbox_liteapi_flights. */
    static const char *const paths[] = {"/suppliers/a/air/airlines/arl_BA",
                                        "/payments/v1/authorizations/auth_x"};
    static const char *const keys[] = {KEY_A, "sandbox-key-pay"};
    int i;
    (void)state;
    for (i = 0; i < 2; i++) {
        e2e_resp *r = call("GET", paths[i], NULL, NULL, NULL);
        char *www = e2e_header(r, "WWW-Authenticate");
        assert_int_equal(r->status, 401);
        assert_string_equal(err_code(r), "unauthorized");
        assert_non_null(www);
        free(www);
        e2e_free(r);
        r = call("GET", paths[i], keys[(i + 1) % 2], NULL, NULL); /* another API's key */
        assert_int_equal(r->status, 401);
        e2e_free(r);
        r = call("GET", paths[i], keys[i], NULL, NULL);
        assert_true(r->status == 200 || r->status == 404);
        assert_non_null(json_object_get(r->json, i == 0 ? "data" : "error"));
        if (i == 0) {
            /* Duffel's answers carry its rate-limit headers. */
            char *lim = e2e_header(r, "ratelimit-limit"), *rem = e2e_header(r, "ratelimit-remaining");
            char *reset = e2e_header(r, "ratelimit-reset");
            assert_true(lim && rem && reset && atoi(rem) < atoi(lim));
            assert_non_null(strstr(reset, "GMT"));
            free(lim);
            free(rem);
            free(reset);
        }
        e2e_free(r);
    }
}

/* ---- realism ---- */

static void offers_fly_listed_routes_and_carriers(void **state)
{
    static const char *const pairs[][2] = {{"LHR", "JFK"}, {"CDG", "FCO"}, {"SYD", "LAX"},
                                           {"FRA", "SIN"}, {"GKA", "SYD"}};
    char d[11];
    size_t p, i, j, k;
    (void)state;
    load_routes();
    for (p = 0; p < sizeof(pairs) / sizeof(pairs[0]); p++) {
        json_t *offers = a_search(pairs[p][0], pairs[p][1], date_in(40, d), "economy", 1, 200);
        int direct = any_listed(pairs[p][0], pairs[p][1]);
        assert_true(json_array_size(offers) > 0);
        for (i = 0; i < json_array_size(offers); i++) {
            const json_t *sl = json_array_get(json_object_get(json_array_get(offers, i), "slices"), 0);
            const json_t *segs = json_object_get(sl, "segments");
            /* Direct when the route exists, otherwise one stop. */
            assert_int_equal(json_array_size(segs), direct ? 1 : 2);
            for (j = 0; j < json_array_size(segs); j++) {
                const json_t *sg = json_array_get(segs, j);
                const char *from = code(sg, "origin"), *to = code(sg, "destination");
                const char *op = code(sg, "operating_carrier"), *mk = code(sg, "marketing_carrier");
                if (!listed(op, from, to) || !listed(mk, from, to)) {
                    fail_msg("%s%s %s-%s (operated by %s) is not in routes.dat", mk,
                             s(sg, "marketing_carrier_flight_number"), from, to, op);
                }
                if (j > 0) {
                    assert_string_equal(from, code(json_array_get(segs, j - 1), "destination"));
                }
            }
            k = json_array_size(segs) - 1;
            assert_string_equal(code(json_array_get(segs, 0), "origin"), pairs[p][0]);
            assert_string_equal(code(json_array_get(segs, k), "destination"), pairs[p][1]);
        }
        json_decref(offers);
    }
}

/* Wall-clock seconds of "YYYY-MM-DDTHH:MM:SS" as if it were UTC. */
static long long wall(const char *t)
{
    struct tm tm;
    memset(&tm, 0, sizeof(tm));
    assert_non_null(strptime(t, "%Y-%m-%dT%H:%M:%S", &tm));
    return (long long)timegm(&tm);
}

/* The next switch of European summer time at least 3 days ahead: the
 * last Sunday of March (to +1) or October (back to 0), at 01:00 UTC. */
static long long next_eu_switch(int *to_summer)
{
    time_t now = time(NULL) + 3 * 86400;
    struct tm tm;
    int y, m;
    gmtime_r(&now, &tm);
    for (y = tm.tm_year + 1900; y < tm.tm_year + 1902; y++) {
        for (m = 3; m <= 10; m += 7) {
            struct tm last;
            long long t;
            memset(&last, 0, sizeof(last));
            last.tm_year = y - 1900;
            last.tm_mon = m - 1;
            last.tm_mday = 31;
            last.tm_hour = 1;
            t = (long long)timegm(&last);
            gmtime_r(&(time_t){(time_t)t}, &last);
            t -= (long long)last.tm_wday * 86400; /* back to Sunday */
            if (t > (long long)now) {
                *to_summer = m == 3;
                return t;
            }
        }
    }
    fail_msg("no switch found");
    return 0;
}

static void local_times_follow_the_zones_across_a_dst_change(void **state)
{
    int to_summer = 0, crossing = 0;
    long long sw = next_eu_switch(&to_summer);
    char d[11];
    time_t day_before = (time_t)(sw - 86400);
    struct tm tm;
    json_t *offers;
    size_t i;
    (void)state;
    gmtime_r(&day_before, &tm);
    strftime(d, sizeof(d), "%Y-%m-%d", &tm);
    /* New York keeps daylight time across both European switch dates
     * (the US changes two weeks before in March, a week after in
     * October); London is one hour ahead of UTC in summer. */
    offers = a_search("JFK", "LHR", d, "economy", 1, 200);
    assert_true(json_array_size(offers) > 0);
    for (i = 0; i < json_array_size(offers); i++) {
        const json_t *sg = json_array_get(json_object_get(json_array_get(json_object_get(
            json_array_get(offers, i), "slices"), 0), "segments"), 0);
        long long dep_utc = wall(s(sg, "departing_at")) + 4 * 3600;
        long long minutes = 0;
        long long arr_utc, london;
        char want[32];
        time_t a;
        int h = 0, m = 0;
        sscanf(s(sg, "duration"), "PT%dH%dM", &h, &m);
        minutes = h * 60 + m;
        arr_utc = dep_utc + minutes * 60;
        london = (arr_utc >= sw) == to_summer ? 3600 : 0;
        a = (time_t)(arr_utc + london);
        gmtime_r(&a, &tm);
        strftime(want, sizeof(want), "%Y-%m-%dT%H:%M:%S", &tm);
        assert_string_equal(s(sg, "arriving_at"), want);
        /* About 5,540 km at airliner speeds. */
        assert_true(minutes > 6 * 60 && minutes < 9 * 60);
        crossing |= dep_utc < sw && arr_utc >= sw;
    }
    assert_true(crossing); /* an overnight flight lands after the switch */
    json_decref(offers);

    /* Zones without daylight time: Singapore UTC+8, Tokyo UTC+9. */
    offers = a_search("SIN", "NRT", date_in(50, d), "economy", 1, 50);
    assert_true(json_array_size(offers) > 0);
    for (i = 0; i < json_array_size(offers); i++) {
        const json_t *sl = json_array_get(json_object_get(json_array_get(offers, i), "slices"), 0);
        const json_t *sg = json_array_get(json_object_get(sl, "segments"), 0);
        int h = 0, m = 0;
        sscanf(s(sg, "duration"), "PT%dH%dM", &h, &m);
        assert_int_equal(wall(s(sg, "arriving_at")) - 9 * 3600
                         - (wall(s(sg, "departing_at")) - 8 * 3600), (h * 60 + m) * 60);
    }
    json_decref(offers);
}

static long long cheapest(const json_t *offers)
{
    long long best = -1;
    size_t i;
    for (i = 0; i < json_array_size(offers); i++) {
        long long v = (long long)(atof(s(json_array_get(offers, i), "total_amount")) * 100 + 0.5);
        if (best < 0 || v < best) {
            best = v;
        }
    }
    return best;
}

static void fares_vary_by_date_and_cabin_not_between_equal_searches(void **state)
{
    static const char *const cabins[] = {"economy", "premium_economy", "business", "first"};
    char d[11];
    json_t *a, *b;
    long long prev = 0, dates[3];
    size_t i;
    int c, varied = 0;
    (void)state;
    a = a_search("ZRH", "SFO", date_in(60, d), "economy", 1, 200);
    b = a_search("ZRH", "SFO", d, "economy", 1, 200);
    assert_int_equal(json_array_size(a), json_array_size(b));
    for (i = 0; i < json_array_size(a); i++) {
        const json_t *x = json_array_get(a, i), *y = json_array_get(b, i);
        assert_string_equal(s(x, "total_amount"), s(y, "total_amount"));
        assert_string_equal(s(x, "total_currency"), "CHF");
        assert_string_equal(s(json_array_get(json_object_get(json_array_get(json_object_get(x,
            "slices"), 0), "segments"), 0), "departing_at"),
            s(json_array_get(json_object_get(json_array_get(json_object_get(y, "slices"), 0),
                                             "segments"), 0), "departing_at"));
    }
    json_decref(a);
    json_decref(b);
    for (c = 0; c < 4; c++) {
        json_t *o = a_search("ZRH", "SFO", date_in(60, d), cabins[c], 1, 200);
        long long v = cheapest(o);
        assert_true(v > prev);
        prev = v;
        json_decref(o);
    }
    for (c = 0; c < 3; c++) {
        json_t *o = a_search("LHR", "JFK", date_in(c == 0 ? 2 : c == 1 ? 30 : 31, d), "economy", 1, 200);
        dates[c] = cheapest(o);
        json_decref(o);
    }
    varied = dates[0] > dates[1] && dates[1] != dates[2];
    assert_true(varied);
    /* Yen fares have no minor unit. */
    a = a_search("NRT", "SIN", date_in(60, d), "economy", 1, 5);
    assert_string_equal(s(json_array_get(a, 0), "total_currency"), "JPY");
    assert_null(strchr(s(json_array_get(a, 0), "total_amount"), '.'));
    json_decref(a);
}

static void offers_expire_and_unknown_airports_are_refused(void **state)
{
    char d[11];
    json_t *o = a_search("CDG", "FCO", date_in(20, d), "economy", 1, 3);
    e2e_resp *r;
    struct tm tm;
    struct timeval tv;
    long long exp;
    (void)state;
    memset(&tm, 0, sizeof(tm));
    assert_non_null(strptime(s(json_array_get(o, 0), "expires_at"), "%Y-%m-%dT%H:%M:%S", &tm));
    /* gettimeofday, as the sandbox's clock: time() reads the coarse clock,
     * which can still show the second before the one the offer was made in
     * (a run saw 1801 s). */
    gettimeofday(&tv, NULL);
    exp = (long long)timegm(&tm) - (long long)tv.tv_sec;
    assert_true(exp > 28 * 60 && exp <= 30 * 60);
    json_decref(o);
    r = call("POST", "/suppliers/a/air/offer_requests", KEY_A, NULL,
             "{\"data\": {\"slices\": [{\"origin\": \"XQX\", \"destination\": \"FCO\", "
             "\"departure_date\": \"2030-01-01\"}], \"passengers\": [{\"type\": \"adult\"}]}}");
    assert_int_equal(r->status, 422);
    assert_string_equal(err_code(r), "validation_error");
    e2e_free(r);
    r = call("GET", "/suppliers/a/air/offers/off_bm90IGFuIG9mZmVy", KEY_A, NULL, NULL);
    assert_int_equal(r->status, 404);
    e2e_free(r);
}

/* ---- orders ---- */

/* An order body for the first offer of a search (one adult). */
static char *order_body(const json_t *offer, const char *last_name)
{
    char *b = malloc(2048);
    snprintf(b, 2048,
             "{\"data\": {\"type\": \"instant\", \"selected_offers\": [\"%s\"], \"passengers\": "
             "[{\"id\": \"%s\", \"given_name\": \"Ada\", \"family_name\": \"%s\", \"born_on\": "
             "\"1985-04-12\", \"gender\": \"f\"}], \"payments\": [{\"type\": \"balance\", "
             "\"amount\": \"%s\", \"currency\": \"%s\"}]}}",
             s(offer, "id"), s(json_array_get(json_object_get(offer, "passengers"), 0), "id"),
             last_name, s(offer, "total_amount"), s(offer, "total_currency"));
    return b;
}

typedef struct racer {
    const char *body, *key;
    char id[128];
    long status;
} racer;

static void *race(void *u)
{
    racer *r = u;
    e2e_resp *resp = call("POST", "/suppliers/a/air/orders", KEY_A, r->key, r->body);
    r->status = resp->status;
    snprintf(r->id, sizeof(r->id), "%s",
             s(json_object_get(resp->json, "data"), "id") ? s(json_object_get(resp->json, "data"),
                                                              "id") : "");
    e2e_free(resp);
    return NULL;
}

/* Duffel documents no Idempotency-Key, and the sandbox ignores the header
 * as Duffel does: six orders of one offer at once under one key are six
 * requests, of which exactly one makes the order (an offer sells once) and
 * the others are refused; a repeat with the key is not a replay. */
static void idempotency_key_ignored_and_one_order_per_offer(void **state)
{
    char d[11], key[64], *body;
    json_t *o = a_search("MAD", "LIS", date_in(25, d), "economy", 1, 5);
    racer rs[6];
    pthread_t th[6];
    e2e_resp *r;
    char *replayed;
    int i, made = 0;
    (void)state;
    snprintf(key, sizeof(key), "race-%ld", e2e_now_ms());
    body = order_body(json_array_get(o, 0), "Smith");
    for (i = 0; i < 6; i++) {
        rs[i].body = body;
        rs[i].key = key;
        pthread_create(&th[i], NULL, race, &rs[i]);
    }
    for (i = 0; i < 6; i++) {
        pthread_join(th[i], NULL);
    }
    for (i = 0; i < 6; i++) {
        if (rs[i].status == 201) {
            made++;
            assert_int_equal(strncmp(rs[i].id, "ord_", 4), 0);
        }
        else {
            assert_int_equal(rs[i].status, 422);
        }
    }
    assert_int_equal(made, 1);
    r = call("POST", "/suppliers/a/air/orders", KEY_A, key, body);
    assert_int_equal(r->status, 422);
    assert_string_equal(err_code(r), "offer_no_longer_available");
    replayed = e2e_header(r, "Idempotent-Replayed");
    assert_null(replayed);
    e2e_free(r);
    free(body);
    json_decref(o);
}

static json_t *order_a(const char *last_name, const char *key, long want)
{
    char d[11], *body;
    json_t *o = a_search("MAD", "LIS", date_in(26, d), "economy", 1, 5), *out;
    e2e_resp *r;
    body = order_body(json_array_get(o, 0), last_name);
    r = call("POST", "/suppliers/a/air/orders", KEY_A, key, body);
    assert_int_equal(r->status, want);
    out = json_incref(r->json);
    e2e_free(r);
    free(body);
    json_decref(o);
    return out;
}

static const char *order_status(const char *id)
{
    static char st[64];
    char path[256];
    e2e_resp *r;
    snprintf(path, sizeof(path), "/suppliers/a/air/orders/%s", id);
    r = call("GET", path, KEY_A, NULL, NULL);
    assert_int_equal(r->status, 200);
    snprintf(st, sizeof(st), "%s", a_state(json_object_get(r->json, "data")));
    e2e_free(r);
    return st;
}

static void triggers_async_failticket_nocancel(void **state)
{
    char key[64], path[256];
    json_t *a, *f, *n;
    e2e_resp *r;
    const char *id;
    (void)state;
    snprintf(key, sizeof(key), "async-%ld", e2e_now_ms());
    a = order_a("Async", key, 201);
    id = s(json_object_get(a, "data"), "id");
    assert_string_equal(a_state(json_object_get(a, "data")), "pending_ticketing");
    assert_string_equal(order_status(id), "pending_ticketing");
    e2e_sleep_ms(3300);
    assert_string_equal(order_status(id), "ticketed");

    f = order_a("Failticket", NULL, 422);
    assert_string_equal(s(json_array_get(json_object_get(f, "errors"), 0), "code"),
                        "ticketing_failed");

    n = order_a("Nocancel", NULL, 201);
    snprintf(path, sizeof(path), "{\"data\": {\"order_id\": \"%s\"}}",
             s(json_object_get(n, "data"), "id"));
    r = call("POST", "/suppliers/a/air/order_cancellations", KEY_A, NULL, path);
    assert_int_equal(r->status, 201);
    snprintf(path, sizeof(path), "/suppliers/a/air/order_cancellations/%s/actions/confirm",
             s(json_object_get(r->json, "data"), "id"));
    e2e_free(r);
    r = call("POST", path, KEY_A, NULL, NULL);
    assert_int_equal(r->status, 422);
    assert_string_equal(err_code(r), "cancellation_rejected");
    e2e_free(r);
    assert_string_equal(order_status(s(json_object_get(n, "data"), "id")), "ticketed");
    json_decref(a);
    json_decref(f);
    json_decref(n);
}

static size_t discard(char *p, size_t size, size_t n, void *u)
{
    (void)p;
    (void)u;
    return size * n;
}

/* The body of an order with metadata {booking_id}. */
static char *order_body_for(const json_t *offer, const char *last_name, const char *booking)
{
    char *b = order_body(offer, last_name), *m = malloc(strlen(b) + 200);
    size_t n = strlen(b);
    /* ...}]}} -> ...}], "metadata": {"booking_id": "..."}}} */
    memcpy(m, b, n - 2);
    snprintf(m + n - 2, 200, ", \"metadata\": {\"booking_id\": \"%s\"}}}", booking);
    free(b);
    return m;
}

/* GET /air/orders?passenger_name[]=NAME: the orders of the organisation
 * with a passenger so named, each with its metadata. */
static json_t *orders_named(const char *name, const char *extra)
{
    char path[512];
    e2e_resp *r;
    json_t *out;
    snprintf(path, sizeof(path), "/suppliers/a/air/orders?limit=200&passenger_name%%5B%%5D=%s%s",
             name, extra ? extra : "");
    r = call("GET", path, KEY_A, NULL, NULL);
    assert_int_equal(r->status, 200);
    out = json_incref(json_object_get(r->json, "data"));
    assert_true(json_is_array(out));
    e2e_free(r);
    return out;
}

static const json_t *order_of_booking(const json_t *list, const char *booking)
{
    size_t i;
    for (i = 0; i < json_array_size(list); i++) {
        const json_t *m = json_object_get(json_array_get(list, i), "metadata");
        if (s(m, "booking_id") && strcmp(s(m, "booking_id"), booking) == 0) {
            return json_array_get(list, i);
        }
    }
    return NULL;
}

/* Unknown: the order is made, the answer does not come in time. The order
 * is then found in the order list by its metadata, at once, and posting it
 * again (the same Idempotency-Key, which Duffel ignores) orders nothing. */
static void unknown_hangs_past_the_timeout_but_orders(void **state)
{
    char d[11], key[64], url[512], auth[64], ik[128], booking[64], *body;
    json_t *o = a_search("MAD", "LIS", date_in(27, d), "economy", 1, 5), *list;
    const json_t *found;
    CURL *c = curl_easy_init();
    struct curl_slist *h = NULL;
    CURLcode rc;
    long t0;
    (void)state;
    snprintf(key, sizeof(key), "unknown-%ld", e2e_now_ms());
    snprintf(booking, sizeof(booking), "bkg_sbx-unknown-%ld", e2e_now_ms());
    body = order_body_for(json_array_get(o, 0), "Unknown", booking);
    snprintf(url, sizeof(url), "%s/suppliers/a/air/orders", e2e_sandbox_url());
    snprintf(auth, sizeof(auth), "Authorization: Bearer %s", KEY_A);
    snprintf(ik, sizeof(ik), "Idempotency-Key: %s", key);
    h = curl_slist_append(h, "Content-Type: application/json");
    h = curl_slist_append(h, auth);
    h = curl_slist_append(h, ik);
    h = curl_slist_append(h, "Duffel-Version: v2");
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 2000L);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
    t0 = e2e_now_ms();
    rc = curl_easy_perform(c);
    assert_int_equal(rc, CURLE_OPERATION_TIMEDOUT);
    assert_true(e2e_now_ms() - t0 < 4000);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    /* The order was made: the list shows it at once, with its metadata. */
    t0 = e2e_now_ms();
    list = orders_named("unknown", NULL); /* any case, part of a name */
    found = order_of_booking(list, booking);
    assert_non_null(found);
    assert_string_equal(a_state(found), "ticketed");
    assert_true(e2e_now_ms() - t0 < 2000);
    /* The same request again, key and all: a second order, refused. */
    {
        e2e_resp *r = call("POST", "/suppliers/a/air/orders", KEY_A, key, body);
        assert_int_equal(r->status, 422);
        assert_string_equal(err_code(r), "offer_no_longer_available");
        e2e_free(r);
    }
    json_decref(list);
    list = orders_named("Unknown", NULL);
    assert_non_null(order_of_booking(list, booking));
    json_decref(list);
    free(body);
    json_decref(o);
}

/* The list's filters as Duffel documents them: passenger_name[] (given or
 * family name, part of it, any case; several names: any), booking_reference,
 * awaiting_payment, created_at[after] and created_at[before] (orders
 * created later / earlier than the instant); pages with cursors. */
static void orders_are_listed_by_passenger_and_reference(void **state)
{
    char d[11], booking[64], name[40], extra[96], *body;
    json_t *o = a_search("MAD", "LIS", date_in(28, d), "economy", 1, 5), *list;
    const json_t *mine;
    e2e_resp *r;
    (void)state;
    snprintf(name, sizeof(name), "Lst%ld", e2e_now_ms());
    snprintf(booking, sizeof(booking), "bkg_sbx-list-%ld", e2e_now_ms());
    body = order_body_for(json_array_get(o, 0), name, booking);
    r = call("POST", "/suppliers/a/air/orders", KEY_A, NULL, body);
    assert_int_equal(r->status, 201);
    e2e_free(r);
    list = orders_named(name, NULL);
    assert_int_equal(json_array_size(list), 1);
    mine = order_of_booking(list, booking);
    assert_non_null(mine);
    /* By the airline's reference, and with another name beside it. */
    snprintf(extra, sizeof(extra), "&booking_reference=%s", s(mine, "booking_reference"));
    {
        json_t *by_ref = orders_named(name, extra), *none;
        assert_int_equal(json_array_size(by_ref), 1);
        none = orders_named(name, "&booking_reference=ZZZZZZ");
        assert_int_equal(json_array_size(none), 0);
        json_decref(none);
        none = orders_named(name, "&awaiting_payment=true");
        assert_int_equal(json_array_size(none), 0); /* instant: paid */
        json_decref(none);
        none = orders_named("Nobody-at-all", NULL);
        assert_null(order_of_booking(none, booking));
        json_decref(none);
        none = orders_named("Nobody-at-all", "&passenger_name%5B%5D=Ada"); /* any name */
        assert_true(json_array_size(none) >= 1);
        json_decref(none);
        json_decref(by_ref);
    }
    /* By creation time: after an instant before it and before one after
     * it, the order; after its own creation instant, or before it, none. */
    {
        static const char *const cases[][2] = {
            {"&created_at%5Bafter%5D=2000-01-01T00:00:00Z", "1"},
            {"&created_at%5Bbefore%5D=2999-01-01T00:00:00Z", "1"},
            {"&created_at%5Bafter%5D=2000-01-01T00:00:00Z"
             "&created_at%5Bbefore%5D=2999-01-01T00:00:00Z", "1"},
            {"&created_at%5Bafter%5D=2999-01-01T00:00:00Z", "0"},
            {"&created_at%5Bbefore%5D=2000-01-01T00:00:00Z", "0"},
        };
        char at[160];
        json_t *l;
        size_t k;
        for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
            l = orders_named(name, cases[k][0]);
            assert_int_equal((long)json_array_size(l), atol(cases[k][1]));
            json_decref(l);
        }
        snprintf(at, sizeof(at), "&created_at%%5Bafter%%5D=%s", s(mine, "created_at"));
        l = orders_named(name, at);
        assert_int_equal(json_array_size(l), 0);
        json_decref(l);
        snprintf(at, sizeof(at), "&created_at%%5Bbefore%%5D=%s", s(mine, "created_at"));
        l = orders_named(name, at);
        assert_int_equal(json_array_size(l), 0);
        json_decref(l);
        r = call("GET", "/suppliers/a/air/orders?created_at%5Bafter%5D=yesterday", KEY_A, NULL,
                 NULL);
        assert_int_equal(r->status, 422);
        e2e_free(r);
    }
    /* Pages: one order a page, the cursor leads on. */
    r = call("GET", "/suppliers/a/air/orders?limit=1&passenger_name%5B%5D=Ada", KEY_A, NULL,
             NULL);
    assert_int_equal(r->status, 200);
    assert_int_equal(json_array_size(json_object_get(r->json, "data")), 1);
    assert_non_null(s(json_object_get(r->json, "meta"), "after"));
    e2e_free(r);
    r = call("GET", "/suppliers/a/air/orders?awaiting_payment=maybe", KEY_A, NULL, NULL);
    assert_int_equal(r->status, 422);
    e2e_free(r);
    json_decref(list);
    free(body);
    json_decref(o);
}

static void airlines_by_code(void **state)
{
    /* Duffel names an airline by its own id; it publishes no alliance. */
    e2e_resp *r = call("GET", "/suppliers/a/air/airlines/arl_BA", KEY_A, NULL, NULL);
    (void)state;
    assert_int_equal(r->status, 200);
    assert_string_equal(s(json_object_get(r->json, "data"), "name"), "British Airways");
    assert_string_equal(s(json_object_get(r->json, "data"), "iata_code"), "BA");
    e2e_free(r);
    /* SUPPLIER_B (LiteAPI) by IATA code: test_sandbox_liteapi_flights. */
    r = call("GET", "/suppliers/a/air/airlines/arl_9Z", KEY_A, NULL, NULL);
    assert_int_equal(r->status, 404);
    e2e_free(r);
}

/* ---- SUPPLIER_A's Duffel wire ---- */

static const json_t *first_error(const e2e_resp *r)
{
    return json_array_get(json_object_get(r->json, "errors"), 0);
}

static void duffel_versions_and_errors(void **state)
{
    const char *h[] = {"Authorization: Bearer " KEY_A, "x-request-id: duffel-err-1", NULL};
    e2e_resp *r = e2e_call(e2e_sandbox_url(), "GET", "/suppliers/a/air/airlines/arl_BA", h, NULL);
    const json_t *e;
    (void)state;
    /* Without Duffel-Version: refused, in Duffel's shape. */
    assert_int_equal(r->status, 400);
    e = first_error(r);
    assert_string_equal(s(e, "type"), "invalid_request_error");
    assert_string_equal(s(e, "code"), "unsupported_version");
    assert_non_null(s(e, "title"));
    assert_true(strlen(s(e, "message")) > 0);
    assert_non_null(strstr(s(e, "documentation_url"), "duffel.com"));
    assert_int_equal(json_integer_value(json_object_get(json_object_get(r->json, "meta"),
                                                        "status")), 400);
    assert_string_equal(s(json_object_get(r->json, "meta"), "request_id"), "duffel-err-1");
    assert_null(json_object_get(r->json, "error"));
    e2e_free(r);
    /* A validation error names its field. */
    r = call("POST", "/suppliers/a/air/offer_requests", KEY_A, NULL,
             "{\"data\": {\"slices\": [{\"origin\": \"LHR\", \"destination\": \"JFK\", "
             "\"departure_date\": \"2030-01-01\"}], \"passengers\": [{\"type\": \"pilot\"}]}}");
    assert_int_equal(r->status, 422);
    e = first_error(r);
    assert_string_equal(s(e, "type"), "validation_error");
    assert_string_equal(s(json_object_get(e, "source"), "field"), "data.passengers[0]");
    assert_string_equal(s(json_object_get(e, "source"), "pointer"), "/passengers/0");
    e2e_free(r);
    r = call("GET", "/suppliers/a/air/orders/ord_nosuchorder", KEY_A, NULL, NULL);
    assert_int_equal(r->status, 404);
    assert_string_equal(s(first_error(r), "code"), "not_found");
    assert_string_equal(s(first_error(r), "type"), "invalid_request_error");
    e2e_free(r);
    /* A 429 (made by a fault): Duffel's rate-limit error, when to retry. */
    {
        const char *fh[] = {"Content-Type: application/json", NULL};
        const char *h2[] = {"Authorization: Bearer " KEY_A, "Duffel-Version: v2",
                            "x-request-id: duffel-429-1", NULL};
        char *ra;
        r = e2e_call(e2e_sandbox_url(), "POST", "/sandbox/faults", fh,
                     "{\"api\": \"supplier_a\", \"request_id_prefix\": \"duffel-429-\", "
                     "\"status\": 429, \"code\": \"rate_limit_exceeded\", \"retry_after\": \"7\"}");
        assert_int_equal(r->status, 201);
        e2e_free(r);
        r = e2e_call(e2e_sandbox_url(), "GET", "/suppliers/a/air/airlines/arl_BA", h2, NULL);
        assert_int_equal(r->status, 429);
        assert_string_equal(s(first_error(r), "type"), "rate_limit_error");
        assert_string_equal(s(first_error(r), "code"), "rate_limit_exceeded");
        ra = e2e_header(r, "Retry-After");
        assert_non_null(ra);
        assert_string_equal(ra, "7");
        free(ra);
        e2e_free(r);
    }
}

static void offers_and_airlines_come_in_pages(void **state)
{
    char d[11], body[512], path[512];
    const char *after = NULL;
    e2e_resp *r;
    json_t *seen = json_array();
    char orq[128];
    int pages = 0, total;
    (void)state;
    snprintf(body, sizeof(body), "{\"data\": {\"slices\": [{\"origin\": \"LHR\", \"destination\": "
             "\"JFK\", \"departure_date\": \"%s\"}], \"passengers\": [{\"type\": \"adult\"}, "
             "{\"age\": 7}]}}", date_in(33, d));
    r = call("POST", "/suppliers/a/air/offer_requests?return_offers=false", KEY_A, NULL, body);
    assert_int_equal(r->status, 201);
    assert_null(json_object_get(json_object_get(r->json, "data"), "offers"));
    snprintf(orq, sizeof(orq), "%s", s(json_object_get(r->json, "data"), "id"));
    assert_int_equal(strncmp(orq, "orq_", 4), 0);
    /* A child given by age. */
    assert_string_equal(s(json_array_get(json_object_get(json_object_get(r->json, "data"),
                                                         "passengers"), 1), "type"), "child");
    e2e_free(r);
    total = (int)json_array_size(a_search("LHR", "JFK", d, "economy", 1, 0));
    assert_true(total > 6);
    do {
        const json_t *meta;
        size_t i;
        snprintf(path, sizeof(path), "/suppliers/a/air/offers?offer_request_id=%s&limit=5%s%s",
                 orq, after ? "&after=" : "", after ? after : "");
        r = call("GET", path, KEY_A, NULL, NULL);
        assert_int_equal(r->status, 200);
        meta = json_object_get(r->json, "meta");
        assert_int_equal(json_integer_value(json_object_get(meta, "limit")), 5);
        assert_true(pages > 0 ? json_is_string(json_object_get(meta, "before"))
                              : !json_object_get(meta, "before"));
        for (i = 0; i < json_array_size(json_object_get(r->json, "data")); i++) {
            const char *id = s(json_array_get(json_object_get(r->json, "data"), i), "id");
            size_t k;
            for (k = 0; k < json_array_size(seen); k++) {
                assert_string_not_equal(json_string_value(json_array_get(seen, k)), id);
            }
            json_array_append_new(seen, json_string(id));
        }
        after = s(meta, "after") ? strdup(s(meta, "after")) : NULL;
        pages++;
        e2e_free(r);
    } while (after && pages < 100);
    /* Every offer of the search, once, on ceil(total / 5) pages. */
    assert_int_equal((int)json_array_size(seen), total);
    assert_int_equal(pages, (total + 4) / 5);
    snprintf(path, sizeof(path), "/suppliers/a/air/offers/%s?return_available_services=true",
             json_string_value(json_array_get(seen, 0)));
    r = call("GET", path, KEY_A, NULL, NULL);
    assert_int_equal(r->status, 200);
    assert_true(json_array_size(json_object_get(json_object_get(r->json, "data"),
                                                "available_services")) > 0);
    e2e_free(r);
    json_decref(seen);
    /* Airlines: 200 a page, the next through meta.after. */
    r = call("GET", "/suppliers/a/air/airlines?limit=200", KEY_A, NULL, NULL);
    assert_int_equal(r->status, 200);
    assert_int_equal(json_array_size(json_object_get(r->json, "data")), 200);
    snprintf(path, sizeof(path), "/suppliers/a/air/airlines?limit=200&after=%s",
             s(json_object_get(r->json, "meta"), "after"));
    snprintf(body, sizeof(body), "%s", s(json_array_get(json_object_get(r->json, "data"), 0), "id"));
    e2e_free(r);
    r = call("GET", path, KEY_A, NULL, NULL);
    assert_int_equal(r->status, 200);
    assert_string_not_equal(s(json_array_get(json_object_get(r->json, "data"), 0), "id"), body);
    e2e_free(r);
    r = call("GET", "/suppliers/a/air/airlines?limit=201", KEY_A, NULL, NULL);
    assert_int_equal(r->status, 422);
    e2e_free(r);
}

static void loyalty_then_a_hold_order_paid_later(void **state)
{
    char d[11], path[512], body[2048];
    json_t *offers = a_search("LHR", "JFK", date_in(41, d), "economy", 1, 0);
    const json_t *o = json_array_get(offers, 0), *order, *sg;
    const char *pid = s(json_array_get(json_object_get(o, "passengers"), 0), "id");
    const char *carrier;
    char total[32], cur[8], order_id[128];
    e2e_resp *r;
    (void)state;
    sg = json_array_get(json_object_get(json_array_get(json_object_get(o, "slices"), 0),
                                        "segments"), 0);
    carrier = code(sg, "marketing_carrier");
    /* A loyalty account on the offer's passenger: a member price. */
    snprintf(path, sizeof(path), "/suppliers/a/air/offers/%s/passengers/%s", s(o, "id"), pid);
    snprintf(body, sizeof(body), "{\"data\": {\"given_name\": \"Ada\", \"family_name\": \"Smith\", "
             "\"loyalty_programme_accounts\": [{\"airline_iata_code\": \"%s\", "
             "\"account_number\": \"12901014\"}]}}", carrier);
    r = call("PATCH", path, KEY_A, NULL, body);
    assert_int_equal(r->status, 200);
    assert_string_equal(s(json_object_get(r->json, "data"), "id"), pid);
    e2e_free(r);
    snprintf(path, sizeof(path), "/suppliers/a/air/offers/%s", s(o, "id"));
    r = call("GET", path, KEY_A, NULL, NULL);
    assert_int_equal(r->status, 200);
    assert_true(atof(s(json_object_get(r->json, "data"), "total_amount"))
                < atof(s(o, "total_amount")));
    snprintf(total, sizeof(total), "%s", s(json_object_get(r->json, "data"), "total_amount"));
    snprintf(cur, sizeof(cur), "%s", s(json_object_get(r->json, "data"), "total_currency"));
    e2e_free(r);
    /* A hold order: no payment now, one due later. */
    snprintf(body, sizeof(body), "{\"data\": {\"type\": \"hold\", \"selected_offers\": [\"%s\"], "
             "\"passengers\": [{\"id\": \"%s\", \"title\": \"ms\", \"gender\": \"f\", "
             "\"given_name\": \"Ada\", \"family_name\": \"Smith\", \"born_on\": \"1985-04-12\", "
             "\"email\": \"ada@example.com\", \"phone_number\": \"+442079460000\"}]}}",
             s(o, "id"), pid);
    r = call("POST", "/suppliers/a/air/orders", KEY_A, NULL, body);
    assert_int_equal(r->status, 201);
    order = json_object_get(r->json, "data");
    assert_string_equal(a_state(order), "awaiting_payment");
    assert_string_equal(s(order, "total_amount"), total);
    assert_non_null(s(json_object_get(order, "payment_status"), "payment_required_by"));
    assert_true(json_is_null(json_object_get(json_object_get(order, "payment_status"), "paid_at")));
    snprintf(order_id, sizeof(order_id), "%s", s(order, "id"));
    e2e_free(r);
    snprintf(body, sizeof(body), "{\"data\": {\"order_id\": \"%s\", \"payment\": {\"type\": "
             "\"balance\", \"amount\": \"1.00\", \"currency\": \"%s\"}}}", order_id, cur);
    r = call("POST", "/suppliers/a/air/payments", KEY_A, NULL, body);
    assert_int_equal(r->status, 422);
    assert_string_equal(err_code(r), "price_changed");
    e2e_free(r);
    snprintf(body, sizeof(body), "{\"data\": {\"order_id\": \"%s\", \"payment\": {\"type\": "
             "\"balance\", \"amount\": \"%s\", \"currency\": \"%s\"}}}", order_id, total, cur);
    r = call("POST", "/suppliers/a/air/payments", KEY_A, NULL, body);
    assert_int_equal(r->status, 201);
    assert_int_equal(strncmp(s(json_object_get(r->json, "data"), "id"), "pay_", 4), 0);
    assert_string_equal(s(json_object_get(r->json, "data"), "amount"), total);
    e2e_free(r);
    assert_string_equal(order_status(order_id), "ticketed");
    r = call("POST", "/suppliers/a/air/payments", KEY_A, NULL, body);
    assert_int_equal(r->status, 422);
    assert_string_equal(err_code(r), "already_paid");
    e2e_free(r);
    json_decref(offers);
}

static void airline_changes_are_listed(void **state)
{
    const char *h[] = {"Content-Type: application/json", NULL};
    json_t *o = order_a("Smith", NULL, 201);
    const char *id = s(json_object_get(o, "data"), "id");
    const json_t *ch, *rm, *ad;
    char path[256];
    e2e_resp *r;
    (void)state;
    snprintf(path, sizeof(path), "/sandbox/orders/%s/airline-initiated-changes", id);
    r = e2e_call(e2e_sandbox_url(), "POST", path, h, "{\"delay_minutes\": 95}");
    assert_int_equal(r->status, 201);
    e2e_free(r);
    snprintf(path, sizeof(path), "/suppliers/a/air/airline_initiated_changes?order_id=%s", id);
    r = call("GET", path, KEY_A, NULL, NULL);
    assert_int_equal(r->status, 200);
    assert_int_equal(json_array_size(json_object_get(r->json, "data")), 1);
    ch = json_array_get(json_object_get(r->json, "data"), 0);
    assert_string_equal(s(ch, "order_id"), id);
    rm = json_array_get(json_object_get(json_array_get(json_object_get(ch, "removed"), 0),
                                        "segments"), 0);
    ad = json_array_get(json_object_get(json_array_get(json_object_get(ch, "added"), 0),
                                        "segments"), 0);
    assert_string_equal(s(rm, "id"), s(ad, "id"));
    assert_int_equal(wall(s(ad, "departing_at")) - wall(s(rm, "departing_at")), 95 * 60);
    assert_true(json_is_null(json_object_get(ch, "action_taken")));
    e2e_free(r);
    json_decref(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_api_wants_its_own_key),
        cmocka_unit_test(offers_fly_listed_routes_and_carriers),
        cmocka_unit_test(local_times_follow_the_zones_across_a_dst_change),
        cmocka_unit_test(fares_vary_by_date_and_cabin_not_between_equal_searches),
        cmocka_unit_test(offers_expire_and_unknown_airports_are_refused),
        cmocka_unit_test(idempotency_key_ignored_and_one_order_per_offer),
        cmocka_unit_test(triggers_async_failticket_nocancel),
        cmocka_unit_test(unknown_hangs_past_the_timeout_but_orders),
        cmocka_unit_test(orders_are_listed_by_passenger_and_reference),
        cmocka_unit_test(airlines_by_code),
        cmocka_unit_test(duffel_versions_and_errors),
        cmocka_unit_test(offers_and_airlines_come_in_pages),
        cmocka_unit_test(loyalty_then_a_hold_order_paid_later),
        cmocka_unit_test(airline_changes_are_listed),
    };
    return E2E_RUN("sandbox_flights", tests);
}
