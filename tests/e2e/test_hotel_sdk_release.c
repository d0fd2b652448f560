/* A hotel booking paid through the payment SDK can never be paid after it
 * FAILED or EXPIRED, through the real mod_travel and the sandbox payment
 * provider: the booking hands its session to hotel.payment.release, which
 * cancels the session first and then voids what the device had paid, so
 *   - an expired booking's session is canceled and a later payment refused;
 *   - a failed booking's payment is voided and its session canceled;
 *   - a device paying while the release runs (the cancel held back by a
 *     sandbox fault) ends VOIDED, never held.
 * And with no request touching the booking, the hotel.booking.expire job
 * stores EXPIRED (with its rendering) at the deadline and releases it:
 *   - an SDK booking left alone has its session canceled;
 *   - a booking without the SDK is EXPIRED in its row and its rendering;
 *   - a release whose first cancel the provider refuses is retried;
 *   - a device hammering the session while the booking expires ends with
 *     every authorization of the session VOIDED;
 *   - a book that won the row first keeps its booking (the job does nothing).
 * What the provider holds is read from the sandbox's own tables. */
#include "hotel_e2e.h"

#include <pthread.h>

static char *key;

static int setup(void **state)
{
    (void)state;
    key = e2e_new_org_key("hotel-sdk-release", NULL);
    return 0;
}

/* A READY_FOR_COMPLETE SUPPLIER_B booking paid through the SDK, lead
 * guest `last_name` (the sandbox's triggers). Its data, a new reference. */
static json_t *sdk_ready(const char *last_name)
{
    static int n;
    json_t *offer = he_offer(key, "SUPPLIER_B", (int)((getpid() + n++) % 15)), *b;
    char *body = he_prebook_body(fe_s(offer, "offer_reference"), "trip-sdk-rel", last_name);
    char *sdk = malloc(strlen(body) + 32), idem[64];
    e2e_resp *r;
    memcpy(sdk, body, strlen(body) - 1);
    strcpy(sdk + strlen(body) - 1, ",\"use_payment_sdk\":true}");
    snprintf(idem, sizeof(idem), "hsdk-%ld-%d", e2e_now_ms(), rand());
    r = he_prebook(key, idem, sdk);
    fe_expect(r, 201, "a hotel prebook paid through the SDK");
    assert_non_null(fe_s(json_object_get(json_object_get(r->json, "meta"), "payment_sdk"),
                         "token"));
    b = json_deep_copy(fe_data(r));
    e2e_free(r);
    free(sdk);
    free(body);
    json_decref(offer);
    return b;
}

/* The booking's SDK token as stored (kept after prebook), malloc'd. */
static char *token_of(const char *id)
{
    const char *p[1] = {id};
    char *token = e2e_sql_text("SELECT sdk_token FROM hotel_bookings WHERE id = $1", 1, p);
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

/* POST book with x-request-id rid (the release job carries it on). */
static e2e_resp *book(const char *id, const char *rid)
{
    char kh[512], rh[300], path[256];
    const char *hdrs[] = {kh, rh, "Content-Type: application/json", NULL};
    snprintf(kh, sizeof(kh), "x-api-key: %s", key);
    snprintf(rh, sizeof(rh), "x-request-id: %s", rid);
    snprintf(path, sizeof(path), "/v1/hotel/bookings/%s/book", id);
    return e2e_call(e2e_url(), "POST", path, hdrs, "{}");
}

static char *session_status(const char *session)
{
    const char *p[1] = {session};
    return e2e_sql_text("SELECT status FROM sandbox.pay_sdk_sessions WHERE id = $1", 1, p);
}

static long session_auths(const char *session, const char *status)
{
    const char *p[2] = {session, status};
    return e2e_sql_long("SELECT count(*) FROM sandbox.pay_authorizations WHERE session_id = $1 "
                        "AND ($2::text IS NULL OR status = $2)", 2, p);
}

static char *release_outcome(const char *id)
{
    const char *p[1] = {id};
    return e2e_sql_text("SELECT outcome FROM hotel_authorization_intents WHERE booking_id = $1 "
                        "AND idempotency_key IS NULL AND status = 'RESOLVED'", 1, p);
}

static char *wait_released(const char *id, long timeout_ms)
{
    long start = e2e_now_ms();
    char *o;
    while (!(o = release_outcome(id))) {
        if (e2e_now_ms() - start > timeout_ms) {
            fail_msg("the SDK session of hotel booking %s was not released in %ld ms", id,
                     timeout_ms);
        }
        e2e_sleep_ms(100);
    }
    return o;
}

/* The deadline passes; the expiry job stays where prebook queued it (at
 * the offer's real deadline), so only a request can expire the booking. */
static void expire_now(const char *id)
{
    const char *p[1] = {id};
    e2e_sql_exec("UPDATE hotel_bookings SET offer_expires_at = now() - interval '1 second' "
                 "WHERE id = $1", 1, p);
}

/* The deadline passes and the expiry job prebook queued is due now. */
static void expire_in_background(const char *id)
{
    const char *p[1] = {id};
    expire_now(id);
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM jobs WHERE kind = "
                                  "'hotel.booking.expire' AND payload->>'id' = $1", 1, p), 1);
    e2e_sql_exec("UPDATE jobs SET available_at = now() "
                 "WHERE kind = 'hotel.booking.expire' AND payload->>'id' = $1", 1, p);
}

