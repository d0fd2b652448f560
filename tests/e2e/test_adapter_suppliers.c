/* The flight supplier adapters' contract, called directly (as the flight
 * code calls them) against the running sandbox over real HTTP: the shapes
 * supplier.h promises, and each supplier's behaviour: A's member price,
 * single order per offer and pay-by-balance; B's held checkouts and
 * collected payments; the test triggers Async, Failticket, Unknown and
 * Nocancel; quotes, cancellations, airline-initiated changes, airlines;
 * A's lost answers found without keys (an order by its metadata, a
 * cancellation on its order). */
#include "adapter_env.h"
#include "flight/supplier.h"

#include <stdlib.h>

static trv_flight_ctx ctx_of(const trv_upstream *up)
{
    trv_flight_ctx c = {.env = &ad_env, .pool = ad_pool, .request_id = "req_adapter_suppliers",
                        .up = up};
    return c;
}

static json_t *query(const char *from, const char *to, int days, const char *cabin,
                     int adults, int limit)
{
    return trv_json_bind(ad_pool, json_pack(
        "{s:[{s:s,s:s,s:s}],s:{s:i,s:i,s:i},s:s,s:i}", "journeys", "origin", from,
        "destination", to, "date", ad_date(days), "passengers", "adults", adults,
        "children", 0, "infants", 0, "cabin_class", cabin, "limit", limit));
}

static json_t *search(const trv_flight_supplier *s, const trv_upstream *up, const json_t *q,
                      int *truncated)
{
    trv_flight_ctx c = ctx_of(up);
    trv_sup_err err = {0};
    apr_array_header_t *offers = NULL;
    json_t *out;
    int t = 0;
    assert_int_equal(s->search(&c, q, &offers, &t, &err), TRV_UP_OK);
    assert_non_null(offers);
    out = trv_json_bind(ad_pool, trv_foffer_text_tree(ad_pool, offers));
    assert_true(json_is_array(out));
    assert_int_equal(json_array_size(out), offers->nelts);
    if (truncated) {
        *truncated = t;
    }
    return out;
}

static const json_t *offer_of_brand(const json_t *offers, const char *brand)
{
    size_t i;
    for (i = 0; i < json_array_size(offers); i++) {
        const json_t *o = json_array_get(offers, i);
        if (strcmp(ad_str(o, "fare_family"), brand) == 0) {
            return o;
        }
    }
    fail_msg("no %s offer", brand);
    return NULL;
}

static json_t *party(const char *last_name, const char *loyalty_airline)
{
    json_t *p = json_pack("[{s:s,s:s,s:s,s:s,s:s,s:s,s:[]}]", "first_name", "Ada",
                          "last_name", last_name, "birthday", "1985-04-12", "type", "ADULT",
                          "gender", "F", "nationality", "GB", "loyalty_accounts");
    if (loyalty_airline) {
        json_array_append_new(json_object_get(json_array_get(p, 0), "loyalty_accounts"),
                              json_pack("{s:s,s:s}", "airline_iata_code", loyalty_airline,
                                        "membership_number", "00123456789"));
    }
    return trv_json_bind(ad_pool, p);
}

static json_t *contact(void)
{
    return trv_json_bind(ad_pool, json_pack("{s:s,s:s,s:s,s:s,s:s}", "first_name", "Ada",
                                            "last_name", "Lovelace", "email", "ada@example.com",
                                            "phone_number", "2079460000",
                                            "phone_country_code", "44"));
}

static json_t *prebook(const trv_flight_supplier *s, const trv_upstream *up, const char *ref,
                       const json_t *pax, const json_t *services)
{
    trv_flight_ctx c = ctx_of(up);
    trv_sup_err err = {0};
    json_t *priced = NULL;
    trv_up_status st = s->prebook(&c, ref, pax, contact(), services, &priced, &err);
    if (st != TRV_UP_OK) {
        fail_msg("prebook: %s %s %s", trv_up_status_name(st), err.code, err.message);
    }
    return priced;
}

/* The booking the flight code hands to book: its own id, the prebook's
 * supplier_data and total, the party and the bought services. */
static json_t *booking_of(const json_t *priced, const json_t *pax, const json_t *services)
{
    return trv_json_bind(ad_pool, json_pack("{s:s,s:O,s:O,s:O,s:o,s:O}",
        "id", apr_psprintf(ad_pool, "bkg_test-%ld", e2e_now_ms()),
        "supplier_data", json_object_get(priced, "supplier_data"),
        "total_amount", json_object_get(priced, "total_amount"), "passengers", pax,
        "contact", contact(), "services", services ? services : json_array()));
}

static const char *new_key(const char *what)
{
    return apr_psprintf(ad_pool, "%s-%ld-%d", what, e2e_now_ms(), rand());
}

static json_t *book(const trv_flight_supplier *s, const trv_upstream *up, const json_t *booking,
                    const char *key, trv_up_status want, trv_sup_err *err_out)
{
    trv_flight_ctx c = ctx_of(up);
    trv_sup_err err = {0};
    json_t *order = NULL;
    json_t *pay = s == &trv_flight_supplier_a
        ? trv_json_bind(ad_pool, json_pack("{s:s}", "authorization_id", "auth_test")) : NULL;
    trv_up_status st = s->book(&c, booking, pay, key, &order, &err);
    if (st != want) {
        fail_msg("book: %s (wanted %s) %s %s", trv_up_status_name(st), trv_up_status_name(want),
                 err.code, err.message);
    }
    if (err_out) {
        *err_out = err;
    }
    return order;
}

