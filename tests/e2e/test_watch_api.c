/* The watch endpoints over real HTTP: price and trip watches are created,
 * read, listed and canceled by their user only (another user of the same
 * organization and another organization get 404); malformed watches are
 * a 422 naming each field (any trigger type but below_total included)
 * and store nothing; a trip destination is a saved place or a text that
 * resolves to one; auto_purchase makes a mandate pending confirmation,
 * and confirming it arms the watch; a watch reads as expired from its
 * check_in on and the schedule stores it. A mandate's rooms follow
 * prebook's rules at creation, and amounts are read exactly from their
 * digits. */
#include "watch_e2e.h"

static char *key, *key2, *other, *org;
static we_hotel hotel;

static int setup(void **state)
{
    (void)state;
    key = e2e_new_org_key("watch-api", &org);
    key2 = e2e_new_key(org, "watch-api-2");
    other = e2e_new_org_key("watch-api-other", NULL);
    we_pick_hotel(key, 40, 42, 0, &hotel);
    return 0;
}

static long watches_of_org(void)
{
    const char *p[1] = {org};
    return e2e_sql_long("SELECT count(*) FROM watches WHERE org_id = $1", 1, p);
}

static void price_watch_lives_in_its_users_scope(void **state)
{
    json_t *w = we_price_watch(key, &hotel, 40, 42, hotel.cents / 2, NULL), *l;
    char path[256];
    e2e_resp *r;
    const char *id = fe_s(w, "id");
    (void)state;
    assert_true(strncmp(id, "wtc_", 4) == 0);
    assert_string_equal(fe_s(w, "kind"), "price");
    assert_string_equal(fe_s(w, "status"), "active");
    assert_string_equal(fe_s(w, "hotel_id"), hotel.hotel_id);
    assert_string_equal(fe_s(json_object_get(w, "trigger"), "type"), "below_total");
    assert_int_equal(he_minor(json_pack("{s:O}", "amount",
                                        json_object_get(json_object_get(w, "trigger"),
                                                        "amount"))),
                     hotel.cents / 2);
    assert_true(json_is_null(json_object_get(w, "mandate")));
    snprintf(path, sizeof(path), WE_WATCHES "/%s", id);
    /* Another user of the organization, another organization: 404. */
    r = we_call(key2, "GET", path, NULL);
    e2e_assert_error(r, 404, "not_found");
    e2e_free(r);
    r = we_call(other, "DELETE", path, NULL);
    e2e_assert_error(r, 404, "not_found");
    e2e_free(r);
    /* Not a trip watch either. */
    snprintf(path, sizeof(path), WE_TRIPS "/%s", id);
    r = we_call(key, "GET", path, NULL);
    e2e_assert_error(r, 404, "not_found");
    e2e_free(r);
    r = we_call(key2, "GET", WE_WATCHES, NULL);
    fe_expect(r, 200, "another user's list");
    assert_int_equal(json_array_size(fe_data(r)), 0);
    e2e_free(r);
    r = we_call(key, "GET", WE_WATCHES "?limit=1", NULL);
    fe_expect(r, 200, "the list");
    l = fe_data(r);
    assert_int_equal(json_array_size(l), 1);
    assert_string_equal(fe_s(json_array_get(l, 0), "id"), id);
    e2e_free(r);
    r = we_call(key, "GET", WE_WATCHES "?status=bogus", NULL);
    e2e_assert_error(r, 422, "validation_failed");
    e2e_free(r);
    snprintf(path, sizeof(path), WE_WATCHES "/%s", id);
    r = we_call(key, "DELETE", path, NULL);
    fe_expect(r, 200, "canceling");
    assert_string_equal(fe_s(fe_data(r), "status"), "canceled");
    e2e_free(r);
    r = we_call(key, "DELETE", path, NULL);
    fe_expect(r, 200, "canceling again");
    assert_string_equal(fe_s(fe_data(r), "status"), "canceled");
    e2e_free(r);
    r = we_call(key, "GET", WE_WATCHES "?status=canceled", NULL);
    fe_expect(r, 200, "the canceled list");
    assert_int_equal(json_array_size(fe_data(r)), 1);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(
                         json_object_get(r->json, "meta"), "pagination"), "total")), 1);
    e2e_free(r);
    json_decref(w);
}

