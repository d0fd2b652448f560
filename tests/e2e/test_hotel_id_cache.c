/* Hotel ids kept in the child's memory (hotel/id_cache.h), over real HTTP
 * on an instance of one child (the cache is a process's) with no search
 * cache: once a page's hotels were all found mapped, the same fresh search
 * (every supplier asked again) gets the same ids with both PostgreSQL
 * functions that resolve them made to fail; hotels this child has not
 * found mapped yet (another supplier's) still reach PostgreSQL, and fail
 * then (500). */
#include "hotel_e2e.h"

static char *key;
static char url[128];
static long pid;

/* The functions as migrations made them, while the test replaces them. */
static char *known_def, *page_def;

static void functions_restore(void)
{
    he_id_function_restore(&known_def);
    he_id_function_restore(&page_def);
}

/* Also when the test fails half-way. */
static int functions_teardown(void **state)
{
    (void)state;
    functions_restore();
    return 0;
}

static int setup(void **state)
{
    static const char *const edits[] = {"StartServers 2", "StartServers 1", "ServerLimit 4",
                                        "ServerLimit 1", "MaxRequestWorkers 128",
                                        "MaxRequestWorkers 64", NULL, NULL};
    (void)state;
    key = e2e_new_org_key("hotel-id-cache", NULL);
    pid = e2e_start_instance("idcache", edits, NULL, url, sizeof(url));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    e2e_stop_pid(pid);
    return 0;
}

static e2e_resp *post(const char *rid, const char *body)
{
    return he_post_at(url, key, rid, "/v1/hotel/search", body);
}

/* A search of one supplier's hotels in Paris (malloc'd). */
static char *paris_at(const char *supplier)
{
    char *b = malloc(1024);
    snprintf(b, 1024, "{\"supplier\":\"%s\",\"destination\":{\"city\":\"Paris\","
             "\"country_code\":\"FR\"},\"check_in\":\"%s\",\"check_out\":\"%s\","
             "\"occupancy\":[{\"adults\":2}],\"guest_nationality\":\"GB\","
             "\"guest_residence\":\"GB\",\"currency\":\"EUR\",\"limit\":10}",
             supplier, fe_date(40), fe_date(42));
    return b;
}

static void assert_same_ids(const e2e_resp *a, const e2e_resp *b)
{
    size_t i;
    assert_int_equal(json_array_size(fe_data(a)), json_array_size(fe_data(b)));
    for (i = 0; i < json_array_size(fe_data(a)); i++) {
        assert_string_equal(fe_s(json_array_get(fe_data(a), i), "hotel_id"),
                            fe_s(json_array_get(fe_data(b), i), "hotel_id"));
    }
}

static void known_hotels_get_their_ids_without_postgresql(void **state)
{
    char *a = paris_at("SUPPLIER_A"), *b = paris_at("SUPPLIER_B");
    e2e_resp *first, *known, *again, *r;
    (void)state;
    /* The first may map hotels seen for the first time (not kept: only an
     * answer of hotel_map_known is); the second finds them all mapped. */
    first = post("hidcache-first", a);
    fe_expect(first, 200, "a first search");
    assert_true(json_array_size(fe_data(first)) > 5);
    known = post("hidcache-known", a);
    fe_expect(known, 200, "the search again");
    assert_same_ids(first, known);

    known_def = he_id_function_off("hotel_map_known");
    page_def = he_id_function_off("hotel_map_page");
    again = post("hidcache-again", a);
    fe_expect(again, 200, "the search with both functions failing");
    assert_null(fe_s(json_object_get(again->json, "meta"), "cached_at"));
    assert_same_ids(known, again);

    /* The control: another supplier's hotels are asked of PostgreSQL. */
    r = post("hidcache-unseen", b);
    assert_int_equal(r->status, 500);
    e2e_free(r);
    functions_restore();
    r = post("hidcache-unseen-again", b);
    fe_expect(r, 200, "the other supplier's hotels, the functions back");
    assert_true(json_array_size(fe_data(r)) > 0);
    e2e_free(r);
    e2e_free(first);
    e2e_free(known);
    e2e_free(again);
    free(a);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(known_hotels_get_their_ids_without_postgresql,
                                  functions_teardown),
    };
    int rc;
    setup(NULL);
    rc = E2E_RUN("hotel_id_cache", tests);
    teardown(NULL);
    return rc;
}
