/* The search deadline over real HTTP: an instance of its own with
 * TravelSearchDeadline 2s, and one sandbox hotel supplier made to hang
 * (answering only after 8 s, past the 6 s supplier timeout of the test
 * stack). Hotel search answers at the deadline with the other suppliers'
 * hotels and names the late one in meta.unanswered_suppliers; its next
 * pages come from the same suppliers, so every page is a slice of one
 * whole; hotel offers leave the late supplier's hotels without offers and
 * name it; when the only supplier asked is late, the answer is 504 as
 * before. */
#include "hotel_e2e.h"

static char *key;
static char url[128];
static long pid;

#define PARIS "{\"city\":\"Paris\",\"country_code\":\"FR\"}"
#define HANG "\"action\":\"respond\",\"delay_ms\":8000,\"times\":null"

static int setup(void **state)
{
    (void)state;
    key = e2e_new_org_key("hotel-deadline", NULL);
    pid = e2e_start_instance("deadline", NULL, "TravelSearchDeadline 2s", url, sizeof(url));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    e2e_stop_pid(pid);
    return 0;
}

static e2e_resp *post(const char *rid, const char *path, const char *body)
{
    char kh[512], rh[300];
    const char *hdrs[4] = {kh, "Content-Type: application/json", rh, NULL};
    snprintf(kh, sizeof(kh), "x-api-key: %s", key);
    snprintf(rh, sizeof(rh), "x-request-id: %s", rid);
    return e2e_call(url, "POST", path, hdrs, body);
}

static void fault_off(const char *rid)
{
    char path[400];
    e2e_resp *r;
    snprintf(path, sizeof(path), "/sandbox/faults?request_id_prefix=%s", rid);
    r = e2e_call(e2e_sandbox_url(), "DELETE", path, NULL, NULL);
    e2e_free(r);
}

static const json_t *unanswered(const e2e_resp *r)
{
    return json_object_get(json_object_get(r->json, "meta"), "unanswered_suppliers");
}

/* No result of this page comes from `supplier`, and it is not named in
 * any result's suppliers either. */
static void assert_without(const json_t *results, const char *supplier)
{
    const json_t *h, *s;
    size_t i, k;
    json_array_foreach(results, i, h) {
        assert_string_not_equal(fe_s(h, "supplier"), supplier);
        json_array_foreach(json_object_get(h, "suppliers"), k, s) {
            assert_string_not_equal(json_string_value(s), supplier);
        }
    }
}

static void a_late_supplier_is_left_out_and_named(void **state)
{
    char *rid = fe_rid("hdeadline", "search"), *body = he_search_body(PARIS, ",\"limit\":5");
    char *next_body;
    const char *cursor;
    long t0, took, hits;
    e2e_resp *r, *next;
    (void)state;
    fe_fault("hotel_b", rid, HANG);
    t0 = e2e_now_ms();
    r = post(rid, "/v1/hotel/search", body);
    took = e2e_now_ms() - t0;
    fe_expect(r, 200, "a search with a late supplier");
    /* Answered at the deadline, not when the late supplier gave up. */
    assert_true(took < 5000);
    assert_int_equal(json_array_size(unanswered(r)), 1);
    assert_string_equal(json_string_value(json_array_get(unanswered(r), 0)), "SUPPLIER_B");
    assert_true(json_array_size(fe_data(r)) > 0);
    assert_without(fe_data(r), "SUPPLIER_B");
    hits = fe_fault_hits(rid);
    assert_true(hits >= 1);
    /* The next page asks the first page's suppliers alone, even once B is
     * back: the same whole, never B's hotels in the middle of it. */
    fault_off(rid);
    cursor = fe_s(json_object_get(json_object_get(r->json, "meta"), "pagination"),
                  "next_cursor");
    assert_non_null(cursor);
    next_body = he_with_cursor(body, cursor);
    next = post(rid, "/v1/hotel/search", next_body);
    fe_expect(next, 200, "the next page");
    assert_without(fe_data(next), "SUPPLIER_B");
    assert_int_equal(json_array_size(unanswered(next)), 0);
    assert_non_null(fe_s(json_object_get(json_object_get(next->json, "meta"), "pagination"),
                         "next_cursor"));
    e2e_free(next);
    free(next_body);
    e2e_free(r);
    /* Every supplier answering: nothing named. */
    r = post(rid, "/v1/hotel/search", body);
    fe_expect(r, 200, "a search with every supplier on time");
    assert_null(unanswered(r));
    e2e_free(r);
    free(body);
    free(rid);
}

static void the_only_supplier_late_is_504(void **state)
{
    char *rid = fe_rid("hdeadline", "only"), *body = he_search_body(PARIS,
                                                                    ",\"supplier\":\"SUPPLIER_B\"");
    e2e_resp *r;
    (void)state;
    fe_fault("hotel_b", rid, HANG);
    r = post(rid, "/v1/hotel/search", body);
    e2e_assert_error(r, 504, "supplier_timeout");
    e2e_free(r);
    fault_off(rid);
    free(body);
    free(rid);
}

/* Offers price each hotel at one supplier: with B late, B's hotel has no
 * offer, A's has its offers, and meta names B. */
static void offers_leave_a_late_supplier_out(void **state)
{
    char *rid = fe_rid("hdeadline", "offers"), *search = he_search_body(PARIS, ",\"limit\":50");
    char body[1024];
    const char *only_b = NULL, *of_a = NULL;
    const json_t *h, *o;
    e2e_resp *s, *r;
    size_t i;
    (void)state;
    s = he_post(key, NULL, "/v1/hotel/search", search);
    fe_expect(s, 200, "the hotels of Paris");
    json_array_foreach(fe_data(s), i, h) {
        const json_t *sup = json_object_get(h, "suppliers");
        if (!only_b && json_array_size(sup) == 1
            && strcmp(json_string_value(json_array_get(sup, 0)), "SUPPLIER_B") == 0) {
            only_b = fe_s(h, "hotel_id");
        }
        if (!of_a && strcmp(json_string_value(json_array_get(sup, 0)), "SUPPLIER_A") == 0) {
            of_a = fe_s(h, "hotel_id");
        }
    }
    assert_non_null(only_b);
    assert_non_null(of_a);
    snprintf(body, sizeof(body), "{\"hotel_ids\":[\"%s\",\"%s\"],\"check_in\":\"%s\","
             "\"check_out\":\"%s\",\"occupancy\":[{\"adults\":2}],\"guest_nationality\":\"GB\","
             "\"guest_residence\":\"GB\",\"currency\":\"EUR\"}", only_b, of_a, fe_date(30),
             fe_date(32));
    fe_fault("hotel_b", rid, HANG);
    r = post(rid, "/v1/hotel/offers", body);
    fe_expect(r, 200, "offers with a late supplier");
    assert_int_equal(json_array_size(unanswered(r)), 1);
    assert_string_equal(json_string_value(json_array_get(unanswered(r), 0)), "SUPPLIER_B");
    assert_true(json_array_size(fe_data(r)) > 0);
    json_array_foreach(fe_data(r), i, o) {
        assert_string_equal(fe_s(o, "hotel_id"), of_a);
    }
    e2e_free(r);
    fault_off(rid);
    e2e_free(s);
    free(search);
    free(rid);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_late_supplier_is_left_out_and_named),
        cmocka_unit_test(the_only_supplier_late_is_504),
        cmocka_unit_test(offers_leave_a_late_supplier_out),
    };
    int rc;
    if (setup(NULL) != 0) {
        return 1;
    }
    rc = E2E_RUN("hotel_deadline", tests);
    teardown(NULL);
    return rc;
}