static int has_detail(const e2e_resp *r, const char *field)
{
    const json_t *d;
    size_t i;
    json_array_foreach(json_object_get(json_object_get(r->json, "error"), "details"), i, d) {
        if (strcmp(fe_s(d, "field"), field) == 0) {
            return 1;
        }
    }
    return 0;
}

static void malformed_watches_are_refused_and_store_nothing(void **state)
{
    char body[2048], *stay = we_stay(40, 42), *today = we_stay(0, 2);
    long before = watches_of_org();
    e2e_resp *r;
    (void)state;
    snprintf(body, sizeof(body), "{\"hotel_id\":\"%s\",%s,\"trigger\":{\"type\":"
             "\"above_total\",\"amount\":10}}", hotel.hotel_id, stay);
    r = we_call(key, "POST", WE_WATCHES, body);
    e2e_assert_error(r, 422, "validation_failed");
    assert_true(has_detail(r, "trigger.type"));
    e2e_free(r);
    snprintf(body, sizeof(body), "{\"hotel_id\":\"htl_unknown-1\",%s,\"trigger\":{\"type\":"
             "\"below_total\",\"amount\":-5},\"colour\":1}", stay);
    r = we_call(key, "POST", WE_WATCHES, body);
    e2e_assert_error(r, 422, "validation_failed");
    assert_true(has_detail(r, "trigger.amount"));
    assert_true(has_detail(r, "colour"));
    e2e_free(r);
    snprintf(body, sizeof(body), "{\"hotel_id\":\"htl_unknown-1\",%s,\"trigger\":{\"type\":"
             "\"below_total\",\"amount\":5}}", stay);
    r = we_call(key, "POST", WE_WATCHES, body);
    e2e_assert_error(r, 422, "validation_failed");
    assert_true(has_detail(r, "hotel_id"));
    e2e_free(r);
    /* A watch stops at check_in: one starting today is refused. */
    snprintf(body, sizeof(body), "{\"hotel_id\":\"%s\",%s,\"trigger\":{\"type\":"
             "\"below_total\",\"amount\":5}}", hotel.hotel_id, today);
    r = we_call(key, "POST", WE_WATCHES, body);
    e2e_assert_error(r, 422, "validation_failed");
    assert_true(has_detail(r, "check_in"));
    e2e_free(r);
    snprintf(body, sizeof(body), "{\"destination\":\"zzqqxxvv\",%s,\"trigger\":{\"type\":"
             "\"below_total\",\"amount\":5}}", stay);
    r = we_call(key, "POST", WE_TRIPS, body);
    e2e_assert_error(r, 422, "validation_failed");
    assert_true(has_detail(r, "destination"));
    e2e_free(r);
    snprintf(body, sizeof(body), "{\"hotel_id\":\"%s\",%s,\"trigger\":{\"type\":"
             "\"below_total\",\"amount\":5},\"auto_purchase\":{\"max_total\":6}}",
             hotel.hotel_id, stay);
    r = we_call(key, "POST", WE_WATCHES, body);
    e2e_assert_error(r, 422, "validation_failed");
    assert_true(has_detail(r, "auto_purchase.payment_instrument_id"));
    assert_true(has_detail(r, "auto_purchase.contact"));
    e2e_free(r);
    assert_int_equal(watches_of_org(), before);
    free(stay);
    free(today);
}

