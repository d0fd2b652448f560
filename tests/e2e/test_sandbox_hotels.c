/* The sandbox hotel suppliers over real HTTP: each API's own credentials
 * (X-API-Key; Hotelbeds' SHA-256 X-Signature; Rapid's SHA-512 EAN
 * signature, computed here), hotel content by city and by coordinates
 * with paging, the same hotel at two or three suppliers under their own
 * ids with matching data, deterministic rates, the whole book flow of
 * each supplier (rates, re-price, book, read, find by reference, cancel),
 * the test triggers (Failbook, Async, Restricted, Tightened,
 * sandbox-cancel-fails, sandbox-unknown), the price control, the
 * client-reference guard each API documents in place of an Idempotency-Key
 * and faults on demand. */
#include "e2e.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <curl/curl.h>

#define KEY_A "sandbox-key-hotel-a"
#define KEY_B "sandbox-key-hotel-b"
#define SECRET_B "sandbox-secret-hotel-b"
#define KEY_C "sandbox-key-hotel-c"
#define SECRET_C "sandbox-secret-hotel-c"

/* ---- credentials ---- */

static void hex_digest(const EVP_MD *md, const char *msg, char *out)
{
    unsigned char d[EVP_MAX_MD_SIZE];
    unsigned int n = 0, i;
    EVP_Digest(msg, strlen(msg), d, &n, md, NULL);
    for (i = 0; i < n; i++) {
        sprintf(out + 2 * i, "%02x", d[i]);
    }
}

/* Rapid's Test header for the next SUPPLIER_C calls (NULL: none). */
static const char *c_test;

/* The headers of api 'a', 'b' or 'c' at time ts (0: now), plus extra. */
static void auth_headers(char api, long ts, char h[3][300])
{
    char msg[256], sig[200];
    if (!ts) {
        ts = (long)time(NULL);
    }
    h[0][0] = h[1][0] = h[2][0] = '\0';
    if (api == 'a') {
        snprintf(h[0], 300, "X-API-Key: %s", KEY_A);
    }
    else if (api == 'b') {
        snprintf(msg, sizeof(msg), "%s%s%ld", KEY_B, SECRET_B, ts);
        hex_digest(EVP_sha256(), msg, sig);
        snprintf(h[0], 300, "Api-key: %s", KEY_B);
        snprintf(h[1], 300, "X-Signature: %s", sig);
    }
    else {
        snprintf(msg, sizeof(msg), "%s%s%ld", KEY_C, SECRET_C, ts);
        hex_digest(EVP_sha512(), msg, sig);
        snprintf(h[0], 300, "Authorization: EAN APIKey=%s,Signature=%s,timestamp=%ld", KEY_C,
                 sig, ts);
        /* Rapid requires the traveller's IP on booking calls. */
        snprintf(h[1], 300, "Customer-Ip: 203.0.113.7");
        if (c_test) {
            snprintf(h[2], 300, "Test: %s", c_test);
        }
    }
}

/* The base of api 'a', 'b' or 'c' for a path: LiteAPI (a) serves prebook,
 * book and the bookings on its booking host. */
static const char *base_of(char api, const char *path)
{
    if (api == 'a') {
        return strncmp(path, "/rates/", 7) == 0 || strncmp(path, "/bookings", 9) == 0
                   ? "/hotels/a/book/v3.0" : "/hotels/a/v3.0";
    }
    return api == 'b' ? "/hotels/b" : "/hotels/c/v3";
}

/* A call to api at path (under its base) with optional idempotency key
 * and x-request-id. */
static e2e_resp *callx(char api, const char *method, const char *path, const char *body,
                       const char *idem, const char *rid)
{
    char h[3][300], full[4096], ik[300], rh[300];
    const char *hs[8];
    int n = 0, i;
    auth_headers(api, 0, h);
    for (i = 0; i < 3; i++) {
        if (h[i][0]) {
            hs[n++] = h[i];
        }
    }
    hs[n++] = "Content-Type: application/json";
    if (idem) {
        snprintf(ik, sizeof(ik), "Idempotency-Key: %s", idem);
        hs[n++] = ik;
    }
    if (rid) {
        snprintf(rh, sizeof(rh), "x-request-id: %s", rid);
        hs[n++] = rh;
    }
    hs[n] = NULL;
    snprintf(full, sizeof(full), "%s%s", base_of(api, path), path);
    return e2e_call(e2e_sandbox_url(), method, full, hs, body);
}

static e2e_resp *call(char api, const char *method, const char *path, const char *body)
{
    return callx(api, method, path, body, NULL, NULL);
}

static e2e_resp *must(e2e_resp *r, long status)
{
    if (r->status != status) {
        fail_msg("expected %ld, got %ld: %.600s", status, r->status, r->body);
    }
    return r;
}

static const char *date_in(int days, char *buf)
{
    time_t t = time(NULL) + (time_t)days * 86400;
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, 11, "%Y-%m-%d", &tm);
    return buf;
}

