/* POST /v1/flight/prebook through httpd to the sandbox suppliers: 201 for
 * a fresh x-idempotency-key, 200 with the same booking on a repeat, 409
 * idempotency_key_reused for another body, exactly one booking from
 * concurrent prebooks with one key, SUPPLIER_A's one unfinished booking per
 * offer (409 offer_already_booked), bags priced into total_amount, loyalty
 * numbers masked, meta.payment_sdk returned once, and validation. */
#include "flight_e2e.h"

#include <pthread.h>

static char *key, *org, *other_key;

static int setup(void **state)
{
    (void)state;
    key = e2e_new_org_key("prebooker", &org);
    other_key = e2e_new_org_key("prebooker", NULL);
    return 0;
}

static long bookings_with_key(const char *idem)
{
    const char *p[2] = {org, idem};
    return e2e_sql_long("SELECT count(*) FROM flight_bookings WHERE org_id = $1 "
                        "AND idempotency_key = $2", 2, p);
}

static void fresh_then_repeat_then_reuse(void **state)
{
    char *ref = fe_offer_ref(key, "SUPPLIER_A", 41);
    char *body = fe_prebook_body(ref, "Lovelace", NULL);
    char *other = fe_prebook_body(ref, "Byron", NULL);
    char *idem = fe_new_key("repeat");
    e2e_resp *r1, *r2, *r3;
    json_t *b, *seg_pax;
    (void)state;
    r1 = fe_post_idem(key, "/v1/flight/prebook", body, idem);
    fe_expect(r1, 201, "fresh prebook");
    b = fe_data(r1);
    assert_true(strncmp(fe_s(b, "id"), "bkg_", 4) == 0);
    assert_string_equal(fe_s(b, "supplier"), "SUPPLIER_A");
    assert_string_equal(fe_s(b, "status"), "READY_FOR_COMPLETE");
    assert_non_null(fe_s(b, "expires_at"));
    assert_true(json_is_number(json_object_get(json_object_get(b, "total_amount"), "amount")));
    assert_true(strncmp(fe_s(json_array_get(json_object_get(b, "passengers"), 0), "id"),
                        "psg_", 4) == 0);
    assert_int_equal(json_array_size(json_object_get(b, "payments")), 0);
    /* Segments name the passenger by its psg_ id. */
    seg_pax = json_array_get(json_object_get(json_array_get(json_object_get(
        json_array_get(json_object_get(b, "journeys"), 0), "segments"), 0), "passengers"), 0);
    if (seg_pax) {
        assert_string_equal(fe_s(seg_pax, "passenger_id"),
                            fe_s(json_array_get(json_object_get(b, "passengers"), 0), "id"));
    }
    assert_null(json_object_get(r1->json, "meta"));
    /* The same key and body: the same booking, 200. */
    r2 = fe_post_idem(key, "/v1/flight/prebook", body, idem);
    fe_expect(r2, 200, "repeated prebook");
    assert_string_equal(fe_s(fe_data(r2), "id"), fe_s(b, "id"));
    /* Another body under the key: 409, and still one booking. */
    r3 = fe_post_idem(key, "/v1/flight/prebook", other, idem);
    e2e_assert_error(r3, 409, "idempotency_key_reused");
    assert_int_equal(bookings_with_key(idem), 1);
    /* Keys are per user: another organization's caller has its own. */
    e2e_free(r3);
    r3 = fe_post_idem(other_key, "/v1/flight/prebook", body, idem);
    e2e_assert_error(r3, 422, "validation_failed"); /* the offer is not theirs */
    e2e_free(r1);
    e2e_free(r2);
    e2e_free(r3);
    free(ref);
    free(body);
    free(other);
    free(idem);
}

