/* GET /v1/flight/bookings: the service document's query table (filters,
 * sorting, pagination, validation) and owner scoping, against rows seeded
 * straight into PostgreSQL. */
#include "flight_e2e.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *key, *org, *user_id;
static char *other_user_key, *other_org_key;

/* id, status, supplier, total, currency, supplier_reference, created_at */
static const char *seed[][7] = {
    {"bkg_00000000-0000-7000-8000-000000000001", "CONFIRMED", "SUPPLIER_A", "120.5", "EUR", "ORD-A1", "2026-03-01T08:00:00.000Z"},
    {"bkg_00000000-0000-7000-8000-000000000002", "READY_FOR_COMPLETE", "SUPPLIER_B", NULL, NULL, NULL, "2026-03-01T23:59:59.999Z"},
    {"bkg_00000000-0000-7000-8000-000000000003", "CANCELED", "SUPPLIER_A", "80", "EUR", "ORD-A3", "2026-03-02T00:00:00.000Z"},
    {"bkg_00000000-0000-7000-8000-000000000004", "CONFIRMED", "SUPPLIER_B", "15000", "JPY", "ord-a1", "2026-03-03T12:30:00.250Z"},
    {"bkg_00000000-0000-7000-8000-000000000005", "FAILED", "SUPPLIER_A", "99.99", "USD", NULL, "2026-03-04T10:00:00.000Z"},
};
#define NSEED (sizeof(seed) / sizeof(seed[0]))

static int setup(void **state)
{
    const char *p[1];
    size_t i;
    char *other_org;
    (void)state;
    key = e2e_new_org_key("lister", &org);
    other_user_key = e2e_new_key(org, "someone-else");
    other_org_key = e2e_new_org_key("lister", &other_org);
    p[0] = org;
    user_id = e2e_sql_text("SELECT user_id FROM api_keys k JOIN users u ON u.id = k.user_id "
                           "WHERE k.org_id = $1 AND u.name = 'lister'", 1, p);
    for (i = 0; i < NSEED; i++) {
        /* Ids are unique per test run: the organization id makes them so. */
        char id[200];
        const char *params[9];
        snprintf(id, sizeof(id), "%s-%s", seed[i][0], org + 4);
        params[0] = id;
        params[1] = org;
        params[2] = user_id;
        params[3] = seed[i][2];
        params[4] = seed[i][1];
        params[5] = seed[i][4];
        params[6] = seed[i][3];
        params[7] = seed[i][5];
        params[8] = seed[i][6];
        e2e_sql_exec("INSERT INTO flight_bookings (id, org_id, user_id, supplier, status, "
                     "currency, total_amount, supplier_reference, created_at, updated_at) "
                     "VALUES ($1, $2, $3, $4, $5, $6, $7::numeric, $8, $9::timestamptz, "
                     "$9::timestamptz)", 9, params);
    }
    free(other_org);
    return 0;
}

/* The ordinal (1..5) of each listed booking, as a string like "54321". */
static char *order_of(const char *query, const char *k, long *total)
{
    char path[512];
    e2e_resp *r;
    static char out[16];
    size_t i;
    json_t *data;
    snprintf(path, sizeof(path), "/v1/flight/bookings%s", query);
    r = e2e_get(k, path);
    if (r->status != 200) {
        fail_msg("%s: %ld %s", path, r->status, r->body);
    }
    data = json_object_get(r->json, "data");
    out[0] = '\0';
    for (i = 0; i < json_array_size(data) && i < sizeof(out) - 1; i++) {
        const char *id = json_string_value(json_object_get(json_array_get(data, i), "id"));
        out[i] = id[strlen("bkg_00000000-0000-7000-8000-00000000000")];
        out[i + 1] = '\0';
    }
    if (total) {
        *total = (long)json_integer_value(json_object_get(
            json_object_get(json_object_get(r->json, "meta"), "pagination"), "total"));
    }
    e2e_free(r);
    return out;
}

