/* Hotel offers over real HTTP, against the three sandbox hotel suppliers:
 * POST /v1/hotel/offers by the service's hotel ids prices each hotel with
 * the first configured supplier that sells it (the offer names it), the
 * cheapest offer at the price the search showed for the same supplier,
 * one entry per room; by one supplier's own ids it prices those hotels at
 * that supplier and names their htl_ ids; limits (hotels, offers per
 * hotel, nights) and malformed requests are a 422 naming the field; a
 * supplier failing is a 502, one not answering in time a 504. */
#include "hotel_e2e.h"

#include <ctype.h>

static char *key;
static json_t *london;   /* every London hotel of a two-room search */

#define LONDON "{\"city\":\"London\",\"country_code\":\"GB\"}"
#define STAY_FMT "\"check_in\":\"%s\",\"check_out\":\"%s\",\"occupancy\":[{\"adults\":2}," \
                 "{\"adults\":1,\"children\":[5]}],\"guest_nationality\":\"GB\"," \
                 "\"guest_residence\":\"GB\",\"currency\":\"EUR\""

static char *stay_fields(void)
{
    char *b = malloc(512);
    snprintf(b, 512, STAY_FMT, fe_date(40), fe_date(42));
    return b;
}

static int setup(void **state)
{
    char *stay = stay_fields(), body[1024];
    int pages;
    (void)state;
    key = e2e_new_org_key("hotel-offers", NULL);
    snprintf(body, sizeof(body), "{\"destination\":%s,%s,\"limit\":50}", LONDON, stay);
    london = he_search_all(key, body, 50, &pages);
    free(stay);
    return json_array_size(london) > 30 ? 0 : -1;
}

/* The first London hotel whose cheapest supplier is sup and whose sellers
 * are exactly those listed in sellers ("SUPPLIER_A,SUPPLIER_C"). */
static const json_t *hotel_with(const char *sup, const char *sellers)
{
    size_t i, k;
    const json_t *h, *s;
    json_array_foreach(london, i, h) {
        char list[128] = "";
        json_array_foreach(json_object_get(h, "suppliers"), k, s) {
            if (k) {
                strcat(list, ",");
            }
            strcat(list, json_string_value(s));
        }
        if (strcmp(fe_s(h, "supplier"), sup) == 0 && strcmp(list, sellers) == 0) {
            return h;
        }
    }
    fail_msg("no London hotel sold by %s, cheapest at %s", sellers, sup);
    return NULL;
}

static e2e_resp *offers(const char *names, const char *extra)
{
    char *stay = stay_fields(), body[2048];
    e2e_resp *r;
    snprintf(body, sizeof(body), "{%s,%s%s}", names, stay, extra);
    r = he_post(key, NULL, "/v1/hotel/offers", body);
    free(stay);
    return r;
}

static const json_t *total_of(const json_t *o)
{
    return json_object_get(o, "total");
}

/* Every offer well formed for the two-room stay. */
static void well_formed(const json_t *o)
{
    const json_t *rooms = json_object_get(o, "rooms"), *room;
    const char *ref = fe_s(o, "offer_reference");
    size_t i;
    long sum = 0;
    assert_non_null(ref);
    for (i = 0; ref[i]; i++) {
        assert_true(isalnum((unsigned char)ref[i]) || ref[i] == '-' || ref[i] == '_');
    }
    assert_string_equal(fe_s(total_of(o), "currency"), "EUR");
    assert_true(json_number_value(json_object_get(total_of(o), "amount")) > 0);
    assert_true(strcmp(fe_s(o, "expires_at"), fe_date(0)) >= 0);
    assert_true(json_is_boolean(json_object_get(json_object_get(o, "cancellation_policy"),
                                                "refundable")));
    assert_int_equal(json_array_size(rooms), 2);
    json_array_foreach(rooms, i, room) {
        assert_int_equal(json_integer_value(json_object_get(room, "position")), (long)i);
        assert_int_equal(json_integer_value(json_object_get(room, "adults")), i ? 1 : 2);
        assert_int_equal(json_array_size(json_object_get(room, "children")), i ? 1 : 0);
        /* Every supplier prices room by room; the rooms add up to the total. */
        assert_true(json_is_object(json_object_get(room, "total")));
        sum += he_minor(json_object_get(room, "total"));
    }
    assert_int_equal(sum, he_minor(total_of(o)));
}

/* One hotel from each supplier's side: priced by the first configured
 * supplier that sells it, cheapest first, the cheapest at the price the
 * search showed when the search's cheapest supplier is that one. */
