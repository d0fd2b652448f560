/* Hotel book over real HTTP against the sandbox suppliers and payment
 * provider: a saved instrument pays a SUPPLIER_A or SUPPLIER_B booking
 * (200 CONFIRMED, the payment captured by the service, the card shown,
 * hotel.booking.confirmed in the outbox); SUPPLIER_C charges the card
 * itself, forwarded by the payment provider from the saved instrument (the
 * payment collected by the supplier; a card number sent to the API is
 * refused; no card number is in any log or table); a repeat answers the
 * stored result; Async answers 202 and confirms in the background;
 * sandbox-unknown answers 500 result_unknown and the booking is read at
 * the supplier (one booking there, charged once); Failbook is FAILED with
 * its authorization voided; a declined card leaves the booking
 * READY_FOR_COMPLETE; a capture the provider fails after the supplier
 * confirmed is captured later by the job, once; another organization
 * gets a 404. */
#include "hotel_e2e.h"

static char *key;

static int setup(void **state)
{
    (void)state;
    key = e2e_new_org_key("hotel-book", NULL);
    return 0;
}

static e2e_resp *book(const char *id, const char *body)
{
    char path[256];
    snprintf(path, sizeof(path), "/v1/hotel/bookings/%s/book", id);
    return e2e_post(key, path, body);
}

static e2e_resp *get(const char *k, const char *id)
{
    char path[256];
    snprintf(path, sizeof(path), "/v1/hotel/bookings/%s", id);
    return e2e_get(k, path);
}

static json_t *wait_status(const char *id, const char *status, long timeout_ms)
{
    long until = e2e_now_ms() + timeout_ms;
    for (;;) {
        e2e_resp *r = get(key, id);
        fe_expect(r, 200, "reading a hotel booking");
        if (strcmp(fe_s(fe_data(r), "status"), status) == 0) {
            json_t *b = json_incref(fe_data(r));
            e2e_free(r);
            return b;
        }
        if (e2e_now_ms() > until) {
            fail_msg("booking %s did not become %s: %s", id, status, r->body);
        }
        e2e_free(r);
        e2e_sleep_ms(200);
    }
}

/* Waits until the booking's first payment has this status; the booking. */
static json_t *wait_payment(const char *id, const char *status, long timeout_ms)
{
    long until = e2e_now_ms() + timeout_ms;
    for (;;) {
        e2e_resp *r = get(key, id);
        const json_t *pay;
        fe_expect(r, 200, "reading a hotel booking");
        pay = json_array_get(json_object_get(fe_data(r), "payments"), 0);
        if (pay && strcmp(fe_s(pay, "status"), status) == 0) {
            json_t *b = json_incref(fe_data(r));
            e2e_free(r);
            return b;
        }
        if (e2e_now_ms() > until) {
            fail_msg("booking %s: its payment did not become %s: %s", id, status, r->body);
        }
        e2e_free(r);
        e2e_sleep_ms(200);
    }
}

/* What the sandbox's payment provider captured for the booking's payments. */
static long captured_minor(const char *id)
{
    const char *p[1] = {id};
    return e2e_sql_long("SELECT coalesce(sum(a.amount_captured), 0) FROM "
                        "sandbox.pay_authorizations a JOIN hotel_payments hp ON "
                        "hp.provider_ref = a.id WHERE hp.booking_id = $1", 1, p);
}

/* Bookings the sandbox supplier holds under the booking's reference. */
static long supplier_bookings(const char *id)
{
    const char *p[1] = {id};
    /* Rapid (SUPPLIER_C) keeps 28 characters of reference: the booking's
     * id, cut (its whole reference is in the itinerary's metadata). */
    return e2e_sql_long("SELECT count(*) FROM sandbox.hotel_bookings "
                        "WHERE client_reference LIKE $1 || '/%' "
                        "OR (supplier = 'C' AND client_reference = left($1, 28))", 1, p);
}

