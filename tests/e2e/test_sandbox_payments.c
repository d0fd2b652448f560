/* The sandbox payment provider over real HTTP, in its own (Stripe-like)
 * wire format: integer minor units and lower-case currencies, bearer key,
 * 402 card errors, idempotent replays marked as such, captures and
 * refunds bounded by what was authorized and captured, and SDK sessions
 * paid by the customer's device with the session's client secret. */
#include "e2e.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static e2e_resp *pay(const char *method, const char *path, const char *key, const char *idem,
                     const char *body)
{
    char auth[128], ik[256];
    const char *h[4] = {"Content-Type: application/json", NULL, NULL, NULL};
    int n = 1;
    if (key) {
        snprintf(auth, sizeof(auth), "Authorization: Bearer %s", key);
        h[n++] = auth;
    }
    if (idem) {
        snprintf(ik, sizeof(ik), "Idempotency-Key: %s", idem);
        h[n++] = ik;
    }
    return e2e_call(e2e_sandbox_url(), method, path, h, body);
}

#define KEY "sandbox-key-pay"

static const char *s(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

static long long i(const json_t *o, const char *k)
{
    return (long long)json_integer_value(json_object_get(o, k));
}

static void authorizations_speak_minor_units(void **state)
{
    char key[64], path[256];
    e2e_resp *r, *again;
    char *replayed;
    json_t *a;
    (void)state;
    r = pay("POST", "/payments/v1/authorizations", NULL, NULL, "{}");
    assert_int_equal(r->status, 401);
    e2e_free(r);
    snprintf(key, sizeof(key), "k-%ld", e2e_now_ms());
    r = pay("POST", "/payments/v1/authorizations", KEY, key,
            "{\"amount\": 45255, \"currency\": \"gbp\", \"payment_method\": \"pi_test_visa\"}");
    assert_int_equal(r->status, 200);
    a = r->json;
    assert_string_equal(s(a, "object"), "authorization");
    assert_string_equal(s(a, "status"), "requires_capture");
    assert_int_equal(i(a, "amount"), 45255);
    assert_int_equal(i(a, "amount_capturable"), 45255);
    assert_string_equal(s(a, "currency"), "gbp");
    assert_string_equal(s(json_object_get(json_object_get(a, "payment_method_details"), "card"),
                          "last4"), "4242");
    again = pay("POST", "/payments/v1/authorizations", KEY, key,
                "{\"amount\": 45255, \"currency\": \"gbp\", \"payment_method\": \"pi_test_visa\"}");
    assert_int_equal(again->status, 200);
    assert_string_equal(s(again->json, "id"), s(a, "id"));
    replayed = e2e_header(again, "Idempotent-Replayed");
    assert_non_null(replayed);
    free(replayed);
    e2e_free(again);

    snprintf(path, sizeof(path), "/payments/v1/authorizations/%s/capture", s(a, "id"));
    again = pay("POST", path, KEY, NULL, "{\"amount_to_capture\": 45256}");
    assert_int_equal(again->status, 400); /* more than authorized */
    e2e_free(again);
    again = pay("POST", path, KEY, NULL, "{\"amount_to_capture\": 40000}");
    assert_int_equal(again->status, 200);
    assert_string_equal(s(again->json, "status"), "captured");
    assert_int_equal(i(again->json, "amount_captured"), 40000);
    e2e_free(again);
    snprintf(path, sizeof(path), "{\"authorization\": \"%s\"}", s(a, "id"));
    again = pay("POST", "/payments/v1/refunds", KEY, NULL, path); /* the rest: all captured */
    assert_int_equal(again->status, 200);
    assert_int_equal(i(again->json, "amount"), 40000);
    assert_string_equal(s(again->json, "status"), "succeeded");
    e2e_free(again);
    again = pay("POST", "/payments/v1/refunds", KEY, NULL, path);
    assert_int_equal(again->status, 400); /* nothing left */
    e2e_free(again);
    e2e_free(r);
}

static void declines_are_402_card_errors(void **state)
{
    e2e_resp *r = pay("POST", "/payments/v1/authorizations", KEY, NULL,
                      "{\"amount\": 100, \"currency\": \"eur\", \"payment_method\": \"pi_test_decline\"}");
    (void)state;
    assert_int_equal(r->status, 402);
    assert_string_equal(e2e_error_code(r), "card_declined");
    assert_string_equal(s(json_object_get(r->json, "error"), "type"), "card_error");
    e2e_free(r);
    r = pay("POST", "/payments/v1/authorizations", KEY, NULL,
            "{\"amount\": 100, \"currency\": \"xyz\", \"payment_method\": \"pi_test_visa\"}");
    assert_int_equal(r->status, 400);
    e2e_free(r);
    r = pay("POST", "/payments/v1/authorizations", KEY, NULL,
            "{\"amount\": 1.5, \"currency\": \"eur\", \"payment_method\": \"pi_test_visa\"}");
    assert_int_equal(r->status, 400);
    e2e_free(r);
}

static void the_device_pays_a_session(void **state)
{
    e2e_resp *r = pay("POST", "/payments/v1/sdk_sessions", KEY, NULL,
                      "{\"amount\": 9900, \"currency\": \"usd\"}"), *c;
    char path[256], body[512];
    (void)state;
    assert_int_equal(r->status, 200);
    assert_string_equal(s(r->json, "status"), "open");
    assert_int_equal(strncmp(s(r->json, "client_secret"), s(r->json, "id"), strlen(s(r->json, "id"))),
                     0);
    snprintf(path, sizeof(path), "/payments/v1/sdk_sessions/%s/confirm", s(r->json, "id"));
    /* No merchant key: the device holds only the client secret. */
    snprintf(body, sizeof(body), "{\"client_secret\": \"%s\", \"payment_method\": \"pi_test_visa\"}",
             s(r->json, "client_secret"));
    c = pay("POST", path, NULL, NULL, body);
    assert_int_equal(c->status, 200);
    assert_string_equal(s(c->json, "status"), "complete");
    assert_null(json_object_get(c->json, "client_secret")); /* never shown again */
    assert_int_equal(i(json_object_get(c->json, "authorization"), "amount"), 9900);
    e2e_free(c);
    snprintf(path, sizeof(path), "/payments/v1/sdk_sessions/%s", s(r->json, "id"));
    c = pay("GET", path, KEY, NULL, NULL);
    assert_int_equal(c->status, 200);
    assert_string_equal(s(json_object_get(c->json, "authorization"), "status"), "requires_capture");
    e2e_free(c);
    e2e_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(authorizations_speak_minor_units),
        cmocka_unit_test(declines_are_402_card_errors),
        cmocka_unit_test(the_device_pays_a_session),
    };
    return E2E_RUN("sandbox_payments", tests);
}