/* Waits (bounded) until the row is stored in this status. */
static void wait_stored(const char *id, const char *status, long timeout_ms)
{
    const char *p[2] = {id, status};
    long start = e2e_now_ms();
    while (e2e_sql_long("SELECT count(*) FROM hotel_bookings WHERE id = $1 AND status = $2", 2,
                        p) == 0) {
        if (e2e_now_ms() - start > timeout_ms) {
            fail_msg("hotel booking %s was not stored %s in %ld ms", id, status, timeout_ms);
        }
        e2e_sleep_ms(100);
    }
}

static void assert_status(const char *id, const char *status)
{
    const char *p[1] = {id};
    char *st = e2e_sql_text("SELECT status FROM hotel_bookings WHERE id = $1", 1, p);
    assert_non_null(st);
    assert_string_equal(st, status);
    free(st);
}

static void expired_booking_session_canceled(void **state)
{
    char *rid = fe_rid("hsdkrel", "expire");
    json_t *b = sdk_ready("Lovelace");
    const char *id = fe_s(b, "id");
    char *token = token_of(id), *session = session_of(token), *o, *st;
    e2e_resp *r;
    (void)state;
    /* Never paid; a book after the deadline expires it and releases it. */
    expire_now(id);
    r = book(id, rid);
    e2e_assert_error(r, 409, "invalid_state");
    e2e_free(r);
    assert_status(id, "EXPIRED");
    o = wait_released(id, 20000);
    assert_string_equal(o, "canceled");
    st = session_status(session);
    assert_string_equal(st, "canceled");
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

static void failed_booking_session_canceled(void **state)
{
    char *rid = fe_rid("hsdkrel", "fail");
    json_t *b = sdk_ready("Failbook");
    const char *id = fe_s(b, "id");
    const char *p[1] = {id};
    char *token = token_of(id), *session = session_of(token), *o, *st, *pst;
    e2e_resp *r;
    (void)state;
    r = device_pays(token, "pi_test_mastercard");
    fe_expect(r, 200, "the device pays");
    e2e_free(r);
    r = book(id, rid);
    e2e_assert_error(r, 422, "book_failed");
    e2e_free(r);
    assert_status(id, "FAILED");
    /* The job cancels the session, then voids the payment it names. */
    o = wait_released(id, 20000);
    assert_string_equal(o, "voided");
    st = session_status(session);
    assert_string_equal(st, "canceled");
    assert_int_equal(session_auths(session, NULL), 1);
    assert_int_equal(session_auths(session, "canceled"), 1);
    pst = e2e_sql_text("SELECT status FROM hotel_payments WHERE booking_id = $1", 1, p);
    assert_non_null(pst);
    assert_string_equal(pst, "VOIDED");
    /* The device tries again: refused, nothing more held. */
    r = device_pays(token, "pi_test_visa");
    e2e_assert_error(r, 400, "sdk_session_canceled");
    e2e_free(r);
    assert_int_equal(session_auths(session, NULL), 1);
    free(pst);
    free(o);
    free(st);
    free(session);
    free(token);
    free(rid);
    json_decref(b);
}

/* The release's cancel reaches the provider 2 s late: the device pays
 * inside that window; the cancel names that payment and it is voided. */
static void device_pays_during_the_release(void **state)
{
    char *rid = fe_rid("hsdkrel", "during");
    json_t *b = sdk_ready("Lovelace");
    const char *id = fe_s(b, "id");
    char *token = token_of(id), *session = session_of(token), *o, *st;
    long start;
    e2e_resp *r;
    (void)state;
    fe_fault("payments", rid, "\"method\":\"POST\",\"path\":\"/v1/sdk_sessions/*/cancel\","
                              "\"action\":\"respond\",\"delay_ms\":2000");
    expire_now(id);
    r = book(id, rid);
    e2e_assert_error(r, 409, "invalid_state");
    e2e_free(r);
    start = e2e_now_ms();
    while (fe_fault_hits(rid) == 0) {
        if (e2e_now_ms() - start > 20000) {
            fail_msg("the release of hotel booking %s never asked to cancel its session", id);
        }
        e2e_sleep_ms(20);
    }
    r = device_pays(token, "pi_test_mastercard");
    fe_expect(r, 200, "the device pays while the release runs");
    e2e_free(r);
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

/* ---- the expiry job, no request touching the booking ---- */

static void left_alone_session_canceled_by_the_job(void **state)
{
    json_t *b = sdk_ready("Lovelace");
    const char *id = fe_s(b, "id");
    char *token = token_of(id), *session = session_of(token), *o, *st;
    e2e_resp *r;
    (void)state;
    expire_in_background(id);
    o = wait_released(id, 20000);
    assert_string_equal(o, "canceled");
    assert_status(id, "EXPIRED");
    st = session_status(session);
    assert_string_equal(st, "canceled");
    r = device_pays(token, "pi_test_visa");
    e2e_assert_error(r, 400, "sdk_session_canceled");
    e2e_free(r);
    assert_int_equal(session_auths(session, NULL), 0);
    free(o);
    free(st);
    free(session);
    free(token);
    json_decref(b);
}

static void plain_booking_stored_expired(void **state)
{
    json_t *b = he_ready(key, "SUPPLIER_B", "trip-expire-plain", "Lovelace");
    const char *id = fe_s(b, "id");
    const char *p[1] = {id};
    char *doc, *list;
    json_t *d, *l;
    e2e_resp *r;
    (void)state;
    assert_string_equal(fe_s(b, "status"), "READY_FOR_COMPLETE");
    expire_in_background(id);
    wait_stored(id, "EXPIRED", 20000);
    /* The stored renderings (GET's and the list's) say EXPIRED too. */
    doc = e2e_sql_text("SELECT d.doc FROM hotel_booking_docs d JOIN hotel_bookings b "
                       "ON b.id = d.booking_id AND b.revision = d.revision "
                       "WHERE d.booking_id = $1", 1, p);
    list = e2e_sql_text("SELECT d.list_doc FROM hotel_booking_docs d JOIN hotel_bookings b "
                        "ON b.id = d.booking_id AND b.revision = d.revision "
                        "WHERE d.booking_id = $1", 1, p);
    if (!doc || !list) {
        fail_msg("hotel booking %s: no rendering of its EXPIRED revision is stored", id);
    }
    d = json_loads(doc, 0, NULL);
    l = json_loads(list, 0, NULL);
    assert_non_null(d);
    assert_non_null(l);
    assert_string_equal(fe_s(d, "status"), "EXPIRED");
    assert_string_equal(fe_s(l, "status"), "EXPIRED");
    /* No SDK session and no authorization: nothing to release. */
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM hotel_authorization_intents "
                                  "WHERE booking_id = $1", 1, p), 0);
    /* A book now is refused as expired. */
    r = book(id, "hexp-plain-book");
    e2e_assert_error(r, 409, "invalid_state");
    e2e_free(r);
    json_decref(d);
    json_decref(l);
    free(doc);
    free(list);
    json_decref(b);
}