static void assert_confirmed_once(const json_t *b, const char *collected_by)
{
    const char *id = fe_s(b, "id");
    const json_t *pays = json_object_get(b, "payments"), *pay = json_array_get(pays, 0);
    assert_string_equal(fe_s(b, "status"), "CONFIRMED");
    assert_non_null(fe_s(b, "confirmed_at"));
    assert_non_null(fe_s(b, "supplier_reference"));
    assert_non_null(fe_s(b, "hotel_confirmation_code"));
    assert_int_equal(json_array_size(pays), 1);
    assert_string_equal(fe_s(pay, "status"), "CAPTURED");
    assert_string_equal(fe_s(pay, "collected_by"), collected_by);
    assert_int_equal(he_minor(json_object_get(pay, "amount")),
                     he_minor(json_object_get(b, "total")));
    assert_string_equal(fe_s(json_object_get(json_object_get(pay, "payment_method"), "card"),
                             "last4"), "4242");
    if (strcmp(collected_by, "SERVICE") == 0) {
        assert_int_equal(captured_minor(id), he_minor(json_object_get(b, "total")));
    }
    assert_int_equal(supplier_bookings(id), 1);
    assert_int_equal(fe_events(id, "hotel.booking.confirmed"), 1);
}

static void service_collects(const char *supplier)
{
    json_t *ready = he_ready(key, supplier, "trip-1", "Lovelace");
    const char *id = fe_s(ready, "id");
    e2e_resp *r = book(id, "{\"payment_instrument_id\":\"pi_test_visa\"}"), *again, *read;
    fe_expect(r, 200, "book");
    assert_confirmed_once(fe_data(r), "SERVICE");
    assert_string_equal(fe_s(json_object_get(json_object_get(json_array_get(
        json_object_get(fe_data(r), "payments"), 0), "payment_method"), "card"), "brand"),
                        "visa");
    /* A repeat: the stored result, nothing bought or charged again. */
    again = book(id, "{\"payment_instrument_id\":\"pi_test_visa\"}");
    fe_expect(again, 200, "a repeated book");
    assert_true(json_equal(fe_data(again), fe_data(r)));
    /* GET reads what book answered. */
    read = get(key, id);
    fe_expect(read, 200, "GET");
    assert_true(json_equal(fe_data(read), fe_data(r)));
    assert_confirmed_once(fe_data(read), "SERVICE");
    e2e_free(read);
    e2e_free(again);
    e2e_free(r);
    json_decref(ready);
}

static void a_books(void **state)
{
    (void)state;
    service_collects("SUPPLIER_A");
}

static void b_books(void **state)
{
    (void)state;
    service_collects("SUPPLIER_B");
}

/* A 422 validation_failed whose details name field. */
static void assert_invalid_field(e2e_resp *r, const char *field)
{
    const json_t *d;
    size_t i;
    int seen = 0;
    e2e_assert_error(r, 422, "validation_failed");
    json_array_foreach(json_object_get(json_object_get(r->json, "error"), "details"), i, d) {
        seen |= strcmp(fe_s(d, "field"), field) == 0 && fe_s(d, "reason") != NULL;
    }
    if (!seen) {
        fail_msg("no detail for %s in %s", field, r->body);
    }
}

/* SUPPLIER_C is the merchant of record: it is booked with a saved
 * instrument like the others, and the payment provider forwards that
 * instrument's card to it (vault and forward); a card number sent to the
 * API is refused and changes nothing. */
static void c_charges_the_card_itself(void **state)
{
    json_t *ready = he_ready(key, "SUPPLIER_C", "trip-c", "Lovelace");
    const char *id = fe_s(ready, "id");
    e2e_resp *r, *read;
    (void)state;
    r = book(id, "{\"card\":{\"number\":\"4242424242424242\"}}");
    assert_invalid_field(r, "card");
    assert_null(strstr(r->body, "4242424242424242"));
    e2e_free(r);
    r = book(id, "{\"payment_instrument_id\":\"pi_test_visa\",\"card\":{\"number\":"
                 "\"4242424242424242\"}}");
    assert_invalid_field(r, "card");
    e2e_free(r);
    read = get(key, id);
    fe_expect(read, 200, "GET");
    assert_string_equal(fe_s(fe_data(read), "status"), "READY_FOR_COMPLETE");
    assert_int_equal(supplier_bookings(id), 0);
    e2e_free(read);
    r = book(id, "{\"payment_instrument_id\":\"pi_test_visa\"}");
    fe_expect(r, 200, "book at SUPPLIER_C");
    assert_confirmed_once(fe_data(r), "SUPPLIER");
    assert_int_equal(captured_minor(id), 0);
    e2e_free(r);
    json_decref(ready);
}