static void key_header_rules(void **state)
{
    char *ref = fe_offer_ref(key, "SUPPLIER_A", 42);
    char *body = fe_prebook_body(ref, "Lovelace", NULL);
    char longkey[300];
    e2e_resp *r;
    (void)state;
    r = fe_post_idem(key, "/v1/flight/prebook", body, NULL);
    e2e_assert_error(r, 422, "validation_failed");
    assert_non_null(strstr(r->body, "x-idempotency-key"));
    e2e_free(r);
    memset(longkey, 'k', 257);
    longkey[257] = '\0';
    r = fe_post_idem(key, "/v1/flight/prebook", body, longkey);
    e2e_assert_error(r, 422, "validation_failed");
    e2e_free(r);
    /* 256 is the limit, and allowed. */
    longkey[256] = '\0';
    r = fe_post_idem(key, "/v1/flight/prebook", body, longkey);
    fe_expect(r, 201, "256-character key");
    e2e_free(r);
    free(ref);
    free(body);
}

typedef struct racer {
    const char *body, *idem;
    long status;
    char id[160];
} racer;

static void *race(void *arg)
{
    racer *x = arg;
    e2e_resp *r = fe_post_idem(key, "/v1/flight/prebook", x->body, x->idem);
    x->status = r->status;
    if (fe_data(r) && fe_s(fe_data(r), "id")) {
        snprintf(x->id, sizeof(x->id), "%s", fe_s(fe_data(r), "id"));
    }
    e2e_free(r);
    return NULL;
}

static void concurrent_prebooks_make_one_booking(void **state)
{
    enum { N = 8 };
    char *ref = fe_offer_ref(key, "SUPPLIER_B", 43);
    char *body = fe_prebook_body(ref, "Lovelace", NULL);
    char *idem = fe_new_key("race");
    pthread_t t[N];
    racer x[N];
    int i, created = 0;
    (void)state;
    for (i = 0; i < N; i++) {
        memset(&x[i], 0, sizeof(x[i]));
        x[i].body = body;
        x[i].idem = idem;
        pthread_create(&t[i], NULL, race, &x[i]);
    }
    for (i = 0; i < N; i++) {
        pthread_join(t[i], NULL);
    }
    for (i = 0; i < N; i++) {
        if (x[i].status != 201 && x[i].status != 200) {
            fail_msg("racer %d answered %ld", i, x[i].status);
        }
        created += x[i].status == 201;
        assert_string_equal(x[i].id, x[0].id);
    }
    assert_int_equal(created, 1);
    assert_int_equal(bookings_with_key(idem), 1);
    free(ref);
    free(body);
    free(idem);
}

static void supplier_a_sells_an_offer_once(void **state)
{
    char *ref = fe_offer_ref(key, "SUPPLIER_A", 44);
    char *body = fe_prebook_body(ref, "Lovelace", NULL);
    char *k1 = fe_new_key("once-1"), *k2 = fe_new_key("once-2");
    e2e_resp *r;
    (void)state;
    r = fe_post_idem(key, "/v1/flight/prebook", body, k1);
    fe_expect(r, 201, "first prebook of the offer");
    e2e_free(r);
    r = fe_post_idem(key, "/v1/flight/prebook", body, k2);
    e2e_assert_error(r, 409, "offer_already_booked");
    e2e_free(r);
    assert_int_equal(bookings_with_key(k2), 0);
    /* The first key still answers with its booking. */
    r = fe_post_idem(key, "/v1/flight/prebook", body, k1);
    fe_expect(r, 200, "repeat of the first key");
    e2e_free(r);
    free(ref);
    free(body);
    free(k1);
    free(k2);
}

typedef struct offer_racer {
    const char *body;
    char *idem;
    long status;
} offer_racer;

static void *race_offer(void *arg)
{
    offer_racer *x = arg;
    e2e_resp *r = fe_post_idem(key, "/v1/flight/prebook", x->body, x->idem);
    x->status = r->status;
    e2e_free(r);
    return NULL;
}