static const char *str(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

/* A LiteAPI amount (a JSON number in the major unit, as LiteAPI writes
 * money) in cents; fails on anything else. */
static long long lite_cents(const json_t *v)
{
    char buf[64];
    long long w = 0, c = 0;
    if (!json_is_number(v)) {
        fail_msg("a LiteAPI amount must be a JSON number");
    }
    snprintf(buf, sizeof(buf), "%.2f", json_number_value(v));
    assert_int_equal(sscanf(buf, "%lld.%lld", &w, &c), 2);
    return w * 100 + c;
}

static char *unique(const char *prefix)
{
    static int n;
    char *s = malloc(96);
    snprintf(s, 96, "%s-%ld-%d-%d", prefix, e2e_now_ms(), (int)getpid(), ++n);
    return s;
}

/* Expedia Rapid's error: {type, message, fields?}. */
static void assert_rapid_error(e2e_resp *r, long status, const char *type)
{
    if (r->status != status || !str(r->json, "type") || strcmp(str(r->json, "type"), type)) {
        fail_msg("expected %ld %s, got %ld: %.600s", status, type, r->status, r->body);
    }
    assert_non_null(str(r->json, "message"));
}

/* ---- content and mapping ---- */

static json_t *a_city(const char *city, const char *cc, int limit, int offset, int *total)
{
    char path[256];
    e2e_resp *r;
    json_t *d;
    snprintf(path, sizeof(path), "/data/hotels?countryCode=%s&cityName=%s&limit=%d&offset=%d",
             cc, city, limit, offset);
    r = must(call('a', "GET", path, NULL), 200);
    d = json_incref(json_object_get(r->json, "data"));
    if (total) {
        *total = (int)json_integer_value(json_object_get(r->json, "total"));
    }
    e2e_free(r);
    return d;
}

static void every_api_wants_its_own_credentials(void **state)
{
    char h[3][300];
    const char *hs[4];
    e2e_resp *r;
    (void)state;
    r = e2e_call(e2e_sandbox_url(), "GET", "/hotels/a/v3.0/data/hotel?hotelId=lp000000", NULL,
                 NULL);
    e2e_assert_error(r, 401, "unauthorized");
    e2e_free(r);
    hs[0] = "X-API-Key: sandbox-key-a";
    hs[1] = NULL;
    r = e2e_call(e2e_sandbox_url(), "GET", "/hotels/a/v3.0/data/hotels?countryCode=GB&cityName="
                 "London", hs, NULL);
    e2e_assert_error(r, 401, "unauthorized");
    e2e_free(r);
    /* Hotelbeds: a signature of another second than now +-5 min fails. */
    auth_headers('b', (long)time(NULL) - 3600, h);
    hs[0] = h[0];
    hs[1] = h[1];
    hs[2] = NULL;
    r = e2e_call(e2e_sandbox_url(), "GET",
                 "/hotels/b/hotel-content-api/1.0/locations/destinations?countryCodes=GB", hs, NULL);
    e2e_assert_error(r, 401, "unauthorized");
    e2e_free(r);
    auth_headers('b', (long)time(NULL) - 60, h);
    r = e2e_call(e2e_sandbox_url(), "GET",
                 "/hotels/b/hotel-content-api/1.0/locations/destinations?countryCodes=GB", hs, NULL);
    assert_int_equal(r->status, 200);
    e2e_free(r);
    /* Rapid: a stale timestamp, then the signature of another key. */
    auth_headers('c', (long)time(NULL) - 900, h);
    hs[0] = h[0];
    hs[1] = NULL;
    r = e2e_call(e2e_sandbox_url(), "GET", "/hotels/c/v3/properties/content?language=en-US&"
                 "supply_source=expedia&country_code=GB", hs, NULL);
    assert_rapid_error(r, 401, "request_unauthenticated");
    e2e_free(r);
    hs[0] = "Authorization: EAN APIKey=sandbox-key-hotel-c,Signature=00,timestamp=1";
    r = e2e_call(e2e_sandbox_url(), "GET", "/hotels/c/v3/properties/content?language=en-US&"
                 "supply_source=expedia&country_code=GB", hs, NULL);
    assert_rapid_error(r, 401, "request_unauthenticated");
    e2e_free(r);
}

/* London pages at every supplier, and a hotel sold by two or three of
 * them carries what an aggregator maps it by. */
static void hotels_page_and_map_across_suppliers(void **state)
{
    json_t *page1, *page2, *all, *bh, *ch;
    int total, i, matched_b = 0, matched_c = 0;
    e2e_resp *r;
    char path[512], *link;
    size_t k;
    const char *sid;
    json_t *v;
    (void)state;
    page1 = a_city("London", "GB", 20, 0, &total);
    assert_true(total >= 30);
    assert_int_equal(json_array_size(page1), 20);
    page2 = a_city("London", "GB", 20, 20, NULL);
    assert_true(json_array_size(page2) >= 10);
    assert_string_not_equal(str(json_array_get(page1, 0), "id"), str(json_array_get(page2, 0), "id"));
    all = a_city("London", "GB", 200, 0, NULL);
    assert_int_equal((int)json_array_size(all), total);
    /* SUPPLIER_B's London (destination LHR) and its GIATA-like codes. */
    r = must(call('b', "GET", "/hotel-content-api/1.0/hotels?destinationCode=LHR&from=1&to=200",
                  NULL), 200);
    bh = json_incref(json_object_get(r->json, "hotels"));
    assert_true(json_integer_value(json_object_get(r->json, "total")) >= 30);
    e2e_free(r);
    /* SUPPLIER_C's, page by page through the Link header. */
    ch = json_object();
    snprintf(path, sizeof(path), "/properties/content?language=en-US&supply_source=expedia"
             "&country_code=GB&limit=100");
    for (i = 0; i < 40; i++) {
        r = must(call('c', "GET", path, NULL), 200);
        json_object_update(ch, r->json);
        link = e2e_header(r, "Link");
        e2e_free(r);
        if (!link) {
            break;
        }
        assert_non_null(strstr(link, "rel=\"next\""));
        /* </hotels/c/v3/properties/content?...>; rel="next" */
        assert_int_equal(sscanf(link, "</hotels/c/v3%511[^>]>", path), 1);
        free(link);
    }
    assert_true(i >= 1 && i < 40);
    assert_true(json_object_size(ch) >= 30);
    json_array_foreach(all, k, v) {
        size_t j;
        json_t *b;
        const char *key;
        json_t *c;
        json_array_foreach(bh, j, b) {
            if (json_integer_value(json_object_get(b, "giataCode"))
                == json_integer_value(json_object_get(v, "giataId"))) {
                double dlat = json_real_value(json_object_get(json_object_get(b, "coordinates"),
                                                              "latitude"))
                            - json_real_value(json_object_get(v, "latitude"));
                assert_string_equal(str(json_object_get(b, "name"), "content"), str(v, "name"));
                assert_true(dlat < 0.001 && dlat > -0.001);   /* about 100 m */
                assert_string_equal(str(b, "postalCode"), str(v, "zip"));
                /* Its own id at B. */
                sid = str(v, "id");
                assert_true(strncmp(sid, "lp", 2) == 0);
                matched_b++;
            }
        }
        json_object_foreach(ch, key, c) {
            if (strcmp(str(c, "name"), str(v, "name")) == 0) {
                assert_string_equal(str(json_object_get(c, "address"), "postal_code"),
                                    str(v, "zip"));
                assert_null(json_object_get(c, "giataCode"));
                matched_c++;
            }
        }
    }
    /* Many of A's London hotels are sold by B and by C too. */
    assert_true(matched_b * 3 > total);
    assert_true(matched_c * 3 > total);
    json_decref(page1);
    json_decref(page2);
    json_decref(all);
    json_decref(bh);
    json_decref(ch);
}

static void hotels_are_found_by_coordinates(void **state)
{
    e2e_resp *r;
    json_t *d, *v;
    size_t i;
    (void)state;
    /* Paris: near the centre of CDG and ORY; 15 km takes in hotels. */
    r = must(call('a', "GET", "/data/hotels?latitude=48.85&longitude=2.45&radius=15000&limit=500",
                  NULL), 200);
    d = json_object_get(r->json, "data");
    assert_true(json_array_size(d) > 5);
    json_array_foreach(d, i, v) {
        assert_string_equal(str(v, "country"), "FR");
    }
    e2e_free(r);
    r = must(call('a', "GET", "/data/hotels?latitude=95&longitude=2&radius=1000", NULL), 422);
    e2e_free(r);
}

/* ---- SUPPLIER_A ---- */

static json_t *a_rates(const char *hotel_id, int days, int nights, const char *cur,
                       const char *occ)
{
    char body[1024], in[11], out[11];
    e2e_resp *r;
    json_t *d;
    snprintf(body, sizeof(body), "{\"hotelIds\": [\"%s\"], \"checkin\": \"%s\", \"checkout\": "
             "\"%s\", \"occupancies\": %s, \"currency\": \"%s\", \"guestNationality\": \"GB\"}",
             hotel_id, date_in(days, in), date_in(days + nights, out), occ, cur);
    r = must(call('a', "POST", "/hotels/rates", body), 200);
    d = json_incref(json_object_get(json_array_get(json_object_get(r->json, "data"), 0),
                                    "roomTypes"));
    e2e_free(r);
    return d;
}

static json_t *a_book_body(const char *prebook, const char *last, const char *ref)
{
    return json_pack("{s:s,s:{s:s,s:s,s:s},s:[{s:i,s:s,s:s}],s:{s:s},s:s}",
                     "prebookId", prebook, "holder", "firstName", "Ada", "lastName", last,
                     "email", "ada@example.com", "guests", "occupancyNumber", 1, "firstName",
                     "Ada", "lastName", last, "payment", "method", "ACC_CREDIT_CARD",
                     "clientReference", ref);
}

static char *a_prebook(const char *hotel, int days, int plan_nrf)
{
    json_t *types = a_rates(hotel, days, 2, "EUR", "[{\"adults\": 2}]"), *t;
    size_t i;
    char body[2048];
    e2e_resp *r;
    char *pid = NULL;
    assert_true(json_array_size(types) > 0);
    json_array_foreach(types, i, t) {
        if (strcmp(str(t, "rateType"), plan_nrf ? "NRFN" : "RFN") == 0) {
            snprintf(body, sizeof(body), "{\"offerId\": \"%s\"}", str(t, "offerId"));
            r = must(call('a', "POST", "/rates/prebook", body), 200);
            pid = strdup(str(json_object_get(r->json, "data"), "prebookId"));
            assert_false(json_is_true(json_object_get(json_object_get(r->json, "data"),
                                                      "priceChanged")));
            e2e_free(r);
            break;
        }
    }
    json_decref(types);
    return pid;
}

static const char *first_a_hotel(const char *city, const char *cc, int n)
{
    static char id[32];
    json_t *d = a_city(city, cc, n + 1, 0, NULL);
    snprintf(id, sizeof(id), "%s", str(json_array_get(d, (size_t)n), "id"));
    json_decref(d);
    return id;
}

static void a_rates_are_deterministic_and_plausible(void **state)
{
    const char *hotel = first_a_hotel("Berlin", "DE", 2);
    json_t *x = a_rates(hotel, 40, 3, "EUR", "[{\"adults\": 2}, {\"adults\": 1, \"children\": [6]}]");
    json_t *y = a_rates(hotel, 40, 3, "EUR", "[{\"adults\": 2}, {\"adults\": 1, \"children\": [6]}]");
    json_t *t, *rate;
    size_t i, k;
    (void)state;
    assert_true(json_array_size(x) > 0);
    assert_int_equal(json_array_size(x), json_array_size(y));
    json_array_foreach(x, i, t) {
        const json_t *u = json_array_get(y, i);
        long long sum = 0;
        assert_true(json_equal(json_object_get(json_object_get(t, "offerRetailRate"), "amount"),
                               json_object_get(json_object_get(u, "offerRetailRate"),
                                               "amount")));
        /* One rate per room, in the requested order, adding up. */
        assert_int_equal(json_array_size(json_object_get(t, "rates")), 2);
        json_array_foreach(json_object_get(t, "rates"), k, rate) {
            long long cents = lite_cents(json_object_get(json_array_get(json_object_get(
                json_object_get(rate, "retailRate"), "total"), 0), "amount"));
            assert_int_equal(json_integer_value(json_object_get(rate, "occupancyNumber")),
                             (json_int_t)k + 1);
            assert_true(cents / 100 >= 60);  /* a plausible Berlin stay */
            sum += cents;
            /* Berlin charges a city tax, paid at the hotel. */
            assert_false(json_is_true(json_object_get(json_array_get(json_object_get(
                json_object_get(rate, "retailRate"), "taxesAndFees"), 1), "included")));
        }
        assert_true(lite_cents(json_object_get(json_object_get(t, "offerRetailRate"),
                                               "amount")) == sum);
    }
    json_decref(x);
    json_decref(y);
}

static void a_books_reads_finds_and_cancels(void **state)
{
    const char *hotel = first_a_hotel("Paris", "FR", 0);
    char *pid = a_prebook(hotel, 60, 0), *ref = unique("a-flow"), path[300], *idem;
    long long price;
    json_t *body, *d;
    e2e_resp *r, *again;
    char id[64];
    (void)state;
    assert_non_null(pid);
    body = a_book_body(pid, "Lovelace", ref);
    idem = unique("idem");
    r = must(callx('a', "POST", "/rates/book", json_dumps(body, 0), idem, NULL), 200);
    d = json_object_get(r->json, "data");
    snprintf(id, sizeof(id), "%s", str(d, "bookingId"));
    assert_string_equal(str(d, "status"), "CONFIRMED");
    assert_string_equal(str(d, "clientReference"), ref);
    assert_non_null(str(d, "hotelConfirmationCode"));
    assert_string_equal(str(json_object_get(d, "payment"), "collectedBy"), "SUPPLIER_A");
    /* A retry (the same clientReference and prebook) under the same key:
     * that booking, not a second, and not a stored answer replayed: LiteAPI
     * documents no Idempotency-Key, its guard is the clientReference. */
    again = must(callx('a', "POST", "/rates/book", json_dumps(body, 0), idem, NULL), 200);
    assert_null(e2e_header(again, "Idempotent-Replayed"));
    assert_string_equal(str(json_object_get(again->json, "data"), "bookingId"), id);
    e2e_free(again);
    /* The same retry without a key: that booking again. */
    again = must(call('a', "POST", "/rates/book", json_dumps(body, 0)), 200);
    assert_string_equal(str(json_object_get(again->json, "data"), "bookingId"), id);
    assert_string_equal(str(json_object_get(again->json, "data"), "clientReference"), ref);
    e2e_free(again);
    e2e_free(r);
    snprintf(path, sizeof(path), "/bookings/%s", id);
    r = must(call('a', "GET", path, NULL), 200);
    assert_string_equal(str(json_object_get(r->json, "data"), "status"), "CONFIRMED");
    assert_string_equal(str(json_object_get(json_object_get(r->json, "data"), "hotel"),
                            "hotelId"), hotel);
    price = lite_cents(json_object_get(json_object_get(r->json, "data"), "price"));
    e2e_free(r);
    /* The hotel's own page lists the room types it sells. */
    snprintf(path, sizeof(path), "/data/hotel?hotelId=%s", hotel);
    r = must(call('a', "GET", path, NULL), 200);
    assert_true(json_array_size(json_object_get(json_object_get(r->json, "data"), "rooms")) >= 1);
    assert_string_equal(str(json_object_get(r->json, "data"), "id"), hotel);
    e2e_free(r);
    r = call('a', "GET", "/data/hotel?hotelId=lpffffff", NULL);
    e2e_assert_error(r, 404, "not_found");
    e2e_free(r);
    snprintf(path, sizeof(path), "/bookings?clientReference=%s", ref);
    r = must(call('a', "GET", path, NULL), 200);
    assert_int_equal(json_array_size(json_object_get(r->json, "data")), 1);
    e2e_free(r);
    /* Refundable, two months ahead: free to cancel. */
    snprintf(path, sizeof(path), "/bookings/%s", id);
    free(idem);
    idem = unique("idem-cancel");
    r = must(callx('a', "PUT", path, NULL, idem, NULL), 200);
    d = json_object_get(r->json, "data");
    assert_string_equal(str(d, "status"), "CANCELLED");
    assert_string_equal(str(d, "bookingId"), id);
    assert_int_equal(lite_cents(json_object_get(d, "cancellation_fee")), 0);
    assert_int_equal(lite_cents(json_object_get(d, "refund_amount")), price);
    e2e_free(r);
    /* Again, under the same key: LiteAPI cancels only a confirmed booking
     * and documents no Idempotency-Key, so the repeat is refused, not the
     * first answer replayed; the booking read states the cancellation. */
    r = callx('a', "PUT", path, NULL, idem, NULL);
    e2e_assert_error(r, 409, "booking_already_cancelled");
    assert_null(e2e_header(r, "Idempotent-Replayed"));
    e2e_free(r);
    r = must(call('a', "GET", path, NULL), 200);
    d = json_object_get(r->json, "data");
    assert_string_equal(str(d, "status"), "CANCELLED");
    assert_int_equal(lite_cents(json_object_get(json_object_get(d, "cancellation"),
                                                "cancellationFee")), 0);
    assert_int_equal(lite_cents(json_object_get(json_object_get(d, "cancellation"),
                                                "refundAmount")), price);
    e2e_free(r);
    json_decref(body);
    free(pid);
    free(ref);
    free(idem);
}

/* LiteAPI deduplicates a book by its clientReference: a second book
 * under a reference already booked, even of another prebook of the same
 * hotel, is refused (409 naming the booking) and books nothing; and it
 * documents no Idempotency-Key, so a key seen before does not replay the
 * first answer: a new request under it is judged on its own. */
static void a_client_reference_books_once(void **state)
{
    const char *hotel = first_a_hotel("Paris", "FR", 1);
    char *pid1 = a_prebook(hotel, 50, 0), *pid2 = a_prebook(hotel, 50, 0);
    char *ref = unique("a-ref"), *ref2 = unique("a-ref"), *idem = unique("idem"), path[300];
    char id1[64];
    json_t *body1, *body2, *body3;
    e2e_resp *r;
    (void)state;
    assert_non_null(pid1);
    assert_non_null(pid2);
    assert_string_not_equal(pid1, pid2);
    body1 = a_book_body(pid1, "Lovelace", ref);
    body2 = a_book_body(pid2, "Lovelace", ref);
    body3 = a_book_body(pid2, "Lovelace", ref2);
    r = must(callx('a', "POST", "/rates/book", json_dumps(body1, 0), idem, NULL), 200);
    snprintf(id1, sizeof(id1), "%s", str(json_object_get(r->json, "data"), "bookingId"));
    e2e_free(r);
    /* Another prebook under the same reference: refused, naming the first. */
    r = call('a', "POST", "/rates/book", json_dumps(body2, 0));
    e2e_assert_error(r, 409, "duplicate_booking");
    assert_string_equal(str(json_object_get(r->json, "error"), "existing_booking_id"), id1);
    e2e_free(r);
    snprintf(path, sizeof(path), "/bookings?clientReference=%s", ref);
    r = must(call('a', "GET", path, NULL), 200);
    assert_int_equal(json_array_size(json_object_get(r->json, "data")), 1);
    assert_string_equal(str(json_array_get(json_object_get(r->json, "data"), 0), "bookingId"),
                        id1);
    e2e_free(r);
    /* The first key on another request (the second prebook, a reference
     * of its own): a booking of its own, not the first answer replayed nor
     * a key-reuse error. */
    r = must(callx('a', "POST", "/rates/book", json_dumps(body3, 0), idem, NULL), 200);
    assert_null(e2e_header(r, "Idempotent-Replayed"));
    assert_string_not_equal(str(json_object_get(r->json, "data"), "bookingId"), id1);
    assert_string_equal(str(json_object_get(r->json, "data"), "clientReference"), ref2);
    e2e_free(r);
    json_decref(body1);
    json_decref(body2);
    json_decref(body3);
    free(pid1);
    free(pid2);
    free(ref);
    free(ref2);
    free(idem);
}

/* Two prebooks of one offer within the same second (their expiresAt, to
 * the second, tells) are two prebooks: two ids, and each books a booking
 * of its own under its own client reference. */
static void a_prebooks_of_one_offer_are_two(void **state)
{
    const char *hotel = first_a_hotel("Paris", "FR", 3);
    json_t *types = a_rates(hotel, 45, 2, "EUR", "[{\"adults\": 2}]"), *d1 = NULL, *d2 = NULL;
    char body[2048], *ref1 = unique("a-twice"), *ref2 = unique("a-twice"), id1[64];
    e2e_resp *r1 = NULL, *r2 = NULL, *b1, *b2;
    json_t *book1, *book2;
    int tries;
    (void)state;
    assert_true(json_array_size(types) > 0);
    snprintf(body, sizeof(body), "{\"offerId\": \"%s\"}",
             str(json_array_get(types, 0), "offerId"));
    for (tries = 0; tries < 20; tries++) {
        e2e_free(r1);
        e2e_free(r2);
        r1 = must(call('a', "POST", "/rates/prebook", body), 200);
        r2 = must(call('a', "POST", "/rates/prebook", body), 200);
        d1 = json_object_get(r1->json, "data");
        d2 = json_object_get(r2->json, "data");
        if (strcmp(str(d1, "expiresAt"), str(d2, "expiresAt")) == 0) {
            break;
        }
    }
    assert_true(tries < 20);
    assert_string_not_equal(str(d1, "prebookId"), str(d2, "prebookId"));
    book1 = a_book_body(str(d1, "prebookId"), "Lovelace", ref1);
    book2 = a_book_body(str(d2, "prebookId"), "Lovelace", ref2);
    b1 = must(call('a', "POST", "/rates/book", json_dumps(book1, 0)), 200);
    b2 = must(call('a', "POST", "/rates/book", json_dumps(book2, 0)), 200);
    snprintf(id1, sizeof(id1), "%s", str(json_object_get(b1->json, "data"), "bookingId"));
    assert_string_not_equal(id1, str(json_object_get(b2->json, "data"), "bookingId"));
    assert_string_equal(str(json_object_get(b1->json, "data"), "clientReference"), ref1);
    assert_string_equal(str(json_object_get(b2->json, "data"), "clientReference"), ref2);
    assert_string_equal(str(json_object_get(b2->json, "data"), "status"), "CONFIRMED");
    e2e_free(b1);
    e2e_free(b2);
    /* Each prebook is still booked once: the first again is its booking. */
    b1 = must(call('a', "POST", "/rates/book", json_dumps(book1, 0)), 200);
    assert_string_equal(str(json_object_get(b1->json, "data"), "bookingId"), id1);
    e2e_free(b1);
    e2e_free(r1);
    e2e_free(r2);
    json_decref(book1);
    json_decref(book2);
    json_decref(types);
    free(ref1);
    free(ref2);
}

static void a_nonrefundable_cancels_at_full_fee(void **state)
{
    const char *hotel;
    char *pid = NULL, *ref = unique("a-nrf"), path[300];
    long long price;
    json_t *body, *d;
    e2e_resp *r;
    int n;
    (void)state;
    for (n = 0; n < 10 && !pid; n++) {
        hotel = first_a_hotel("Tokyo", "JP", n);
        pid = a_prebook(hotel, 30, 1);
    }
    assert_non_null(pid);
    body = a_book_body(pid, "Hopper", ref);
    r = must(call('a', "POST", "/rates/book", json_dumps(body, 0)), 200);
    snprintf(path, sizeof(path), "/bookings/%s", str(json_object_get(r->json, "data"), "bookingId"));
    price = lite_cents(json_object_get(json_object_get(r->json, "data"), "price"));
    e2e_free(r);
    r = must(call('a', "PUT", path, NULL), 200);
    d = json_object_get(r->json, "data");
    /* A fee kept: LiteAPI says so in the status. */
    assert_string_equal(str(d, "status"), "CANCELLED_WITH_CHARGES");
    assert_int_equal(lite_cents(json_object_get(d, "cancellation_fee")), price);
    assert_int_equal(lite_cents(json_object_get(d, "refund_amount")), 0);
    e2e_free(r);
    json_decref(body);
    free(pid);
    free(ref);
}

/* ---- SUPPLIER_B ---- */

static json_t *b_availability(const char *hotels_json, int days, const char *cur)
{
    char body[1024], in[11], out[11];
    e2e_resp *r;
    json_t *h;
    snprintf(body, sizeof(body), "{\"stay\": {\"checkIn\": \"%s\", \"checkOut\": \"%s\"}, "
             "\"occupancies\": [{\"rooms\": 1, \"adults\": 2, \"children\": 1, \"paxes\": "
             "[{\"type\": \"CH\", \"age\": 8}]}], %s, \"currency\": \"%s\"}",
             date_in(days, in), date_in(days + 2, out), hotels_json, cur);
    r = must(call('b', "POST", "/hotel-api/1.0/hotels", body), 200);
    h = json_incref(json_object_get(json_object_get(r->json, "hotels"), "hotels"));
    e2e_free(r);
    return h;
}

static json_t *b_first_rate(const json_t *hotels, const char *rate_class)
{
    size_t i, j, k;
    json_t *h, *room, *rate;
    json_array_foreach(hotels, i, h) {
        json_array_foreach(json_object_get(h, "rooms"), j, room) {
            json_array_foreach(json_object_get(room, "rates"), k, rate) {
                if (!rate_class || strcmp(str(rate, "rateClass"), rate_class) == 0) {
                    return rate;
                }
            }
        }
    }
    return NULL;
}

static json_t *b_book_body(const char *key, const char *surname, const char *ref)
{
    return json_pack("{s:{s:s,s:s},s:[{s:s,s:[{s:i,s:s,s:s,s:s},{s:i,s:s,s:s,s:s}]}],s:s}",
                     "holder", "name", "Grace", "surname", surname, "rooms", "rateKey", key,
                     "paxes", "roomId", 1, "type", "AD", "name", "Grace", "surname", surname,
                     "roomId", 1, "type", "CH", "name", "Kid", "surname", surname,
                     "clientReference", ref);
}

static void b_books_by_destination_and_cancels(void **state)
{
    json_t *hotels = b_availability("\"destination\": {\"code\": \"CDG\"}", 50, "EUR"), *rate;
    json_t *body;
    char ck[2048], path[256], reference[32];
    char *ref = unique("b-flow");
    e2e_resp *r;
    (void)state;
    assert_true(json_array_size(hotels) >= 10);
    rate = b_first_rate(hotels, "NOR");
    assert_non_null(rate);
    snprintf(ck, sizeof(ck), "{\"rooms\": [{\"rateKey\": \"%s\"}]}", str(rate, "rateKey"));
    r = must(call('b', "POST", "/hotel-api/1.0/checkrates", ck), 200);
    /* Hotelbeds states no "changed" flag: the same net is the same price. */
    assert_string_equal(str(json_object_get(r->json, "hotel"), "totalNet"), str(rate, "net"));
    e2e_free(r);
    body = b_book_body(str(rate, "rateKey"), "Hopper", ref);
    r = must(call('b', "POST", "/hotel-api/1.0/bookings", json_dumps(body, 0)), 200);
    assert_string_equal(str(json_object_get(r->json, "booking"), "status"), "CONFIRMED");
    assert_string_equal(str(json_object_get(r->json, "booking"), "pendingAmount"), "0.00");
    snprintf(reference, sizeof(reference), "%s", str(json_object_get(r->json, "booking"),
                                                     "reference"));
    e2e_free(r);
    /* A second booking under the reference is refused, naming the first. */
    r = call('b', "POST", "/hotel-api/1.0/bookings", json_dumps(body, 0));
    e2e_assert_error(r, 409, "DUPLICATE_CLIENT_REFERENCE");
    assert_string_equal(str(json_object_get(r->json, "error"), "existing_booking_id"), reference);
    e2e_free(r);
    snprintf(path, sizeof(path), "/hotel-api/1.0/bookings/%s", reference);
    r = must(call('b', "GET", path, NULL), 200);
    assert_string_equal(str(json_object_get(r->json, "booking"), "clientReference"), ref);
    assert_string_equal(str(json_array_get(json_object_get(json_object_get(json_object_get(
                            r->json, "booking"), "hotel"), "rooms"), 0), "status"), "CONFIRMED");
    e2e_free(r);
    snprintf(path, sizeof(path), "/hotel-api/1.0/bookings?clientReference=%s", ref);
    r = must(call('b', "GET", path, NULL), 200);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(r->json, "bookings"),
                                                        "total")), 1);
    e2e_free(r);
    /* Hotelbeds' SIMULATION: what cancelling would cost, nothing changed. */
    snprintf(path, sizeof(path), "/hotel-api/1.0/bookings/%s?cancellationFlag=SIMULATION",
             reference);
    r = must(call('b', "DELETE", path, NULL), 200);
    assert_string_equal(str(json_object_get(r->json, "booking"), "status"), "CANCELLED");
    assert_string_equal(str(json_object_get(json_object_get(r->json, "booking"), "hotel"),
                            "cancellationAmount"), "0.00");
    e2e_free(r);
    snprintf(path, sizeof(path), "/hotel-api/1.0/bookings/%s", reference);
    r = must(call('b', "GET", path, NULL), 200);
    assert_string_equal(str(json_object_get(r->json, "booking"), "status"), "CONFIRMED");
    e2e_free(r);
    snprintf(path, sizeof(path), "/hotel-api/1.0/bookings/%s?cancellationFlag=CANCELLATION",
             reference);
    r = must(callx('b', "DELETE", path, NULL, ref, NULL), 200);
    assert_string_equal(str(json_object_get(r->json, "booking"), "status"), "CANCELLED");
    assert_string_equal(str(json_object_get(json_object_get(r->json, "booking"), "hotel"),
                            "cancellationAmount"), "0.00");
    e2e_free(r);
    /* Again, under the same Idempotency-Key (Hotelbeds documents none):
     * refused in Hotelbeds' error shape, not replayed; the booking read
     * states the cancellation and its amount. */
    r = callx('b', "DELETE", path, NULL, ref, NULL);
    e2e_assert_error(r, 409, "BOOKING_ALREADY_CANCELLED");
    assert_non_null(json_object_get(r->json, "auditData"));
    assert_null(e2e_header(r, "Idempotent-Replayed"));
    e2e_free(r);
    snprintf(path, sizeof(path), "/hotel-api/1.0/bookings/%s", reference);
    r = must(call('b', "GET", path, NULL), 200);
    assert_string_equal(str(json_object_get(r->json, "booking"), "status"), "CANCELLED");
    assert_string_equal(str(json_object_get(json_object_get(r->json, "booking"), "hotel"),
                            "cancellationAmount"), "0.00");
    e2e_free(r);
    json_decref(body);
    json_decref(hotels);
    free(ref);
}

