/* Hotel search and features over real HTTP, against the three sandbox hotel
 * suppliers: GET /v1/hotel/features lists the configured suppliers with
 * their features and limits; POST /v1/hotel/search by city, by point and by
 * saved place pages through every hotel once, cheapest first, each hotel
 * sold by several suppliers as one stable htl_ id (the same id when only
 * one of its suppliers is asked); cursors are bound to the search and the
 * organization (edited, foreign or reused with other fields: 422); bad
 * input is a 422 naming the fields and stores nothing; a supplier failing
 * is a 502, one not answering in time a 504, with the caller's request id;
 * a supplier's content of an area is read once per child, its rates at
 * every search. */
#include "hotel_e2e.h"

static char *key, *other_key, *org;

#define PARIS "{\"city\":\"Paris\",\"country_code\":\"FR\"}"

static int setup(void **state)
{
    (void)state;
    key = e2e_new_org_key("hotel-search", &org);
    other_key = e2e_new_org_key("hotel-search-other", NULL);
    return 0;
}

static const json_t *find_id(const json_t *list, const char *hotel_id)
{
    size_t i;
    const json_t *h;
    json_array_foreach(list, i, h) {
        if (strcmp(fe_s(h, "hotel_id"), hotel_id) == 0) {
            return h;
        }
    }
    return NULL;
}

static void features_list_the_configured_suppliers(void **state)
{
    static const char *const names[] = {"SUPPLIER_A", "SUPPLIER_B", "SUPPLIER_C"};
    static const char *const features_ab[] = {"search", "offers", "prebook", "book", "cancel",
                                              "cancellation_estimate", "payment_sdk"};
    static const char *const features_c[] = {"search", "offers", "prebook", "book", "cancel",
                                             "cancellation_estimate",
                                             "supplier_collects_payment",
                                             "cancellation_preview"};
    e2e_resp *r = e2e_get(key, "/v1/hotel/features");
    size_t i, k;
    (void)state;
    fe_expect(r, 200, "features");
    assert_int_equal(json_array_size(fe_data(r)), 3);
    for (i = 0; i < 3; i++) {
        const json_t *e = json_array_get(fe_data(r), i), *lim = json_object_get(e, "limits");
        const json_t *f;
        assert_string_equal(fe_s(e, "supplier"), names[i]);
        /* Only what works today, and how each is paid: the service
         * collects for A and B (payment SDK too), C charges the card and
         * previews a cancellation. */
        assert_int_equal(json_array_size(json_object_get(e, "features")), i < 2 ? 7 : 8);
        json_array_foreach(json_object_get(e, "features"), k, f) {
            assert_string_equal(json_string_value(f), i < 2 ? features_ab[k] : features_c[k]);
        }
        assert_int_equal(json_integer_value(json_object_get(lim, "max_hotels_per_offers_request")),
                         10);
        assert_int_equal(json_integer_value(json_object_get(lim, "max_offers_per_request")), 250);
        assert_int_equal(json_integer_value(json_object_get(lim, "max_nights")), 99);
    }
    e2e_free(r);
}

/* Paris has 64 sandbox hotels: pages of 20 give each once, cheapest
 * first, and asking again gives the same ids. */
static void a_city_pages_every_hotel_once(void **state)
{
    char *body = he_search_body(PARIS, ",\"limit\":20");
    json_t *all, *again;
    const json_t *h;
    int pages, shared = 0;
    size_t i, k;
    double last = 0;
    (void)state;
    all = he_search_all(key, body, 20, &pages);
    assert_true(pages >= 3);
    assert_true(json_array_size(all) > 40);
    json_array_foreach(all, i, h) {
        double amount = json_number_value(json_object_get(
            json_object_get(json_object_get(h, "cheapest_price"), "total"), "amount"));
        assert_int_equal(strncmp(fe_s(h, "hotel_id"), "htl_", 4), 0);
        assert_string_equal(fe_s(h, "country"), "FR");
        assert_string_equal(fe_s(json_object_get(json_object_get(h, "cheapest_price"), "total"),
                                 "currency"), "EUR");
        assert_true(amount > 0 && amount >= last);
        last = amount;
        assert_true(he_sold_by(h, fe_s(h, "supplier")));
        shared += json_array_size(json_object_get(h, "suppliers")) > 1;
        for (k = 0; k < i; k++) {
            assert_string_not_equal(fe_s(json_array_get(all, k), "hotel_id"), fe_s(h, "hotel_id"));
        }
    }
    assert_true(shared > 10);
    again = he_search_all(key, body, 20, &pages);
    assert_int_equal(json_array_size(again), json_array_size(all));
    json_array_foreach(again, i, h) {
        assert_string_equal(fe_s(h, "hotel_id"), fe_s(json_array_get(all, i), "hotel_id"));
    }
    json_decref(all);
    json_decref(again);
    free(body);
}