static json_t *read_order(const trv_flight_supplier *s, const trv_upstream *up, const char *id)
{
    trv_flight_ctx c = ctx_of(up);
    trv_sup_err err = {0};
    json_t *order = NULL;
    assert_int_equal(s->read_order(&c, id, &order, &err), TRV_UP_OK);
    assert_string_equal(ad_str(order, "order_id"), id);
    return order;
}

/* Search, prebook and book one offer of a brand; returns the order. */
static json_t *booked(const trv_flight_supplier *s, const trv_upstream *up, const char *from,
                      const char *to, const char *brand, const char *last_name,
                      trv_up_status want)
{
    const json_t *o = offer_of_brand(search(s, up, query(from, to, 45, "ECONOMY", 1, 60), NULL),
                                     brand);
    json_t *pax = party(last_name, NULL);
    json_t *priced = prebook(s, up, ad_str(o, "offer_reference"), pax, NULL);
    return book(s, up, booking_of(priced, pax, NULL), new_key("book"), want, NULL);
}

/* ---- SUPPLIER_A ---- */

static void a_offers_have_the_service_shape(void **state)
{
    int truncated = 1;
    json_t *offers = search(&trv_flight_supplier_a, &ad_up_a, query("LHR", "JFK", 40, "ECONOMY", 1, 100),
                            &truncated);
    size_t i, j, k;
    (void)state;
    assert_true(json_array_size(offers) > 3);
    assert_false(truncated);
    for (i = 0; i < json_array_size(offers); i++) {
        const json_t *o = json_array_get(offers, i), *js = json_object_get(o, "journeys");
        long minutes = 0, ttl = ad_seconds_until(ad_str(o, "expires_at"));
        assert_true(trv_flight_supplier_of_offer(ad_str(o, "offer_reference")) == &trv_flight_supplier_a);
        assert_string_equal(ad_str(json_object_get(o, "total_amount"), "currency"), "GBP");
        assert_true(ad_minor(json_object_get(o, "total_amount")) > 0);
        assert_true(ttl > 25 * 60 && ttl <= 30 * 60); /* A's offers live 30 minutes */
        assert_non_null(ad_str(o, "fare_family"));
        assert_true(json_is_boolean(json_object_get(o, "refundable")));
        assert_true(json_is_boolean(json_object_get(json_object_get(json_object_get(o,
            "fare_conditions"), "change"), "allowed")));
        assert_true(json_is_true(json_object_get(o, "documents_required")));
        assert_true(json_is_boolean(json_object_get(json_object_get(o, "included_baggage"),
                                                    "checked")));
        assert_int_equal(json_array_size(js), 1);
        for (j = 0; j < json_array_size(js); j++) {
            const json_t *jn = json_array_get(js, j), *segs = json_object_get(jn, "segments");
            assert_string_equal(ad_str(jn, "origin"), "LHR");
            assert_string_equal(ad_str(jn, "destination"), "JFK");
            assert_string_equal(ad_str(jn, "direction"), "OUTBOUND");
            assert_int_equal(json_integer_value(json_object_get(jn, "stops")),
                             json_array_size(segs) - 1);
            minutes += (long)json_integer_value(json_object_get(jn, "duration_minutes"));
            for (k = 0; k < json_array_size(segs); k++) {
                const json_t *s = json_array_get(segs, k);
                const char *code = ad_str(s, "marketing_carrier_code");
                assert_non_null(code);
                assert_int_equal(strncmp(ad_str(s, "marketing_flight"), code, 2), 0);
                assert_true(strlen(ad_str(s, "marketing_carrier")) > 2); /* a name */
                assert_non_null(ad_str(s, "operating_carrier"));
                assert_non_null(strstr(ad_str(s, "marketing_carrier_logo_url"), "https://"));
                assert_string_equal(ad_str(s, "cabin_class"), "ECONOMY");
                assert_int_equal(strlen(ad_str(s, "departure_time")), 19); /* local, no zone */
                assert_true(json_integer_value(json_object_get(s, "duration_minutes")) > 60);
            }
        }
        assert_int_equal(json_integer_value(json_object_get(o, "total_duration_minutes")), minutes);
    }
    /* limit caps the offers and says more matched. */
    offers = search(&trv_flight_supplier_a, &ad_up_a, query("LHR", "JFK", 40, "ECONOMY", 1, 2), &truncated);
    assert_int_equal(json_array_size(offers), 2);
    assert_true(truncated);
}