/* The merchant of record declines the card the provider forwarded: the
 * booking is READY_FOR_COMPLETE again and books with another instrument,
 * whose own card (from the vault, never from us) the supplier charges. An
 * instrument the provider does not hold names the field. */
static void c_declined_card_leaves_it_ready(void **state)
{
    json_t *ready = he_ready(key, "SUPPLIER_C", "trip-c-decline", "Lovelace");
    const char *id = fe_s(ready, "id");
    const json_t *pay;
    e2e_resp *r, *read;
    (void)state;
    r = book(id, "{\"payment_instrument_id\":\"pi_test_decline\"}");
    e2e_assert_error(r, 422, "payment_declined");
    e2e_free(r);
    r = book(id, "{\"payment_instrument_id\":\"pi_no_such_instrument\"}");
    assert_invalid_field(r, "payment_instrument_id");
    e2e_free(r);
    read = get(key, id);
    fe_expect(read, 200, "GET");
    assert_string_equal(fe_s(fe_data(read), "status"), "READY_FOR_COMPLETE");
    assert_int_equal(json_array_size(json_object_get(fe_data(read), "payments")), 0);
    assert_int_equal(supplier_bookings(id), 0);
    e2e_free(read);
    r = book(id, "{\"payment_instrument_id\":\"pi_test_mastercard\"}");
    fe_expect(r, 200, "book after a decline");
    pay = json_array_get(json_object_get(fe_data(r), "payments"), 0);
    assert_string_equal(fe_s(fe_data(r), "status"), "CONFIRMED");
    assert_string_equal(fe_s(pay, "collected_by"), "SUPPLIER");
    assert_string_equal(fe_s(json_object_get(json_object_get(pay, "payment_method"), "card"),
                             "last4"), "4444");
    assert_int_equal(supplier_bookings(id), 1);
    e2e_free(r);
    json_decref(ready);
}

/* Run last: after every booking above, no test card number is in the
 * error log of any instance (the API's two and the sandbox's) nor in any
 * table of the database, product or sandbox. */
static void no_card_number_is_kept_anywhere(void **state)
{
    static const char *const numbers[] = {"4242424242424242", "5555555555554444",
                                          "4000000000000002", NULL};
    static const char *const instances[] = {"a", "b", "sandbox", NULL};
    int i, k;
    (void)state;
    for (i = 0; numbers[i]; i++) {
        const char *p[1] = {numbers[i]};
        for (k = 0; instances[k]; k++) {
            char path[512], *log;
            snprintf(path, sizeof(path), "%s/httpd-%s/error.log", e2e_env("TRAVEL_TEST_DIR"),
                     instances[k]);
            log = e2e_slurp(path);
            assert_non_null(log);
            if (strstr(log, numbers[i])) {
                fail_msg("card number %s in the error log of %s", numbers[i], instances[k]);
            }
            free(log);
        }
        assert_int_equal(e2e_sql_long(
            "SELECT count(*) FROM information_schema.tables t "
            "WHERE t.table_schema NOT IN ('pg_catalog', 'information_schema') "
            "AND t.table_type = 'BASE TABLE' AND strpos(query_to_xml(format("
            "'SELECT * FROM %I.%I', t.table_schema, t.table_name), true, false, '')::text, "
            "$1) > 0", 1, p), 0);
    }
}

