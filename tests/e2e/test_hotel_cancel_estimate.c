/* GET /v1/hotel/bookings/{id}/cancellation-estimate through httpd to the
 * sandbox suppliers: SUPPLIER_C's own preview (SUPPLIER_QUOTE); SUPPLIER_A
 * and SUPPLIER_B from the booking read again and its rooms' policies
 * (POLICY_ESTIMATE), refundable and not; nothing is stored; a restriction
 * the preview reports, and a stored one (without asking the supplier), is
 * a 422 cancellation_restricted; a failed or timed-out read an error, not
 * stale terms; a local change during the read a 409 booking_changed; 409
 * for a booking that is not confirmed, 404 outside the organization. */
#include "hotel_cancel_e2e.h"

#include <pthread.h>

static char *key;

static int setup(void **state)
{
    (void)state;
    key = e2e_new_org_key("hotel-estimator", NULL);
    hc_days_base = 300;
    return 0;
}

static long revision(const char *id)
{
    const char *p[1] = {id};
    return e2e_sql_long("SELECT revision FROM hotel_bookings WHERE id = $1", 1, p);
}

static long attempts(const char *id)
{
    const char *p[1] = {id};
    return e2e_sql_long("SELECT count(*) FROM hotel_cancellations WHERE booking_id = $1", 1, p);
}

/* The estimate's data (a new reference) after asserting its shape. */
static json_t *estimate_ok(const char *id, const char *source)
{
    e2e_resp *r = hc_estimate(key, NULL, id);
    json_t *d;
    fe_expect(r, 200, "an estimate");
    d = json_incref(fe_data(r));
    e2e_free(r);
    assert_string_equal(fe_s(d, "source"), source);
    assert_true(json_is_boolean(json_object_get(d, "available")));
    assert_non_null(fe_s(d, "checked_at"));
    return d;
}

/* The earliest instant a room starts to cost something (borrowed), or NULL. */
static const char *first_penalty(const json_t *b)
{
    const json_t *room, *pen;
    const char *first = NULL;
    size_t i, k;
    json_array_foreach(json_object_get(b, "rooms"), i, room) {
        json_array_foreach(json_object_get(json_object_get(room, "cancellation_policy"),
                                           "penalties"), k, pen) {
            if (he_minor(json_object_get(pen, "amount")) > 0
                && (!first || strcmp(fe_s(pen, "from"), first) < 0)) {
                first = fe_s(pen, "from");
            }
        }
    }
    return first;
}

static void policy_estimate(const char *supplier, int refundable)
{
    json_t *b = hc_confirmed_plan(key, supplier, refundable, "hc-estimate", "Lovelace"), *d;
    const char *id = fe_s(b, "id");
    long before = revision(id), fee = hc_policy_fee(b);
    d = estimate_ok(id, "POLICY_ESTIMATE");
    assert_true(json_is_true(json_object_get(d, "available")));
    assert_int_equal(hc_cents(json_object_get(d, "fee")), fee);
    assert_int_equal(hc_cents(json_object_get(d, "refund")),
                     hc_cents(json_object_get(b, "total")) - fee);
    if (refundable) {
        /* Free today: until the first room's first penalty. */
        assert_int_equal(fee, 0);
        assert_non_null(fe_s(d, "deadline"));
        assert_string_equal(fe_s(d, "deadline"), first_penalty(b));
    }
    else {
        assert_int_equal(fee, hc_cents(json_object_get(b, "total")));
        assert_true(json_is_null(json_object_get(d, "deadline")));
    }
    /* An estimate stores nothing. */
    assert_int_equal(revision(id), before);
    assert_int_equal(attempts(id), 0);
    json_decref(d);
    json_decref(b);
}

static void a_estimates_from_the_policy(void **state)
{
    (void)state;
    policy_estimate("SUPPLIER_A", 1);
    policy_estimate("SUPPLIER_A", 0);
}

static void b_estimates_from_the_policy(void **state)
{
    (void)state;
    policy_estimate("SUPPLIER_B", 1);
    policy_estimate("SUPPLIER_B", 0);
}

static void c_quotes_from_its_preview(void **state)
{
    json_t *b = hc_confirmed(key, "SUPPLIER_C", "hc-quote", "Lovelace"), *d;
    const char *id = fe_s(b, "id");
    long before = revision(id), fee = hc_policy_fee(b);
    (void)state;
    d = estimate_ok(id, "SUPPLIER_QUOTE");
    assert_true(json_is_true(json_object_get(d, "available")));
    assert_int_equal(hc_cents(json_object_get(d, "fee")), fee);
    assert_int_equal(hc_cents(json_object_get(d, "refund")),
                     hc_cents(json_object_get(b, "total")) - fee);
    assert_non_null(fe_s(d, "deadline"));
    assert_int_equal(revision(id), before);
    assert_int_equal(attempts(id), 0);
    json_decref(d);
    json_decref(b);
}