static long long cents(const char *amount)
{
    long long w = 0, c = 0;
    assert_int_equal(sscanf(amount, "%lld.%lld", &w, &c), 2);
    return w * 100 + c;
}

/* The rate of room whose rooms/adults/children are those given, with
 * board and rateClass of like (any when NULL), or NULL. */
static json_t *b_group_rate(const json_t *room, int rooms, int adults, int children,
                            const json_t *like)
{
    size_t k;
    json_t *rate;
    json_array_foreach(json_object_get(room, "rates"), k, rate) {
        if (json_integer_value(json_object_get(rate, "rooms")) == rooms
            && json_integer_value(json_object_get(rate, "adults")) == adults
            && json_integer_value(json_object_get(rate, "children")) == children
            && (!like || (strcmp(str(rate, "boardCode"), str(like, "boardCode")) == 0
                          && strcmp(str(rate, "rateClass"), str(like, "rateClass")) == 0))) {
            return rate;
        }
    }
    return NULL;
}

/* Two rooms of different occupancies, as at Hotelbeds: each room type
 * answers a rate per occupancy group (its rooms, adults, children, own
 * rateKey and net, no room-by-room breakdown); a group's net is what those
 * rooms cost alone; checkrates takes every rateKey and books take one
 * rooms entry per rateKey whose paxes name roomId 1..rooms of its group. */
