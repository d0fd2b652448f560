/* Duffel Stays, a fourth hotel supplier, through the gateway over real
 * HTTP: an instance of its own (on a database of its own, so no other
 * instance's workers take its jobs) whose hotel suppliers add DUFFEL_STAYS
 * (protocol duffel-stays, pointed where GET /sandbox/suppliers says, with
 * the token it names) and STAYS_WRONG_KEY (the same with a wrong token).
 * Search finds Duffel's accommodation priced in its currency (and none
 * priced in another); offers, prebook (a quote), book with a saved
 * instrument (paid by the service, the Duffel balance pays Duffel: one
 * booking at the sandbox, under the booking's client reference), GET, and
 * cancel (fee and refund from the rate's cancellation timeline, the
 * whole price kept for a non-refundable rate; the booking cancelled at
 * Duffel). A book whose answer is lost is read back
 * by its client reference, never bought twice; a cancel whose answer is
 * lost (the repeat refused) is read back from the booking. A wrong token is a clear
 * error, and travelctl supplier check tells the two lines apart. */
#include "hotel_e2e.h"

#include <stdarg.h>

#define STAY "\"check_in\":\"%s\",\"check_out\":\"%s\",\"occupancy\":[{\"adults\":2}]," \
             "\"guest_nationality\":\"GB\",\"guest_residence\":\"GB\",\"currency\":\"%s\""
#define LONDON "{\"city\":\"London\",\"country_code\":\"GB\"}"

static char url[128], db[1024], base[512], token[256];
static char *key;
static long pid;

/* travelctl on the instance's database: its last line (malloc'd) or NULL. */
static char *ctl(const char *fmt, ...)
{
    char args[1024], cmd[4096], line[1024], *last = NULL;
    va_list ap;
    FILE *f;
    va_start(ap, fmt);
    vsnprintf(args, sizeof(args), fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof(cmd), "%s --db '%s' %s 2>/dev/null", e2e_env("TRAVEL_TEST_TRAVELCTL"),
             db, args);
    f = popen(cmd, "r");
    assert_non_null(f);
    while (fgets(line, sizeof(line), f)) {
        line[strcspn(line, "\n")] = '\0';
        free(last);
        last = strdup(line);
    }
    assert_int_equal(pclose(f), 0);
    return last;
}

/* Where the sandbox says its Duffel Stays answers, and the token it takes. */
static void listed(void)
{
    e2e_resp *r = e2e_call(e2e_sandbox_url(), "GET", "/sandbox/suppliers", NULL, NULL);
    const json_t *s;
    size_t i;
    fe_expect(r, 200, "the sandbox's suppliers");
    json_array_foreach(r->json, i, s) {
        if (strcmp(fe_s(s, "protocol"), "duffel-stays") == 0) {
            assert_string_equal(fe_s(s, "kind"), "hotel");
            snprintf(base, sizeof(base), "%s", fe_s(s, "base_url"));
            snprintf(token, sizeof(token), "%s",
                     fe_s(json_object_get(s, "test_credentials"), "token"));
        }
    }
    e2e_free(r);
    assert_true(base[0] && token[0]);
}

static int setup(void **state)
{
    char extra[2048], *org;
    const char *edits[] = {"dbname=travel ", "dbname=travel_stays ", NULL};
    (void)state;
    listed();
    e2e_own_database("travel_stays", db, sizeof(db));
    org = ctl("org create duffel-stays-%d", (int)getpid());
    assert_non_null(org);
    key = ctl("key create --org %s --user stays", org);
    assert_non_null(key);
    free(org);
    snprintf(extra, sizeof(extra),
             "TravelHotelSupplier DUFFEL_STAYS duffel-stays %s token=%s timeout=6s\n"
             "TravelHotelSupplier STAYS_WRONG_KEY duffel-stays %s token=not-the-token "
             "timeout=6s", base, token, base);
    pid = e2e_start_instance("stays", edits, extra, url, sizeof(url));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    e2e_stop_pid(pid);
    return 0;
}

