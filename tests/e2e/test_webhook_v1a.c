/* Asymmetric signatures (Standard Webhooks v1a, Ed25519): a subscription
 * made with signature_scheme "v1a" shows its public key (whpk_) and never
 * a secret; its deliveries carry "v1a,<signature>" that verifies under that
 * key (an OpenSSL verifier here, and Node's crypto in
 * webhook-verifier/verify.mjs, neither using the module's code); rotation
 * and a change of scheme keep the previous key signing for the overlap. */
#include "test_webhook_common.h"

static char *key, *org;

static int setup(void **state)
{
    (void)state;
    free(key);
    free(org);
    key = e2e_new_org_key("v1a", &org);
    return 0;
}

/* The one request the inbox got for an event, after its delivery is
 * DELIVERED. */
static json_t *delivered_request(const char *inbox, const char *sid, const char *event)
{
    char *dlv = wh_delivery_of(sid, event);
    json_t *all, *r, *out = NULL;
    size_t i;
    assert_non_null(dlv);
    json_decref(wh_wait_delivery(key, "flight", sid, dlv, "DELIVERED", 1, 20000));
    free(dlv);
    all = wh_inbox_requests(inbox);
    json_array_foreach(all, i, r) {
        if (strcmp(wh_header(r, "webhook-id") ? wh_header(r, "webhook-id") : "", event) == 0) {
            assert_null(out);
            out = json_incref(r);
        }
    }
    json_decref(all);
    assert_non_null(out);
    return out;
}

static void add_case(json_t *cases, const json_t *req, const char *what, const char *k,
                     int expect)
{
    json_array_append_new(cases, json_pack("{s:s,s:{s:s,s:s,s:s},s:s,s:b}", what, k, "headers",
        "webhook-id", wh_header(req, "webhook-id"),
        "webhook-timestamp", wh_header(req, "webhook-timestamp"),
        "webhook-signature", wh_header(req, "webhook-signature"),
        "body", wh_str(req, "body"), "expect", expect));
}