static void b_rates_per_occupancy_group(void **state)
{
    char body[2048], in[11], out[11], path[256];
    const char *two = "{\"rooms\": 1, \"adults\": 2, \"children\": 0}";
    const char *kids = "{\"rooms\": 1, \"adults\": 1, \"children\": 2, \"paxes\": "
                       "[{\"type\": \"CH\", \"age\": 4}, {\"type\": \"CH\", \"age\": 10}]}";
    char *ref = unique("b-groups");
    e2e_resp *r, *alone;
    json_t *hotel, *room, *g0, *g1, *only, *book, *bad;
    json_int_t code;
    long long sum, booked = 0;
    size_t i;
    json_t *rm;
    (void)state;
    date_in(70, in);
    date_in(73, out);
    snprintf(body, sizeof(body), "{\"stay\": {\"checkIn\": \"%s\", \"checkOut\": \"%s\"}, "
             "\"occupancies\": [%s, %s], \"destination\": {\"code\": \"CDG\"}, "
             "\"currency\": \"EUR\"}", in, out, two, kids);
    r = must(call('b', "POST", "/hotel-api/1.0/hotels", body), 200);
    hotel = json_array_get(json_object_get(json_object_get(r->json, "hotels"), "hotels"), 0);
    assert_non_null(hotel);
    code = json_integer_value(json_object_get(hotel, "code"));
    room = json_array_get(json_object_get(hotel, "rooms"), 0);
    g0 = b_group_rate(room, 1, 2, 0, NULL);
    assert_non_null(g0);
    g1 = b_group_rate(room, 1, 1, 2, g0);
    assert_non_null(g1);
    assert_null(json_object_get(g0, "roomRates"));
    assert_string_equal(str(g1, "childrenAges"), "4,10");
    assert_string_not_equal(str(g0, "rateKey"), str(g1, "rateKey"));
    /* Every rate of the room prices one group: none covers both rooms. */
    json_array_foreach(json_object_get(room, "rates"), i, rm) {
        assert_int_equal(json_integer_value(json_object_get(rm, "rooms")), 1);
    }
    /* The 2-adult group's net is what that room costs searched alone. */
    snprintf(body, sizeof(body), "{\"stay\": {\"checkIn\": \"%s\", \"checkOut\": \"%s\"}, "
             "\"occupancies\": [%s], \"hotels\": {\"hotel\": [%lld]}, \"currency\": \"EUR\"}",
             in, out, two, (long long)code);
    alone = must(call('b', "POST", "/hotel-api/1.0/hotels", body), 200);
    only = NULL;
    json_array_foreach(json_object_get(json_array_get(json_object_get(json_object_get(
                           alone->json, "hotels"), "hotels"), 0), "rooms"), i, rm) {
        if (strcmp(str(rm, "code"), str(room, "code")) == 0) {
            only = b_group_rate(rm, 1, 2, 0, g0);
        }
    }
    assert_non_null(only);
    assert_string_equal(str(only, "net"), str(g0, "net"));
    e2e_free(alone);
    sum = cents(str(g0, "net")) + cents(str(g1, "net"));
    /* checkrates: both keys, each rate again, the total their sum. */
    snprintf(body, sizeof(body), "{\"rooms\": [{\"rateKey\": \"%s\"}, {\"rateKey\": \"%s\"}]}",
             str(g0, "rateKey"), str(g1, "rateKey"));
    alone = must(call('b', "POST", "/hotel-api/1.0/checkrates", body), 200);
    assert_int_equal(cents(str(json_object_get(alone->json, "hotel"), "totalNet")), sum);
    assert_int_equal(json_array_size(json_object_get(json_array_get(json_object_get(
        json_object_get(alone->json, "hotel"), "rooms"), 0), "rates")), 2);
    e2e_free(alone);
    /* A pax naming a room its rateKey's group does not have is refused. */
    bad = json_pack("{s:{s:s,s:s},s:[{s:s,s:[{s:i,s:s,s:s,s:s}]},{s:s,s:[{s:i,s:s,s:s,s:s}]}],"
                    "s:s}", "holder", "name", "Grace", "surname", "Groups",
                    "rooms", "rateKey", str(g0, "rateKey"), "paxes", "roomId", 2, "type", "AD",
                    "name", "Grace", "surname", "Groups", "rateKey", str(g1, "rateKey"),
                    "paxes", "roomId", 1, "type", "AD", "name", "Ada", "surname", "Groups",
                    "clientReference", ref);
    alone = call('b', "POST", "/hotel-api/1.0/bookings", json_dumps(bad, 0));
    e2e_assert_error(alone, 422, "validation_error");
    e2e_free(alone);
    json_decref(bad);
    book = json_pack("{s:{s:s,s:s},s:[{s:s,s:[{s:i,s:s,s:s,s:s}]},"
                     "{s:s,s:[{s:i,s:s,s:s,s:s},{s:i,s:s,s:s,s:s,s:i}]}],s:s}",
                     "holder", "name", "Grace", "surname", "Groups",
                     "rooms", "rateKey", str(g0, "rateKey"), "paxes", "roomId", 1, "type", "AD",
                     "name", "Grace", "surname", "Groups", "rateKey", str(g1, "rateKey"),
                     "paxes", "roomId", 1, "type", "AD", "name", "Ada", "surname", "Groups",
                     "roomId", 1, "type", "CH", "name", "Kid", "surname", "Groups", "age", 4,
                     "clientReference", ref);
    alone = must(call('b', "POST", "/hotel-api/1.0/bookings", json_dumps(book, 0)), 200);
    assert_int_equal(cents(str(json_object_get(alone->json, "booking"), "totalNet")), sum);
    snprintf(path, sizeof(path), "/hotel-api/1.0/bookings/%s",
             str(json_object_get(alone->json, "booking"), "reference"));
    e2e_free(alone);
    alone = must(call('b', "GET", path, NULL), 200);
    rm = json_object_get(json_object_get(json_object_get(alone->json, "booking"), "hotel"),
                         "rooms");
    assert_int_equal(json_array_size(rm), 2);
    for (i = 0; i < 2; i++) {
        json_t *rate = json_array_get(json_object_get(json_array_get(rm, i), "rates"), 0);
        booked += cents(str(rate, "net"));
    }
    assert_int_equal(cents(str(json_array_get(json_object_get(json_array_get(rm, 0), "rates"), 0),
                               "net")), cents(str(g0, "net")));
    assert_int_equal(booked, sum);
    e2e_free(alone);
    json_decref(book);
    e2e_free(r);
    free(ref);
}

