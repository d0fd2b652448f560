/* POST /v1/flight/bookings/{id}/book through httpd to the sandbox: every
 * row of the book part of the flight state table (200 CONFIRMED, 202 and
 * the same 202 on repeat then CONFIRMED by the background job, FAILED with
 * failure, 500 result_unknown never retried (the order the supplier made is
 * found and reported), CONFIRMED returned unchanged,
 * EXPIRED not bookable), payments (CAPTURED, payment_method, a card read
 * later, a declined card), the outbox events, the body rules, and
 * concurrent books of one booking charging once. */
#include "flight_e2e.h"

#include <pthread.h>

static char *key;

static int setup(void **state)
{
    (void)state;
    key = e2e_new_org_key("booker", NULL);
    return 0;
}

static json_t *first_payment(const json_t *b)
{
    return json_array_get(json_object_get(b, "payments"), 0);
}

/* Sandbox side: authorizations made for this booking and their captures. */
static long sandbox_captured(const char *booking_id)
{
    const char *p[1] = {booking_id};
    return e2e_sql_long("SELECT coalesce(sum(a.amount_captured), 0) FROM "
                        "sandbox.pay_authorizations a JOIN flight_payments fp ON "
                        "fp.provider_ref = a.id WHERE fp.booking_id = $1", 1, p);
}

static long sandbox_authorizations(const char *booking_id)
{
    const char *p[1] = {booking_id};
    return e2e_sql_long("SELECT count(*) FROM sandbox.idempotency WHERE key LIKE $1 || "
                        "':authorize:%'", 1, p);
}

static void confirmed_in_the_request(void **state)
{
    json_t *b = fe_ready(key, "SUPPLIER_A", "Lovelace", NULL), *d, *pay, *card;
    const char *id = fe_s(b, "id");
    e2e_resp *r, *again;
    (void)state;
    r = fe_book(key, id, "{\"payment_instrument_id\":\"pi_test_visa\"}");
    fe_expect(r, 200, "book");
    d = fe_data(r);
    assert_string_equal(fe_s(d, "status"), "CONFIRMED");
    assert_non_null(fe_s(d, "supplier_reference"));
    assert_non_null(fe_s(d, "airline_pnr"));
    assert_non_null(fe_s(d, "confirmed_at"));
    assert_null(json_object_get(d, "expires_at"));
    pay = first_payment(d);
    assert_true(strncmp(fe_s(pay, "id"), "pay_", 4) == 0);
    assert_string_equal(fe_s(pay, "status"), "CAPTURED");
    assert_string_equal(fe_s(pay, "collected_by"), "SERVICE");
    assert_true(json_equal(json_object_get(pay, "amount"), json_object_get(d, "total_amount")));
    assert_string_equal(fe_s(json_object_get(pay, "payment_method"), "type"), "CARD");
    card = json_object_get(json_object_get(pay, "payment_method"), "card");
    assert_non_null(fe_s(card, "brand"));
    assert_int_equal(strlen(fe_s(card, "last4")), 4);
    assert_non_null(fe_s(card, "funding"));
    assert_true(json_object_get(card, "wallet") != NULL);
    assert_int_equal(fe_events(id, "flight.booking.confirmed"), 1);
    /* Book again: the booking unchanged, nothing charged twice. */
    again = fe_book(key, id, "{\"payment_instrument_id\":\"pi_test_mastercard\"}");
    fe_expect(again, 200, "book again");
    assert_true(json_equal(fe_data(again), d));
    assert_int_equal(fe_events(id, "flight.booking.confirmed"), 1);
    assert_int_equal(sandbox_authorizations(id), 1);
    e2e_free(r);
    e2e_free(again);
    json_decref(b);
}

static void supplier_b_collects_payment(void **state)
{
    json_t *b = fe_ready(key, "SUPPLIER_B", "Lovelace", NULL), *pay;
    e2e_resp *r;
    (void)state;
    /* B takes {}: an instrument is refused. */
    r = fe_book(key, fe_s(b, "id"), "{\"payment_instrument_id\":\"pi_test_visa\"}");
    e2e_assert_error(r, 422, "validation_failed");
    e2e_free(r);
    r = fe_book(key, fe_s(b, "id"), "{}");
    fe_expect(r, 200, "book at B");
    assert_string_equal(fe_s(fe_data(r), "status"), "CONFIRMED");
    pay = first_payment(fe_data(r));
    assert_string_equal(fe_s(pay, "collected_by"), "SUPPLIER");
    assert_string_equal(fe_s(pay, "status"), "CAPTURED");
    e2e_free(r);
    json_decref(b);
}