static void v1a_deliveries_verify_under_the_public_key_through_rotation(void **state)
{
    char inbox[64], url[256], body[1024], path[256];
    json_t *s, *got, *r1, *r2, *r3, *cases = json_array();
    char *e1, *e2, *e3, *pk1, *pk2, *tampered;
    const char *sid, *whsec;
    e2e_resp *r;
    (void)state;
    wh_inbox(inbox, sizeof(inbox), url, sizeof(url));
    snprintf(body, sizeof(body), "{\"url\": \"%s\", \"event_types\": "
             "[\"flight.booking.confirmed\"], \"signature_scheme\": \"v1a\"}", url);
    r = wh_call(key, "POST", "/v1/flight/webhook-subscriptions", body);
    assert_int_equal(r->status, 201);
    s = json_incref(json_object_get(r->json, "data"));
    e2e_free(r);
    sid = wh_str(s, "id");
    assert_string_equal(wh_str(s, "signature_scheme"), "v1a");
    /* whpk_ + base64 of 32 bytes; the private key is never shown. */
    pk1 = strdup(wh_str(s, "public_key"));
    assert_true(strncmp(pk1, "whpk_", 5) == 0);
    assert_int_equal(strlen(pk1), 5 + 44);
    assert_null(json_object_get(s, "signing_secret"));

    snprintf(path, sizeof(path), "/v1/flight/webhook-subscriptions/%s", sid);
    r = wh_call(key, "GET", path, NULL);
    assert_string_equal(wh_str(json_object_get(r->json, "data"), "public_key"), pk1);
    assert_null(strstr(r->body, "whsk_"));
    e2e_free(r);

    e1 = wh_emit(org, "flight.booking.confirmed", "{\"booking\": {\"id\": \"bkg_a1\", "
                 "\"note\": \"\u00e9t\u00e9\"}}");
    r1 = delivered_request(inbox, sid, e1);
    assert_true(strncmp(wh_header(r1, "webhook-signature"), "v1a,", 4) == 0);
    assert_int_equal(wh_signature_count(r1), 1);
    assert_true(wh_request_verifies_v1a(r1, pk1));
    /* Not an HMAC signature, and not valid for a changed body. */
    assert_false(wh_request_verifies(r1, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"));
    tampered = strdup(wh_str(r1, "body"));
    tampered[5] = tampered[5] == 'x' ? 'y' : 'x';
    assert_false(swh_verify_v1a(pk1, wh_header(r1, "webhook-id"),
                                wh_header(r1, "webhook-timestamp"),
                                wh_header(r1, "webhook-signature"), tampered,
                                strlen(tampered)));

    /* Rotation: a new key pair; new requests carry both keys' signatures. */
    snprintf(path, sizeof(path), "/v1/flight/webhook-subscriptions/%s/rotate-secret", sid);
    r = wh_call(key, "POST", path, NULL);
    assert_int_equal(r->status, 200);
    got = json_object_get(r->json, "data");
    pk2 = strdup(wh_str(got, "public_key"));
    assert_true(strncmp(pk2, "whpk_", 5) == 0);
    assert_string_not_equal(pk1, pk2);
    assert_null(json_object_get(got, "signing_secret"));
    assert_false(json_is_null(json_object_get(got, "previous_secret_expires_at")));
    e2e_free(r);
    e2 = wh_emit(org, "flight.booking.confirmed", "{\"booking\": {\"id\": \"bkg_a2\"}}");
    r2 = delivered_request(inbox, sid, e2);
    assert_int_equal(wh_signature_count(r2), 2);
    assert_true(wh_request_verifies_v1a(r2, pk1));
    assert_true(wh_request_verifies_v1a(r2, pk2));
    assert_false(wh_request_verifies_v1a(r1, pk2));

    /* A change of scheme is a new key of that scheme, the previous one
     * still signing: the answer shows the v1 secret once. */
    snprintf(path, sizeof(path), "/v1/flight/webhook-subscriptions/%s", sid);
    r = wh_call(key, "PATCH", path, "{\"signature_scheme\": \"v1\"}");
    assert_int_equal(r->status, 200);
    got = json_object_get(r->json, "data");
    assert_string_equal(wh_str(got, "signature_scheme"), "v1");
    assert_true(json_is_null(json_object_get(got, "public_key")));
    whsec = wh_str(got, "signing_secret");
    assert_true(strncmp(whsec, "whsec_", 6) == 0);
    whsec = strdup(whsec);
    e2e_free(r);
    e3 = wh_emit(org, "flight.booking.confirmed", "{\"booking\": {\"id\": \"bkg_a3\"}}");
    r3 = delivered_request(inbox, sid, e3);
    assert_int_equal(wh_signature_count(r3), 2);
    assert_true(wh_request_verifies(r3, whsec));
    assert_true(wh_request_verifies_v1a(r3, pk2));
    assert_false(wh_request_verifies_v1a(r3, pk1));
    /* The same scheme again changes nothing (no secret shown). */
    r = wh_call(key, "PATCH", path, "{\"signature_scheme\": \"v1\"}");
    assert_int_equal(r->status, 200);
    assert_null(json_object_get(json_object_get(r->json, "data"), "signing_secret"));
    e2e_free(r);

    /* The same judgements by Node's crypto and the standardwebhooks package. */
    add_case(cases, r1, "public_key", pk1, 1);
    add_case(cases, r1, "public_key", pk2, 0);
    add_case(cases, r2, "public_key", pk1, 1);
    add_case(cases, r2, "public_key", pk2, 1);
    add_case(cases, r3, "public_key", pk2, 1);
    add_case(cases, r3, "public_key", pk1, 0);
    add_case(cases, r3, "secret", whsec, 1);
    json_object_set_new(json_array_get(cases, 0), "body", json_string(tampered));
    json_object_set_new(json_array_get(cases, 0), "expect", json_false());
    add_case(cases, r1, "public_key", pk1, 1);
    wh_node_verify(cases);

    free(e1);
    free(e2);
    free(e3);
    free(pk1);
    free(pk2);
    free(tampered);
    free((char *)whsec);
    json_decref(r1);
    json_decref(r2);
    json_decref(r3);
    json_decref(cases);
    json_decref(s);
}

static void a_v1_subscription_moves_to_v1a_and_bad_schemes_are_refused(void **state)
{
    char inbox[64], url[256], body[1024], path[256];
    json_t *s, *req;
    char *ev, *secret, *pk;
    e2e_resp *r;
    (void)state;
    wh_inbox(inbox, sizeof(inbox), url, sizeof(url));
    snprintf(body, sizeof(body), "{\"url\": \"%s\", \"event_types\": "
             "[\"flight.booking.confirmed\"], \"signature_scheme\": \"v2\"}", url);
    r = wh_call(key, "POST", "/v1/flight/webhook-subscriptions", body);
    e2e_assert_error(r, 422, "validation_failed");
    assert_non_null(wh_detail(r, "signature_scheme"));
    e2e_free(r);

    s = wh_subscribe(key, "flight", url, "[\"flight.booking.confirmed\"]");
    assert_string_equal(wh_str(s, "signature_scheme"), "v1");
    assert_true(json_is_null(json_object_get(s, "public_key")));
    secret = strdup(wh_str(s, "signing_secret"));
    snprintf(path, sizeof(path), "/v1/flight/webhook-subscriptions/%s", wh_str(s, "id"));
    r = wh_call(key, "PATCH", path, "{\"signature_scheme\": 1}");
    e2e_assert_error(r, 422, "validation_failed");
    assert_non_null(wh_detail(r, "signature_scheme"));
    e2e_free(r);
    r = wh_call(key, "PATCH", path, "{\"signature_scheme\": \"v1a\"}");
    assert_int_equal(r->status, 200);
    pk = strdup(wh_str(json_object_get(r->json, "data"), "public_key"));
    assert_null(json_object_get(json_object_get(r->json, "data"), "signing_secret"));
    e2e_free(r);
    ev = wh_emit(org, "flight.booking.confirmed", "{\"booking\": {\"id\": \"bkg_b1\"}}");
    req = delivered_request(inbox, wh_str(s, "id"), ev);
    /* The v1 secret keeps signing beside the new key during the overlap. */
    assert_int_equal(wh_signature_count(req), 2);
    assert_true(wh_request_verifies_v1a(req, pk));
    assert_true(wh_request_verifies(req, secret));
    free(ev);
    free(secret);
    free(pk);
    json_decref(req);
    json_decref(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(v1a_deliveries_verify_under_the_public_key_through_rotation,
                               setup),
        cmocka_unit_test_setup(a_v1_subscription_moves_to_v1a_and_bad_schemes_are_refused,
                               setup),
    };
    return E2E_RUN("webhook v1a signatures", tests);
}
