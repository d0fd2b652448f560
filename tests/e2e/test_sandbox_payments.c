/* The sandbox payment provider over real HTTP, in its own (Stripe-like)
 * wire format: integer minor units and lower-case currencies, bearer key,
 * 402 card errors, idempotent replays marked as such, captures and
 * refunds bounded by what was authorized and captured, SDK sessions
 * paid by the customer's device with the session's client secret, and
 * canceled by the merchant so the device can pay them no more (atomic
 * against a confirm racing it), and vault and forward to its one kind of
 * destination. */
#include "e2e.h"

#include <pthread.h>
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

/* Vault and forward: the provider sends a merchant's request to one of its
 * destinations (this sandbox's SUPPLIER_C links) with payments[].number
 * filled from the instrument, and answers the destination's response;
 * what it kept of the request shows the number masked. It forwards
 * nowhere else, for no unknown instrument, and nothing but card_number. */
static void forwarding_fills_the_card_for_its_destinations_only(void **state)
{
    char body[1024], url[256];
    const char *dest = "{\\\"payments\\\": [{\\\"type\\\": \\\"customer_card\\\", "
                       "\\\"number\\\": \\\"\\\"}]}";
    const json_t *rd, *sd;
    e2e_resp *r, *again;
    (void)state;
    snprintf(url, sizeof(url), "%s/hotels/c/v3/itineraries?token=not-a-token",
             e2e_sandbox_url());
    snprintf(body, sizeof(body), "{\"payment_method\": \"pi_test_mastercard\", \"url\": \"%s\", "
             "\"replacements\": [\"card_number\"], \"request\": {\"headers\": "
             "[{\"name\": \"Idempotency-Key\", \"value\": \"fwd-test-1\"}], \"body\": \"%s\"}}",
             url, dest);
    r = pay("POST", "/payments/v1/forwarding/requests", KEY, "fwd-1", body);
    assert_int_equal(r->status, 200);
    assert_string_equal(s(r->json, "object"), "forwarding.request");
    assert_string_equal(s(r->json, "payment_method"), "pi_test_mastercard");
    rd = json_object_get(r->json, "response_details");
    sd = json_object_get(r->json, "request_details");
    /* The destination refused the unsigned request: its answer (Rapid's
     * error type), passed on. */
    assert_int_equal(i(rd, "status"), 401);
    assert_non_null(strstr(s(rd, "body"), "request_unauthenticated"));
    assert_non_null(strstr(s(sd, "body"), "555555******4444"));
    assert_null(strstr(r->body, "5555555555554444"));
    /* A repeat under the same key is the first answer. */
    again = pay("POST", "/payments/v1/forwarding/requests", KEY, "fwd-1", body);
    assert_int_equal(again->status, 200);
    assert_string_equal(s(again->json, "id"), s(r->json, "id"));
    e2e_free(again);
    e2e_free(r);
    /* Not a destination: another path of this server, another host. */
    snprintf(body, sizeof(body), "{\"payment_method\": \"pi_test_visa\", \"url\": "
             "\"%s/payments/v1/authorizations\", \"replacements\": [\"card_number\"], "
             "\"request\": {\"body\": \"%s\"}}", e2e_sandbox_url(), dest);
    r = pay("POST", "/payments/v1/forwarding/requests", KEY, NULL, body);
    assert_int_equal(r->status, 400);
    assert_string_equal(e2e_error_code(r), "forwarding_destination_invalid");
    e2e_free(r);
    snprintf(body, sizeof(body), "{\"payment_method\": \"pi_test_visa\", \"url\": "
             "\"http://10.1.2.3/hotels/c/v3/itineraries\", \"replacements\": [\"card_number\"], "
             "\"request\": {\"body\": \"%s\"}}", dest);
    r = pay("POST", "/payments/v1/forwarding/requests", KEY, NULL, body);
    assert_int_equal(r->status, 400);
    assert_string_equal(e2e_error_code(r), "forwarding_destination_invalid");
    e2e_free(r);
    /* No such instrument; a field it does not fill. */
    snprintf(body, sizeof(body), "{\"payment_method\": \"pi_nope\", \"url\": \"%s\", "
             "\"replacements\": [\"card_number\"], \"request\": {\"body\": \"%s\"}}", url, dest);
    r = pay("POST", "/payments/v1/forwarding/requests", KEY, NULL, body);
    assert_int_equal(r->status, 400);
    assert_string_equal(e2e_error_code(r), "resource_missing");
    e2e_free(r);
    snprintf(body, sizeof(body), "{\"payment_method\": \"pi_test_visa\", \"url\": \"%s\", "
             "\"replacements\": [\"card_cvc\"], \"request\": {\"body\": \"%s\"}}", url, dest);
    r = pay("POST", "/payments/v1/forwarding/requests", KEY, NULL, body);
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

/* ---- canceling a session ---- */

static json_t *new_session(long amount)
{
    char body[128];
    e2e_resp *r;
    json_t *doc;
    snprintf(body, sizeof(body), "{\"amount\": %ld, \"currency\": \"eur\"}", amount);
    r = pay("POST", "/payments/v1/sdk_sessions", KEY, NULL, body);
    assert_int_equal(r->status, 200);
    doc = json_incref(r->json);
    e2e_free(r);
    return doc;
}

/* The device confirms (no merchant key): the response. */
static e2e_resp *confirm(const json_t *session, const char *instrument)
{
    char path[256], body[512];
    snprintf(path, sizeof(path), "/payments/v1/sdk_sessions/%s/confirm", s(session, "id"));
    snprintf(body, sizeof(body), "{\"client_secret\": \"%s\", \"payment_method\": \"%s\"}",
             s(session, "client_secret"), instrument);
    return pay("POST", path, NULL, NULL, body);
}

static e2e_resp *cancel_session(const json_t *session, const char *key)
{
    char path[256];
    snprintf(path, sizeof(path), "/payments/v1/sdk_sessions/%s/cancel", s(session, "id"));
    return pay("POST", path, key, NULL, NULL);
}

/* Authorizations the provider made for this session, in this status (NULL: any). */
static long session_auths(const json_t *session, const char *status)
{
    const char *p[2] = {s(session, "id"), status};
    return e2e_sql_long("SELECT count(*) FROM sandbox.pay_authorizations WHERE session_id = $1 "
                        "AND ($2::text IS NULL OR status = $2)", 2, p);
}

static void a_canceled_session_cannot_be_paid(void **state)
{
    json_t *cs = new_session(4100);
    e2e_resp *r, *again;
    (void)state;
    /* The merchant's call: the device's client secret is not enough. */
    r = cancel_session(cs, NULL);
    assert_int_equal(r->status, 401);
    e2e_free(r);
    r = cancel_session(cs, KEY);
    assert_int_equal(r->status, 200);
    assert_string_equal(s(r->json, "status"), "canceled");
    assert_true(json_is_null(json_object_get(r->json, "authorization")));
    assert_true(json_is_integer(json_object_get(r->json, "canceled_at")));
    /* Canceling again answers the same. */
    again = cancel_session(cs, KEY);
    assert_int_equal(again->status, 200);
    assert_string_equal(s(again->json, "status"), "canceled");
    assert_int_equal(i(again->json, "canceled_at"), i(r->json, "canceled_at"));
    e2e_free(again);
    e2e_free(r);
    /* The device is refused, clearly, and nothing is held. */
    r = confirm(cs, "pi_test_visa");
    assert_int_equal(r->status, 400);
    assert_string_equal(e2e_error_code(r), "sdk_session_canceled");
    e2e_free(r);
    assert_int_equal(session_auths(cs, NULL), 0);
    {
        char path[256];
        snprintf(path, sizeof(path), "/payments/v1/sdk_sessions/%s", s(cs, "id"));
        r = pay("GET", path, KEY, NULL, NULL);
        assert_int_equal(r->status, 200);
        assert_string_equal(s(r->json, "status"), "canceled");
        e2e_free(r);
        r = pay("POST", "/payments/v1/sdk_sessions/cs_nope/cancel", KEY, NULL, NULL);
        assert_int_equal(r->status, 404);
        e2e_free(r);
    }
    json_decref(cs);
}

static void canceling_a_paid_session_answers_its_authorization(void **state)
{
    json_t *cs = new_session(5200), *paid = new_session(700);
    e2e_resp *r, *c;
    char path[256];
    (void)state;
    r = confirm(cs, "pi_test_mastercard");
    assert_int_equal(r->status, 200);
    e2e_free(r);
    c = cancel_session(cs, KEY);
    assert_int_equal(c->status, 200);
    assert_string_equal(s(c->json, "status"), "canceled");
    /* Still held: voiding it is the merchant's next call. */
    assert_string_equal(s(json_object_get(c->json, "authorization"), "status"),
                        "requires_capture");
    assert_int_equal(i(json_object_get(c->json, "authorization"), "amount"), 5200);
    r = confirm(cs, "pi_test_visa");
    assert_int_equal(r->status, 400);
    assert_string_equal(e2e_error_code(r), "sdk_session_canceled");
    e2e_free(r);
    snprintf(path, sizeof(path), "/payments/v1/authorizations/%s/cancel",
             s(json_object_get(c->json, "authorization"), "id"));
    r = pay("POST", path, KEY, NULL, NULL);
    assert_int_equal(r->status, 200);
    e2e_free(r);
    r = cancel_session(cs, KEY);
    assert_int_equal(r->status, 200);
    assert_string_equal(s(json_object_get(r->json, "authorization"), "status"), "canceled");
    e2e_free(r);
    assert_int_equal(session_auths(cs, NULL), 1);
    assert_int_equal(session_auths(cs, "canceled"), 1);
    e2e_free(c);

    /* A captured payment is not canceled: it is refunded. */
    r = confirm(paid, "pi_test_visa");
    assert_int_equal(r->status, 200);
    snprintf(path, sizeof(path), "/payments/v1/authorizations/%s/capture",
             s(json_object_get(r->json, "authorization"), "id"));
    e2e_free(r);
    r = pay("POST", path, KEY, NULL, "{}");
    assert_int_equal(r->status, 200);
    e2e_free(r);
    r = cancel_session(paid, KEY);
    assert_int_equal(r->status, 400);
    assert_string_equal(e2e_error_code(r), "sdk_session_unexpected_state");
    e2e_free(r);
    assert_int_equal(session_auths(paid, "captured"), 1);
    json_decref(cs);
    json_decref(paid);
}

/* Devices confirming while the merchant cancels: either the cancel comes
 * first and every confirm is refused, or one confirm comes first and the
 * cancel's answer names its authorization. Never an authorization the
 * cancel does not name. */
#define RACERS 4
#define ROUNDS 8

typedef struct racer {
    const json_t *session;
    const char *instrument;
    long delay_ms;
    e2e_resp *resp;
} racer;

static void *race_confirm(void *u)
{
    racer *r = u;
    e2e_sleep_ms(r->delay_ms);
    r->resp = confirm(r->session, r->instrument);
    return NULL;
}

static void cancel_and_confirm_are_atomic(void **state)
{
    int round, k, before = 0, after = 0;
    (void)state;
    for (round = 0; round < ROUNDS; round++) {
        json_t *cs = new_session(1000 + round);
        racer rs[RACERS];
        pthread_t th[RACERS];
        e2e_resp *c;
        const json_t *named;
        int paid = 0;
        for (k = 0; k < RACERS; k++) {
            rs[k].session = cs;
            rs[k].instrument = k % 2 ? "pi_test_visa" : "pi_test_mastercard";
            rs[k].resp = NULL;
            /* Some rounds the devices are first, some the merchant. */
            rs[k].delay_ms = (round % 4) * k;
            assert_int_equal(pthread_create(&th[k], NULL, race_confirm, &rs[k]), 0);
        }
        c = cancel_session(cs, KEY);
        for (k = 0; k < RACERS; k++) {
            pthread_join(th[k], NULL);
        }
        assert_int_equal(c->status, 200);
        assert_string_equal(s(c->json, "status"), "canceled");
        named = json_object_get(c->json, "authorization");
        for (k = 0; k < RACERS; k++) {
            if (rs[k].resp->status == 200) {
                paid++;
                /* The confirm that won is the authorization the cancel named. */
                assert_non_null(json_object_get(rs[k].resp->json, "authorization"));
                assert_true(json_is_object(named));
                assert_string_equal(s(json_object_get(rs[k].resp->json, "authorization"), "id"),
                                    s(named, "id"));
            }
            else {
                assert_int_equal(rs[k].resp->status, 400);
            }
            e2e_free(rs[k].resp);
        }
        assert_true(paid <= 1);
        if (!paid) {
            assert_true(json_is_null(named));
        }
        assert_int_equal(session_auths(cs, NULL), paid);
        paid ? before++ : after++;
        e2e_free(c);
        json_decref(cs);
    }
    /* Informative only: which side won how often. */
    print_message("cancel vs confirm: %d rounds paid first, %d canceled first\n", before, after);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(authorizations_speak_minor_units),
        cmocka_unit_test(declines_are_402_card_errors),
        cmocka_unit_test(forwarding_fills_the_card_for_its_destinations_only),
        cmocka_unit_test(the_device_pays_a_session),
        cmocka_unit_test(a_canceled_session_cannot_be_paid),
        cmocka_unit_test(canceling_a_paid_session_answers_its_authorization),
        cmocka_unit_test(cancel_and_confirm_are_atomic),
    };
    return E2E_RUN("sandbox_payments", tests);
}