static const char *pay_body(const char *supplier)
{
    return strcmp(supplier, "SUPPLIER_A") == 0 ? "{\"payment_instrument_id\":\"pi_test_visa\"}"
                                               : "{}";
}

static void ticketing_in_the_background(void **state)
{
    const char *suppliers[] = {"SUPPLIER_A", "SUPPLIER_B"};
    int i;
    (void)state;
    for (i = 0; i < 2; i++) {
        json_t *b = fe_ready(key, suppliers[i], "Async", NULL), *done, *pay;
        const char *id = fe_s(b, "id");
        e2e_resp *r, *again;
        r = fe_book(key, id, pay_body(suppliers[i]));
        fe_expect(r, 202, "book while ticketing");
        assert_string_equal(fe_s(fe_data(r), "status"), "COMPLETE_IN_PROGRESS");
        /* Repeating book returns the same 202. */
        again = fe_book(key, id, pay_body(suppliers[i]));
        fe_expect(again, 202, "repeat book while ticketing");
        assert_string_equal(fe_s(fe_data(again), "status"), "COMPLETE_IN_PROGRESS");
        assert_int_equal(fe_events(id, "flight.booking.confirmed"), 0);
        done = fe_wait_status(key, id, "CONFIRMED", 30000);
        assert_non_null(fe_s(done, "supplier_reference"));
        pay = first_payment(done);
        assert_string_equal(fe_s(pay, "status"), "CAPTURED");
        assert_string_equal(fe_s(pay, "collected_by"), i == 0 ? "SERVICE" : "SUPPLIER");
        assert_int_equal(fe_events(id, "flight.booking.confirmed"), 1);
        if (i == 0) {
            assert_int_equal(sandbox_authorizations(id), 1);
        }
        e2e_free(r);
        e2e_free(again);
        json_decref(done);
        json_decref(b);
    }
}

static void ticketing_fails(void **state)
{
    const char *suppliers[] = {"SUPPLIER_A", "SUPPLIER_B"};
    int i;
    (void)state;
    for (i = 0; i < 2; i++) {
        json_t *b = fe_ready(key, suppliers[i], "Failticket", NULL), *f;
        const char *id = fe_s(b, "id");
        e2e_resp *r, *g;
        r = fe_book(key, id, pay_body(suppliers[i]));
        e2e_assert_error(r, 422, "book_failed");
        g = fe_get(key, id, NULL);
        fe_expect(g, 200, "read the failed booking");
        assert_string_equal(fe_s(fe_data(g), "status"), "FAILED");
        f = json_object_get(fe_data(g), "failure");
        assert_string_equal(fe_s(f, "code"), "book_failed");
        assert_true(strlen(fe_s(f, "description")) > 0);
        /* Nothing was taken: the authorization was voided (or B charged nothing). */
        assert_int_equal(json_array_size(json_object_get(fe_data(g), "payments")), 0);
        assert_int_equal(sandbox_captured(id), 0);
        assert_int_equal(fe_events(id, "flight.booking.failed"), 1);
        e2e_free(r);
        /* FAILED is final for book. */
        r = fe_book(key, id, pay_body(suppliers[i]));
        e2e_assert_error(r, 409, "invalid_state");
        e2e_free(r);
        e2e_free(g);
        json_decref(b);
    }
}

static void failed_booking_keeps_its_prebook_key(void **state)
{
    char *ref = fe_offer_ref(key, "SUPPLIER_A", 50);
    char *body = fe_prebook_body(ref, "Failticket", NULL), *idem = fe_new_key("failed");
    e2e_resp *r;
    char id[160];
    (void)state;
    r = fe_post_idem(key, "/v1/flight/prebook", body, idem);
    fe_expect(r, 201, "prebook");
    snprintf(id, sizeof(id), "%s", fe_s(fe_data(r), "id"));
    e2e_free(r);
    r = fe_book(key, id, "{\"payment_instrument_id\":\"pi_test_visa\"}");
    e2e_assert_error(r, 422, "book_failed");
    e2e_free(r);
    /* The key still names the FAILED booking: a new key is needed. */
    r = fe_post_idem(key, "/v1/flight/prebook", body, idem);
    fe_expect(r, 200, "prebook again with the key");
    assert_string_equal(fe_s(fe_data(r), "id"), id);
    assert_string_equal(fe_s(fe_data(r), "status"), "FAILED");
    e2e_free(r);
    free(idem);
    idem = fe_new_key("failed-new");
    r = fe_post_idem(key, "/v1/flight/prebook", body, idem);
    fe_expect(r, 201, "prebook with a new key");
    assert_string_not_equal(fe_s(fe_data(r), "id"), id);
    e2e_free(r);
    free(ref);
    free(body);
    free(idem);
}

