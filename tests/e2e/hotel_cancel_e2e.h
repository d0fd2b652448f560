/* Helpers of the hotel cancellation e2e tests (test_hotel_cancel*.c):
 * confirmed bookings made through mod_travel (search, offers, prebook,
 * book: hotel_e2e.h), cancel and estimate calls with a request id of their
 * own (so sandbox faults hit only them), bounded waits on a booking's
 * state. Header-only. */
#ifndef TRV_HOTEL_CANCEL_E2E_H
#define TRV_HOTEL_CANCEL_E2E_H

#include "hotel_e2e.h"

/* GET /v1/hotel/bookings/{id}: the booking (a new reference). */
static inline json_t *hc_get(const char *key, const char *id)
{
    char path[256];
    e2e_resp *r;
    json_t *d;
    snprintf(path, sizeof(path), "/v1/hotel/bookings/%s", id);
    r = e2e_get(key, path);
    fe_expect(r, 200, "reading a hotel booking");
    d = json_incref(fe_data(r));
    e2e_free(r);
    return d;
}

/* The first day ahead of the stays a test program books (its own range:
 * test_hotel_cancel 150.., test_hotel_cancel_estimate 300..; the other
 * hotel tests stay below 150). */
static int hc_days_base = 150;

/* A two-room offer (HE_STAY, London) of this supplier whose policy is
 * refundable or not, from the first hotels that have one (a new
 * reference). Each call asks another stay, a day later than the last:
 * SUPPLIER_A sells an offer once, so no two bookings of the test run may
 * take the same one. */
static inline json_t *hc_offer(const char *key, const char *supplier, int refundable)
{
    static int seq;
    char body[2048], stay[512], in[16];
    e2e_resp *r, *o;
    const json_t *h, *offer;
    json_t *found = NULL;
    size_t i, k;
    int days = hc_days_base + seq++;
    snprintf(in, sizeof(in), "%s", fe_date(days));
    snprintf(stay, sizeof(stay), HE_STAY, in, fe_date(days + 2));
    snprintf(body, sizeof(body), "{\"destination\":{\"city\":\"London\",\"country_code\":\"GB\"},"
             "%s,\"limit\":8,\"supplier\":\"%s\"}", stay, supplier);
    r = he_post(key, NULL, "/v1/hotel/search", body);
    fe_expect(r, 200, "a hotel search");
    json_array_foreach(fe_data(r), i, h) {
        snprintf(body, sizeof(body), "{\"supplier\":\"%s\",\"supplier_hotel_ids\":[\"%s\"],"
                 "%s,\"max_offers_per_hotel\":25}", supplier, fe_s(h, "supplier_hotel_id"), stay);
        o = he_post(key, NULL, "/v1/hotel/offers", body);
        fe_expect(o, 200, "hotel offers");
        json_array_foreach(fe_data(o), k, offer) {
            if (!found && json_is_true(json_object_get(json_object_get(offer,
                                       "cancellation_policy"), "refundable")) == refundable) {
                found = json_deep_copy(offer);
            }
        }
        e2e_free(o);
        if (found) {
            break;
        }
    }
    e2e_free(r);
    if (!found) {
        fail_msg("no %srefundable %s offer in London", refundable ? "" : "non-", supplier);
    }
    return found;
}

/* A CONFIRMED booking (a new reference) of a refundable or non-refundable
 * offer of this supplier, paid with a sandbox card. */
static inline json_t *hc_confirmed_plan(const char *key, const char *supplier, int refundable,
                                        const char *reference_id, const char *lead_last)
{
    json_t *offer = hc_offer(key, supplier, refundable), *d;
    char *body = he_prebook_body(fe_s(offer, "offer_reference"), reference_id, lead_last);
    char idem[64], path[256];
    e2e_resp *r;
    snprintf(idem, sizeof(idem), "hc-%ld-%d", e2e_now_ms(), rand());
    r = he_prebook(key, idem, body);
    fe_expect(r, 201, "a hotel prebook");
    snprintf(path, sizeof(path), "/v1/hotel/bookings/%s/book", fe_s(fe_data(r), "id"));
    e2e_free(r);
    /* A saved instrument for every supplier: SUPPLIER_C, which charges
     * the traveller's card itself, gets it forwarded by the provider. */
    r = he_post(key, NULL, path, "{\"payment_instrument_id\":\"pi_test_visa\"}");
    fe_expect(r, 200, "booking a hotel");
    d = json_incref(fe_data(r));
    assert_string_equal(fe_s(d, "status"), "CONFIRMED");
    e2e_free(r);
    free(body);
    json_decref(offer);
    return d;
}