/* The price control multiplies one hotel's prices at one supplier: a
 * rateKey quoted before no longer books; DELETE restores the prices. */
static void price_control_moves_one_hotels_prices(void **state)
{
    json_t *before, *during, *after, *rate0, *rate1, *body;
    char hotels[128], ctl[256], ck[2048];
    json_int_t code;
    e2e_resp *r;
    long long b0, b1, c0, c1;
    char *ref = unique("b-price");
    (void)state;
    /* From the catalogue's own prices, whatever an earlier run left. */
    r = e2e_call(e2e_sandbox_url(), "DELETE", "/sandbox/hotel-prices", NULL, NULL);
    assert_int_equal(r->status, 200);
    e2e_free(r);
    before = b_availability("\"geolocation\": {\"latitude\": 52.5, \"longitude\": 13.4, "
                            "\"radius\": 30, \"unit\": \"km\"}", 35, "EUR");
    assert_true(json_array_size(before) > 0);
    code = json_integer_value(json_object_get(json_array_get(before, 0), "code"));
    snprintf(hotels, sizeof(hotels), "\"hotels\": {\"hotel\": [%lld]}", (long long)code);
    json_decref(before);
    before = b_availability(hotels, 35, "EUR");
    rate0 = b_first_rate(before, NULL);
    snprintf(ctl, sizeof(ctl), "{\"supplier\": \"SUPPLIER_B\", \"supplier_hotel_id\": \"%lld\", "
             "\"factor\": 2}", (long long)code);
    r = e2e_call(e2e_sandbox_url(), "POST", "/sandbox/hotel-prices",
                 (const char *const[]){"Content-Type: application/json", NULL}, ctl);
    assert_int_equal(r->status, 200);
    e2e_free(r);
    during = b_availability(hotels, 35, "EUR");
    rate1 = b_first_rate(during, NULL);
    assert_int_equal(sscanf(str(rate0, "net"), "%lld.%lld", &b0, &c0), 2);
    assert_int_equal(sscanf(str(rate1, "net"), "%lld.%lld", &b1, &c1), 2);
    /* Twice the price, within a cent a night of rounding. */
    if (llabs((b1 * 100 + c1) - 2 * (b0 * 100 + c0)) > 4) {
        fail_msg("%s then %s (%s, %s)", str(rate0, "net"), str(rate1, "net"),
                 str(rate0, "rateClass"), str(rate1, "rateClass"));
    }
    /* The rateKey quoted before the change: checkrates says so (its net is
     * the new price), book refuses. */
    snprintf(ck, sizeof(ck), "{\"rooms\": [{\"rateKey\": \"%s\"}]}", str(rate0, "rateKey"));
    r = must(call('b', "POST", "/hotel-api/1.0/checkrates", ck), 200);
    assert_string_equal(str(json_object_get(r->json, "hotel"), "totalNet"), str(rate1, "net"));
    e2e_free(r);
    body = b_book_body(str(rate0, "rateKey"), "Lamarr", ref);
    r = call('b', "POST", "/hotel-api/1.0/bookings", json_dumps(body, 0));
    e2e_assert_error(r, 409, "PRICE_CHANGED");
    e2e_free(r);
    /* Out-of-range factors and hotels the supplier does not sell are refused. */
    snprintf(ctl, sizeof(ctl), "{\"supplier\": \"SUPPLIER_B\", \"supplier_hotel_id\": \"%lld\", "
             "\"factor\": 11}", (long long)code);
    r = e2e_call(e2e_sandbox_url(), "POST", "/sandbox/hotel-prices",
                 (const char *const[]){"Content-Type: application/json", NULL}, ctl);
    assert_int_equal(r->status, 422);
    e2e_free(r);
    /* 18446744073709552 x 1000 wraps to 384 in 64 bits: a factor of 0.384
     * if the range were checked after multiplying (fuzz_sandbox_hotel). */
    snprintf(ctl, sizeof(ctl), "{\"supplier\": \"SUPPLIER_B\", \"supplier_hotel_id\": \"%lld\", "
             "\"factor\": 18446744073709552}", (long long)code);
    r = e2e_call(e2e_sandbox_url(), "POST", "/sandbox/hotel-prices",
                 (const char *const[]){"Content-Type: application/json", NULL}, ctl);
    assert_int_equal(r->status, 422);
    e2e_free(r);
    r = e2e_call(e2e_sandbox_url(), "POST", "/sandbox/hotel-prices",
                 (const char *const[]){"Content-Type: application/json", NULL},
                 "{\"supplier\": \"SUPPLIER_B\", \"supplier_hotel_id\": \"12\", \"factor\": 2}");
    assert_int_equal(r->status, 404);
    e2e_free(r);
    r = e2e_call(e2e_sandbox_url(), "DELETE", "/sandbox/hotel-prices", NULL, NULL);
    assert_int_equal(r->status, 200);
    e2e_free(r);
    after = b_availability(hotels, 35, "EUR");
    assert_string_equal(str(b_first_rate(after, NULL), "net"), str(rate0, "net"));
    json_decref(body);
    json_decref(before);
    json_decref(during);
    json_decref(after);
    free(ref);
}

/* ---- SUPPLIER_C ---- */

static char *c_book_link(const char *property, int days, const char *cur, int nrf)
{
    char path[1024], in[11], out[11];
    e2e_resp *r;
    json_t *room, *rate, *bg;
    size_t i, j;
    const char *href = NULL, *kk;
    char *book = NULL;
    snprintf(path, sizeof(path), "/properties/availability?checkin=%s&checkout=%s&currency=%s"
             "&occupancy=2&property_id=%s&rate_plan_count=20&country_code=US&language=en-US"
             "&sales_channel=website&sales_environment=hotel_only", date_in(days, in),
             date_in(days + 3, out), cur, property);
    r = must(call('c', "GET", path, NULL), 200);
    json_array_foreach(json_object_get(json_array_get(r->json, 0), "rooms"), i, room) {
        json_array_foreach(json_object_get(room, "rates"), j, rate) {
            if (json_is_true(json_object_get(rate, "refundable")) == !nrf && !href) {
                json_object_foreach(json_object_get(rate, "bed_groups"), kk, bg) {
                    href = str(json_object_get(json_object_get(bg, "links"), "price_check"),
                               "href");
                }
            }
        }
    }
    if (href) {
        e2e_resp *pc;
        assert_int_equal(strncmp(href, "/hotels/c/v3", 12), 0);
        pc = must(call('c', "GET", href + 12, NULL), 200);
        assert_string_equal(str(pc->json, "status"), "available");
        /* The room's own terms beside its pricing. */
        assert_true(json_array_size(json_object_get(json_object_get(json_object_get(pc->json,
                        "occupancy_pricing"), "2"), "cancel_penalties")) >= 1);
        book = strdup(str(json_object_get(json_object_get(pc->json, "links"), "book"), "href") + 12);
        e2e_free(pc);
    }
    e2e_free(r);
    return book;
}

/* The n-th property of a city: its Rapid region's property_ids. */
static const char *c_property(const char *city, const char *cc, int n)
{
    static char id[32];
    char path[256], name[64];
    e2e_resp *r;
    json_t *region;
    size_t i, k;
    snprintf(name, sizeof(name), "%s", city);
    for (k = 0; name[k]; k++) {
        if (strncmp(name + k, "%20", 3) == 0) {
            name[k] = ' ';
            memmove(name + k + 1, name + k + 3, strlen(name + k + 3) + 1);
        }
    }
    snprintf(path, sizeof(path), "/regions?include=details&include=property_ids"
             "&language=en-US&country_code=%s&type=city", cc);
    r = must(call('c', "GET", path, NULL), 200);
    id[0] = '\0';
    json_array_foreach(r->json, i, region) {
        assert_string_equal(str(region, "type"), "city");
        assert_true(json_is_object(json_object_get(region, "coordinates")));
        if (strcmp(str(region, "name"), name) == 0) {
            snprintf(id, sizeof(id), "%s", json_string_value(json_array_get(
                json_object_get(region, "property_ids"), (size_t)n)));
        }
    }
    e2e_free(r);
    assert_true(id[0]);
    return id;
}

/* Rapid keeps 3 to 28 characters of affiliate reference: the last 28 of
 * ref (unique), the whole ref (test triggers) in affiliate_metadata. */
static const char *c_short(const char *ref)
{
    size_t n = strlen(ref);
    return n > 28 ? ref + n - 28 : ref;
}

/* GET an itinerary by its id and the booking's email. */
static e2e_resp *c_get(const char *it)
{
    char path[256];
    snprintf(path, sizeof(path), "/itineraries/%s?email=grace%%40example.com", it);
    return call('c', "GET", path, NULL);
}

/* DELETE the first room's cancel link (its href is under the host). */
static e2e_resp *c_cancel_room(const json_t *itinerary)
{
    const char *href = str(json_object_get(json_object_get(json_array_get(
        json_object_get(itinerary, "rooms"), 0), "links"), "cancel"), "href");
    assert_non_null(href);
    assert_int_equal(strncmp(href, "/hotels/c/v3", 12), 0);
    return call('c', "DELETE", href + 12, NULL);
}

static e2e_resp *c_book(const char *link, const char *family, const char *ref)
{
    char body[1536];
    snprintf(body, sizeof(body), "{\"affiliate_reference_id\": \"%s\", \"affiliate_metadata\": "
             "\"%s\", \"hold\": false, "
             "\"email\": \"grace@example.com\", \"phone\": {\"country_code\": \"1\", \"number\": "
             "\"2025550100\"}, \"rooms\": [{\"given_name\": \"Grace\", \"family_name\": \"%s\", "
             "\"smoking\": false}], \"payments\": [{\"type\": \"customer_card\", \"number\": "
             "\"4111111111111111\", \"security_code\": \"123\", \"expiration_month\": \"12\", "
             "\"expiration_year\": \"2030\", \"billing_contact\": {\"given_name\": \"Grace\", "
             "\"family_name\": \"%s\", \"address\": {\"country_code\": \"US\"}}}]}",
             c_short(ref), ref, family, family);
    return call('c', "POST", link, body);
}