/* Orders the sandbox's Duffel holds for the booking (book sends its id
 * in the order's metadata). */
static long sandbox_orders(const char *booking_id)
{
    const char *p[1] = {booking_id};
    return e2e_sql_long("SELECT count(*) FROM sandbox.flight_orders WHERE supplier = 'A' "
                        "AND doc->'metadata'->>'booking_id' = $1", 1, p);
}

/* Unknown: the supplier makes the order and its answer never comes. The
 * book answers 500 result_unknown and book is never sent again (a repeat
 * answers the same while the outcome is unknown, or the booking once it is
 * known); the background job finds the order the supplier made (Duffel's
 * order list, by the booking id in its metadata) and the booking reports
 * it: CONFIRMED with that order, captured once, one order at the supplier. */
static void result_unknown_is_not_retried(void **state)
{
    json_t *b = fe_ready(key, "SUPPLIER_A", "Unknown", NULL), *done;
    const char *id = fe_s(b, "id");
    const char *p[1] = {id};
    char *order_id;
    e2e_resp *r, *again;
    (void)state;
    e2e_expect_log("TRV355: ");
    r = fe_book(key, id, "{\"payment_instrument_id\":\"pi_test_visa\"}");
    e2e_assert_error(r, 500, "result_unknown");
    e2e_free(r);
    /* A repeat does not send book again. */
    r = fe_book(key, id, "{\"payment_instrument_id\":\"pi_test_visa\"}");
    if (r->status == 500) {
        e2e_assert_error(r, 500, "result_unknown");
    }
    else {
        fe_expect(r, 200, "book again once the order was found");
        assert_string_equal(fe_s(fe_data(r), "status"), "CONFIRMED");
    }
    e2e_free(r);
    /* The booking reports the order that exists. */
    done = fe_wait_status(key, id, "CONFIRMED", 30000);
    assert_int_equal(sandbox_orders(id), 1);
    order_id = e2e_sql_text("SELECT id FROM sandbox.flight_orders WHERE supplier = 'A' "
                            "AND doc->'metadata'->>'booking_id' = $1", 1, p);
    assert_string_equal(fe_s(done, "supplier_reference"), order_id);
    assert_non_null(fe_s(done, "airline_pnr"));
    assert_string_equal(fe_s(first_payment(done), "status"), "CAPTURED");
    assert_true(sandbox_captured(id) > 0);
    assert_int_equal(sandbox_captured(id),
                     e2e_sql_long("SELECT coalesce(sum(a.amount), 0) FROM "
                                  "sandbox.pay_authorizations a JOIN flight_payments fp ON "
                                  "fp.provider_ref = a.id WHERE fp.booking_id = $1", 1, p));
    assert_int_equal(sandbox_authorizations(id), 1);
    assert_int_equal(fe_events(id, "flight.booking.confirmed"), 1);
    /* Book again: the booking unchanged, still one order. */
    again = fe_book(key, id, "{\"payment_instrument_id\":\"pi_test_visa\"}");
    fe_expect(again, 200, "book after the order was found");
    assert_string_equal(fe_s(fe_data(again), "supplier_reference"), order_id);
    assert_int_equal(sandbox_orders(id), 1);
    e2e_free(again);
    free(order_id);
    json_decref(done);
    json_decref(b);
}