static void a_bags_and_prebook_price_services_and_member_price(void **state)
{
    trv_flight_ctx c = ctx_of(&ad_up_a);
    trv_sup_err err = {0};
    const json_t *o = offer_of_brand(search(&trv_flight_supplier_a, &ad_up_a,
                                            query("LHR", "JFK", 50, "ECONOMY", 1, 60), NULL),
                                     "Basic");
    const char *ref = ad_str(o, "offer_reference"), *carrier;
    json_t *bags = NULL, *services, *plain, *member, *other, *svc;
    const json_t *bag = NULL, *seg0;
    size_t i;
    (void)state;

    assert_int_equal(trv_flight_supplier_a.bags(&c, ref, &bags, &err), TRV_UP_OK);
    assert_true(json_array_size(bags) > 0);
    for (i = 0; i < json_array_size(bags); i++) {
        const json_t *b = json_array_get(bags, i);
        assert_int_equal(strncmp(ad_str(b, "id"), "bag_", 4), 0);
        assert_string_equal(ad_str(b, "type"), "BAGGAGE");
        assert_int_equal(json_integer_value(json_object_get(b, "passenger_index")), 0);
        assert_int_equal(json_integer_value(json_object_get(b, "journey_index")), 0);
        assert_true(ad_minor(json_object_get(b, "unit_amount")) > 0);
        if (strcmp(ad_str(json_object_get(b, "baggage"), "type"), "CHECKED") == 0) {
            bag = b;
        }
    }
    assert_non_null(bag); /* Basic sells checked bags */
    assert_int_equal(json_integer_value(json_object_get(json_object_get(bag, "baggage"),
                                                        "max_weight_kg")), 23);
    services = trv_json_bind(ad_pool, json_pack("[{s:O,s:i}]", "id", json_object_get(bag, "id"),
                                                "quantity", 2));

    plain = prebook(&trv_flight_supplier_a, &ad_up_a, ref, party("Smith", NULL), services);
    /* The whole price: fare + taxes + services, each bag priced per unit. */
    assert_int_equal(ad_minor(json_object_get(plain, "total_amount")),
                     ad_minor(json_object_get(plain, "fare_amount"))
                     + ad_minor(json_object_get(plain, "fare_tax_amount"))
                     + ad_minor(json_object_get(plain, "services_amount")));
    assert_int_equal(ad_minor(json_object_get(plain, "services_amount")),
                     2 * ad_minor(json_object_get(bag, "unit_amount")));
    assert_int_equal(ad_minor(json_object_get(plain, "total_amount")),
                     ad_minor(json_object_get(o, "total_amount"))
                     + 2 * ad_minor(json_object_get(bag, "unit_amount")));
    svc = json_array_get(json_object_get(plain, "services"), 0);
    assert_string_equal(ad_str(svc, "bag_id"), ad_str(bag, "id"));
    assert_int_equal(json_integer_value(json_object_get(svc, "quantity")), 2);
    assert_int_equal(json_array_size(json_object_get(svc, "segment_ids")), 1);
    assert_false(json_is_true(json_object_get(plain, "member_price")));
    assert_false(json_is_true(json_object_get(json_object_get(plain, "hold"), "held")));
    assert_string_equal(ad_str(plain, "expires_at"), ad_str(o, "expires_at"));
    assert_string_equal(ad_str(plain, "fare_brand"), "Basic");
    assert_false(json_is_true(json_object_get(json_object_get(plain, "cancellation_policy"),
                                              "refundable")));
    /* Journeys in the booking's shape: ids, and the bags on each segment. */
    seg0 = json_array_get(json_object_get(json_array_get(json_object_get(plain, "journeys"), 0),
                                          "segments"), 0);
    assert_non_null(ad_str(seg0, "id"));
    assert_non_null(ad_str(json_array_get(json_object_get(plain, "journeys"), 0), "id"));
    assert_int_equal(json_integer_value(json_object_get(json_array_get(
        json_object_get(seg0, "passengers"), 0), "checked_bags")), 2);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(
        json_object_get(seg0, "passengers"), 0), "passenger_id")), 0);

    /* A loyalty account with the airline flying it lowers the fare. */
    carrier = ad_str(json_array_get(json_object_get(json_array_get(json_object_get(o, "journeys"),
                                                                   0), "segments"), 0),
                     "marketing_carrier_code");
    member = prebook(&trv_flight_supplier_a, &ad_up_a, ref, party("Smith", carrier), services);
    assert_true(json_is_true(json_object_get(member, "member_price")));
    assert_true(ad_minor(json_object_get(member, "total_amount"))
                < ad_minor(json_object_get(plain, "total_amount")));
    assert_int_equal(ad_minor(json_object_get(member, "fare_tax_amount")),
                     ad_minor(json_object_get(plain, "fare_tax_amount")));
    /* An account with an airline not on the itinerary does not. */
    other = prebook(&trv_flight_supplier_a, &ad_up_a, ref,
                    party("Smith", strcmp(carrier, "QF") == 0 ? "NZ" : "QF"), services);
    assert_false(json_is_true(json_object_get(other, "member_price")));
    assert_int_equal(ad_minor(json_object_get(other, "total_amount")),
                     ad_minor(json_object_get(plain, "total_amount")));
}

/* Orders the sandbox's Duffel holds for one of our bookings (the
 * metadata.booking_id book sends). */
static long a_orders_of(const char *booking_id)
{
    const char *p[1] = {booking_id};
    return e2e_sql_long("SELECT count(*) FROM sandbox.flight_orders WHERE supplier = 'A' "
                        "AND doc->'metadata'->>'booking_id' = $1", 1, p);
}

static json_t *find_order(const json_t *booking, trv_up_status want)
{
    trv_flight_ctx c = ctx_of(&ad_up_a);
    trv_sup_err err = {0};
    json_t *order = NULL;
    trv_up_status st = trv_flight_supplier_a.find_order(&c, booking, &order, &err);
    if (st != want) {
        fail_msg("find_order: %s (wanted %s) %s %s", trv_up_status_name(st),
                 trv_up_status_name(want), err.code, err.message);
    }
    return order;
}

/* One booking buys one ticket: book again (the same key or another) and
 * Duffel, which documents no Idempotency-Key and sells an offer once,
 * refuses; the order is found by the booking's metadata, the same one. */
