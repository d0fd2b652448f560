/* No authorization is left held after an authorize that went unanswered,
 * through the real mod_travel and the sandbox payment provider told to
 * answer late or drop the connection (POST /sandbox/faults, scoped by the
 * x-request-id of each call). What the provider holds is read from the
 * sandbox's own tables (sandbox.pay_authorizations, reached through the
 * idempotency keys mod_travel sent, "<booking>:authorize:<attempt>"):
 *   - booked again with the same instrument: the late authorization is the
 *     one captured, and it is the only one;
 *   - booked again with another instrument: the late one ends VOIDED;
 *   - nobody books again: the release job voids it (after the grace of
 *     twice the payment timeout: 12 s in the test stack);
 *   - a void that fails is retried by the job;
 *   - SDK payments: kept across an attempt that failed to reach the
 *     supplier (the booking's only way to pay), voided when the booking
 *     fails or expires. */
#include "flight_e2e.h"

#include <pthread.h>

static char *key;

#define VISA "{\"payment_instrument_id\":\"pi_test_visa\"}"
#define MASTERCARD "{\"payment_instrument_id\":\"pi_test_mastercard\"}"
/* The sandbox holds the authorize this long, then makes the authorization;
 * mod_travel gives up after its payment timeout (6 s in the test stack). */
#define LATE "\"method\":\"POST\",\"path\":\"/v1/authorizations\",\"action\":\"respond\"," \
             "\"delay_ms\":8000"
/* The release grace in the test stack: twice the 6 s payment timeout. */
#define GRACE_MS 12000

static int setup(void **state)
{
    (void)state;
    key = e2e_new_org_key("held", NULL);
    return 0;
}

/* POST .../book with this request id. */
static e2e_resp *book(const char *rid, const char *id, const char *body)
{
    char kh[512], rh[300], path[256];
    const char *hdrs[] = {kh, rh, "Content-Type: application/json", NULL};
    snprintf(kh, sizeof(kh), "x-api-key: %s", key);
    snprintf(rh, sizeof(rh), "x-request-id: %s", rid);
    snprintf(path, sizeof(path), "/v1/flight/bookings/%s/book", id);
    return e2e_call(e2e_url(), "POST", path, hdrs, body);
}

/* ---- what the provider holds ---- */

/* Authorizations made under the booking's authorize keys; status (sandbox
 * words: requires_capture, captured, canceled) and method may be NULL. */
static long auths(const char *booking_id, const char *status, const char *method)
{
    const char *p[3] = {booking_id, status, method};
    return e2e_sql_long("SELECT count(DISTINCT a.id) FROM sandbox.idempotency i "
                        "JOIN sandbox.pay_authorizations a ON a.id = i.response->>'id' "
                        "WHERE i.key LIKE $1 || ':authorize:%' "
                        "AND ($2::text IS NULL OR a.status = $2) "
                        "AND ($3::text IS NULL OR a.payment_method = $3)", 3, p);
}

/* Distinct authorize keys the provider stored an answer under. */
static long auth_keys(const char *booking_id)
{
    const char *p[1] = {booking_id};
    return e2e_sql_long("SELECT count(*) FROM sandbox.idempotency WHERE key LIKE "
                        "$1 || ':authorize:%' AND status > 0", 1, p);
}

static long captured(const char *booking_id)
{
    const char *p[1] = {booking_id};
    return e2e_sql_long("SELECT coalesce(sum(a.amount_captured), 0) FROM sandbox.idempotency i "
                        "JOIN sandbox.pay_authorizations a ON a.id = i.response->>'id' "
                        "WHERE i.key LIKE $1 || ':authorize:%'", 1, p);
}

static long total_minor(const char *booking_id)
{
    const char *p[1] = {booking_id};
    return e2e_sql_long("SELECT (total_amount * 100)::bigint FROM flight_bookings "
                        "WHERE id = $1", 1, p);
}

