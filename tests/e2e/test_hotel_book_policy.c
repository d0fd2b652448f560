/* The cancellation policy a booking keeps is the one the supplier stated
 * when it booked, not the prebook's, through httpd to the sandbox
 * suppliers. A guest named Tightened makes each sandbox supplier book a
 * refundable rate non-refundable (docs/sandbox.md "Hotel test-mode
 * triggers"): the confirmed booking (book's answer, GET, the list and the
 * hotel.booking.confirmed event) shows that policy, the booking's and each
 * room's, and the cancellation estimate and the cancel agree with it;
 * with Async as well, the policy comes from the read that confirms the
 * booking. Without the trigger the prebook's policy is kept unchanged. */
#include "hotel_cancel_e2e.h"

static char *key;

static int setup(void **state)
{
    (void)state;
    key = e2e_new_org_key("hotel-book-policy", NULL);
    /* Stays of their own (see hotel_cancel_e2e.h): 400 days ahead on. */
    hc_days_base = 400;
    return 0;
}

static const json_t *policy(const json_t *x)
{
    return json_object_get(x, "cancellation_policy");
}

/* A prebook body (malloc'd) of the two-room offer whose rooms' leads are
 * named last0 and last1. */
static char *prebook_body(const char *offer_ref, const char *last0, const char *last1)
{
    char *b = malloc(8192);
    snprintf(b, 8192,
             "{\"offer_reference\":\"%s\",\"reference_id\":\"hp-policy\","
             "\"contact\":{\"first_name\":\"Ada\",\"last_name\":\"Lovelace\","
             "\"email\":\"ada@example.com\",\"phone\":\"+442079460000\"},"
             "\"rooms\":[{\"guests\":[{\"first_name\":\"Ada\",\"last_name\":\"%s\","
             "\"type\":\"ADULT\",\"is_lead\":true},{\"first_name\":\"Bo\","
             "\"last_name\":\"Lovelace\",\"type\":\"ADULT\",\"is_lead\":false}]},"
             "{\"guests\":[{\"first_name\":\"Cy\",\"last_name\":\"%s\",\"type\":\"ADULT\","
             "\"is_lead\":true},{\"first_name\":\"Di\",\"last_name\":\"Lovelace\","
             "\"type\":\"CHILD\",\"is_lead\":false}]}]}",
             offer_ref, last0, last1);
    return b;
}

/* Waits (bounded, 60 s) until the booking is CONFIRMED; the booking. */
static json_t *wait_confirmed(const char *id)
{
    long until = e2e_now_ms() + 60000;
    for (;;) {
        json_t *b = hc_get(key, id);
        if (strcmp(fe_s(b, "status"), "CONFIRMED") == 0) {
            return b;
        }
        if (e2e_now_ms() > until) {
            fail_msg("booking %s did not become CONFIRMED (now %s)", id, fe_s(b, "status"));
        }
        json_decref(b);
        e2e_sleep_ms(200);
    }
}

/* Prebooks a refundable offer of supplier (rooms' leads last0, last1) and
 * books it: *pre the prebook's booking, returns the booking as GET shows
 * it once CONFIRMED (new references). The book answer, when it is the
 * confirmed booking, must equal GET's policies. */
static json_t *book_refundable(const char *supplier, const char *last0, const char *last1,
                               json_t **pre)
{
    json_t *offer = hc_offer(key, supplier, 1), *got;
    char *body = prebook_body(fe_s(offer, "offer_reference"), last0, last1);
    char idem[64], path[256];
    e2e_resp *r;
    snprintf(idem, sizeof(idem), "hp-%ld-%d", e2e_now_ms(), rand());
    r = he_prebook(key, idem, body);
    fe_expect(r, 201, "a hotel prebook");
    *pre = json_incref(fe_data(r));
    e2e_free(r);
    free(body);
    json_decref(offer);
    /* The prebook states a refundable policy with a free period. */
    assert_true(json_is_true(json_object_get(policy(*pre), "refundable")));
    assert_non_null(fe_s(policy(*pre), "deadline"));
    snprintf(path, sizeof(path), "/v1/hotel/bookings/%s/book", fe_s(*pre, "id"));
    r = he_post(key, NULL, path, "{\"payment_instrument_id\":\"pi_test_visa\"}");
    if (r->status != 200 && r->status != 202) {
        fe_expect(r, 200, "booking a hotel");
    }
    got = wait_confirmed(fe_s(*pre, "id"));
    if (r->status == 200) {
        assert_string_equal(fe_s(fe_data(r), "status"), "CONFIRMED");
        assert_true(json_equal(policy(fe_data(r)), policy(got)));
    }
    e2e_free(r);
    return got;
}

