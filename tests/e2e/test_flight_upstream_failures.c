/* The 502 / 504 paths of the flight endpoints, through the real mod_travel
 * to sandbox suppliers told to fail (POST /sandbox/faults, scoped by the
 * x-request-id each call sends, so nothing else takes the fault): offers,
 * bags, prebook, the airline lookup, the cancellation quote, and book at
 * the supplier and at the payment provider (authorize and capture). The
 * failures: a 5xx, an HTML error page, a 200 whose body is not JSON, a
 * connection closed without an answer (before or after the upstream acted),
 * and no answer in time. Every failure answers the error envelope with the
 * caller's request id; nothing is stored half-way; money moves once. */
#include "flight_e2e.h"

#include <pthread.h>

static char *key;

/* The sandbox holds a late answer this long; mod_travel gives up after its
 * supplier and payment timeouts (6 s in the test stack). */
#define LATE "\"action\":\"respond\",\"delay_ms\":8000"
/* libcurl resends a request when a reused keep-alive connection closes
 * without an answer, and the resend may go out on another reused
 * connection (a run saw three sends): every request of the test's id is
 * dropped until the test clears the fault. */
#define DROP "\"action\":\"drop\",\"times\":null"

typedef struct failure {
    const char *name;
    const char *spec;
} failure;

/* Answers mod_travel cannot use: 502 supplier_error. */
static const failure bad_answers[] = {
    {"5xx", "\"action\":\"error\",\"status\":503,\"code\":\"service_unavailable\""},
    {"html", "\"action\":\"garbage\",\"status\":502"},
    {"notjson", "\"action\":\"garbage\",\"status\":200"},
};
#define N_BAD (sizeof(bad_answers) / sizeof(bad_answers[0]))

static int setup(void **state)
{
    (void)state;
    key = e2e_new_org_key("unlucky", NULL);
    return 0;
}

/* A call to mod_travel with this request id (and idempotency key). */
static e2e_resp *call(const char *rid, const char *method, const char *path,
                      const char *body, const char *idem)
{
    char kh[512], rh[300], ih[600];
    const char *hdrs[5] = {NULL, NULL, NULL, NULL, NULL};
    int i = 0;
    snprintf(kh, sizeof(kh), "x-api-key: %s", key);
    snprintf(rh, sizeof(rh), "x-request-id: %s", rid);
    hdrs[i++] = kh;
    hdrs[i++] = rh;
    if (body) {
        hdrs[i++] = "Content-Type: application/json";
    }
    if (idem) {
        snprintf(ih, sizeof(ih), "x-idempotency-key: %s", idem);
        hdrs[i++] = ih;
    }
    return e2e_call(e2e_url(), method, path, hdrs, body);
}

/* The error envelope, carrying the caller's request id. */
static void expect_error(const e2e_resp *r, long status, const char *code, const char *rid)
{
    e2e_assert_error(r, status, code);
    assert_string_equal(json_string_value(json_object_get(json_object_get(r->json, "error"),
                                                          "request_id")), rid);
}

static char *search_body(const char *supplier, int days)
{
    char *b = malloc(512);
    snprintf(b, 512, "{\"journeys\":[{\"origin\":\"LHR\",\"destination\":\"JFK\","
             "\"date\":\"%s\"}],\"passengers\":{\"adults\":1},\"supplier\":\"%s\","
             "\"limit\":3}", fe_date(days), supplier);
    return b;
}

static char *bags_path(const char *offer_ref)
{
    char *p = malloc(strlen(offer_ref) + 64);
    sprintf(p, "/v1/flight/offers/%s/bags", offer_ref);
    return p;
}

static long bookings_with_key(const char *idem)
{
    const char *p[1] = {idem};
    return e2e_sql_long("SELECT count(*) FROM flight_bookings WHERE idempotency_key = $1", 1,
                        p);
}

/* ---- money at the sandbox payment provider ---- */

/* The authorizations made for a booking (every attempt's key). */
static long auths(const char *booking_id, const char *status)
{
    const char *p[2] = {booking_id, status};
    return e2e_sql_long("SELECT count(*) FROM sandbox.idempotency i JOIN "
                        "sandbox.pay_authorizations a ON a.id = i.response->>'id' "
                        "WHERE i.key LIKE $1 || ':authorize:%' AND a.status = $2", 2, p);
}

/* Minor units captured across all of them. */
static long captured(const char *booking_id)
{
    const char *p[1] = {booking_id};
    return e2e_sql_long("SELECT coalesce(sum(a.amount_captured), 0) FROM sandbox.idempotency i "
                        "JOIN sandbox.pay_authorizations a ON a.id = i.response->>'id' "
                        "WHERE i.key LIKE $1 || ':authorize:%'", 1, p);
}

/* The booking's total in minor units (GBP: LHR departures). */
static long total_minor(const char *booking_id)
{
    const char *p[1] = {booking_id};
    char *cur = e2e_sql_text("SELECT currency FROM flight_bookings WHERE id = $1", 1, p);
    assert_string_equal(cur, "GBP");
    free(cur);
    return e2e_sql_long("SELECT (total_amount * 100)::bigint FROM flight_bookings "
                        "WHERE id = $1", 1, p);
}

/* The orders the supplier made for a booking: SUPPLIER_A's (Duffel, which
 * takes no Idempotency-Key) by the booking id book sends in the order's
 * metadata; SUPPLIER_B's (LiteAPI Flights, which books a prebook once) by
 * the prebook the booking holds. */
