/* POST /v1/hotel/bookings/{id}/cancel through httpd to the sandbox
 * suppliers and payment provider: 202 CANCEL_IN_PROGRESS with an
 * IN_PROGRESS attempt, then CANCELED with the attempt SUCCEEDED (fee,
 * refund intent, refund_to), every room canceled, the refund submitted to
 * the payment provider and hotel.booking.canceled; 200 on CANCELED
 * (restarting a failed refund); a repeat during a run reuses its attempt;
 * sandbox-cancel-fails ends FAILED with hotel.booking.cancellation_failed,
 * the booking CONFIRMED, and a repeat resumes the same attempt; a
 * merchant-of-record supplier (SUPPLIER_C) refunds itself; 409 for a
 * booking not yet booked, 404 outside the organization; a cancel whose
 * answer was lost ends CANCELED with the fee the supplier's booking states
 * (LiteAPI, Hotelbeds: the repeat is refused, the booking read). */
#include "hotel_cancel_e2e.h"

static char *key, *other_key;

static int setup(void **state)
{
    (void)state;
    key = e2e_new_org_key("hotel-canceler", NULL);
    other_key = e2e_new_org_key("someone-else", NULL);
    return 0;
}

static void cancel_refunds_what_was_paid(void **state)
{
    json_t *b = hc_confirmed(key, "SUPPLIER_A", "hc-refund", "Lovelace"), *done;
    const char *id = fe_s(b, "id");
    const char *pay_id = fe_s(json_array_get(json_object_get(b, "payments"), 0), "id");
    const char *p[1] = {id};
    const json_t *a, *room;
    char can_id[128];
    e2e_resp *r;
    size_t i;
    (void)state;
    assert_int_equal(json_array_size(json_object_get(b, "cancellations")), 0);
    r = hc_cancel(key, NULL, id);
    fe_expect(r, 202, "cancel");
    assert_string_equal(fe_s(fe_data(r), "status"), "CANCEL_IN_PROGRESS");
    a = hc_last_attempt(fe_data(r));
    assert_non_null(a);
    assert_int_equal(json_array_size(json_object_get(fe_data(r), "cancellations")), 1);
    assert_string_equal(fe_s(a, "status"), "IN_PROGRESS");
    assert_int_equal(strncmp(fe_s(a, "id"), "can_", 4), 0);
    assert_true(json_is_null(json_object_get(a, "fee")));
    assert_true(json_is_null(json_object_get(a, "refund")));
    assert_true(json_is_null(json_object_get(a, "canceled_at")));
    snprintf(can_id, sizeof(can_id), "%s", fe_s(a, "id"));
    e2e_free(r);

    done = hc_wait(key, id, "CANCELED", "SUCCEEDED");
    a = hc_last_attempt(done);
    assert_string_equal(fe_s(a, "id"), can_id);
    assert_non_null(fe_s(done, "canceled_at"));
    assert_non_null(fe_s(a, "canceled_at"));
    assert_true(json_is_null(json_object_get(a, "error_code")));
    /* Refundable and 40 days ahead: the policy's fee now (free), the
     * rest of what was paid comes back. */
    assert_int_equal(hc_cents(json_object_get(a, "fee")), hc_policy_fee(b));
    assert_int_equal(hc_cents(json_object_get(a, "refund")),
                     hc_cents(json_object_get(b, "total")) - hc_policy_fee(b));
    assert_string_equal(fe_s(json_array_get(json_object_get(a, "refund_to"), 0), "payment_id"),
                        pay_id);
    json_array_foreach(json_object_get(done, "rooms"), i, room) {
        assert_non_null(fe_s(room, "canceled_at"));
    }
    assert_int_equal(fe_events(id, "hotel.booking.canceled"), 1);
    assert_int_equal(fe_events(id, "hotel.booking.cancellation_failed"), 0);
    /* The refund reaches the payment provider, once. */
    hc_wait_count("SELECT count(*) FROM hotel_refunds WHERE booking_id = $1 "
                  "AND status = 'SUBMITTED'", id, 1, "a refund submission");
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM sandbox.pay_refunds r JOIN "
                                  "hotel_payments y ON y.provider_ref = r.authorization_id "
                                  "WHERE y.booking_id = $1", 1, p), 1);
    /* Cancel again: 200, still CANCELED, no second attempt or event. */
    r = hc_cancel(key, NULL, id);
    fe_expect(r, 200, "cancel again");
    assert_string_equal(fe_s(fe_data(r), "status"), "CANCELED");
    assert_int_equal(json_array_size(json_object_get(fe_data(r), "cancellations")), 1);
    e2e_free(r);
    assert_int_equal(fe_events(id, "hotel.booking.canceled"), 1);
    json_decref(done);
    json_decref(b);
}

