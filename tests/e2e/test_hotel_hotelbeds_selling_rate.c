/* Hotelbeds' net pricing model lets a hotel bind the seller to a minimum
 * price: a rate with hotelMandatory: true must not be sold below its
 * sellingRate (developer.hotelbeds.com, "Pricing models"). The sandbox's
 * SUPPLIER_B binds every rate of some hotels (its sellingRate above the
 * net). Through the gateway, over real HTTP: such a hotel's offers are
 * priced at the sellingRate and say so (rooms[].minimum_selling_price),
 * its search price is not the net minRate, and it is prebooked and booked
 * at that price; an unbound hotel's offers stay at the net. */
#include "hotel_e2e.h"
#include "hotel_wire_e2e.h"

static char *key;

static int setup(void **state)
{
    (void)state;
    key = e2e_new_org_key("hotel-hb-selling", NULL);
    return 0;
}

#define DAYS_IN 40
#define DAYS_OUT 42

/* The sandbox's own availability (its wire API, not the gateway) of
 * London for one room of 2 adults, every rate: the hotels. */
static json_t *wire_hotels(void)
{
    char body[1024], in[11], out[11];
    e2e_resp *r;
    json_t *hotels;
    snprintf(body, sizeof(body), "{\"stay\":{\"checkIn\":\"%s\",\"checkOut\":\"%s\"},"
             "\"occupancies\":[{\"rooms\":1,\"adults\":2,\"children\":0}],"
             "\"destination\":{\"code\":\"LHR\"},\"currency\":\"EUR\","
             "\"filter\":{\"maxRatesPerRoom\":50}}", hw_date(DAYS_IN, in),
             hw_date(DAYS_OUT, out));
    r = hw_must(hw_call('b', "POST", "/hotel-api/1.0/hotels", body), 200);
    hotels = json_incref(json_object_get(json_object_get(r->json, "hotels"), "hotels"));
    e2e_free(r);
    assert_true(json_array_size(hotels) > 0);
    return hotels;
}

/* Whether any rate of the wire hotel binds the seller. */
static int bound(const json_t *hotel)
{
    const json_t *room, *rate;
    size_t i, k;
    json_array_foreach(json_object_get(hotel, "rooms"), i, room) {
        json_array_foreach(json_object_get(room, "rates"), k, rate) {
            if (json_is_true(json_object_get(rate, "hotelMandatory"))) {
                return 1;
            }
        }
    }
    return 0;
}

static const json_t *wire_hotel(const json_t *hotels, int want_bound)
{
    const json_t *h;
    size_t i;
    json_array_foreach(hotels, i, h) {
        if (bound(h) == want_bound) {
            return h;
        }
    }
    fail_msg("no London hotel at SUPPLIER_B %s", want_bound ? "binds its price" : "is unbound");
    return NULL;
}

static const char *sid_of(const json_t *hotel, char *buf)
{
    sprintf(buf, "%lld", (long long)json_integer_value(json_object_get(hotel, "code")));
    return buf;
}

/* The hotel's wire rate of room code whose price is cents: its
 * sellingRate (bound) or its net (unbound); fails when there is none. */
static const json_t *wire_rate(const json_t *hotel, const char *code, long cents, int by_selling)
{
    const json_t *room, *rate;
    size_t i, k;
    json_array_foreach(json_object_get(hotel, "rooms"), i, room) {
        if (strcmp(fe_s(room, "code"), code) != 0) {
            continue;
        }
        json_array_foreach(json_object_get(room, "rates"), k, rate) {
            if (hw_cents(fe_s(rate, by_selling ? "sellingRate" : "net")) == cents) {
                return rate;
            }
        }
    }
    fail_msg("no wire rate of room %s at %ld cents (%s)", code, cents,
             by_selling ? "sellingRate" : "net");
    return NULL;
}

#define STAY "\"check_in\":\"%s\",\"check_out\":\"%s\",\"occupancy\":[{\"adults\":2}]," \
             "\"guest_nationality\":\"GB\",\"guest_residence\":\"GB\",\"currency\":\"EUR\""

/* Every offer of SUPPLIER_B's hotel sid for the stay (a new reference). */
static json_t *offers_of(const char *sid)
{
    char body[2048], stay[512];
    e2e_resp *r;
    json_t *offers;
    snprintf(stay, sizeof(stay), STAY, fe_date(DAYS_IN), fe_date(DAYS_OUT));
    snprintf(body, sizeof(body), "{\"supplier\":\"SUPPLIER_B\",\"supplier_hotel_ids\":[\"%s\"],"
             "%s,\"max_offers_per_hotel\":25}", sid, stay);
    r = he_post(key, NULL, "/v1/hotel/offers", body);
    fe_expect(r, 200, "hotel offers");
    offers = json_incref(fe_data(r));
    e2e_free(r);
    assert_true(json_array_size(offers) >= 1);
    return offers;
}

/* The offers of the first London hotel that binds its price (bound) or
 * not: a bound one's offers are each at a rate's sellingRate, above its
 * net, and name that price as the room's minimum, never at the net; an
 * unbound one's are at a rate's net, with no minimum. */