static void c_books_previews_and_cancels(void **state)
{
    char *link = c_book_link(c_property("New%20York", "US", 0), 45, "USD", 0);
    char *ref = unique("c-flow"), path[256], it[64];
    e2e_resp *r;
    json_t *rooms, *room, *total;
    (void)state;
    assert_non_null(link);
    r = must(c_book(link, "Hamilton", ref), 201);
    snprintf(it, sizeof(it), "%s", str(r->json, "itinerary_id"));
    /* Rapid's create answer: the id and the link to retrieve it. */
    assert_non_null(strstr(str(json_object_get(json_object_get(r->json, "links"), "retrieve"),
                               "href"), "/v3/itineraries/"));
    snprintf(path, sizeof(path), "%s", str(json_object_get(json_object_get(r->json, "links"),
                                                           "retrieve"), "href") + 12);
    e2e_free(r);
    /* The same affiliate reference again: Rapid's duplicate refusal. */
    r = c_book(link, "Hamilton", ref);
    assert_rapid_error(r, 409, "duplicate_itinerary");
    e2e_free(r);
    /* Retrieved by its link's token, and by its email. */
    r = must(call('c', "GET", path, NULL), 200);
    e2e_free(r);
    r = must(c_get(it), 200);
    rooms = json_object_get(r->json, "rooms");
    room = json_array_get(rooms, 0);
    assert_int_equal(json_array_size(rooms), 1);
    assert_string_equal(str(room, "status"), "booked");
    assert_string_equal(str(r->json, "affiliate_metadata"), ref);
    assert_null(json_object_get(r->json, "payments"));
    /* The preview: refundable 45 days ahead, all of it comes back now;
     * its first penalty starts later; it can be cancelled online. */
    total = json_object_get(json_object_get(json_object_get(json_object_get(room, "rate"),
                                                            "pricing"), "totals"), "inclusive");
    assert_string_equal(str(json_object_get(json_object_get(room, "rate"), "cancel_refund"),
                            "amount"),
                        str(json_object_get(total, "request_currency"), "value"));
    assert_non_null(json_object_get(json_object_get(room, "links"), "cancel"));
    snprintf(path, sizeof(path), "/itineraries?affiliate_reference_id=%s&email=grace%%40"
             "example.com", c_short(ref));
    {
        e2e_resp *f = must(call('c', "GET", path, NULL), 200);
        assert_int_equal(json_array_size(f->json), 1);
        assert_string_equal(str(json_array_get(f->json, 0), "itinerary_id"), it);
        e2e_free(f);
    }
    /* Another email finds nothing. */
    snprintf(path, sizeof(path), "/itineraries?affiliate_reference_id=%s&email=x%%40example.com",
             c_short(ref));
    {
        e2e_resp *f = must(call('c', "GET", path, NULL), 200);
        assert_int_equal(json_array_size(f->json), 0);
        e2e_free(f);
    }
    /* Cancel the room: 204, no body; the room reads canceled, and what
     * it refunded stays. */
    {
        e2e_resp *d = c_cancel_room(r->json);
        assert_int_equal(d->status, 204);
        assert_int_equal(d->body_len, 0);
        e2e_free(d);
    }
    e2e_free(r);
    r = must(c_get(it), 200);
    room = json_array_get(json_object_get(r->json, "rooms"), 0);
    assert_string_equal(str(room, "status"), "canceled");
    assert_null(json_object_get(json_object_get(room, "links"), "cancel"));
    e2e_free(r);
    free(link);
    free(ref);
}

/* Rapid's Test header answers its documented set responses, per call. */
static void c_test_header_answers_set_responses(void **state)
{
    char *link = c_book_link(c_property("Paris", "FR", 1), 40, "EUR", 0);
    char *ref = unique("c-test"), path[512], in[11], out[11];
    e2e_resp *r;
    (void)state;
    assert_non_null(link);
    snprintf(path, sizeof(path), "/properties/availability?checkin=%s&checkout=%s&currency=EUR"
             "&occupancy=2&property_id=%s&country_code=US&language=en-US&rate_plan_count=1"
             "&sales_channel=website&sales_environment=hotel_only", date_in(40, in),
             date_in(42, out), c_property("Paris", "FR", 1));
    c_test = "service_unavailable";
    assert_rapid_error(r = call('c', "GET", path, NULL), 503, "service_unavailable");
    e2e_free(r);
    c_test = "no_such_keyword";
    assert_rapid_error(r = call('c', "GET", path, NULL), 400, "invalid_input");
    e2e_free(r);
    c_test = "cc_declined";
    assert_rapid_error(r = c_book(link, "Hamilton", ref), 400, "payment.declined");
    e2e_free(r);
    c_test = "price_mismatch";
    assert_rapid_error(r = c_book(link, "Hamilton", ref), 409, "price_mismatch");
    e2e_free(r);
    c_test = "standard";
    r = must(c_book(link, "Hamilton", ref), 201);
    e2e_free(r);
    c_test = NULL;
    free(link);
    free(ref);
}

/* A hotel named again in one request is answered once, as the real APIs
 * answer: a list of ids is a set. */
static void a_hotel_named_again_is_answered_once(void **state)
{
    char body[1024], path[512], in[11], out[11], hotels[128], pid[32];
    json_t *b = b_availability("\"destination\": {\"code\": \"CDG\"}", 50, "EUR");
    e2e_resp *r;
    const char *aid = first_a_hotel("Berlin", "DE", 0);
    long long code;
    (void)state;
    snprintf(body, sizeof(body), "{\"hotelIds\": [\"%s\", \"%s\"], \"checkin\": \"%s\", "
             "\"checkout\": \"%s\", \"occupancies\": [{\"adults\": 2}], \"currency\": "
             "\"EUR\", \"guestNationality\": \"GB\"}", aid, aid, date_in(40, in),
             date_in(42, out));
    r = must(call('a', "POST", "/hotels/rates", body), 200);
    assert_int_equal(json_array_size(json_object_get(r->json, "data")), 1);
    e2e_free(r);

    assert_true(json_array_size(b) >= 1);
    code = (long long)json_integer_value(json_object_get(json_array_get(b, 0), "code"));
    snprintf(hotels, sizeof(hotels), "\"hotels\": {\"hotel\": [%lld, %lld, %lld]}", code,
             code, code);
    json_decref(b);
    b = b_availability(hotels, 50, "EUR");
    assert_int_equal(json_array_size(b), 1);
    json_decref(b);

    snprintf(pid, sizeof(pid), "%s", c_property("New%20York", "US", 0));
    snprintf(path, sizeof(path), "/properties/availability?checkin=%s&checkout=%s&currency=USD"
             "&occupancy=2&property_id=%s&property_id=%s&property_id=%s&country_code=US"
             "&language=en-US&rate_plan_count=5&sales_channel=website"
             "&sales_environment=hotel_only", date_in(45, in),
             date_in(48, out), pid, pid, pid);
    r = must(call('c', "GET", path, NULL), 200);
    assert_int_equal(json_array_size(r->json), 1);
    assert_string_equal(str(json_array_get(r->json, 0), "property_id"), pid);
    e2e_free(r);
}

/* ---- triggers ---- */

static void failbook_is_refused_by_every_supplier(void **state)
{
    char *pid = a_prebook(first_a_hotel("London", "GB", 1), 20, 0), *ref = unique("fail");
    json_t *body = a_book_body(pid, "Failbook", ref), *hotels, *rate;
    char *link, path[256];
    e2e_resp *r;
    (void)state;
    r = call('a', "POST", "/rates/book", json_dumps(body, 0));
    e2e_assert_error(r, 422, "booking_failed");
    e2e_free(r);
    json_decref(body);
    snprintf(path, sizeof(path), "/bookings?clientReference=%s", ref);
    r = must(call('a', "GET", path, NULL), 200);
    assert_int_equal(json_array_size(json_object_get(r->json, "data")), 0);
    e2e_free(r);
    hotels = b_availability("\"destination\": {\"code\": \"LHR\"}", 20, "GBP");
    rate = b_first_rate(hotels, NULL);
    body = b_book_body(str(rate, "rateKey"), "Failbook", ref);
    r = call('b', "POST", "/hotel-api/1.0/bookings", json_dumps(body, 0));
    e2e_assert_error(r, 422, "BOOKING_REFUSED");
    e2e_free(r);
    link = c_book_link(c_property("London", "GB", 2), 20, "GBP", 0);
    r = c_book(link, "Failbook", ref);
    assert_rapid_error(r, 400, "rooms_unavailable");
    e2e_free(r);
    json_decref(body);
    json_decref(hotels);
    free(link);
    free(pid);
    free(ref);
}

static void async_confirms_later(void **state)
{
    char *link = c_book_link(c_property("Paris", "FR", 3), 25, "EUR", 0), *ref = unique("async");
    char it[64];
    e2e_resp *r;
    long deadline;
    int confirmed = 0;
    (void)state;
    r = must(c_book(link, "Async", ref), 201);
    snprintf(it, sizeof(it), "%s", str(r->json, "itinerary_id"));
    e2e_free(r);
    r = must(c_get(it), 200);
    if (strcmp(str(json_array_get(json_object_get(r->json, "rooms"), 0), "status"), "pending")
        == 0) {
        /* Pending: no cancel link until the property confirms. */
        assert_null(json_object_get(json_object_get(json_array_get(json_object_get(r->json,
                                                                                   "rooms"), 0),
                                                    "links"), "cancel"));
    }
    e2e_free(r);
    /* Confirmed after about 3 s: bounded at 30 s for a loaded machine. */
    deadline = e2e_now_ms() + 30000;
    while (!confirmed && e2e_now_ms() < deadline) {
        r = must(c_get(it), 200);
        confirmed = strcmp(str(json_array_get(json_object_get(r->json, "rooms"), 0), "status"),
                           "booked") == 0;
        if (confirmed) {
            assert_non_null(str(json_object_get(json_array_get(json_object_get(r->json, "rooms"),
                                                               0), "confirmation_id"),
                                "property"));
        }
        e2e_free(r);
        if (!confirmed) {
            e2e_sleep_ms(250);
        }
    }
    assert_true(confirmed);
    free(link);
    free(ref);
}

/* Restricted: the property must approve a cancellation, so the room has
 * no cancel link (Rapid's way of saying it cannot be cancelled online). */
static void restricted_itineraries_cannot_be_cancelled(void **state)
{
    char *link = c_book_link(c_property("Berlin", "DE", 1), 30, "EUR", 0);
    char *ref = unique("restricted"), it[64];
    e2e_resp *r;
    const json_t *room;
    (void)state;
    r = must(c_book(link, "Restricted", ref), 201);
    snprintf(it, sizeof(it), "%s", str(r->json, "itinerary_id"));
    e2e_free(r);
    r = must(c_get(it), 200);
    room = json_array_get(json_object_get(r->json, "rooms"), 0);
    assert_string_equal(str(room, "status"), "booked");
    assert_null(json_object_get(json_object_get(room, "links"), "cancel"));
    e2e_free(r);
    free(link);
    free(ref);
}

/* Tightened: a refundable rate is booked non-refundable, in each API's
 * own shape, and the booking's reads (and SUPPLIER_C's preview) agree. */
