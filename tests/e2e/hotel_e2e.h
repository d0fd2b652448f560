/* Helpers shared by the hotel e2e tests: search bodies, calls with a
 * request id of their own (so sandbox faults hit only them), walking
 * search pages. Header-only, like flight_e2e.h (whose date, fault and
 * expectation helpers it reuses). */
#ifndef TRV_HOTEL_E2E_H
#define TRV_HOTEL_E2E_H

#include "flight_e2e.h"

/* A search body: destination is the JSON of the destination object, extra
 * more fields (",\"limit\":5") or "". Stays 30..32 days ahead, 2 adults. */
static inline char *he_search_body(const char *destination, const char *extra)
{
    char *b = malloc(2048);
    snprintf(b, 2048, "{\"destination\":%s,\"check_in\":\"%s\",\"check_out\":\"%s\","
             "\"occupancy\":[{\"adults\":2}],\"guest_nationality\":\"GB\","
             "\"guest_residence\":\"GB\",\"currency\":\"EUR\"%s}", destination, fe_date(30),
             fe_date(32), extra);
    return b;
}

/* POST to the instance at base with a key, and a request id when rid is
 * not NULL. */
static inline e2e_resp *he_post_at(const char *base, const char *key, const char *rid,
                                   const char *path, const char *body)
{
    char kh[512], rh[300];
    const char *hdrs[4] = {kh, "Content-Type: application/json", NULL, NULL};
    snprintf(kh, sizeof(kh), "x-api-key: %s", key);
    if (rid) {
        snprintf(rh, sizeof(rh), "x-request-id: %s", rid);
        hdrs[2] = rh;
    }
    return e2e_call(base, "POST", path, hdrs, body);
}

/* The same to the stack's API instance. */
static inline e2e_resp *he_post(const char *key, const char *rid, const char *path,
                                const char *body)
{
    return he_post_at(e2e_url(), key, rid, path, body);
}

/* One of the id-mapping functions (hotel_map_known, hotel_map_page: name
 * (p jsonb) RETURNS TABLE (i integer, id text)) replaced by one that
 * raises, so a test sees whether a search reaches it. Returns the
 * definition it had (malloc'd), for he_id_function_restore. */
static inline char *he_id_function_off(const char *name)
{
    char sql[512];
    char *def;
    snprintf(sql, sizeof(sql), "SELECT pg_get_functiondef('%s(jsonb)'::regprocedure)", name);
    def = e2e_sql_text(sql, 0, NULL);
    assert_non_null(def);
    snprintf(sql, sizeof(sql), "CREATE OR REPLACE FUNCTION %s(p jsonb) "
             "RETURNS TABLE (i integer, id text) LANGUAGE plpgsql AS "
             "$$ BEGIN RAISE EXCEPTION '%s off (an e2e test)'; END $$", name, name);
    e2e_sql_exec(sql, 0, NULL);
    return def;
}

/* The definition he_id_function_off returned put back, once (*def NULL
 * after; NULL: nothing to do). */
static inline void he_id_function_restore(char **def)
{
    if (*def) {
        e2e_sql_exec(*def, 0, NULL);
        free(*def);
        *def = NULL;
    }
}

/* The body with "cursor" set (malloc'd): body ends with '}'. */
static inline char *he_with_cursor(const char *body, const char *cursor)
{
    size_t n = strlen(body);
    char *b = malloc(n + strlen(cursor) + 32);
    memcpy(b, body, n - 1);
    sprintf(b + n - 1, ",\"cursor\":\"%s\"}", cursor);
    return b;
}

static inline const char *he_next_cursor(const e2e_resp *r)
{
    return fe_s(json_object_get(json_object_get(r->json, "meta"), "pagination"), "next_cursor");
}

/* Every result of a search, page after page (a new array); *pages counts
 * the pages. Each page is at most limit long. */