/* A hotel keeps its id whichever of its suppliers is asked: a search of
 * SUPPLIER_C alone (whose content carries no shared code) finds, for each
 * of its hotels, the id the all-supplier search gave the same hotel. */
static void one_id_whichever_supplier_is_asked(void **state)
{
    static const char *const sups[] = {"SUPPLIER_A", "SUPPLIER_B", "SUPPLIER_C"};
    char *body = he_search_body(PARIS, ",\"limit\":50");
    json_t *all = he_search_all(key, body, 50, &(int){0});
    size_t s;
    (void)state;
    for (s = 0; s < 3; s++) {
        char extra[64], *b;
        json_t *only;
        const json_t *h;
        size_t i, sold = 0;
        int pages;
        snprintf(extra, sizeof(extra), ",\"limit\":50,\"supplier\":\"%s\"", sups[s]);
        b = he_search_body(PARIS, extra);
        only = he_search_all(key, b, 50, &pages);
        assert_true(json_array_size(only) > 10);
        json_array_foreach(only, i, h) {
            const json_t *same = find_id(all, fe_s(h, "hotel_id"));
            if (!same) {
                fail_msg("%s's %s (%s) has an id the all-supplier search did not give",
                         sups[s], fe_s(h, "supplier_hotel_id"), fe_s(h, "name"));
            }
            assert_string_equal(fe_s(h, "supplier"), sups[s]);
            assert_string_equal(fe_s(h, "name"), fe_s(same, "name"));
            assert_true(he_sold_by(same, sups[s]));
        }
        json_array_foreach(all, i, h) {
            sold += (size_t)he_sold_by(h, sups[s]);
        }
        assert_int_equal(sold, json_array_size(only));
        json_decref(only);
        free(b);
    }
    json_decref(all);
    free(body);
}

/* A saved place searches like its city; a point finds hotels around it. */
static void by_place_and_by_point(void **state)
{
    e2e_resp *p = e2e_get(key, "/v1/hotel/places?q=Tokyo&limit=1"), *r;
    const json_t *place;
    char dest[256], *b1, *b2;
    json_t *by_place, *by_city;
    size_t i;
    (void)state;
    fe_expect(p, 200, "place search");
    place = json_array_get(fe_data(p), 0);
    assert_string_equal(fe_s(place, "type"), "city");
    snprintf(dest, sizeof(dest), "{\"place_id\":\"%s\"}", fe_s(place, "id"));
    b1 = he_search_body(dest, ",\"limit\":50");
    b2 = he_search_body("{\"city\":\"Tokyo\",\"country_code\":\"JP\"}", ",\"limit\":50");
    by_place = he_search_all(key, b1, 50, &(int){0});
    by_city = he_search_all(key, b2, 50, &(int){0});
    assert_true(json_array_size(by_place) > 30);
    assert_int_equal(json_array_size(by_place), json_array_size(by_city));
    for (i = 0; i < json_array_size(by_city); i++) {
        assert_string_equal(fe_s(json_array_get(by_place, i), "hotel_id"),
                            fe_s(json_array_get(by_city, i), "hotel_id"));
    }
    /* Another organization does not have this place. */
    r = he_post(other_key, NULL, "/v1/hotel/search", b1);
    e2e_assert_error(r, 422, "validation_failed");
    assert_non_null(strstr(r->body, "destination.place_id"));
    e2e_free(r);
    free(b1);
    /* 15 km around the city's centre: some of the city's hotels. */
    snprintf(dest, sizeof(dest), "{\"latitude\":%.6f,\"longitude\":%.6f,\"radius_m\":15000}",
             json_number_value(json_object_get(place, "latitude")),
             json_number_value(json_object_get(place, "longitude")));
    b1 = he_search_body(dest, ",\"limit\":50");
    json_decref(by_place);
    by_place = he_search_all(key, b1, 50, &(int){0});
    assert_true(json_array_size(by_place) > 0);
    for (i = 0; i < json_array_size(by_place); i++) {
        assert_non_null(find_id(by_city, fe_s(json_array_get(by_place, i), "hotel_id")));
    }
    json_decref(by_place);
    json_decref(by_city);
    free(b1);
    free(b2);
    e2e_free(p);
}

static void expect_cursor_refused(const char *k, const char *body, const char *cursor)
{
    char *b = he_with_cursor(body, cursor);
    e2e_resp *r = he_post(k, NULL, "/v1/hotel/search", b);
    e2e_assert_error(r, 422, "validation_failed");
    assert_string_equal(fe_s(json_array_get(json_object_get(json_object_get(r->json, "error"),
                                                            "details"), 0), "field"),
                        "cursor");
    e2e_free(r);
    free(b);
}