static void a_tightened_room(const json_t *data)
{
    const json_t *room = json_array_get(json_object_get(data, "bookedRooms"), 0);
    const json_t *cp = json_object_get(room, "cancellationPolicies");
    const json_t *infos = json_object_get(cp, "cancelPolicyInfos");
    assert_string_equal(str(cp, "refundableTag"), "NRFN");
    assert_int_equal(json_array_size(infos), 1);
    assert_true(json_equal(json_object_get(json_array_get(infos, 0), "amount"),
                           json_object_get(room, "amount")));
}

static const json_t *b_tightened_rate(const json_t *booking)
{
    const json_t *rate = json_array_get(json_object_get(json_array_get(json_object_get(
        json_object_get(booking, "hotel"), "rooms"), 0), "rates"), 0);
    const json_t *pens = json_object_get(rate, "cancellationPolicies");
    assert_string_equal(str(rate, "rateClass"), "NRF");
    assert_int_equal(json_array_size(pens), 1);
    assert_string_equal(str(json_array_get(pens, 0), "amount"), str(rate, "net"));
    return rate;
}

static void tightened_books_nonrefundable_in_each_api(void **state)
{
    char *pid = a_prebook(first_a_hotel("London", "GB", 3), 26, 0), *ref = unique("tight");
    json_t *body = a_book_body(pid, "Tightened", ref), *hotels, *rate;
    const json_t *room;
    char *link, path[300], id[64];
    e2e_resp *r;
    (void)state;
    assert_non_null(pid);
    r = must(call('a', "POST", "/rates/book", json_dumps(body, 0)), 200);
    a_tightened_room(json_object_get(r->json, "data"));
    snprintf(id, sizeof(id), "%s", str(json_object_get(r->json, "data"), "bookingId"));
    e2e_free(r);
    snprintf(path, sizeof(path), "/bookings/%s", id);
    r = must(call('a', "GET", path, NULL), 200);
    a_tightened_room(json_object_get(r->json, "data"));
    e2e_free(r);
    json_decref(body);

    hotels = b_availability("\"destination\": {\"code\": \"LHR\"}", 26, "EUR");
    rate = b_first_rate(hotels, "NOR");
    assert_non_null(rate);
    body = b_book_body(str(rate, "rateKey"), "Tightened", ref);
    r = must(call('b', "POST", "/hotel-api/1.0/bookings", json_dumps(body, 0)), 200);
    b_tightened_rate(json_object_get(r->json, "booking"));
    snprintf(path, sizeof(path), "/hotel-api/1.0/bookings/%s",
             str(json_object_get(r->json, "booking"), "reference"));
    e2e_free(r);
    r = must(call('b', "GET", path, NULL), 200);
    b_tightened_rate(json_object_get(r->json, "booking"));
    e2e_free(r);

    link = c_book_link(c_property("London", "GB", 3), 26, "EUR", 0);
    assert_non_null(link);
    r = must(c_book(link, "Tightened", ref), 201);
    snprintf(id, sizeof(id), "%s", str(r->json, "itinerary_id"));
    e2e_free(r);
    r = must(c_get(id), 200);
    room = json_array_get(json_object_get(r->json, "rooms"), 0);
    assert_false(json_is_true(json_object_get(json_object_get(room, "rate"), "refundable")));
    assert_int_equal(json_array_size(json_object_get(json_object_get(room, "rate"),
                                                     "cancel_penalties")), 1);
    /* Nothing would come back now. */
    assert_string_equal(str(json_object_get(json_object_get(room, "rate"), "cancel_refund"),
                            "amount"), "0.00");
    e2e_free(r);
    json_decref(body);
    json_decref(hotels);
    free(link);
    free(pid);
    free(ref);
}

static void cancel_fails_on_the_reference_trigger(void **state)
{
    char *pid = a_prebook(first_a_hotel("Berlin", "DE", 4), 40, 0);
    char *ref = unique("sandbox-cancel-fails"), path[256];
    json_t *body = a_book_body(pid, "Noether", ref);
    e2e_resp *r;
    (void)state;
    r = must(call('a', "POST", "/rates/book", json_dumps(body, 0)), 200);
    snprintf(path, sizeof(path), "/bookings/%s", str(json_object_get(r->json, "data"),
                                                     "bookingId"));
    e2e_free(r);
    r = call('a', "PUT", path, NULL);
    e2e_assert_error(r, 422, "cancellation_failed");
    e2e_free(r);
    r = must(call('a', "GET", path, NULL), 200);
    assert_string_equal(str(json_object_get(r->json, "data"), "status"), "CONFIRMED");
    e2e_free(r);
    json_decref(body);
    free(pid);
    free(ref);
}

static size_t discard(char *p, size_t s, size_t n, void *u)
{
    (void)p;
    (void)u;
    return s * n;
}

/* sandbox-unknown: the book times out at the caller, but the booking was
 * made: it is found by its reference and read, and booking the same
 * prebook again gives that booking, never a second. */
static void unknown_times_out_but_books_once(void **state)
{
    char *pid = a_prebook(first_a_hotel("Tokyo", "JP", 3), 15, 0);
    char *ref = unique("sandbox-unknown"), url[512], path[256], h[3][300];
    json_t *body = a_book_body(pid, "Curie", ref);
    struct curl_slist *hs = NULL;
    CURL *c = curl_easy_init();
    CURLcode rc;
    e2e_resp *r;
    char *json = json_dumps(body, 0), id[64];
    (void)state;
    auth_headers('a', 0, h);
    hs = curl_slist_append(hs, h[0]);
    hs = curl_slist_append(hs, "Content-Type: application/json");
    snprintf(url, sizeof(url), "%s/hotels/a/book/v3.0/rates/book", e2e_sandbox_url());
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, hs);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, json);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 2000L);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
    rc = curl_easy_perform(c);
    assert_int_equal(rc, CURLE_OPERATION_TIMEDOUT);
    curl_easy_cleanup(c);
    curl_slist_free_all(hs);
    snprintf(path, sizeof(path), "/bookings?clientReference=%s", ref);
    r = must(call('a', "GET", path, NULL), 200);
    assert_int_equal(json_array_size(json_object_get(r->json, "data")), 1);
    snprintf(id, sizeof(id), "%s", str(json_array_get(json_object_get(r->json, "data"), 0),
                                       "bookingId"));
    e2e_free(r);
    snprintf(path, sizeof(path), "/bookings/%s", id);
    r = must(call('a', "GET", path, NULL), 200);
    assert_string_equal(str(json_object_get(r->json, "data"), "status"), "CONFIRMED");
    e2e_free(r);
    /* Without the trigger in the reference the retry answers at once. */
    json_object_set_new(body, "clientReference", json_string("retry"));
    r = must(call('a', "POST", "/rates/book", json_dumps(body, 0)), 200);
    assert_string_equal(str(json_object_get(r->json, "data"), "bookingId"), id);
    e2e_free(r);
    free(json);
    json_decref(body);
    free(pid);
    free(ref);
}

/* ---- refusals ---- */

/* Rapid's refusal of a field: 400 invalid_input naming it. */
static void assert_rapid_field(e2e_resp *r, const char *field)
{
    assert_rapid_error(r, 400, "invalid_input");
    assert_string_equal(str(json_array_get(json_object_get(r->json, "fields"), 0), "name"),
                        field);
    e2e_free(r);
}

static void assert_field(e2e_resp *r, const char *field)
{
    e2e_assert_error(r, 422, "validation_error");
    assert_string_equal(str(json_object_get(r->json, "error"), "field"), field);
    e2e_free(r);
}

/* Bad input is refused naming the field, at every API. */
static void bad_requests_name_the_field(void **state)
{
    char body[1024], in[11], out[11], path[512];
    const char *hotel = first_a_hotel("Paris", "FR", 5);
    (void)state;
    snprintf(body, sizeof(body), "{\"hotelIds\": [\"%s\"], \"checkin\": \"%s\", "
             "\"checkout\": \"%s\", \"occupancies\": [{\"adults\": 2}], \"currency\": "
             "\"EUR\"}", hotel, date_in(20, in), date_in(20, out));
    assert_field(call('a', "POST", "/hotels/rates", body), "checkout");
    snprintf(body, sizeof(body), "{\"hotelIds\": [\"%s\"], \"checkin\": \"%s\", "
             "\"checkout\": \"%s\", \"occupancies\": [{\"adults\": 2, \"children\": [19]}], "
             "\"currency\": \"EUR\"}", hotel, date_in(20, in), date_in(22, out));
    assert_field(call('a', "POST", "/hotels/rates", body), "occupancies[0]");
    snprintf(body, sizeof(body), "{\"hotelIds\": [\"%s\"], \"checkin\": \"%s\", "
             "\"checkout\": \"%s\", \"occupancies\": [{\"adults\": 2}], \"currency\": "
             "\"XXX\"}", hotel, date_in(20, in), date_in(22, out));
    assert_field(call('a', "POST", "/hotels/rates", body), "currency");
    assert_field(call('a', "POST", "/rates/prebook", "{\"offerId\": \"aDF8YXxmb3JnZWQ\"}"),
                 "offerId");
    snprintf(body, sizeof(body), "{\"stay\": {\"checkIn\": \"%s\", \"checkOut\": \"%s\"}, "
             "\"occupancies\": [{\"rooms\": 1, \"adults\": 2, \"children\": 1}], "
             "\"destination\": {\"code\": \"CDG\"}}", date_in(20, in), date_in(22, out));
    assert_field(call('b', "POST", "/hotel-api/1.0/hotels", body), "occupancies[0]");
    snprintf(body, sizeof(body), "{\"stay\": {\"checkIn\": \"%s\", \"checkOut\": \"%s\"}, "
             "\"occupancies\": [{\"rooms\": 1, \"adults\": 2, \"children\": 0}], "
             "\"destination\": {\"code\": \"ZZZ\"}}", date_in(20, in), date_in(22, out));
    assert_field(call('b', "POST", "/hotel-api/1.0/hotels", body), "destination.code");
    assert_field(call('b', "POST", "/hotel-api/1.0/bookings", "{\"holder\": {\"name\": \"A\", "
                      "\"surname\": \"B\"}, \"clientReference\": \"x\", \"rooms\": "
                      "[{\"rateKey\": \"bm90LWEta2V5\"}]}"), "rooms[0].rateKey");
    snprintf(path, sizeof(path), "/properties/availability?checkin=%s&checkout=%s&currency=EUR"
             "&occupancy=2-&property_id=%s&country_code=US&language=en-US&rate_plan_count=1"
             "&sales_channel=website&sales_environment=hotel_only", date_in(20, in),
             date_in(22, out), c_property("Paris", "FR", 0));
    assert_rapid_field(call('c', "GET", path, NULL), "occupancy");
    snprintf(path, sizeof(path), "/properties/availability?checkin=%s&checkout=%s&currency=EUR"
             "&occupancy=2&country_code=US&language=en-US&rate_plan_count=1"
             "&sales_channel=website&sales_environment=hotel_only", date_in(20, in),
             date_in(22, out));
    assert_rapid_field(call('c', "GET", path, NULL), "property_id");
    /* Rapid's required shopping parameters. */
    snprintf(path, sizeof(path), "/properties/availability?checkin=%s&checkout=%s&currency=EUR"
             "&occupancy=2&property_id=1&country_code=US&rate_plan_count=1"
             "&sales_channel=website&sales_environment=hotel_only", date_in(20, in),
             date_in(22, out));
    assert_rapid_field(call('c', "GET", path, NULL), "language");
    snprintf(path, sizeof(path), "/properties/availability?checkin=%s&checkout=%s&currency=EUR"
             "&occupancy=2&property_id=1&country_code=US&language=en-US&rate_plan_count=1"
             "&sales_environment=hotel_only", date_in(20, in), date_in(22, out));
    assert_rapid_field(call('c', "GET", path, NULL), "sales_channel");
    assert_rapid_field(call('c', "POST", "/itineraries?token=Zm9yZ2Vk", "{}"), "token");
}