static void declined_card_changes_nothing(void **state)
{
    json_t *b = fe_ready(key, "SUPPLIER_A", "Lovelace", NULL);
    const char *id = fe_s(b, "id");
    e2e_resp *r, *g;
    (void)state;
    r = fe_book(key, id, "{\"payment_instrument_id\":\"pi_test_decline\"}");
    e2e_assert_error(r, 422, "payment_declined");
    e2e_free(r);
    g = fe_get(key, id, NULL);
    assert_string_equal(fe_s(fe_data(g), "status"), "READY_FOR_COMPLETE");
    assert_int_equal(json_array_size(json_object_get(fe_data(g), "payments")), 0);
    e2e_free(g);
    /* Another card then works. */
    r = fe_book(key, id, "{\"payment_instrument_id\":\"pi_test_amex_applepay\"}");
    fe_expect(r, 200, "book with another card");
    assert_string_equal(fe_s(json_object_get(json_object_get(first_payment(fe_data(r)),
                        "payment_method"), "card"), "wallet"), "apple_pay");
    e2e_free(r);
    json_decref(b);
}

static void card_read_later(void **state)
{
    json_t *b = fe_ready(key, "SUPPLIER_A", "Lovelace", NULL), *card;
    const char *id = fe_s(b, "id");
    long start = e2e_now_ms();
    e2e_resp *r;
    (void)state;
    r = fe_book(key, id, "{\"payment_instrument_id\":\"pi_test_slowcard\"}");
    fe_expect(r, 200, "book with a slow card");
    assert_true(json_is_null(json_object_get(first_payment(fe_data(r)), "payment_method")));
    e2e_free(r);
    /* Reading again shows the card once the provider can read it. */
    for (;;) {
        r = fe_get(key, id, NULL);
        card = json_object_get(json_object_get(first_payment(fe_data(r)), "payment_method"),
                               "card");
        if (card) {
            assert_int_equal(strlen(fe_s(card, "last4")), 4);
            e2e_free(r);
            break;
        }
        e2e_free(r);
        if (e2e_now_ms() - start > 15000) {
            fail_msg("the card of %s never became readable", id);
        }
        e2e_sleep_ms(200);
    }
    json_decref(b);
}

static void body_rules(void **state)
{
    json_t *b = fe_ready(key, "SUPPLIER_A", "Lovelace", NULL);
    e2e_resp *r;
    (void)state;
    r = fe_book(key, fe_s(b, "id"), "{}");
    e2e_assert_error(r, 422, "validation_failed");
    assert_non_null(strstr(r->body, "payment_instrument_id"));
    e2e_free(r);
    r = fe_book(key, fe_s(b, "id"), "{\"payment_instrument_id\":\"pi_no_such_card\"}");
    e2e_assert_error(r, 422, "validation_failed");
    e2e_free(r);
    r = fe_book(key, "bkg_00000000-0000-7000-8000-000000000000", "{}");
    e2e_assert_error(r, 404, "not_found");
    e2e_free(r);
    r = fe_book(key, "not-a-booking-id", "{}");
    e2e_assert_error(r, 422, "validation_failed");
    e2e_free(r);
    json_decref(b);
}

static void expired_cannot_be_booked(void **state)
{
    json_t *b = fe_ready(key, "SUPPLIER_A", "Lovelace", NULL);
    const char *p[1] = {fe_s(b, "id")};
    e2e_resp *r;
    (void)state;
    /* Its deadline passes (moved back rather than waited for). */
    e2e_sql_exec("UPDATE flight_bookings SET expires_at = now() - interval '1 second' "
                  "WHERE id = $1", 1, p);
    r = fe_get(key, p[0], NULL);
    assert_string_equal(fe_s(fe_data(r), "status"), "EXPIRED");
    assert_null(json_object_get(fe_data(r), "expires_at"));
    e2e_free(r);
    r = fe_book(key, p[0], "{\"payment_instrument_id\":\"pi_test_visa\"}");
    e2e_assert_error(r, 409, "invalid_state");
    e2e_free(r);
    assert_int_equal(sandbox_authorizations(p[0]), 0);
    json_decref(b);
}

static void expiry_job(void **state)
{
    json_t *b = fe_ready(key, "SUPPLIER_B", "Lovelace", NULL);
    const char *p[1] = {fe_s(b, "id")};
    long start = e2e_now_ms();
    (void)state;
    /* Nobody reads it: the expiry job moves it at expires_at. */
    e2e_sql_exec("UPDATE flight_bookings SET expires_at = now() + interval '1 second' "
                 "WHERE id = $1", 1, p);
    e2e_sql_exec("UPDATE jobs SET available_at = now() + interval '1 second' "
                 "WHERE kind = 'flight.booking.expire' AND payload->>'id' = $1", 1, p);
    while (e2e_now_ms() - start < 15000) {
        char *st = e2e_sql_text("SELECT status FROM flight_bookings WHERE id = $1", 1, p);
        int done = strcmp(st, "EXPIRED") == 0;
        free(st);
        if (done) {
            json_decref(b);
            return;
        }
        e2e_sleep_ms(100);
    }
    fail_msg("booking %s was not expired by its job", p[0]);
}

