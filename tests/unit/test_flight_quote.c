/* The cancellation quote's money: the FARE_RULES_ESTIMATE from stored fare
 * terms (refundable with a penalty, non-refundable, no usable policy) and
 * the airline's own quote, exact in every currency. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <apr_general.h>
#include <apr_pools.h>
#include <string.h>

#include "core/json.h"
#include "core/money.h"
#include "flight/quote_calc.h"

static apr_pool_t *pool;

static json_t *js(const char *text)
{
    return trv_json_parse(pool, text, strlen(text), NULL);
}

static const char *dump(json_t *v)
{
    return trv_json_dump(pool, trv_json_bind(pool, v));
}

static trv_money money(apr_int64_t minor, const char *cur)
{
    trv_money m;
    assert_int_equal(trv_money_make(&m, minor, cur), APR_SUCCESS);
    return m;
}

#define AT "2026-03-01T10:00:00.000Z"

static void refundable_with_penalty(void **state)
{
    trv_money total = money(45670, "EUR");
    (void)state;
    assert_string_equal(
        dump(trv_fquote_calc_estimate(pool, &total,
            js("{\"refund\":{\"allowed\":true,\"penalty\":{\"amount\":75.1,\"currency\":\"EUR\"}},"
               "\"change\":{\"allowed\":false}}"), NULL, AT)),
        "{\"source\":\"FARE_RULES_ESTIMATE\",\"is_free\":false,"
        "\"fee\":{\"amount\":75.1,\"currency\":\"EUR\"},"
        "\"refundable_amount\":{\"amount\":381.6,\"currency\":\"EUR\"},"
        "\"quoted_at\":\"" AT "\"}");
}

static void free_cancellation(void **state)
{
    trv_money total = money(12000, "JPY");
    (void)state;
    assert_string_equal(
        dump(trv_fquote_calc_estimate(pool, &total,
            js("{\"refund\":{\"allowed\":true,\"penalty\":{\"amount\":0,\"currency\":\"JPY\"}}}"),
            NULL, AT)),
        "{\"source\":\"FARE_RULES_ESTIMATE\",\"is_free\":true,"
        "\"fee\":{\"amount\":0,\"currency\":\"JPY\"},"
        "\"refundable_amount\":{\"amount\":12000,\"currency\":\"JPY\"},"
        "\"quoted_at\":\"" AT "\"}");
}

static void penalty_above_total_is_capped(void **state)
{
    trv_money total = money(5000, "USD");
    json_t *q;
    (void)state;
    q = trv_json_bind(pool, trv_fquote_calc_estimate(pool, &total,
        js("{\"refund\":{\"allowed\":true,\"penalty\":{\"amount\":80,\"currency\":\"USD\"}}}"),
        NULL, AT));
    assert_string_equal(dump(json_incref(json_object_get(q, "fee"))),
                        "{\"amount\":50,\"currency\":\"USD\"}");
    assert_string_equal(dump(json_incref(json_object_get(q, "refundable_amount"))),
                        "{\"amount\":0,\"currency\":\"USD\"}");
}

static void non_refundable_keeps_everything(void **state)
{
    trv_money total = money(30001, "KWD"); /* 30.001 KWD: three decimals */
    (void)state;
    assert_string_equal(
        dump(trv_fquote_calc_estimate(pool, &total, js("{\"refund\":{\"allowed\":false}}"), NULL, AT)),
        "{\"source\":\"FARE_RULES_ESTIMATE\",\"is_free\":false,"
        "\"fee\":{\"amount\":30.001,\"currency\":\"KWD\"},"
        "\"refundable_amount\":{\"amount\":0,\"currency\":\"KWD\"},"
        "\"quoted_at\":\"" AT "\"}");
}

static void falls_back_to_cancellation_policy(void **state)
{
    trv_money total = money(20000, "EUR");
    json_t *q;
    (void)state;
    q = trv_json_bind(pool, trv_fquote_calc_estimate(pool, &total, NULL,
        js("{\"refundable\":true,\"penalty\":{\"amount\":25,\"currency\":\"EUR\"}}"), AT));
    assert_string_equal(json_string_value(json_object_get(q, "source")), "FARE_RULES_ESTIMATE");
    assert_string_equal(dump(json_incref(json_object_get(q, "refundable_amount"))),
                        "{\"amount\":175,\"currency\":\"EUR\"}");
}

