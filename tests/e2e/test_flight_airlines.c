/* The airline directory: GET /v1/flight/airlines (seeded from OpenFlights
 * airlines.dat; q a literal case-insensitive substring of name, IATA or ICAO
 * code; limit; active_only; alliance; ordered by IATA code; meta.truncated)
 * and GET /v1/flight/airlines/{iata_code}, which imports a carrier missing
 * from the directory from the supplier. */
#include "flight_e2e.h"

static char *key;

static int setup(void **state)
{
    (void)state;
    key = e2e_new_org_key("airlines", NULL);
    return 0;
}

static e2e_resp *list(const char *query)
{
    char path[512];
    snprintf(path, sizeof(path), "/v1/flight/airlines%s", query);
    return e2e_get(key, path);
}

static void ordered_limited_truncated(void **state)
{
    e2e_resp *r = list("");
    json_t *data, *a;
    size_t i;
    (void)state;
    fe_expect(r, 200, "list");
    data = fe_data(r);
    assert_int_equal(json_array_size(data), 20);
    assert_true(json_is_true(json_object_get(json_object_get(r->json, "meta"), "truncated")));
    for (i = 1; i < json_array_size(data); i++) {
        assert_true(strcmp(fe_s(json_array_get(data, i - 1), "iata_code"),
                           fe_s(json_array_get(data, i), "iata_code")) < 0);
        assert_true(json_is_true(json_object_get(json_array_get(data, i), "is_active")));
    }
    a = json_array_get(data, 0);
    assert_non_null(fe_s(a, "id"));
    assert_non_null(fe_s(a, "name"));
    assert_true(strncmp(fe_s(a, "logo_url"), "https://", 8) == 0);
    assert_true(json_object_get(a, "icao_code") && json_object_get(a, "country")
                && json_object_get(a, "alliance"));
    e2e_free(r);
    r = list("?limit=100");
    assert_int_equal(json_array_size(fe_data(r)), 100);
    e2e_free(r);
}

static void search(void **state)
{
    e2e_resp *r;
    json_t *a = NULL;
    size_t i;
    (void)state;
    /* By IATA code, ICAO code or name; case-insensitive. */
    r = list("?q=lufthansa&limit=100");
    fe_expect(r, 200, "q by name");
    for (i = 0; i < json_array_size(fe_data(r)); i++) {
        a = json_array_get(fe_data(r), i);
        if (strcmp(fe_s(a, "iata_code"), "LH") == 0) {
            break;
        }
    }
    assert_true(i < json_array_size(fe_data(r)));
    assert_string_equal(fe_s(a, "icao_code"), "DLH");
    assert_string_equal(fe_s(a, "country"), "Germany");
    assert_string_equal(fe_s(a, "alliance"), "Star Alliance");
    e2e_free(r);
    r = list("?q=BAW");
    fe_expect(r, 200, "q by ICAO code");
    assert_string_equal(fe_s(json_array_get(fe_data(r), 0), "iata_code"), "BA");
    assert_true(json_is_false(json_object_get(json_object_get(r->json, "meta"), "truncated")));
    e2e_free(r);
    /* Literal: % is not a wildcard. */
    r = list("?q=%25");
    fe_expect(r, 200, "literal q");
    assert_int_equal(json_array_size(fe_data(r)), 0);
    e2e_free(r);
}

static void alliance_and_inactive(void **state)
{
    e2e_resp *r;
    size_t i;
    int saw_inactive = 0;
    (void)state;
    r = list("?alliance=ONEWORLD&limit=100");
    fe_expect(r, 200, "alliance");
    assert_true(json_array_size(fe_data(r)) >= 10);
    for (i = 0; i < json_array_size(fe_data(r)); i++) {
        assert_string_equal(fe_s(json_array_get(fe_data(r), i), "alliance"), "oneworld");
    }
    e2e_free(r);
    r = list("?alliance=one");
    assert_int_equal(json_array_size(fe_data(r)), 0); /* exact match */
    e2e_free(r);
    r = list("?active_only=false&limit=100&q=air");
    fe_expect(r, 200, "inactive too");
    for (i = 0; i < json_array_size(fe_data(r)); i++) {
        saw_inactive |= json_is_false(json_object_get(json_array_get(fe_data(r), i),
                                                      "is_active"));
    }
    assert_true(saw_inactive);
    e2e_free(r);
}

static void validation(void **state)
{
    const char *bad[][2] = {{"?limit=0", "limit"}, {"?limit=101", "limit"},
                            {"?q=", "q"}, {"?active_only=yes", "active_only"},
                            {"?alliance=", "alliance"}, {"?country=DE", "country"}};
    char q[200];
    size_t i;
    e2e_resp *r;
    (void)state;
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        r = list(bad[i][0]);
        e2e_assert_error(r, 422, "validation_failed");
        assert_non_null(strstr(r->body, bad[i][1]));
        e2e_free(r);
    }
    memcpy(q, "?q=", 3);
    memset(q + 3, 'a', 101);
    q[104] = '\0';
    r = list(q);
    e2e_assert_error(r, 422, "validation_failed");
    e2e_free(r);
}

static void one_airline_and_import(void **state)
{
    e2e_resp *r;
    char *source;
    const char *p[1] = {"LH"};
    (void)state;
    r = e2e_get(key, "/v1/flight/airlines/ba");
    fe_expect(r, 200, "one airline");
    assert_string_equal(fe_s(fe_data(r), "iata_code"), "BA");
    assert_string_equal(fe_s(fe_data(r), "name"), "British Airways");
    e2e_free(r);
    /* Missing from the directory: imported from the supplier. */
    e2e_sql_exec("DELETE FROM flight_airlines WHERE iata_code = $1", 1, p);
    r = e2e_get(key, "/v1/flight/airlines/LH");
    fe_expect(r, 200, "imported airline");
    assert_string_equal(fe_s(fe_data(r), "iata_code"), "LH");
    assert_non_null(fe_s(fe_data(r), "name"));
    e2e_free(r);
    source = e2e_sql_text("SELECT source FROM flight_airlines WHERE iata_code = $1", 1, p);
    assert_string_equal(source, "supplier");
    free(source);
    /* A code no supplier knows: 404, and nothing stored. */
    r = e2e_get(key, "/v1/flight/airlines/X0");
    e2e_assert_error(r, 404, "not_found");
    e2e_free(r);
    p[0] = "X0";
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM flight_airlines WHERE iata_code = $1",
                                  1, p), 0);
    r = e2e_get(key, "/v1/flight/airlines/Q~");
    e2e_assert_error(r, 422, "validation_failed");
    e2e_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(ordered_limited_truncated, setup),
        cmocka_unit_test(search),
        cmocka_unit_test(alliance_and_inactive),
        cmocka_unit_test(validation),
        cmocka_unit_test(one_airline_and_import),
    };
    return E2E_RUN("flight airlines", tests);
}