static void async_confirms_in_the_background(void **state)
{
    json_t *ready = he_ready(key, "SUPPLIER_A", "trip-async", "Async"), *done;
    const char *id = fe_s(ready, "id");
    e2e_resp *r, *again;
    (void)state;
    r = book(id, "{\"payment_instrument_id\":\"pi_test_visa\"}");
    fe_expect(r, 202, "book (Async)");
    assert_string_equal(fe_s(fe_data(r), "status"), "COMPLETE_IN_PROGRESS");
    again = book(id, "{\"payment_instrument_id\":\"pi_test_visa\"}");
    assert_true(again->status == 202 || again->status == 200);
    done = wait_status(id, "CONFIRMED", 60000);
    assert_confirmed_once(done, "SERVICE");
    json_decref(done);
    e2e_free(again);
    e2e_free(r);
    json_decref(ready);
}

static void unknown_is_read_never_bought_again(void **state)
{
    json_t *ready = he_ready(key, "SUPPLIER_B", "sandbox-unknown", "Lovelace"), *done;
    const char *id = fe_s(ready, "id");
    e2e_resp *r, *again;
    (void)state;
    r = book(id, "{\"payment_instrument_id\":\"pi_test_visa\"}");
    e2e_assert_error(r, 500, "result_unknown");
    /* Booking again does not buy again. */
    again = book(id, "{\"payment_instrument_id\":\"pi_test_visa\"}");
    assert_true(again->status == 500 || again->status == 200);
    done = wait_status(id, "CONFIRMED", 60000);
    assert_confirmed_once(done, "SERVICE");
    json_decref(done);
    e2e_free(again);
    e2e_free(r);
    json_decref(ready);
}

static void failbook_fails_and_voids(void **state)
{
    json_t *ready = he_ready(key, "SUPPLIER_B", "trip-fail", "Failbook");
    const char *id = fe_s(ready, "id");
    const char *p[1] = {id};
    e2e_resp *r, *read;
    const json_t *b;
    (void)state;
    r = book(id, "{\"payment_instrument_id\":\"pi_test_visa\"}");
    e2e_assert_error(r, 422, "book_failed");
    read = get(key, id);
    fe_expect(read, 200, "GET");
    b = fe_data(read);
    assert_string_equal(fe_s(b, "status"), "FAILED");
    assert_string_equal(fe_s(json_object_get(b, "failure"), "code"), "book_failed");
    assert_string_equal(fe_s(json_array_get(json_object_get(b, "payments"), 0), "status"),
                        "VOIDED");
    assert_int_equal(captured_minor(id), 0);
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM sandbox.pay_authorizations a JOIN "
                                  "hotel_payments hp ON hp.provider_ref = a.id WHERE "
                                  "hp.booking_id = $1 AND a.status = 'requires_capture'", 1, p),
                     0);
    assert_int_equal(supplier_bookings(id), 0);
    e2e_free(read);
    e2e_free(r);
    json_decref(ready);
}

/* The supplier confirmed but the provider failed the capture: the booking
 * is CONFIRMED with its payment still AUTHORIZED, and the background job
 * captures it later, once (the capture's idempotency key is per booking). */
static void capture_failure_is_captured_later(void **state)
{
    json_t *ready = he_ready(key, "SUPPLIER_A", "trip-capture", "Lovelace"), *done;
    const char *id = fe_s(ready, "id");
    const char *p[1] = {id};
    char path[256], *rid = fe_rid("hb", "capture");
    const json_t *d;
    e2e_resp *r;
    (void)state;
    snprintf(path, sizeof(path), "/v1/hotel/bookings/%s/book", id);
    fe_fault("payments", rid, "\"method\":\"POST\",\"path\":\"/v1/authorizations/*/capture\","
                              "\"action\":\"error\",\"status\":500");
    r = he_post(key, rid, path, "{\"payment_instrument_id\":\"pi_test_visa\"}");
    fe_expect(r, 200, "book while capture fails");
    d = fe_data(r);
    assert_string_equal(fe_s(d, "status"), "CONFIRMED");
    assert_string_equal(fe_s(json_array_get(json_object_get(d, "payments"), 0), "status"),
                        "AUTHORIZED");
    assert_int_equal(fe_fault_hits(rid), 1);
    e2e_free(r);
    done = wait_payment(id, "CAPTURED", 60000);
    assert_confirmed_once(done, "SERVICE");
    /* One authorization for the booking, captured once for the total. */
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM sandbox.pay_authorizations a JOIN "
                                  "hotel_payments hp ON hp.provider_ref = a.id WHERE "
                                  "hp.booking_id = $1 AND a.status = 'captured'", 1, p),
                     1);
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM hotel_payments WHERE booking_id = $1",
                                  1, p),
                     1);
    free(rid);
    json_decref(done);
    json_decref(ready);
}