static void restricted_is_422_before_and_after_reading(void **state)
{
    json_t *b = hc_confirmed(key, "SUPPLIER_C", "hc-restricted", "Restricted"), *back;
    const char *id = fe_s(b, "id");
    char *rid = fe_rid("hc-est", "restricted");
    e2e_resp *r;
    (void)state;
    /* Nothing stored yet: the preview says so (after the read). */
    r = hc_estimate(key, NULL, id);
    e2e_assert_error(r, 422, "cancellation_restricted");
    e2e_free(r);
    /* A cancel is refused by the supplier: the restriction is stored. */
    r = hc_cancel(key, NULL, id);
    fe_expect(r, 202, "cancel");
    e2e_free(r);
    back = hc_wait(key, id, "CONFIRMED", "FAILED");
    assert_string_equal(fe_s(hc_last_attempt(back), "error_code"), "cancellation_restricted");
    assert_int_equal(fe_events(id, "hotel.booking.cancellation_failed"), 1);
    /* Now answered before any read: a broken preview is never asked. */
    fe_fault("hotel_c", rid, "\"path\":\"/v3/itineraries/*\",\"status\":500,\"times\":null");
    r = hc_estimate(key, rid, id);
    e2e_assert_error(r, 422, "cancellation_restricted");
    e2e_free(r);
    assert_int_equal(fe_fault_hits(rid), 0);
    fe_fault_clear(rid);
    json_decref(back);
    json_decref(b);
    free(rid);
}

static void failed_reads_are_errors(void **state)
{
    json_t *b = hc_confirmed(key, "SUPPLIER_B", "hc-read-fails", "Lovelace");
    json_t *c = hc_confirmed(key, "SUPPLIER_C", "hc-preview-fails", "Lovelace");
    char *rid = fe_rid("hc-est", "fails");
    e2e_resp *r;
    (void)state;
    fe_fault("hotel_b", rid, "\"method\":\"GET\",\"path\":\"/hotel-api/1.0/bookings/*\","
             "\"status\":500,\"times\":null");
    r = hc_estimate(key, rid, fe_s(b, "id"));
    e2e_assert_error(r, 502, "supplier_error");
    e2e_free(r);
    fe_fault_clear(rid);
    fe_fault("hotel_c", rid, "\"path\":\"/v3/itineraries/*\",\"action\":\"garbage\","
             "\"times\":null");
    r = hc_estimate(key, rid, fe_s(c, "id"));
    e2e_assert_error(r, 502, "supplier_error");
    e2e_free(r);
    fe_fault_clear(rid);
    /* No answer within the supplier's timeout. */
    fe_fault("hotel_c", rid, "\"path\":\"/v3/itineraries/*\",\"action\":\"respond\","
             "\"delay_ms\":9000,\"times\":1");
    r = hc_estimate(key, rid, fe_s(c, "id"));
    e2e_assert_error(r, 504, "supplier_timeout");
    e2e_free(r);
    fe_fault_clear(rid);
    json_decref(b);
    json_decref(c);
    free(rid);
}

typedef struct slow_call {
    const char *id, *rid;
    e2e_resp *r;
} slow_call;

static void *estimate_thread(void *arg)
{
    slow_call *s = arg;
    s->r = hc_estimate(key, s->rid, s->id);
    return NULL;
}

static void a_change_during_the_read_is_409(void **state)
{
    json_t *b = hc_confirmed(key, "SUPPLIER_A", "hc-changed", "Lovelace");
    char *rid = fe_rid("hc-est", "changed");
    slow_call s = {fe_s(b, "id"), rid, NULL};
    pthread_t t;
    long start;
    e2e_resp *r;
    (void)state;
    /* The read of the booking at the supplier is held 4 s (below the
     * supplier timeout); meanwhile the booking is canceled here. */
    fe_fault("hotel_a", rid, "\"method\":\"GET\",\"path\":\"/book/v3.0/bookings/*\","
             "\"action\":\"respond\",\"delay_ms\":4000,\"times\":1");
    assert_int_equal(pthread_create(&t, NULL, estimate_thread, &s), 0);
    start = e2e_now_ms();
    while (fe_fault_hits(rid) == 0) {
        if (e2e_now_ms() - start > 20000) {
            fail_msg("the estimate never reached the supplier");
        }
        e2e_sleep_ms(50);
    }
    r = hc_cancel(key, NULL, fe_s(b, "id"));
    fe_expect(r, 202, "cancel during the estimate");
    e2e_free(r);
    pthread_join(t, NULL);
    e2e_assert_error(s.r, 409, "booking_changed");
    e2e_free(s.r);
    fe_fault_clear(rid);
    json_decref(hc_wait(key, fe_s(b, "id"), "CANCELED", "SUCCEEDED"));
    json_decref(b);
    free(rid);
}

static void only_a_confirmed_booking(void **state)
{
    json_t *ready = he_ready(key, "SUPPLIER_A", "hc-est-ready", "Lovelace");
    e2e_resp *r;
    (void)state;
    r = hc_estimate(key, NULL, fe_s(ready, "id"));
    e2e_assert_error(r, 409, "invalid_state");
    e2e_free(r);
    r = hc_estimate(key, NULL, "bkg_00000000-0000-7000-8000-00000000dead");
    e2e_assert_error(r, 404, "not_found");
    e2e_free(r);
    json_decref(ready);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(a_estimates_from_the_policy, setup),
        cmocka_unit_test(b_estimates_from_the_policy),
        cmocka_unit_test(c_quotes_from_its_preview),
        cmocka_unit_test(restricted_is_422_before_and_after_reading),
        cmocka_unit_test(failed_reads_are_errors),
        cmocka_unit_test(a_change_during_the_read_is_409),
        cmocka_unit_test(only_a_confirmed_booking),
    };
    return E2E_RUN("hotel cancellation estimate", tests);
}