static void concurrent_keys_for_one_offer(void **state)
{
    enum { N = 6 };
    char *ref = fe_offer_ref(key, "SUPPLIER_A", 51);
    char *body = fe_prebook_body(ref, "Lovelace", NULL);
    pthread_t t[N];
    offer_racer x[N];
    int i, created = 0, refused = 0;
    (void)state;
    for (i = 0; i < N; i++) {
        x[i].body = body;
        x[i].idem = fe_new_key("offer-race");
        x[i].status = 0;
        pthread_create(&t[i], NULL, race_offer, &x[i]);
    }
    for (i = 0; i < N; i++) {
        pthread_join(t[i], NULL);
        created += x[i].status == 201;
        refused += x[i].status == 409;
        free(x[i].idem);
    }
    /* One unfinished booking per SUPPLIER_A offer, whatever the race. */
    assert_int_equal(created, 1);
    assert_int_equal(refused, N - 1);
    free(ref);
    free(body);
}

static void sold_offer_fails_at_book(void **state)
{
    char *ref = fe_offer_ref(key, "SUPPLIER_A", 52);
    char *body = fe_prebook_body(ref, "Lovelace", NULL);
    char *k1 = fe_new_key("sold-1"), *k2 = fe_new_key("sold-2"), id[160];
    e2e_resp *r;
    (void)state;
    r = fe_post_idem(key, "/v1/flight/prebook", body, k1);
    fe_expect(r, 201, "prebook");
    snprintf(id, sizeof(id), "%s", fe_s(fe_data(r), "id"));
    e2e_free(r);
    r = fe_book(key, id, "{\"payment_instrument_id\":\"pi_test_visa\"}");
    fe_expect(r, 200, "book");
    e2e_free(r);
    /* That booking is finished, so a new key may prebook the offer (A
     * reserves nothing before book); the airline has sold it, so book fails. */
    r = fe_post_idem(key, "/v1/flight/prebook", body, k2);
    fe_expect(r, 201, "prebook a sold offer");
    snprintf(id, sizeof(id), "%s", fe_s(fe_data(r), "id"));
    e2e_free(r);
    r = fe_book(key, id, "{\"payment_instrument_id\":\"pi_test_visa\"}");
    e2e_assert_error(r, 422, "book_failed");
    e2e_free(r);
    r = fe_post_idem(key, "/v1/flight/prebook", body, k2);
    fe_expect(r, 200, "the key names the FAILED booking");
    assert_string_equal(fe_s(fe_data(r), "status"), "FAILED");
    assert_string_equal(fe_s(json_object_get(fe_data(r), "failure"), "code"), "book_failed");
    assert_int_equal(fe_events(id, "flight.booking.failed"), 1);
    e2e_free(r);
    free(ref);
    free(body);
    free(k1);
    free(k2);
}