/* The provider refuses the expiry release's first cancel: the release job
 * tries again, cancels the session and voids what the device paid. */
static void job_release_cancel_retried(void **state)
{
    json_t *b = sdk_ready("Lovelace");
    const char *id = fe_s(b, "id");
    const char *p[1] = {id};
    char *token = token_of(id), *session = session_of(token), *o, *st, *rid;
    e2e_resp *r;
    (void)state;
    /* The jobs carry the prebook's request id to the provider. */
    rid = e2e_sql_text("SELECT payload->>'request_id' FROM jobs WHERE kind = "
                       "'hotel.booking.expire' AND payload->>'id' = $1", 1, p);
    assert_non_null(rid);
    r = device_pays(token, "pi_test_mastercard");
    fe_expect(r, 200, "the device pays");
    e2e_free(r);
    fe_fault("payments", rid, "\"method\":\"POST\",\"path\":\"/v1/sdk_sessions/*/cancel\","
                              "\"action\":\"error\",\"status\":503,\"times\":1");
    expire_in_background(id);
    o = wait_released(id, 30000);
    assert_string_equal(o, "voided");
    assert_true(fe_fault_hits(rid) >= 1);
    st = session_status(session);
    assert_string_equal(st, "canceled");
    assert_int_equal(session_auths(session, NULL), 1);
    assert_int_equal(session_auths(session, "canceled"), 1);
    /* Never booked: no hotel payment row; the provider's authorization is
     * what was voided (above). */
    assert_status(id, "EXPIRED");
    r = device_pays(token, "pi_test_visa");
    e2e_assert_error(r, 400, "sdk_session_canceled");
    e2e_free(r);
    assert_int_equal(session_auths(session, NULL), 1);
    fe_fault_clear(rid);
    free(o);
    free(st);
    free(session);
    free(token);
    free(rid);
    json_decref(b);
}