static e2e_resp *call(const char *method, const char *rid, const char *path, const char *body)
{
    char kh[512], rh[300];
    const char *hdrs[4] = {kh, "Content-Type: application/json", NULL, NULL};
    snprintf(kh, sizeof(kh), "x-api-key: %s", key);
    if (rid) {
        snprintf(rh, sizeof(rh), "x-request-id: %s", rid);
        hdrs[2] = rh;
    }
    return e2e_call(url, method, path, hdrs, body);
}

static e2e_resp *search(const char *supplier, const char *currency)
{
    char body[2048], stay[512];
    snprintf(stay, sizeof(stay), STAY, fe_date(40), fe_date(42), currency);
    snprintf(body, sizeof(body), "{\"destination\":%s,%s,\"limit\":50,\"supplier\":\"%s\"}",
             LONDON, stay, supplier);
    return call("POST", NULL, "/v1/hotel/search", body);
}

static json_t *booking(const char *id)
{
    char path[256];
    e2e_resp *r;
    json_t *b;
    snprintf(path, sizeof(path), "/v1/hotel/bookings/%s", id);
    r = call("GET", NULL, path, NULL);
    fe_expect(r, 200, "reading a hotel booking");
    b = json_incref(fe_data(r));
    e2e_free(r);
    return b;
}

/* A READY_FOR_COMPLETE booking of the cheapest refundable (or
 * non-refundable) Duffel offer of the first London hotel from the nth on
 * that has one (a new reference). */
static json_t *ready(int nth, const char *reference_id, int refundable)
{
    char body[4096], stay[512], idem[64];
    e2e_resp *r = search("DUFFEL_STAYS", "GBP");
    const json_t *h, *o;
    json_t *b, *offer = NULL;
    size_t i;
    fe_expect(r, 200, "a Duffel search");
    snprintf(stay, sizeof(stay), STAY, fe_date(40), fe_date(42), "GBP");
    for (; !offer && (h = json_array_get(fe_data(r), (size_t)nth)); nth++) {
        e2e_resp *o_r;
        snprintf(body, sizeof(body), "{\"supplier\":\"DUFFEL_STAYS\",\"supplier_hotel_ids\":"
                 "[\"%s\"],%s,\"max_offers_per_hotel\":10}", fe_s(h, "supplier_hotel_id"), stay);
        o_r = call("POST", NULL, "/v1/hotel/offers", body);
        fe_expect(o_r, 200, "Duffel offers");
        json_array_foreach(fe_data(o_r), i, o) {
            assert_string_equal(fe_s(o, "supplier"), "DUFFEL_STAYS");
            assert_string_equal(fe_s(json_object_get(o, "total"), "currency"), "GBP");
            if (!offer && json_is_true(json_object_get(json_object_get(o, "cancellation_policy"),
                                                       "refundable")) == refundable) {
                offer = json_deep_copy(o);
            }
        }
        e2e_free(o_r);
    }
    assert_non_null(offer);
    snprintf(body, sizeof(body),
             "{\"offer_reference\":\"%s\",\"reference_id\":\"%s\","
             "\"contact\":{\"first_name\":\"Ada\",\"last_name\":\"Lovelace\","
             "\"email\":\"ada@example.com\",\"phone\":\"+442079460000\"},"
             "\"rooms\":[{\"guests\":[{\"first_name\":\"Ada\",\"last_name\":\"Lovelace\","
             "\"type\":\"ADULT\",\"is_lead\":true},{\"first_name\":\"Bo\","
             "\"last_name\":\"Lovelace\",\"type\":\"ADULT\",\"is_lead\":false}]}]}",
             fe_s(offer, "offer_reference"), reference_id);
    json_decref(offer);
    e2e_free(r);
    snprintf(idem, sizeof(idem), "stays-%ld-%d", e2e_now_ms(), rand());
    {
        char kh[512], ih[128];
        const char *hdrs[4] = {kh, "Content-Type: application/json", ih, NULL};
        snprintf(kh, sizeof(kh), "x-api-key: %s", key);
        snprintf(ih, sizeof(ih), "x-idempotency-key: %s", idem);
        r = e2e_call(url, "POST", "/v1/hotel/prebook", hdrs, body);
    }
    fe_expect(r, 201, "a Duffel prebook");
    assert_string_equal(fe_s(fe_data(r), "status"), "READY_FOR_COMPLETE");
    b = json_deep_copy(fe_data(r));
    e2e_free(r);
    return b;
}