static void supplier_refuses_the_prebook(void **state)
{
    e2e_resp *s, *r;
    char body[4096], *idem = fe_new_key("refused"), id[160];
    (void)state;
    /* SUPPLIER_B takes a party's travelers adults first: it refuses this. */
    {
        char sbody[512];
        snprintf(sbody, sizeof(sbody), "{\"journeys\":[{\"origin\":\"LHR\",\"destination\":"
                 "\"JFK\",\"date\":\"%s\"}],\"passengers\":{\"adults\":1,\"children\":1},"
                 "\"supplier\":\"SUPPLIER_B\",\"limit\":1}", fe_date(53));
        s = e2e_post(key, "/v1/flight/offers", sbody);
    }
    fe_expect(s, 200, "search for two");
    snprintf(body, sizeof(body),
             "{\"offer_reference\":\"%s\",\"contact\":{\"first_name\":\"Ada\",\"last_name\":"
             "\"Lovelace\",\"email\":\"ada@example.com\",\"phone_number\":\"2071234567\","
             "\"phone_country_code\":\"44\"},\"passengers\":[{\"first_name\":\"Bo\","
             "\"last_name\":\"Lovelace\",\"birthday\":\"2018-05-01\",\"type\":\"CHILD\","
             "\"gender\":\"M\"},{\"first_name\":\"Ada\",\"last_name\":\"Lovelace\","
             "\"birthday\":\"1990-12-10\",\"type\":\"ADULT\",\"gender\":\"F\"}]}",
             fe_s(json_array_get(fe_data(s), 0), "offer_reference"));
    e2e_free(s);
    r = fe_post_idem(key, "/v1/flight/prebook", body, idem);
    e2e_assert_error(r, 422, "prebook_failed");
    e2e_free(r);
    /* The attempt is a FAILED booking under its key, with its event. */
    r = fe_post_idem(key, "/v1/flight/prebook", body, idem);
    fe_expect(r, 200, "repeat");
    assert_string_equal(fe_s(fe_data(r), "status"), "FAILED");
    assert_string_equal(fe_s(json_object_get(fe_data(r), "failure"), "code"), "prebook_failed");
    assert_true(strlen(fe_s(json_object_get(fe_data(r), "failure"), "description")) > 0);
    snprintf(id, sizeof(id), "%s", fe_s(fe_data(r), "id"));
    assert_int_equal(fe_events(id, "flight.booking.failed"), 1);
    /* Its passengers are stored with their ids, in the order given, as a
     * booking the supplier accepted has them. */
    {
        const json_t *pax = json_object_get(fe_data(r), "passengers");
        size_t i;
        assert_int_equal(json_array_size(pax), 2);
        assert_string_equal(fe_s(json_array_get(pax, 0), "first_name"), "Bo");
        assert_string_equal(fe_s(json_array_get(pax, 1), "first_name"), "Ada");
        for (i = 0; i < 2; i++) {
            const char *pid = fe_s(json_array_get(pax, i), "id");
            if (!pid || strncmp(pid, "psg_", 4) != 0 || strlen(pid) != 40) {
                fail_msg("passenger %zu of FAILED booking %s has no psg_ id: %s", i, id,
                         r->body);
            }
        }
        assert_string_not_equal(fe_s(json_array_get(pax, 0), "id"),
                                fe_s(json_array_get(pax, 1), "id"));
    }
    e2e_free(r);
    /* Reading the booking shows them too. */
    {
        char path[256];
        snprintf(path, sizeof(path), "/v1/flight/bookings/%s", id);
        r = e2e_get(key, path);
        fe_expect(r, 200, "reading the FAILED booking");
        assert_true(json_is_string(json_object_get(
            json_array_get(json_object_get(fe_data(r), "passengers"), 1), "id")));
        e2e_free(r);
    }
    free(idem);
}

static long long cents(const json_t *money)
{
    return (long long)(json_number_value(json_object_get(money, "amount")) * 100 + 0.5);
}

/* A prebook of ref naming a bag (bag_id) the offer does not sell: 422 on
 * services[0], and no booking made under its key. */
static void assert_bag_refused(const char *ref, const char *bag_id)
{
    char extra[256], *body, *idem = fe_new_key("nobag");
    e2e_resp *r;
    snprintf(extra, sizeof(extra), ",\"services\":[\"%s\"]", bag_id);
    body = fe_prebook_body(ref, "Lovelace", extra);
    r = fe_post_idem(key, "/v1/flight/prebook", body, idem);
    e2e_assert_error(r, 422, "validation_failed");
    assert_non_null(strstr(r->body, "services[0]"));
    assert_int_equal(bookings_with_key(idem), 0);
    e2e_free(r);
    free(body);
    free(idem);
}

/* LiteAPI (SUPPLIER_B) follows its own order: Search, Verify, Prebook,
 * then services. Bags are sold only inside its checkout, so an offer lists
 * none (the service document's "none are sold for the fare") and a bag id
 * at prebook is refused with nothing created; the prebook itself books
 * the fare alone. */
static void supplier_b_sells_no_bag_before_its_checkout(void **state)
{
    char *ref = fe_offer_ref(key, "SUPPLIER_B", 48), path[1024];
    char *idem = fe_new_key("b-fare"), *body;
    e2e_resp *r;
    (void)state;
    snprintf(path, sizeof(path), "/v1/flight/offers/%s/bags", ref);
    r = e2e_get(key, path);
    fe_expect(r, 200, "SUPPLIER_B bags");
    assert_true(json_is_array(fe_data(r)));
    assert_int_equal(json_array_size(fe_data(r)), 0);
    e2e_free(r);
    assert_bag_refused(ref, "bag_0.svc_anything");
    body = fe_prebook_body(ref, "Lovelace", NULL);
    r = fe_post_idem(key, "/v1/flight/prebook", body, idem);
    fe_expect(r, 201, "a SUPPLIER_B prebook");
    assert_int_equal(json_array_size(json_object_get(fe_data(r), "services")), 0);
    assert_int_equal(json_number_value(json_object_get(json_object_get(fe_data(r),
                                                                       "services_amount"),
                                                       "amount")) == 0, 1);
    e2e_free(r);
    free(body);
    free(idem);
    free(ref);
}

