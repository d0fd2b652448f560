/* No authorization is left held after a hotel book whose authorize went
 * unanswered, through the real mod_travel and the sandbox payment provider
 * told to answer late or drop the connection (POST /sandbox/faults, scoped
 * by the x-request-id of each call). What the provider holds is read from
 * the sandbox's own tables (sandbox.pay_authorizations, reached through
 * the idempotency keys mod_travel sent, "<booking>:authorize:<attempt>"):
 *   - booked again with the same instrument: the late authorization is the
 *     one captured, and it is the only one;
 *   - booked again with another instrument: the late one ends voided;
 *   - nobody books again: the hotel.payment.release job voids it (after
 *     the grace of twice the payment timeout: 12 s in the test stack);
 *   - a void that fails (the supplier could not be reached) is done by the
 *     job.
 * The booking stays truthful throughout: READY_FOR_COMPLETE without a
 * payment until a book succeeds. */
#include "hotel_e2e.h"

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
    key = e2e_new_org_key("hotel-held", NULL);
    return 0;
}

/* POST .../book with this request id. */
static e2e_resp *book(const char *rid, const char *id, const char *body)
{
    char path[256];
    snprintf(path, sizeof(path), "/v1/hotel/bookings/%s/book", id);
    return he_post(key, rid, path, body);
}

static e2e_resp *get(const char *id)
{
    char path[256];
    snprintf(path, sizeof(path), "/v1/hotel/bookings/%s", id);
    return e2e_get(key, path);
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
    return e2e_sql_long("SELECT (total_amount * 100)::bigint FROM hotel_bookings "
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
    const char *sql = "SELECT count(*) FROM hotel_authorization_intents WHERE "
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
    e2e_resp *r = get(id);
    fe_expect(r, 200, "reading a hotel booking");
    assert_string_equal(fe_s(fe_data(r), "status"), "READY_FOR_COMPLETE");
    assert_int_equal(json_array_size(json_object_get(fe_data(r), "payments")), 0);
    e2e_free(r);
}

/* Books and expects CONFIRMED with the payment CAPTURED on this card. */
static void book_confirmed(const char *id, const char *body, const char *last4)
{
    char *rid = fe_rid("har", "book-again");
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

static json_t *ready(void)
{
    return he_ready(key, "SUPPLIER_A", "trip-held", "Lovelace");
}

/* ---- the connection dropped after the provider authorized ---- */

static void dropped_answer_then_same_instrument(void **state)
{
    json_t *b = ready();
    const char *id = fe_s(b, "id");
    char *rid = fe_rid("har", "drop");
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
} late;

static void *late_book(void *u)
{
    late *l = u;
    l->resp = book(l->rid, l->id, VISA);
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
        b[i] = ready();
        l[i].id = fe_s(b[i], "id");
        l[i].rid = fe_rid("har", "late");
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
    wait_auths(l[L_NOBODY].id, "canceled", "pi_test_visa", 1, GRACE_MS + 30000,
               "the unused late authorization");
    assert_int_equal(auths(l[L_NOBODY].id, NULL, NULL), 1);
    assert_int_equal(captured(l[L_NOBODY].id), 0);
    wait_voided_intents(l[L_NOBODY].id, 1, 20000);
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
    json_t *b = ready();
    const char *id = fe_s(b, "id");
    char *rid = fe_rid("har", "void");
    e2e_resp *r;
    (void)state;
    /* The supplier refuses the book before buying anything, and the void
     * of the attempt's authorization fails once. */
    fe_fault("hotel_a", rid, "\"method\":\"POST\",\"path\":\"/book/v3.0/rates/book\","
                          "\"action\":\"error\",\"status\":503");
    fe_fault("payments", rid, "\"method\":\"POST\",\"path\":\"/v1/authorizations/*/cancel\","
                           "\"action\":\"error\",\"status\":503");
    r = book(rid, id, VISA);
    e2e_assert_error(r, 502, "supplier_error");
    e2e_free(r);
    assert_ready_unpaid(id);
    wait_auths(id, "canceled", "pi_test_visa", 1, 20000, "the release job's void");
    assert_int_equal(auths(id, "requires_capture", NULL), 0);
    /* The job records the void after the provider's answer reaches it. */
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(dropped_answer_then_same_instrument, setup),
        cmocka_unit_test(late_authorizations),
        cmocka_unit_test(failed_void_is_retried),
    };
    return E2E_RUN("test_hotel_authorization_release", tests);
}