/* A CONFIRMED refundable booking of this supplier (a new reference). */
static inline json_t *hc_confirmed(const char *key, const char *supplier,
                                   const char *reference_id, const char *lead_last)
{
    return hc_confirmed_plan(key, supplier, 1, reference_id, lead_last);
}

/* What the booking's own room policies charge at this instant: per room
 * the largest penalty in force (instants far from now in these tests). */
static inline long hc_policy_fee(const json_t *b)
{
    const json_t *room, *pen;
    size_t i, k;
    long fee = 0;
    char now[32];
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(now, sizeof(now), "%Y-%m-%dT%H:%M:%S", &tm);
    json_array_foreach(json_object_get(b, "rooms"), i, room) {
        long in_force = 0;
        json_array_foreach(json_object_get(json_object_get(room, "cancellation_policy"),
                                           "penalties"), k, pen) {
            long m = he_minor(json_object_get(pen, "amount"));
            if (strncmp(fe_s(pen, "from"), now, 19) <= 0 && m > in_force) {
                in_force = m;
            }
        }
        fee += in_force;
    }
    return fee;
}

/* POST .../cancel (no body) with request id rid (NULL: none). */
static inline e2e_resp *hc_cancel(const char *key, const char *rid, const char *id)
{
    char path[256];
    snprintf(path, sizeof(path), "/v1/hotel/bookings/%s/cancel", id);
    return he_post(key, rid, path, NULL);
}

/* GET .../cancellation-estimate with request id rid (NULL: none). */
static inline e2e_resp *hc_estimate(const char *key, const char *rid, const char *id)
{
    char kh[512], rh[300], path[256];
    const char *hdrs[3] = {kh, NULL, NULL};
    snprintf(kh, sizeof(kh), "x-api-key: %s", key);
    if (rid) {
        snprintf(rh, sizeof(rh), "x-request-id: %s", rid);
        hdrs[1] = rh;
    }
    snprintf(path, sizeof(path), "/v1/hotel/bookings/%s/cancellation-estimate", id);
    return e2e_call(e2e_url(), "GET", path, hdrs, NULL);
}

/* The booking's last cancellation attempt (borrowed from b), or NULL. */
static inline const json_t *hc_last_attempt(const json_t *b)
{
    const json_t *a = json_object_get(b, "cancellations");
    return json_array_size(a) ? json_array_get(a, json_array_size(a) - 1) : NULL;
}

/* Waits (bounded, 30 s) until the booking has status and its last attempt
 * attempt_status; returns the booking (a new reference). */
static inline json_t *hc_wait(const char *key, const char *id, const char *status,
                              const char *attempt_status)
{
    long start = e2e_now_ms();
    for (;;) {
        json_t *b = hc_get(key, id);
        const json_t *a = hc_last_attempt(b);
        if (strcmp(fe_s(b, "status"), status) == 0 && a
            && strcmp(fe_s(a, "status"), attempt_status) == 0) {
            return b;
        }
        if (e2e_now_ms() - start > 30000) {
            fail_msg("booking %s never reached %s with a %s attempt (now %s)", id, status,
                     attempt_status, fe_s(b, "status"));
        }
        json_decref(b);
        e2e_sleep_ms(100);
    }
}

/* Waits (bounded, 20 s) until the SQL count for the booking is at least n. */
static inline void hc_wait_count(const char *sql, const char *id, long n, const char *what)
{
    const char *p[1] = {id};
    long start = e2e_now_ms();
    while (e2e_sql_long(sql, 1, p) < n) {
        if (e2e_now_ms() - start > 20000) {
            fail_msg("%s for %s never happened", what, id);
        }
        e2e_sleep_ms(100);
    }
}

/* The booking's cents, EUR (all these stays are priced in EUR). */
static inline long hc_cents(const json_t *money)
{
    assert_string_equal(fe_s(money, "currency"), "EUR");
    return he_minor(money);
}

#endif