static void repeat_on_canceled_restarts_a_failed_refund(void **state)
{
    json_t *b = hc_confirmed(key, "SUPPLIER_B", "hc-refund-again", "Lovelace"), *done;
    const char *id = fe_s(b, "id");
    const char *p[1] = {id};
    e2e_resp *r;
    (void)state;
    r = hc_cancel(key, NULL, id);
    fe_expect(r, 202, "cancel");
    e2e_free(r);
    done = hc_wait(key, id, "CANCELED", "SUCCEEDED");
    hc_wait_count("SELECT count(*) FROM hotel_refunds WHERE booking_id = $1 "
                  "AND status = 'SUBMITTED'", id, 1, "a refund submission");
    /* As if its submission had failed for good. */
    e2e_sql_exec("UPDATE hotel_refunds SET status = 'FAILED', last_error = 'test' "
                 "WHERE booking_id = $1", 1, p);
    r = hc_cancel(key, NULL, id);
    fe_expect(r, 200, "cancel on CANCELED");
    assert_string_equal(fe_s(fe_data(r), "status"), "CANCELED");
    e2e_free(r);
    hc_wait_count("SELECT count(*) FROM hotel_refunds WHERE booking_id = $1 "
                  "AND status = 'SUBMITTED'", id, 1, "the refund submitted again");
    /* The provider made one refund (the key is the refund's id). */
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM sandbox.pay_refunds r JOIN "
                                  "hotel_payments y ON y.provider_ref = r.authorization_id "
                                  "WHERE y.booking_id = $1", 1, p), 1);
    json_decref(done);
    json_decref(b);
}

static void a_failed_cancellation_is_resumed(void **state)
{
    json_t *b = hc_confirmed(key, "SUPPLIER_A", "sandbox-cancel-fails", "Lovelace"), *back;
    const char *id = fe_s(b, "id");
    const char *p[1] = {id};
    const json_t *a;
    char can_id[128];
    e2e_resp *r;
    (void)state;
    r = hc_cancel(key, NULL, id);
    fe_expect(r, 202, "cancel");
    snprintf(can_id, sizeof(can_id), "%s", fe_s(hc_last_attempt(fe_data(r)), "id"));
    e2e_free(r);
    back = hc_wait(key, id, "CONFIRMED", "FAILED");
    a = hc_last_attempt(back);
    assert_string_equal(fe_s(a, "id"), can_id);
    assert_string_equal(fe_s(a, "error_code"), "cancellation_failed");
    assert_true(json_is_null(json_object_get(back, "canceled_at")));
    assert_int_equal(fe_events(id, "hotel.booking.cancellation_failed"), 1);
    assert_int_equal(fe_events(id, "hotel.booking.canceled"), 0);
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM hotel_refunds WHERE booking_id = $1",
                                  1, p), 0);
    json_decref(back);
    /* Again: the same attempt resumes (one record, a second run). */
    r = hc_cancel(key, NULL, id);
    fe_expect(r, 202, "cancel after a failure");
    assert_string_equal(fe_s(fe_data(r), "status"), "CANCEL_IN_PROGRESS");
    assert_int_equal(json_array_size(json_object_get(fe_data(r), "cancellations")), 1);
    assert_string_equal(fe_s(hc_last_attempt(fe_data(r)), "id"), can_id);
    assert_string_equal(fe_s(hc_last_attempt(fe_data(r)), "status"), "IN_PROGRESS");
    assert_true(json_is_null(json_object_get(hc_last_attempt(fe_data(r)), "error_code")));
    e2e_free(r);
    back = hc_wait(key, id, "CONFIRMED", "FAILED");
    assert_int_equal(json_array_size(json_object_get(back, "cancellations")), 1);
    assert_int_equal(e2e_sql_long("SELECT cancel_attempt FROM hotel_bookings WHERE id = $1",
                                  1, p), 2);
    assert_int_equal(fe_events(id, "hotel.booking.cancellation_failed"), 2);
    json_decref(back);
    json_decref(b);
}

