/* Hotelbeds (hotel SUPPLIER_B) prices a stay an occupancy group at a time:
 * one rate (rateKey, net) per group of identical rooms. Through the
 * gateway, over real HTTP: a stay of rooms with different occupancies is
 * searched, offered, prebooked and booked; each room's price is its
 * group's (its net, or the sellingRate a hotel binds the seller to, shared
 * among the group's rooms in cents, the remainder on the first), the
 * prices add up exactly to the offer's, prebook's and
 * booking's totals, and the sandbox was booked with one rateKey per
 * group (the record it keeps of each booking's rateKeys). */
#include "hotel_e2e.h"
#include "hotel_wire_e2e.h"

static char *key;

static int setup(void **state)
{
    (void)state;
    key = e2e_new_org_key("hotel-hb-groups", NULL);
    return 0;
}

/* The sandbox's own rates for the hotel and stay (its wire API, not the
 * gateway): the hotel's rooms. occ: Hotelbeds' occupancies JSON. */
static json_t *wire_rooms(const char *sid, const char *occ)
{
    char body[2048], in[11], out[11];
    e2e_resp *r;
    json_t *rooms;
    snprintf(body, sizeof(body), "{\"stay\":{\"checkIn\":\"%s\",\"checkOut\":\"%s\"},"
             "\"occupancies\":%s,\"hotels\":{\"hotel\":[%s]},\"currency\":\"EUR\","
             "\"filter\":{\"maxRatesPerRoom\":50}}", hw_date(40, in), hw_date(42, out), occ, sid);
    r = hw_must(hw_call('b', "POST", "/hotel-api/1.0/hotels", body), 200);
    rooms = json_incref(json_object_get(json_array_get(json_object_get(json_object_get(
        r->json, "hotels"), "hotels"), 0), "rooms"));
    e2e_free(r);
    assert_non_null(rooms);
    return rooms;
}

/* A wire rate's price to the traveller (cents): its net, or its
 * sellingRate when the hotel binds the seller to it (hotelMandatory) and it
 * is above the net. */
static long rate_cents(const json_t *rate)
{
    long net = hw_cents(fe_s(rate, "net")), sell;
    if (!json_is_true(json_object_get(rate, "hotelMandatory"))) {
        return net;
    }
    sell = hw_cents(fe_s(rate, "sellingRate"));
    return sell > net ? sell : net;
}

/* The price (cents, rate_cents) of the wire rate of room code for a group
 * (rooms, adults, children) whose board and class are those of like; with
 * like NULL, the first whose price is want. The rate found goes to
 * *found. */
static long group_price(const json_t *rooms, const char *code, int n, int adults, int children,
                      const json_t *like, long want, const json_t **found)
{
    const json_t *room, *rate;
    size_t i, k;
    json_array_foreach(rooms, i, room) {
        if (strcmp(fe_s(room, "code"), code) != 0) {
            continue;
        }
        json_array_foreach(json_object_get(room, "rates"), k, rate) {
            if (json_integer_value(json_object_get(rate, "rooms")) != n
                || json_integer_value(json_object_get(rate, "adults")) != adults
                || json_integer_value(json_object_get(rate, "children")) != children) {
                continue;
            }
            if (like ? (strcmp(fe_s(rate, "boardCode"), fe_s(like, "boardCode")) == 0
                        && strcmp(fe_s(rate, "rateClass"), fe_s(like, "rateClass")) == 0)
                     : rate_cents(rate) == want) {
                *found = rate;
                return rate_cents(rate);
            }
        }
    }
    fail_msg("no wire rate of %s for %d x %d+%d", code, n, adults, children);
    return -1;
}

/* Search, offers, prebook and book at SUPPLIER_B of a stay (occupancy:
 * the gateway's JSON, wire: the same as Hotelbeds' occupancies, rooms of
 * the prebook: guests JSON); returns the booking (new reference) and the
 * offer in *offer_out, having checked the totals add up exactly. */