static void assert_offers_priced(int want_bound)
{
    json_t *hotels = wire_hotels(), *offers;
    const json_t *h = wire_hotel(hotels, want_bound), *o, *room, *rate;
    char sid[32];
    size_t i;
    offers = offers_of(sid_of(h, sid));
    json_array_foreach(offers, i, o) {
        long total = he_minor(json_object_get(o, "total"));
        assert_int_equal(json_array_size(json_object_get(o, "rooms")), 1);
        room = json_array_get(json_object_get(o, "rooms"), 0);
        assert_int_equal(he_minor(json_object_get(room, "total")), total);
        rate = wire_rate(h, fe_s(json_object_get(o, "room_type"), "code"), total, want_bound);
        if (!want_bound) {
            assert_true(json_is_null(json_object_get(room, "minimum_selling_price")));
            continue;
        }
        assert_true(json_is_true(json_object_get(rate, "hotelMandatory")));
        assert_true(hw_cents(fe_s(rate, "net")) < total);
        assert_int_equal(he_minor(json_object_get(room, "minimum_selling_price")), total);
        assert_string_equal(fe_s(json_object_get(room, "minimum_selling_price"), "currency"),
                            "EUR");
    }
    json_decref(offers);
    json_decref(hotels);
}

static void bound_offers_sell_at_the_hotels_price(void **state)
{
    (void)state;
    assert_offers_priced(1);
}

static void unbound_offers_sell_at_the_net(void **state)
{
    (void)state;
    assert_offers_priced(0);
}

/* The search's price of a bound hotel is not its minRate (the cheapest
 * net, below what the hotel allows) but a sellingRate of its rates. */
static void bound_search_price_is_not_below_the_hotels_price(void **state)
{
    json_t *hotels = wire_hotels(), *all;
    const json_t *h = wire_hotel(hotels, 1), *res, *room, *rate, *found = NULL;
    char sid[32], body[1024], stay[512];
    long min_selling = -1, price;
    size_t i, k;
    int pages, matched = 0;
    (void)state;
    sid_of(h, sid);
    json_array_foreach(json_object_get(h, "rooms"), i, room) {
        json_array_foreach(json_object_get(room, "rates"), k, rate) {
            long s = hw_cents(fe_s(rate, "sellingRate"));
            min_selling = min_selling < 0 || s < min_selling ? s : min_selling;
        }
    }
    /* The sandbox's minRate is the cheapest net, below every bound price. */
    assert_true(hw_cents(fe_s(h, "minRate")) < min_selling);
    snprintf(stay, sizeof(stay), STAY, fe_date(DAYS_IN), fe_date(DAYS_OUT));
    snprintf(body, sizeof(body), "{\"destination\":{\"city\":\"London\",\"country_code\":\"GB\"},"
             "%s,\"limit\":50,\"supplier\":\"SUPPLIER_B\"}", stay);
    all = he_search_all(key, body, 50, &pages);
    json_array_foreach(all, i, res) {
        if (strcmp(fe_s(res, "supplier_hotel_id"), sid) == 0) {
            found = res;
        }
    }
    assert_non_null(found);
    price = he_minor(json_object_get(json_object_get(found, "cheapest_price"), "total"));
    assert_true(price >= min_selling);
    json_array_foreach(json_object_get(h, "rooms"), i, room) {
        json_array_foreach(json_object_get(room, "rates"), k, rate) {
            matched = matched || hw_cents(fe_s(rate, "sellingRate")) == price;
        }
    }
    assert_true(matched);
    json_decref(all);
    json_decref(hotels);
}

/* Prebook and book a bound offer: the traveller is asked, and the booking
 * holds, the hotel's price, not the net Hotelbeds invoices. */
static void bound_offer_books_at_the_hotels_price(void **state)
{
    json_t *hotels = wire_hotels(), *offers, *booking;
    const json_t *h = wire_hotel(hotels, 1), *offer;
    char sid[32], ref[64];
    long total;
    (void)state;
    offers = offers_of(sid_of(h, sid));
    offer = json_array_get(offers, 0);
    total = he_minor(json_object_get(offer, "total"));
    assert_int_equal(he_minor(json_object_get(json_array_get(json_object_get(offer, "rooms"), 0),
                                              "minimum_selling_price")), total);
    snprintf(ref, sizeof(ref), "hb-selling-%ld", e2e_now_ms());
    /* Asked, prebooked and booked at the offer's (the hotel's) price. */
    booking = he_book_offer(key, offer, ref,
                            "[{\"guests\":[{\"first_name\":\"Ada\",\"last_name\":\"Lovelace\","
                            "\"type\":\"ADULT\",\"is_lead\":true},{\"first_name\":\"Bo\","
                            "\"last_name\":\"Lovelace\",\"type\":\"ADULT\",\"is_lead\":false}]}]");
    /* The sandbox booked the rate at its net: the difference is the
     * seller's, the hotel's price the traveller's. */
    {
        const char *p[1] = {fe_s(booking, "id")};
        char *net = e2e_sql_text("SELECT total_minor::text FROM sandbox.hotel_bookings "
                                 "WHERE supplier = 'B' AND client_reference LIKE $1 || '/%'",
                                 1, p);
        assert_non_null(net);
        assert_true(atol(net) < total);
        free(net);
    }
    json_decref(booking);
    json_decref(offers);
    json_decref(hotels);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bound_offers_sell_at_the_hotels_price),
        cmocka_unit_test(unbound_offers_sell_at_the_net),
        cmocka_unit_test(bound_search_price_is_not_below_the_hotels_price),
        cmocka_unit_test(bound_offer_books_at_the_hotels_price),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