static void a_book_tickets_once_per_key_and_once_per_offer(void **state)
{
    const json_t *o = offer_of_brand(search(&trv_flight_supplier_a, &ad_up_a,
                                            query("CDG", "FCO", 30, "ECONOMY", 1, 60), NULL),
                                     "Standard");
    json_t *pax = party("Smith", NULL);
    json_t *priced = prebook(&trv_flight_supplier_a, &ad_up_a, ad_str(o, "offer_reference"), pax, NULL);
    json_t *bk = booking_of(priced, pax, NULL), *order, *found;
    const char *key = new_key("book");
    trv_sup_err err;
    (void)state;

    assert_null(find_order(bk, TRV_UP_NOT_FOUND)); /* nothing ordered yet */
    order = book(&trv_flight_supplier_a, &ad_up_a, bk, key, TRV_UP_OK, NULL);
    assert_string_equal(ad_str(order, "status"), "TICKETED");
    assert_int_equal(strncmp(ad_str(order, "order_id"), "ord_", 4), 0);
    assert_int_equal(strlen(ad_str(order, "airline_pnr")), 6);
    assert_null(json_object_get(order, "payment")); /* the service collects for A */
    assert_int_equal(a_orders_of(ad_str(bk, "id")), 1);
    /* The same key again: not a replay (no key reaches Duffel), a second
     * order of a sold offer, refused; still one order. */
    book(&trv_flight_supplier_a, &ad_up_a, bk, key, TRV_UP_REJECTED, &err);
    assert_string_equal(err.code, "offer_no_longer_available");
    /* A new key for the same offer: refused the same way. */
    book(&trv_flight_supplier_a, &ad_up_a, bk, new_key("book"), TRV_UP_REJECTED, &err);
    assert_string_equal(err.code, "offer_no_longer_available");
    assert_int_equal(a_orders_of(ad_str(bk, "id")), 1);
    /* The booking's order is found by its metadata: the one book made. */
    found = find_order(bk, TRV_UP_OK);
    assert_string_equal(ad_str(found, "order_id"), ad_str(order, "order_id"));
    assert_string_equal(ad_str(found, "airline_pnr"), ad_str(order, "airline_pnr"));
    assert_string_equal(ad_str(found, "status"), "TICKETED");
    assert_string_equal(ad_str(read_order(&trv_flight_supplier_a, &ad_up_a, ad_str(order, "order_id")),
                               "status"), "TICKETED");
}

static void a_async_ticketing_finishes_later(void **state)
{
    json_t *order = booked(&trv_flight_supplier_a, &ad_up_a, "MAD", "LIS", "Standard", "Async", TRV_UP_OK);
    const char *id = ad_str(order, "order_id");
    (void)state;
    assert_string_equal(ad_str(order, "status"), "PENDING");
    assert_string_equal(ad_str(read_order(&trv_flight_supplier_a, &ad_up_a, id), "status"), "PENDING");
    e2e_sleep_ms(3300);
    assert_string_equal(ad_str(read_order(&trv_flight_supplier_a, &ad_up_a, id), "status"), "TICKETED");
}

static void a_failticket_fails_with_book_failed(void **state)
{
    json_t *order = booked(&trv_flight_supplier_a, &ad_up_a, "MAD", "LIS", "Standard", "Failticket",
                           TRV_UP_OK);
    (void)state;
    assert_string_equal(ad_str(order, "status"), "FAILED");
    assert_string_equal(ad_str(json_object_get(order, "failure"), "code"), "book_failed");
    assert_non_null(ad_str(json_object_get(order, "failure"), "description"));
}

/* The answer to book is lost (Unknown: the order is made, the answer
 * hangs): the order is found by the booking's metadata at once, without
 * waiting for the hang and without a second order. */
static void a_unknown_times_out_yet_the_order_exists(void **state)
{
    trv_upstream quick = ad_up_a;
    const json_t *o = offer_of_brand(search(&trv_flight_supplier_a, &ad_up_a,
                                            query("MAD", "LIS", 33, "ECONOMY", 1, 60), NULL),
                                     "Standard");
    json_t *pax = party("Unknown", NULL);
    json_t *priced = prebook(&trv_flight_supplier_a, &ad_up_a, ad_str(o, "offer_reference"), pax, NULL);
    json_t *bk = booking_of(priced, pax, NULL), *order;
    const char *key = new_key("book");
    long t0;
    (void)state;
    quick.timeout = apr_time_from_sec(2);
    t0 = e2e_now_ms();
    book(&trv_flight_supplier_a, &quick, bk, key, TRV_UP_TIMEOUT, NULL);
    assert_true(e2e_now_ms() - t0 < 5000);
    t0 = e2e_now_ms();
    order = find_order(bk, TRV_UP_OK);
    assert_true(e2e_now_ms() - t0 < 2000);
    assert_string_equal(ad_str(order, "status"), "TICKETED");
    assert_int_equal(a_orders_of(ad_str(bk, "id")), 1);
    assert_string_equal(ad_str(read_order(&trv_flight_supplier_a, &ad_up_a,
                                          ad_str(order, "order_id")), "status"), "TICKETED");
}