static json_t *book_stay(const char *occupancy, const char *rooms_json, const char *tag,
                         json_t **offer_out)
{
    char stay[1024], body[8192];
    static int n;
    e2e_resp *r;
    json_t *offer, *booking, *room;
    const json_t *h;
    long sum = 0;
    size_t i;
    snprintf(stay, sizeof(stay), "\"check_in\":\"%s\",\"check_out\":\"%s\",\"occupancy\":%s,"
             "\"guest_nationality\":\"GB\",\"guest_residence\":\"GB\",\"currency\":\"EUR\"",
             fe_date(40), fe_date(42), occupancy);
    snprintf(body, sizeof(body), "{\"destination\":{\"city\":\"London\",\"country_code\":\"GB\"},"
             "%s,\"limit\":20,\"supplier\":\"SUPPLIER_B\"}", stay);
    r = he_post(key, NULL, "/v1/hotel/search", body);
    fe_expect(r, 200, "a hotel search");
    /* A hotel of its own per run, so runs side by side rarely share one. */
    h = json_array_get(fe_data(r), (size_t)((getpid() + n++) % json_array_size(fe_data(r))));
    assert_non_null(h);
    snprintf(body, sizeof(body), "{\"supplier\":\"SUPPLIER_B\",\"supplier_hotel_ids\":[\"%s\"],"
             "%s,\"max_offers_per_hotel\":1}", fe_s(h, "supplier_hotel_id"), stay);
    e2e_free(r);
    r = he_post(key, NULL, "/v1/hotel/offers", body);
    fe_expect(r, 200, "hotel offers");
    offer = json_deep_copy(json_array_get(fe_data(r), 0));
    e2e_free(r);
    assert_non_null(offer);
    json_array_foreach(json_object_get(offer, "rooms"), i, room) {
        sum += he_minor(json_object_get(room, "total"));
    }
    assert_int_equal(sum, he_minor(json_object_get(offer, "total")));
    booking = he_book_offer(key, offer, tag, rooms_json);
    *offer_out = offer;
    return booking;
}

/* The occupancy groups of the rateKeys the sandbox booked, as JSON text. */
static json_t *booked_keys(const json_t *booking)
{
    const char *p[1] = {fe_s(booking, "id")};
    char *s = e2e_sql_text("SELECT doc->'rate_keys' FROM sandbox.hotel_bookings "
                           "WHERE supplier = 'B' AND client_reference LIKE $1 || '/%'", 1, p);
    json_t *keys;
    assert_non_null(s);
    keys = json_loads(s, 0, NULL);
    free(s);
    assert_non_null(keys);
    return keys;
}

static void assert_key(const json_t *keys, size_t i, int rooms, int adults, int children)
{
    const json_t *k = json_array_get(keys, i);
    assert_non_null(k);
    assert_int_equal(json_integer_value(json_object_get(k, "rooms")), rooms);
    assert_int_equal(json_integer_value(json_object_get(k, "adults")), adults);
    assert_int_equal(json_integer_value(json_object_get(k, "children")), children);
}

/* 2 adults; 1 adult with a child of 5: two groups, two rateKeys, each
 * room priced at its group's net. */