static void trip_watch_resolves_its_destination(void **state)
{
    char body[2048], path[256], *stay = we_stay(40, 42);
    e2e_resp *r, *p;
    json_t *w;
    const char *plc;
    (void)state;
    snprintf(body, sizeof(body), "{\"destination\":\"London\",%s,\"trigger\":{\"type\":"
             "\"below_total\",\"amount\":1}}", stay);
    r = we_call(key, "POST", WE_TRIPS, body);
    fe_expect(r, 201, "a trip watch by text");
    w = fe_data(r);
    assert_string_equal(fe_s(w, "kind"), "trip");
    assert_string_equal(fe_s(w, "destination"), "London");
    plc = fe_s(json_object_get(w, "place"), "id");
    assert_true(plc && strncmp(plc, "plc_", 4) == 0);
    assert_string_equal(fe_s(json_object_get(w, "place"), "country_code"), "GB");
    /* The place is the organization's saved destination. */
    snprintf(path, sizeof(path), "/v1/hotel/places/%s", plc);
    p = we_call(key, "GET", path, NULL);
    fe_expect(p, 200, "the saved place");
    e2e_free(p);
    snprintf(body, sizeof(body), "{\"destination\":\"%s\",%s,\"trigger\":{\"type\":"
             "\"below_total\",\"amount\":1}}", plc, stay);
    p = we_call(key, "POST", WE_TRIPS, body);
    fe_expect(p, 201, "a trip watch by place id");
    assert_string_equal(fe_s(json_object_get(fe_data(p), "place"), "id"), plc);
    e2e_free(p);
    /* Another organization cannot use that place. */
    p = we_call(other, "POST", WE_TRIPS, body);
    e2e_assert_error(p, 422, "validation_failed");
    e2e_free(p);
    p = we_call(key, "GET", WE_TRIPS "?limit=5&offset=0", NULL);
    fe_expect(p, 200, "the trip list");
    assert_int_equal(json_array_size(fe_data(p)), 2);
    e2e_free(p);
    snprintf(path, sizeof(path), WE_TRIPS "/%s", fe_s(w, "id"));
    p = we_call(key, "GET", path, NULL);
    fe_expect(p, 200, "a trip watch");
    e2e_free(p);
    p = we_call(key2, "DELETE", path, NULL);
    e2e_assert_error(p, 404, "not_found");
    e2e_free(p);
    p = we_call(key, "DELETE", path, NULL);
    fe_expect(p, 200, "canceling a trip watch");
    assert_string_equal(fe_s(fe_data(p), "status"), "canceled");
    e2e_free(p);
    e2e_free(r);
    free(stay);
}

static void confirming_the_mandate_arms_the_watch(void **state)
{
    char path[256];
    json_t *w = we_price_watch(key, &hotel, 40, 42, hotel.cents / 2,
        ",\"auto_purchase\":{\"max_total\":1000.5,\"payment_instrument_id\":\"pi_test_visa\","
        "\"contact\":{\"first_name\":\"Ada\",\"last_name\":\"Lovelace\",\"email\":"
        "\"ada@example.com\",\"phone\":\"+441234567890\"},\"rooms\":[{\"guests\":[{"
        "\"first_name\":\"Ada\",\"last_name\":\"Lovelace\",\"type\":\"ADULT\",\"is_lead\":true},"
        "{\"first_name\":\"Charles\",\"last_name\":\"Babbage\",\"type\":\"ADULT\","
        "\"is_lead\":false}]}]}");
    const json_t *m = json_object_get(w, "mandate");
    const char *mid = fe_s(m, "id");
    e2e_resp *r;
    json_t *got;
    (void)state;
    assert_true(mid && strncmp(mid, "mdt_", 4) == 0);
    assert_string_equal(fe_s(m, "status"), "pending_confirmation");
    assert_string_equal(fe_s(w, "status"), "active");
    /* No payment details in the watch. */
    assert_null(json_object_get(json_object_get(w, "auto_purchase"), "payment_instrument_id"));
    snprintf(path, sizeof(path), "/v1/mandate/%s/confirm", mid);
    r = we_call(key2, "POST", path, "{}");
    e2e_assert_error(r, 404, "not_found");
    e2e_free(r);
    r = we_call(key, "POST", path, "{}");
    fe_expect(r, 200, "confirming");
    assert_true(json_is_null(json_object_get(r->json, "data")));
    e2e_free(r);
    got = we_get(key, WE_WATCHES, fe_s(w, "id"));
    assert_string_equal(fe_s(got, "status"), "armed");
    assert_string_equal(fe_s(json_object_get(got, "mandate"), "status"), "confirmed");
    json_decref(got);
    r = we_call(key, "POST", path, "{}");
    fe_expect(r, 200, "confirming again");
    e2e_free(r);
    json_decref(w);
}

/* The mandate's rooms are prebooked when the watch buys: a party prebook
 * would refuse is refused at creation with prebook's rules (it was 201,
 * confirmable, and failed only at purchase with prebook_validation_failed),
 * and stores nothing. */
