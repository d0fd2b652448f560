/* A flight booking as the API shows it: the fields of the service
 * document's table, expires_at only while completable, EXPIRED once past
 * it, payments with payment_method (null until the card is readable) but
 * without it in the list, voided authorizations hidden, services priced
 * and tied to the payment once confirmed, the cancellation block only on
 * CANCELED, failure when stored, money exact. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <apr_general.h>
#include <apr_pools.h>
#include <apr_strings.h>
#include <string.h>

#include "core/json.h"
#include "flight/render.h"

static apr_pool_t *pool;

static json_t *js(const char *text)
{
    return trv_json_parse(pool, text, strlen(text), NULL);
}

static trv_fbooking *ready_booking(void)
{
    trv_fbooking *b = apr_pcalloc(pool, sizeof(*b));
    b->id = "bkg_1";
    b->supplier = "SUPPLIER_A";
    b->status = TRV_FB_READY;
    b->currency = "EUR";
    b->total_amount = "180.30";
    b->fare_amount = "120.1";
    b->fare_tax_amount = "30.2";
    b->services_amount = "30";
    b->expires_at = "2026-03-15T12:30:00.000Z";
    b->passengers = js("[{\"id\":\"psg_1\",\"first_name\":\"Ada\",\"last_name\":\"Lovelace\","
                       "\"birthday\":\"1990-01-01\",\"loyalty_accounts\":[{\"airline_iata_code\":"
                       "\"BA\",\"membership_number\":\"99887766\"}]}]");
    b->journeys = js("[{\"id\":\"jny_1\",\"origin\":\"LHR\",\"destination\":\"JFK\","
                     "\"segments\":[{\"id\":\"seg_1\"}]}]");
    b->services = js("[{\"id\":\"svc_1\",\"bag_id\":\"bag_9\",\"passenger_id\":\"psg_1\","
                     "\"segment_ids\":[\"seg_1\"],\"quantity\":2,"
                     "\"unit_amount\":{\"amount\":15,\"currency\":\"EUR\"},"
                     "\"total_amount\":{\"amount\":30,\"currency\":\"EUR\"},"
                     "\"baggage\":{\"type\":\"CHECKED\",\"max_weight_kg\":23}}]");
    b->fare_conditions = js("{\"refund\":{\"allowed\":false},\"change\":{\"allowed\":true,"
                            "\"penalty\":{\"amount\":50,\"currency\":\"EUR\"}}}");
    b->cancellation_policy = js("{\"refundable\":false}");
    b->created_at = "2026-03-15T12:00:00.000Z";
    b->updated_at = "2026-03-15T12:00:01.000Z";
    b->payments = apr_array_make(pool, 1, sizeof(trv_fpayment));
    return b;
}

static trv_fpayment *add_payment(trv_fbooking *b, const char *id, const char *status,
                                 const char *card)
{
    trv_fpayment *p = apr_array_push(b->payments);
    memset(p, 0, sizeof(*p));
    p->id = id;
    p->booking_id = b->id;
    assert_true(trv_transit_from_text(&trv_pay_status_table, status) >= 0);
    p->status = trv_transit_from_text(&trv_pay_status_table, status);
    p->currency = "EUR";
    p->amount = "180.30";
    p->collected_by = TRV_COLLECTOR_SERVICE;
    p->card = card ? js(card) : NULL;
    p->created_at = "2026-03-15T12:05:00.000Z";
    return p;
}

static json_t *render(trv_fbooking *b, int mode)
{
    return trv_json_bind(pool, trv_frender_booking(pool, b, mode));
}

static const char *keys(const json_t *o)
{
    const char *out = "", *k;
    json_t *v;
    json_object_foreach((json_t *)o, k, v) {
        (void)v;
        out = apr_pstrcat(pool, out, *out ? "," : "", k, NULL);
    }
    return out;
}

static void ready_for_complete(void **state)
{
    json_t *o = render(ready_booking(), TRV_RENDER_FULL);
    (void)state;
    assert_string_equal(keys(o), "id,supplier,status,total_amount,fare_amount,fare_tax_amount,"
                        "services_amount,services,payments,expires_at,cancellation_policy,"
                        "fare_conditions,passengers,journeys,airline_initiated_changes,"
                        "confirmed_at,canceled_at,created_at,updated_at");
    assert_string_equal(json_string_value(json_object_get(o, "status")), "READY_FOR_COMPLETE");
    assert_string_equal(trv_json_dump(pool, json_object_get(o, "total_amount")),
                        "{\"amount\":180.3,\"currency\":\"EUR\"}");
    assert_string_equal(trv_json_dump(pool, json_object_get(o, "services")),
        "[{\"id\":\"svc_1\",\"status\":\"PENDING\",\"passenger_id\":\"psg_1\","
        "\"segment_ids\":[\"seg_1\"],\"quantity\":2,\"unit_amount\":{\"amount\":15,"
        "\"currency\":\"EUR\"},\"total_amount\":{\"amount\":30,\"currency\":\"EUR\"},"
        "\"payment_id\":null,\"type\":\"BAGGAGE\",\"baggage\":{\"type\":\"CHECKED\","
        "\"max_weight_kg\":23}}]");
    /* Loyalty numbers masked; nothing else of the passenger shown. */
    assert_string_equal(trv_json_dump(pool, json_object_get(o, "passengers")),
        "[{\"id\":\"psg_1\",\"first_name\":\"Ada\",\"last_name\":\"Lovelace\","
        "\"loyalty_accounts\":[{\"airline_iata_code\":\"BA\",\"membership_number\":\"****7766\"}]}]");
    assert_true(json_is_null(json_object_get(o, "confirmed_at")));
}

