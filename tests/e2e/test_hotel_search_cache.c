/* The shared search cache over real HTTP: an instance of its own whose
 * hotel suppliers keep their search answers (SUPPLIER_A and SUPPLIER_C for
 * 60 s, SUPPLIER_B for 1 s). A repeated search is answered from the cache
 * (the suppliers, made to fail for it, are not asked), says when the answer
 * was kept, and shows the kept price; offers for the same stay ask the
 * supplier and show a price changed since; any other stay, area, currency,
 * market or party is asked again; an answer is not served past its
 * freshness; a repeated search's page gets its hotel ids from the cache,
 * not from PostgreSQL. */
#include "hotel_e2e.h"

#include "core/clock.h"

static char *key;
static char url[128];
static long pid;

#define PARIS "{\"city\":\"Paris\",\"country_code\":\"FR\"}"
#define LONDON "{\"city\":\"London\",\"country_code\":\"GB\"}"
#define FAIL "\"status\":500,\"times\":null"

static int setup(void **state)
{
    static const char *const edits[] = {
        "api_key=sandbox-key-hotel-a ", "api_key=sandbox-key-hotel-a search_cache=60s ",
        "api_secret=sandbox-secret-hotel-b ", "api_secret=sandbox-secret-hotel-b search_cache=1s ",
        "api_secret=sandbox-secret-hotel-c ", "api_secret=sandbox-secret-hotel-c search_cache=60s ",
        NULL, NULL};
    (void)state;
    key = e2e_new_org_key("hotel-search-cache", NULL);
    pid = e2e_start_instance("searchcache", edits, NULL, url, sizeof(url));
    return 0;
}

/* hotel_map_page as migrations made it, while a test has replaced it. */
static char *map_page_def;

/* The supplier ids' rows set aside (hscache_ids_aside) by the test below. */
static int ids_aside;

static void map_page_restore(void)
{
    if (ids_aside) {
        e2e_sql_exec("INSERT INTO hotel_supplier_ids SELECT * FROM hscache_ids_aside", 0, NULL);
        e2e_sql_exec("DROP TABLE hscache_ids_aside", 0, NULL);
        ids_aside = 0;
    }
    he_id_function_restore(&map_page_def);
}

/* Also when the test fails half-way (while the database is still open). */
static int map_page_teardown(void **state)
{
    (void)state;
    map_page_restore();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    e2e_stop_pid(pid);
    e2e_free(e2e_call(e2e_sandbox_url(), "DELETE", "/sandbox/hotel-prices", NULL, NULL));
    return 0;
}

static e2e_resp *post(const char *rid, const char *path, const char *body)
{
    return he_post_at(url, key, rid, path, body);
}

static const char *cached_at(const e2e_resp *r)
{
    return fe_s(json_object_get(r->json, "meta"), "cached_at");
}

/* A search of one supplier in an area, days ahead for nights, with the
 * party, currency and nationality given (malloc'd). */
static char *body_in(const char *area, const char *supplier, int days, int nights,
                     const char *party, const char *currency, const char *nationality)
{
    char *b = malloc(2048);
    snprintf(b, 2048, "{\"supplier\":\"%s\",\"destination\":%s,\"check_in\":\"%s\","
             "\"check_out\":\"%s\",\"occupancy\":[%s],\"guest_nationality\":\"%s\","
             "\"guest_residence\":\"GB\",\"currency\":\"%s\",\"limit\":10}", supplier, area,
             fe_date(days), fe_date(days + nights), party, nationality, currency);
    return b;
}

/* The same in Paris. */
static char *body_of(const char *supplier, int days, int nights, const char *party,
                     const char *currency, const char *nationality)
{
    return body_in(PARIS, supplier, days, nights, party, currency, nationality);
}

/* Every call to api (hotel_a...) fails for requests whose id starts with rid. */
static void failing(const char *api, const char *rid)
{
    fe_fault(api, rid, FAIL);
}

