/* POST /v1/flight/offers and GET /v1/flight/offers/{offer_reference}/bags
 * through httpd to the sandbox suppliers: the offer fields of the service
 * document, meta.supplier (routed or chosen), meta.truncated,
 * meta.unsupported_filters, the gateway's filters, validation, and bags
 * (with offer references bound to the organization that searched). */
#include "flight_e2e.h"

static char *key, *other_key;

static int setup(void **state)
{
    (void)state;
    key = e2e_new_org_key("searcher", NULL);
    other_key = e2e_new_org_key("searcher", NULL);
    return 0;
}

static int is_local_time(const char *s)
{
    /* 2026-12-01T07:35:00: no zone */
    return s && strlen(s) == 19 && s[10] == 'T' && s[4] == '-' && s[13] == ':';
}

static void offer_fields(void **state)
{
    e2e_resp *r = fe_search(key, "SUPPLIER_A", "LHR", "JFK", 30, 1, "");
    json_t *o, *j, *s, *meta;
    (void)state;
    fe_expect(r, 200, "search");
    meta = json_object_get(r->json, "meta");
    assert_string_equal(fe_s(meta, "supplier"), "SUPPLIER_A");
    assert_true(json_is_array(json_object_get(meta, "unsupported_filters")));
    assert_true(json_array_size(fe_data(r)) > 0);
    o = json_array_get(fe_data(r), 0);
    assert_non_null(fe_s(o, "offer_reference"));
    assert_true(json_is_number(json_object_get(json_object_get(o, "total_amount"), "amount")));
    assert_int_equal(strlen(fe_s(json_object_get(o, "total_amount"), "currency")), 3);
    assert_non_null(fe_s(o, "expires_at"));
    assert_non_null(fe_s(o, "fare_family"));
    assert_true(json_is_boolean(json_object_get(o, "refundable")));
    assert_true(json_is_object(json_object_get(o, "fare_conditions")));
    assert_true(json_is_boolean(json_object_get(o, "documents_required")));
    assert_true(json_is_boolean(json_object_get(json_object_get(o, "included_baggage"),
                                                "checked")));
    assert_true(json_is_integer(json_object_get(o, "total_duration_minutes")));
    j = json_array_get(json_object_get(o, "journeys"), 0);
    assert_string_equal(fe_s(j, "origin"), "LHR");
    assert_string_equal(fe_s(j, "destination"), "JFK");
    assert_true(is_local_time(fe_s(j, "departure_time")));
    assert_true(is_local_time(fe_s(j, "arrival_time")));
    assert_true(json_is_integer(json_object_get(j, "stops")));
    s = json_array_get(json_object_get(j, "segments"), 0);
    assert_string_equal(fe_s(s, "origin"), "LHR");
    assert_non_null(fe_s(s, "marketing_carrier"));
    assert_int_equal(strlen(fe_s(s, "marketing_carrier_code")), 2);
    assert_non_null(fe_s(s, "marketing_flight"));
    assert_non_null(fe_s(s, "cabin_class"));
    assert_true(json_integer_value(json_object_get(s, "duration_minutes")) > 0);
    e2e_free(r);
}

static void routed_and_chosen_supplier(void **state)
{
    e2e_resp *r;
    (void)state;
    /* No supplier: the first configured one (SUPPLIER_A in the test stack). */
    r = fe_search(key, NULL, "LHR", "JFK", 31, 1, "");
    fe_expect(r, 200, "routed search");
    assert_string_equal(fe_s(json_object_get(r->json, "meta"), "supplier"), "SUPPLIER_A");
    e2e_free(r);
    r = fe_search(key, "SUPPLIER_B", "LHR", "JFK", 31, 1, "");
    fe_expect(r, 200, "search at B");
    assert_string_equal(fe_s(json_object_get(r->json, "meta"), "supplier"), "SUPPLIER_B");
    assert_true(json_array_size(fe_data(r)) > 0);
    e2e_free(r);
}

static void limit_and_truncated(void **state)
{
    e2e_resp *r = fe_search(key, "SUPPLIER_A", "LHR", "JFK", 32, 1, ",\"limit\":1");
    json_t *meta;
    (void)state;
    fe_expect(r, 200, "search limit 1");
    assert_int_equal(json_array_size(fe_data(r)), 1);
    meta = json_object_get(r->json, "meta");
    assert_true(json_is_true(json_object_get(meta, "truncated")));
    e2e_free(r);
    /* Everything fits: truncated does not appear. */
    r = fe_search(key, "SUPPLIER_A", "LHR", "JFK", 32, 1, ",\"limit\":100");
    fe_expect(r, 200, "search limit 100");
    if (json_array_size(fe_data(r)) < 100) {
        assert_null(json_object_get(json_object_get(r->json, "meta"), "truncated"));
    }
    e2e_free(r);
}