static void expired_on_read(void **state)
{
    trv_fbooking *b = ready_booking();
    json_t *o;
    (void)state;
    b->past_expiry = 1;
    o = render(b, TRV_RENDER_FULL);
    assert_string_equal(json_string_value(json_object_get(o, "status")), "EXPIRED");
    assert_null(json_object_get(o, "expires_at"));
}

static void confirmed_with_payment(void **state)
{
    trv_fbooking *b = ready_booking();
    json_t *o, *pays, *pay;
    (void)state;
    b->status = TRV_FB_CONFIRMED;
    b->supplier_reference = "ORD-1";
    b->airline_pnr = "ABC123";
    b->confirmed_at = "2026-03-15T12:05:01.000Z";
    add_payment(b, "pay_0", "VOIDED", NULL);
    add_payment(b, "pay_1", "CAPTURED",
                "{\"brand\":\"visa\",\"last4\":\"4242\",\"funding\":\"credit\",\"wallet\":null}");
    o = render(b, TRV_RENDER_FULL);
    assert_null(json_object_get(o, "expires_at"));
    assert_string_equal(json_string_value(json_object_get(o, "supplier_reference")), "ORD-1");
    assert_string_equal(json_string_value(json_object_get(o, "airline_pnr")), "ABC123");
    pays = json_object_get(o, "payments");
    assert_int_equal(json_array_size(pays), 1);
    pay = json_array_get(pays, 0);
    assert_string_equal(trv_json_dump(pool, pay),
        "{\"id\":\"pay_1\",\"status\":\"CAPTURED\",\"amount\":{\"amount\":180.3,\"currency\":"
        "\"EUR\"},\"collected_by\":\"SERVICE\",\"payment_method\":{\"type\":\"CARD\",\"card\":"
        "{\"brand\":\"visa\",\"last4\":\"4242\",\"funding\":\"credit\",\"wallet\":null}},"
        "\"created_at\":\"2026-03-15T12:05:00.000Z\"}");
    /* The bags are confirmed and paid by that payment. */
    assert_string_equal(json_string_value(json_object_get(
        json_array_get(json_object_get(o, "services"), 0), "status")), "CONFIRMED");
    assert_string_equal(json_string_value(json_object_get(
        json_array_get(json_object_get(o, "services"), 0), "payment_id")), "pay_1");
    /* The list shows payments without payment_method. */
    o = render(b, TRV_RENDER_LIST);
    pay = json_array_get(json_object_get(o, "payments"), 0);
    assert_string_equal(keys(pay), "id,status,amount,collected_by,created_at");
}

