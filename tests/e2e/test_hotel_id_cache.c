/* Hotel lookups kept in the child's memory (hotel/hotel_store.c), over
 * real HTTP on an instance of one child (the caches are a process's) with
 * no search cache.
 * - Ids: once a page's hotels were all found mapped, the same fresh
 *   search (every supplier asked again) gets the same ids with both
 *   PostgreSQL functions that resolve them made to fail; hotels this child
 *   has not found mapped yet (another supplier's) still reach PostgreSQL,
 *   and fail then (500).
 * - Who sells a hotel: kept while no change to hotel_supplier_ids is
 *   heard. A row removed with its trigger off (no notification) leaves
 *   the offers priced by the kept seller; a row moved to the hotel (an
 *   insert, notified) makes its supplier the seller, and putting the rows
 *   back (an update and an insert) makes the first seller again. */
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

/* The rows the sellers test moves, put back also when it fails half-way:
 * hotel x's SUPPLIER_A id, and the SUPPLIER_B id of hotel y. */
static char x[64], y[64], a_sid[128], b_sid[128];
static int moved;

static void sellers_restore(void)
{
    const char *params[3];
    e2e_sql_exec("ALTER TABLE hotel_supplier_ids ENABLE TRIGGER hotel_sellers_changed", 0, NULL);
    if (!moved) {
        return;
    }
    params[0] = y;
    params[1] = b_sid;
    e2e_sql_exec("UPDATE hotel_supplier_ids SET hotel_id = $1 "
                 "WHERE supplier = 'SUPPLIER_B' AND supplier_hotel_id = $2", 2, params);
    params[0] = a_sid;
    params[1] = x;
    e2e_sql_exec("INSERT INTO hotel_supplier_ids (supplier, supplier_hotel_id, hotel_id) "
                 "VALUES ('SUPPLIER_A', $1, $2) ON CONFLICT DO NOTHING", 2, params);
    moved = 0;
}

static int sellers_teardown(void **state)
{
    (void)state;
    sellers_restore();
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

/* Who priced hotel x's offers: 'A' or 'B' (the supplier's letter), 0 for
 * an answer without offers, else the HTTP status. */
static long x_seller(void *baton)
{
    char body[1024];
    const char *sup;
    e2e_resp *r;
    long got;
    (void)baton;
    snprintf(body, sizeof(body), "{\"hotel_ids\":[\"%s\"],\"check_in\":\"%s\","
             "\"check_out\":\"%s\",\"occupancy\":[{\"adults\":2}],\"guest_nationality\":"
             "\"GB\",\"guest_residence\":\"GB\",\"currency\":\"EUR\","
             "\"max_offers_per_hotel\":1}", x, fe_date(40), fe_date(42));
    r = he_post_at(url, key, NULL, "/v1/hotel/offers", body);
    sup = r->status == 200 ? fe_s(json_array_get(fe_data(r), 0), "supplier") : NULL;
    got = r->status != 200 ? r->status : !sup ? 0
          : strcmp(sup, "SUPPLIER_A") == 0 ? 'A' : strcmp(sup, "SUPPLIER_B") == 0 ? 'B' : 1;
    e2e_free(r);
    return got;
}

/* Hotel id's supplier id at supplier, into out. */
static void sid_of(const char *id, const char *supplier, char *out, size_t size)
{
    const char *params[2] = {id, supplier};
    char *v = e2e_sql_text("SELECT supplier_hotel_id FROM hotel_supplier_ids "
                           "WHERE hotel_id = $1 AND supplier = $2", 2, params);
    assert_non_null(v);
    snprintf(out, size, "%s", v);
    free(v);
}

/* The instance's notifications proven (the caches are on), within 15 s. */
static void wait_listening(void)
{
    long since = e2e_now_ms();
    for (;;) {
        e2e_resp *r = e2e_call(url, "GET", "/v1/health", NULL, NULL);
        const char *st = fe_s(json_object_get(json_object_get(r->json, "data"),
                                              "notifications"), "state");
        int ok = st && strcmp(st, "listening") == 0;
        e2e_free(r);
        if (ok) {
            return;
        }
        if (e2e_now_ms() - since > 15000) {
            fail_msg("the instance's notifications were not proven within 15 s");
        }
        e2e_sleep_ms(50);
    }
}

static void who_sells_a_hotel_is_kept_until_a_change_is_heard(void **state)
{
    char *a = paris_at("SUPPLIER_A"), *b = paris_at("SUPPLIER_B");
    e2e_resp *ra, *rb;
    const char *params[3];
    size_t i;
    (void)state;
    ra = post("hsellers-a", a);
    fe_expect(ra, 200, "SUPPLIER_A's hotels");
    rb = post("hsellers-b", b);
    fe_expect(rb, 200, "SUPPLIER_B's hotels");
    snprintf(x, sizeof(x), "%s", fe_s(json_array_get(fe_data(ra), 0), "hotel_id"));
    for (i = 0; i < json_array_size(fe_data(rb)) && !y[0]; i++) {
        const char *h = fe_s(json_array_get(fe_data(rb), i), "hotel_id");
        if (strcmp(h, x) != 0) {
            snprintf(y, sizeof(y), "%s", h);
        }
    }
    assert_true(y[0] != '\0');
    sid_of(x, "SUPPLIER_A", a_sid, sizeof(a_sid));
    sid_of(y, "SUPPLIER_B", b_sid, sizeof(b_sid));
    wait_listening();
    assert_int_equal(x_seller(NULL), 'A');

    /* Removed unheard: the kept seller still prices it (asked, PostgreSQL
     * would name another seller or none). */
    e2e_sql_exec("ALTER TABLE hotel_supplier_ids DISABLE TRIGGER hotel_sellers_changed", 0, NULL);
    moved = 1;
    params[0] = x;
    e2e_sql_exec("DELETE FROM hotel_supplier_ids WHERE hotel_id = $1 AND supplier = 'SUPPLIER_A'",
                 1, params);
    params[0] = b_sid;
    e2e_sql_exec("DELETE FROM hotel_supplier_ids "
                 "WHERE supplier = 'SUPPLIER_B' AND supplier_hotel_id = $1", 1, params);
    assert_int_equal(x_seller(NULL), 'A');

    /* An insert is heard (after its commit, so within a bound). */
    params[0] = b_sid;
    params[1] = x;
    e2e_sql_exec("INSERT INTO hotel_supplier_ids (supplier, supplier_hotel_id, hotel_id) "
                 "VALUES ('SUPPLIER_B', $1, $2)", 2, params);
    if (!e2e_until_steady(x_seller, NULL, 'B', 10000)) {
        fail_msg("a supplier id mapped to the hotel was not its seller within 10 s");
    }
    /* Put back (an update and an insert, both heard): the first seller. */
    sellers_restore();
    if (!e2e_until_steady(x_seller, NULL, 'A', 10000)) {
        fail_msg("the restored seller did not price the hotel within 10 s");
    }
    e2e_free(ra);
    e2e_free(rb);
    free(a);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(known_hotels_get_their_ids_without_postgresql,
                                  functions_teardown),
        cmocka_unit_test_teardown(who_sells_a_hotel_is_kept_until_a_change_is_heard,
                                  sellers_teardown),
    };
    int rc;
    setup(NULL);
    rc = E2E_RUN("hotel_id_cache", tests);
    teardown(NULL);
    return rc;
}