/* Waits until the booking has n authorizations in this status. */
static void wait_auths(const char *booking_id, const char *status, const char *method, long n,
                       long timeout_ms, const char *why)
{
    long start = e2e_now_ms();
    while (auths(booking_id, status, method) != n) {
        if (e2e_now_ms() - start > timeout_ms) {
            fail_msg("%s: booking %s has %ld %s authorizations, not %ld, after %ld ms", why,
                     booking_id, auths(booking_id, status, method), status ? status : "",
                     n, timeout_ms);
        }
        e2e_sleep_ms(200);
    }
}

/* Waits until the booking has n intents resolved as voided. */
static void wait_voided_intents(const char *booking_id, long n, long timeout_ms)
{
    const char *p[1] = {booking_id};
    const char *sql = "SELECT count(*) FROM flight_authorization_intents WHERE "
                      "booking_id = $1 AND status = 'RESOLVED' AND outcome = 'voided'";
    long start = e2e_now_ms();
    while (e2e_sql_long(sql, 1, p) != n) {
        if (e2e_now_ms() - start > timeout_ms) {
            fail_msg("booking %s: %ld voided intents, not %ld, after %ld ms", booking_id,
                     e2e_sql_long(sql, 1, p), n, timeout_ms);
        }
        e2e_sleep_ms(200);
    }
}

static json_t *first_payment(const json_t *booking)
{
    return json_array_get(json_object_get(booking, "payments"), 0);
}

/* READY_FOR_COMPLETE and showing no payment. */
static void assert_ready_unpaid(const char *id)
{
    e2e_resp *r = fe_get(key, id, NULL);
    fe_expect(r, 200, "reading a booking");
    assert_string_equal(fe_s(fe_data(r), "status"), "READY_FOR_COMPLETE");
    assert_int_equal(json_array_size(json_object_get(fe_data(r), "payments")), 0);
    e2e_free(r);
}

/* Books and expects CONFIRMED with the payment CAPTURED on this card. */
static void book_confirmed(const char *id, const char *body, const char *last4)
{
    char *rid = fe_rid("ar", "book-again");
    e2e_resp *r = book(rid, id, body);
    const json_t *card;
    fe_expect(r, 200, "book again");
    assert_string_equal(fe_s(fe_data(r), "status"), "CONFIRMED");
    assert_int_equal(json_array_size(json_object_get(fe_data(r), "payments")), 1);
    assert_string_equal(fe_s(first_payment(fe_data(r)), "status"), "CAPTURED");
    card = json_object_get(json_object_get(first_payment(fe_data(r)), "payment_method"),
                           "card");
    if (!fe_s(card, "last4") || strcmp(fe_s(card, "last4"), last4) != 0) {
        fail_msg("booking %s was not paid with the card ending %s: %s", id, last4, r->body);
    }
    e2e_free(r);
    free(rid);
}

/* ---- the connection dropped after the provider authorized ---- */

static void dropped_answer_then_same_instrument(void **state)
{
    json_t *b = fe_ready(key, "SUPPLIER_A", "Lovelace", NULL);
    const char *id = fe_s(b, "id");
    char *rid = fe_rid("ar", "drop");
    e2e_resp *r;
    (void)state;
    /* Every send of this test id: a keyed call keeps libcurl's resend on a
     * reused connection (same key), once per pooled connection it tries. */
    fe_fault("payments", rid, "\"method\":\"POST\",\"path\":\"/v1/authorizations\","
                           "\"action\":\"drop_after_handling\",\"times\":null");
    r = book(rid, id, VISA);
    e2e_assert_error(r, 504, "supplier_timeout");
    e2e_free(r);
    fe_fault_clear(rid);
    /* The provider holds an authorization the service never heard of. */
    assert_int_equal(auths(id, "requires_capture", NULL), 1);
    assert_ready_unpaid(id);
    book_confirmed(id, VISA, "4242");
    /* It was that one: one key, one authorization, captured in full. */
    assert_int_equal(auth_keys(id), 1);
    assert_int_equal(auths(id, NULL, NULL), 1);
    assert_int_equal(auths(id, "captured", NULL), 1);
    assert_int_equal(captured(id), total_minor(id));
    free(rid);
    json_decref(b);
}