static void a_quote_and_cancel(void **state)
{
    trv_flight_ctx c = ctx_of(&ad_up_a);
    trv_sup_err err = {0};
    json_t *flex = booked(&trv_flight_supplier_a, &ad_up_a, "FRA", "BCN", "Flex", "Smith", TRV_UP_OK);
    json_t *std = booked(&trv_flight_supplier_a, &ad_up_a, "FRA", "BCN", "Standard", "Smith", TRV_UP_OK);
    json_t *q = NULL, *r = NULL, *r2 = NULL;
    const char *key = new_key("cancel");
    (void)state;

    /* Flex: refundable without penalty, the whole price back. */
    assert_int_equal(trv_flight_supplier_a.cancellation_quote(&c, ad_str(flex, "order_id"), &q, &err),
                     TRV_UP_OK);
    assert_int_equal(ad_minor(json_object_get(q, "fee")), 0);
    assert_true(ad_minor(json_object_get(q, "refundable_amount")) > 0);
    /* Standard: not refundable; only the taxes come back. */
    assert_int_equal(trv_flight_supplier_a.cancellation_quote(&c, ad_str(std, "order_id"), &q, &err),
                     TRV_UP_OK);
    assert_true(ad_minor(json_object_get(q, "fee")) > ad_minor(json_object_get(q,
                                                                  "refundable_amount")));
    assert_int_equal(trv_flight_supplier_a.cancel(&c, ad_str(std, "order_id"), key, &r, &err), TRV_UP_OK);
    assert_int_equal(ad_minor(json_object_get(r, "fee")), ad_minor(json_object_get(q, "fee")));
    assert_int_equal(ad_minor(json_object_get(r, "refund_amount")),
                     ad_minor(json_object_get(q, "refundable_amount")));
    assert_string_equal(ad_str(read_order(&trv_flight_supplier_a, &ad_up_a, ad_str(std, "order_id")),
                               "status"), "CANCELED");
    /* A retry of the same cancellation (its confirm answer lost) answers
     * the same terms from the order's confirmed cancellation: nothing is
     * quoted or confirmed again. */
    {
        const char *p[1] = {ad_str(std, "order_id")};
        const char *all = "SELECT count(*) FROM sandbox.order_cancellations WHERE order_id = $1";
        long quotes = e2e_sql_long(all, 1, p);
        assert_int_equal(trv_flight_supplier_a.cancel(&c, ad_str(std, "order_id"), key, &r2,
                                                      &err), TRV_UP_OK);
        assert_int_equal(ad_minor(json_object_get(r2, "refund_amount")),
                         ad_minor(json_object_get(r, "refund_amount")));
        assert_int_equal(ad_minor(json_object_get(r2, "fee")),
                         ad_minor(json_object_get(r, "fee")));
        assert_int_equal(e2e_sql_long(all, 1, p), quotes);
        assert_int_equal(e2e_sql_long("SELECT count(*) FROM sandbox.order_cancellations "
                                      "WHERE order_id = $1 AND confirmed_at IS NOT NULL", 1, p),
                         1);
    }
}

/* How many requests the sandbox's faults for requests ids starting rid
 * failed. */
static long a_fault_hits(const char *rid)
{
    char path[256];
    e2e_resp *r;
    long hits = 0;
    size_t i;
    snprintf(path, sizeof(path), "/sandbox/faults?request_id_prefix=%s", rid);
    r = e2e_call(e2e_sandbox_url(), "GET", path, NULL, NULL);
    assert_int_equal(r->status, 200);
    for (i = 0; i < json_array_size(json_object_get(r->json, "data")); i++) {
        hits += (long)json_integer_value(json_object_get(json_array_get(
            json_object_get(r->json, "data"), i), "hits"));
    }
    e2e_free(r);
    return hits;
}

/* The confirm of a cancellation is made but its answer is lost (the
 * connection closes after the sandbox handled it): the HTTP client does
 * not send it again by itself (no key, so a fresh connection), the cancel
 * answers unknown, and the next run finds the confirmed cancellation on
 * the order: the same terms, nothing quoted or confirmed twice. */
static void a_cancel_confirm_answer_lost_is_found_on_the_order(void **state)
{
    trv_flight_ctx c = ctx_of(&ad_up_a);
    trv_sup_err err = {0};
    json_t *flex = booked(&trv_flight_supplier_a, &ad_up_a, "FRA", "BCN", "Flex", "Smith",
                          TRV_UP_OK);
    json_t *r = NULL, *q = NULL;
    const char *hdr[] = {"Content-Type: application/json", NULL};
    const char *p[1] = {ad_str(flex, "order_id")};
    char rid[96], body[512];
    e2e_resp *f;
    (void)state;
    assert_int_equal(trv_flight_supplier_a.cancellation_quote(&c, p[0], &q, &err), TRV_UP_OK);
    snprintf(rid, sizeof(rid), "adapter-lost-confirm-%ld", e2e_now_ms());
    snprintf(body, sizeof(body), "{\"api\":\"supplier_a\",\"request_id_prefix\":\"%s\","
             "\"method\":\"POST\",\"path\":\"/air/order_cancellations/*/actions/confirm\","
             "\"action\":\"drop_after_handling\",\"times\":null}", rid);
    f = e2e_call(e2e_sandbox_url(), "POST", "/sandbox/faults", hdr, body);
    assert_int_equal(f->status, 201);
    e2e_free(f);
    c.request_id = rid;
    assert_int_equal(trv_flight_supplier_a.cancel(&c, p[0], new_key("cancel"), &r, &err),
                     TRV_UP_TIMEOUT);
    assert_int_equal(a_fault_hits(rid), 1); /* sent once: never resent by libcurl */
    assert_string_equal(ad_str(read_order(&trv_flight_supplier_a, &ad_up_a, p[0]), "status"),
                        "CANCELED");
    c.request_id = "req_adapter_suppliers";
    assert_int_equal(trv_flight_supplier_a.cancel(&c, p[0], new_key("cancel"), &r, &err),
                     TRV_UP_OK);
    assert_int_equal(ad_minor(json_object_get(r, "fee")), ad_minor(json_object_get(q, "fee")));
    assert_int_equal(ad_minor(json_object_get(r, "refund_amount")),
                     ad_minor(json_object_get(q, "refundable_amount")));
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM sandbox.order_cancellations "
                                  "WHERE order_id = $1 AND confirmed_at IS NOT NULL", 1, p), 1);
    snprintf(body, sizeof(body), "/sandbox/faults?request_id_prefix=%s", rid);
    f = e2e_call(e2e_sandbox_url(), "DELETE", body, NULL, NULL);
    e2e_free(f);
}