static void bags_are_priced_into_the_total(void **state)
{
    char *ref = fe_offer_ref(key, "SUPPLIER_A", 45), path[1024], extra[256];
    char *body, *idem = fe_new_key("bags");
    e2e_resp *r;
    json_t *bag, *b, *svc;
    (void)state;
    snprintf(path, sizeof(path), "/v1/flight/offers/%s/bags", ref);
    r = e2e_get(key, path);
    fe_expect(r, 200, "bags");
    if (json_array_size(fe_data(r)) == 0) {
        fail_msg("the sandbox sold no bags with %s", ref);
    }
    bag = json_incref(json_array_get(fe_data(r), 0));
    e2e_free(r);
    snprintf(extra, sizeof(extra), ",\"services\":[{\"id\":\"%s\",\"quantity\":1}]",
             fe_s(bag, "id"));
    body = fe_prebook_body(ref, "Lovelace", extra);
    r = fe_post_idem(key, "/v1/flight/prebook", body, idem);
    fe_expect(r, 201, "prebook with a bag");
    b = fe_data(r);
    svc = json_array_get(json_object_get(b, "services"), 0);
    assert_non_null(svc);
    assert_true(strncmp(fe_s(svc, "id"), "svc_", 4) == 0);
    assert_string_equal(fe_s(svc, "type"), "BAGGAGE");
    assert_string_equal(fe_s(svc, "status"), "PENDING");
    assert_int_equal(json_integer_value(json_object_get(svc, "quantity")), 1);
    assert_string_equal(fe_s(svc, "passenger_id"),
                        fe_s(json_array_get(json_object_get(b, "passengers"), 0), "id"));
    assert_true(json_array_size(json_object_get(svc, "segment_ids")) > 0);
    assert_true(cents(json_object_get(svc, "unit_amount"))
                == cents(json_object_get(bag, "unit_amount")));
    /* The whole price: fare + taxes + services. */
    assert_true(cents(json_object_get(b, "services_amount"))
                == cents(json_object_get(svc, "total_amount")));
    assert_true(cents(json_object_get(b, "total_amount"))
                == cents(json_object_get(b, "fare_amount"))
                   + cents(json_object_get(b, "fare_tax_amount"))
                   + cents(json_object_get(b, "services_amount")));
    e2e_free(r);
    /* A bag the offer does not sell: 422, nothing created. */
    assert_bag_refused(ref, "bag_not-sold-here");
    json_decref(bag);
    free(ref);
    free(body);
    free(idem);
}