static void filters(void **state)
{
    e2e_resp *r;
    json_t *offers, *meta;
    size_t i, j, k;
    (void)state;
    /* price is listed, not refused. */
    r = fe_search(key, "SUPPLIER_A", "LHR", "JFK", 33, 1,
                  ",\"filters\":{\"price\":{\"max\":100}}");
    fe_expect(r, 200, "price filter");
    meta = json_object_get(r->json, "meta");
    assert_string_equal(json_string_value(json_array_get(
        json_object_get(meta, "unsupported_filters"), 0)), "price");
    e2e_free(r);
    /* Non-stop only, and only BA-marketed segments. */
    r = fe_search(key, "SUPPLIER_A", "LHR", "JFK", 33, 1,
                  ",\"filters\":{\"max_stops\":0,\"carriers\":[\"BA\"]}");
    fe_expect(r, 200, "stops and carriers");
    offers = fe_data(r);
    for (i = 0; i < json_array_size(offers); i++) {
        json_t *js = json_object_get(json_array_get(offers, i), "journeys");
        for (j = 0; j < json_array_size(js); j++) {
            json_t *segs = json_object_get(json_array_get(js, j), "segments");
            assert_int_equal(json_integer_value(json_object_get(json_array_get(js, j),
                                                                "stops")), 0);
            for (k = 0; k < json_array_size(segs); k++) {
                assert_string_equal(fe_s(json_array_get(segs, k), "marketing_carrier_code"),
                                    "BA");
            }
        }
    }
    assert_int_equal(json_array_size(json_object_get(json_object_get(r->json, "meta"),
                                                     "unsupported_filters")), 0);
    e2e_free(r);
}

static void expect_invalid(const char *body, const char *field)
{
    e2e_resp *r = e2e_post(key, "/v1/flight/offers", body);
    json_t *d = json_object_get(json_object_get(r->json, "error"), "details");
    size_t i;
    int found = 0;
    e2e_assert_error(r, 422, "validation_failed");
    for (i = 0; i < json_array_size(d); i++) {
        found |= strcmp(fe_s(json_array_get(d, i), "field"), field) == 0;
    }
    if (!found) {
        fail_msg("no detail on %s: %s", field, r->body);
    }
    e2e_free(r);
}

static void validation(void **state)
{
    char body[512];
    (void)state;
    expect_invalid("{}", "journeys");
    expect_invalid("{\"journeys\":[{\"origin\":\"LHR\",\"destination\":\"JFK\"}],"
                   "\"passengers\":{\"adults\":1}}", "journeys[0].date");
    snprintf(body, sizeof(body), "{\"journeys\":[{\"origin\":\"lhr\",\"destination\":\"JFK\","
             "\"date\":\"%s\"}],\"passengers\":{\"adults\":1}}", fe_date(30));
    expect_invalid(body, "journeys[0].origin");
    snprintf(body, sizeof(body), "{\"journeys\":[{\"origin\":\"LHR\",\"destination\":\"JFK\","
             "\"date\":\"%s\"}],\"passengers\":{\"adults\":1}}", fe_date(-5));
    expect_invalid(body, "journeys[0].date");
    snprintf(body, sizeof(body), "{\"journeys\":[{\"origin\":\"LHR\",\"destination\":\"JFK\","
             "\"date\":\"%s\"}],\"passengers\":{\"adults\":0}}", fe_date(30));
    expect_invalid(body, "passengers.adults");
    snprintf(body, sizeof(body), "{\"journeys\":[{\"origin\":\"LHR\",\"destination\":\"JFK\","
             "\"date\":\"%s\"}],\"passengers\":{\"adults\":1},\"supplier\":\"SUPPLIER_Z\"}",
             fe_date(30));
    expect_invalid(body, "supplier");
    snprintf(body, sizeof(body), "{\"journeys\":[{\"origin\":\"LHR\",\"destination\":\"JFK\","
             "\"date\":\"%s\"}],\"passengers\":{\"adults\":1},\"limit\":101}", fe_date(30));
    expect_invalid(body, "limit");
    snprintf(body, sizeof(body), "{\"journeys\":[{\"origin\":\"LHR\",\"destination\":\"JFK\","
             "\"date\":\"%s\"}],\"passengers\":{\"adults\":1},\"filters\":{\"wifi\":true}}",
             fe_date(30));
    expect_invalid(body, "filters.wifi");
}

static void bags_of_an_offer(void **state)
{
    char *ref = fe_offer_ref(key, "SUPPLIER_A", 34), path[1024];
    e2e_resp *r;
    json_t *bags;
    size_t i;
    (void)state;
    snprintf(path, sizeof(path), "/v1/flight/offers/%s/bags", ref);
    r = e2e_get(key, path);
    fe_expect(r, 200, "bags");
    bags = fe_data(r);
    assert_true(json_is_array(bags));
    for (i = 0; i < json_array_size(bags); i++) {
        json_t *b = json_array_get(bags, i);
        assert_true(strncmp(fe_s(b, "id"), "bag_", 4) == 0);
        assert_string_equal(fe_s(b, "type"), "BAGGAGE");
        assert_non_null(fe_s(json_object_get(b, "baggage"), "type"));
        assert_true(json_is_number(json_object_get(json_object_get(b, "unit_amount"),
                                                   "amount")));
    }
    e2e_free(r);
    /* Another organization's reference is nobody's offer there. */
    r = e2e_get(other_key, path);
    e2e_assert_error(r, 404, "not_found");
    e2e_free(r);
    r = e2e_get(key, "/v1/flight/offers/bm90LWFuLW9mZmVyLXJlZmVyZW5jZS1hdC1hbGw/bags");
    e2e_assert_error(r, 404, "not_found");
    e2e_free(r);
    free(ref);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(offer_fields, setup),
        cmocka_unit_test(routed_and_chosen_supplier),
        cmocka_unit_test(limit_and_truncated),
        cmocka_unit_test(filters),
        cmocka_unit_test(validation),
        cmocka_unit_test(bags_of_an_offer),
    };
    return E2E_RUN("flight offers and bags", tests);
}