static void a_nocancel_is_rejected(void **state)
{
    trv_flight_ctx c = ctx_of(&ad_up_a);
    trv_sup_err err = {0};
    json_t *order = booked(&trv_flight_supplier_a, &ad_up_a, "FRA", "BCN", "Flex", "Nocancel", TRV_UP_OK);
    json_t *r = NULL;
    (void)state;
    assert_int_equal(trv_flight_supplier_a.cancel(&c, ad_str(order, "order_id"), new_key("cancel"), &r,
                                                  &err), TRV_UP_REJECTED);
    assert_string_equal(err.code, "cancellation_rejected");
    assert_string_equal(ad_str(read_order(&trv_flight_supplier_a, &ad_up_a, ad_str(order, "order_id")),
                               "status"), "TICKETED");
}

/* The sandbox's control endpoint retimes a flight; the order shows it. */
static void change_shows_on_the_order(const trv_flight_supplier *s, const trv_upstream *up)
{
    json_t *order = booked(s, up, "AMS", "CPH", "Standard", "Smith", TRV_UP_OK), *read, *ch;
    const char *hdr[] = {"Content-Type: application/json", NULL};
    char path[256];
    e2e_resp *r;
    snprintf(path, sizeof(path), "/sandbox/orders/%s/airline-initiated-changes",
             ad_str(order, "order_id"));
    r = e2e_call(e2e_sandbox_url(), "POST", path, hdr, "{\"delay_minutes\": 95}");
    assert_int_equal(r->status, 201);
    e2e_free(r);
    read = read_order(s, up, ad_str(order, "order_id"));
    assert_int_equal(json_array_size(json_object_get(read, "airline_initiated_changes")), 1);
    ch = json_array_get(json_object_get(read, "airline_initiated_changes"), 0);
    assert_string_equal(ad_str(ch, "type"), "SCHEDULE_CHANGE");
    assert_string_equal(ad_str(ch, "origin"), "AMS");
    assert_string_equal(ad_str(ch, "destination"), "CPH");
    assert_int_equal(json_integer_value(json_object_get(ch, "journey_index")), 0);
    {
        int h1, m1, h2, m2;
        assert_int_equal(sscanf(ad_str(ch, "previous_departure_time") + 11, "%d:%d", &h1, &m1), 2);
        assert_int_equal(sscanf(ad_str(ch, "departure_time") + 11, "%d:%d", &h2, &m2), 2);
        assert_int_equal(((h2 * 60 + m2) - (h1 * 60 + m1) + 1440) % 1440, 95);
    }
}

static void a_airline_initiated_change(void **state)
{
    (void)state;
    change_shows_on_the_order(&trv_flight_supplier_a, &ad_up_a);
}

static void airlines_from_both_suppliers(void **state)
{
    const trv_flight_supplier *s[2] = {&trv_flight_supplier_a, &trv_flight_supplier_b};
    const trv_upstream *u[2] = {&ad_up_a, &ad_up_b};
    int i;
    (void)state;
    for (i = 0; i < 2; i++) {
        trv_flight_ctx c = ctx_of(u[i]);
        trv_sup_err err = {0};
        json_t *a = NULL;
        assert_int_equal(s[i]->airline(&c, "LH", &a, &err), TRV_UP_OK);
        assert_string_equal(ad_str(a, "iata_code"), "LH");
        assert_string_equal(ad_str(a, "name"), "Lufthansa");
        if (s[i] == &trv_flight_supplier_b) {
            assert_string_equal(ad_str(a, "icao_code"), "DLH");
            assert_string_equal(ad_str(a, "alliance"), "Star Alliance");
            assert_string_equal(ad_str(a, "country"), "Germany");
        }
        else {
            /* Duffel's Airline has no ICAO code, alliance or country. */
            assert_true(json_is_null(json_object_get(a, "icao_code")));
            assert_true(json_is_null(json_object_get(a, "alliance")));
            assert_true(json_is_null(json_object_get(a, "country")));
        }
        assert_true(json_is_true(json_object_get(a, "is_active")));
        assert_non_null(strstr(ad_str(a, "logo_url"), "LH"));
        assert_int_equal(s[i]->airline(&c, "9Z", &a, &err), TRV_UP_NOT_FOUND);
    }
}

static void a_wrong_key_is_refused(void **state)
{
    trv_upstream bad = ad_up_a;
    trv_flight_ctx c;
    trv_sup_err err = {0};
    apr_array_header_t *offers = NULL;
    int t;
    (void)state;
    bad.api_key = "sandbox-key-b";
    c = ctx_of(&bad);
    assert_int_equal(trv_flight_supplier_a.search(&c, query("LHR", "JFK", 40, "ECONOMY", 1, 5), &offers,
                                                  &t, &err), TRV_UP_REJECTED);
    assert_string_equal(err.code, "unauthorized");
}

/* ---- SUPPLIER_B ---- */