/* Bookings the sandbox's Duffel Stays holds under the booking's client
 * reference (its metadata). */
static long duffel_bookings(const char *id, const char *status)
{
    const char *p[2] = {id, status};
    return e2e_sql_long("SELECT count(*) FROM sandbox.duffel_stays_bookings WHERE "
                        "doc->'metadata'->>'client_reference' LIKE $1 || '/%' "
                        "AND status = $2", 2, p);
}

static long pence(const json_t *money)
{
    assert_string_equal(fe_s(money, "currency"), "GBP");
    return he_minor(money);
}

/* GET /v1/hotel/features: the instance's fourth and fifth lines, with
 * what the registry row says Duffel Stays does (paid by the service, the
 * payment SDK possible, no cancellation preview). */
static void features_list_it(void **state)
{
    static const char *const want[] = {"search", "offers", "prebook", "book", "cancel",
                                       "cancellation_estimate", "payment_sdk"};
    e2e_resp *r = call("GET", NULL, "/v1/hotel/features", NULL);
    const json_t *e, *f;
    size_t i, k;
    int seen = 0;
    (void)state;
    fe_expect(r, 200, "features");
    assert_int_equal(json_array_size(fe_data(r)), 5);
    json_array_foreach(fe_data(r), i, e) {
        if (strcmp(fe_s(e, "supplier"), "DUFFEL_STAYS") != 0) {
            continue;
        }
        seen = 1;
        assert_int_equal(i, 3);
        assert_int_equal(json_array_size(json_object_get(e, "features")), 7);
        json_array_foreach(json_object_get(e, "features"), k, f) {
            assert_string_equal(json_string_value(f), want[k]);
        }
    }
    assert_true(seen);
    e2e_free(r);
}

static void search_finds_its_hotels(void **state)
{
    e2e_resp *r = search("DUFFEL_STAYS", "GBP");
    const json_t *h;
    size_t i;
    (void)state;
    fe_expect(r, 200, "a Duffel search");
    assert_true(json_array_size(fe_data(r)) > 5);
    json_array_foreach(fe_data(r), i, h) {
        assert_string_equal(fe_s(h, "supplier"), "DUFFEL_STAYS");
        assert_int_equal(strncmp(fe_s(h, "supplier_hotel_id"), "acc_", 4), 0);
        assert_string_equal(fe_s(h, "country"), "GB");
        assert_true(pence(json_object_get(json_object_get(h, "cheapest_price"), "total")) > 0);
    }
    e2e_free(r);
    /* Duffel prices London in pounds and takes no currency: a stay asked
     * in euros finds nothing it can price. */
    r = search("DUFFEL_STAYS", "EUR");
    fe_expect(r, 200, "a Duffel search in euros");
    assert_int_equal(json_array_size(fe_data(r)), 0);
    e2e_free(r);
}

/* Books with a saved instrument: CONFIRMED, paid to the service, one
 * booking at Duffel; GET reads what book answered. The total in pence. */
