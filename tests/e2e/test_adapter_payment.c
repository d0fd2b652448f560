/* The payment adapter's contract against the sandbox provider over real
 * HTTP: authorize, capture, void, read, refund with the shapes
 * provider.h promises; the test instruments (cards with brand, last4,
 * funding and wallet; a decline; a card readable only later); idempotent
 * retries; and the SDK flow, where the customer's device pays a session. */
#include "adapter_env.h"
#include "payment/provider.h"

#include <stdlib.h>

static const trv_payment_provider *pp = &trv_payment_adapter;

static trv_pay_ctx ctx(void)
{
    trv_pay_ctx c = {&ad_env, ad_pool, "req_adapter_payment", &ad_up_pay};
    return c;
}

static trv_money money(long long minor, const char *cur)
{
    trv_money m;
    assert_int_equal(trv_money_make(&m, minor, cur), APR_SUCCESS);
    return m;
}

static const char *key(const char *what)
{
    return apr_psprintf(ad_pool, "%s-%ld-%d", what, e2e_now_ms(), rand());
}

static json_t *authorize(const char *instrument, long long minor, const char *cur,
                         const char *k, trv_up_status want, trv_pay_err *err_out)
{
    trv_pay_ctx c = ctx();
    trv_pay_err err = {0};
    trv_money m = money(minor, cur);
    json_t *auth = NULL;
    trv_up_status st = pp->authorize(&c, instrument, &m, k ? k : key("auth"), &auth, &err);
    if (st != want) {
        fail_msg("authorize %s: %s %s", instrument, trv_up_status_name(st), err.code);
    }
    if (err_out) {
        *err_out = err;
    }
    return auth;
}

static void card_is(const json_t *auth, const char *brand, const char *last4,
                    const char *funding, const char *wallet)
{
    const json_t *card = json_object_get(auth, "card");
    assert_true(json_is_object(card));
    assert_string_equal(ad_str(card, "brand"), brand);
    assert_string_equal(ad_str(card, "last4"), last4);
    assert_string_equal(ad_str(card, "funding"), funding);
    if (wallet) {
        assert_string_equal(ad_str(card, "wallet"), wallet);
    }
    else {
        assert_true(json_is_null(json_object_get(card, "wallet")));
    }
}

static void authorize_capture_refund(void **state)
{
    trv_pay_ctx c = ctx();
    trv_pay_err err = {0};
    json_t *auth = authorize("pi_test_visa", 12345, "EUR", NULL, TRV_UP_OK, NULL), *cap = NULL,
           *again = NULL, *ref = NULL;
    trv_money m = money(12345, "EUR"), part = money(2345, "EUR"), rest = money(10001, "EUR");
    const char *ck = key("cap");
    (void)state;
    assert_string_equal(ad_str(auth, "status"), "AUTHORIZED");
    assert_int_equal(strncmp(ad_str(auth, "id"), "auth_", 5), 0);
    assert_int_equal(ad_minor(json_object_get(auth, "amount")), 12345);
    assert_string_equal(ad_str(json_object_get(auth, "amount"), "currency"), "EUR");
    card_is(auth, "visa", "4242", "credit", NULL);

    assert_int_equal(pp->capture(&c, ad_str(auth, "id"), &m, ck, &cap, &err), TRV_UP_OK);
    assert_string_equal(ad_str(cap, "status"), "CAPTURED");
    assert_string_equal(ad_str(cap, "id"), ad_str(auth, "id"));
    /* A retried capture answers the capture made, not a second charge. */
    assert_int_equal(pp->capture(&c, ad_str(auth, "id"), &m, ck, &again, &err), TRV_UP_OK);
    assert_string_equal(ad_str(again, "status"), "CAPTURED");
    assert_int_equal(pp->read(&c, ad_str(auth, "id"), &again, &err), TRV_UP_OK);
    assert_string_equal(ad_str(again, "status"), "CAPTURED");

    assert_int_equal(pp->refund(&c, ad_str(auth, "id"), &part, key("re"), &ref, &err), TRV_UP_OK);
    assert_string_equal(ad_str(ref, "status"), "SUCCEEDED");
    assert_int_equal(ad_minor(json_object_get(ref, "amount")), 2345);
    assert_int_equal(strncmp(ad_str(ref, "id"), "re_", 3), 0);
    /* More than is left to refund: refused. */
    assert_int_equal(pp->refund(&c, ad_str(auth, "id"), &rest, key("re"), &ref, &err),
                     TRV_UP_REJECTED);
    assert_string_equal(err.code, "amount_too_large");
}