static void b_offers_and_bags(void **state)
{
    trv_flight_ctx c = ctx_of(&ad_up_b);
    trv_sup_err err = {0};
    json_t *offers = search(&trv_flight_supplier_b, &ad_up_b, query("ZRH", "SFO", 40, "BUSINESS", 2, 20),
                            NULL), *bags = NULL;
    const json_t *o = json_array_get(offers, 0), *seg;
    (void)state;
    assert_true(json_array_size(offers) > 0);
    assert_true(trv_flight_supplier_of_offer(ad_str(o, "offer_reference")) == &trv_flight_supplier_b);
    assert_string_equal(ad_str(json_object_get(o, "total_amount"), "currency"), "CHF");
    seg = json_array_get(json_object_get(json_array_get(json_object_get(o, "journeys"), 0),
                                         "segments"), 0);
    assert_string_equal(ad_str(seg, "cabin_class"), "BUSINESS");
    /* Names from B's carrier dictionary, not just codes. */
    assert_true(strlen(ad_str(seg, "marketing_carrier")) > 3);
    assert_int_equal(ad_seconds_until(ad_str(o, "expires_at")) / 60 >= 18, 1);
    /* LiteAPI's order: bags are sold only in the checkout (its prebook's
     * servicesAttachable), so an offer lists none (verified: it lives). */
    assert_int_equal(trv_flight_supplier_b.bags(&c, ad_str(o, "offer_reference"), &bags, &err),
                     TRV_UP_OK);
    assert_true(json_is_array(bags));
    assert_int_equal(json_array_size(bags), 0);
    assert_int_equal(trv_flight_supplier_b.bags(&c, "lfo_not-an-offer", &bags, &err),
                     TRV_UP_REJECTED);
    /* A bag asked at prebook is none of the offer's: refused before any
     * checkout is made. */
    {
        json_t *priced = NULL, *svc = trv_json_bind(ad_pool, json_pack("[{s:s,s:i}]", "id",
                                                                       "bag_0.svc_x", "quantity",
                                                                       1));
        memset(&err, 0, sizeof(err));
        assert_int_equal(trv_flight_supplier_b.prebook(&c, ad_str(o, "offer_reference"),
                                                       party("Smith", NULL), contact(), svc,
                                                       &priced, &err), TRV_UP_REJECTED);
        assert_string_equal(err.code, "services_not_sold");
        assert_null(priced);
    }
}

static void b_holds_far_flights_but_not_near_ones(void **state)
{
    const json_t *far = json_array_get(search(&trv_flight_supplier_b, &ad_up_b,
                                              query("LHR", "DUB", 40, "ECONOMY", 1, 5), NULL), 0);
    const json_t *near = json_array_get(search(&trv_flight_supplier_b, &ad_up_b,
                                               query("LHR", "DUB", 1, "ECONOMY", 1, 5), NULL), 0);
    json_t *pf = prebook(&trv_flight_supplier_b, &ad_up_b, ad_str(far, "offer_reference"),
                         party("Smith", NULL), NULL);
    json_t *pn = prebook(&trv_flight_supplier_b, &ad_up_b, ad_str(near, "offer_reference"),
                         party("Smith", NULL), NULL);
    long held_for = ad_seconds_until(ad_str(json_object_get(pf, "hold"), "expires_at"));
    (void)state;
    assert_true(json_is_true(json_object_get(json_object_get(pf, "hold"), "held")));
    assert_true(held_for > 100 * 60 && held_for <= 120 * 60);
    assert_string_equal(ad_str(pf, "expires_at"), ad_str(json_object_get(pf, "hold"), "expires_at"));
    assert_false(json_is_true(json_object_get(json_object_get(pn, "hold"), "held")));
    assert_true(ad_seconds_until(ad_str(pn, "expires_at")) <= 20 * 60);
    /* Book needs the prebook and its payment intent, never the intent's secret. */
    assert_non_null(ad_str(json_object_get(pf, "supplier_data"), "prebook_id"));
    assert_non_null(ad_str(json_object_get(pf, "supplier_data"), "transaction_id"));
    {
        char *text = json_dumps(pf, 0);
        assert_null(strstr(text, "_secret_"));
        free(text);
    }
}

static void b_book_collects_payment_and_is_idempotent(void **state)
{
    const json_t *o = offer_of_brand(search(&trv_flight_supplier_b, &ad_up_b,
                                            query("LHR", "DUB", 30, "ECONOMY", 1, 60), NULL),
                                     "Standard");
    json_t *pax = party("Smith", NULL);
    json_t *services, *priced, *bk, *order, *again;
    const char *key = new_key("book");
    const json_t *pay;
    (void)state;
    services = trv_json_bind(ad_pool, json_array());
    priced = prebook(&trv_flight_supplier_b, &ad_up_b, ad_str(o, "offer_reference"), pax, services);
    assert_int_equal(ad_minor(json_object_get(priced, "total_amount")),
                     ad_minor(json_object_get(o, "total_amount")));
    assert_int_equal(ad_minor(json_object_get(priced, "services_amount")), 0);
    bk = booking_of(priced, pax, services);
    order = book(&trv_flight_supplier_b, &ad_up_b, bk, key, TRV_UP_OK, NULL);
    assert_string_equal(ad_str(order, "status"), "TICKETED");
    assert_int_equal(strncmp(ad_str(order, "order_id"), "bo_", 3), 0);
    pay = json_object_get(order, "payment");
    assert_string_equal(ad_str(pay, "collected_by"), "SUPPLIER_B");
    assert_int_equal(ad_minor(json_object_get(pay, "amount")),
                     ad_minor(json_object_get(priced, "total_amount")));
    /* LiteAPI's booking shows what it collected, not the card. */
    assert_null(json_object_get(pay, "card"));
    again = book(&trv_flight_supplier_b, &ad_up_b, bk, key, TRV_UP_OK, NULL);
    assert_string_equal(ad_str(again, "order_id"), ad_str(order, "order_id"));
}

static void b_triggers(void **state)
{
    json_t *async = booked(&trv_flight_supplier_b, &ad_up_b, "LHR", "DUB", "Standard", "Async", TRV_UP_OK);
    json_t *fail = booked(&trv_flight_supplier_b, &ad_up_b, "LHR", "DUB", "Standard", "Failticket",
                          TRV_UP_OK);
    (void)state;
    assert_string_equal(ad_str(async, "status"), "PENDING");
    assert_string_equal(ad_str(fail, "status"), "FAILED");
    assert_string_equal(ad_str(json_object_get(fail, "failure"), "code"), "book_failed");
    assert_null(json_object_get(fail, "payment")); /* nothing charged */
    e2e_sleep_ms(3300);
    assert_string_equal(ad_str(read_order(&trv_flight_supplier_b, &ad_up_b, ad_str(async, "order_id")),
                               "status"), "TICKETED");
}