/* The policy is non-refundable as of now: version 1, no deadline, no
 * restrictions, and cancelling now costs amount_cents. */
static void assert_nonrefundable(const json_t *pol, long amount_cents, const char *what)
{
    const json_t *pen;
    size_t k;
    long top = 0;
    if (!json_is_object(pol)) {
        fail_msg("%s: no cancellation_policy", what);
    }
    assert_int_equal(json_integer_value(json_object_get(pol, "version")), 1);
    if (!json_is_false(json_object_get(pol, "refundable"))) {
        fail_msg("%s: the policy is still refundable: %s", what,
                 json_dumps(pol, JSON_COMPACT));
    }
    assert_true(json_is_null(json_object_get(pol, "deadline")));
    assert_int_equal(json_array_size(json_object_get(pol, "restrictions")), 0);
    json_array_foreach(json_object_get(pol, "penalties"), k, pen) {
        assert_string_equal(fe_s(pen, "type"), "AMOUNT");
        assert_string_equal(fe_s(json_object_get(pen, "amount"), "currency"), "EUR");
        if (he_minor(json_object_get(pen, "amount")) > top) {
            top = he_minor(json_object_get(pen, "amount"));
        }
    }
    assert_int_equal(top, amount_cents);
}

/* The booking b shows the tightened policy everywhere: its own and each
 * room's; and a fee now of the whole price (the penalties are in force). */
static void assert_tightened(const json_t *pre, const json_t *b)
{
    const json_t *room;
    size_t i;
    assert_false(json_equal(policy(pre), policy(b)));
    assert_nonrefundable(policy(b), hc_cents(json_object_get(b, "total")), "the booking");
    assert_int_equal(json_array_size(json_object_get(b, "rooms")), 2);
    json_array_foreach(json_object_get(b, "rooms"), i, room) {
        assert_nonrefundable(policy(room), hc_cents(json_object_get(room, "total")), "a room");
    }
    assert_int_equal(hc_policy_fee(b), hc_cents(json_object_get(b, "total")));
}

/* The list shows the same policy as GET. */
static void assert_listed(const json_t *b)
{
    e2e_resp *r = e2e_get(key, "/v1/hotel/bookings?limit=100");
    const json_t *x;
    size_t i;
    int found = 0;
    fe_expect(r, 200, "listing hotel bookings");
    json_array_foreach(fe_data(r), i, x) {
        if (strcmp(fe_s(x, "id"), fe_s(b, "id")) == 0) {
            found = 1;
            assert_true(json_equal(policy(x), policy(b)));
        }
    }
    assert_true(found);
    e2e_free(r);
}

/* The hotel.booking.confirmed event carries the booking's policy. */
static void assert_event(const json_t *b)
{
    const char *p[1] = {fe_s(b, "id")};
    char *ev = e2e_sql_text("SELECT data->'booking'->'cancellation_policy'::text FROM events "
                            "WHERE data->'booking'->>'id' = $1 "
                            "AND type = 'hotel.booking.confirmed'", 1, p);
    json_t *pol;
    assert_non_null(ev);
    pol = json_loads(ev, 0, NULL);
    assert_non_null(pol);
    assert_true(json_equal(pol, policy(b)));
    json_decref(pol);
    free(ev);
}

/* The estimate agrees: the whole price is the fee, nothing is free. */
static void assert_estimate(const json_t *b, const char *source)
{
    e2e_resp *r = hc_estimate(key, NULL, fe_s(b, "id"));
    const json_t *d;
    fe_expect(r, 200, "an estimate");
    d = fe_data(r);
    assert_string_equal(fe_s(d, "source"), source);
    assert_true(json_is_true(json_object_get(d, "available")));
    assert_int_equal(hc_cents(json_object_get(d, "fee")), hc_cents(json_object_get(b, "total")));
    assert_int_equal(hc_cents(json_object_get(d, "refund")), 0);
    assert_true(json_is_null(json_object_get(d, "deadline")));
    e2e_free(r);
}