static long orders(const char *booking_id)
{
    const char *p[1] = {booking_id};
    return e2e_sql_long("SELECT count(*) FROM sandbox.flight_orders WHERE supplier = 'A' "
                        "AND doc->'metadata'->>'booking_id' = $1", 1, p)
           + e2e_sql_long("SELECT count(*) FROM sandbox.checkouts c JOIN flight_bookings b "
                          "ON c.id = b.supplier_data->>'prebook_id' WHERE b.id = $1 "
                          "AND c.order_id IS NOT NULL", 1, p);
}

static json_t *read_booking(const char *id)
{
    e2e_resp *r = fe_get(key, id, NULL);
    json_t *d;
    fe_expect(r, 200, "reading a booking");
    d = json_incref(fe_data(r));
    e2e_free(r);
    return d;
}

static void book_path(char *buf, size_t n, const char *id)
{
    snprintf(buf, n, "/v1/flight/bookings/%s/book", id);
}

/* ---- offers and bags ---- */

static void offers_and_bags_answer_502(void **state)
{
    static const char *const sups[] = {"SUPPLIER_A", "SUPPLIER_B"};
    static const char *const apis[] = {"supplier_a", "supplier_b"};
    size_t s, k;
    (void)state;
    for (s = 0; s < 2; s++) {
        char *body = search_body(sups[s], 30), *ref = fe_offer_ref(key, sups[s], 31);
        char *bags = bags_path(ref);
        for (k = 0; k < N_BAD; k++) {
            char *rid = fe_rid("uf", "offers");
            e2e_resp *r;
            fe_fault(apis[s], rid, bad_answers[k].spec);
            r = call(rid, "POST", "/v1/flight/offers", body, NULL);
            expect_error(r, 502, "supplier_error", rid);
            assert_int_equal(fe_fault_hits(rid), 1);
            e2e_free(r);
            free(rid);
            rid = fe_rid("uf", "bags");
            fe_fault(apis[s], rid, bad_answers[k].spec);
            r = call(rid, "GET", bags, NULL, NULL);
            expect_error(r, 502, "supplier_error", rid);
            assert_int_equal(fe_fault_hits(rid), 1);
            e2e_free(r);
            free(rid);
        }
        /* A closed connection is no answer: whether it acted is unknown. */
        {
            char *rid = fe_rid("uf", "offers-drop");
            e2e_resp *r;
            fe_fault(apis[s], rid, DROP);
            r = call(rid, "POST", "/v1/flight/offers", body, NULL);
            expect_error(r, 504, "supplier_timeout", rid);
            fe_fault_clear(rid);
            e2e_free(r);
            free(rid);
        }
        /* The faults were the supplier's trouble, and only those calls'. */
        {
            char *rid = fe_rid("uf", "offers-ok");
            e2e_resp *r = call(rid, "POST", "/v1/flight/offers", body, NULL);
            fe_expect(r, 200, "searching after the faults");
            assert_true(json_array_size(fe_data(r)) > 0);
            e2e_free(r);
            r = call(rid, "GET", bags, NULL, NULL);
            fe_expect(r, 200, "bags after the faults");
            e2e_free(r);
            free(rid);
        }
        free(body);
        free(ref);
        free(bags);
    }
}

/* ---- prebook ---- */

static void prebook_answers_502_and_binds_nothing(void **state)
{
    static const char *const sups[] = {"SUPPLIER_A", "SUPPLIER_B"};
    static const char *const apis[] = {"supplier_a", "supplier_b"};
    size_t s, k;
    (void)state;
    for (s = 0; s < 2; s++) {
        char *ref = fe_offer_ref(key, sups[s], 33 + (int)s);
        char *body = fe_prebook_body(ref, "Lovelace", NULL);
        char *idem = fe_new_key("unlucky-prebook");
        char *rid;
        e2e_resp *r;
        for (k = 0; k <= N_BAD; k++) {
            /* the bad answers, then a dropped connection */
            int drop = k == N_BAD;
            rid = fe_rid("uf", "prebook");
            fe_fault(apis[s], rid, drop ? DROP : bad_answers[k].spec);
            r = call(rid, "POST", "/v1/flight/prebook", body, idem);
            expect_error(r, drop ? 504 : 502, drop ? "supplier_timeout" : "supplier_error", rid);
            assert_true(fe_fault_hits(rid) >= 1);
            /* Nothing was bound: no booking, and the key is free again. */
            assert_int_equal(bookings_with_key(idem), 0);
            fe_fault_clear(rid);
            e2e_free(r);
            free(rid);
        }
        /* The same key and offer prebook once the supplier answers (for
         * SUPPLIER_A, the offer was not left held by a failed booking). */
        rid = fe_rid("uf", "prebook-ok");
        r = call(rid, "POST", "/v1/flight/prebook", body, idem);
        fe_expect(r, 201, "prebook after the faults");
        assert_string_equal(fe_s(fe_data(r), "status"), "READY_FOR_COMPLETE");
        assert_int_equal(bookings_with_key(idem), 1);
        assert_int_equal(fe_events(fe_s(fe_data(r), "id"), "flight.booking.failed"), 0);
        e2e_free(r);
        free(rid);
        free(idem);
        free(body);
        free(ref);
    }
}

/* ---- the airline directory ---- */

static long airlines_with_code(const char *code)
{
    const char *p[1] = {code};
    return e2e_sql_long("SELECT count(*) FROM flight_airlines WHERE iata_code = $1", 1, p);
}