static inline json_t *he_search_all(const char *key, const char *body, int limit, int *pages)
{
    json_t *all = json_array();
    char *cursor = NULL;
    *pages = 0;
    for (;;) {
        char *b = cursor ? he_with_cursor(body, cursor) : strdup(body);
        e2e_resp *r = he_post(key, NULL, "/v1/hotel/search", b);
        const char *next;
        fe_expect(r, 200, "a search page");
        assert_true((int)json_array_size(fe_data(r)) <= limit);
        json_array_extend(all, fe_data(r));
        (*pages)++;
        assert_true(*pages < 100);
        next = he_next_cursor(r);
        free(cursor);
        cursor = next ? strdup(next) : NULL;
        e2e_free(r);
        free(b);
        if (!cursor) {
            return all;
        }
    }
}

/* Whether the result lists supplier among those that sell it. */
static inline int he_sold_by(const json_t *result, const char *supplier)
{
    size_t i;
    const json_t *s;
    json_array_foreach(json_object_get(result, "suppliers"), i, s) {
        if (strcmp(json_string_value(s), supplier) == 0) {
            return 1;
        }
    }
    return 0;
}

static inline long he_minor(const json_t *money)
{
    /* EUR amounts: cents, exact as printed. */
    double a = json_number_value(json_object_get(money, "amount"));
    return (long)(a * 100 + (a >= 0 ? 0.5 : -0.5));
}

/* ---- booking: offers, prebook, book (test_hotel_prebook.c, _book.c) ---- */

#define HE_STAY "\"check_in\":\"%s\",\"check_out\":\"%s\",\"occupancy\":[{\"adults\":2}," \
                "{\"adults\":1,\"children\":[5]}],\"guest_nationality\":\"GB\"," \
                "\"guest_residence\":\"GB\",\"currency\":\"EUR\""

/* The cheapest offer (a new reference) of the nth London hotel that this
 * supplier prices, two rooms (2 adults; 1 adult and a child of 5), 40..42
 * days ahead. */
static inline json_t *he_offer(const char *key, const char *supplier, int nth)
{
    char body[2048], stay[512];
    e2e_resp *r;
    const json_t *h;
    json_t *offer;
    snprintf(stay, sizeof(stay), HE_STAY, fe_date(40), fe_date(42));
    snprintf(body, sizeof(body), "{\"destination\":{\"city\":\"London\",\"country_code\":\"GB\"},"
             "%s,\"limit\":20,\"supplier\":\"%s\"}", stay, supplier);
    r = he_post(key, NULL, "/v1/hotel/search", body);
    fe_expect(r, 200, "a hotel search");
    h = json_array_get(fe_data(r), (size_t)nth);
    assert_non_null(h);
    snprintf(body, sizeof(body), "{\"supplier\":\"%s\",\"supplier_hotel_ids\":[\"%s\"],%s,"
             "\"max_offers_per_hotel\":1}", supplier, fe_s(h, "supplier_hotel_id"), stay);
    e2e_free(r);
    r = he_post(key, NULL, "/v1/hotel/offers", body);
    fe_expect(r, 200, "hotel offers");
    assert_true(json_array_size(fe_data(r)) >= 1);
    offer = json_deep_copy(json_array_get(fe_data(r), 0));
    e2e_free(r);
    return offer;
}

/* A prebook body (malloc'd) for the two-room offer: room 0 has its lead
 * (last name lead_last) and a second adult, room 1 its lead and a child. */