static void cursors_are_bound_to_search_and_organization(void **state)
{
    char *body = he_search_body(PARIS, ",\"limit\":5");
    char *other = he_search_body(PARIS, ",\"limit\":5,\"supplier\":\"SUPPLIER_A\"");
    e2e_resp *r = he_post(key, NULL, "/v1/hotel/search", body), *r2;
    char *cursor, *b;
    size_t n;
    (void)state;
    fe_expect(r, 200, "first page");
    cursor = strdup(he_next_cursor(r));
    /* The cursor works, with another limit too. */
    b = he_with_cursor(he_search_body(PARIS, ",\"limit\":7"), cursor);
    r2 = he_post(key, NULL, "/v1/hotel/search", b);
    fe_expect(r2, 200, "second page");
    assert_int_equal(json_array_size(fe_data(r2)), 7);
    assert_null(find_id(fe_data(r), fe_s(json_array_get(fe_data(r2), 0), "hotel_id")));
    e2e_free(r2);
    free(b);
    expect_cursor_refused(other_key, body, cursor);           /* another organization */
    expect_cursor_refused(key, other, cursor);                /* other search fields */
    n = strlen(cursor);
    cursor[n / 2] = cursor[n / 2] == 'A' ? 'B' : 'A';         /* edited */
    expect_cursor_refused(key, body, cursor);
    expect_cursor_refused(key, body, "not-a-cursor");
    e2e_free(r);
    free(cursor);
    free(body);
    free(other);
}

static long hotels_known(void)
{
    return e2e_sql_long("SELECT count(*) FROM hotel_supplier_ids", 0, NULL);
}

static void expect_invalid(const char *body, const char *const *fields)
{
    e2e_resp *r = he_post(key, NULL, "/v1/hotel/search", body);
    size_t i;
    e2e_assert_error(r, 422, "validation_failed");
    for (i = 0; fields[i]; i++) {
        char quoted[128];
        snprintf(quoted, sizeof(quoted), "\"field\":\"%s\"", fields[i]);
        if (!strstr(r->body, quoted)) {
            fail_msg("expected a detail for %s: %s", fields[i], r->body);
        }
    }
    e2e_free(r);
}

static void bad_searches_are_422_and_store_nothing(void **state)
{
    long before = hotels_known();
    char body[1024];
    (void)state;
    expect_invalid("{}", (const char *const[]){"destination", "check_in", "check_out",
                                               "occupancy", "guest_nationality",
                                               "guest_residence", "currency", NULL});
    snprintf(body, sizeof(body), "{\"destination\":{\"city\":\"Paris\",\"country_code\":\"FR\","
             "\"latitude\":1,\"longitude\":2,\"radius_m\":500},\"check_in\":\"%s\","
             "\"check_out\":\"%s\",\"occupancy\":[{\"adults\":0,\"children\":[18]}],"
             "\"guest_nationality\":\"gb\",\"guest_residence\":\"GB\",\"currency\":\"XXY\","
             "\"limit\":0,\"supplier\":\"SUPPLIER_Z\",\"colour\":1}", fe_date(30), fe_date(130));
    expect_invalid(body, (const char *const[]){"destination", "check_out", "occupancy[0].adults",
                                               "occupancy[0].children[0]", "guest_nationality",
                                               "currency", "limit", "supplier", "colour", NULL});
    snprintf(body, sizeof(body), "{\"destination\":{\"latitude\":91,\"longitude\":2,"
             "\"radius_m\":60000},\"check_in\":\"%s\",\"check_out\":\"%s\","
             "\"occupancy\":[{\"adults\":2}],\"guest_nationality\":\"GB\","
             "\"guest_residence\":\"GB\",\"currency\":\"EUR\"}", fe_date(-2), fe_date(3));
    expect_invalid(body, (const char *const[]){"destination.latitude", "destination.radius_m",
                                               "check_in", NULL});
    assert_int_equal(hotels_known(), before);
}

/* A city no supplier sells: no hotels, no next page, not an error. */
static void a_city_without_hotels_is_an_empty_page(void **state)
{
    char *body = he_search_body("{\"city\":\"Nowhere Atoll\",\"country_code\":\"FR\"}", "");
    e2e_resp *r = he_post(key, NULL, "/v1/hotel/search", body);
    (void)state;
    fe_expect(r, 200, "a search of a city without hotels");
    assert_int_equal(json_array_size(fe_data(r)), 0);
    assert_null(he_next_cursor(r));
    assert_true(json_is_null(json_object_get(json_object_get(r->json, "meta"), "supplier")));
    e2e_free(r);
    free(body);
}