static void airline_lookup_answers_502_and_imports_nothing(void **state)
{
    const char *p[1] = {"AY"};
    size_t k;
    e2e_resp *r;
    char *rid;
    (void)state;
    e2e_sql_exec("DELETE FROM flight_airlines WHERE iata_code = $1", 1, p);
    for (k = 0; k <= N_BAD; k++) {
        int drop = k == N_BAD;
        rid = fe_rid("uf", "airline");
        /* Both suppliers are asked in turn: both fail. */
        fe_fault("supplier_a", rid, drop ? DROP : bad_answers[k].spec);
        fe_fault("supplier_b", rid, drop ? DROP : bad_answers[k].spec);
        r = call(rid, "GET", "/v1/flight/airlines/AY", NULL, NULL);
        expect_error(r, drop ? 504 : 502, drop ? "supplier_timeout" : "supplier_error", rid);
        assert_true(fe_fault_hits(rid) >= 2);
        assert_int_equal(airlines_with_code("AY"), 0);
        fe_fault_clear(rid);
        e2e_free(r);
        free(rid);
    }
    /* One supplier failing while the other knows it: imported. */
    rid = fe_rid("uf", "airline-half");
    fe_fault("supplier_a", rid, bad_answers[0].spec);
    r = call(rid, "GET", "/v1/flight/airlines/AY", NULL, NULL);
    fe_expect(r, 200, "airline from the second supplier");
    assert_string_equal(fe_s(fe_data(r), "iata_code"), "AY");
    assert_int_equal(airlines_with_code("AY"), 1);
    assert_int_equal(fe_fault_hits(rid), 1);
    e2e_free(r);
    free(rid);
}

/* ---- the cancellation quote: advisory, so the fare terms answer ---- */

static json_t *confirmed_a(void)
{
    json_t *b = fe_ready(key, "SUPPLIER_A", "Lovelace", NULL), *d;
    e2e_resp *r = fe_book(key, fe_s(b, "id"), "{\"payment_instrument_id\":\"pi_test_visa\"}");
    fe_expect(r, 200, "book");
    d = json_incref(fe_data(r));
    e2e_free(r);
    json_decref(b);
    return d;
}

static void assert_quote_estimated(const e2e_resp *r, const char *booking_id)
{
    json_t *b;
    fe_expect(r, 200, "quote while the airline fails");
    assert_string_equal(fe_s(fe_data(r), "source"), "FARE_RULES_ESTIMATE");
    assert_non_null(fe_s(fe_data(r), "quoted_at"));
    /* A quote moves nothing. */
    b = read_booking(booking_id);
    assert_string_equal(fe_s(b, "status"), "CONFIRMED");
    assert_null(json_object_get(b, "cancellation"));
    json_decref(b);
}

static void quote_estimates_when_the_airline_fails(void **state)
{
    json_t *b = confirmed_a();
    char path[256];
    size_t k;
    e2e_resp *r;
    char *rid;
    (void)state;
    snprintf(path, sizeof(path), "/v1/flight/bookings/%s/cancellation-quote", fe_s(b, "id"));
    for (k = 0; k <= N_BAD; k++) {
        rid = fe_rid("uf", "quote");
        fe_fault("supplier_a", rid, k == N_BAD ? DROP : bad_answers[k].spec);
        r = call(rid, "GET", path, NULL, NULL);
        assert_quote_estimated(r, fe_s(b, "id"));
        assert_true(fe_fault_hits(rid) >= 1);
        fe_fault_clear(rid);
        e2e_free(r);
        free(rid);
    }
    rid = fe_rid("uf", "quote-ok");
    r = call(rid, "GET", path, NULL, NULL);
    fe_expect(r, 200, "quote");
    assert_string_equal(fe_s(fe_data(r), "source"), "SUPPLIER_QUOTE");
    e2e_free(r);
    free(rid);
    json_decref(b);
}

/* ---- book ---- */

/* The booking after a failed attempt: READY_FOR_COMPLETE, no payment
 * shown, no order, no outcome event. */
static void assert_untouched(const char *id)
{
    json_t *b = read_booking(id);
    assert_string_equal(fe_s(b, "status"), "READY_FOR_COMPLETE");
    assert_int_equal(json_array_size(json_object_get(b, "payments")), 0);
    assert_null(fe_s(b, "supplier_reference"));
    assert_int_equal(orders(id), 0);
    assert_int_equal(fe_events(id, "flight.booking.confirmed"), 0);
    assert_int_equal(fe_events(id, "flight.booking.failed"), 0);
    json_decref(b);
}

/* Books again without faults: CONFIRMED, one order, charged the total once. */
static void assert_books_once(const char *id, const char *body, int service_pays)
{
    char path[256], *rid = fe_rid("uf", "book-ok");
    e2e_resp *r;
    json_t *d, *pay;
    book_path(path, sizeof(path), id);
    r = call(rid, "POST", path, body, NULL);
    fe_expect(r, 200, "book after the failure");
    d = fe_data(r);
    assert_string_equal(fe_s(d, "status"), "CONFIRMED");
    assert_int_equal(json_array_size(json_object_get(d, "payments")), 1);
    pay = json_array_get(json_object_get(d, "payments"), 0);
    assert_true(json_equal(json_object_get(pay, "amount"), json_object_get(d, "total_amount")));
    assert_int_equal(orders(id), 1);
    assert_int_equal(fe_events(id, "flight.booking.confirmed"), 1);
    if (service_pays) {
        assert_string_equal(fe_s(pay, "status"), "CAPTURED");
        assert_int_equal(auths(id, "captured"), 1);
        assert_int_equal(captured(id), total_minor(id));
    }
    e2e_free(r);
    free(rid);
}

