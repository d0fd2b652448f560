/* GET /v1/flight/bookings/{id}/cancellation-quote: the airline's own quote
 * (SUPPLIER_QUOTE), the FARE_RULES_ESTIMATE from the stored fare terms when
 * the airline cannot answer, unavailable_reason no_policy without money,
 * and 409 for a booking that is not booked. */
#include "flight_e2e.h"

static char *key;

static int setup(void **state)
{
    (void)state;
    key = e2e_new_org_key("quoter", NULL);
    return 0;
}

static json_t *confirmed(const char *supplier)
{
    json_t *b = fe_ready(key, supplier, "Lovelace", NULL), *d;
    e2e_resp *r = fe_book(key, fe_s(b, "id"), strcmp(supplier, "SUPPLIER_A") == 0
                          ? "{\"payment_instrument_id\":\"pi_test_visa\"}" : "{}");
    fe_expect(r, 200, "book");
    d = json_incref(fe_data(r));
    e2e_free(r);
    json_decref(b);
    return d;
}

static void airline_quote(void **state)
{
    const char *suppliers[] = {"SUPPLIER_A", "SUPPLIER_B"};
    int i;
    (void)state;
    for (i = 0; i < 2; i++) {
        json_t *b = confirmed(suppliers[i]), *q;
        e2e_resp *r = fe_get(key, fe_s(b, "id"), "/cancellation-quote");
        fe_expect(r, 200, "quote");
        q = fe_data(r);
        assert_string_equal(fe_s(q, "source"), "SUPPLIER_QUOTE");
        assert_true(json_is_boolean(json_object_get(q, "is_free")));
        assert_non_null(fe_s(q, "quoted_at"));
        assert_string_equal(fe_s(json_object_get(q, "refundable_amount"), "currency"),
                            fe_s(json_object_get(b, "total_amount"), "currency"));
        assert_null(json_object_get(q, "unavailable_reason"));
        /* Advisory: nothing moved. */
        e2e_free(r);
        r = fe_get(key, fe_s(b, "id"), NULL);
        assert_string_equal(fe_s(fe_data(r), "status"), "CONFIRMED");
        e2e_free(r);
        json_decref(b);
    }
}

static void estimate_when_the_airline_cannot_answer(void **state)
{
    json_t *b = confirmed("SUPPLIER_A"), *q;
    const char *p[1] = {fe_s(b, "id")};
    e2e_resp *r;
    (void)state;
    /* The airline no longer knows the order (it cannot quote). */
    e2e_sql_exec("UPDATE flight_bookings SET supplier_reference = 'ord_gone-' || id, "
                 "fare_conditions = '{\"refund\":{\"allowed\":true,\"penalty\":"
                 "{\"amount\":10,\"currency\":\"' || currency || '\"}}}'::jsonb "
                 "WHERE id = $1", 1, p);
    r = fe_get(key, p[0], "/cancellation-quote");
    fe_expect(r, 200, "estimate");
    q = fe_data(r);
    assert_string_equal(fe_s(q, "source"), "FARE_RULES_ESTIMATE");
    assert_true(json_number_value(json_object_get(json_object_get(q, "fee"), "amount")) == 10);
    assert_true(json_is_false(json_object_get(q, "is_free")));
    assert_true(json_number_value(json_object_get(json_object_get(q, "refundable_amount"),
                                                  "amount"))
                == json_number_value(json_object_get(json_object_get(b, "total_amount"),
                                                     "amount")) - 10);
    e2e_free(r);
    /* No usable terms: no money, and not free. */
    e2e_sql_exec("UPDATE flight_bookings SET fare_conditions = NULL, cancellation_policy = NULL "
                 "WHERE id = $1", 1, p);
    r = fe_get(key, p[0], "/cancellation-quote");
    fe_expect(r, 200, "no policy");
    q = fe_data(r);
    assert_string_equal(fe_s(q, "unavailable_reason"), "no_policy");
    assert_null(json_object_get(q, "fee"));
    assert_null(json_object_get(q, "refundable_amount"));
    assert_true(json_is_false(json_object_get(q, "is_free")));
    e2e_free(r);
    json_decref(b);
}

static void not_booked(void **state)
{
    json_t *b = fe_ready(key, "SUPPLIER_B", "Lovelace", NULL);
    e2e_resp *r = fe_get(key, fe_s(b, "id"), "/cancellation-quote");
    (void)state;
    e2e_assert_error(r, 409, "invalid_state");
    e2e_free(r);
    json_decref(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(airline_quote, setup),
        cmocka_unit_test(estimate_when_the_airline_cannot_answer),
        cmocka_unit_test(not_booked),
    };
    return E2E_RUN("flight cancellation quote", tests);
}