static void a_repeat_during_a_run_reuses_it(void **state)
{
    json_t *b = hc_confirmed(key, "SUPPLIER_B", "hc-twice", "Lovelace"), *done;
    const char *id = fe_s(b, "id");
    const char *p[1] = {id};
    e2e_resp *r1, *r2;
    (void)state;
    r1 = hc_cancel(key, NULL, id);
    r2 = hc_cancel(key, NULL, id);
    fe_expect(r1, 202, "cancel");
    if (r2->status != 202 && r2->status != 200) {
        fail_msg("second cancel: %ld %s", r2->status, r2->body);
    }
    /* The second answer shows the first's attempt. */
    assert_string_equal(fe_s(hc_last_attempt(fe_data(r2)), "id"),
                        fe_s(hc_last_attempt(fe_data(r1)), "id"));
    done = hc_wait(key, id, "CANCELED", "SUCCEEDED");
    assert_int_equal(json_array_size(json_object_get(done, "cancellations")), 1);
    assert_int_equal(e2e_sql_long("SELECT cancel_attempt FROM hotel_bookings WHERE id = $1",
                                  1, p), 1);
    assert_int_equal(fe_events(id, "hotel.booking.canceled"), 1);
    e2e_free(r1);
    e2e_free(r2);
    json_decref(done);
    json_decref(b);
}

static void the_merchant_of_record_refunds_itself(void **state)
{
    json_t *b = hc_confirmed(key, "SUPPLIER_C", "hc-merchant", "Lovelace"), *done;
    const char *id = fe_s(b, "id");
    const char *p[1] = {id};
    const json_t *a;
    e2e_resp *r;
    (void)state;
    r = hc_cancel(key, NULL, id);
    fe_expect(r, 202, "cancel");
    e2e_free(r);
    done = hc_wait(key, id, "CANCELED", "SUCCEEDED");
    a = hc_last_attempt(done);
    assert_int_equal(hc_cents(json_object_get(a, "fee")), hc_policy_fee(b));
    assert_int_equal(hc_cents(json_object_get(a, "refund")),
                     hc_cents(json_object_get(b, "total")) - hc_policy_fee(b));
    /* Returned to the card the supplier charged, by the supplier: no
     * refund request to the service's payment provider. */
    assert_string_equal(fe_s(json_array_get(json_object_get(a, "refund_to"), 0), "payment_id"),
                        fe_s(json_array_get(json_object_get(b, "payments"), 0), "id"));
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM hotel_refunds WHERE booking_id = $1",
                                  1, p), 0);
    assert_int_equal(fe_events(id, "hotel.booking.canceled"), 1);
    json_decref(done);
    json_decref(b);
}

static void only_a_confirmed_booking_of_the_organization(void **state)
{
    json_t *ready = he_ready(key, "SUPPLIER_B", "hc-not-booked", "Lovelace");
    json_t *b = hc_confirmed(key, "SUPPLIER_A", "hc-scope", "Lovelace"), *still;
    e2e_resp *r;
    (void)state;
    r = hc_cancel(key, NULL, fe_s(ready, "id"));
    e2e_assert_error(r, 409, "invalid_state");
    e2e_free(r);
    r = hc_cancel(key, NULL, "bkg_00000000-0000-7000-8000-00000000dead");
    e2e_assert_error(r, 404, "not_found");
    e2e_free(r);
    /* Another organization's key cannot see, let alone cancel it. */
    r = hc_cancel(other_key, NULL, fe_s(b, "id"));
    e2e_assert_error(r, 404, "not_found");
    e2e_free(r);
    r = hc_estimate(other_key, NULL, fe_s(b, "id"));
    e2e_assert_error(r, 404, "not_found");
    e2e_free(r);
    still = hc_get(key, fe_s(b, "id"));
    assert_string_equal(fe_s(still, "status"), "CONFIRMED");
    assert_int_equal(json_array_size(json_object_get(still, "cancellations")), 0);
    /* A body is refused: the action takes none. */
    {
        char path[256];
        snprintf(path, sizeof(path), "/v1/hotel/bookings/%s/cancel", fe_s(b, "id"));
        r = he_post(key, NULL, path, "{\"reason\":\"changed plans\"}");
        assert_true(r->status == 422 || r->status == 400);
        e2e_free(r);
    }
    json_decref(still);
    json_decref(b);
    json_decref(ready);
}