static void loyalty_numbers_are_masked(void **state)
{
    char *ref = fe_offer_ref(key, "SUPPLIER_B", 46);
    char *idem = fe_new_key("loyal"), body[4096];
    const char *p[1];
    char *stored;
    e2e_resp *r, *g;
    json_t *acct;
    (void)state;
    snprintf(body, sizeof(body),
             "{\"offer_reference\":\"%s\",\"contact\":{\"first_name\":\"Ada\",\"last_name\":"
             "\"Lovelace\",\"email\":\"ada@example.com\",\"phone_number\":\"2071234567\","
             "\"phone_country_code\":\"44\"},\"passengers\":[{\"first_name\":\"Ada\","
             "\"last_name\":\"Lovelace\",\"birthday\":\"1990-12-10\",\"type\":\"ADULT\","
             "\"gender\":\"F\",\"loyalty_accounts\":[{\"airline_iata_code\":\"BA\","
             "\"membership_number\":\"123456789012\"}]}]}", ref);
    r = fe_post_idem(key, "/v1/flight/prebook", body, idem);
    fe_expect(r, 201, "prebook with loyalty");
    acct = json_array_get(json_object_get(json_array_get(json_object_get(fe_data(r),
                          "passengers"), 0), "loyalty_accounts"), 0);
    assert_string_equal(fe_s(acct, "airline_iata_code"), "BA");
    assert_string_equal(fe_s(acct, "membership_number"), "********9012");
    assert_null(strstr(r->body, "123456789012"));
    g = fe_get(key, fe_s(fe_data(r), "id"), NULL);
    assert_null(strstr(g->body, "123456789012"));
    assert_non_null(strstr(g->body, "********9012"));
    /* Stored in full: the airline needs it at book. */
    p[0] = fe_s(fe_data(r), "id");
    stored = e2e_sql_text("SELECT passengers::text FROM flight_bookings WHERE id = $1", 1, p);
    assert_non_null(strstr(stored, "123456789012"));
    free(stored);
    e2e_free(r);
    e2e_free(g);
    free(ref);
    free(idem);
}

static void member_price_for_a_loyalty_account(void **state)
{
    e2e_resp *s = fe_search(key, "SUPPLIER_A", "LHR", "JFK", 49, 1, ",\"limit\":10");
    json_t *o0, *o1;
    const char *carrier;
    char body[4096], *plain, *k1 = fe_new_key("member"), *k2 = fe_new_key("plain");
    e2e_resp *r1, *r2;
    (void)state;
    fe_expect(s, 200, "search");
    assert_true(json_array_size(fe_data(s)) >= 2);
    o0 = json_array_get(fe_data(s), 0);
    o1 = json_array_get(fe_data(s), 1);
    carrier = fe_s(json_array_get(json_object_get(json_array_get(json_object_get(o0, "journeys"),
                                                                 0), "segments"), 0),
                   "marketing_carrier_code");
    snprintf(body, sizeof(body),
             "{\"offer_reference\":\"%s\",\"contact\":{\"first_name\":\"Ada\",\"last_name\":"
             "\"Lovelace\",\"email\":\"ada@example.com\",\"phone_number\":\"2071234567\","
             "\"phone_country_code\":\"44\"},\"passengers\":[{\"first_name\":\"Ada\","
             "\"last_name\":\"Lovelace\",\"birthday\":\"1990-12-10\",\"type\":\"ADULT\","
             "\"gender\":\"F\",\"loyalty_accounts\":[{\"airline_iata_code\":\"%s\","
             "\"membership_number\":\"778899001\"}]}]}", fe_s(o0, "offer_reference"), carrier);
    r1 = fe_post_idem(key, "/v1/flight/prebook", body, k1);
    fe_expect(r1, 201, "prebook as a member");
    /* The airline's member price lowers the total. */
    assert_true(cents(json_object_get(fe_data(r1), "total_amount"))
                < cents(json_object_get(o0, "total_amount")));
    plain = fe_prebook_body(fe_s(o1, "offer_reference"), "Lovelace", NULL);
    r2 = fe_post_idem(key, "/v1/flight/prebook", plain, k2);
    fe_expect(r2, 201, "prebook without an account");
    assert_true(cents(json_object_get(fe_data(r2), "total_amount"))
                == cents(json_object_get(o1, "total_amount")));
    e2e_free(s);
    e2e_free(r1);
    e2e_free(r2);
    free(plain);
    free(k1);
    free(k2);
}