/* ---- no answer in time: three bookings at once, so the suite waits once ---- */

typedef struct late {
    const char *id;
    char *rid;
    e2e_resp *resp;
    long ms;
} late;

static void *late_book(void *u)
{
    late *l = u;
    long t0 = e2e_now_ms();
    l->resp = book(l->rid, l->id, VISA);
    l->ms = e2e_now_ms() - t0;
    return NULL;
}

enum { L_SAME, L_OTHER, L_NOBODY, L_N };

static void late_authorizations(void **state)
{
    json_t *b[L_N];
    late l[L_N];
    pthread_t th[L_N];
    long t0;
    int i;
    (void)state;
    for (i = 0; i < L_N; i++) {
        b[i] = fe_ready(key, "SUPPLIER_A", "Lovelace", NULL);
        l[i].id = fe_s(b[i], "id");
        l[i].rid = fe_rid("ar", "late");
        l[i].resp = NULL;
        fe_fault("payments", l[i].rid, LATE);
    }
    t0 = e2e_now_ms();
    for (i = 0; i < L_N; i++) {
        assert_int_equal(pthread_create(&th[i], NULL, late_book, &l[i]), 0);
    }
    for (i = 0; i < L_N; i++) {
        pthread_join(th[i], NULL);
    }
    for (i = 0; i < L_N; i++) {
        e2e_assert_error(l[i].resp, 504, "supplier_timeout");
        assert_true(l[i].ms >= 5000);
        assert_ready_unpaid(l[i].id);
    }

    /* (a) The same instrument again, before the late authorization is even
     * made: the same key, so the provider makes it once, and it is the one
     * captured. */
    book_confirmed(l[L_SAME].id, VISA, "4242");
    /* (b) Another instrument: the late one will not be used. */
    book_confirmed(l[L_OTHER].id, MASTERCARD, "4444");

    /* The late calls have been handled by now (8 s after they were sent). */
    while (e2e_now_ms() - t0 < 9000) {
        e2e_sleep_ms(100);
    }
    assert_int_equal(auth_keys(l[L_SAME].id), 1);
    assert_int_equal(auths(l[L_SAME].id, NULL, NULL), 1);
    assert_int_equal(auths(l[L_SAME].id, "captured", "pi_test_visa"), 1);
    assert_int_equal(captured(l[L_SAME].id), total_minor(l[L_SAME].id));

    wait_auths(l[L_OTHER].id, "canceled", "pi_test_visa", 1, 20000,
               "the other instrument's booking");
    assert_int_equal(auths(l[L_OTHER].id, NULL, NULL), 2);
    assert_int_equal(auths(l[L_OTHER].id, "captured", "pi_test_mastercard"), 1);
    assert_int_equal(captured(l[L_OTHER].id), total_minor(l[L_OTHER].id));

    /* (c) Nobody books again: the late authorization is held for the next
     * attempt for the grace, then voided by the release job. */
    assert_int_equal(auths(l[L_NOBODY].id, "requires_capture", "pi_test_visa"), 1);
    wait_auths(l[L_NOBODY].id, "canceled", "pi_test_visa", 1, GRACE_MS + 20000,
               "the unused late authorization");
    assert_int_equal(auths(l[L_NOBODY].id, NULL, NULL), 1);
    assert_int_equal(captured(l[L_NOBODY].id), 0);
    assert_ready_unpaid(l[L_NOBODY].id);
    /* Voided is settled: booking again authorizes afresh. */
    book_confirmed(l[L_NOBODY].id, VISA, "4242");
    assert_int_equal(auth_keys(l[L_NOBODY].id), 2);
    assert_int_equal(auths(l[L_NOBODY].id, "canceled", NULL), 1);
    assert_int_equal(auths(l[L_NOBODY].id, "captured", NULL), 1);
    assert_int_equal(captured(l[L_NOBODY].id), total_minor(l[L_NOBODY].id));

    for (i = 0; i < L_N; i++) {
        e2e_free(l[i].resp);
        fe_fault_clear(l[i].rid);
        free(l[i].rid);
        json_decref(b[i]);
    }
}