static long book_confirmed(const char *id)
{
    const json_t *pay;
    char path[256];
    json_t *read;
    e2e_resp *r;
    long total;
    snprintf(path, sizeof(path), "/v1/hotel/bookings/%s/book", id);
    r = call("POST", NULL, path, "{\"payment_instrument_id\":\"pi_test_visa\"}");
    fe_expect(r, 200, "a Duffel book");
    assert_string_equal(fe_s(fe_data(r), "status"), "CONFIRMED");
    assert_int_equal(strncmp(fe_s(fe_data(r), "supplier_reference"), "bok_", 4), 0);
    assert_non_null(fe_s(fe_data(r), "hotel_confirmation_code"));
    total = pence(json_object_get(fe_data(r), "total"));
    pay = json_array_get(json_object_get(fe_data(r), "payments"), 0);
    assert_string_equal(fe_s(pay, "status"), "CAPTURED");
    assert_string_equal(fe_s(pay, "collected_by"), "SERVICE");
    assert_int_equal(pence(json_object_get(pay, "amount")), total);
    assert_int_equal(duffel_bookings(id, "confirmed"), 1);
    read = booking(id);
    assert_true(json_equal(read, fe_data(r)));
    json_decref(read);
    e2e_free(r);
    return total;
}

/* Cancels (under request id rid, NULL: none) and waits (bounded) for
 * CANCELED with the attempt SUCCEEDED; the attempt's fee and refund in
 * pence. Duffel holds it cancelled. */
static void cancel_done_as(const char *rid, const char *id, long *fee, long *refund)
{
    json_t *done = NULL;
    const json_t *a = NULL;
    char path[256];
    long start;
    e2e_resp *r;
    snprintf(path, sizeof(path), "/v1/hotel/bookings/%s/cancel", id);
    r = call("POST", rid, path, NULL);
    fe_expect(r, 202, "a Duffel cancel");
    e2e_free(r);
    for (start = e2e_now_ms(); e2e_now_ms() - start < 30000; e2e_sleep_ms(100)) {
        json_decref(done);
        done = booking(id);
        a = json_array_get(json_object_get(done, "cancellations"), 0);
        if (strcmp(fe_s(done, "status"), "CANCELED") == 0 && a
            && strcmp(fe_s(a, "status"), "SUCCEEDED") == 0) {
            break;
        }
    }
    assert_string_equal(fe_s(done, "status"), "CANCELED");
    assert_string_equal(fe_s(a, "status"), "SUCCEEDED");
    *fee = pence(json_object_get(a, "fee"));
    *refund = pence(json_object_get(a, "refund"));
    assert_int_equal(duffel_bookings(id, "cancelled"), 1);
    assert_int_equal(duffel_bookings(id, "confirmed"), 0);
    json_decref(done);
}

static void cancel_done(const char *id, long *fee, long *refund)
{
    cancel_done_as(NULL, id, fee, refund);
}

/* The penalty of the prebooked policy in force now, in pence. */
static long policy_fee_now(const json_t *b)
{
    const json_t *pen;
    char now[32];
    time_t t = time(NULL);
    struct tm tm;
    long fee = 0;
    size_t i;
    gmtime_r(&t, &tm);
    strftime(now, sizeof(now), "%Y-%m-%dT%H:%M:%S", &tm);
    json_array_foreach(json_object_get(json_object_get(b, "cancellation_policy"), "penalties"),
                       i, pen) {
        if (strncmp(fe_s(pen, "from"), now, 19) <= 0) {
            fee = pence(json_object_get(pen, "amount"));
        }
    }
    return fee;
}

/* The cancellation estimate's fee in pence; its refund is the rest of
 * total. Duffel previews nothing: the estimate comes from the policy the
 * adapter reads back from the booking. */
static long estimate_fee(const char *id, long total)
{
    char path[256];
    e2e_resp *r;
    long fee;
    snprintf(path, sizeof(path), "/v1/hotel/bookings/%s/cancellation-estimate", id);
    r = call("GET", NULL, path, NULL);
    fe_expect(r, 200, "a cancellation estimate");
    assert_string_equal(fe_s(fe_data(r), "source"), "POLICY_ESTIMATE");
    assert_true(json_is_true(json_object_get(fe_data(r), "available")));
    fee = pence(json_object_get(fe_data(r), "fee"));
    assert_int_equal(pence(json_object_get(fe_data(r), "refund")), total - fee);
    e2e_free(r);
    return fee;
}

