/* An SDK payment session can never be paid after its booking is released,
 * through the real mod_travel and the sandbox payment provider. The
 * release (a booking FAILED or EXPIRED) cancels the booking's session at
 * the provider first, then voids the authorization the cancel names, so:
 *   - a device paying after the release is refused and nothing is held;
 *   - a cancel the provider does not do at once is done by the release job;
 *   - a device paying while the release runs (its cancel held back by a
 *     sandbox fault, so the payment lands inside the release) ends VOIDED;
 *   - a device hammering the session while the booking expires ends with
 *     every authorization of the session VOIDED.
 * What the provider holds is read from the sandbox's own tables
 * (sandbox.pay_sdk_sessions, sandbox.pay_authorizations by session). */
#include "flight_e2e.h"

#include <pthread.h>

static char *key;

static int setup(void **state)
{
    (void)state;
    key = e2e_new_org_key("sdk-release", NULL);
    return 0;
}

/* A READY_FOR_COMPLETE SDK booking prebooked with x-request-id rid (its
 * jobs, and so the release, send that id to the provider). `last_name`
 * as the sandbox's triggers want. Returns its data (a new reference). */
static json_t *sdk_ready(const char *rid, const char *last_name)
{
    static int day;
    e2e_resp *s = fe_search(key, "SUPPLIER_A", "LHR", "JFK", 40 + (day++ % 100), 1,
                            ",\"limit\":20");
    json_t *offers, *b = NULL;
    size_t i;
    fe_expect(s, 200, "searching offers");
    offers = fe_data(s);
    for (i = 0; i < json_array_size(offers) && !b; i++) {
        char kh[512], ih[300], rh[300];
        char *body = fe_prebook_body(fe_s(json_array_get(offers, i), "offer_reference"),
                                     last_name, ",\"use_payment_sdk\":true");
        char *idem = fe_new_key("sdk-release");
        const char *hdrs[] = {kh, ih, rh, "Content-Type: application/json", NULL};
        e2e_resp *r;
        snprintf(kh, sizeof(kh), "x-api-key: %s", key);
        snprintf(ih, sizeof(ih), "x-idempotency-key: %s", idem);
        snprintf(rh, sizeof(rh), "x-request-id: %s", rid);
        r = e2e_call(e2e_url(), "POST", "/v1/flight/prebook", hdrs, body);
        if (r->status == 201) {
            b = json_incref(fe_data(r));
            assert_string_equal(fe_s(b, "status"), "READY_FOR_COMPLETE");
            assert_non_null(fe_s(json_object_get(json_object_get(r->json, "meta"),
                                                 "payment_sdk"), "token"));
        }
        else if (r->status != 409) {
            fail_msg("prebook: %ld %s", r->status, r->body);
        }
        e2e_free(r);
        free(body);
        free(idem);
    }
    if (!b) {
        fail_msg("no free SUPPLIER_A offer to prebook: %s", s->body);
    }
    e2e_free(s);
    return b;
}

/* The booking's SDK token (its client secret) and session id, malloc'd. */
static char *token_of(const char *id)
{
    const char *p[1] = {id};
    char *token = e2e_sql_text("SELECT sdk_token FROM flight_bookings WHERE id = $1", 1, p);
    assert_non_null(token);
    return token;
}

static char *session_of(const char *token)
{
    char *session = strdup(token), *cut = strstr(session, "_secret_");
    assert_non_null(cut);
    *cut = '\0';
    return session;
}

/* The customer's device pays the session: the sandbox's answer. */
static e2e_resp *device_pays(const char *token, const char *instrument)
{
    const char *hdrs[] = {"Content-Type: application/json", NULL};
    char *session = session_of(token), path[512], body[1024];
    e2e_resp *r;
    snprintf(path, sizeof(path), "/payments/v1/sdk_sessions/%s/confirm", session);
    snprintf(body, sizeof(body), "{\"client_secret\":\"%s\",\"payment_method\":\"%s\"}", token,
             instrument);
    r = e2e_call(e2e_sandbox_url(), "POST", path, hdrs, body);
    free(session);
    return r;
}