static void card_not_readable_yet(void **state)
{
    trv_fbooking *b = ready_booking();
    json_t *pay;
    (void)state;
    b->status = TRV_FB_CONFIRMED;
    add_payment(b, "pay_1", "CAPTURED", NULL);
    pay = json_array_get(json_object_get(render(b, TRV_RENDER_FULL), "payments"), 0);
    assert_true(json_is_null(json_object_get(pay, "payment_method")));
}

static void canceled_and_failed(void **state)
{
    trv_fbooking *b = ready_booking();
    json_t *o;
    (void)state;
    b->status = TRV_FB_CANCELED;
    b->canceled_at = "2026-03-16T08:00:00.000Z";
    b->cancellation = js("{\"fee\":{\"amount\":0,\"currency\":\"EUR\"},\"refunded_by\":\"SERVICE\","
                         "\"refund_amount\":{\"amount\":180.3,\"currency\":\"EUR\"},"
                         "\"refund_to\":[{\"payment_id\":\"pay_1\"}]}");
    o = render(b, TRV_RENDER_FULL);
    assert_string_equal(trv_json_dump(pool, json_object_get(o, "cancellation")),
                        "{\"fee\":{\"amount\":0,\"currency\":\"EUR\"},\"refunded_by\":\"SERVICE\","
                        "\"refund_amount\":{\"amount\":180.3,\"currency\":\"EUR\"},"
                        "\"refund_to\":[{\"payment_id\":\"pay_1\"}]}");
    assert_string_equal(json_string_value(json_object_get(o, "canceled_at")),
                        "2026-03-16T08:00:00.000Z");
    assert_null(json_object_get(o, "failure"));
    /* A refused cancellation: CONFIRMED with failure, no cancellation. */
    b->status = TRV_FB_CONFIRMED;
    b->canceled_at = NULL;
    b->failure = js("{\"code\":\"cancellation_rejected\",\"description\":\"no\"}");
    o = render(b, TRV_RENDER_FULL);
    assert_null(json_object_get(o, "cancellation"));
    assert_string_equal(json_string_value(json_object_get(json_object_get(o, "failure"), "code")),
                        "cancellation_rejected");
}

static void unpriced(void **state)
{
    trv_fbooking *b = apr_pcalloc(pool, sizeof(*b));
    json_t *o;
    (void)state;
    b->id = "bkg_2";
    b->supplier = "SUPPLIER_B";
    b->status = TRV_FB_PREBOOK_IN_PROGRESS;
    b->created_at = b->updated_at = "2026-03-15T12:00:00.000Z";
    o = render(b, TRV_RENDER_FULL);
    assert_true(json_is_null(json_object_get(o, "total_amount")));
    assert_int_equal(json_array_size(json_object_get(o, "payments")), 0);
    assert_int_equal(json_array_size(json_object_get(o, "journeys")), 0);
    assert_int_equal(json_array_size(json_object_get(o, "passengers")), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ready_for_complete),
        cmocka_unit_test(expired_on_read),
        cmocka_unit_test(confirmed_with_payment),
        cmocka_unit_test(card_not_readable_yet),
        cmocka_unit_test(canceled_and_failed),
        cmocka_unit_test(unpriced),
    };
    int rc;
    apr_initialize();
    apr_pool_create(&pool, NULL);
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    apr_pool_destroy(pool);
    apr_terminate();
    return rc;
}