static inline char *he_prebook_body(const char *offer_ref, const char *reference_id,
                                    const char *lead_last)
{
    char *b = malloc(8192);
    snprintf(b, 8192,
             "{\"offer_reference\":\"%s\",\"reference_id\":\"%s\","
             "\"contact\":{\"first_name\":\"Ada\",\"last_name\":\"Lovelace\","
             "\"email\":\"ada@example.com\",\"phone\":\"+442079460000\"},"
             "\"rooms\":[{\"guests\":[{\"first_name\":\"Ada\",\"last_name\":\"%s\","
             "\"type\":\"ADULT\",\"is_lead\":true},{\"first_name\":\"Bo\","
             "\"last_name\":\"Lovelace\",\"type\":\"ADULT\",\"is_lead\":false}]},"
             "{\"guests\":[{\"first_name\":\"Cy\",\"last_name\":\"Lovelace\",\"type\":\"ADULT\","
             "\"is_lead\":true},{\"first_name\":\"Di\",\"last_name\":\"Lovelace\","
             "\"type\":\"CHILD\",\"is_lead\":false}]}]}",
             offer_ref, reference_id, lead_last);
    return b;
}

/* POST /v1/hotel/prebook with an idempotency key (NULL: none). */
static inline e2e_resp *he_prebook(const char *key, const char *idem, const char *body)
{
    char kh[512], ih[400];
    const char *hdrs[4] = {kh, "Content-Type: application/json", NULL, NULL};
    snprintf(kh, sizeof(kh), "x-api-key: %s", key);
    if (idem) {
        snprintf(ih, sizeof(ih), "x-idempotency-key: %s", idem);
        hdrs[2] = ih;
    }
    return e2e_call(e2e_url(), "POST", "/v1/hotel/prebook", hdrs, body);
}

/* Prebooks the offer (rooms_json: the prebook's rooms) and books it with
 * the test card: the prebook's and the CONFIRMED booking's totals are the
 * offer's. Returns the booking (a new reference). */
static inline json_t *he_book_offer(const char *key, const json_t *offer,
                                    const char *reference_id, const char *rooms_json)
{
    char body[8192], idem[64], path[256];
    e2e_resp *r;
    json_t *booking;
    long total = he_minor(json_object_get(offer, "total"));
    snprintf(body, sizeof(body), "{\"offer_reference\":\"%s\",\"reference_id\":\"%s\","
             "\"contact\":{\"first_name\":\"Ada\",\"last_name\":\"Lovelace\","
             "\"email\":\"ada@example.com\",\"phone\":\"+442079460000\"},\"rooms\":%s}",
             fe_s(offer, "offer_reference"), reference_id, rooms_json);
    snprintf(idem, sizeof(idem), "hbo-%ld-%d", e2e_now_ms(), rand());
    r = he_prebook(key, idem, body);
    fe_expect(r, 201, "a hotel prebook");
    assert_int_equal(he_minor(json_object_get(fe_data(r), "total")), total);
    snprintf(path, sizeof(path), "/v1/hotel/bookings/%s/book", fe_s(fe_data(r), "id"));
    e2e_free(r);
    r = e2e_post(key, path, "{\"payment_instrument_id\":\"pi_test_visa\"}");
    fe_expect(r, 200, "book");
    booking = json_deep_copy(fe_data(r));
    e2e_free(r);
    assert_string_equal(fe_s(booking, "status"), "CONFIRMED");
    assert_int_equal(he_minor(json_object_get(booking, "total")), total);
    return booking;
}

/* A READY_FOR_COMPLETE booking (a new reference) of this supplier. */
static inline json_t *he_ready(const char *key, const char *supplier, const char *reference_id,
                               const char *lead_last)
{
    /* A hotel of its own each time, so that tests running side by side
     * rarely price the same offer. */
    static int n;
    json_t *offer = he_offer(key, supplier, (int)((getpid() + n++) % 15)), *b;
    char *body = he_prebook_body(fe_s(offer, "offer_reference"), reference_id, lead_last);
    char idem[64];
    e2e_resp *r;
    snprintf(idem, sizeof(idem), "he-%ld-%d", e2e_now_ms(), rand());
    r = he_prebook(key, idem, body);
    fe_expect(r, 201, "a hotel prebook");
    b = json_deep_copy(fe_data(r));
    e2e_free(r);
    free(body);
    json_decref(offer);
    return b;
}

#endif