static void book_fails_502_at_the_supplier_and_charges_nothing(void **state)
{
    static const char *const sups[] = {"SUPPLIER_A", "SUPPLIER_B"};
    static const char *const apis[] = {"supplier_a", "supplier_b"};
    static const char *const paths[] = {"\"method\":\"POST\",\"path\":\"/air/orders\"",
                                        "\"method\":\"POST\",\"path\":\"/v3.0/flights/bookings\""};
    static const char *const bodies[] = {"{\"payment_instrument_id\":\"pi_test_visa\"}", "{}"};
    size_t s, k;
    (void)state;
    for (s = 0; s < 2; s++) {
        json_t *b = fe_ready(key, sups[s], "Lovelace", NULL);
        const char *id = fe_s(b, "id");
        char path[256], spec[512];
        book_path(path, sizeof(path), id);
        /* 5xx answers (a 200 without JSON at book is an unknown outcome:
         * see below) */
        for (k = 0; k < 2; k++) {
            char *rid = fe_rid("uf", "book");
            e2e_resp *r;
            snprintf(spec, sizeof(spec), "%s,%s", paths[s], bad_answers[k].spec);
            fe_fault(apis[s], rid, spec);
            r = call(rid, "POST", path, bodies[s], NULL);
            expect_error(r, 502, "supplier_error", rid);
            assert_int_equal(fe_fault_hits(rid), 1);
            assert_untouched(id);
            if (s == 0) {
                /* Each attempt's authorization was voided. */
                assert_int_equal(auths(id, "canceled"), (long)k + 1);
                assert_int_equal(auths(id, "requires_capture"), 0);
                assert_int_equal(captured(id), 0);
            }
            e2e_free(r);
            free(rid);
        }
        assert_books_once(id, bodies[s], s == 0);
        json_decref(b);
    }
}

/* Waits (15 s at most) for the first order lookup of booking id that
 * the supplier answered. */
static void wait_first_lookup(const char *id)
{
    const char *p[1] = {id};
    long t0 = e2e_now_ms();
    while (e2e_sql_long("SELECT count(*) FROM supplier_calls WHERE booking_id = $1 "
                        "AND operation = 'GET /air/orders' AND outcome = 'ok'", 1, p) < 1
           && e2e_now_ms() - t0 < 15000) {
        e2e_sleep_ms(200);
    }
}

/* Book sent, no usable answer: the connection closed after the supplier
 * made the order, or the answer is not JSON (the sandbox then made
 * nothing, which mod_travel cannot know). Whether the ticket exists is
 * unknown, so the book answers 500 result_unknown, the money stays held,
 * and book is never sent again: not by libcurl (the POST carries no key,
 * so it goes out on a fresh connection and a dropped one is not resent),
 * not by a repeat. The background job then looks the order up at the
 * supplier: the one made is reported (CONFIRMED, captured once); where
 * none was made the booking stays unknown, its money held (until its offer
 * has expired: the next test). */
static void book_answer_lost_is_result_unknown(void **state)
{
    static const char *const specs[] = {
        "\"method\":\"POST\",\"path\":\"/air/orders\",\"action\":\"drop_after_handling\","
        "\"times\":null",
        "\"method\":\"POST\",\"path\":\"/air/orders\",\"action\":\"garbage\",\"status\":201"};
    static const long made[] = {1, 0};
    size_t k;
    (void)state;
    e2e_expect_log("TRV355: ");
    for (k = 0; k < 2; k++) {
        json_t *b = fe_ready(key, "SUPPLIER_A", "Lovelace", NULL), *d;
        const char *id = fe_s(b, "id");
        char path[256], *rid = fe_rid("uf", "book-lost");
        e2e_resp *r;
        book_path(path, sizeof(path), id);
        fe_fault("supplier_a", rid, specs[k]);
        r = call(rid, "POST", path, "{\"payment_instrument_id\":\"pi_test_visa\"}", NULL);
        expect_error(r, 500, "result_unknown", rid);
        e2e_free(r);
        assert_int_equal(fe_fault_hits(rid), 1); /* sent once */
        assert_int_equal(orders(id), made[k]);
        fe_fault_clear(rid);
        free(rid);
        if (made[k]) {
            /* The order that exists is found and reported. */
            const char *p[1] = {id};
            char *order_id = e2e_sql_text("SELECT id FROM sandbox.flight_orders WHERE "
                                          "doc->'metadata'->>'booking_id' = $1", 1, p);
            d = fe_wait_status(key, id, "CONFIRMED", 30000);
            assert_string_equal(fe_s(d, "supplier_reference"), order_id);
            assert_string_equal(fe_s(json_array_get(json_object_get(d, "payments"), 0),
                                     "status"), "CAPTURED");
            assert_int_equal(captured(id), total_minor(id));
            assert_int_equal(auths(id, "canceled"), 0);
            free(order_id);
        }
        else {
            /* The job looks the order up (GET /air/orders, recorded among
             * the booking's supplier calls) and finds none. */
            const char *p[1] = {id};
            wait_first_lookup(id);
            assert_true(e2e_sql_long("SELECT count(*) FROM supplier_calls WHERE booking_id = $1 "
                                     "AND operation = 'GET /air/orders' AND outcome = 'ok'", 1,
                                     p) >= 1);
            d = read_booking(id);
            assert_string_equal(fe_s(d, "status"), "COMPLETE_IN_PROGRESS");
            assert_string_equal(fe_s(json_array_get(json_object_get(d, "payments"), 0),
                                     "status"), "AUTHORIZED");
            assert_int_equal(auths(id, "requires_capture"), 1);
            assert_int_equal(auths(id, "canceled"), 0);
            assert_int_equal(captured(id), 0);
            /* A repeat answers the same and orders nothing. */
            rid = fe_rid("uf", "book-lost-again");
            r = call(rid, "POST", path, "{\"payment_instrument_id\":\"pi_test_visa\"}", NULL);
            expect_error(r, 500, "result_unknown", rid);
            e2e_free(r);
            free(rid);
        }
        json_decref(d);
        assert_int_equal(orders(id), made[k]);
        json_decref(b);
    }
}