static void a_repeated_search_is_answered_from_the_cache(void **state)
{
    char *body = body_of("SUPPLIER_A", 61, 2, "{\"adults\":2}", "EUR", "GB");
    char *rid1 = fe_rid("hscache", "first"), *rid2 = fe_rid("hscache", "again");
    char *rid3 = fe_rid("hscache", "offers"), ctl[512], offers[2048];
    const json_t *first;
    apr_time_t at, now;
    e2e_resp *r1, *r2, *r;
    long kept;
    (void)state;
    r1 = post(rid1, "/v1/hotel/search", body);
    fe_expect(r1, 200, "a first search");
    assert_null(cached_at(r1));
    assert_true(json_array_size(fe_data(r1)) > 0);

    /* The supplier fails every call of the second search: it is not asked. */
    failing("hotel_a", rid2);
    r2 = post(rid2, "/v1/hotel/search", body);
    fe_expect(r2, 200, "the same search again");
    assert_non_null(cached_at(r2));
    assert_int_equal(trv_time_parse(cached_at(r2), &at), APR_SUCCESS);
    now = apr_time_now();
    assert_true(at <= now && at > now - apr_time_from_sec(60));
    assert_true(json_equal(fe_data(r1), fe_data(r2)));
    assert_int_equal(fe_fault_hits(rid2), 0);
    fe_fault_clear(rid2);

    /* The supplier's price of the first hotel doubles: a search within the
     * freshness still shows the kept price, offers ask and show the new. */
    first = json_array_get(fe_data(r1), 0);
    kept = he_minor(json_object_get(json_object_get(first, "cheapest_price"), "total"));
    snprintf(ctl, sizeof(ctl), "{\"supplier\":\"SUPPLIER_A\",\"supplier_hotel_id\":\"%s\","
             "\"factor\":2}", fe_s(first, "supplier_hotel_id"));
    r = e2e_call(e2e_sandbox_url(), "POST", "/sandbox/hotel-prices",
                 (const char *[]){"Content-Type: application/json", NULL}, ctl);
    fe_expect(r, 200, "a sandbox price factor");
    e2e_free(r);
    r = post(rid2, "/v1/hotel/search", body);
    fe_expect(r, 200, "the search after the price changed");
    assert_non_null(cached_at(r));
    assert_int_equal(he_minor(json_object_get(json_object_get(json_array_get(fe_data(r), 0),
                                                              "cheapest_price"), "total")),
                     kept);
    e2e_free(r);
    snprintf(offers, sizeof(offers), "{\"supplier\":\"SUPPLIER_A\",\"supplier_hotel_ids\":"
             "[\"%s\"],\"check_in\":\"%s\",\"check_out\":\"%s\",\"occupancy\":"
             "[{\"adults\":2}],\"guest_nationality\":\"GB\",\"guest_residence\":\"GB\","
             "\"currency\":\"EUR\",\"max_offers_per_hotel\":5}",
             fe_s(first, "supplier_hotel_id"), fe_date(61), fe_date(63));
    r = post(rid3, "/v1/hotel/offers", offers);
    fe_expect(r, 200, "offers after the price changed");
    assert_true(json_array_size(fe_data(r)) > 0);
    {
        long cheapest = -1;
        size_t i;
        for (i = 0; i < json_array_size(fe_data(r)); i++) {
            long t = he_minor(json_object_get(json_array_get(fe_data(r), i), "total"));
            cheapest = cheapest < 0 || t < cheapest ? t : cheapest;
        }
        assert_true(cheapest > kept);
    }
    assert_null(cached_at(r));
    e2e_free(r);
    e2e_free(e2e_call(e2e_sandbox_url(), "DELETE", "/sandbox/hotel-prices", NULL, NULL));
    e2e_free(r1);
    e2e_free(r2);
    free(body);
    free(rid1);
    free(rid2);
    free(rid3);
}

/* Each field that changes a supplier's answer changes the key: with the
 * supplier failing, each of these searches fails (502) because it was
 * asked, where the kept one answers. */
static void another_stay_area_currency_market_or_party_is_asked_again(void **state)
{
    char *base = body_of("SUPPLIER_C", 71, 2, "{\"adults\":2}", "EUR", "GB");
    char *variants[6];
    char *rid = fe_rid("hscache", "variants");
    e2e_resp *r;
    int i;
    (void)state;
    r = post("hscache-variants-warm", "/v1/hotel/search", base);
    fe_expect(r, 200, "the kept search");
    e2e_free(r);
    variants[0] = body_of("SUPPLIER_C", 71, 3, "{\"adults\":2}", "EUR", "GB");
    variants[1] = body_of("SUPPLIER_C", 72, 2, "{\"adults\":2}", "EUR", "GB");
    variants[2] = body_of("SUPPLIER_C", 71, 2, "{\"adults\":1}", "EUR", "GB");
    variants[3] = body_of("SUPPLIER_C", 71, 2, "{\"adults\":2,\"children\":[7]}", "EUR", "GB");
    variants[4] = body_of("SUPPLIER_C", 71, 2, "{\"adults\":2}", "GBP", "GB");
    variants[5] = body_of("SUPPLIER_C", 71, 2, "{\"adults\":2}", "EUR", "FR");
    failing("hotel_c", rid);
    r = post(rid, "/v1/hotel/search", base);
    fe_expect(r, 200, "the kept search, its supplier failing");
    assert_non_null(cached_at(r));
    e2e_free(r);
    for (i = 0; i < 6; i++) {
        r = post(rid, "/v1/hotel/search", variants[i]);
        if (r->status != 502) {
            fail_msg("variant %d answered %d, not 502 (it was not asked): %s", i, r->status,
                     variants[i]);
        }
        assert_null(cached_at(r));
        e2e_free(r);
        free(variants[i]);
    }
    /* Another area: London instead of Paris. */
    {
        char *london = body_in(LONDON, "SUPPLIER_C", 71, 2, "{\"adults\":2}", "EUR", "GB");
        r = post(rid, "/v1/hotel/search", london);
        assert_int_equal(r->status, 502);
        e2e_free(r);
        free(london);
    }
    assert_true(fe_fault_hits(rid) >= 7);
    fe_fault_clear(rid);
    free(base);
    free(rid);
}

