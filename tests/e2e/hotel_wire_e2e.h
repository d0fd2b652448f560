/* Books hotels at the sandbox suppliers straight over their own wire APIs
 * (LiteAPI-, Hotelbeds- and Rapid-style, with each API's credentials), so
 * adapter tests have real supplier bookings to cancel and preview without
 * going through mod_travel. Header-only; every function asserts success. */
#ifndef TRV_HOTEL_WIRE_E2E_H
#define TRV_HOTEL_WIRE_E2E_H

#include "e2e.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define HW_KEY_A "sandbox-key-hotel-a"
#define HW_KEY_B "sandbox-key-hotel-b"
#define HW_SECRET_B "sandbox-secret-hotel-b"
#define HW_KEY_C "sandbox-key-hotel-c"
#define HW_SECRET_C "sandbox-secret-hotel-c"

static inline void hw_hex(const EVP_MD *md, const char *msg, char *out)
{
    unsigned char d[EVP_MAX_MD_SIZE];
    unsigned int n = 0, i;
    EVP_Digest(msg, strlen(msg), d, &n, md, NULL);
    for (i = 0; i < n; i++) {
        sprintf(out + 2 * i, "%02x", d[i]);
    }
}

/* A call to api 'a', 'b' or 'c' at path under its base ('c', Expedia
 * Rapid: the host, paths /v3/...; with the Customer-Ip it requires). */
static inline e2e_resp *hw_call(char api, const char *method, const char *path,
                                const char *body)
{
    char h0[300], h1[300], msg[256], sig[200], full[4096];
    const char *hs[5] = {h0, "Content-Type: application/json", NULL, NULL, NULL};
    long ts = (long)time(NULL);
    if (api == 'a') {
        snprintf(h0, sizeof(h0), "X-API-Key: %s", HW_KEY_A);
    }
    else if (api == 'b') {
        snprintf(msg, sizeof(msg), "%s%s%ld", HW_KEY_B, HW_SECRET_B, ts);
        hw_hex(EVP_sha256(), msg, sig);
        snprintf(h0, sizeof(h0), "Api-key: %s", HW_KEY_B);
        snprintf(h1, sizeof(h1), "X-Signature: %s", sig);
        hs[2] = h1;
    }
    else {
        snprintf(msg, sizeof(msg), "%s%s%ld", HW_KEY_C, HW_SECRET_C, ts);
        hw_hex(EVP_sha512(), msg, sig);
        snprintf(h0, sizeof(h0), "Authorization: EAN APIKey=%s,Signature=%s,timestamp=%ld",
                 HW_KEY_C, sig, ts);
        hs[2] = "Customer-Ip: 203.0.113.7";
    }
    /* LiteAPI (a) books on its second host: prebook, book and bookings. */
    snprintf(full, sizeof(full), "%s%s",
             api == 'a' ? (strncmp(path, "/rates/", 7) == 0 || strncmp(path, "/bookings", 9) == 0
                           ? "/hotels/a/book/v3.0" : "/hotels/a/v3.0")
             : api == 'b' ? "/hotels/b" : "/hotels/c", path);
    return e2e_call(e2e_sandbox_url(), method, full, hs, body);
}

static inline e2e_resp *hw_must(e2e_resp *r, long status)
{
    if (r->status != status) {
        fail_msg("expected %ld, got %ld: %.600s", status, r->status, r->body);
    }
    return r;
}

static inline const char *hw_date(int days, char *buf)
{
    time_t t = time(NULL) + (time_t)days * 86400;
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, 11, "%Y-%m-%d", &tm);
    return buf;
}