static void newest_first_by_default(void **state)
{
    long total;
    (void)state;
    assert_string_equal(order_of("", key, &total), "54321");
    assert_int_equal(total, 5);
}

static void pagination_meta(void **state)
{
    e2e_resp *r = e2e_get(key, "/v1/flight/bookings?limit=2&offset=1");
    json_t *pg = json_object_get(json_object_get(r->json, "meta"), "pagination");
    (void)state;
    assert_int_equal(r->status, 200);
    assert_int_equal(json_array_size(json_object_get(r->json, "data")), 2);
    assert_int_equal(json_integer_value(json_object_get(pg, "limit")), 2);
    assert_int_equal(json_integer_value(json_object_get(pg, "offset")), 1);
    assert_true(json_is_true(json_object_get(pg, "has_more")));
    assert_int_equal(json_integer_value(json_object_get(pg, "total")), 5);
    e2e_free(r);
    /* The last page starts at total - limit. */
    r = e2e_get(key, "/v1/flight/bookings?limit=2&offset=3");
    pg = json_object_get(json_object_get(r->json, "meta"), "pagination");
    assert_int_equal(json_array_size(json_object_get(r->json, "data")), 2);
    assert_true(json_is_false(json_object_get(pg, "has_more")));
    e2e_free(r);
    /* Past the end: an empty page that still tells the total. */
    r = e2e_get(key, "/v1/flight/bookings?offset=50");
    pg = json_object_get(json_object_get(r->json, "meta"), "pagination");
    assert_int_equal(json_array_size(json_object_get(r->json, "data")), 0);
    assert_int_equal(json_integer_value(json_object_get(pg, "total")), 5);
    e2e_free(r);
}

/* The listed bookings, and a total that counts exactly those (every
 * filter below matches fewer rows than a page). */
static void expect_listed(const char *query, const char *want)
{
    long total = -1;
    assert_string_equal(order_of(query, key, &total), want);
    assert_int_equal(total, (long)strlen(want));
}

static void filters(void **state)
{
    (void)state;
    expect_listed("?status=CONFIRMED", "41");
    expect_listed("?supplier=SUPPLIER_B", "42");
    /* Exact match only: not partial, not case-insensitive. */
    expect_listed("?supplier_reference=ORD-A1", "1");
    expect_listed("?supplier_reference=ord-a1", "4");
    expect_listed("?supplier_reference=ORD", "");
    expect_listed("?status=CONFIRMED&supplier=SUPPLIER_A", "1");
}

static void created_range_dates_and_timestamps(void **state)
{
    (void)state;
    /* A date starts at midnight UTC (from) and covers its whole day (to). */
    expect_listed("?created_from=2026-03-02", "543");
    expect_listed("?created_to=2026-03-01", "21");
    expect_listed("?created_from=2026-03-01&created_to=2026-03-01", "21");
    /* A timestamp is used as given, to the millisecond, inclusive. */
    expect_listed("?created_to=2026-03-03T12:30:00.250Z", "4321");
    expect_listed("?created_to=2026-03-03T12:30:00.249Z", "321");
    expect_listed("?created_from=2026-03-03T12:30:00.250Z", "54");
    expect_listed("?created_from=2026-03-03T13:30:00.250%2B01:00", "54");
}

static void sort_by_total_unpriced_last(void **state)
{
    (void)state;
    /* Raw amounts, no currency conversion: 80 < 99.99 < 120.5 < 15000. */
    assert_string_equal(order_of("?sort_by=total_amount&sort_order=asc", key, NULL), "35142");
    assert_string_equal(order_of("?sort_by=total_amount&sort_order=desc", key, NULL), "41532");
    assert_string_equal(order_of("?sort_order=asc", key, NULL), "12345");
}