/* The book of booking id (at path) whose answer is lost: the sandbox
 * answers garbage and makes no order; the API says result_unknown. */
static void lose_book_answer(const char *path, const char *id, const char *tag)
{
    char *rid = fe_rid("uf", tag);
    e2e_resp *r;
    fe_fault("supplier_a", rid, "\"method\":\"POST\",\"path\":\"/air/orders\","
                                "\"action\":\"garbage\",\"status\":201");
    r = call(rid, "POST", path, "{\"payment_instrument_id\":\"pi_test_visa\"}", NULL);
    expect_error(r, 500, "result_unknown", rid);
    e2e_free(r);
    fe_fault_clear(rid);
    free(rid);
    assert_int_equal(orders(id), 0);
}

/* The offer expired well before now (past the grace for late orders);
 * the job's next look is due at once. */
static void expire_offer_now(const char *id)
{
    const char *p[1] = {id};
    e2e_sql_exec("UPDATE flight_bookings SET expires_at = now() - interval '10 minutes' "
                 "WHERE id = $1", 1, p);
    e2e_sql_exec("UPDATE jobs SET available_at = now() WHERE kind = 'flight.booking.complete' "
                 "AND payload->>'id' = $1 AND status = 'queued'", 1, p);
}

/* A lost book answer whose order is never found does not stay unknown
 * for ever: once the offer (and so any order that could have been made
 * from it) has expired, the next lookup that finds nothing ends the
 * booking FAILED with order_not_found, the authorization voided at the
 * provider, flight.booking.failed written, and no lookup after that.
 * Before the expiry, a miss leaves it unknown. Time is moved by setting
 * the booking's expires_at back, not waited for. */
static void book_lost_without_order_fails_once_the_offer_expired(void **state)
{
    json_t *b = fe_ready(key, "SUPPLIER_A", "Lovelace", NULL), *d;
    const char *id = fe_s(b, "id");
    const char *p[1] = {id};
    char path[256], *rid;
    long lookups;
    e2e_resp *r;
    (void)state;
    e2e_expect_log("TRV355: ");
    book_path(path, sizeof(path), id);
    /* The answer is not JSON, and the sandbox made no order. */
    lose_book_answer(path, id, "book-lost-expiry");

    /* Looked up before the offer expired: a miss, the booking unknown. */
    wait_first_lookup(id);
    d = read_booking(id);
    assert_string_equal(fe_s(d, "status"), "COMPLETE_IN_PROGRESS");
    assert_int_equal(auths(id, "requires_capture"), 1);
    json_decref(d);

    expire_offer_now(id);
    d = fe_wait_status(key, id, "FAILED", 30000);
    assert_string_equal(fe_s(json_object_get(d, "failure"), "code"), "order_not_found");
    assert_non_null(strstr(fe_s(json_object_get(d, "failure"), "description"), "expired"));
    /* Nothing taken: the voided authorization is no longer listed. */
    assert_int_equal(json_array_size(json_object_get(d, "payments")), 0);
    json_decref(d);
    /* The money: voided at the provider, nothing captured, no order. */
    assert_int_equal(auths(id, "canceled"), 1);
    assert_int_equal(auths(id, "requires_capture"), 0);
    assert_int_equal(captured(id), 0);
    assert_int_equal(orders(id), 0);
    assert_int_equal(fe_events(id, "flight.booking.failed"), 1);
    /* No more lookups: the job is gone, and a while later no call more. */
    lookups = e2e_sql_long("SELECT count(*) FROM supplier_calls WHERE booking_id = $1 "
                           "AND operation = 'GET /air/orders'", 1, p);
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM jobs WHERE kind = "
                                  "'flight.booking.complete' AND payload->>'id' = $1", 1, p), 0);
    e2e_sleep_ms(2500);
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM supplier_calls WHERE booking_id = $1 "
                                  "AND operation = 'GET /air/orders'", 1, p), lookups);
    /* A repeated book orders nothing. */
    rid = fe_rid("uf", "book-lost-expiry-again");
    r = call(rid, "POST", path, "{\"payment_instrument_id\":\"pi_test_visa\"}", NULL);
    expect_error(r, 409, "invalid_state", rid);
    e2e_free(r);
    free(rid);
    assert_int_equal(orders(id), 0);
    json_decref(b);
}

/* A common family name: Duffel lists orders by passenger name, and a
 * name with more orders than one lookup reads (10 pages of 200) would
 * leave a lost book's outcome undecided for ever. The lookup asks only for
 * orders created since the booking (created_at[after]: its creation less
 * 5 minutes), so 2,001 older orders of the name are never read: a
 * booking whose book made no order still ends FAILED once its offer has
 * expired, as with a rare name. */