/* A device paying over and over while its booking expires in the
 * background: whichever comes first, payment or release, nothing is held. */
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

static void device_races_the_expiry(void **state)
{
    json_t *b[HAMMERED];
    char *token[HAMMERED];
    hammer h[HAMMERED];
    pthread_t th[HAMMERED];
    int i;
    (void)state;
    for (i = 0; i < HAMMERED; i++) {
        b[i] = sdk_ready("Lovelace");
        token[i] = token_of(fe_s(b[i], "id"));
        memset(&h[i], 0, sizeof(h[i]));
        h[i].token = token[i];
        /* Staggered across the job poll: some pay before the release, some
         * race it, some come after it. */
        h[i].start_after_ms = i * 60;
    }
    for (i = 0; i < HAMMERED; i++) {
        assert_int_equal(pthread_create(&th[i], NULL, hammer_run, &h[i]), 0);
    }
    for (i = 0; i < HAMMERED; i++) {
        expire_in_background(fe_s(b[i], "id"));
    }
    for (i = 0; i < HAMMERED; i++) {
        pthread_join(th[i], NULL);
    }
    for (i = 0; i < HAMMERED; i++) {
        const char *id = fe_s(b[i], "id");
        char *session = session_of(token[i]), *o = wait_released(id, 20000),
             *st = session_status(session);
        if (h[i].refused != 1) {
            fail_msg("hotel booking %s: the device was never refused (last answer %ld %s)", id,
                     h[i].last_status, h[i].last_code);
        }
        assert_true(h[i].paid <= 1);
        assert_string_equal(st, "canceled");
        assert_int_equal(session_auths(session, NULL), h[i].paid);
        assert_int_equal(session_auths(session, "requires_capture"), 0);
        assert_int_equal(session_auths(session, "canceled"), h[i].paid);
        assert_string_equal(o, h[i].paid ? "voided" : "canceled");
        assert_status(id, "EXPIRED");
        free(o);
        free(st);
        free(session);
    }
    for (i = 0; i < HAMMERED; i++) {
        free(token[i]);
        json_decref(b[i]);
    }
}

/* A book that took the row before the deadline wins: the expiry job, due
 * at the deadline, finds it CONFIRMED and leaves it and its payment be. */
static void book_first_wins_over_the_job(void **state)
{
    json_t *b = sdk_ready("Lovelace");
    const char *id = fe_s(b, "id");
    const char *p[1] = {id};
    char *token = token_of(id), *session = session_of(token), *st;
    long start;
    e2e_resp *r;
    (void)state;
    r = device_pays(token, "pi_test_mastercard");
    fe_expect(r, 200, "the device pays");
    e2e_free(r);
    r = book(id, "hexp-book-first");
    fe_expect(r, 200, "booking before the deadline");
    assert_string_equal(fe_s(fe_data(r), "status"), "CONFIRMED");
    e2e_free(r);
    /* Now the deadline passes and the job runs. */
    expire_in_background(id);
    start = e2e_now_ms();
    while (e2e_sql_long("SELECT count(*) FROM jobs WHERE kind = 'hotel.booking.expire' "
                        "AND payload->>'id' = $1 AND status IN ('queued', 'running')", 1,
                        p) > 0) {
        if (e2e_now_ms() - start > 20000) {
            fail_msg("the expiry job of hotel booking %s did not run in 20 s", id);
        }
        e2e_sleep_ms(100);
    }
    /* It finished (a done job is deleted), not given up. */
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM jobs WHERE kind = "
                                  "'hotel.booking.expire' AND payload->>'id' = $1", 1, p), 0);
    assert_status(id, "CONFIRMED");
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM hotel_authorization_intents "
                                  "WHERE booking_id = $1 AND idempotency_key IS NULL", 1, p),
                     0);
    st = session_status(session);
    assert_string_not_equal(st, "canceled");
    assert_int_equal(session_auths(session, "canceled"), 0);
    free(st);
    free(session);
    free(token);
    json_decref(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(expired_booking_session_canceled),
        cmocka_unit_test(failed_booking_session_canceled),
        cmocka_unit_test(device_pays_during_the_release),
        cmocka_unit_test(left_alone_session_canceled_by_the_job),
        cmocka_unit_test(plain_booking_stored_expired),
        cmocka_unit_test(job_release_cancel_retried),
        cmocka_unit_test(device_races_the_expiry),
        cmocka_unit_test(book_first_wins_over_the_job),
    };
    if (setup(NULL) != 0) {
        return 1;
    }
    return E2E_RUN("hotel_sdk_release", tests);
}