/* ---- a void the provider does not do at once is done by the job ---- */

static void failed_void_is_retried(void **state)
{
    json_t *b = fe_ready(key, "SUPPLIER_A", "Lovelace", NULL);
    const char *id = fe_s(b, "id");
    char *rid = fe_rid("ar", "void");
    e2e_resp *r;
    (void)state;
    /* The supplier cannot be reached, and the void of the attempt's
     * authorization fails once. */
    fe_fault("supplier_a", rid, "\"method\":\"POST\",\"path\":\"/air/orders\","
                             "\"action\":\"error\",\"status\":503");
    fe_fault("payments", rid, "\"method\":\"POST\",\"path\":\"/v1/authorizations/*/cancel\","
                           "\"action\":\"error\",\"status\":503");
    r = book(rid, id, VISA);
    e2e_assert_error(r, 502, "supplier_error");
    e2e_free(r);
    assert_ready_unpaid(id);
    wait_auths(id, "canceled", "pi_test_visa", 1, 20000, "the release job's void");
    assert_int_equal(auths(id, "requires_capture", NULL), 0);
    /* The job records the void after the provider's answer reaches it:
     * the provider can show it canceled a moment before the intent does. */
    wait_voided_intents(id, 1, 20000);
    /* Its key is not used again (its authorization is voided). */
    book_confirmed(id, VISA, "4242");
    assert_int_equal(auth_keys(id), 2);
    assert_int_equal(auths(id, "captured", NULL), 1);
    assert_int_equal(captured(id), total_minor(id));
    fe_fault_clear(rid);
    free(rid);
    json_decref(b);
}

/* ---- SDK payments ---- */

/* The customer's device pays the booking's SDK session; returns the
 * session id (malloc'd). */
static char *device_pays(const char *id)
{
    const char *p[1] = {id};
    const char *hdrs[] = {"Content-Type: application/json", NULL};
    char *token = e2e_sql_text("SELECT sdk_token FROM flight_bookings WHERE id = $1", 1, p);
    char *session, *cut, path[512], body[1024];
    e2e_resp *r;
    assert_non_null(token);
    session = strdup(token);
    cut = strstr(session, "_secret_");
    assert_non_null(cut);
    *cut = '\0';
    snprintf(path, sizeof(path), "/payments/v1/sdk_sessions/%s/confirm", session);
    snprintf(body, sizeof(body), "{\"client_secret\":\"%s\",\"payment_method\":"
             "\"pi_test_mastercard\"}", token);
    r = e2e_call(e2e_sandbox_url(), "POST", path, hdrs, body);
    fe_expect(r, 200, "the device pays");
    e2e_free(r);
    free(token);
    return session;
}

/* The status of the session's authorization at the provider. */
static char *session_auth(const char *session)
{
    const char *p[1] = {session};
    return e2e_sql_text("SELECT a.status FROM sandbox.pay_sdk_sessions s JOIN "
                        "sandbox.pay_authorizations a ON a.id = s.authorization_id "
                        "WHERE s.id = $1", 1, p);
}

static void wait_session_auth(const char *session, const char *status, const char *why)
{
    long start = e2e_now_ms();
    char *st;
    while (strcmp((st = session_auth(session)), status) != 0) {
        if (e2e_now_ms() - start > 20000) {
            fail_msg("%s: session %s's authorization is %s, not %s", why, session, st,
                     status);
        }
        free(st);
        e2e_sleep_ms(200);
    }
    free(st);
}