static void a_common_name_is_decided_among_orders_since_the_booking(void **state)
{
    char name[40], path[256], *order_id;
    long now = e2e_now_ms();
    json_t *first, *b, *d;
    const char *id;
    e2e_resp *r;
    int i;
    (void)state;
    e2e_expect_log("TRV355: ");
    /* A name of letters only, new to this database. */
    snprintf(name, sizeof(name), "Common");
    for (i = 0; i < 9; i++, now /= 26) {
        name[6 + i] = (char)('a' + now % 26);
    }
    name[15] = '\0';
    /* Someone of that name booked before: the template of 2,001 orders
     * of the name made yesterday, for other bookings. */
    first = fe_ready(key, "SUPPLIER_A", name, NULL);
    r = fe_book(key, fe_s(first, "id"), "{\"payment_instrument_id\":\"pi_test_visa\"}");
    assert_true(r->status == 200 || r->status == 202);
    e2e_free(r);
    json_decref(fe_wait_status(key, fe_s(first, "id"), "CONFIRMED", 30000));
    {
        const char *p[1] = {fe_s(first, "id")};
        order_id = e2e_sql_text("SELECT id FROM sandbox.flight_orders WHERE "
                                "doc->'metadata'->>'booking_id' = $1", 1, p);
        assert_non_null(order_id);
    }
    {
        const char *p[1] = {order_id};
        e2e_sql_exec("INSERT INTO sandbox.flight_orders (id, supplier, offer_ref, checkout_id, "
                     "status, pnr, trigger, brand, currency, total_minor, tax_minor, "
                     "services_minor, refund_allowed, refund_penalty, doc, segments, payment, "
                     "failure, ticketing_due_at, created_at, updated_at, payment_required_by, "
                     "paid_at) SELECT o.id || '_old' || g, o.supplier, o.offer_ref || '_old' || g, "
                     "o.checkout_id, o.status, o.pnr, o.trigger, o.brand, o.currency, "
                     "o.total_minor, o.tax_minor, o.services_minor, o.refund_allowed, "
                     "o.refund_penalty, jsonb_set(o.doc, '{metadata,booking_id}', "
                     "to_jsonb('bkg_old_' || g)), o.segments, o.payment, o.failure, "
                     "o.ticketing_due_at, now() - interval '1 day', now() - interval '1 day', "
                     "o.payment_required_by, o.paid_at FROM sandbox.flight_orders o, "
                     "generate_series(1, 2001) g WHERE o.id = $1", 1, p);
    }
    /* The booking whose book answer is lost, and no order made. */
    b = fe_ready(key, "SUPPLIER_A", name, NULL);
    id = fe_s(b, "id");
    book_path(path, sizeof(path), id);
    lose_book_answer(path, id, "book-lost-common");
    /* Looked up once before the offer expired (a miss), then again after
     * it: none among the orders since the booking, so none. */
    wait_first_lookup(id);
    expire_offer_now(id);
    d = fe_wait_status(key, id, "FAILED", 30000);
    assert_string_equal(fe_s(json_object_get(d, "failure"), "code"), "order_not_found");
    assert_int_equal(auths(id, "canceled"), 1);
    assert_int_equal(orders(id), 0);
    json_decref(d);
    free(order_id);
    json_decref(b);
    json_decref(first);
}

static void authorize_fails_502_and_nothing_moves(void **state)
{
    size_t k;
    json_t *b = fe_ready(key, "SUPPLIER_A", "Lovelace", NULL);
    const char *id = fe_s(b, "id");
    char path[256];
    (void)state;
    book_path(path, sizeof(path), id);
    for (k = 0; k < N_BAD; k++) {
        char *rid = fe_rid("uf", "authorize"), spec[512];
        e2e_resp *r;
        snprintf(spec, sizeof(spec), "\"method\":\"POST\",\"path\":\"/v1/authorizations\",%s",
                 bad_answers[k].spec);
        fe_fault("payments", rid, spec);
        r = call(rid, "POST", path, "{\"payment_instrument_id\":\"pi_test_visa\"}", NULL);
        expect_error(r, 502, "supplier_error", rid);
        assert_int_equal(fe_fault_hits(rid), 1);
        assert_untouched(id);
        assert_int_equal(captured(id), 0);
        e2e_free(r);
        free(rid);
    }
    assert_books_once(id, "{\"payment_instrument_id\":\"pi_test_visa\"}", 1);
    json_decref(b);
}

/* The ticket is issued when capture fails: CONFIRMED at once, the payment
 * AUTHORIZED, and the settle job captures it, once. */
static void capture_failure_is_settled_later(void **state)
{
    json_t *b = fe_ready(key, "SUPPLIER_A", "Lovelace", NULL), *d;
    const char *id = fe_s(b, "id");
    char path[256], *rid = fe_rid("uf", "capture");
    long start;
    e2e_resp *r;
    (void)state;
    book_path(path, sizeof(path), id);
    fe_fault("payments", rid, "\"method\":\"POST\",\"path\":\"/v1/authorizations/*/capture\","
                           "\"action\":\"error\",\"status\":500");
    r = call(rid, "POST", path, "{\"payment_instrument_id\":\"pi_test_visa\"}", NULL);
    fe_expect(r, 200, "book while capture fails");
    d = fe_data(r);
    assert_string_equal(fe_s(d, "status"), "CONFIRMED");
    assert_string_equal(fe_s(json_array_get(json_object_get(d, "payments"), 0), "status"),
                        "AUTHORIZED");
    assert_int_equal(fe_fault_hits(rid), 1);
    e2e_free(r);
    start = e2e_now_ms();
    for (;;) {
        d = read_booking(id);
        if (strcmp(fe_s(json_array_get(json_object_get(d, "payments"), 0), "status"),
                   "CAPTURED") == 0) {
            json_decref(d);
            break;
        }
        json_decref(d);
        if (e2e_now_ms() - start > 20000) {
            fail_msg("the settle job did not capture booking %s", id);
        }
        e2e_sleep_ms(200);
    }
    assert_int_equal(captured(id), total_minor(id));
    assert_int_equal(auths(id, "captured"), 1);
    assert_int_equal(orders(id), 1);
    free(rid);
    json_decref(b);
}