static void declined_card_leaves_it_ready(void **state)
{
    json_t *ready = he_ready(key, "SUPPLIER_A", "trip-decline", "Lovelace");
    const char *id = fe_s(ready, "id");
    char *other = e2e_new_org_key("hotel-book-other", NULL);
    e2e_resp *r, *read;
    (void)state;
    r = book(id, "{\"payment_instrument_id\":\"pi_test_decline\"}");
    e2e_assert_error(r, 422, "payment_declined");
    e2e_free(r);
    read = get(key, id);
    fe_expect(read, 200, "GET");
    assert_string_equal(fe_s(fe_data(read), "status"), "READY_FOR_COMPLETE");
    assert_int_equal(json_array_size(json_object_get(fe_data(read), "payments")), 0);
    assert_int_equal(supplier_bookings(id), 0);
    e2e_free(read);
    /* Bad bodies and another organization. */
    r = book(id, "{}");
    e2e_assert_error(r, 422, "validation_failed");
    e2e_free(r);
    r = book(id, "{\"payment_instrument_id\":\"pi_test_visa\",\"extra\":1}");
    e2e_assert_error(r, 422, "validation_failed");
    e2e_free(r);
    r = get(other, id);
    e2e_assert_error(r, 404, "not_found");
    e2e_free(r);
    {
        char path[256];
        snprintf(path, sizeof(path), "/v1/hotel/bookings/%s/book", id);
        r = e2e_post(other, path, "{\"payment_instrument_id\":\"pi_test_visa\"}");
        e2e_assert_error(r, 404, "not_found");
        e2e_free(r);
    }
    /* It books now with a good card. */
    r = book(id, "{\"payment_instrument_id\":\"pi_test_visa\"}");
    fe_expect(r, 200, "book after a decline");
    assert_confirmed_once(fe_data(r), "SERVICE");
    e2e_free(r);
    free(other);
    json_decref(ready);
}

/* use_payment_sdk: prebook hands out the session's token once; book {}
 * before the customer's device paid is 409, after it 200 with the card
 * the device used. */
static void paid_through_the_sdk(void **state)
{
    json_t *offer = he_offer(key, "SUPPLIER_B", 3);
    char *body = he_prebook_body(fe_s(offer, "offer_reference"), "trip-sdk", "Lovelace"), *sdk;
    const char *hdrs[] = {"Content-Type: application/json", NULL};
    char *session, *cut, path[512], pay[1024], idem[64];
    const char *token, *id;
    e2e_resp *r, *b;
    (void)state;
    /* The body with "use_payment_sdk": true (body ends with '}'). */
    sdk = malloc(strlen(body) + 32);
    memcpy(sdk, body, strlen(body) - 1);
    strcpy(sdk + strlen(body) - 1, ",\"use_payment_sdk\":true}");
    snprintf(idem, sizeof(idem), "sdk-%ld", e2e_now_ms());
    r = he_prebook(key, idem, sdk);
    fe_expect(r, 201, "a prebook paid through the SDK");
    token = fe_s(json_object_get(json_object_get(r->json, "meta"), "payment_sdk"), "token");
    id = fe_s(fe_data(r), "id");
    assert_non_null(token);
    /* Shown once: a repeat of the prebook does not show it again. */
    b = he_prebook(key, idem, sdk);
    fe_expect(b, 200, "the prebook repeated");
    assert_null(json_object_get(b->json, "meta"));
    e2e_free(b);
    b = book(id, "{}");
    e2e_assert_error(b, 409, "invalid_state");
    e2e_free(b);
    b = book(id, "{\"payment_instrument_id\":\"pi_test_visa\"}");
    e2e_assert_error(b, 422, "validation_failed");
    e2e_free(b);
    session = strdup(token);
    cut = strstr(session, "_secret_");
    assert_non_null(cut);
    *cut = '\0';
    snprintf(path, sizeof(path), "/payments/v1/sdk_sessions/%s/confirm", session);
    snprintf(pay, sizeof(pay), "{\"client_secret\":\"%s\",\"payment_method\":"
             "\"pi_test_mastercard\"}", token);
    b = e2e_call(e2e_sandbox_url(), "POST", path, hdrs, pay);
    fe_expect(b, 200, "the device pays");
    e2e_free(b);
    b = book(id, "{}");
    fe_expect(b, 200, "book after the SDK checkout");
    assert_string_equal(fe_s(fe_data(b), "status"), "CONFIRMED");
    assert_string_equal(fe_s(json_object_get(json_object_get(json_array_get(
        json_object_get(fe_data(b), "payments"), 0), "payment_method"), "card"), "last4"),
                        "4444");
    assert_int_equal(captured_minor(id), he_minor(json_object_get(fe_data(b), "total")));
    e2e_free(b);
    e2e_free(r);
    free(session);
    free(sdk);
    free(body);
    json_decref(offer);
}