static void paid_through_the_sdk(void **state)
{
    json_t *b = fe_ready(key, "SUPPLIER_A", "Lovelace", ",\"use_payment_sdk\":true"), *card;
    const char *id = fe_s(b, "id");
    const char *p[1] = {id};
    const char *hdrs[] = {"Content-Type: application/json", NULL};
    char *token, *session, *cut, path[512], body[1024];
    e2e_resp *r;
    (void)state;
    /* The token was handed out once, at prebook; the test plays the
     * customer's device with it. */
    token = e2e_sql_text("SELECT sdk_token FROM flight_bookings WHERE id = $1", 1, p);
    assert_non_null(token);
    /* Not paid yet: nothing to book with. */
    r = fe_book(key, id, "{}");
    e2e_assert_error(r, 409, "invalid_state");
    e2e_free(r);
    r = fe_book(key, id, "{\"payment_instrument_id\":\"pi_test_visa\"}");
    e2e_assert_error(r, 422, "validation_failed");
    e2e_free(r);
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
    r = fe_book(key, id, "{}");
    fe_expect(r, 200, "book after the SDK checkout");
    assert_string_equal(fe_s(fe_data(r), "status"), "CONFIRMED");
    assert_string_equal(fe_s(first_payment(fe_data(r)), "status"), "CAPTURED");
    card = json_object_get(json_object_get(first_payment(fe_data(r)), "payment_method"), "card");
    assert_string_equal(fe_s(card, "last4"), "4444");
    assert_true(sandbox_captured(id) > 0);
    e2e_free(r);
    free(session);
    free(token);
    json_decref(b);
}

typedef struct racer {
    const char *id;
    long status;
} racer;

static void *book_race(void *arg)
{
    racer *x = arg;
    e2e_resp *r = fe_book(key, x->id, "{\"payment_instrument_id\":\"pi_test_visa\"}");
    x->status = r->status;
    e2e_free(r);
    return NULL;
}

/* Whether a file holds s. */
static int file_has(const char *path, const char *s)
{
    char *all = e2e_slurp(path);
    int has = strstr(all, s) != NULL;
    free(all);
    return has;
}

/* SUPPLIER_B (LiteAPI Flights) collects through its own payment SDK: the
 * prebook hands out LiteAPI's secretKey once, book waits for the traveller
 * to confirm the intent with it, and the secret is kept nowhere. The
 * passenger name Sdkpay makes the sandbox's intents wait for that
 * confirmation, as LiteAPI's do. */