static void money_is_exact(void **state)
{
    e2e_resp *r = e2e_get(key, "/v1/flight/bookings?status=FAILED");
    (void)state;
    assert_non_null(strstr(r->body, "\"total_amount\":{\"amount\":99.99,\"currency\":\"USD\"}"));
    e2e_free(r);
    r = e2e_get(key, "/v1/flight/bookings?supplier=SUPPLIER_B&status=CONFIRMED");
    assert_non_null(strstr(r->body, "\"amount\":15000,\"currency\":\"JPY\""));
    e2e_free(r);
}

static void scoped_to_organization_and_user(void **state)
{
    long total;
    char path[256];
    e2e_resp *r;
    (void)state;
    assert_string_equal(order_of("", other_user_key, &total), "");
    assert_int_equal(total, 0);
    assert_string_equal(order_of("", other_org_key, &total), "");
    assert_int_equal(total, 0);
    /* A booking outside the caller's scope is a 404, not a 403. */
    snprintf(path, sizeof(path), "/v1/flight/bookings/%s-%s", seed[0][0], org + 4);
    r = e2e_get(other_user_key, path);
    e2e_assert_error(r, 404, "not_found");
    e2e_free(r);
    r = e2e_get(key, path);
    assert_int_equal(r->status, 200);
    assert_string_equal(json_string_value(json_object_get(json_object_get(r->json, "data"),
                                                          "status")), "CONFIRMED");
    e2e_free(r);
}

static void expect_invalid(const char *query, const char *field)
{
    char path[512];
    e2e_resp *r;
    json_t *details;
    size_t i;
    int found = 0;
    snprintf(path, sizeof(path), "/v1/flight/bookings%s", query);
    r = e2e_get(key, path);
    e2e_assert_error(r, 422, "validation_failed");
    details = json_object_get(json_object_get(r->json, "error"), "details");
    for (i = 0; i < json_array_size(details); i++) {
        if (strcmp(json_string_value(json_object_get(json_array_get(details, i), "field")),
                   field) == 0) {
            found = 1;
        }
    }
    if (!found) {
        fail_msg("%s: no detail for %s in %s", query, field, r->body);
    }
    e2e_free(r);
}

static void query_validation(void **state)
{
    (void)state;
    expect_invalid("?limit=0", "limit");
    expect_invalid("?limit=101", "limit");
    expect_invalid("?limit=ten", "limit");
    expect_invalid("?offset=-1", "offset");
    expect_invalid("?status=DONE", "status");
    expect_invalid("?supplier=SUPPLIER_C", "supplier");
    expect_invalid("?supplier_reference=", "supplier_reference");
    expect_invalid("?created_from=yesterday", "created_from");
    expect_invalid("?created_to=2026-02-30", "created_to");
    expect_invalid("?created_from=2026-03-05&created_to=2026-03-01", "created_from");
    expect_invalid("?sort_by=departure_date", "sort_by");
    expect_invalid("?sort_order=up", "sort_order");
    expect_invalid("?colour=blue", "colour");
    expect_invalid("?limit=5&limit=6", "limit");
}

/* A real booking, made through prebook and book: the list renders it in
 * full (journeys, passengers, services, payments) except that payments come
 * without payment_method, which the single read carries. */