static void books_reads_and_cancels(void **state)
{
    json_t *b = ready(1, "stays-trip", 1);
    const char *id = fe_s(b, "id");
    long total, fee, refund;
    (void)state;
    total = book_confirmed(id);
    assert_int_equal(estimate_fee(id, total), policy_fee_now(b));
    /* 40 days ahead, before the timeline's deadline: the fee is what the
     * policy keeps now, the rest comes back. */
    cancel_done(id, &fee, &refund);
    assert_int_equal(fee, policy_fee_now(b));
    assert_true(fee < total);
    assert_int_equal(refund, total - fee);
    json_decref(b);
}

static void a_non_refundable_stay_keeps_its_price(void **state)
{
    json_t *b = ready(0, "stays-nrf", 0);
    const char *id = fe_s(b, "id");
    long total, fee, refund;
    (void)state;
    total = book_confirmed(id);
    assert_int_equal(policy_fee_now(b), total);
    assert_int_equal(estimate_fee(id, total), total);
    cancel_done(id, &fee, &refund);
    assert_int_equal(fee, total);
    assert_int_equal(refund, 0);
    json_decref(b);
}

/* Duffel cancels, and its answer is lost. The job asks again; the repeat
 * is refused (the booking is cancelled already), and the booking read
 * gives the cancellation: CANCELED at the fee its timeline keeps, once. */
static void a_lost_cancel_answer_is_read(void **state)
{
    json_t *b = ready(1, "stays-lost-cancel", 1);
    const char *id = fe_s(b, "id");
    char *rid = fe_rid("stays", "lost-cancel");
    long total, fee, refund;
    (void)state;
    total = book_confirmed(id);
    fe_fault("supplier_a", rid, "\"method\":\"POST\",\"path\":"
             "\"/stays/bookings/*/actions/cancel\",\"action\":\"drop_after_handling\"");
    cancel_done_as(rid, id, &fee, &refund);
    assert_int_equal(fe_fault_hits(rid), 1);
    assert_int_equal(fee, policy_fee_now(b));
    assert_true(fee < total);
    assert_int_equal(refund, total - fee);
    fe_fault_clear(rid);
    free(rid);
    json_decref(b);
}

static void a_lost_answer_is_read_not_bought_again(void **state)
{
    json_t *b = ready(2, "stays-lost", 1), *done = NULL;
    const char *id = fe_s(b, "id");
    char *rid = fe_rid("stays", "lost"), path[256];
    long start;
    e2e_resp *r;
    (void)state;
    /* Duffel books, and no answer to any POST /stays/bookings arrives.
     * Duffel documents no Idempotency-Key and mod_travel sends none, so
     * nothing resends the book (an unkeyed POST goes out once, on a fresh
     * connection); a resend would be refused, the quote being booked. The
     * booking can only be learnt by reading the list. */
    fe_fault("supplier_a", rid, "\"method\":\"POST\",\"path\":\"/stays/bookings\","
             "\"action\":\"drop_after_handling\",\"times\":null");
    snprintf(path, sizeof(path), "/v1/hotel/bookings/%s/book", id);
    r = call("POST", rid, path, "{\"payment_instrument_id\":\"pi_test_visa\"}");
    e2e_assert_error(r, 500, "result_unknown");
    e2e_free(r);
    /* The job reads it at Duffel, by its client reference. */
    for (start = e2e_now_ms(); e2e_now_ms() - start < 30000; e2e_sleep_ms(100)) {
        json_decref(done);
        done = booking(id);
        if (strcmp(fe_s(done, "status"), "COMPLETE_IN_PROGRESS") != 0) {
            break;
        }
    }
    assert_string_equal(fe_s(done, "status"), "CONFIRMED");
    assert_true(fe_fault_hits(rid) >= 1);
    assert_int_equal(duffel_bookings(id, "confirmed"), 1);
    {
        const char *p[1] = {id};
        char *held = e2e_sql_text("SELECT id FROM sandbox.duffel_stays_bookings WHERE "
                                  "doc->'metadata'->>'client_reference' LIKE $1 || '/%'", 1, p);
        assert_non_null(held);
        assert_string_equal(fe_s(done, "supplier_reference"), held);
        free(held);
    }
    fe_fault_clear(rid);
    free(rid);
    json_decref(done);
    json_decref(b);
}