/* ---- what the provider holds ---- */

static char *session_status(const char *session)
{
    const char *p[1] = {session};
    return e2e_sql_text("SELECT status FROM sandbox.pay_sdk_sessions WHERE id = $1", 1, p);
}

/* Authorizations the provider made for the session, in this status (NULL: any). */
static long session_auths(const char *session, const char *status)
{
    const char *p[2] = {session, status};
    return e2e_sql_long("SELECT count(*) FROM sandbox.pay_authorizations WHERE session_id = $1 "
                        "AND ($2::text IS NULL OR status = $2)", 2, p);
}

/* The outcome of the booking's SDK release intent once RESOLVED, else NULL. */
static char *release_outcome(const char *id)
{
    const char *p[1] = {id};
    return e2e_sql_text("SELECT outcome FROM flight_authorization_intents WHERE booking_id = $1 "
                        "AND idempotency_key IS NULL AND status = 'RESOLVED'", 1, p);
}

/* Waits until the release of the booking's session is recorded. */
static char *wait_released(const char *id, long timeout_ms)
{
    long start = e2e_now_ms();
    char *o;
    while (!(o = release_outcome(id))) {
        if (e2e_now_ms() - start > timeout_ms) {
            fail_msg("the SDK session of booking %s was not released in %ld ms", id,
                     timeout_ms);
        }
        e2e_sleep_ms(100);
    }
    return o;
}

/* Makes the booking's deadline pass and its expiry job due now. */
static void expire_now(const char *id)
{
    const char *p[1] = {id};
    e2e_sql_exec("UPDATE flight_bookings SET expires_at = now() - interval '1 second' "
                 "WHERE id = $1", 1, p);
    e2e_sql_exec("UPDATE jobs SET available_at = now() "
                 "WHERE kind = 'flight.booking.expire' AND payload->>'id' = $1", 1, p);
}

static void assert_status(const char *id, const char *status)
{
    e2e_resp *r = fe_get(key, id, NULL);
    fe_expect(r, 200, "reading a booking");
    assert_string_equal(fe_s(fe_data(r), "status"), status);
    e2e_free(r);
}

/* ---- (a) the device pays after the release: refused, nothing held ---- */

static void expired_booking_device_pays_later(void **state)
{
    char *rid = fe_rid("sdkrel", "expire");
    json_t *b = sdk_ready(rid, "Lovelace");
    const char *id = fe_s(b, "id");
    char *token = token_of(id), *session = session_of(token), *o, *st;
    e2e_resp *r;
    (void)state;
    /* Never paid; the booking expires and its session is released. */
    expire_now(id);
    o = wait_released(id, 20000);
    assert_string_equal(o, "canceled");
    assert_status(id, "EXPIRED");
    st = session_status(session);
    assert_string_equal(st, "canceled");
    /* The customer's device pays it afterwards: refused. */
    r = device_pays(token, "pi_test_visa");
    e2e_assert_error(r, 400, "sdk_session_canceled");
    e2e_free(r);
    assert_int_equal(session_auths(session, NULL), 0);
    free(o);
    free(st);
    free(session);
    free(token);
    free(rid);
    json_decref(b);
}

static void failed_booking_device_pays_again(void **state)
{
    char *rid = fe_rid("sdkrel", "fail");
    json_t *b = sdk_ready(rid, "Failticket");
    const char *id = fe_s(b, "id");
    char *token = token_of(id), *session = session_of(token), *st;
    e2e_resp *r;
    (void)state;
    r = device_pays(token, "pi_test_mastercard");
    fe_expect(r, 200, "the device pays");
    e2e_free(r);
    r = fe_book(key, id, "{}");
    e2e_assert_error(r, 422, "book_failed");
    e2e_free(r);
    /* Released in the request: the session canceled, its payment voided. */
    st = session_status(session);
    assert_string_equal(st, "canceled");
    free(st);
    assert_int_equal(session_auths(session, "canceled"), 1);
    /* The device tries again (another card): refused, nothing more held. */
    r = device_pays(token, "pi_test_visa");
    e2e_assert_error(r, 400, "sdk_session_canceled");
    e2e_free(r);
    assert_int_equal(session_auths(session, NULL), 1);
    assert_int_equal(session_auths(session, "canceled"), 1);
    assert_status(id, "FAILED");
    free(session);
    free(token);
    free(rid);
    json_decref(b);
}