static void list_renders_payments_without_payment_method(void **state)
{
    char *k = e2e_new_org_key("lister-real", NULL);
    json_t *b = fe_ready(k, "SUPPLIER_A", "Lovelace", NULL), *listed, *pay;
    e2e_resp *r;
    (void)state;
    r = fe_book(k, fe_s(b, "id"), "{\"payment_instrument_id\":\"pi_test_visa\"}");
    fe_expect(r, 200, "book");
    assert_non_null(json_object_get(json_array_get(json_object_get(fe_data(r), "payments"), 0),
                                    "payment_method"));
    e2e_free(r);
    r = e2e_get(k, "/v1/flight/bookings");
    fe_expect(r, 200, "list");
    assert_int_equal(json_array_size(fe_data(r)), 1);
    listed = json_array_get(fe_data(r), 0);
    assert_string_equal(fe_s(listed, "status"), "CONFIRMED");
    assert_true(json_array_size(json_object_get(listed, "journeys")) > 0);
    assert_true(json_array_size(json_object_get(listed, "passengers")) == 1);
    pay = json_array_get(json_object_get(listed, "payments"), 0);
    assert_string_equal(fe_s(pay, "status"), "CAPTURED");
    assert_non_null(json_object_get(pay, "amount"));
    assert_null(json_object_get(pay, "payment_method"));
    /* The exact supplier_reference finds it, and nothing else. */
    {
        char path[512];
        e2e_resp *one;
        snprintf(path, sizeof(path), "/v1/flight/bookings?supplier_reference=%s",
                 fe_s(listed, "supplier_reference"));
        one = e2e_get(k, path);
        assert_int_equal(json_array_size(fe_data(one)), 1);
        e2e_free(one);
    }
    e2e_free(r);
    json_decref(b);
    free(k);
}

static void stored_renderings_follow_every_change(void **state)
{
    char id[200], path[256];
    const char *p[1] = {id};
    e2e_resp *r;
    (void)state;
    snprintf(id, sizeof(id), "%s-%s", seed[0][0], org + 4);
    /* The render job of the seed's insert keeps the booking's renderings
     * for its revision (sql/045; the list itself writes nothing) ... */
    fe_wait_rendered(id, 30000);
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM flight_booking_docs d "
                                  "JOIN flight_bookings b ON b.id = d.booking_id "
                                  "AND b.revision = d.revision WHERE d.booking_id = $1",
                                  1, p), 1);
    assert_string_equal(order_of("?status=CONFIRMED", key, NULL), "41");
    /* ... and any change to the booking, however made, is seen at once. */
    e2e_sql_exec("UPDATE flight_bookings SET status = 'CANCELED' WHERE id = $1", 1, p);
    assert_string_equal(order_of("?status=CONFIRMED", key, NULL), "4");
    snprintf(path, sizeof(path), "/v1/flight/bookings?status=CANCELED&limit=100");
    r = e2e_get(key, path);
    assert_non_null(strstr(r->body, id));
    assert_null(strstr(r->body, "pay_e2e_list"));
    e2e_free(r);
    /* A payment is part of the booking as listed. */
    e2e_sql_exec("INSERT INTO flight_payments (id, booking_id, status, currency, amount, "
                 "collected_by, provider_ref) VALUES ('pay_e2e_list-' || $1, $1, 'CAPTURED', "
                 "'EUR', 120.5, 'SERVICE', 'auth_x')", 1, p);
    r = e2e_get(key, path);
    assert_non_null(strstr(r->body, "pay_e2e_list"));
    e2e_free(r);
    e2e_sql_exec("DELETE FROM flight_payments WHERE booking_id = $1", 1, p);
    e2e_sql_exec("UPDATE flight_bookings SET status = 'CONFIRMED' WHERE id = $1", 1, p);
    assert_string_equal(order_of("?status=CONFIRMED", key, NULL), "41");
    /* The last change's render job brings the stored renderings up to it. */
    fe_wait_rendered(id, 30000);
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM flight_booking_docs d "
                                  "JOIN flight_bookings b ON b.id = d.booking_id "
                                  "AND b.revision = d.revision WHERE d.booking_id = $1",
                                  1, p), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(newest_first_by_default, setup),
        cmocka_unit_test(pagination_meta),
        cmocka_unit_test(filters),
        cmocka_unit_test(created_range_dates_and_timestamps),
        cmocka_unit_test(sort_by_total_unpriced_last),
        cmocka_unit_test(money_is_exact),
        cmocka_unit_test(scoped_to_organization_and_user),
        cmocka_unit_test(query_validation),
        cmocka_unit_test(stored_renderings_follow_every_change),
        cmocka_unit_test(list_renders_payments_without_payment_method),
    };
    return E2E_RUN("flight bookings list", tests);
}
