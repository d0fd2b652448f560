/* Reading hotel bookings: GET /v1/hotel/bookings/{id} and the list
 * GET /v1/hotel/bookings (limit, offset, status, supplier, created_from,
 * created_to, sort_by, sort_order; an exact total), the organization's
 * only (another organization's booking is a 404 and never listed). Reads
 * write nothing (the rows and their stored renderings keep their xmin);
 * time shows at once (a booking past its offer's expiry reads and lists as
 * EXPIRED). A page whose bookings all have their list rendering stored is
 * answered from them joined by PostgreSQL; one with a booking to render
 * (its rendering deleted here) answers the same bytes. The usual page
 * (no filter, newest first, 20) is kept whole by each change (sql/048)
 * and served while nothing has changed since. */
#include "hotel_e2e.h"

static char *key, *org;
static json_t *ready_a, *ready_b, *confirmed;

static int setup(void **state)
{
    char path[256];
    e2e_resp *r;
    char *other = e2e_new_org_key("hotel-reads-other", NULL);
    json_t *theirs;
    (void)state;
    key = e2e_new_org_key("hotel-reads", &org);
    ready_a = he_ready(key, "SUPPLIER_A", "r-1", "Lovelace");
    ready_b = he_ready(key, "SUPPLIER_B", "r-2", "Lovelace");
    confirmed = he_ready(key, "SUPPLIER_A", "r-3", "Lovelace");
    snprintf(path, sizeof(path), "/v1/hotel/bookings/%s/book", fe_s(confirmed, "id"));
    r = e2e_post(key, path, "{\"payment_instrument_id\":\"pi_test_visa\"}");
    if (r->status != 200) {
        return -1;
    }
    json_decref(confirmed);
    confirmed = json_incref(fe_data(r));
    e2e_free(r);
    theirs = he_ready(other, "SUPPLIER_B", "theirs", "Lovelace");
    json_decref(theirs);
    free(other);
    return 0;
}

static e2e_resp *list(const char *query)
{
    char path[512];
    snprintf(path, sizeof(path), "/v1/hotel/bookings%s", query);
    return e2e_get(key, path);
}

static const json_t *pagination(const e2e_resp *r)
{
    return json_object_get(json_object_get(r->json, "meta"), "pagination");
}

static long total_of(const char *query)
{
    e2e_resp *r = list(query);
    long n;
    fe_expect(r, 200, "a list");
    n = (long)json_integer_value(json_object_get(pagination(r), "total"));
    assert_true((long)json_array_size(fe_data(r)) <= n);
    e2e_free(r);
    return n;
}

static void lists_the_organizations_bookings(void **state)
{
    e2e_resp *r = list("");
    const json_t *d = NULL, *pay;
    size_t i;
    (void)state;
    fe_expect(r, 200, "the list");
    assert_int_equal(json_array_size(fe_data(r)), 3);
    assert_int_equal(json_integer_value(json_object_get(pagination(r), "total")), 3);
    assert_int_equal(json_integer_value(json_object_get(pagination(r), "limit")), 20);
    assert_true(json_is_false(json_object_get(pagination(r), "has_more")));
    /* Newest first. */
    assert_string_equal(fe_s(json_array_get(fe_data(r), 0), "id"), fe_s(confirmed, "id"));
    assert_string_equal(fe_s(json_array_get(fe_data(r), 2), "id"), fe_s(ready_a, "id"));
    json_array_foreach(fe_data(r), i, d) {
        if (strcmp(fe_s(d, "id"), fe_s(confirmed, "id")) == 0) {
            break;
        }
    }
    /* The list shows payments without payment_method. */
    pay = json_array_get(json_object_get(d, "payments"), 0);
    assert_string_equal(fe_s(pay, "status"), "CAPTURED");
    assert_null(json_object_get(pay, "payment_method"));
    e2e_free(r);

    r = list("?limit=1&offset=1");
    fe_expect(r, 200, "a page");
    assert_int_equal(json_array_size(fe_data(r)), 1);
    assert_string_equal(fe_s(json_array_get(fe_data(r), 0), "id"), fe_s(ready_b, "id"));
    assert_true(json_is_true(json_object_get(pagination(r), "has_more")));
    assert_int_equal(json_integer_value(json_object_get(pagination(r), "total")), 3);
    e2e_free(r);

    assert_int_equal(total_of("?status=CONFIRMED"), 1);
    assert_int_equal(total_of("?status=READY_FOR_COMPLETE"), 2);
    assert_int_equal(total_of("?supplier=SUPPLIER_B"), 1);
    assert_int_equal(total_of("?status=READY_FOR_COMPLETE&supplier=SUPPLIER_A"), 1);
    assert_int_equal(total_of("?created_from=2000-01-01&created_to=2999-12-31"), 3);
    assert_int_equal(total_of("?created_from=2999-01-01"), 0);

    r = list("?sort_by=total_amount&sort_order=asc");
    fe_expect(r, 200, "sorted by total");
    for (i = 1; i < json_array_size(fe_data(r)); i++) {
        assert_true(he_minor(json_object_get(json_array_get(fe_data(r), i - 1), "total"))
                    <= he_minor(json_object_get(json_array_get(fe_data(r), i), "total")));
    }
    e2e_free(r);
}