/* ---- the traveller (Rapid: Customer-Ip, Customer-Session-Id, language) ---- */

/* A Rapid call with this Customer-Ip (NULL: none) and session. */
static e2e_resp *c_as(const char *method, const char *path, const char *ip, const char *session,
                      const char *rid)
{
    char h[3][300], iph[300], sh[300], rh[300], full[4096];
    const char *hs[6];
    int n = 0;
    auth_headers('c', 0, h);
    hs[n++] = h[0];
    if (ip) {
        snprintf(iph, sizeof(iph), "Customer-Ip: %s", ip);
        hs[n++] = iph;
    }
    if (session) {
        snprintf(sh, sizeof(sh), "Customer-Session-Id: %s", session);
        hs[n++] = sh;
    }
    snprintf(rh, sizeof(rh), "x-request-id: %s", rid);
    hs[n++] = rh;
    hs[n] = NULL;
    snprintf(full, sizeof(full), "/hotels/c/v3%s", path);
    return e2e_call(e2e_sandbox_url(), method, full, hs, NULL);
}

/* Rapid's invalid_input naming one field, with the nested error's type. */
static void assert_rapid_invalid(e2e_resp *r, const char *type, const char *field,
                                 const char *where)
{
    const json_t *f = json_array_get(json_object_get(r->json, "fields"), 0);
    const json_t *e = json_array_get(json_object_get(r->json, "errors"), 0);
    assert_rapid_error(r, 400, "invalid_input");
    assert_string_equal(str(f, "name"), field);
    assert_string_equal(str(f, "type"), where);
    assert_string_equal(str(e, "type"), type);
    assert_string_equal(str(json_array_get(json_object_get(e, "fields"), 0), "name"), field);
    e2e_free(r);
}

/* What a call carried, as the sandbox recorded it: "ip|session|language". */
static char *recorded(const char *rid)
{
    return e2e_sql_text("SELECT coalesce(customer_ip, '-') || '|' || "
                        "coalesce(customer_session_id, '-') || '|' || coalesce(language, '-') "
                        "FROM sandbox.rapid_travellers WHERE request_id = $1 ORDER BY id "
                        "LIMIT 1", 1, (const char *const[]){rid});
}

/* Rapid's 34 languages are taken and any other refused; Customer-Ip is
 * optional on shopping but must be an address, and required on every
 * itinerary call; what a call carried is recorded by request id. */
static void c_checks_the_traveller_as_rapid_documents(void **state)
{
    char in[11], out[11], path[1024], rid[64];
    const char *pid = c_property("Paris", "FR", 0);
    e2e_resp *r;
    char *rec;
    (void)state;
#define AVAIL "/properties/availability?checkin=%s&checkout=%s&currency=EUR&occupancy=2" \
              "&property_id=%s&country_code=FR&language=%s&rate_plan_count=1" \
              "&sales_channel=website&sales_environment=hotel_only"
    snprintf(path, sizeof(path), AVAIL, date_in(20, in), date_in(22, out), pid, "fr-FR");
    snprintf(rid, sizeof(rid), "trav-wire-%ld-1", (long)getpid());
    r = must(c_as("GET", path, "2001:db8::5", "sess-w1", rid), 200);
    e2e_free(r);
    rec = recorded(rid);
    assert_string_equal(rec, "2001:db8::5|sess-w1|fr-FR");
    free(rec);
    /* No Customer-Ip on shopping: answered, recorded as absent. */
    snprintf(rid, sizeof(rid), "trav-wire-%ld-2", (long)getpid());
    r = must(c_as("GET", path, NULL, NULL, rid), 200);
    e2e_free(r);
    rec = recorded(rid);
    assert_string_equal(rec, "-|-|fr-FR");
    free(rec);
    snprintf(rid, sizeof(rid), "trav-wire-%ld-3", (long)getpid());
    assert_rapid_invalid(c_as("GET", path, "203.0.113.7, 10.0.0.1", NULL, rid),
                         "customer_ip.invalid", "Customer-Ip", "header");
    snprintf(path, sizeof(path), AVAIL, date_in(20, in), date_in(22, out), pid, "fr");
    assert_rapid_invalid(c_as("GET", path, "203.0.113.7", NULL, rid), "language.not_supported",
                         "language", "querystring");
    snprintf(path, sizeof(path), AVAIL, date_in(20, in), date_in(22, out), pid, "en-GB");
    assert_rapid_invalid(c_as("GET", path, "203.0.113.7", NULL, rid), "language.not_supported",
                         "language", "querystring");
#undef AVAIL
    /* Every itinerary call requires the traveller's IP. */
    assert_rapid_invalid(c_as("GET", "/itineraries/1234?email=a%40example.com", NULL, NULL, rid),
                         "customer_ip.required", "Customer-Ip", "header");
    assert_rapid_invalid(c_as("GET", "/itineraries?affiliate_reference_id=abc&email=a%40b.c",
                              NULL, NULL, rid), "customer_ip.required", "Customer-Ip", "header");
    assert_rapid_invalid(c_as("DELETE", "/itineraries/1234/rooms/1234-1?token=x", "localhost",
                              NULL, rid), "customer_ip.invalid", "Customer-Ip", "header");
}

/* ---- faults ---- */

/* Deletes the faults of api that still have uses left: what earlier tests
 * (which ran before this one, never beside it) left behind. */
static void clear_faults_of(const char *api)
{
    e2e_resp *r = must(e2e_call(e2e_sandbox_url(), "GET", "/sandbox/faults", NULL, NULL), 200);
    json_t *f;
    size_t i;
    json_array_foreach(json_object_get(r->json, "data"), i, f) {
        const json_t *rem = json_object_get(f, "remaining");
        char *scope, path[512];
        e2e_resp *d;
        if (strcmp(str(f, "api"), api) != 0 || (json_is_integer(rem)
                                                && json_integer_value(rem) == 0)) {
            continue;
        }
        scope = curl_escape(str(f, "request_id_prefix"), 0);
        snprintf(path, sizeof(path), "/sandbox/faults?request_id_prefix=%s", scope);
        curl_free(scope);
        d = must(e2e_call(e2e_sandbox_url(), "DELETE", path, NULL, NULL), 200);
        e2e_free(d);
    }
    e2e_free(r);
}

/* A fault made after requests that found none is taken by the very next
 * requests, whichever child serves them: a child that found no fault
 * stops asking PostgreSQL only until a fault is added (sandbox/changes.h).
 * Each call is a new connection, so the eight before the fault reach
 * both children in practice, and each of the three after it must fail. */
static void faults_reach_the_hotel_apis(void **state)
{
    char *prefix = unique("hfault"), body[512], rid[160];
    e2e_resp *r;
    int i;
    (void)state;
    clear_faults_of("hotel_c");
    for (i = 0; i < 8; i++) {
        snprintf(rid, sizeof(rid), "%s-before-%d", prefix, i);
        r = callx('c', "GET", "/properties/content?language=en-US&supply_source=expedia"
                  "&country_code=GB&limit=1", NULL, NULL, rid);
        assert_int_equal(r->status, 200);
        e2e_free(r);
    }
    snprintf(body, sizeof(body), "{\"api\": \"hotel_c\", \"request_id_prefix\": \"%s\", "
             "\"method\": \"GET\", \"path\": \"/v3/properties/content\", \"status\": 503, "
             "\"times\": 3}", prefix);
    r = e2e_call(e2e_sandbox_url(), "POST", "/sandbox/faults",
                 (const char *const[]){"Content-Type: application/json", NULL}, body);
    assert_int_equal(r->status, 201);
    e2e_free(r);
    snprintf(rid, sizeof(rid), "%s-1", prefix);
    for (i = 0; i < 3; i++) {
        r = callx('c', "GET", "/properties/content?language=en-US&supply_source=expedia"
                  "&country_code=GB&limit=1", NULL, NULL, rid);
        assert_rapid_error(r, 503, "sandbox_fault");
        e2e_free(r);
    }
    /* Spent: the next one is answered as usual. */
    r = callx('c', "GET", "/properties/content?language=en-US&supply_source=expedia"
              "&country_code=GB&limit=1", NULL, NULL, rid);
    assert_int_equal(r->status, 200);
    e2e_free(r);
    free(prefix);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_api_wants_its_own_credentials),
        cmocka_unit_test(hotels_page_and_map_across_suppliers),
        cmocka_unit_test(hotels_are_found_by_coordinates),
        cmocka_unit_test(a_rates_are_deterministic_and_plausible),
        cmocka_unit_test(a_books_reads_finds_and_cancels),
        cmocka_unit_test(a_prebooks_of_one_offer_are_two),
        cmocka_unit_test(a_client_reference_books_once),
        cmocka_unit_test(a_nonrefundable_cancels_at_full_fee),
        cmocka_unit_test(b_books_by_destination_and_cancels),
        cmocka_unit_test(b_rates_per_occupancy_group),
        cmocka_unit_test(price_control_moves_one_hotels_prices),
        cmocka_unit_test(c_books_previews_and_cancels),
        cmocka_unit_test(c_test_header_answers_set_responses),
        cmocka_unit_test(a_hotel_named_again_is_answered_once),
        cmocka_unit_test(failbook_is_refused_by_every_supplier),
        cmocka_unit_test(async_confirms_later),
        cmocka_unit_test(restricted_itineraries_cannot_be_cancelled),
        cmocka_unit_test(tightened_books_nonrefundable_in_each_api),
        cmocka_unit_test(cancel_fails_on_the_reference_trigger),
        cmocka_unit_test(unknown_times_out_but_books_once),
        cmocka_unit_test(bad_requests_name_the_field),
        cmocka_unit_test(c_checks_the_traveller_as_rapid_documents),
        cmocka_unit_test(faults_reach_the_hotel_apis),
    };
    return e2e_run("sandbox_hotels", tests, sizeof(tests) / sizeof(tests[0]));
}
