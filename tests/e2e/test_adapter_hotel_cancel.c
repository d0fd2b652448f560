/* The hotel adapters' cancellation over real HTTP to the sandbox: each
 * supplier's booking (made over its own wire API, hotel_wire_e2e.h) is
 * canceled through mod_travel's adapter, which must read the supplier's
 * fee and refund in minor units; a repeated cancel (a cancel whose answer
 * was lost, sent again) answers the same: LiteAPI and Hotelbeds refuse it
 * (they cancel confirmed bookings only) and the adapter reads the
 * cancellation from the booking;
 * refusals (sandbox-cancel-fails, Restricted) come back as TRV_UP_REJECTED
 * with the supplier's code; SUPPLIER_C's preview gives the fee now, the
 * deadline and the restriction; A and B have no preview. */
#include "adapter_env.h"
#include "hotel_wire_e2e.h"
#include "hotel/supplier.h"

static trv_upstream hup_a, hup_b, hup_c;

static trv_hotel_ctx hctx(trv_upstream *u, const char *name, const char *path,
                          const char *key, const char *secret)
{
    trv_hotel_ctx c;
    if (!u->name) {
        ad_upstream(u, name, path, key);
        u->api_secret = secret;
        if (strcmp(path, "/hotels/a/v3.0") == 0) { /* LiteAPI's booking host */
            u->second_base_url = apr_pstrcat(ad_root, e2e_sandbox_url(),
                                             "/hotels/a/book/v3.0", NULL);
        }
    }
    memset(&c, 0, sizeof(c));
    c.env = &ad_env;
    c.pool = ad_pool;
    c.request_id = "req_adapter_hotel_cancel";
    c.up = u;
    return c;
}

#define CTX_A hctx(&hup_a, "SUPPLIER_A", "/hotels/a/v3.0", HW_KEY_A, NULL)
#define CTX_B hctx(&hup_b, "SUPPLIER_B", "/hotels/b", HW_KEY_B, HW_SECRET_B)
#define CTX_C hctx(&hup_c, "SUPPLIER_C", "/hotels/c", HW_KEY_C, HW_SECRET_C)

static void a_cancels_free_then_the_same_again(void **state)
{
    trv_hotel_ctx c = CTX_A;
    trv_hotel_canceled out, again;
    trv_hotel_err err = {0};
    hw_booking bk;
    char *ref = hw_unique("adapter-a");
    (void)state;
    assert_true(hw_book_a("Paris", "FR", 0, 60, 0, "Lovelace", ref, &bk));
    assert_int_equal(trv_hotel_supplier_a.cancel(&c, bk.id, &out, &err), TRV_UP_OK);
    assert_string_equal(out.currency, "EUR");
    assert_int_equal(out.fee_minor, 0);              /* refundable, two months ahead */
    assert_int_equal(out.refund_minor, bk.price_minor);
    assert_int_equal(trv_hotel_supplier_a.cancel(&c, bk.id, &again, &err), TRV_UP_OK);
    assert_int_equal(again.fee_minor, out.fee_minor);
    assert_int_equal(again.refund_minor, out.refund_minor);
    assert_null(trv_hotel_supplier_a.cancel_preview);
    free(ref);
}

static void a_nonrefundable_costs_the_price(void **state)
{
    trv_hotel_ctx c = CTX_A;
    trv_hotel_canceled out;
    trv_hotel_err err = {0};
    hw_booking bk;
    char *ref = hw_unique("adapter-a-nrf");
    const char *cur;
    int n, booked = 0;
    (void)state;
    for (n = 0; n < 10 && !booked; n++) {
        booked = hw_book_a("Tokyo", "JP", n, 30, 1, "Hopper", ref, &bk);
    }
    assert_true(booked);
    assert_int_equal(trv_hotel_supplier_a.cancel(&c, bk.id, &out, &err), TRV_UP_OK);
    assert_int_equal(out.fee_minor, bk.price_minor);
    assert_int_equal(out.refund_minor, 0);
    /* Sent again (its answer lost): the fee kept, read from the booking. */
    cur = out.currency;
    memset(&out, 0, sizeof(out));
    assert_int_equal(trv_hotel_supplier_a.cancel(&c, bk.id, &out, &err), TRV_UP_OK);
    assert_string_equal(out.currency, cur);
    assert_int_equal(out.fee_minor, bk.price_minor);
    assert_int_equal(out.refund_minor, 0);
    free(ref);
}

static void a_refusal_and_unknown_booking(void **state)
{
    trv_hotel_ctx c = CTX_A;
    trv_hotel_canceled out;
    trv_hotel_err err = {0};
    hw_booking bk;
    char *ref = hw_unique("sandbox-cancel-fails");
    (void)state;
    assert_true(hw_book_a("Berlin", "DE", 3, 40, 0, "Noether", ref, &bk));
    assert_int_equal(trv_hotel_supplier_a.cancel(&c, bk.id, &out, &err), TRV_UP_REJECTED);
    assert_string_equal(err.code, "cancellation_failed");
    memset(&err, 0, sizeof(err));
    assert_int_equal(trv_hotel_supplier_a.cancel(&c, "bk_nosuchbooking", &out, &err),
                     TRV_UP_NOT_FOUND);
    free(ref);
}

