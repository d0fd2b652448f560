/* GET /v1/flight/bookings/{id}/cancellation-quote: the airline's own quote
 * (SUPPLIER_QUOTE), the FARE_RULES_ESTIMATE from the stored fare terms when
 * the airline cannot answer (SUPPLIER_B does not quote Basic fares),
 * unavailable_reason no_policy without money when no terms are stored, and
 * 409 for a booking that is not booked. Quotes move no money. */
#include "flight_e2e.h"

static char *key;

static int setup(void **state)
{
    (void)state;
    key = e2e_new_org_key("quoter", NULL);
    return 0;
}

static json_t *confirmed(const char *supplier, const char *family, int want)
{
    json_t *b = fe_ready_family(key, supplier, "Lovelace", NULL, family, want), *d;
    e2e_resp *r = fe_book(key, fe_s(b, "id"), strcmp(supplier, "SUPPLIER_A") == 0
                          ? "{\"payment_instrument_id\":\"pi_test_visa\"}" : "{}");
    fe_expect(r, 200, "book");
    d = json_incref(fe_data(r));
    e2e_free(r);
    json_decref(b);
    return d;
}

static double amount(const json_t *money)
{
    return json_number_value(json_object_get(money, "amount"));
}

static void assert_unchanged(const json_t *b)
{
    e2e_resp *r = fe_get(key, fe_s(b, "id"), NULL);
    assert_string_equal(fe_s(fe_data(r), "status"), "CONFIRMED");
    assert_null(json_object_get(fe_data(r), "cancellation"));
    e2e_free(r);
}

static void airline_quotes(void **state)
{
    json_t *a = confirmed("SUPPLIER_A", NULL, 0), *b = confirmed("SUPPLIER_B", "Basic", 0);
    json_t *both[2] = {a, b}, *q;
    e2e_resp *r;
    int i;
    (void)state;
    for (i = 0; i < 2; i++) {
        r = fe_get(key, fe_s(both[i], "id"), "/cancellation-quote");
        fe_expect(r, 200, "quote");
        q = fe_data(r);
        assert_string_equal(fe_s(q, "source"), "SUPPLIER_QUOTE");
        assert_true(json_is_boolean(json_object_get(q, "is_free")));
        assert_non_null(fe_s(q, "quoted_at"));
        assert_string_equal(fe_s(json_object_get(q, "refundable_amount"), "currency"),
                            fe_s(json_object_get(both[i], "total_amount"), "currency"));
        assert_true(amount(json_object_get(q, "refundable_amount"))
                    <= amount(json_object_get(both[i], "total_amount")));
        assert_null(json_object_get(q, "unavailable_reason"));
        e2e_free(r);
        assert_unchanged(both[i]);
    }
    json_decref(a);
    json_decref(b);
}

static void estimate_when_the_airline_cannot_answer(void **state)
{
    /* SUPPLIER_B cannot quote a Basic fare: the stored terms answer. */
    json_t *b = confirmed("SUPPLIER_B", "Basic", 1), *q, *fc;
    const char *p[1] = {fe_s(b, "id")};
    e2e_resp *r;
    (void)state;
    fc = json_object_get(json_object_get(b, "fare_conditions"), "refund");
    assert_true(json_is_false(json_object_get(fc, "allowed")));
    r = fe_get(key, p[0], "/cancellation-quote");
    fe_expect(r, 200, "estimate");
    q = fe_data(r);
    assert_string_equal(fe_s(q, "source"), "FARE_RULES_ESTIMATE");
    /* Non-refundable: the whole price is the fee. */
    assert_true(json_is_false(json_object_get(q, "is_free")));
    assert_true(amount(json_object_get(q, "fee")) == amount(json_object_get(b, "total_amount")));
    assert_true(amount(json_object_get(q, "refundable_amount")) == 0);
    assert_null(json_object_get(q, "unavailable_reason"));
    e2e_free(r);
    assert_unchanged(b);
    /* No usable terms stored: no money, and not free. */
    e2e_sql_exec("UPDATE flight_bookings SET fare_conditions = NULL, cancellation_policy = NULL "
                 "WHERE id = $1", 1, p);
    r = fe_get(key, p[0], "/cancellation-quote");
    fe_expect(r, 200, "no policy");
    q = fe_data(r);
    assert_string_equal(fe_s(q, "source"), "FARE_RULES_ESTIMATE");
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
        cmocka_unit_test_setup(airline_quotes, setup),
        cmocka_unit_test(estimate_when_the_airline_cannot_answer),
        cmocka_unit_test(not_booked),
    };
    return E2E_RUN("flight cancellation quote", tests);
}