static void sdk_payment_kept_across_a_reverted_attempt(void **state)
{
    json_t *b = fe_ready(key, "SUPPLIER_A", "Lovelace", ",\"use_payment_sdk\":true");
    const char *id = fe_s(b, "id");
    char *session = device_pays(id), *rid = fe_rid("ar", "sdk-502"), *st;
    e2e_resp *r;
    (void)state;
    fe_fault("supplier_a", rid, "\"method\":\"POST\",\"path\":\"/air/orders\","
                             "\"action\":\"error\",\"status\":503");
    r = book(rid, id, "{}");
    e2e_assert_error(r, 502, "supplier_error");
    e2e_free(r);
    assert_ready_unpaid(id);
    /* The session is the booking's only way to pay: still authorized. */
    st = session_auth(session);
    assert_string_equal(st, "requires_capture");
    free(st);
    book_confirmed(id, "{}", "4444");
    st = session_auth(session);
    assert_string_equal(st, "captured");
    free(st);
    fe_fault_clear(rid);
    free(rid);
    free(session);
    json_decref(b);
}

static void sdk_payment_voided_when_the_booking_fails(void **state)
{
    json_t *b = fe_ready(key, "SUPPLIER_A", "Failticket", ",\"use_payment_sdk\":true");
    const char *id = fe_s(b, "id");
    char *session = device_pays(id), *rid = fe_rid("ar", "sdk-fail");
    e2e_resp *r;
    (void)state;
    /* The provider does not void it at once: the job does. */
    fe_fault("payments", rid, "\"method\":\"POST\",\"path\":\"/v1/authorizations/*/cancel\","
                           "\"action\":\"error\",\"status\":503");
    r = book(rid, id, "{}");
    e2e_assert_error(r, 422, "book_failed");
    e2e_free(r);
    wait_session_auth(session, "canceled", "the failed booking's SDK payment");
    /* The booking's payment row says so once it is (a voided payment is
     * not listed). */
    {
        const char *p[1] = {id};
        long start = e2e_now_ms();
        char *pst;
        e2e_resp *g;
        while (strcmp((pst = e2e_sql_text("SELECT status FROM flight_payments WHERE "
                                          "booking_id = $1", 1, p)), "VOIDED") != 0) {
            if (e2e_now_ms() - start > 10000) {
                fail_msg("the payment of FAILED booking %s is %s, not VOIDED", id, pst);
            }
            free(pst);
            e2e_sleep_ms(100);
        }
        free(pst);
        g = fe_get(key, id, NULL);
        assert_string_equal(fe_s(fe_data(g), "status"), "FAILED");
        assert_int_equal(json_array_size(json_object_get(fe_data(g), "payments")), 0);
        e2e_free(g);
    }
    fe_fault_clear(rid);
    free(rid);
    free(session);
    json_decref(b);
}

static void sdk_payment_voided_when_the_booking_expires(void **state)
{
    json_t *b = fe_ready(key, "SUPPLIER_A", "Lovelace", ",\"use_payment_sdk\":true");
    const char *id = fe_s(b, "id");
    const char *p[1] = {id};
    char *session = device_pays(id);
    (void)state;
    /* Paid, never booked: its deadline passes, and a read expires it
     * before the expiry job runs. */
    e2e_sql_exec("UPDATE flight_bookings SET expires_at = now() - interval '1 second' "
                 "WHERE id = $1", 1, p);
    {
        e2e_resp *r = fe_get(key, id, NULL);
        assert_string_equal(fe_s(fe_data(r), "status"), "EXPIRED");
        e2e_free(r);
    }
    e2e_sql_exec("UPDATE jobs SET available_at = now() "
                 "WHERE kind = 'flight.booking.expire' AND payload->>'id' = $1", 1, p);
    wait_session_auth(session, "canceled", "the expired booking's SDK payment");
    free(session);
    json_decref(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(dropped_answer_then_same_instrument, setup),
        cmocka_unit_test(late_authorizations),
        cmocka_unit_test(failed_void_is_retried),
        cmocka_unit_test(sdk_payment_kept_across_a_reverted_attempt),
        cmocka_unit_test(sdk_payment_voided_when_the_booking_fails),
        cmocka_unit_test(sdk_payment_voided_when_the_booking_expires),
    };
    return E2E_RUN("flight authorization release", tests);
}