/* The provider does not cancel the session in the book request: the
 * release job cancels it and voids the payment. */
static void failed_booking_cancel_left_to_the_job(void **state)
{
    char *rid = fe_rid("sdkrel", "fail-job");
    json_t *b = sdk_ready(rid, "Failticket");
    const char *id = fe_s(b, "id");
    const char *p[1] = {id};
    char *token = token_of(id), *session = session_of(token), *o, *st, *pst;
    char kh[512], rh[300], path[256];
    const char *hdrs[] = {kh, rh, "Content-Type: application/json", NULL};
    e2e_resp *r;
    (void)state;
    r = device_pays(token, "pi_test_mastercard");
    fe_expect(r, 200, "the device pays");
    e2e_free(r);
    fe_fault("payments", rid, "\"method\":\"POST\",\"path\":\"/v1/sdk_sessions/*/cancel\","
                              "\"action\":\"error\",\"status\":503,\"times\":1");
    snprintf(kh, sizeof(kh), "x-api-key: %s", key);
    snprintf(rh, sizeof(rh), "x-request-id: %s", rid);
    snprintf(path, sizeof(path), "/v1/flight/bookings/%s/book", id);
    r = e2e_call(e2e_url(), "POST", path, hdrs, "{}");
    e2e_assert_error(r, 422, "book_failed");
    e2e_free(r);
    assert_int_equal(fe_fault_hits(rid), 1);
    o = wait_released(id, 20000);
    assert_string_equal(o, "voided");
    st = session_status(session);
    assert_string_equal(st, "canceled");
    assert_int_equal(session_auths(session, NULL), 1);
    assert_int_equal(session_auths(session, "canceled"), 1);
    pst = e2e_sql_text("SELECT status FROM flight_payments WHERE booking_id = $1", 1, p);
    assert_string_equal(pst, "VOIDED");
    r = device_pays(token, "pi_test_visa");
    e2e_assert_error(r, 400, "sdk_session_canceled");
    e2e_free(r);
    assert_int_equal(session_auths(session, NULL), 1);
    fe_fault_clear(rid);
    free(pst);
    free(o);
    free(st);
    free(session);
    free(token);
    free(rid);
    json_decref(b);
}

/* ---- (b) the device pays while the release runs: VOIDED ---- */

static void device_pays_during_the_release(void **state)
{
    char *rid = fe_rid("sdkrel", "during");
    json_t *b = sdk_ready(rid, "Lovelace");
    const char *id = fe_s(b, "id");
    char *token = token_of(id), *session = session_of(token), *o, *st;
    long start;
    e2e_resp *r;
    (void)state;
    /* The release's cancel reaches the provider 2 s late: the device pays
     * inside that window, after the booking expired and the release began. */
    fe_fault("payments", rid, "\"method\":\"POST\",\"path\":\"/v1/sdk_sessions/*/cancel\","
                              "\"action\":\"respond\",\"delay_ms\":2000");
    expire_now(id);
    start = e2e_now_ms();
    while (fe_fault_hits(rid) == 0) {
        if (e2e_now_ms() - start > 20000) {
            fail_msg("the release of booking %s never asked to cancel its session", id);
        }
        e2e_sleep_ms(20);
    }
    r = device_pays(token, "pi_test_mastercard");
    fe_expect(r, 200, "the device pays while the release runs");
    e2e_free(r);
    /* The cancel names that authorization, and the release voids it. */
    o = wait_released(id, 20000);
    assert_string_equal(o, "voided");
    st = session_status(session);
    assert_string_equal(st, "canceled");
    assert_int_equal(session_auths(session, NULL), 1);
    assert_int_equal(session_auths(session, "canceled"), 1);
    assert_status(id, "EXPIRED");
    fe_fault_clear(rid);
    free(o);
    free(st);
    free(session);
    free(token);
    free(rid);
    json_decref(b);
}