static void a_wrong_token_is_a_clear_error(void **state)
{
    char body[2048], stay[512], log[4096], line[4200], *text, *at;
    char *rid = fe_rid("stays", "wrongkey");
    e2e_resp *r;
    (void)state;
    snprintf(stay, sizeof(stay), STAY, fe_date(40), fe_date(42), "GBP");
    snprintf(body, sizeof(body), "{\"destination\":%s,%s,\"supplier\":\"STAYS_WRONG_KEY\"}",
             LONDON, stay);
    r = call("POST", rid, "/v1/hotel/search", body);
    /* The client: the supplier named, nothing about its key. */
    e2e_assert_error(r, 502, "supplier_error");
    assert_non_null(strstr(r->body, "STAYS_WRONG_KEY could not be used"));
    e2e_free(r);
    /* The operator: the line of this request says Duffel refused the key. */
    snprintf(log, sizeof(log), "%s/httpd-stays/error.log", e2e_env("TRAVEL_TEST_DIR"));
    text = e2e_slurp(log);
    snprintf(line, sizeof(line), "[request_id %s]", rid);
    at = strstr(text, line);
    assert_non_null(at);
    while (at > text && at[-1] != '\n') {
        at--;
    }
    *strchr(at, '\n') = '\0';
    assert_non_null(strstr(at, "TRV1414: hotel STAYS_WRONG_KEY: rejected: A valid API key is "
                               "required"));
    free(text);
    free(rid);
}

/* travelctl supplier check NAME --conf (the instance's httpd.conf). */
static int check(const char *name, char *out, size_t n)
{
    char cmd[4096];
    size_t len = 0;
    FILE *f;
    int rc;
    snprintf(cmd, sizeof(cmd), "%s supplier check %s --hotel --conf %s/httpd-stays/httpd.conf 2>&1",
             e2e_env("TRAVEL_TEST_TRAVELCTL"), name, e2e_env("TRAVEL_TEST_DIR"));
    f = popen(cmd, "r");
    assert_non_null(f);
    out[0] = '\0';
    while (len < n - 1 && fgets(out + len, (int)(n - len), f)) {
        len = strlen(out);
    }
    rc = pclose(f);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static void supplier_check_tells_the_lines_apart(void **state)
{
    char out[4096];
    (void)state;
    assert_int_equal(check("DUFFEL_STAYS", out, sizeof(out)), 0);
    assert_non_null(strstr(out, "DUFFEL_STAYS (duffel-stays, hotel): ok: "));
    assert_non_null(strstr(out, "accepted the key (HTTP 200)"));
    assert_int_equal(check("STAYS_WRONG_KEY", out, sizeof(out)), 1);
    assert_non_null(strstr(out, "the key was refused (HTTP 401)"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(features_list_it),
        cmocka_unit_test(search_finds_its_hotels),
        cmocka_unit_test(books_reads_and_cancels),
        cmocka_unit_test(a_non_refundable_stay_keeps_its_price),
        cmocka_unit_test(a_lost_answer_is_read_not_bought_again),
        cmocka_unit_test(a_lost_cancel_answer_is_read),
        cmocka_unit_test(a_wrong_token_is_a_clear_error),
        cmocka_unit_test(supplier_check_tells_the_lines_apart),
    };
    int rc;
    if (setup(NULL) != 0) {
        return 1;
    }
    rc = E2E_RUN("hotel_duffel_stays", tests);
    teardown(NULL);
    return rc;
}