/* Two prebooks of one SUPPLIER_A offer, back to back: two bookings, each
 * with a prebook of its own at the supplier, so each books once and is
 * CONFIRMED under its own supplier booking (the gateway refuses a supplier
 * booking made under another booking's client reference). */
static void one_offer_prebooked_twice_books_twice(void **state)
{
    json_t *offer = he_offer(key, "SUPPLIER_A", (int)(getpid() % 15));
    char *body1 = he_prebook_body(fe_s(offer, "offer_reference"), "twice-1", "Lovelace");
    char *body2 = he_prebook_body(fe_s(offer, "offer_reference"), "twice-2", "Lovelace");
    char idem1[64], idem2[64];
    e2e_resp *p1, *p2, *b1, *b2;
    const char *id1, *id2;
    (void)state;
    snprintf(idem1, sizeof(idem1), "twice-1-%ld-%d", e2e_now_ms(), rand());
    snprintf(idem2, sizeof(idem2), "twice-2-%ld-%d", e2e_now_ms(), rand());
    p1 = he_prebook(key, idem1, body1);
    p2 = he_prebook(key, idem2, body2);
    fe_expect(p1, 201, "the first prebook");
    fe_expect(p2, 201, "the second prebook of the same offer");
    id1 = fe_s(fe_data(p1), "id");
    id2 = fe_s(fe_data(p2), "id");
    assert_string_not_equal(id1, id2);
    b1 = book(id1, "{\"payment_instrument_id\":\"pi_test_visa\"}");
    b2 = book(id2, "{\"payment_instrument_id\":\"pi_test_visa\"}");
    fe_expect(b1, 200, "booking the first");
    fe_expect(b2, 200, "booking the second");
    assert_confirmed_once(fe_data(b1), "SERVICE");
    assert_confirmed_once(fe_data(b2), "SERVICE");
    assert_string_not_equal(fe_s(fe_data(b1), "supplier_reference"),
                            fe_s(fe_data(b2), "supplier_reference"));
    e2e_free(b1);
    e2e_free(b2);
    e2e_free(p1);
    e2e_free(p2);
    free(body1);
    free(body2);
    json_decref(offer);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_books),
        cmocka_unit_test(b_books),
        cmocka_unit_test(c_charges_the_card_itself),
        cmocka_unit_test(c_declined_card_leaves_it_ready),
        cmocka_unit_test(async_confirms_in_the_background),
        cmocka_unit_test(unknown_is_read_never_bought_again),
        cmocka_unit_test(failbook_fails_and_voids),
        cmocka_unit_test(capture_failure_is_captured_later),
        cmocka_unit_test(declined_card_leaves_it_ready),
        cmocka_unit_test(paid_through_the_sdk),
        cmocka_unit_test(one_offer_prebooked_twice_books_twice),
        cmocka_unit_test(no_card_number_is_kept_anywhere),
    };
    if (setup(NULL) != 0) {
        return 1;
    }
    return E2E_RUN("hotel_book", tests);
}
