/* Helpers shared by the watch e2e tests: a London hotel priced through
 * the API, watch bodies, calls with any method, waiting on a watch, the
 * sandbox's price control and inbox. Header-only, like hotel_e2e.h. */
#ifndef TRV_WATCH_E2E_H
#define TRV_WATCH_E2E_H

#include "hotel_e2e.h"

#define WE_WATCHES "/v1/watcher/travel/hotel/watches"
#define WE_TRIPS "/v1/watcher/travel/hotel/trip-watches"

/* A hotel as the watch prices it: the htl_ id, the supplier that prices
 * it (the first configured seller, as offers by hotel_ids picks) and its
 * id there, and its cheapest total in cents (EUR) for the stay. */
typedef struct we_hotel {
    char hotel_id[128];
    char supplier[32];
    char sid[64];
    long cents;
} we_hotel;

static inline e2e_resp *we_call(const char *key, const char *method, const char *path,
                                const char *body)
{
    char kh[512];
    const char *hdrs[3] = {kh, body ? "Content-Type: application/json" : NULL, NULL};
    snprintf(kh, sizeof(kh), "x-api-key: %s", key);
    return e2e_call(e2e_url(), method, path, hdrs, body);
}

/* The stay fields of every watch of these tests: nights `from`..`to` days
 * ahead, two adults, GB guests, EUR. */
static inline char *we_stay(int from, int to)
{
    char *b = malloc(512);
    snprintf(b, 512, "\"check_in\":\"%s\",\"check_out\":\"%s\",\"occupancy\":[{\"adults\":2}],"
             "\"guest_nationality\":\"GB\",\"currency\":\"EUR\"", fe_date(from), fe_date(to));
    return b;
}

/* The `nth` London hotel of a search for the stay, priced by offers. */
static inline void we_pick_hotel(const char *key, int from, int to, int nth, we_hotel *h)
{
    char *body = he_search_body("{\"city\":\"London\",\"country_code\":\"GB\"}",
                                ",\"limit\":50"), offers[1024], *stay = we_stay(from, to);
    e2e_resp *r, *o;
    const json_t *hotel, *offer;
    /* he_search_body's stay is 30..32 days ahead: the ids are the same for
     * any stay. */
    r = he_post(key, NULL, "/v1/hotel/search", body);
    fe_expect(r, 200, "searching London");
    hotel = json_array_get(fe_data(r), (size_t)nth);
    assert_non_null(hotel);
    snprintf(h->hotel_id, sizeof(h->hotel_id), "%s", fe_s(hotel, "hotel_id"));
    snprintf(offers, sizeof(offers), "{\"hotel_ids\":[\"%s\"],%s,\"guest_residence\":\"GB\","
             "\"max_offers_per_hotel\":1}", h->hotel_id, stay);
    o = he_post(key, NULL, "/v1/hotel/offers", offers);
    fe_expect(o, 200, "pricing the hotel");
    offer = json_array_get(fe_data(o), 0);
    assert_non_null(offer);
    snprintf(h->supplier, sizeof(h->supplier), "%s", fe_s(offer, "supplier"));
    snprintf(h->sid, sizeof(h->sid), "%s", fe_s(offer, "supplier_hotel_id"));
    h->cents = he_minor(json_object_get(offer, "total"));
    e2e_free(o);
    e2e_free(r);
    free(body);
    free(stay);
}

/* The traveller a watch is created for (hotel/customer.h's headers);
 * NULL fields are left out. */
typedef struct we_traveller {
    const char *ip, *session, *language;
} we_traveller;