/* ---- no answer in time: every 504 at once, so the suite waits once ---- */

typedef struct pcall {
    const char *what;
    char *rid;
    const char *method;
    char *path;
    char *body;
    char *idem;
    e2e_resp *resp;
    long ms;
} pcall;

static void *pcall_run(void *u)
{
    pcall *c = u;
    long t0 = e2e_now_ms();
    c->resp = call(c->rid, c->method, c->path, c->body, c->idem);
    c->ms = e2e_now_ms() - t0;
    return NULL;
}

static void pcall_set(pcall *c, const char *what, const char *method, const char *path,
                      const char *body, const char *idem)
{
    memset(c, 0, sizeof(*c));
    c->what = what;
    c->rid = fe_rid("uf", what);
    c->method = method;
    c->path = strdup(path);
    c->body = body ? strdup(body) : NULL;
    c->idem = idem ? strdup(idem) : NULL;
}

static void expect_timeout(const pcall *c, long hits)
{
    if (c->resp->status != 504) {
        fail_msg("%s: expected 504, got %ld: %s", c->what, c->resp->status, c->resp->body);
    }
    expect_error(c->resp, 504, "supplier_timeout", c->rid);
    /* It waited for the timeout rather than failing at once. */
    assert_true(c->ms >= 5000);
    assert_int_equal(fe_fault_hits(c->rid), hits);
}

enum { T_OFFERS_A, T_OFFERS_B, T_BAGS_A, T_BAGS_B, T_PREBOOK_A, T_PREBOOK_B, T_AIRLINE,
       T_QUOTE, T_AUTHORIZE, T_CAPTURE, T_N };