static void bad_queries_are_422(void **state)
{
    const char *bad[] = {"?limit=0", "?limit=101", "?offset=-1", "?status=NOPE",
                         "?supplier=SUPPLIER_Z", "?sort_by=name", "?sort_order=up",
                         "?created_from=yesterday", "?nope=1",
                         "?created_from=2030-01-02&created_to=2030-01-01"};
    size_t i;
    (void)state;
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        e2e_resp *r = list(bad[i]);
        e2e_assert_error(r, 422, "validation_failed");
        e2e_free(r);
    }
}

static char *xmins(const char *id)
{
    const char *p[1] = {id};
    return e2e_sql_text("SELECT b.xmin::text || '/' || coalesce(d.xmin::text, '-') "
                        "FROM hotel_bookings b LEFT JOIN hotel_booking_docs d "
                        "ON d.booking_id = b.id WHERE b.id = $1", 1, p);
}

static void get_reads_and_writes_nothing(void **state)
{
    char path[256], *before, *after;
    char *other = e2e_new_org_key("hotel-reads-stranger", NULL);
    e2e_resp *r;
    (void)state;
    snprintf(path, sizeof(path), "/v1/hotel/bookings/%s", fe_s(confirmed, "id"));
    before = xmins(fe_s(confirmed, "id"));
    r = e2e_get(key, path);
    fe_expect(r, 200, "GET");
    assert_true(json_equal(fe_data(r), confirmed));
    e2e_free(r);
    e2e_free(list(""));
    after = xmins(fe_s(confirmed, "id"));
    assert_string_equal(before, after);
    r = e2e_get(other, path);
    e2e_assert_error(r, 404, "not_found");
    e2e_free(r);
    r = e2e_get(key, "/v1/hotel/bookings/bkg_0193f1c4-7a2e-7c3d-9a1b-2f0c1d2e3f40");
    e2e_assert_error(r, 404, "not_found");
    e2e_free(r);
    free(before);
    free(after);
    free(other);
}

static long head_current(void)
{
    const char *p[1] = {org};
    return e2e_sql_long("SELECT count(*) FROM hotel_list_heads WHERE org_id = $1 "
                        "AND page_gen = gen", 1, p);
}

/* Each change of setup's bookings kept the usual page in its own
 * transaction; it answers what the joined page answers, and it is what
 * the list serves until it is stale: a change since, or a booking on it
 * past its offer's expiry. */
static void usual_page_is_kept_whole(void **state)
{
    const char *p[1] = {org};
    e2e_resp *r, *j;
    char *same;
    (void)state;
    assert_int_equal(head_current(), 1);
    r = list("");
    j = list("?created_from=2000-01-01T00:00:00Z");
    fe_expect(r, 200, "the usual page");
    fe_expect(j, 200, "the page with a filter");
    assert_true(json_equal(r->json, j->json));
    assert_int_equal(json_array_size(fe_data(r)), 3);
    e2e_free(r);
    e2e_free(j);
    same = e2e_sql_text("SELECT (h.valid_until = (SELECT min(b.offer_expires_at) "
                        "FROM hotel_bookings b WHERE b.org_id = h.org_id "
                        "AND b.status = 'READY_FOR_COMPLETE'))::text "
                        "FROM hotel_list_heads h WHERE h.org_id = $1", 1, p);
    assert_string_equal(same, "true");
    free(same);
    /* Marked, so an answer shows whether it was served. */
    e2e_sql_exec("UPDATE hotel_list_heads SET page = replace(page, 'Lovelace', 'Keptlace') "
                 "WHERE org_id = $1", 1, p);
    r = list("?limit=20&sort_by=created_at&sort_order=desc");
    assert_non_null(strstr(r->body, "Keptlace"));
    e2e_free(r);
    r = list("?limit=19");
    assert_null(strstr(r->body, "Keptlace"));
    e2e_free(r);
    e2e_sql_exec("UPDATE hotel_list_heads SET valid_until = now() - interval '1 second' "
                 "WHERE org_id = $1", 1, p);
    r = list("");
    assert_null(strstr(r->body, "Keptlace"));
    assert_non_null(strstr(r->body, "Lovelace"));
    e2e_free(r);
    /* Built again from the renderings: clean, and served; then a change
     * to one of the bookings, and it is not served from that commit on. */
    e2e_sql_exec("SELECT hotel_list_head_keep($1)", 1, p);
    assert_int_equal(head_current(), 1);
    e2e_sql_exec("UPDATE hotel_list_heads SET page = replace(page, 'Lovelace', 'Keptlace') "
                 "WHERE org_id = $1", 1, p);
    r = list("");
    assert_non_null(strstr(r->body, "Keptlace"));
    e2e_free(r);
    p[0] = fe_s(confirmed, "id");
    /* A read at the supplier that found nothing new is not a change. */
    e2e_sql_exec("UPDATE hotel_bookings SET synced_at = now() WHERE id = $1", 1, p);
    assert_int_equal(head_current(), 1);
    r = list("");
    assert_non_null(strstr(r->body, "Keptlace"));
    e2e_free(r);
    e2e_sql_exec("UPDATE hotel_bookings SET updated_at = now() WHERE id = $1", 1, p);
    assert_int_equal(head_current(), 0);
    r = list("");
    assert_null(strstr(r->body, "Keptlace"));
    e2e_free(r);
    /* Not built while a booking on the page has no rendering of its
     * revision (that change kept none here). */
    p[0] = org;
    e2e_sql_exec("SELECT hotel_list_head_keep($1)", 1, p);
    assert_int_equal(head_current(), 0);
}