/* POST path with the traveller's headers (t NULL: none). */
static inline e2e_resp *we_post_as(const char *key, const char *path, const char *body,
                                   const we_traveller *t)
{
    char hs[4][400];
    const char *hdrs[6];
    int n = 0;
    snprintf(hs[0], sizeof(hs[0]), "x-api-key: %s", key);
    hdrs[n++] = hs[0];
    hdrs[n++] = "Content-Type: application/json";
    if (t && t->ip) {
        snprintf(hs[1], sizeof(hs[1]), "x-travel-customer-ip: %s", t->ip);
        hdrs[n++] = hs[1];
    }
    if (t && t->session) {
        snprintf(hs[2], sizeof(hs[2]), "x-travel-customer-session: %s", t->session);
        hdrs[n++] = hs[2];
    }
    if (t && t->language) {
        snprintf(hs[3], sizeof(hs[3]), "Accept-Language: %s", t->language);
        hdrs[n++] = hs[3];
    }
    hdrs[n] = NULL;
    return e2e_call(e2e_url(), "POST", path, hdrs, body);
}

/* Creates a price watch of hotel h below `cents` with the traveller's
 * headers (t NULL: none); returns its data. */
static inline json_t *we_price_watch_as(const char *key, const we_hotel *h, int from, int to,
                                        long cents, const char *extra, const we_traveller *t)
{
    char body[2048], *stay = we_stay(from, to);
    e2e_resp *r;
    json_t *d;
    snprintf(body, sizeof(body), "{\"hotel_id\":\"%s\",%s,\"trigger\":{\"type\":"
             "\"below_total\",\"amount\":%ld.%02ld}%s}", h->hotel_id, stay, cents / 100,
             cents % 100, extra ? extra : "");
    r = we_post_as(key, WE_WATCHES, body, t);
    fe_expect(r, 201, "creating a price watch");
    d = json_incref(fe_data(r));
    e2e_free(r);
    free(stay);
    return d;
}

/* The same as the connection's own traveller (no traveller headers). */
static inline json_t *we_price_watch(const char *key, const we_hotel *h, int from, int to,
                                     long cents, const char *extra)
{
    return we_price_watch_as(key, h, from, to, cents, extra, NULL);
}

static inline json_t *we_get(const char *key, const char *base, const char *id)
{
    char path[256];
    e2e_resp *r;
    json_t *d;
    snprintf(path, sizeof(path), "%s/%s", base, id);
    r = we_call(key, "GET", path, NULL);
    fe_expect(r, 200, "reading a watch");
    d = json_incref(fe_data(r));
    e2e_free(r);
    return d;
}

/* Waits (bounded) until the watch has `status` and has been checked. */
static inline json_t *we_wait(const char *key, const char *base, const char *id,
                              const char *status, long timeout_ms)
{
    long t0 = e2e_now_ms();
    for (;;) {
        json_t *w = we_get(key, base, id);
        if (strcmp(fe_s(w, "status"), status) == 0 && fe_s(w, "last_checked_at")) {
            return w;
        }
        if (e2e_now_ms() - t0 > timeout_ms) {
            char *t = json_dumps(w, 0);
            fail_msg("watch %s did not become %s (checked) in time: %s", id, status, t);
        }
        json_decref(w);
        e2e_sleep_ms(200);
    }
}

/* The sandbox's price of one hotel at one supplier times factor. */
static inline void we_price_factor(const char *supplier, const char *sid, const char *factor)
{
    char body[256];
    const char *hdrs[] = {"Content-Type: application/json", NULL};
    e2e_resp *r;
    snprintf(body, sizeof(body), "{\"supplier\":\"%s\",\"supplier_hotel_id\":\"%s\","
             "\"factor\":%s}", supplier, sid, factor);
    r = e2e_call(e2e_sandbox_url(), "POST", "/sandbox/hotel-prices", hdrs, body);
    fe_expect(r, 200, "setting a sandbox price");
    e2e_free(r);
}

static inline void we_prices_restore(void)
{
    e2e_resp *r = e2e_call(e2e_sandbox_url(), "DELETE", "/sandbox/hotel-prices", NULL, NULL);
    fe_expect(r, 200, "restoring sandbox prices");
    e2e_free(r);
}

#endif
