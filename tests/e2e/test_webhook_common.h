/* Shared by the webhook e2e tests: calls to the subscription API, events
 * put into the outbox the way a domain does (an events row and its
 * event.publish job, by SQL), the sandbox inbox, and an independent
 * Standard Webhooks verifier written from the specification (OpenSSL). */
#ifndef TRV_TEST_WEBHOOK_COMMON_H
#define TRV_TEST_WEBHOOK_COMMON_H

#include "e2e.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define WH_FN static __attribute__((unused))

WH_FN e2e_resp *wh_call(const char *key, const char *method, const char *path,
                         const char *body)
{
    char kh[512];
    const char *hdrs[3] = {kh, body ? "Content-Type: application/json" : NULL, NULL};
    snprintf(kh, sizeof(kh), "x-api-key: %s", key);
    return e2e_call(e2e_url(), method, path, hdrs, body);
}

/* A fresh inbox name and its URL at the sandbox (loopback: allowed by the
 * test configuration). */
WH_FN void wh_inbox(char *name, size_t nlen, char *url, size_t ulen)
{
    static int seq;
    snprintf(name, nlen, "wh%d-%ld-%d", (int)getpid(), e2e_now_ms() % 100000000L, ++seq);
    snprintf(url, ulen, "%s/inbox/%s", e2e_sandbox_url(), name);
}

/* Creates a subscription; returns its data (with signing_secret), or fails. */
WH_FN json_t *wh_subscribe(const char *key, const char *family, const char *url,
                            const char *types_json)
{
    char path[128], body[4096];
    e2e_resp *r;
    json_t *data;
    snprintf(path, sizeof(path), "/v1/%s/webhook-subscriptions", family);
    snprintf(body, sizeof(body), "{\"url\": \"%s\", \"event_types\": %s}", url, types_json);
    r = wh_call(key, "POST", path, body);
    if (r->status != 201) {
        fail_msg("subscribing %s: %ld %s", url, r->status, r->body);
    }
    data = json_incref(json_object_get(r->json, "data"));
    e2e_free(r);
    return data;
}

WH_FN const char *wh_str(const json_t *obj, const char *key)
{
    const char *s = json_string_value(json_object_get(obj, key));
    return s ? s : "";
}

/* Puts an event into the outbox as trv_outbox_emit does: the event row and
 * its event.publish job. Returns the event id (malloc'd). */
WH_FN char *wh_emit(const char *org_id, const char *type, const char *data_json)
{
    char family[16];
    const char *dot = strchr(type, '.');
    const char *p[4];
    char *id;
    snprintf(family, sizeof(family), "%.*s", (int)(dot - type), type);
    p[0] = org_id;
    p[1] = family;
    p[2] = type;
    p[3] = data_json;
    id = e2e_sql_text("WITH e AS (INSERT INTO events (id, org_id, family, type, data) "
                      "VALUES ('evt_' || gen_random_uuid(), $1, $2, $3, $4::jsonb) "
                      "RETURNING id), j AS (INSERT INTO jobs (kind, payload) "
                      "SELECT 'event.publish', jsonb_build_object('event_id', id) FROM e) "
                      "SELECT id FROM e", 4, p);
    assert_non_null(id);
    return id;
}

/* The delivery of an event to a subscription (malloc'd id), waiting for
 * the fan-out up to 20 s; NULL when none appeared. */
WH_FN char *wh_delivery_of(const char *sub_id, const char *event_id)
{
    const char *p[2] = {sub_id, event_id};
    long t0 = e2e_now_ms();
    char *id = NULL;
    while (e2e_now_ms() - t0 < 20000) {
        id = e2e_sql_text("SELECT id FROM webhook_deliveries WHERE subscription_id = $1 "
                          "AND event_id = $2", 2, p);
        if (id) {
            break;
        }
        e2e_sleep_ms(50);
    }
    return id;
}

/* Reads a delivery through the API. */
WH_FN json_t *wh_get_delivery(const char *key, const char *family, const char *sub_id,
                               const char *dlv_id)
{
    char path[512];
    e2e_resp *r;
    json_t *d;
    snprintf(path, sizeof(path), "/v1/%s/webhook-subscriptions/%s/deliveries/%s", family,
             sub_id, dlv_id);
    r = wh_call(key, "GET", path, NULL);
    if (r->status != 200) {
        fail_msg("GET %s: %ld %s", path, r->status, r->body);
    }
    d = json_incref(json_object_get(r->json, "data"));
    e2e_free(r);
    return d;
}

/* Waits until the delivery has `status` (and, when attempts > 0, at least
 * that many attempts in its current send); returns it through the API. */