static void no_answer_in_time_is_504(void **state)
{
    pcall c[T_N];
    pthread_t th[T_N];
    char *s, *ref_a = fe_offer_ref(key, "SUPPLIER_A", 37), *ref_b = fe_offer_ref(key,
                                                                                "SUPPLIER_B", 38);
    char *pre_a = fe_offer_ref(key, "SUPPLIER_A", 39), *pre_b = fe_offer_ref(key, "SUPPLIER_B",
                                                                             40);
    char *idem_a = fe_new_key("late-a"), *idem_b = fe_new_key("late-b"), path[256];
    json_t *conf = confirmed_a(), *auth_b = fe_ready(key, "SUPPLIER_A", "Lovelace", NULL);
    json_t *cap_b = fe_ready(key, "SUPPLIER_A", "Lovelace", NULL), *d;
    const char *auth_id = fe_s(auth_b, "id"), *cap_id = fe_s(cap_b, "id");
    const char *visa = "{\"payment_instrument_id\":\"pi_test_visa\"}";
    const char *p[1] = {"KL"};
    int i;
    long start;
    (void)state;

    s = search_body("SUPPLIER_A", 36);
    pcall_set(&c[T_OFFERS_A], "offers-a", "POST", "/v1/flight/offers", s, NULL);
    free(s);
    s = search_body("SUPPLIER_B", 36);
    pcall_set(&c[T_OFFERS_B], "offers-b", "POST", "/v1/flight/offers", s, NULL);
    free(s);
    s = bags_path(ref_a);
    pcall_set(&c[T_BAGS_A], "bags-a", "GET", s, NULL, NULL);
    free(s);
    s = bags_path(ref_b);
    pcall_set(&c[T_BAGS_B], "bags-b", "GET", s, NULL, NULL);
    free(s);
    s = fe_prebook_body(pre_a, "Lovelace", NULL);
    pcall_set(&c[T_PREBOOK_A], "prebook-a", "POST", "/v1/flight/prebook", s, idem_a);
    free(s);
    s = fe_prebook_body(pre_b, "Lovelace", NULL);
    pcall_set(&c[T_PREBOOK_B], "prebook-b", "POST", "/v1/flight/prebook", s, idem_b);
    free(s);
    pcall_set(&c[T_AIRLINE], "airline", "GET", "/v1/flight/airlines/KL", NULL, NULL);
    snprintf(path, sizeof(path), "/v1/flight/bookings/%s/cancellation-quote", fe_s(conf, "id"));
    pcall_set(&c[T_QUOTE], "quote", "GET", path, NULL, NULL);
    book_path(path, sizeof(path), auth_id);
    pcall_set(&c[T_AUTHORIZE], "authorize", "POST", path, visa, NULL);
    book_path(path, sizeof(path), cap_id);
    pcall_set(&c[T_CAPTURE], "capture", "POST", path, visa, NULL);

    fe_fault("supplier_a", c[T_OFFERS_A].rid, LATE);
    fe_fault("supplier_b", c[T_OFFERS_B].rid, LATE);
    fe_fault("supplier_a", c[T_BAGS_A].rid, LATE);
    fe_fault("supplier_b", c[T_BAGS_B].rid, LATE);
    fe_fault("supplier_a", c[T_PREBOOK_A].rid, LATE);
    fe_fault("supplier_b", c[T_PREBOOK_B].rid, LATE);
    /* The first supplier does not answer and the second does not know the
     * carrier: the failure that counts is the first's. */
    e2e_sql_exec("DELETE FROM flight_airlines WHERE iata_code = $1", 1, p);
    fe_fault("supplier_a", c[T_AIRLINE].rid, LATE);
    fe_fault("supplier_b", c[T_AIRLINE].rid, "\"action\":\"error\",\"status\":404,"
                                          "\"code\":\"not_found\"");
    fe_fault("supplier_a", c[T_QUOTE].rid, LATE);
    fe_fault("payments", c[T_AUTHORIZE].rid, "\"path\":\"/v1/authorizations\"," LATE);
    fe_fault("payments", c[T_CAPTURE].rid, "\"path\":\"/v1/authorizations/*/capture\"," LATE);

    for (i = 0; i < T_N; i++) {
        assert_int_equal(pthread_create(&th[i], NULL, pcall_run, &c[i]), 0);
    }
    for (i = 0; i < T_N; i++) {
        pthread_join(th[i], NULL);
    }

    expect_timeout(&c[T_OFFERS_A], 1);
    expect_timeout(&c[T_OFFERS_B], 1);
    expect_timeout(&c[T_BAGS_A], 1);
    expect_timeout(&c[T_BAGS_B], 1);
    /* Prebook: nothing bound, the key free again. */
    expect_timeout(&c[T_PREBOOK_A], 1);
    expect_timeout(&c[T_PREBOOK_B], 1);
    assert_int_equal(bookings_with_key(idem_a), 0);
    assert_int_equal(bookings_with_key(idem_b), 0);
    expect_timeout(&c[T_AIRLINE], 2);
    assert_int_equal(airlines_with_code("KL"), 0);
    assert_quote_estimated(c[T_QUOTE].resp, fe_s(conf, "id"));
    assert_true(c[T_QUOTE].ms >= 5000);
    /* Authorize unanswered: nothing charged, the booking bookable again. */
    expect_timeout(&c[T_AUTHORIZE], 1);
    assert_untouched(auth_id);
    /* Capture unanswered: the ticket is issued, CONFIRMED, AUTHORIZED. */
    fe_expect(c[T_CAPTURE].resp, 200, "book while capture hangs");
    assert_true(c[T_CAPTURE].ms >= 5000);
    d = fe_data(c[T_CAPTURE].resp);
    assert_string_equal(fe_s(d, "status"), "CONFIRMED");
    assert_string_equal(fe_s(json_array_get(json_object_get(d, "payments"), 0), "status"),
                        "AUTHORIZED");

    /* Afterwards: the same prebook key works; the booking whose
     * authorization went unanswered books and is charged once (with the
     * same key, so the provider's late authorization, made meanwhile, is
     * the one captured: test_flight_authorization_release.c); the capture
     * is settled once. */
    {
        char *rid = fe_rid("uf", "prebook-after");
        e2e_resp *r = call(rid, "POST", "/v1/flight/prebook", c[T_PREBOOK_A].body, idem_a);
        fe_expect(r, 201, "prebook after a timeout");
        e2e_free(r);
        free(rid);
    }
    start = e2e_now_ms();
    while (auths(auth_id, "requires_capture") == 0) {
        if (e2e_now_ms() - start > 10000) {
            fail_msg("the sandbox never made the late authorization of %s", auth_id);
        }
        e2e_sleep_ms(200);
    }
    assert_books_once(auth_id, visa, 1);
    start = e2e_now_ms();
    for (;;) {
        d = read_booking(cap_id);
        if (strcmp(fe_s(json_array_get(json_object_get(d, "payments"), 0), "status"),
                   "CAPTURED") == 0) {
            json_decref(d);
            break;
        }
        json_decref(d);
        if (e2e_now_ms() - start > 20000) {
            fail_msg("the settle job did not capture booking %s", cap_id);
        }
        e2e_sleep_ms(200);
    }
    /* The late capture, when it lands, is the same capture (same key). */
    e2e_sleep_ms(3000);
    assert_int_equal(captured(cap_id), total_minor(cap_id));
    assert_int_equal(auths(cap_id, "captured"), 1);

    for (i = 0; i < T_N; i++) {
        e2e_free(c[i].resp);
        free(c[i].rid);
        free(c[i].path);
        free(c[i].body);
        free(c[i].idem);
    }
    free(ref_a);
    free(ref_b);
    free(pre_a);
    free(pre_b);
    free(idem_a);
    free(idem_b);
    json_decref(conf);
    json_decref(auth_b);
    json_decref(cap_b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(offers_and_bags_answer_502, setup),
        cmocka_unit_test(prebook_answers_502_and_binds_nothing),
        cmocka_unit_test(airline_lookup_answers_502_and_imports_nothing),
        cmocka_unit_test(quote_estimates_when_the_airline_fails),
        cmocka_unit_test(book_fails_502_at_the_supplier_and_charges_nothing),
        cmocka_unit_test(book_answer_lost_is_result_unknown),
        cmocka_unit_test(book_lost_without_order_fails_once_the_offer_expired),
        cmocka_unit_test(a_common_name_is_decided_among_orders_since_the_booking),
        cmocka_unit_test(authorize_fails_502_and_nothing_moves),
        cmocka_unit_test(capture_failure_is_settled_later),
        cmocka_unit_test(no_answer_in_time_is_504),
    };
    return E2E_RUN("test_flight_upstream_failures", tests);
}