static void paid_through_the_vendor_sdk(void **state)
{
    char *ref = fe_offer_ref(key, "SUPPLIER_B", 46);
    char *body = fe_prebook_body(ref, "Sdkpay", ",\"use_payment_sdk\":true");
    char *idem = fe_new_key("vendor-sdk"), *token, *pi, *cut, *id, path[512], json[1024];
    const char *hdrs[] = {"Content-Type: application/json", NULL};
    const char *p[1];
    json_t *sdk, *b;
    e2e_resp *r;
    (void)state;
    r = fe_post_idem(key, "/v1/flight/prebook", body, idem);
    fe_expect(r, 201, "prebook with LiteAPI's payment SDK");
    sdk = json_object_get(json_object_get(r->json, "meta"), "payment_sdk");
    assert_string_equal(fe_s(sdk, "provider"), "liteapi");
    token = strdup(fe_s(sdk, "token"));
    id = strdup(fe_s(fe_data(r), "id"));
    assert_non_null(strstr(token, "_secret_"));
    assert_string_equal(fe_s(fe_data(r), "status"), "READY_FOR_COMPLETE");
    e2e_free(r);
    /* Once: a repeat answers the booking without it. */
    r = fe_post_idem(key, "/v1/flight/prebook", body, idem);
    fe_expect(r, 200, "repeat");
    assert_null(json_object_get(r->json, "meta"));
    assert_null(strstr(r->body, token));
    e2e_free(r);

    /* Booked before the traveller paid: LiteAPI refuses, nothing is
     * booked, and the booking can still be booked. */
    r = fe_book(key, id, "{}");
    e2e_assert_error(r, 409, "invalid_state");
    assert_non_null(strstr(r->body, "not been confirmed with the payment SDK"));
    e2e_free(r);
    b = fe_wait_status(key, id, "READY_FOR_COMPLETE", 2000);
    assert_null(json_object_get(b, "supplier_reference"));
    json_decref(b);

    /* The traveller's device confirms LiteAPI's intent with the secret. */
    pi = strdup(token);
    cut = strstr(pi, "_secret_");
    *cut = '\0';
    snprintf(path, sizeof(path), "/suppliers/b/payment/v1/payment_intents/%s/confirm", pi);
    snprintf(json, sizeof(json), "{\"client_secret\":\"%s\"}", token);
    r = e2e_call(e2e_sandbox_url(), "POST", path, hdrs, json);
    fe_expect(r, 200, "the device confirms the intent");
    e2e_free(r);
    r = fe_book(key, id, "{}");
    fe_expect(r, 200, "book after the SDK checkout");
    assert_string_equal(fe_s(fe_data(r), "status"), "CONFIRMED");
    assert_string_equal(fe_s(first_payment(fe_data(r)), "collected_by"), "SUPPLIER");
    e2e_free(r);

    /* The secret is in no table of the service (the sandbox, playing
     * LiteAPI, keeps its own) and in no log line. */
    p[0] = token;
    assert_int_equal(e2e_sql_long(
        "SELECT count(*) FROM information_schema.tables t WHERE t.table_type = 'BASE TABLE' "
        "AND t.table_schema NOT IN ('sandbox', 'pg_catalog', 'information_schema') "
        "AND strpos(query_to_xml(format('SELECT * FROM %I.%I', t.table_schema, t.table_name), "
        "true, false, '')::text, $1) > 0", 1, p), 0);
    snprintf(path, sizeof(path), "%s/httpd-a/error.log", e2e_env("TRAVEL_TEST_DIR"));
    assert_false(file_has(path, token));
    snprintf(path, sizeof(path), "%s/httpd-b/error.log", e2e_env("TRAVEL_TEST_DIR"));
    assert_false(file_has(path, token));
    free(pi);
    free(id);
    free(token);
    free(idem);
    free(body);
    free(ref);
}

static void concurrent_books_charge_once(void **state)
{
    enum { N = 8 };
    json_t *b = fe_ready(key, "SUPPLIER_A", "Lovelace", NULL), *done;
    const char *id = fe_s(b, "id");
    const char *p[1] = {id};
    pthread_t t[N];
    racer x[N];
    int i, ok = 0;
    (void)state;
    for (i = 0; i < N; i++) {
        x[i].id = id;
        x[i].status = 0;
        pthread_create(&t[i], NULL, book_race, &x[i]);
    }
    for (i = 0; i < N; i++) {
        pthread_join(t[i], NULL);
    }
    for (i = 0; i < N; i++) {
        if (x[i].status != 200 && x[i].status != 202) {
            fail_msg("racer %d answered %ld", i, x[i].status);
        }
        ok += x[i].status == 200;
    }
    assert_true(ok >= 1);
    done = fe_wait_status(key, id, "CONFIRMED", 20000);
    assert_int_equal(json_array_size(json_object_get(done, "payments")), 1);
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM flight_payments WHERE booking_id = $1",
                                  1, p), 1);
    assert_int_equal(sandbox_authorizations(id), 1);
    assert_int_equal(fe_events(id, "flight.booking.confirmed"), 1);
    json_decref(done);
    json_decref(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(confirmed_in_the_request, setup),
        cmocka_unit_test(supplier_b_collects_payment),
        cmocka_unit_test(ticketing_in_the_background),
        cmocka_unit_test(ticketing_fails),
        cmocka_unit_test(failed_booking_keeps_its_prebook_key),
        cmocka_unit_test(result_unknown_is_not_retried),
        cmocka_unit_test(declined_card_changes_nothing),
        cmocka_unit_test(card_read_later),
        cmocka_unit_test(body_rules),
        cmocka_unit_test(expired_cannot_be_booked),
        cmocka_unit_test(expiry_job),
        cmocka_unit_test(paid_through_the_sdk),
        cmocka_unit_test(paid_through_the_vendor_sdk),
        cmocka_unit_test(concurrent_books_charge_once),
    };
    return E2E_RUN("flight book", tests);
}