WH_FN json_t *wh_wait_delivery(const char *key, const char *family, const char *sub_id,
                                const char *dlv_id, const char *status, size_t attempts,
                                long timeout_ms)
{
    long t0 = e2e_now_ms();
    json_t *d = NULL;
    while (1) {
        d = wh_get_delivery(key, family, sub_id, dlv_id);
        if (strcmp(wh_str(d, "status"), status) == 0
            && json_array_size(json_object_get(d, "attempts")) >= attempts) {
            return d;
        }
        if (e2e_now_ms() - t0 > timeout_ms) {
            char *text = json_dumps(d, 0);
            fail_msg("delivery %s did not become %s: %s", dlv_id, status, text);
        }
        json_decref(d);
        e2e_sleep_ms(100);
    }
}

/* Every request the inbox received, oldest first. */
WH_FN json_t *wh_inbox_requests(const char *name)
{
    char path[256];
    e2e_resp *r;
    json_t *data;
    snprintf(path, sizeof(path), "/sandbox/inboxes/%s/requests", name);
    r = e2e_call(e2e_sandbox_url(), "GET", path, NULL, NULL);
    assert_int_equal(r->status, 200);
    data = json_incref(json_object_get(r->json, "data"));
    e2e_free(r);
    return data;
}

WH_FN void wh_inbox_behave(const char *name, const char *behavior_json)
{
    char path[256];
    const char *hdrs[] = {"Content-Type: application/json", NULL};
    e2e_resp *r;
    snprintf(path, sizeof(path), "/sandbox/inboxes/%s/behavior", name);
    r = e2e_call(e2e_sandbox_url(), "PUT", path, hdrs, behavior_json);
    assert_int_equal(r->status, 200);
    e2e_free(r);
}

WH_FN const char *wh_header(const json_t *request, const char *name)
{
    return json_string_value(json_object_get(json_object_get(request, "headers"), name));
}

/* ---- an independent Standard Webhooks verifier (the receiver's recipe of
 * docs/webhooks.md, written from the specification) ---- */

/* 1 when `signature_header` holds a valid v1 signature of
 * "<id>.<timestamp>.<body>" under `secret` and the timestamp is within
 * five minutes of now. */
WH_FN int swh_verify(const char *secret, const char *id, const char *timestamp,
                      const char *signature_header, const char *body, size_t body_len)
{
    const char *b64 = strncmp(secret, "whsec_", 6) == 0 ? secret + 6 : secret;
    unsigned char key[256], mac[EVP_MAX_MD_SIZE];
    char expected[128], *msg, *copy, *tok, *save = NULL;
    unsigned int mac_len = 0;
    int key_len, pad = 0, ok = 0;
    size_t head;
    long long ts;
    char *end;

    if (!id || !timestamp || !signature_header || strlen(b64) > 300) {
        return 0;
    }
    ts = strtoll(timestamp, &end, 10);
    if (*end || llabs((long long)time(NULL) - ts) > 300) {
        return 0;
    }
    key_len = EVP_DecodeBlock(key, (const unsigned char *)b64, (int)strlen(b64));
    if (key_len < 0) {
        return 0;
    }
    if (strlen(b64) >= 1 && b64[strlen(b64) - 1] == '=') {
        pad++;
    }
    if (strlen(b64) >= 2 && b64[strlen(b64) - 2] == '=') {
        pad++;
    }
    key_len -= pad;
    head = strlen(id) + strlen(timestamp) + 2;
    msg = malloc(head + body_len + 1);
    snprintf(msg, head + 1, "%s.%s.", id, timestamp);
    memcpy(msg + head, body, body_len);
    HMAC(EVP_sha256(), key, key_len, (unsigned char *)msg, head + body_len, mac, &mac_len);
    free(msg);
    snprintf(expected, sizeof(expected), "v1,");
    EVP_EncodeBlock((unsigned char *)expected + 3, mac, (int)mac_len);
    copy = strdup(signature_header);
    for (tok = strtok_r(copy, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        if (strlen(tok) == strlen(expected)
            && CRYPTO_memcmp(tok, expected, strlen(expected)) == 0) {
            ok = 1;
        }
    }
    free(copy);
    return ok;
}

/* Verifies one inbox request against a secret. */
WH_FN int wh_request_verifies(const json_t *request, const char *secret)
{
    const char *body = json_string_value(json_object_get(request, "body"));
    return swh_verify(secret, wh_header(request, "webhook-id"),
                      wh_header(request, "webhook-timestamp"),
                      wh_header(request, "webhook-signature"), body,
                      json_string_length(json_object_get(request, "body")));
}

/* Number of space-separated signatures in a request. */
WH_FN int wh_signature_count(const json_t *request)
{
    const char *s = wh_header(request, "webhook-signature");
    int n = 0;
    const char *c;
    if (!s || !*s) {
        return 0;
    }
    for (n = 1, c = s; *c; c++) {
        n += *c == ' ';
    }
    return n;
}

/* The reason of the 422 detail naming `field`, or NULL when none does. */
WH_FN const char *wh_detail(const e2e_resp *r, const char *field)
{
    json_t *d;
    size_t i;
    json_array_foreach(json_object_get(json_object_get(r->json, "error"), "details"), i, d) {
        if (strcmp(wh_str(d, "field"), field) == 0) {
            return wh_str(d, "reason");
        }
    }
    return NULL;
}

/* 1 when `signature_header` holds a valid v1a entry (Ed25519, the
 * Standard Webhooks asymmetric scheme) of "<id>.<timestamp>.<body>" under
 * the whpk_ public key, and the timestamp is within five minutes of now:
 * written from the specification with OpenSSL, not the module's code. */
WH_FN int swh_verify_v1a(const char *public_key, const char *id, const char *timestamp,
                          const char *signature_header, const char *body, size_t body_len)
{
    unsigned char raw[64], sig[96];
    char *msg, *copy, *tok, *save = NULL, *end;
    EVP_PKEY *pk;
    size_t head;
    long long ts;
    int ok = 0;

    if (!public_key || strncmp(public_key, "whpk_", 5) != 0 || strlen(public_key) != 5 + 44
        || !id || !timestamp || !signature_header) {
        return 0;
    }
    ts = strtoll(timestamp, &end, 10);
    if (*end || llabs((long long)time(NULL) - ts) > 300
        || EVP_DecodeBlock(raw, (const unsigned char *)public_key + 5, 44) != 33) {
        return 0;
    }
    pk = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, raw, 32);
    head = strlen(id) + strlen(timestamp) + 2;
    msg = malloc(head + body_len + 1);
    snprintf(msg, head + 1, "%s.%s.", id, timestamp);
    memcpy(msg + head, body, body_len);
    copy = strdup(signature_header);
    for (tok = strtok_r(copy, " ", &save); pk && tok; tok = strtok_r(NULL, " ", &save)) {
        EVP_MD_CTX *ctx;
        if (strncmp(tok, "v1a,", 4) != 0 || strlen(tok + 4) != 88
            || EVP_DecodeBlock(sig, (const unsigned char *)tok + 4, 88) != 66) {
            continue;
        }
        ctx = EVP_MD_CTX_new();
        if (EVP_DigestVerifyInit(ctx, NULL, NULL, NULL, pk) == 1
            && EVP_DigestVerify(ctx, sig, 64, (unsigned char *)msg, head + body_len) == 1) {
            ok = 1;
        }
        EVP_MD_CTX_free(ctx);
    }
    free(copy);
    free(msg);
    EVP_PKEY_free(pk);
    return ok;
}