static void same_key_same_authorization(void **state)
{
    const char *k = key("auth");
    json_t *a = authorize("pi_test_mastercard", 5000, "GBP", k, TRV_UP_OK, NULL);
    json_t *b = authorize("pi_test_mastercard", 5000, "GBP", k, TRV_UP_OK, NULL);
    trv_pay_err err;
    (void)state;
    assert_string_equal(ad_str(a, "id"), ad_str(b, "id"));
    card_is(a, "mastercard", "4444", "credit", NULL);
    /* The key with another request is refused rather than reused. */
    authorize("pi_test_mastercard", 5001, "GBP", k, TRV_UP_REJECTED, &err);
    assert_string_equal(err.code, "idempotency_key_reused");
}

static void test_instruments(void **state)
{
    trv_pay_ctx c = ctx();
    trv_pay_err err = {0};
    json_t *amex = authorize("pi_test_amex_applepay", 99900, "USD", NULL, TRV_UP_OK, NULL);
    json_t *yen = authorize("pi_test_visa", 12000, "JPY", NULL, TRV_UP_OK, NULL);
    json_t *slow = authorize("pi_test_slowcard", 700, "EUR", NULL, TRV_UP_OK, NULL), *later = NULL;
    (void)state;
    card_is(amex, "amex", "8431", "credit", "apple_pay");
    assert_int_equal(ad_minor(json_object_get(yen, "amount")), 12000);
    assert_string_equal(ad_str(json_object_get(yen, "amount"), "currency"), "JPY");
    authorize("pi_test_decline", 1000, "EUR", NULL, TRV_UP_DECLINED, &err);
    assert_string_equal(err.code, "card_declined");
    authorize("pi_unknown", 1000, "EUR", NULL, TRV_UP_REJECTED, &err);
    /* The slow card: authorized, its details not readable yet... */
    assert_string_equal(ad_str(slow, "status"), "AUTHORIZED");
    assert_true(json_is_null(json_object_get(slow, "card")));
    /* ...and readable a little later. */
    e2e_sleep_ms(2200);
    assert_int_equal(pp->read(&c, ad_str(slow, "id"), &later, &err), TRV_UP_OK);
    card_is(later, "visa", "1881", "debit", NULL);
}

static void void_then_capture_refused(void **state)
{
    trv_pay_ctx c = ctx();
    trv_pay_err err = {0};
    json_t *auth = authorize("pi_test_visa", 4200, "EUR", NULL, TRV_UP_OK, NULL), *v = NULL;
    trv_money m = money(4200, "EUR");
    (void)state;
    assert_int_equal(pp->void_auth(&c, ad_str(auth, "id"), &v, &err), TRV_UP_OK);
    assert_string_equal(ad_str(v, "status"), "VOIDED");
    assert_int_equal(pp->void_auth(&c, ad_str(auth, "id"), &v, &err), TRV_UP_OK);
    assert_int_equal(pp->capture(&c, ad_str(auth, "id"), &m, key("cap"), &v, &err),
                     TRV_UP_REJECTED);
    assert_int_equal(pp->read(&c, "auth_nope", &v, &err), TRV_UP_NOT_FOUND);
}

/* The customer's device pays the session: the sandbox's stand-in for the
 * client SDK, authenticated by the session's client secret. */
static long device_pays(const char *token, const char *instrument)
{
    const char *hdr[] = {"Content-Type: application/json", NULL};
    const char *cut = strstr(token, "_secret_");
    char path[256], body[512];
    e2e_resp *r;
    long st;
    assert_non_null(cut);
    snprintf(path, sizeof(path), "/payments/v1/sdk_sessions/%.*s/confirm", (int)(cut - token),
             token);
    snprintf(body, sizeof(body), "{\"client_secret\": \"%s\", \"payment_method\": \"%s\"}", token,
             instrument);
    r = e2e_call(e2e_sandbox_url(), "POST", path, hdr, body);
    st = r->status;
    e2e_free(r);
    return st;
}

static void sdk_session_flow(void **state)
{
    trv_pay_ctx c = ctx();
    trv_pay_err err = {0};
    trv_money m = money(45255, "GBP");
    json_t *tok = NULL, *auth = NULL, *cap = NULL;
    const char *token;
    (void)state;
    assert_int_equal(pp->sdk_token(&c, &m, key("sdk"), &tok, &err), TRV_UP_OK);
    assert_string_equal(ad_str(tok, "provider"), "sandbox_pay");
    token = ad_str(tok, "token");
    assert_non_null(token);
    /* Not paid yet. */
    assert_int_equal(pp->sdk_authorization(&c, token, &auth, &err), TRV_UP_NOT_FOUND);
    /* A wrong secret cannot pay it; the right one can, once. */
    assert_int_equal(device_pays(apr_pstrcat(ad_pool, apr_pstrndup(ad_pool, token,
        (apr_size_t)(strstr(token, "_secret_") - token)), "_secret_wrong", NULL), "pi_test_visa"),
        401);
    assert_int_equal(device_pays(token, "pi_test_amex_applepay"), 200);
    assert_int_equal(device_pays(token, "pi_test_visa"), 400);
    assert_int_equal(pp->sdk_authorization(&c, token, &auth, &err), TRV_UP_OK);
    assert_string_equal(ad_str(auth, "status"), "AUTHORIZED");
    assert_int_equal(ad_minor(json_object_get(auth, "amount")), 45255);
    card_is(auth, "amex", "8431", "credit", "apple_pay");
    assert_int_equal(pp->capture(&c, ad_str(auth, "id"), &m, key("cap"), &cap, &err), TRV_UP_OK);
    assert_string_equal(ad_str(cap, "status"), "CAPTURED");
    assert_int_equal(pp->sdk_authorization(&c, "garbage", &auth, &err), TRV_UP_NOT_FOUND);
}