static void a_mandate_that_prebook_would_refuse_is_422(void **state)
{
    static const char *const cases[][2] = {
        /* the only lead is a CHILD */
        {"[{\"guests\":[{\"first_name\":\"Tim\",\"last_name\":\"Lovelace\",\"type\":"
         "\"CHILD\",\"is_lead\":true}]}]", "auto_purchase.rooms[0].guests[0].is_lead"},
        /* two rooms for a stay of one */
        {"[{\"guests\":[{\"first_name\":\"Ada\",\"last_name\":\"Lovelace\",\"is_lead\":"
         "true}]},{\"guests\":[{\"first_name\":\"Bob\",\"last_name\":\"Lovelace\","
         "\"is_lead\":true}]}]", "auto_purchase.rooms"},
        /* three adults in a room of two */
        {"[{\"guests\":[{\"first_name\":\"Ada\",\"last_name\":\"L\",\"is_lead\":true},"
         "{\"first_name\":\"Bob\",\"last_name\":\"L\",\"is_lead\":false},"
         "{\"first_name\":\"Cy\",\"last_name\":\"L\",\"is_lead\":false}]}]",
         "auto_purchase.rooms[0].guests"},
        /* a child in a room priced for adults only */
        {"[{\"guests\":[{\"first_name\":\"Ada\",\"last_name\":\"L\",\"is_lead\":true},"
         "{\"first_name\":\"Tim\",\"last_name\":\"L\",\"type\":\"CHILD\"}]}]",
         "auto_purchase.rooms[0].guests"},
    };
    char body[4096], *stay = we_stay(40, 42);
    const char *pm[1] = {org};
    long mandates = e2e_sql_long("SELECT count(*) FROM watch_mandates WHERE org_id = $1", 1,
                                 pm);
    long before = watches_of_org();
    size_t i;
    e2e_resp *r;
    (void)state;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        snprintf(body, sizeof(body), "{\"hotel_id\":\"%s\",%s,\"trigger\":{\"type\":"
                 "\"below_total\",\"amount\":5},\"auto_purchase\":{\"max_total\":6,"
                 "\"payment_instrument_id\":\"pi_test_visa\",\"contact\":{\"first_name\":"
                 "\"Ada\",\"last_name\":\"Lovelace\",\"email\":\"ada@example.com\","
                 "\"phone\":\"+441234567890\"},\"rooms\":%s}}", hotel.hotel_id, stay,
                 cases[i][0]);
        r = we_call(key, "POST", WE_WATCHES, body);
        e2e_assert_error(r, 422, "validation_failed");
        if (!has_detail(r, cases[i][1])) {
            fail_msg("case %zu: no detail %s in %s", i, cases[i][1], r->body);
        }
        e2e_free(r);
    }
    assert_int_equal(watches_of_org(), before);
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM watch_mandates WHERE org_id = $1", 1,
                                  pm), mandates);
    free(stay);
}

/* Amounts are read from the digits sent, with the currency's minor units:
 * a double would round these to valid amounts (they were 201, stored
 * rounded); each is a 422 naming its field, like 50.0000000001 was. */