static inline const char *hw_s(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

/* A reference unique to this process and call, starting with prefix. */
static inline char *hw_unique(const char *prefix)
{
    static int n;
    char *s = malloc(96);
    snprintf(s, 96, "%s-%ld-%d-%d", prefix, e2e_now_ms(), (int)getpid(), ++n);
    return s;
}

/* The supplier's id of booking (malloc'd) and its price in minor units. */
typedef struct hw_booking {
    char id[256];
    long long price_minor;
} hw_booking;

static inline long long hw_cents(const char *amount)
{
    long long w = 0, c = 0;
    assert_int_equal(sscanf(amount, "%lld.%lld", &w, &c), 2);
    return w * 100 + c;
}

/* A LiteAPI amount: a JSON number in the major unit, in cents. */
static inline long long hw_lite_cents(const json_t *v)
{
    char buf[64];
    assert_true(json_is_number(v));
    snprintf(buf, sizeof(buf), "%.2f", json_number_value(v));
    return hw_cents(buf);
}

/* SUPPLIER_A: the n-th hotel of a city, its first refundable (or
 * non-refundable) offer prebooked and booked for 2 adults, 2 nights,
 * `days` ahead, under ref, the guest called `last`. 0 when the hotel has
 * no such offer. */
static inline int hw_book_a(const char *city, const char *cc, int n, int days, int nrf,
                            const char *last, const char *ref, hw_booking *out)
{
    char body[2048], in[11], o[11];
    e2e_resp *r;
    const json_t *t;
    json_t *types;
    const char *hotel, *pid = NULL;
    size_t i;
    int ok = 0;
    snprintf(body, sizeof(body), "/data/hotels?countryCode=%s&cityName=%s&limit=%d&offset=0", cc,
             city, n + 1);
    r = hw_must(hw_call('a', "GET", body, NULL), 200);
    hotel = strdup(hw_s(json_array_get(json_object_get(r->json, "data"), (size_t)n), "id"));
    e2e_free(r);
    snprintf(body, sizeof(body), "{\"hotelIds\": [\"%s\"], \"checkin\": \"%s\", \"checkout\": "
             "\"%s\", \"occupancies\": [{\"adults\": 2}], \"currency\": \"EUR\", "
             "\"guestNationality\": \"GB\"}", hotel, hw_date(days, in), hw_date(days + 2, o));
    r = hw_must(hw_call('a', "POST", "/hotels/rates", body), 200);
    types = json_object_get(json_array_get(json_object_get(r->json, "data"), 0), "roomTypes");
    json_array_foreach(types, i, t) {
        if (strcmp(hw_s(t, "rateType"), nrf ? "NRFN" : "RFN") == 0) {
            e2e_resp *pb;
            snprintf(body, sizeof(body), "{\"offerId\": \"%s\"}", hw_s(t, "offerId"));
            pb = hw_must(hw_call('a', "POST", "/rates/prebook", body), 200);
            pid = strdup(hw_s(json_object_get(pb->json, "data"), "prebookId"));
            e2e_free(pb);
            break;
        }
    }
    e2e_free(r);
    free((void *)hotel);
    if (pid) {
        json_t *b = json_pack("{s:s,s:{s:s,s:s,s:s},s:[{s:i,s:s,s:s}],s:{s:s},s:s}",
                              "prebookId", pid, "holder", "firstName", "Ada", "lastName", last,
                              "email", "ada@example.com", "guests", "occupancyNumber", 1,
                              "firstName", "Ada", "lastName", last, "payment", "method",
                              "ACC_CREDIT_CARD", "clientReference", ref);
        char *text = json_dumps(b, 0);
        r = hw_must(hw_call('a', "POST", "/rates/book", text), 200);
        snprintf(out->id, sizeof(out->id), "%s", hw_s(json_object_get(r->json, "data"),
                                                     "bookingId"));
        out->price_minor = hw_lite_cents(json_object_get(json_object_get(r->json, "data"),
                                                         "price"));
        e2e_free(r);
        free(text);
        json_decref(b);
        free((void *)pid);
        ok = 1;
    }
    return ok;
}

/* SUPPLIER_B: the first NOR (refundable) rate in the city of the airport
 * code, booked for 2 adults `days` ahead under ref. */
static inline void hw_book_b(const char *code, int days, const char *surname, const char *ref,
                             hw_booking *out)
{
    char body[2048], in[11], o[11];
    e2e_resp *r;
    const json_t *h, *room, *rate, *found = NULL;
    size_t i, j, k;
    json_t *b;
    char *text;
    snprintf(body, sizeof(body), "{\"stay\": {\"checkIn\": \"%s\", \"checkOut\": \"%s\"}, "
             "\"occupancies\": [{\"rooms\": 1, \"adults\": 2, \"children\": 0}], "
             "\"destination\": {\"code\": \"%s\"}, \"currency\": \"EUR\"}",
             hw_date(days, in), hw_date(days + 2, o), code);
    r = hw_must(hw_call('b', "POST", "/hotel-api/1.0/hotels", body), 200);
    json_array_foreach(json_object_get(json_object_get(r->json, "hotels"), "hotels"), i, h) {
        json_array_foreach(json_object_get(h, "rooms"), j, room) {
            json_array_foreach(json_object_get(room, "rates"), k, rate) {
                if (!found && strcmp(hw_s(rate, "rateClass"), "NOR") == 0) {
                    found = rate;
                }
            }
        }
    }
    assert_non_null(found);
    b = json_pack("{s:{s:s,s:s},s:[{s:s,s:[{s:i,s:s,s:s,s:s}]}],s:s}",
                  "holder", "name", "Grace", "surname", surname, "rooms", "rateKey",
                  hw_s(found, "rateKey"), "paxes", "roomId", 1, "type", "AD", "name", "Grace",
                  "surname", surname, "clientReference", ref);
    text = json_dumps(b, 0);
    e2e_free(r);
    r = hw_must(hw_call('b', "POST", "/hotel-api/1.0/bookings", text), 200);
    snprintf(out->id, sizeof(out->id), "%s", hw_s(json_object_get(r->json, "booking"),
                                                 "reference"));
    out->price_minor = hw_cents(hw_s(json_object_get(r->json, "booking"), "totalNet"));
    e2e_free(r);
    free(text);
    json_decref(b);
}

/* SUPPLIER_C (Expedia Rapid): the n-th property of a city (its region's
 * property_ids), its first refundable (or non-refundable) rate checked and
 * booked for 2 adults, 3 nights, `days` ahead; ref (test triggers) travels
 * in affiliate_metadata, a short unique affiliate_reference_id beside.
 * out->id is what the adapter keeps: the retrieve link after
 * /v3/itineraries/ ("<itinerary_id>?token=..."); the price the sum of the
 * rooms' pricing. */
static inline void hw_book_c(const char *city, const char *cc, int n, int days, int nrf,
                             const char *family, const char *ref, hw_booking *out)
{
    char path[1024], in[11], o[11], body[1536], short_ref[40];
    e2e_resp *r, *pc;
    const json_t *room, *rate, *region;
    const char *k, *href = NULL, *retrieve;
    json_t *v;
    char prop[32] = "", want[64];
    size_t i, j;
    static int seq;
    snprintf(path, sizeof(path), "/v3/regions?include=property_ids&language=en-US"
             "&country_code=%s&type=city", cc);
    r = hw_must(hw_call('c', "GET", path, NULL), 200);
    snprintf(want, sizeof(want), "%s", city);
    for (i = 0; want[i]; i++) {
        if (strncmp(want + i, "%20", 3) == 0) {
            want[i] = ' ';
            memmove(want + i + 1, want + i + 3, strlen(want + i + 3) + 1);
        }
    }
    json_array_foreach(r->json, i, region) {
        if (strcmp(hw_s(region, "name"), want) == 0) {
            snprintf(prop, sizeof(prop), "%s",
                     json_string_value(json_array_get(json_object_get(region, "property_ids"),
                                                      (size_t)n)));
        }
    }
    e2e_free(r);
    assert_true(prop[0]);
    snprintf(path, sizeof(path), "/v3/properties/availability?checkin=%s&checkout=%s"
             "&currency=EUR&country_code=US&language=en-US&occupancy=2&property_id=%s"
             "&rate_plan_count=20&sales_channel=website&sales_environment=hotel_only",
             hw_date(days, in), hw_date(days + 3, o), prop);
    r = hw_must(hw_call('c', "GET", path, NULL), 200);
    json_array_foreach(json_object_get(json_array_get(r->json, 0), "rooms"), i, room) {
        json_array_foreach(json_object_get(room, "rates"), j, rate) {
            if (!href && json_is_true(json_object_get(rate, "refundable")) == !nrf) {
                json_object_foreach(json_object_get(rate, "bed_groups"), k, v) {
                    href = hw_s(json_object_get(json_object_get(v, "links"), "price_check"),
                                "href");
                }
            }
        }
    }
    assert_non_null(href);
    /* Links are paths from the host: /hotels/c/v3/... on the sandbox. */
    pc = hw_must(hw_call('c', "GET", href + 9, NULL), 200);
    e2e_free(r);
    snprintf(short_ref, sizeof(short_ref), "w%ld-%d-%d", e2e_now_ms() % 100000000000L,
             (int)getpid() % 100000, ++seq % 10000);
    snprintf(body, sizeof(body), "{\"affiliate_reference_id\": \"%s\", \"affiliate_metadata\": "
             "\"%s\", \"hold\": false, "
             "\"email\": \"grace@example.com\", \"phone\": {\"country_code\": \"1\", \"number\": "
             "\"2025550100\"}, \"rooms\": [{\"given_name\": \"Grace\", \"family_name\": \"%s\", "
             "\"smoking\": false}], \"payments\": [{\"type\": \"customer_card\", \"number\": "
             "\"4111111111111111\", \"security_code\": \"123\", \"expiration_month\": \"12\", "
             "\"expiration_year\": \"2030\", \"billing_contact\": {\"given_name\": \"Grace\", "
             "\"family_name\": \"%s\", \"address\": {\"country_code\": \"US\"}}}]}",
             short_ref, ref, family, family);
    r = hw_must(hw_call('c', "POST",
                        hw_s(json_object_get(json_object_get(pc->json, "links"), "book"), "href")
                            + 9, body), 201);
    retrieve = hw_s(json_object_get(json_object_get(r->json, "links"), "retrieve"), "href");
    assert_non_null(retrieve);
    assert_non_null(strstr(retrieve, "/v3/itineraries/"));
    snprintf(out->id, sizeof(out->id), "%s", strstr(retrieve, "/v3/itineraries/") + 16);
    snprintf(path, sizeof(path), "%s", retrieve + 9);
    e2e_free(r);
    e2e_free(pc);
    r = hw_must(hw_call('c', "GET", path, NULL), 200);
    out->price_minor = 0;
    json_array_foreach(json_object_get(r->json, "rooms"), i, room) {
        out->price_minor += hw_cents(hw_s(json_object_get(json_object_get(json_object_get(
            json_object_get(json_object_get(room, "rate"), "pricing"), "totals"), "inclusive"),
            "request_currency"), "value"));
    }
    e2e_free(r);
}

#endif