static char *stored_list_doc(const char *id)
{
    const char *p[1] = {id};
    return e2e_sql_text("SELECT list_doc FROM hotel_booking_docs WHERE booking_id = $1", 1, p);
}

/* The list answers the same bytes whether its page comes joined from the
 * stored renderings (warm) or a booking of it has none and is rendered
 * for the answer (cold), for the default page size (written into the
 * statement) and for others (a parameter); the cold reads write nothing. */
static void cold_page_is_the_warm_page(void **state)
{
    static const char *const queries[] = {"", "?limit=100", "?limit=2&offset=1",
                                          "?sort_by=total_amount&sort_order=asc",
                                          "?supplier=SUPPLIER_A"};
    enum { NQ = sizeof(queries) / sizeof(queries[0]) };
    const char *id = fe_s(ready_a, "id");
    const char *p[1] = {id};
    char *warm[NQ], *list_doc, *before, *after;
    e2e_resp *r;
    size_t i;
    int round;
    (void)state;
    list_doc = stored_list_doc(id);
    assert_non_null(list_doc);
    for (i = 0; i < NQ; i++) {
        r = list(queries[i]);
        fe_expect(r, 200, "a warm page");
        warm[i] = strdup(r->body);
        e2e_free(r);
    }
    /* Every query's page holds the booking: its stored text is in it. */
    for (i = 0; i < NQ; i++) {
        assert_non_null(strstr(warm[i], list_doc));
    }
    e2e_sql_exec("DELETE FROM hotel_booking_docs WHERE booking_id = $1", 1, p);
    /* Nor is the usual page served kept whole: it is read cold too. */
    {
        const char *o[1] = {org};
        e2e_sql_exec("UPDATE hotel_list_heads SET gen = gen + 1 WHERE org_id = $1", 1, o);
    }
    before = xmins(id);
    for (round = 0; round < 2; round++) {
        for (i = 0; i < NQ; i++) {
            r = list(queries[i]);
            fe_expect(r, 200, "a cold page");
            assert_string_equal(r->body, warm[i]);
            e2e_free(r);
        }
    }
    after = xmins(id);
    assert_string_equal(before, after);
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM hotel_booking_docs "
                                  "WHERE booking_id = $1", 1, p), 0);
    for (i = 0; i < NQ; i++) {
        free(warm[i]);
    }
    free(list_doc);
    free(before);
    free(after);
}

static void expiry_shows_at_once(void **state)
{
    const char *id = fe_s(ready_b, "id");
    const char *p[1] = {id};
    char path[256], *before, *after;
    e2e_resp *r;
    (void)state;
    e2e_sql_exec("UPDATE hotel_bookings SET offer_expires_at = now() - interval '1 second' "
                 "WHERE id = $1", 1, p);
    before = xmins(id);
    snprintf(path, sizeof(path), "/v1/hotel/bookings/%s", id);
    r = e2e_get(key, path);
    fe_expect(r, 200, "GET");
    assert_string_equal(fe_s(fe_data(r), "status"), "EXPIRED");
    e2e_free(r);
    assert_int_equal(total_of("?status=EXPIRED"), 1);
    assert_int_equal(total_of("?status=READY_FOR_COMPLETE"), 1);
    r = list("?status=EXPIRED");
    assert_string_equal(fe_s(json_array_get(fe_data(r), 0), "status"), "EXPIRED");
    e2e_free(r);
    after = xmins(id);
    assert_string_equal(before, after);
    /* Book refuses it. */
    snprintf(path, sizeof(path), "/v1/hotel/bookings/%s/book", id);
    r = e2e_post(key, path, "{\"payment_instrument_id\":\"pi_test_visa\"}");
    e2e_assert_error(r, 409, "invalid_state");
    e2e_free(r);
    free(before);
    free(after);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lists_the_organizations_bookings),
        cmocka_unit_test(bad_queries_are_422),
        cmocka_unit_test(get_reads_and_writes_nothing),
        cmocka_unit_test(usual_page_is_kept_whole),
        cmocka_unit_test(cold_page_is_the_warm_page),
        cmocka_unit_test(expiry_shows_at_once),
    };
    if (setup(NULL) != 0) {
        return 1;
    }
    return E2E_RUN("hotel_reads", tests);
}
