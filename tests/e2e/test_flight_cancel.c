/* POST /v1/flight/bookings/{id}/cancel through httpd to the sandbox: 202
 * and a background cancellation; CANCELED with the cancellation block, then
 * refunds submitted to the payment provider; a rejection back to CONFIRMED
 * with failure; 200 on CANCELED (restarting a failed refund submission); a
 * repeat during an active run starts no second run; 409 when not booked. */
#include "flight_e2e.h"

static char *key;

static int setup(void **state)
{
    (void)state;
    key = e2e_new_org_key("canceler", NULL);
    return 0;
}

static json_t *confirmed(const char *supplier, const char *last_name)
{
    json_t *b = fe_ready(key, supplier, last_name, NULL), *d;
    e2e_resp *r = fe_book(key, fe_s(b, "id"), strcmp(supplier, "SUPPLIER_A") == 0
                          ? "{\"payment_instrument_id\":\"pi_test_visa\"}" : "{}");
    fe_expect(r, 200, "book");
    d = json_incref(fe_data(r));
    e2e_free(r);
    json_decref(b);
    return d;
}

static e2e_resp *cancel(const char *id)
{
    char path[256];
    snprintf(path, sizeof(path), "/v1/flight/bookings/%s/cancel", id);
    return e2e_post(key, path, NULL);
}

static void cancel_refunds_what_was_paid(void **state)
{
    json_t *b = confirmed("SUPPLIER_A", "Lovelace"), *done, *c;
    const char *id = fe_s(b, "id");
    const char *pay_id = fe_s(json_array_get(json_object_get(b, "payments"), 0), "id");
    const char *p[1] = {id};
    e2e_resp *r;
    long start;
    (void)state;
    r = cancel(id);
    fe_expect(r, 202, "cancel");
    assert_string_equal(fe_s(fe_data(r), "status"), "CANCEL_IN_PROGRESS");
    e2e_free(r);
    done = fe_wait_status(key, id, "CANCELED", 20000);
    assert_non_null(fe_s(done, "canceled_at"));
    c = json_object_get(done, "cancellation");
    assert_non_null(c);
    assert_string_equal(fe_s(json_object_get(c, "fee"), "currency"),
                        fe_s(json_object_get(b, "total_amount"), "currency"));
    assert_string_equal(fe_s(c, "refunded_by"), "SERVICE");
    assert_true(json_number_value(json_object_get(json_object_get(c, "refund_amount"), "amount"))
                <= json_number_value(json_object_get(json_object_get(b, "total_amount"),
                                                     "amount")));
    assert_string_equal(fe_s(json_array_get(json_object_get(c, "refund_to"), 0), "payment_id"),
                        pay_id);
    assert_null(json_object_get(done, "failure"));
    assert_int_equal(fe_events(id, "flight.booking.canceled"), 1);
    /* The refund request reaches the payment provider. */
    start = e2e_now_ms();
    while (e2e_sql_long("SELECT count(*) FROM flight_refunds WHERE booking_id = $1 "
                        "AND status = 'SUBMITTED'", 1, p) == 0) {
        if (e2e_now_ms() - start > 15000) {
            fail_msg("no refund submitted for %s", id);
        }
        e2e_sleep_ms(100);
    }
    if (json_number_value(json_object_get(json_object_get(c, "refund_amount"), "amount")) > 0) {
        assert_int_equal(e2e_sql_long("SELECT count(*) FROM sandbox.pay_refunds r JOIN "
                                      "flight_payments fp ON fp.provider_ref = "
                                      "r.authorization_id WHERE fp.booking_id = $1", 1, p), 1);
    }
    /* Cancel again: 200, still CANCELED. */
    r = cancel(id);
    fe_expect(r, 200, "cancel again");
    assert_string_equal(fe_s(fe_data(r), "status"), "CANCELED");
    e2e_free(r);
    json_decref(done);
    json_decref(b);
}