/* A device paying over and over while its booking expires: whichever
 * comes first, payment or release, nothing is left held. */
typedef struct hammer {
    const char *token;
    long start_after_ms;
    int paid, refused;
    long last_status;
    char last_code[64];
} hammer;

static void *hammer_run(void *u)
{
    hammer *h = u;
    long start = e2e_now_ms();
    e2e_sleep_ms(h->start_after_ms);
    /* Until the session is canceled (at most 20 s). */
    while (e2e_now_ms() - start < 20000) {
        e2e_resp *r = device_pays(h->token, "pi_test_visa");
        h->last_status = r->status;
        snprintf(h->last_code, sizeof(h->last_code), "%s", e2e_error_code(r));
        if (r->status == 200) {
            h->paid++;
        }
        else if (strcmp(e2e_error_code(r), "sdk_session_canceled") == 0) {
            h->refused++;
            e2e_free(r);
            break;
        }
        e2e_free(r);
        e2e_sleep_ms(2);
    }
    return NULL;
}

#define HAMMERED 4

static void device_races_the_release(void **state)
{
    json_t *b[HAMMERED];
    char *rid[HAMMERED], *token[HAMMERED];
    hammer h[HAMMERED];
    pthread_t th[HAMMERED];
    int i, paid_first = 0;
    (void)state;
    for (i = 0; i < HAMMERED; i++) {
        rid[i] = fe_rid("sdkrel", "race");
        b[i] = sdk_ready(rid[i], "Lovelace");
        token[i] = token_of(fe_s(b[i], "id"));
        memset(&h[i], 0, sizeof(h[i]));
        h[i].token = token[i];
        /* Staggered across the job poll (100 ms in the test stack): some pay before the
         * release, some race it, some come after it. */
        h[i].start_after_ms = i * 60;
    }
    for (i = 0; i < HAMMERED; i++) {
        assert_int_equal(pthread_create(&th[i], NULL, hammer_run, &h[i]), 0);
    }
    for (i = 0; i < HAMMERED; i++) {
        expire_now(fe_s(b[i], "id"));
    }
    for (i = 0; i < HAMMERED; i++) {
        pthread_join(th[i], NULL);
    }
    for (i = 0; i < HAMMERED; i++) {
        const char *id = fe_s(b[i], "id");
        char *session = session_of(token[i]), *o = wait_released(id, 20000),
             *st = session_status(session);
        if (h[i].refused != 1) {
            fail_msg("booking %s: the device was never refused (last answer %ld %s)", id,
                     h[i].last_status, h[i].last_code);
        }
        assert_true(h[i].paid <= 1);
        assert_string_equal(st, "canceled");
        /* Whatever the device managed to pay is voided; nothing is held. */
        assert_int_equal(session_auths(session, NULL), h[i].paid);
        assert_int_equal(session_auths(session, "requires_capture"), 0);
        assert_int_equal(session_auths(session, "canceled"), h[i].paid);
        assert_string_equal(o, h[i].paid ? "voided" : "canceled");
        paid_first += h[i].paid;
        free(o);
        free(st);
        free(session);
    }
    print_message("device vs release: %d of %d paid before the cancel\n", paid_first,
                  HAMMERED);
    for (i = 0; i < HAMMERED; i++) {
        free(rid[i]);
        free(token[i]);
        json_decref(b[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(expired_booking_device_pays_later, setup),
        cmocka_unit_test(failed_booking_device_pays_again),
        cmocka_unit_test(failed_booking_cancel_left_to_the_job),
        cmocka_unit_test(device_pays_during_the_release),
        cmocka_unit_test(device_races_the_release),
    };
    return E2E_RUN("flight sdk release", tests);
}