static void by_hotel_ids_across_suppliers(void **state)
{
    const json_t *ha = hotel_with("SUPPLIER_A", "SUPPLIER_A,SUPPLIER_B,SUPPLIER_C");
    const json_t *hb = hotel_with("SUPPLIER_B", "SUPPLIER_B,SUPPLIER_C");
    const json_t *hc = hotel_with("SUPPLIER_C", "SUPPLIER_C");
    const json_t *named[3] = {ha, hb, hc};
    static const char *const by[3] = {"SUPPLIER_A", "SUPPLIER_B", "SUPPLIER_C"};
    char names[512];
    e2e_resp *r;
    const json_t *o;
    size_t i;
    int seen[3] = {0, 0, 0}, at = 0;
    double last = 0;
    (void)state;
    snprintf(names, sizeof(names), "\"hotel_ids\":[\"%s\",\"%s\",\"%s\"]", fe_s(ha, "hotel_id"),
             fe_s(hb, "hotel_id"), fe_s(hc, "hotel_id"));
    r = offers(names, ",\"max_offers_per_hotel\":3");
    fe_expect(r, 200, "offers by hotel ids");
    json_array_foreach(fe_data(r), i, o) {
        double amount = json_number_value(json_object_get(total_of(o), "amount"));
        well_formed(o);
        /* In the order named, each hotel's cheapest first. */
        while (at < 3 && strcmp(fe_s(o, "hotel_id"), fe_s(named[at], "hotel_id")) != 0) {
            at++;
            last = 0;
        }
        assert_true(at < 3);
        assert_string_equal(fe_s(o, "supplier"), by[at]);
        assert_true(amount >= last);
        if (!seen[at]) {
            /* The search's cheapest at this very supplier. */
            assert_true(json_equal((json_t *)total_of(o), json_object_get(
                json_object_get(named[at], "cheapest_price"), "total")));
            assert_string_equal(fe_s(o, "supplier_hotel_id"), fe_s(named[at], "supplier_hotel_id"));
        }
        last = amount;
        seen[at]++;
    }
    for (i = 0; i < 3; i++) {
        assert_true(seen[i] >= 1 && seen[i] <= 3);
    }
    e2e_free(r);
}

/* A supplier's own ids: priced there, with the service's ids. */
static void by_supplier_ids(void **state)
{
    const json_t *hb = hotel_with("SUPPLIER_B", "SUPPLIER_B,SUPPLIER_C");
    char names[512];
    e2e_resp *r;
    const json_t *o;
    size_t i;
    (void)state;
    snprintf(names, sizeof(names), "\"supplier\":\"SUPPLIER_C\",\"supplier_hotel_ids\":[\"%s\","
             "\"99999999\"]", "00000000");
    /* Ids the supplier does not sell: no offers, no error. */
    r = offers(names, "");
    fe_expect(r, 200, "offers for hotels the supplier does not sell");
    assert_int_equal(json_array_size(fe_data(r)), 0);
    e2e_free(r);
    snprintf(names, sizeof(names), "\"supplier\":\"SUPPLIER_B\",\"supplier_hotel_ids\":[\"%s\"]",
             fe_s(hb, "supplier_hotel_id"));
    r = offers(names, ",\"max_offers_per_hotel\":25");
    fe_expect(r, 200, "offers by supplier ids");
    assert_true(json_array_size(fe_data(r)) > 3 && json_array_size(fe_data(r)) <= 25);
    json_array_foreach(fe_data(r), i, o) {
        well_formed(o);
        assert_string_equal(fe_s(o, "supplier"), "SUPPLIER_B");
        assert_string_equal(fe_s(o, "hotel_id"), fe_s(hb, "hotel_id"));
        assert_string_equal(fe_s(o, "supplier_hotel_id"), fe_s(hb, "supplier_hotel_id"));
    }
    e2e_free(r);
}

static void expect_invalid(const char *names, const char *extra, const char *field,
                           const char *reason_part)
{
    e2e_resp *r = offers(names, extra);
    const json_t *d;
    size_t i;
    int found = 0;
    e2e_assert_error(r, 422, "validation_failed");
    json_array_foreach(json_object_get(json_object_get(r->json, "error"), "details"), i, d) {
        if (strcmp(fe_s(d, "field"), field) == 0
            && (!reason_part || strstr(fe_s(d, "reason"), reason_part))) {
            found = 1;
        }
    }
    if (!found) {
        fail_msg("expected a detail on %s (%s): %s", field, reason_part ? reason_part : "",
                 r->body);
    }
    e2e_free(r);
}