static void expect_supplier_failure(const char *api, const char *supplier, const char *spec,
                                    long status, const char *code)
{
    char *rid = fe_rid("hsearch", api), extra[64], *body;
    e2e_resp *r;
    snprintf(extra, sizeof(extra), ",\"supplier\":\"%s\"", supplier);
    body = he_search_body(PARIS, extra);
    fe_fault(api, rid, spec);
    r = he_post(key, rid, "/v1/hotel/search", body);
    e2e_assert_error(r, status, code);
    assert_string_equal(fe_s(json_object_get(r->json, "error"), "request_id"), rid);
    assert_true(fe_fault_hits(rid) >= 1);
    e2e_free(r);
    free(body);
    free(rid);
}

static void supplier_failures_are_502_and_504(void **state)
{
    (void)state;
    expect_supplier_failure("hotel_a", "SUPPLIER_A",
                            "\"action\":\"error\",\"status\":503,\"times\":5", 502,
                            "supplier_error");
    expect_supplier_failure("hotel_b", "SUPPLIER_B", "\"action\":\"garbage\",\"status\":200",
                            502, "supplier_error");
    expect_supplier_failure("hotel_c", "SUPPLIER_C",
                            "\"action\":\"respond\",\"delay_ms\":8000", 504, "supplier_timeout");
    /* Across every supplier, one failing fails the search. */
    {
        char *rid = fe_rid("hsearch", "all"), *body = he_search_body(PARIS, "");
        e2e_resp *r;
        fe_fault("hotel_b", rid, "\"action\":\"error\",\"status\":500,\"times\":5");
        r = he_post(key, rid, "/v1/hotel/search", body);
        e2e_assert_error(r, 502, "supplier_error");
        e2e_free(r);
        free(body);
        free(rid);
    }
}

/* Lines of the sandbox's access log whose request id starts with rid and
 * whose request line contains `what`. */
static long sandbox_requests(const char *rid, const char *what)
{
    char path[512], *log, *line, *save = NULL;
    long n = 0;
    snprintf(path, sizeof(path), "%s/httpd-sandbox/access.log", e2e_env("TRAVEL_TEST_DIR"));
    log = e2e_slurp(path);
    for (line = strtok_r(log, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        n += strstr(line, what) && strstr(line, rid);
    }
    free(log);
    return n;
}

/* A supplier's content (the hotels of the area) is read once per httpd
 * child and kept (TravelHotelContentCache, 1 h by default): twelve
 * searches of one area read it at most once per child (the test stack has
 * at most 4), while every search asks every supplier for its rates. */
static void content_is_read_once_per_child(void **state)
{
    char *rid = fe_rid("hsearch", "content"), one[200];
    char *body = he_search_body("{\"city\":\"Lyon\",\"country_code\":\"FR\"}", "");
    int i;
    (void)state;
    for (i = 0; i < 12; i++) {
        e2e_resp *r;
        snprintf(one, sizeof(one), "%s-%02d", rid, i);
        r = he_post(key, one, "/v1/hotel/search", body);
        fe_expect(r, 200, "a search of Lyon");
        e2e_free(r);
    }
    /* Prices are never kept. The sandbox writes a request's access-log
     * line after it has answered, so the last search's line may come a
     * moment after the search's own answer: wait for it (bounded). */
    for (i = 0; i < 200 && sandbox_requests(rid, "/hotels/a/v3.0/hotels/rates") < 12; i++) {
        e2e_sleep_ms(50);
    }
    assert_int_equal(sandbox_requests(rid, "/hotels/a/v3.0/hotels/rates"), 12);
    /* SUPPLIER_A's and SUPPLIER_C's content, SUPPLIER_B's hotel list. */
    assert_true(sandbox_requests(rid, "/hotels/a/v3.0/data/hotels") <= 4);
    assert_true(sandbox_requests(rid, "/hotels/c/v3/properties/content") <= 4);
    assert_true(sandbox_requests(rid, "/hotels/b/hotel-content-api/1.0/hotels?") <= 4);
    free(body);
    free(rid);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(features_list_the_configured_suppliers, setup),
        cmocka_unit_test(a_city_pages_every_hotel_once),
        cmocka_unit_test(one_id_whichever_supplier_is_asked),
        cmocka_unit_test(by_place_and_by_point),
        cmocka_unit_test(cursors_are_bound_to_search_and_organization),
        cmocka_unit_test(bad_searches_are_422_and_store_nothing),
        cmocka_unit_test(a_city_without_hotels_is_an_empty_page),
        cmocka_unit_test(supplier_failures_are_502_and_504),
        cmocka_unit_test(content_is_read_once_per_child),
    };
    return e2e_run("hotel search", tests, sizeof(tests) / sizeof(tests[0]));
}
