/* Hotel places: GET /v1/hotel/places?q=&limit= finds cities and airports in
 * the gateway's own catalogue (OpenFlights), city first, and saves every
 * place it returns for the organization under a plc_ id that later searches
 * give again; GET /v1/hotel/places/{id} reads a saved place back, only to
 * its organization, and writes nothing; bad queries are a 422 naming the
 * parameter and save nothing. */
#include "e2e.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *key, *other_key, *org;

static int setup(void **state)
{
    (void)state;
    key = e2e_new_org_key("places", &org);
    other_key = e2e_new_org_key("places-other", NULL);
    return 0;
}

static e2e_resp *get(const char *k, const char *path)
{
    e2e_resp *r = e2e_get(k, path);
    if (!r->json) {
        fail_msg("%s: not JSON: %s", path, r->body);
    }
    return r;
}

static json_t *data(const e2e_resp *r)
{
    return json_object_get(r->json, "data");
}

static const char *s(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

static double num(const json_t *o, const char *k)
{
    const json_t *v = json_object_get(o, k);
    assert_true(json_is_number(v));
    return json_number_value(v);
}

static void expect(const e2e_resp *r, long status, const char *what)
{
    if (r->status != status) {
        fail_msg("%s: expected %ld, got %ld: %s", what, status, r->status, r->body);
    }
}

static long saved_count(void)
{
    const char *p[1] = {org};
    return e2e_sql_long("SELECT count(*) FROM hotel_places WHERE org_id = $1", 1, p);
}

/* Every field of a place, well formed. */
static void well_formed(const json_t *place)
{
    const char *type = s(place, "type");
    assert_non_null(s(place, "id"));
    assert_int_equal(strncmp(s(place, "id"), "plc_", 4), 0);
    assert_true(s(place, "name") && *s(place, "name"));
    assert_true(s(place, "city") && *s(place, "city"));
    assert_true(strcmp(type, "city") == 0 || strcmp(type, "point") == 0);
    assert_int_equal(strlen(s(place, "country_code")), 2);
    assert_true(fabs(num(place, "latitude")) <= 90);
    assert_true(fabs(num(place, "longitude")) <= 180);
    assert_true(json_is_integer(json_object_get(place, "radius_m")));
    assert_true(json_integer_value(json_object_get(place, "radius_m")) > 0);
    assert_int_equal(json_object_size(place), 8);
}

static void a_city_comes_first_and_is_saved(void **state)
{
    e2e_resp *r, *again;
    json_t *first, *heathrow = NULL;
    size_t i;
    long before = saved_count();
    (void)state;

    r = get(key, "/v1/hotel/places?q=London&limit=20");
    expect(r, 200, "search London");
    assert_true(json_array_size(data(r)) >= 3);
    first = json_array_get(data(r), 0);
    assert_string_equal(s(first, "name"), "London");
    assert_string_equal(s(first, "type"), "city");
    assert_string_equal(s(first, "country_code"), "GB");
    /* The centre of London's airports, within a few tens of kilometres of
     * the city. */
    assert_true(num(first, "latitude") > 51.2 && num(first, "latitude") < 51.8);
    assert_true(num(first, "longitude") > -0.6 && num(first, "longitude") < 0.3);
    for (i = 0; i < json_array_size(data(r)); i++) {
        const json_t *p = json_array_get(data(r), i);
        well_formed(p);
        if (strstr(s(p, "name"), "Heathrow")) {
            heathrow = (json_t *)p;
        }
    }
    assert_non_null(heathrow);
    assert_string_equal(s(heathrow, "type"), "point");
    assert_string_equal(s(heathrow, "city"), "London");
    /* Every place returned is saved for the organization, once. */
    assert_int_equal(saved_count(), before + (long)json_array_size(data(r)));

    /* The same search gives the same ids and saves nothing new. */
    again = get(key, "/v1/hotel/places?q=london&limit=20");
    expect(again, 200, "search london again");
    assert_int_equal(json_array_size(data(again)), json_array_size(data(r)));
    for (i = 0; i < json_array_size(data(r)); i++) {
        assert_true(json_equal(json_array_get(data(r), i), json_array_get(data(again), i)));
    }
    assert_int_equal(saved_count(), before + (long)json_array_size(data(r)));
    e2e_free(again);
    e2e_free(r);
}

static void words_codes_and_accents(void **state)
{
    e2e_resp *r;
    (void)state;
    /* An IATA code finds its airport; the catalogue's names carry no
     * accents for the search ("Zürich Airport" is found as zurich). */
    r = get(key, "/v1/hotel/places?q=zrh");
    expect(r, 200, "search zrh");
    assert_true(json_array_size(data(r)) >= 1);
    assert_string_equal(s(json_array_get(data(r), 0), "type"), "point");
    assert_string_equal(s(json_array_get(data(r), 0), "country_code"), "CH");
    e2e_free(r);
    r = get(key, "/v1/hotel/places?q=zurich");
    expect(r, 200, "search zurich");
    assert_string_equal(s(json_array_get(data(r), 0), "type"), "city");
    assert_string_equal(s(json_array_get(data(r), 0), "country_code"), "CH");
    e2e_free(r);
    /* A word inside a name: "heathrow" finds London Heathrow Airport. */
    r = get(key, "/v1/hotel/places?q=heathrow");
    expect(r, 200, "search heathrow");
    assert_string_equal(s(json_array_get(data(r), 0), "type"), "point");
    assert_string_equal(s(json_array_get(data(r), 0), "city"), "London");
    e2e_free(r);
    /* Several words: "new york" is the city. */
    r = get(key, "/v1/hotel/places?q=new%20york");
    expect(r, 200, "search new york");
    assert_string_equal(s(json_array_get(data(r), 0), "name"), "New York");
    assert_string_equal(s(json_array_get(data(r), 0), "type"), "city");
    e2e_free(r);
    /* Nothing matches: an empty list, nothing saved. */
    r = get(key, "/v1/hotel/places?q=qqxqzzq");
    expect(r, 200, "no match");
    assert_int_equal(json_array_size(data(r)), 0);
    assert_true(json_is_false(json_object_get(json_object_get(r->json, "meta"), "truncated")));
    e2e_free(r);
}

static void limit_and_truncated(void **state)
{
    e2e_resp *r = get(key, "/v1/hotel/places?q=san&limit=3");
    (void)state;
    expect(r, 200, "limit 3");
    assert_int_equal(json_array_size(data(r)), 3);
    assert_true(json_is_true(json_object_get(json_object_get(r->json, "meta"), "truncated")));
    e2e_free(r);
    r = get(key, "/v1/hotel/places?q=san");
    expect(r, 200, "default limit");
    assert_int_equal(json_array_size(data(r)), 10);
    e2e_free(r);
}

static void one_place_in_its_organization(void **state)
{
    e2e_resp *r = get(key, "/v1/hotel/places?q=Paris&limit=1"), *one;
    const json_t *paris;
    char path[256];
    long before;
    (void)state;
    expect(r, 200, "search Paris");
    paris = json_array_get(data(r), 0);
    assert_string_equal(s(paris, "country_code"), "FR");
    snprintf(path, sizeof(path), "/v1/hotel/places/%s", s(paris, "id"));
    before = saved_count();
    one = get(key, path);
    expect(one, 200, "read the place");
    assert_true(json_equal(data(one), paris));
    assert_int_equal(saved_count(), before);
    e2e_free(one);
    /* Another organization does not see it. */
    one = get(other_key, path);
    e2e_assert_error(one, 404, "not_found");
    e2e_free(one);
    one = get(key, "/v1/hotel/places/plc_0000-no-such-place");
    e2e_assert_error(one, 404, "not_found");
    e2e_free(one);
    one = get(key, "/v1/hotel/places/bkg_0000");
    e2e_assert_error(one, 422, "validation_failed");
    e2e_free(one);
    e2e_free(r);
}

static void refuse(const char *query, const char *field)
{
    char path[256];
    e2e_resp *r;
    const json_t *d;
    size_t i;
    snprintf(path, sizeof(path), "/v1/hotel/places%s", query);
    r = get(key, path);
    e2e_assert_error(r, 422, "validation_failed");
    d = json_object_get(json_object_get(r->json, "error"), "details");
    for (i = 0; i < json_array_size(d); i++) {
        if (strcmp(s(json_array_get(d, i), "field"), field) == 0) {
            break;
        }
    }
    if (i == json_array_size(d)) {
        fail_msg("%s: no detail on %s: %s", query, field, r->body);
    }
    e2e_free(r);
}

static void bad_queries_save_nothing(void **state)
{
    long before = saved_count();
    (void)state;
    refuse("", "q");
    refuse("?q=l", "q");
    refuse("?q=london&limit=0", "limit");
    refuse("?q=london&limit=51", "limit");
    refuse("?q=london&limit=ten", "limit");
    refuse("?q=london&city=London", "city");
    assert_int_equal(saved_count(), before);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(a_city_comes_first_and_is_saved, setup),
        cmocka_unit_test(words_codes_and_accents),
        cmocka_unit_test(limit_and_truncated),
        cmocka_unit_test(one_place_in_its_organization),
        cmocka_unit_test(bad_queries_save_nothing),
    };
    return E2E_RUN("hotel places", tests);
}