static void amounts_beyond_a_double_are_422(void **state)
{
    static const char *const cases[][3] = {
        {"EUR", "50.000000000000001", NULL},
        {"EUR", "1.0000000000000000000001", NULL},
        {"JPY", "100.0000000000000001", NULL},
        {"EUR", "50.0000000001", NULL},
        {"EUR", "5", "60.000000000000001"},
        {"JPY", "5", "1e-30"},
    };
    char body[4096], stay[512];
    long before = watches_of_org();
    size_t i;
    e2e_resp *r;
    (void)state;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        snprintf(stay, sizeof(stay), "\"check_in\":\"%s\",\"check_out\":\"%s\","
                 "\"occupancy\":[{\"adults\":1}],\"guest_nationality\":\"GB\","
                 "\"currency\":\"%s\"", fe_date(40), fe_date(42), cases[i][0]);
        snprintf(body, sizeof(body), "{\"hotel_id\":\"%s\",%s,\"trigger\":{\"type\":"
                 "\"below_total\",\"amount\":%s}%s%s%s}", hotel.hotel_id, stay, cases[i][1],
                 cases[i][2] ? ",\"auto_purchase\":{\"max_total\":" : "",
                 cases[i][2] ? cases[i][2] : "",
                 cases[i][2] ? ",\"payment_instrument_id\":\"pi_test_visa\",\"contact\":{"
                               "\"first_name\":\"Ada\",\"last_name\":\"Lovelace\",\"email\":"
                               "\"ada@example.com\",\"phone\":\"+441234567890\"},\"rooms\":[{"
                               "\"guests\":[{\"first_name\":\"Ada\",\"last_name\":"
                               "\"Lovelace\",\"is_lead\":true}]}]}" : "");
        r = we_call(key, "POST", WE_WATCHES, body);
        if (r->status != 422 || !has_detail(r, cases[i][2] ? "auto_purchase.max_total"
                                                            : "trigger.amount")) {
            fail_msg("%s %s / %s: %ld %s", cases[i][0], cases[i][1],
                     cases[i][2] ? cases[i][2] : "-", r->status, r->body);
        }
        e2e_free(r);
    }
    assert_int_equal(watches_of_org(), before);
    /* The same amounts with digits a double keeps exactly pass. */
    snprintf(stay, sizeof(stay), "\"check_in\":\"%s\",\"check_out\":\"%s\","
             "\"occupancy\":[{\"adults\":1}],\"guest_nationality\":\"GB\","
             "\"currency\":\"JPY\"", fe_date(40), fe_date(42));
    snprintf(body, sizeof(body), "{\"hotel_id\":\"%s\",%s,\"trigger\":{\"type\":"
             "\"below_total\",\"amount\":1.00000000000000000000e2}}", hotel.hotel_id, stay);
    r = we_call(key, "POST", WE_WATCHES, body);
    fe_expect(r, 201, "a JPY watch of 100 written with an exponent");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(fe_data(r), "trigger"),
                                                        "amount")), 100);
    e2e_free(r);
}

static void a_watch_expires_at_check_in(void **state)
{
    json_t *w = we_price_watch(key, &hotel, 40, 42, hotel.cents / 2, NULL), *got;
    const char *p[1] = {fe_s(w, "id")};
    long t0 = e2e_now_ms();
    (void)state;
    /* Check-in reached (moved to today in the database). */
    e2e_sql_exec("UPDATE watches SET check_in = (now() AT TIME ZONE 'UTC')::date "
                 "WHERE id = $1", 1, p);
    got = we_get(key, WE_WATCHES, p[0]);
    assert_string_equal(fe_s(got, "status"), "expired");
    json_decref(got);
    while (e2e_sql_long("SELECT count(*) FROM watches WHERE id = $1 AND status = 'expired'", 1,
                        p) != 1) {
        assert_true(e2e_now_ms() - t0 < 30000);
        e2e_sleep_ms(200);
    }
    json_decref(w);
}

/* The watches these tests leave active would be checked every second for
 * the rest of the run: canceled, through the API, when done. */
static void cancel_what_is_left(void)
{
    const char *bases[2] = {WE_WATCHES, WE_TRIPS};
    int k;
    size_t i;
    for (k = 0; k < 2; k++) {
        char path[256];
        e2e_resp *r;
        snprintf(path, sizeof(path), "%s?limit=100", bases[k]);
        r = we_call(key, "GET", path, NULL);
        for (i = 0; r->status == 200 && i < json_array_size(fe_data(r)); i++) {
            const json_t *w = json_array_get(fe_data(r), i);
            if (strcmp(fe_s(w, "status"), "active") == 0
                || strcmp(fe_s(w, "status"), "armed") == 0) {
                e2e_resp *d;
                snprintf(path, sizeof(path), "%s/%s", bases[k], fe_s(w, "id"));
                d = we_call(key, "DELETE", path, NULL);
                e2e_free(d);
            }
        }
        e2e_free(r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(price_watch_lives_in_its_users_scope, setup),
        cmocka_unit_test(malformed_watches_are_refused_and_store_nothing),
        cmocka_unit_test(trip_watch_resolves_its_destination),
        cmocka_unit_test(confirming_the_mandate_arms_the_watch),
        cmocka_unit_test(a_mandate_that_prebook_would_refuse_is_422),
        cmocka_unit_test(amounts_beyond_a_double_are_422),
        cmocka_unit_test(a_watch_expires_at_check_in),
    };
    int rc = E2E_RUN("watch_api", tests);
    cancel_what_is_left();
    return rc;
}