static void tightened(const char *supplier, const char *source)
{
    json_t *pre, *b = book_refundable(supplier, "Tightened", "Lovelace", &pre);
    assert_tightened(pre, b);
    assert_listed(b);
    assert_event(b);
    assert_estimate(b, source);
    json_decref(b);
    json_decref(pre);
}

static void a_books_at_the_tightened_policy(void **state)
{
    (void)state;
    tightened("SUPPLIER_A", "POLICY_ESTIMATE");
}

static void b_books_at_the_tightened_policy(void **state)
{
    (void)state;
    tightened("SUPPLIER_B", "POLICY_ESTIMATE");
}

static void c_books_at_the_tightened_policy(void **state)
{
    (void)state;
    tightened("SUPPLIER_C", "SUPPLIER_QUOTE");
}

/* Async: book answers pending; the read that confirms it states the
 * policy, and that is the one kept. */
static void async_takes_the_policy_of_the_confirming_read(void **state)
{
    json_t *pre, *b = book_refundable("SUPPLIER_C", "Tightened", "Async", &pre);
    (void)state;
    assert_tightened(pre, b);
    assert_event(b);
    json_decref(b);
    json_decref(pre);
}

/* The cancel charges what the booked policy says: everything. */
static void cancel_follows_the_booked_policy(void **state)
{
    json_t *pre, *b = book_refundable("SUPPLIER_B", "Tightened", "Lovelace", &pre), *done;
    const json_t *a;
    e2e_resp *r;
    (void)state;
    assert_tightened(pre, b);
    r = hc_cancel(key, NULL, fe_s(b, "id"));
    if (r->status != 200 && r->status != 202) {
        fe_expect(r, 202, "cancel");
    }
    e2e_free(r);
    done = hc_wait(key, fe_s(b, "id"), "CANCELED", "SUCCEEDED");
    a = hc_last_attempt(done);
    assert_int_equal(hc_cents(json_object_get(a, "fee")), hc_cents(json_object_get(b, "total")));
    assert_int_equal(hc_cents(json_object_get(a, "refund")), 0);
    json_decref(done);
    json_decref(b);
    json_decref(pre);
}

/* Without the trigger, every supplier's book states the prebook's policy:
 * the booking's and each room's stay as prebook stored them. */
static void without_the_trigger_the_policy_is_the_prebooks(void **state)
{
    static const char *const sups[] = {"SUPPLIER_A", "SUPPLIER_B", "SUPPLIER_C"};
    size_t s, i;
    (void)state;
    for (s = 0; s < 3; s++) {
        json_t *pre, *b = book_refundable(sups[s], "Lovelace", "Lovelace", &pre);
        if (!json_equal(policy(pre), policy(b))) {
            fail_msg("%s: the policy changed at book: %s -> %s", sups[s],
                     json_dumps(policy(pre), JSON_COMPACT), json_dumps(policy(b), JSON_COMPACT));
        }
        assert_true(json_is_true(json_object_get(policy(b), "refundable")));
        for (i = 0; i < 2; i++) {
            const json_t *rp = json_array_get(json_object_get(pre, "rooms"), i);
            const json_t *rb = json_array_get(json_object_get(b, "rooms"), i);
            if (!json_equal(policy(rp), policy(rb))) {
                fail_msg("%s: room %d's policy changed at book: %s -> %s", sups[s], (int)i,
                         json_dumps(policy(rp), JSON_COMPACT),
                         json_dumps(policy(rb), JSON_COMPACT));
            }
        }
        assert_int_equal(hc_policy_fee(b), 0);
        json_decref(b);
        json_decref(pre);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_books_at_the_tightened_policy),
        cmocka_unit_test(b_books_at_the_tightened_policy),
        cmocka_unit_test(c_books_at_the_tightened_policy),
        cmocka_unit_test(async_takes_the_policy_of_the_confirming_read),
        cmocka_unit_test(cancel_follows_the_booked_policy),
        cmocka_unit_test(without_the_trigger_the_policy_is_the_prebooks),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