static void two_occupancies_book_one_key_each(void **state)
{
    json_t *offer, *booking, *keys, *wire;
    const json_t *g0 = NULL, *g1 = NULL;
    long p0, p1;
    (void)state;
    booking = book_stay("[{\"adults\":2},{\"adults\":1,\"children\":[5]}]",
                        "[{\"guests\":[{\"first_name\":\"Ada\",\"last_name\":\"Lovelace\","
                        "\"type\":\"ADULT\",\"is_lead\":true},{\"first_name\":\"Bo\","
                        "\"last_name\":\"Lovelace\",\"type\":\"ADULT\",\"is_lead\":false}]},"
                        "{\"guests\":[{\"first_name\":\"Cy\",\"last_name\":\"Lovelace\","
                        "\"type\":\"ADULT\",\"is_lead\":true},{\"first_name\":\"Di\","
                        "\"last_name\":\"Lovelace\",\"type\":\"CHILD\",\"is_lead\":false}]}]",
                        "hb-two-groups", &offer);
    keys = booked_keys(booking);
    assert_int_equal(json_array_size(keys), 2);
    assert_key(keys, 0, 1, 2, 0);
    assert_key(keys, 1, 1, 1, 1);
    /* Each room's price is its own group's at the sandbox. */
    wire = wire_rooms(fe_s(offer, "supplier_hotel_id"),
                      "[{\"rooms\":1,\"adults\":2,\"children\":0},{\"rooms\":1,\"adults\":1,"
                      "\"children\":1,\"paxes\":[{\"type\":\"CH\",\"age\":5}]}]");
    p0 = he_minor(json_object_get(json_array_get(json_object_get(offer, "rooms"), 0), "total"));
    p1 = he_minor(json_object_get(json_array_get(json_object_get(offer, "rooms"), 1), "total"));
    group_price(wire, fe_s(json_object_get(offer, "room_type"), "code"), 1, 2, 0, NULL, p0, &g0);
    assert_int_equal(group_price(wire, fe_s(json_object_get(offer, "room_type"), "code"), 1, 1, 1,
                               g0, 0, &g1), p1);
    json_decref(wire);
    json_decref(keys);
    json_decref(booking);
    json_decref(offer);
}

/* 2 adults twice and 1 adult with a child: the two identical rooms are
 * one group (one rateKey, rooms 2) whose net they share in cents, the odd
 * cent on the first. */
static void identical_rooms_share_their_groups_net(void **state)
{
    json_t *offer, *booking, *keys, *wire;
    const json_t *rooms, *g0 = NULL;
    long p0, p1, p2, price;
    (void)state;
    booking = book_stay("[{\"adults\":2},{\"adults\":2},{\"adults\":1,\"children\":[5]}]",
                        "[{\"guests\":[{\"first_name\":\"Ada\",\"last_name\":\"Lovelace\","
                        "\"type\":\"ADULT\",\"is_lead\":true},{\"first_name\":\"Bo\","
                        "\"last_name\":\"Lovelace\",\"type\":\"ADULT\",\"is_lead\":false}]},"
                        "{\"guests\":[{\"first_name\":\"Ed\",\"last_name\":\"Lovelace\","
                        "\"type\":\"ADULT\",\"is_lead\":true},{\"first_name\":\"Flo\","
                        "\"last_name\":\"Lovelace\",\"type\":\"ADULT\",\"is_lead\":false}]},"
                        "{\"guests\":[{\"first_name\":\"Cy\",\"last_name\":\"Lovelace\","
                        "\"type\":\"ADULT\",\"is_lead\":true},{\"first_name\":\"Di\","
                        "\"last_name\":\"Lovelace\",\"type\":\"CHILD\",\"is_lead\":false}]}]",
                        "hb-three-rooms", &offer);
    keys = booked_keys(booking);
    assert_int_equal(json_array_size(keys), 2);
    assert_key(keys, 0, 2, 2, 0);
    assert_key(keys, 1, 1, 1, 1);
    rooms = json_object_get(offer, "rooms");
    p0 = he_minor(json_object_get(json_array_get(rooms, 0), "total"));
    p1 = he_minor(json_object_get(json_array_get(rooms, 1), "total"));
    p2 = he_minor(json_object_get(json_array_get(rooms, 2), "total"));
    assert_true(p0 - p1 >= 0 && p0 - p1 <= 1);
    wire = wire_rooms(fe_s(offer, "supplier_hotel_id"),
                      "[{\"rooms\":2,\"adults\":2,\"children\":0},{\"rooms\":1,\"adults\":1,"
                      "\"children\":1,\"paxes\":[{\"type\":\"CH\",\"age\":5}]}]");
    price = group_price(wire, fe_s(json_object_get(offer, "room_type"), "code"), 2, 2, 0, NULL,
                    p0 + p1, &g0);
    assert_int_equal(p0, price / 2 + price % 2);
    assert_int_equal(p0 + p1 + p2, he_minor(json_object_get(booking, "total")));
    json_decref(wire);
    json_decref(keys);
    json_decref(booking);
    json_decref(offer);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(two_occupancies_book_one_key_each),
        cmocka_unit_test(identical_rooms_share_their_groups_net),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