static void assert_no_policy(json_t *q)
{
    q = trv_json_bind(pool, q);
    assert_string_equal(json_string_value(json_object_get(q, "unavailable_reason")),
                        "no_policy");
    /* Absence is not a free cancellation, and no money is guessed. */
    assert_true(json_is_false(json_object_get(q, "is_free")));
    assert_null(json_object_get(q, "fee"));
    assert_null(json_object_get(q, "refundable_amount"));
    assert_string_equal(json_string_value(json_object_get(q, "quoted_at")), AT);
}

static void no_usable_policy(void **state)
{
    trv_money total = money(10000, "EUR");
    (void)state;
    assert_no_policy(trv_fquote_calc_estimate(pool, &total, NULL, NULL, AT));
    assert_no_policy(trv_fquote_calc_estimate(pool, &total, js("{}"), js("{}"), AT));
    /* Refund allowed but the penalty is unknown. */
    assert_no_policy(trv_fquote_calc_estimate(pool, &total, js("{\"refund\":{\"allowed\":true}}"),
                                              NULL, AT));
    /* A penalty in another currency cannot be subtracted. */
    assert_no_policy(trv_fquote_calc_estimate(pool, &total,
        js("{\"refund\":{\"allowed\":true,\"penalty\":{\"amount\":5,\"currency\":\"USD\"}}}"),
        NULL, AT));
    /* An unpriced booking. */
    assert_no_policy(trv_fquote_calc_estimate(pool, NULL, js("{\"refund\":{\"allowed\":false}}"),
                                              NULL, AT));
}

static void supplier_quote(void **state)
{
    (void)state;
    assert_string_equal(
        dump(trv_fquote_calc_supplier(pool,
            js("{\"fee\":{\"amount\":0,\"currency\":\"EUR\"},"
               "\"refundable_amount\":{\"amount\":199.99,\"currency\":\"EUR\"}}"), AT)),
        "{\"source\":\"SUPPLIER_QUOTE\",\"is_free\":true,"
        "\"fee\":{\"amount\":0,\"currency\":\"EUR\"},"
        "\"refundable_amount\":{\"amount\":199.99,\"currency\":\"EUR\"},"
        "\"quoted_at\":\"" AT "\"}");
    /* The fee may be absent: then it is not free. */
    assert_string_equal(
        dump(trv_fquote_calc_supplier(pool,
            js("{\"refundable_amount\":{\"amount\":10,\"currency\":\"EUR\"}}"), AT)),
        "{\"source\":\"SUPPLIER_QUOTE\",\"is_free\":false,"
        "\"refundable_amount\":{\"amount\":10,\"currency\":\"EUR\"},"
        "\"quoted_at\":\"" AT "\"}");
    /* Unusable answers: the caller estimates instead. */
    assert_null(trv_fquote_calc_supplier(pool, js("{}"), AT));
    assert_null(trv_fquote_calc_supplier(pool, js("{\"fee\":{\"amount\":\"x\",\"currency\":\"EUR\"}}"),
                                         AT));
    assert_null(trv_fquote_calc_supplier(pool, js("{\"fee\":{\"amount\":1.234,\"currency\":\"EUR\"}}"),
                                         AT));
    assert_null(trv_fquote_calc_supplier(pool, js("{\"fee\":{\"amount\":-1,\"currency\":\"EUR\"}}"),
                                         AT));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(refundable_with_penalty),
        cmocka_unit_test(free_cancellation),
        cmocka_unit_test(penalty_above_total_is_capped),
        cmocka_unit_test(non_refundable_keeps_everything),
        cmocka_unit_test(falls_back_to_cancellation_policy),
        cmocka_unit_test(no_usable_policy),
        cmocka_unit_test(supplier_quote),
    };
    int rc;
    apr_initialize();
    apr_pool_create(&pool, NULL);
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    apr_pool_destroy(pool);
    apr_terminate();
    return rc;
}