/* sdk_cancel: the device can pay the session no more; the answer names
 * the authorization it made before, if any, and stays the same when asked
 * again. */
static void sdk_cancel_flow(void **state)
{
    trv_pay_ctx c = ctx();
    trv_pay_err err = {0};
    trv_money m = money(31000, "EUR");
    json_t *tok = NULL, *auth = NULL, *v = NULL;
    const char *unpaid, *paid, *captured;
    (void)state;
    assert_int_equal(pp->sdk_token(&c, &m, key("sdk"), &tok, &err), TRV_UP_OK);
    unpaid = ad_str(tok, "token");
    assert_int_equal(pp->sdk_token(&c, &m, key("sdk"), &tok, &err), TRV_UP_OK);
    paid = ad_str(tok, "token");
    assert_int_equal(pp->sdk_token(&c, &m, key("sdk"), &tok, &err), TRV_UP_OK);
    captured = ad_str(tok, "token");

    /* Never paid: canceled, nothing to void, and the device is refused. */
    auth = (json_t *)1;
    assert_int_equal(pp->sdk_cancel(&c, unpaid, &auth, &err), TRV_UP_OK);
    assert_null(auth);
    assert_int_equal(device_pays(unpaid, "pi_test_visa"), 400);
    assert_int_equal(pp->sdk_cancel(&c, unpaid, &auth, &err), TRV_UP_OK);
    assert_null(auth);
    assert_int_equal(pp->sdk_authorization(&c, unpaid, &auth, &err), TRV_UP_NOT_FOUND);

    /* Paid before the cancel: the answer names the authorization, still
     * held, for the caller to void. */
    assert_int_equal(device_pays(paid, "pi_test_mastercard"), 200);
    assert_int_equal(pp->sdk_cancel(&c, paid, &auth, &err), TRV_UP_OK);
    assert_non_null(auth);
    assert_string_equal(ad_str(auth, "status"), "AUTHORIZED");
    assert_int_equal(ad_minor(json_object_get(auth, "amount")), 31000);
    assert_int_equal(device_pays(paid, "pi_test_visa"), 400);
    assert_int_equal(pp->void_auth(&c, ad_str(auth, "id"), &v, &err), TRV_UP_OK);
    assert_string_equal(ad_str(v, "status"), "VOIDED");
    assert_int_equal(pp->sdk_cancel(&c, paid, &v, &err), TRV_UP_OK);
    assert_non_null(v);
    assert_string_equal(ad_str(v, "id"), ad_str(auth, "id"));

    /* Captured: not canceled (refunded instead). */
    assert_int_equal(device_pays(captured, "pi_test_visa"), 200);
    assert_int_equal(pp->sdk_authorization(&c, captured, &auth, &err), TRV_UP_OK);
    assert_int_equal(pp->capture(&c, ad_str(auth, "id"), &m, key("cap"), &v, &err), TRV_UP_OK);
    assert_int_equal(pp->sdk_cancel(&c, captured, &v, &err), TRV_UP_REJECTED);
    assert_string_equal(err.code, "sdk_session_unexpected_state");

    assert_int_equal(pp->sdk_cancel(&c, "garbage", &v, &err), TRV_UP_NOT_FOUND);
    assert_int_equal(pp->sdk_cancel(&c, "cs_nope_secret_x", &v, &err), TRV_UP_NOT_FOUND);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(authorize_capture_refund, ad_setup, ad_teardown),
        cmocka_unit_test_setup_teardown(same_key_same_authorization, ad_setup, ad_teardown),
        cmocka_unit_test_setup_teardown(test_instruments, ad_setup, ad_teardown),
        cmocka_unit_test_setup_teardown(void_then_capture_refused, ad_setup, ad_teardown),
        cmocka_unit_test_setup_teardown(sdk_session_flow, ad_setup, ad_teardown),
        cmocka_unit_test_setup_teardown(sdk_cancel_flow, ad_setup, ad_teardown),
    };
    srand((unsigned)e2e_now_ms());
    return E2E_RUN("adapter_payment", tests);
}