/* The supplier cancels, and its answer is lost (the connection closes
 * after the cancel was made). The job asks again; LiteAPI and Hotelbeds
 * cancel only a confirmed booking, so the repeat is refused, and the
 * booking's read states the cancellation made: the booking ends CANCELED
 * with that fee and refund, not FAILED, and the supplier cancelled once. */
static void lost_cancel_answer_of(const char *supplier, const char *api, const char *method,
                                  const char *path, int refundable)
{
    json_t *b = hc_confirmed_plan(key, supplier, refundable, "hc-lost", "Lovelace"), *done;
    const char *id = fe_s(b, "id");
    const char *p[1] = {id};
    char *rid = fe_rid("hc-lost", supplier), spec[256];
    long total = hc_cents(json_object_get(b, "total"));
    const json_t *a;
    e2e_resp *r;
    snprintf(spec, sizeof(spec), "\"method\":\"%s\",\"path\":\"%s\","
             "\"action\":\"drop_after_handling\"", method, path);
    fe_fault(api, rid, spec);
    r = hc_cancel(key, rid, id);
    fe_expect(r, 202, "cancel");
    e2e_free(r);
    done = hc_wait(key, id, "CANCELED", "SUCCEEDED");
    assert_int_equal(fe_fault_hits(rid), 1);
    a = hc_last_attempt(done);
    assert_int_equal(json_array_size(json_object_get(done, "cancellations")), 1);
    assert_int_equal(hc_cents(json_object_get(a, "fee")), refundable ? 0 : total);
    assert_int_equal(hc_cents(json_object_get(a, "refund")), refundable ? total : 0);
    assert_int_equal(fe_events(id, "hotel.booking.canceled"), 1);
    assert_int_equal(fe_events(id, "hotel.booking.cancellation_failed"), 0);
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM sandbox.hotel_bookings s JOIN "
                                  "hotel_bookings h ON h.supplier_booking_id = s.id "
                                  "WHERE h.id = $1 AND s.status = 'cancelled'", 1, p), 1);
    fe_fault_clear(rid);
    free(rid);
    json_decref(done);
    json_decref(b);
}

static void a_lost_cancel_answer_is_read_at_liteapi(void **state)
{
    (void)state;
    /* Non-refundable: the whole price kept, read from the booking. */
    lost_cancel_answer_of("SUPPLIER_A", "hotel_a", "PUT", "/book/v3.0/bookings/*", 0);
}

static void a_lost_cancel_answer_is_read_at_hotelbeds(void **state)
{
    (void)state;
    /* Refundable: everything back, read from the booking. */
    lost_cancel_answer_of("SUPPLIER_B", "hotel_b", "DELETE", "/hotel-api/1.0/bookings/*", 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(cancel_refunds_what_was_paid, setup),
        cmocka_unit_test(repeat_on_canceled_restarts_a_failed_refund),
        cmocka_unit_test(a_failed_cancellation_is_resumed),
        cmocka_unit_test(a_repeat_during_a_run_reuses_it),
        cmocka_unit_test(the_merchant_of_record_refunds_itself),
        cmocka_unit_test(only_a_confirmed_booking_of_the_organization),
        cmocka_unit_test(a_lost_cancel_answer_is_read_at_liteapi),
        cmocka_unit_test(a_lost_cancel_answer_is_read_at_hotelbeds),
    };
    return E2E_RUN("hotel cancel", tests);
}