static void repeat_restarts_a_failed_refund(void **state)
{
    json_t *b = confirmed("SUPPLIER_A", "Lovelace"), *done;
    const char *id = fe_s(b, "id");
    const char *p[1] = {id};
    e2e_resp *r;
    long start;
    (void)state;
    r = cancel(id);
    fe_expect(r, 202, "cancel");
    e2e_free(r);
    done = fe_wait_status(key, id, "CANCELED", 20000);
    start = e2e_now_ms();
    while (e2e_sql_long("SELECT count(*) FROM flight_refunds WHERE booking_id = $1 "
                        "AND status = 'SUBMITTED'", 1, p) == 0 && e2e_now_ms() - start < 15000) {
        e2e_sleep_ms(100);
    }
    /* As if its submission had failed for good. */
    e2e_sql_exec("UPDATE flight_refunds SET status = 'FAILED', last_error = 'test' "
                 "WHERE booking_id = $1", 1, p);
    r = cancel(id);
    fe_expect(r, 200, "cancel on CANCELED");
    e2e_free(r);
    start = e2e_now_ms();
    while (e2e_sql_long("SELECT count(*) FROM flight_refunds WHERE booking_id = $1 "
                        "AND status = 'SUBMITTED'", 1, p) == 0) {
        if (e2e_now_ms() - start > 15000) {
            fail_msg("the failed refund of %s was not submitted again", id);
        }
        e2e_sleep_ms(100);
    }
    /* The provider saw one refund (the key is the refund's id). */
    assert_true(e2e_sql_long("SELECT count(*) FROM sandbox.pay_refunds r JOIN "
                             "flight_payments fp ON fp.provider_ref = r.authorization_id "
                             "WHERE fp.booking_id = $1", 1, p) <= 1);
    json_decref(done);
    json_decref(b);
}

static void rejection_keeps_the_ticket(void **state)
{
    json_t *b = confirmed("SUPPLIER_A", "Nocancel"), *back;
    const char *id = fe_s(b, "id");
    long start = e2e_now_ms();
    e2e_resp *r;
    (void)state;
    r = cancel(id);
    fe_expect(r, 202, "cancel");
    e2e_free(r);
    /* Back to CONFIRMED with failure. */
    for (;;) {
        r = fe_get(key, id, NULL);
        if (strcmp(fe_s(fe_data(r), "status"), "CONFIRMED") == 0
            && json_object_get(fe_data(r), "failure")) {
            back = json_incref(fe_data(r));
            e2e_free(r);
            break;
        }
        e2e_free(r);
        if (e2e_now_ms() - start > 20000) {
            fail_msg("booking %s never came back CONFIRMED with failure", id);
        }
        e2e_sleep_ms(100);
    }
    assert_true(strlen(fe_s(json_object_get(back, "failure"), "code")) > 0);
    assert_true(strlen(fe_s(json_object_get(back, "failure"), "description")) > 0);
    assert_null(json_object_get(back, "cancellation"));
    assert_int_equal(fe_events(id, "flight.booking.cancellation_rejected"), 1);
    assert_int_equal(fe_events(id, "flight.booking.canceled"), 0);
    /* A failed run can be started again. */
    r = cancel(id);
    fe_expect(r, 202, "cancel after a rejection");
    e2e_free(r);
    json_decref(back);
    json_decref(b);
}

static void repeat_during_a_run_starts_nothing(void **state)
{
    json_t *b = confirmed("SUPPLIER_B", "Lovelace"), *done;
    const char *id = fe_s(b, "id");
    const char *p[1] = {id};
    e2e_resp *r1, *r2;
    (void)state;
    r1 = cancel(id);
    r2 = cancel(id);
    fe_expect(r1, 202, "cancel");
    if (r2->status != 202 && r2->status != 200) {
        fail_msg("second cancel: %ld %s", r2->status, r2->body);
    }
    done = fe_wait_status(key, id, "CANCELED", 20000);
    /* One run: one attempt, one cancellation at the supplier. */
    assert_int_equal(e2e_sql_long("SELECT cancel_attempt FROM flight_bookings WHERE id = $1",
                                  1, p), 1);
    assert_int_equal(fe_events(id, "flight.booking.canceled"), 1);
    /* SUPPLIER_B collected the payment and refunds it itself. */
    assert_string_equal(fe_s(json_object_get(done, "cancellation"), "refunded_by"), "SUPPLIER");
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM flight_refunds WHERE booking_id = $1",
                                  1, p), 0);
    e2e_free(r1);
    e2e_free(r2);
    json_decref(done);
    json_decref(b);
}

static void only_a_booked_booking(void **state)
{
    json_t *b = fe_ready(key, "SUPPLIER_A", "Lovelace", NULL);
    e2e_resp *r;
    (void)state;
    r = cancel(fe_s(b, "id"));
    e2e_assert_error(r, 409, "invalid_state");
    e2e_free(r);
    r = cancel("bkg_00000000-0000-7000-8000-00000000dead");
    e2e_assert_error(r, 404, "not_found");
    e2e_free(r);
    json_decref(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(cancel_refunds_what_was_paid, setup),
        cmocka_unit_test(repeat_restarts_a_failed_refund),
        cmocka_unit_test(rejection_keeps_the_ticket),
        cmocka_unit_test(repeat_during_a_run_starts_nothing),
        cmocka_unit_test(only_a_booked_booking),
    };
    return E2E_RUN("flight cancel", tests);
}