static void b_quotes_all_but_basic_and_cancels(void **state)
{
    trv_flight_ctx c = ctx_of(&ad_up_b);
    trv_sup_err err = {0};
    json_t *basic = booked(&trv_flight_supplier_b, &ad_up_b, "LHR", "DUB", "Basic", "Smith", TRV_UP_OK);
    json_t *flex = booked(&trv_flight_supplier_b, &ad_up_b, "LHR", "DUB", "Flex", "Smith", TRV_UP_OK);
    json_t *noc = booked(&trv_flight_supplier_b, &ad_up_b, "LHR", "DUB", "Flex", "Nocancel", TRV_UP_OK);
    json_t *q = NULL, *r = NULL;
    (void)state;
    /* B cannot quote Basic fares: the caller estimates from the terms. */
    assert_int_equal(trv_flight_supplier_b.cancellation_quote(&c, ad_str(basic, "order_id"), &q, &err),
                     TRV_UP_REJECTED);
    assert_string_equal(err.code, "quote_unavailable");
    assert_int_equal(trv_flight_supplier_b.cancellation_quote(&c, ad_str(flex, "order_id"), &q, &err),
                     TRV_UP_OK);
    assert_int_equal(ad_minor(json_object_get(q, "fee")), 0);
    assert_int_equal(trv_flight_supplier_b.cancel(&c, ad_str(flex, "order_id"), new_key("cancel"), &r,
                                                  &err), TRV_UP_OK);
    assert_int_equal(ad_minor(json_object_get(r, "refund_amount")),
                     ad_minor(json_object_get(q, "refundable_amount")));
    assert_string_equal(ad_str(read_order(&trv_flight_supplier_b, &ad_up_b, ad_str(flex, "order_id")),
                               "status"), "CANCELED");
    assert_int_equal(trv_flight_supplier_b.cancel(&c, ad_str(noc, "order_id"), new_key("cancel"), &r,
                                                  &err), TRV_UP_REJECTED);
    assert_string_equal(err.code, "cancellation_rejected");
}

/* LiteAPI announces schedule changes by webhook; its booking read carries
 * the segments as they are now and no list of changes: the adapter reports
 * none, and the read still answers after the airline moved a flight. */
static void b_airline_initiated_change(void **state)
{
    json_t *order = booked(&trv_flight_supplier_b, &ad_up_b, "AMS", "CPH", "Standard", "Smith",
                           TRV_UP_OK), *read;
    const char *hdr[] = {"Content-Type: application/json", NULL};
    char path[256];
    e2e_resp *r;
    (void)state;
    snprintf(path, sizeof(path), "/sandbox/orders/%s/airline-initiated-changes",
             ad_str(order, "order_id"));
    r = e2e_call(e2e_sandbox_url(), "POST", path, hdr, "{\"delay_minutes\": 95}");
    assert_int_equal(r->status, 201);
    e2e_free(r);
    read = read_order(&trv_flight_supplier_b, &ad_up_b, ad_str(order, "order_id"));
    assert_string_equal(ad_str(read, "status"), "TICKETED");
    assert_int_equal(json_array_size(json_object_get(read, "airline_initiated_changes")), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(a_offers_have_the_service_shape, ad_setup, ad_teardown),
        cmocka_unit_test_setup_teardown(a_bags_and_prebook_price_services_and_member_price,
                                        ad_setup, ad_teardown),
        cmocka_unit_test_setup_teardown(a_book_tickets_once_per_key_and_once_per_offer, ad_setup,
                                        ad_teardown),
        cmocka_unit_test_setup_teardown(a_async_ticketing_finishes_later, ad_setup, ad_teardown),
        cmocka_unit_test_setup_teardown(a_failticket_fails_with_book_failed, ad_setup, ad_teardown),
        cmocka_unit_test_setup_teardown(a_unknown_times_out_yet_the_order_exists, ad_setup,
                                        ad_teardown),
        cmocka_unit_test_setup_teardown(a_quote_and_cancel, ad_setup, ad_teardown),
        cmocka_unit_test_setup_teardown(a_cancel_confirm_answer_lost_is_found_on_the_order,
                                        ad_setup, ad_teardown),
        cmocka_unit_test_setup_teardown(a_nocancel_is_rejected, ad_setup, ad_teardown),
        cmocka_unit_test_setup_teardown(a_airline_initiated_change, ad_setup, ad_teardown),
        cmocka_unit_test_setup_teardown(airlines_from_both_suppliers, ad_setup, ad_teardown),
        cmocka_unit_test_setup_teardown(a_wrong_key_is_refused, ad_setup, ad_teardown),
        cmocka_unit_test_setup_teardown(b_offers_and_bags, ad_setup, ad_teardown),
        cmocka_unit_test_setup_teardown(b_holds_far_flights_but_not_near_ones, ad_setup,
                                        ad_teardown),
        cmocka_unit_test_setup_teardown(b_book_collects_payment_and_is_idempotent, ad_setup,
                                        ad_teardown),
        cmocka_unit_test_setup_teardown(b_triggers, ad_setup, ad_teardown),
        cmocka_unit_test_setup_teardown(b_quotes_all_but_basic_and_cancels, ad_setup, ad_teardown),
        cmocka_unit_test_setup_teardown(b_airline_initiated_change, ad_setup, ad_teardown),
    };
    srand((unsigned)e2e_now_ms());
    return E2E_RUN("adapter_suppliers", tests);
}