/* SUPPLIER_B keeps its answers for 1 s: once that has passed since the
 * answer was kept, the supplier is asked again. */
static void an_answer_is_not_served_past_its_freshness(void **state)
{
    char *body = body_of("SUPPLIER_B", 81, 2, "{\"adults\":2}", "EUR", "GB");
    char *rid = fe_rid("hscache", "stale");
    apr_time_t answered;
    e2e_resp *r;
    (void)state;
    r = post("hscache-stale-first", "/v1/hotel/search", body);
    fe_expect(r, 200, "a first search");
    e2e_free(r);
    /* Kept before the answer was sent, for 1 s: 1.2 s after the answer it
     * is gone, whatever the machine's load. */
    answered = apr_time_now();
    while (apr_time_now() < answered + apr_time_from_msec(1200)) {
        e2e_sleep_ms(100);
    }
    failing("hotel_b", rid);
    r = post(rid, "/v1/hotel/search", body);
    assert_int_equal(r->status, 502);
    e2e_free(r);
    assert_true(fe_fault_hits(rid) >= 1);
    fe_fault_clear(rid);
    free(body);
    free(rid);
}

/* The page's ids are kept beside the answers: with hotel_map_page made to
 * fail and the supplier ids' rows set aside (a page of known hotels is
 * looked up in them before the function is called, hotel_store.c), the
 * repeated search still answers the same hotels and ids, where hotels not
 * seen before (another city's) reach PostgreSQL and fail (500). */
static void a_repeated_search_gets_its_ids_without_postgresql(void **state)
{
    char *body = body_of("SUPPLIER_A", 91, 2, "{\"adults\":2}", "EUR", "GB");
    char *other = body_of("SUPPLIER_A", 91, 2, "{\"adults\":2}", "EUR", "GB");
    char *unseen = body_in(LONDON, "SUPPLIER_A", 91, 2, "{\"adults\":2}", "EUR", "GB");
    e2e_resp *r1, *r2, *r3;
    (void)state;
    r1 = post("hscache-ids-first", "/v1/hotel/search", body);
    fe_expect(r1, 200, "a first search");
    assert_true(json_array_size(fe_data(r1)) > 5);
    assert_null(cached_at(r1));

    map_page_def = he_id_function_off("hotel_map_page");
    e2e_sql_exec("CREATE TABLE hscache_ids_aside AS SELECT * FROM hotel_supplier_ids", 0, NULL);
    ids_aside = 1;
    e2e_sql_exec("DELETE FROM hotel_supplier_ids", 0, NULL);
    r2 = post("hscache-ids-again", "/v1/hotel/search", body);
    fe_expect(r2, 200, "the same search with hotel_map_page failing");
    assert_non_null(cached_at(r2));
    assert_true(json_equal(fe_data(r1), fe_data(r2)));

    /* The control: hotels this instance has not mapped yet (SUPPLIER_A's
     * in London, which no test here searched before) have their ids resolved in
     * PostgreSQL, which fails now (their supplier ids not found, the
     * function is called). Not the same hotels at another limit: their
     * ids are kept by the child that answered r1 (hotel/id_cache.h). */
    r3 = post("hscache-ids-other", "/v1/hotel/search", unseen);
    assert_int_equal(r3->status, 500);
    map_page_restore();
    e2e_free(r3);
    r3 = post("hscache-ids-other-again", "/v1/hotel/search", unseen);
    fe_expect(r3, 200, "the unseen hotels with hotel_map_page back");
    assert_true(json_array_size(fe_data(r3)) > 0);
    e2e_free(r3);
    /* A page of the first hotels has their ids, from whichever child. */
    strcpy(strstr(other, "\"limit\":10}"), "\"limit\":5}");
    r3 = post("hscache-ids-first-five", "/v1/hotel/search", other);
    fe_expect(r3, 200, "five of the first hotels");
    assert_string_equal(fe_s(json_array_get(fe_data(r3), 0), "hotel_id"),
                        fe_s(json_array_get(fe_data(r1), 0), "hotel_id"));
    e2e_free(r1);
    e2e_free(r2);
    e2e_free(r3);
    free(body);
    free(other);
    free(unseen);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_repeated_search_is_answered_from_the_cache),
        cmocka_unit_test(another_stay_area_currency_market_or_party_is_asked_again),
        cmocka_unit_test(an_answer_is_not_served_past_its_freshness),
        cmocka_unit_test_teardown(a_repeated_search_gets_its_ids_without_postgresql,
                                  map_page_teardown),
    };
    int rc;
    setup(NULL);
    rc = E2E_RUN("hotel_search_cache", tests);
    teardown(NULL);
    return rc;
}