/* Verifies one inbox request against a whpk_ public key. */
WH_FN int wh_request_verifies_v1a(const json_t *request, const char *public_key)
{
    const char *body = json_string_value(json_object_get(request, "body"));
    return swh_verify_v1a(public_key, wh_header(request, "webhook-id"),
                          wh_header(request, "webhook-timestamp"),
                          wh_header(request, "webhook-signature"), body,
                          json_string_length(json_object_get(request, "body")));
}

/* The repository's folder of the npm verifier (two levels above
 * bin/travelctl), or NULL when node or its packages are missing. */
WH_FN const char *wh_node_verifier(void)
{
    static char script[4096];
    char root[2048], cmd[8192];
    snprintf(root, sizeof(root), "%s", e2e_env("TRAVEL_TEST_TRAVELCTL"));
    *strrchr(root, '/') = '\0';
    *strrchr(root, '/') = '\0';
    snprintf(script, sizeof(script), "%s/tests/e2e/webhook-verifier", root);
    snprintf(cmd, sizeof(cmd), "command -v node >/dev/null && test -d %s/node_modules/"
             "standardwebhooks", script);
    return system(cmd) == 0 ? script : NULL;
}

/* Runs the Node verifier (webhook-verifier/verify.mjs) on a JSON array of
 * cases and fails the test when any judgement differs from its "expect";
 * skipped, with a notice, when node or its packages are missing. */
WH_FN void wh_node_verify(json_t *cases)
{
    const char *script = wh_node_verifier();
    char file[] = "/tmp/swh-v1a-XXXXXX", cmd[8192], line[256];
    FILE *f;
    int fd, rc;
    if (!script) {
        print_message("      node or the verifier's packages are missing (make test "
                      "installs them): Node cross-check skipped\n");
        return;
    }
    fd = mkstemp(file);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(json_dump_file(cases, file, 0), 0);
    snprintf(cmd, sizeof(cmd), "node %s/verify.mjs %s 2>&1", script, file);
    f = popen(cmd, "r");
    assert_non_null(f);
    while (fgets(line, sizeof(line), f)) {
        print_message("      verify.mjs: %s", line);
    }
    rc = pclose(f);
    unlink(file);
    assert_int_equal(rc, 0);
}

#endif