static void limits_and_bad_requests_are_422(void **state)
{
    const json_t *ha = hotel_with("SUPPLIER_A", "SUPPLIER_A,SUPPLIER_B,SUPPLIER_C");
    char names[2048] = "\"hotel_ids\":[", one[256];
    size_t i;
    (void)state;
    for (i = 0; i < 11; i++) {
        strcat(names, i ? ",\"" : "\"");
        strcat(names, fe_s(json_array_get(london, i), "hotel_id"));
        strcat(names, "\"");
    }
    strcat(names, "]");
    expect_invalid(names, "", "hotel_ids", "at most 10");
    snprintf(one, sizeof(one), "\"hotel_ids\":[\"%s\"]", fe_s(ha, "hotel_id"));
    expect_invalid(one, ",\"max_offers_per_hotel\":26", "max_offers_per_hotel", "1 to 25");
    expect_invalid(one, ",\"max_offers_per_hotel\":0", "max_offers_per_hotel", NULL);
    snprintf(one, sizeof(one), "\"hotel_ids\":[\"%s\",\"%s\"]", fe_s(ha, "hotel_id"),
             fe_s(ha, "hotel_id"));
    expect_invalid(one, "", "hotel_ids[1]", "twice");
    expect_invalid("\"hotel_ids\":[\"htl_0000-unknown\"]", "", "hotel_ids[0]", "search first");
    expect_invalid("\"hotel_ids\":[\"lp212874\"]", "", "hotel_ids[0]", NULL);
    snprintf(one, sizeof(one), "\"hotel_ids\":[\"%s\"],\"supplier\":\"SUPPLIER_A\","
             "\"supplier_hotel_ids\":[\"lp1\"]", fe_s(ha, "hotel_id"));
    expect_invalid(one, "", "hotel_ids", "not both");
    expect_invalid("\"supplier\":\"SUPPLIER_Q\",\"supplier_hotel_ids\":[\"x\"]", "", "supplier",
                   NULL);
    expect_invalid("\"supplier\":\"SUPPLIER_A\",\"supplier_hotel_ids\":[\"a,b\"]", "",
                   "supplier_hotel_ids[0]", NULL);
    /* 100 nights: over the API's and every supplier's max_nights. */
    {
        char body[1024];
        e2e_resp *r;
        snprintf(body, sizeof(body), "{\"hotel_ids\":[\"%s\"],\"check_in\":\"%s\","
                 "\"check_out\":\"%s\",\"occupancy\":[{\"adults\":2}],\"guest_nationality\":"
                 "\"GB\",\"guest_residence\":\"GB\",\"currency\":\"EUR\"}",
                 fe_s(ha, "hotel_id"), fe_date(10), fe_date(110));
        r = he_post(key, NULL, "/v1/hotel/offers", body);
        e2e_assert_error(r, 422, "validation_failed");
        assert_non_null(strstr(r->body, "\"field\":\"check_out\""));
        e2e_free(r);
    }
}

static void expect_failure(const char *api, const json_t *h, const char *spec, long status,
                           const char *code)
{
    char *rid = fe_rid("hoffers", api), *stay = stay_fields(), body[1024];
    e2e_resp *r;
    snprintf(body, sizeof(body), "{\"hotel_ids\":[\"%s\"],%s}", fe_s(h, "hotel_id"), stay);
    fe_fault(api, rid, spec);
    r = he_post(key, rid, "/v1/hotel/offers", body);
    e2e_assert_error(r, status, code);
    assert_string_equal(fe_s(json_object_get(r->json, "error"), "request_id"), rid);
    assert_int_equal(fe_fault_hits(rid), 1);
    e2e_free(r);
    free(stay);
    free(rid);
}

static void supplier_failures_are_502_and_504(void **state)
{
    (void)state;
    expect_failure("hotel_a", hotel_with("SUPPLIER_A", "SUPPLIER_A,SUPPLIER_B,SUPPLIER_C"),
                   "\"action\":\"error\",\"status\":503", 502, "supplier_error");
    expect_failure("hotel_b", hotel_with("SUPPLIER_B", "SUPPLIER_B,SUPPLIER_C"),
                   "\"action\":\"garbage\",\"status\":200", 502, "supplier_error");
    expect_failure("hotel_c", hotel_with("SUPPLIER_C", "SUPPLIER_C"),
                   "\"action\":\"respond\",\"delay_ms\":8000", 504, "supplier_timeout");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(by_hotel_ids_across_suppliers, setup),
        cmocka_unit_test(by_supplier_ids),
        cmocka_unit_test(limits_and_bad_requests_are_422),
        cmocka_unit_test(supplier_failures_are_502_and_504),
    };
    return e2e_run("hotel offers", tests, sizeof(tests) / sizeof(tests[0]));
}