static void payment_sdk_token_once(void **state)
{
    char *ref = fe_offer_ref(key, "SUPPLIER_A", 47);
    char *body = fe_prebook_body(ref, "Lovelace", ",\"use_payment_sdk\":true");
    char *idem = fe_new_key("sdk");
    e2e_resp *r;
    json_t *sdk;
    (void)state;
    r = fe_post_idem(key, "/v1/flight/prebook", body, idem);
    fe_expect(r, 201, "prebook with the SDK");
    sdk = json_object_get(json_object_get(r->json, "meta"), "payment_sdk");
    assert_non_null(fe_s(sdk, "provider"));
    assert_true(strlen(fe_s(sdk, "token")) > 8);
    e2e_free(r);
    /* Returned once: not on the repeat. */
    r = fe_post_idem(key, "/v1/flight/prebook", body, idem);
    fe_expect(r, 200, "repeat");
    assert_null(json_object_get(r->json, "meta"));
    e2e_free(r);
    free(ref);
    free(body);
    free(idem);
    /* SUPPLIER_B collects payment through LiteAPI's own SDK: the token is
     * LiteAPI's secret for the intent, also once. */
    ref = fe_offer_ref(key, "SUPPLIER_B", 47);
    body = fe_prebook_body(ref, "Lovelace", ",\"use_payment_sdk\":true");
    idem = fe_new_key("sdk-b");
    r = fe_post_idem(key, "/v1/flight/prebook", body, idem);
    fe_expect(r, 201, "prebook with LiteAPI's SDK");
    sdk = json_object_get(json_object_get(r->json, "meta"), "payment_sdk");
    assert_string_equal(fe_s(sdk, "provider"), "liteapi");
    assert_non_null(strstr(fe_s(sdk, "token"), "_secret_"));
    e2e_free(r);
    r = fe_post_idem(key, "/v1/flight/prebook", body, idem);
    fe_expect(r, 200, "repeat");
    assert_null(json_object_get(r->json, "meta"));
    e2e_free(r);
    free(ref);
    free(body);
    free(idem);
}

static void validation(void **state)
{
    char *ref = fe_offer_ref(key, "SUPPLIER_A", 48), body[4096];
    char *idem = fe_new_key("invalid");
    e2e_resp *r;
    (void)state;
    /* Two adults on an offer priced for one. */
    snprintf(body, sizeof(body),
             "{\"offer_reference\":\"%s\",\"contact\":{\"first_name\":\"Ada\",\"last_name\":"
             "\"L\",\"email\":\"ada@example.com\",\"phone_number\":\"2071234567\","
             "\"phone_country_code\":\"44\"},\"passengers\":[{\"first_name\":\"A\","
             "\"last_name\":\"L\",\"birthday\":\"1990-12-10\",\"type\":\"ADULT\",\"gender\":\"F\"},"
             "{\"first_name\":\"B\",\"last_name\":\"L\",\"birthday\":\"1991-12-10\","
             "\"type\":\"ADULT\",\"gender\":\"M\"}]}", ref);
    r = fe_post_idem(key, "/v1/flight/prebook", body, idem);
    e2e_assert_error(r, 422, "validation_failed");
    assert_non_null(strstr(r->body, "\"passengers\""));
    e2e_free(r);
    r = fe_post_idem(key, "/v1/flight/prebook",
                     "{\"offer_reference\":\"made-up\",\"contact\":{},\"passengers\":[]}", idem);
    e2e_assert_error(r, 422, "validation_failed");
    assert_non_null(strstr(r->body, "offer_reference"));
    assert_non_null(strstr(r->body, "contact.email"));
    e2e_free(r);
    /* Nothing was stored under the key by the failed attempts. */
    assert_int_equal(bookings_with_key(idem), 0);
    free(ref);
    free(idem);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(fresh_then_repeat_then_reuse, setup),
        cmocka_unit_test(key_header_rules),
        cmocka_unit_test(concurrent_prebooks_make_one_booking),
        cmocka_unit_test(supplier_a_sells_an_offer_once),
        cmocka_unit_test(concurrent_keys_for_one_offer),
        cmocka_unit_test(sold_offer_fails_at_book),
        cmocka_unit_test(supplier_refuses_the_prebook),
        cmocka_unit_test(bags_are_priced_into_the_total),
        cmocka_unit_test(supplier_b_sells_no_bag_before_its_checkout),
        cmocka_unit_test(loyalty_numbers_are_masked),
        cmocka_unit_test(member_price_for_a_loyalty_account),
        cmocka_unit_test(payment_sdk_token_once),
        cmocka_unit_test(validation),
    };
    return E2E_RUN("flight prebook", tests);
}