static void b_cancels_and_refuses(void **state)
{
    trv_hotel_ctx c = CTX_B;
    trv_hotel_canceled out, again;
    trv_hotel_err err = {0};
    hw_booking bk, failing;
    char *ref = hw_unique("adapter-b"), *ref2 = hw_unique("adapter-b-sandbox-cancel-fails");
    (void)state;
    hw_book_b("CDG", 50, "Hopper", ref, &bk);
    assert_int_equal(trv_hotel_supplier_b.cancel(&c, bk.id, &out, &err), TRV_UP_OK);
    assert_string_equal(out.currency, "EUR");
    assert_int_equal(out.fee_minor, 0);
    assert_int_equal(out.refund_minor, bk.price_minor);
    assert_int_equal(trv_hotel_supplier_b.cancel(&c, bk.id, &again, &err), TRV_UP_OK);
    assert_int_equal(again.refund_minor, out.refund_minor);
    hw_book_b("LHR", 45, "Hopper", ref2, &failing);
    assert_int_equal(trv_hotel_supplier_b.cancel(&c, failing.id, &out, &err), TRV_UP_REJECTED);
    assert_string_equal(err.code, "CANCELLATION_FAILED");
    assert_null(trv_hotel_supplier_b.cancel_preview);
    free(ref);
    free(ref2);
}

static void c_previews_then_cancels(void **state)
{
    trv_hotel_ctx c = CTX_C;
    trv_hotel_preview pv;
    trv_hotel_canceled out;
    trv_hotel_err err = {0};
    hw_booking bk;
    char *ref = hw_unique("adapter-c");
    apr_time_t before = apr_time_now() - apr_time_from_sec(60);
    (void)state;
    hw_book_c("New%20York", "US", 0, 45, 0, "Hamilton", ref, &bk);
    assert_int_equal(trv_hotel_supplier_c.cancel_preview(&c, bk.id, &pv, &err), TRV_UP_OK);
    assert_true(pv.cancelable);
    assert_false(pv.restricted);
    assert_string_equal(pv.currency, "EUR");
    assert_int_equal(pv.fee_minor, 0);
    assert_int_equal(pv.refund_minor, bk.price_minor);
    assert_true(pv.checked_at >= before);
    /* Refundable 45 days ahead: free until a few days before arrival. */
    assert_true(pv.deadline > apr_time_now() + apr_time_from_sec(30 * 86400));
    assert_int_equal(trv_hotel_supplier_c.cancel(&c, bk.id, &out, &err), TRV_UP_OK);
    assert_int_equal(out.fee_minor, 0);
    assert_int_equal(out.refund_minor, bk.price_minor);
    /* Canceled: nothing left to preview. */
    assert_int_equal(trv_hotel_supplier_c.cancel_preview(&c, bk.id, &pv, &err),
                     TRV_UP_REJECTED);
    assert_string_equal(err.code, "itinerary_canceled");
    free(ref);
}

static void c_nonrefundable_preview_costs_the_price(void **state)
{
    trv_hotel_ctx c = CTX_C;
    trv_hotel_preview pv;
    trv_hotel_err err = {0};
    hw_booking bk;
    char *ref = hw_unique("adapter-c-nrf");
    (void)state;
    hw_book_c("London", "GB", 1, 20, 1, "Franklin", ref, &bk);
    assert_int_equal(trv_hotel_supplier_c.cancel_preview(&c, bk.id, &pv, &err), TRV_UP_OK);
    assert_true(pv.cancelable);
    assert_int_equal(pv.fee_minor, bk.price_minor);
    assert_int_equal(pv.refund_minor, 0);
    assert_true(pv.deadline == 0);
    free(ref);
}

static void c_restricted_and_failing(void **state)
{
    trv_hotel_ctx c = CTX_C;
    trv_hotel_preview pv;
    trv_hotel_canceled out;
    trv_hotel_err err = {0};
    hw_booking bk, failing;
    char *ref = hw_unique("adapter-c-restricted"), *ref2 = hw_unique("c-sandbox-cancel-fails");
    (void)state;
    hw_book_c("Berlin", "DE", 1, 30, 0, "Restricted", ref, &bk);
    assert_int_equal(trv_hotel_supplier_c.cancel_preview(&c, bk.id, &pv, &err), TRV_UP_OK);
    assert_true(pv.restricted);
    assert_false(pv.cancelable);
    assert_int_equal(trv_hotel_supplier_c.cancel(&c, bk.id, &out, &err), TRV_UP_REJECTED);
    assert_string_equal(err.code, "cancellation_restricted");
    hw_book_c("Paris", "FR", 2, 35, 0, "Hamilton", ref2, &failing);
    assert_int_equal(trv_hotel_supplier_c.cancel(&c, failing.id, &out, &err), TRV_UP_REJECTED);
    assert_string_equal(err.code, "cancellation_failed");
    free(ref);
    free(ref2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(a_cancels_free_then_the_same_again, ad_setup,
                                        ad_teardown),
        cmocka_unit_test_setup_teardown(a_nonrefundable_costs_the_price, ad_setup, ad_teardown),
        cmocka_unit_test_setup_teardown(a_refusal_and_unknown_booking, ad_setup, ad_teardown),
        cmocka_unit_test_setup_teardown(b_cancels_and_refuses, ad_setup, ad_teardown),
        cmocka_unit_test_setup_teardown(c_previews_then_cancels, ad_setup, ad_teardown),
        cmocka_unit_test_setup_teardown(c_nonrefundable_preview_costs_the_price, ad_setup,
                                        ad_teardown),
        cmocka_unit_test_setup_teardown(c_restricted_and_failing, ad_setup, ad_teardown),
    };
    (void)ad_minor; /* adapter_env.h's helpers this file does not need */
    (void)ad_str;
    return cmocka_run_group_tests(tests, NULL, NULL);
}
