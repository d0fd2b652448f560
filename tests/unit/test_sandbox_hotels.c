/* The sandbox's hotel world on the real OpenFlights data: the catalogue
 * covers the busiest cities, places every hotel near its city's airports
 * (checked against a centre computed here from the world), gives the big
 * five cities enough hotels with every supplier to page, sells many
 * hotels through two or three suppliers under ids that map back, and is
 * the same on every build. Rates are deterministic, plausible and
 * consistent (promotions in the total, non-refundable cheaper, penalties
 * by deadline), follow the price factor, and their signed tokens refuse
 * any edit. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <apr_general.h>
#include <apr_strings.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "core/dispatch.h"
#include "core/router.h"
#include "sandbox/sandbox.h"
#include "sandbox/hotel/rates.h"
#include "sandbox/token.h"

static apr_pool_t *pool;
static const sbx_world *w;
static sbx_hotels *h;

static int setup(void **state)
{
    const char *err = NULL, *dir = getenv("TRAVEL_TEST_DATA");
    (void)state;
    apr_initialize();
    apr_pool_create(&pool, NULL);
    w = sbx_world_load(pool, dir ? dir : "data/openflights", "/usr/share/zoneinfo", &err);
    if (!w || !(h = sbx_hotels_build(pool, w, &err))) {
        fprintf(stderr, "world: %s\n", err);
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    apr_pool_destroy(pool);
    return 0;
}

static int city_of(const char *name, const char *cc)
{
    int c = sbx_hcity_find(h, name, cc);
    if (c < 0) {
        fail_msg("no city %s %s", name, cc);
    }
    return c;
}

/* The centre of a city's airports, from the world's own arrays: the mean
 * of the airports of that city and country that have routes. */
static void airports_centre(const sbx_hcity *c, double *lat, double *lon)
{
    int a, n = 0;
    *lat = *lon = 0;
    for (a = 0; a < w->n_airports; a++) {
        int b, e;
        sbx_routes_from(w, a, &b, &e);
        if (e > b && w->airports[a].city && strcmp(w->airports[a].city, c->name) == 0
            && strcmp(w->airports[a].country_code, c->country_code) == 0) {
            *lat += w->airports[a].lat;
            *lon += w->airports[a].lon;
            n++;
        }
    }
    assert_true(n > 0);
    *lat /= n;
    *lon /= n;
}

static void hotels_stand_near_the_airports_of_300_cities(void **state)
{
    int c, i;
    (void)state;
    assert_true(h->n_cities >= 300);
    for (c = 0; c < h->n_cities; c++) {
        double lat, lon;
        assert_true(h->cities[c].n >= 10);
        airports_centre(&h->cities[c], &lat, &lon);
        for (i = h->cities[c].first; i < h->cities[c].first + h->cities[c].n; i++) {
            double km = sbx_distance_km(h->hotels[i].lat, h->hotels[i].lon, lat, lon);
            if (km > 15.0) {
                fail_msg("%s is %.1f km from %s's airports", h->hotels[i].name, km,
                         h->cities[c].name);
            }
            assert_int_equal(h->hotels[i].city, c);
        }
    }
    /* Ranked by routes: the busiest first. */
    for (c = 1; c < h->n_cities; c++) {
        assert_true(h->cities[c - 1].routes >= h->cities[c].routes);
    }
}

static void the_big_five_page_with_every_supplier(void **state)
{
    static const char *const big[][2] = {{"London", "GB"}, {"Paris", "FR"}, {"New York", "US"},
                                         {"Tokyo", "JP"}, {"Berlin", "DE"}};
    size_t b;
    (void)state;
    for (b = 0; b < 5; b++) {
        const sbx_hcity *c = &h->cities[city_of(big[b][0], big[b][1])];
        int s, i;
        for (s = 0; s < SBX_HOTEL_SUPPLIERS; s++) {
            int n = 0;
            for (i = c->first; i < c->first + c->n; i++) {
                n += (h->hotels[i].suppliers >> s) & 1;
            }
            if (n < 30) {
                fail_msg("%s has %d hotels at supplier %d", c->name, n, s);
            }
        }
    }
}

static void many_hotels_have_two_or_three_suppliers(void **state)
{
    int i, multi = 0, three = 0;
    (void)state;
    for (i = 0; i < h->n_hotels; i++) {
        int n = __builtin_popcount(h->hotels[i].suppliers);
        assert_true(n >= 1 && n <= 3);
        multi += n >= 2;
        three += n == 3;
    }
    assert_true(multi * 2 > h->n_hotels);
    assert_true(three * 5 > h->n_hotels);
}

static void supplier_ids_map_back_and_differ(void **state)
{
    int i, s;
    (void)state;
    for (i = 0; i < h->n_hotels; i++) {
        for (s = 0; s < SBX_HOTEL_SUPPLIERS; s++) {
            char *sid = sbx_hotel_sid(pool, s, i);
            if (h->hotels[i].suppliers & (1u << s)) {
                assert_int_equal(sbx_hotel_by_sid(h, s, sid), i);
            }
            else {
                assert_int_equal(sbx_hotel_by_sid(h, s, sid), -1);
            }
        }
        /* Each supplier has its own id for the hotel. */
        assert_string_not_equal(sbx_hotel_sid(pool, 1, i), sbx_hotel_sid(pool, 2, i));
    }
    assert_int_equal(sbx_hotel_by_sid(h, 0, "lp"), -1);
    assert_int_equal(sbx_hotel_by_sid(h, 0, "lpzzzzzz"), -1);
    assert_int_equal(sbx_hotel_by_sid(h, 1, "-5"), -1);
    assert_int_equal(sbx_hotel_by_sid(h, 1, "12"), -1);
    assert_int_equal(sbx_hotel_by_sid(h, 2, "99999999999999"), -1);
    assert_int_equal(sbx_hotel_by_sid(h, 2, NULL), -1);
}

static void names_are_unique_in_a_city_and_builds_agree(void **state)
{
    const char *err = NULL;
    sbx_hotels *again = sbx_hotels_build(pool, w, &err);
    int c, i, j;
    (void)state;
    assert_non_null(again);
    assert_int_equal(again->n_hotels, h->n_hotels);
    for (i = 0; i < h->n_hotels; i++) {
        assert_string_equal(again->hotels[i].name, h->hotels[i].name);
        assert_true(again->hotels[i].lat == h->hotels[i].lat);
        assert_int_equal(again->hotels[i].suppliers, h->hotels[i].suppliers);
        assert_int_equal(again->hotels[i].giata, h->hotels[i].giata);
    }
    for (c = 0; c < h->n_cities; c++) {
        for (i = h->cities[c].first; i < h->cities[c].first + h->cities[c].n; i++) {
            for (j = i + 1; j < h->cities[c].first + h->cities[c].n; j++) {
                assert_string_not_equal(h->hotels[i].name, h->hotels[j].name);
            }
        }
    }
}

static sbx_hquote stay(int hotel, long ahead, int nights, const char *cur)
{
    sbx_hquote q;
    memset(&q, 0, sizeof(q));
    q.hotel = hotel;
    q.supplier = __builtin_ctz(h->hotels[hotel].suppliers);
    q.today = trv_days_from_civil(2026, 3, 2);
    q.checkin = q.today + ahead;
    q.nights = nights;
    q.n_rooms = 2;
    q.occ[0].adults = 2;
    q.occ[1].adults = 1;
    q.occ[1].n_children = 2;
    q.occ[1].ages[0] = 4;
    q.occ[1].ages[1] = 9;
    memcpy(q.currency, cur, 4);
    q.factor_permille = 1000;
    return q;
}

static void rates_are_deterministic_and_consistent(void **state)
{
    sbx_hquote q = stay(city_of("Paris", "FR") >= 0 ? h->cities[city_of("Paris", "FR")].first : 0,
                        30, 4, "EUR");
    sbx_hquote r1[64], r2[64];
    sbx_hprice p[SBX_MAX_HROOMS];
    apr_int64_t now = (apr_int64_t)q.today * 86400 + 3600;
    int n1, n2, i, k, nrf_seen = 0;
    (void)state;
    n1 = sbx_hotel_rates(h, w, &q, now, r1, 64);
    n2 = sbx_hotel_rates(h, w, &q, now, r2, 64);
    assert_true(n1 > 0);
    assert_int_equal(n1, n2);
    for (i = 0; i < n1; i++) {
        apr_int64_t sum = 0;
        assert_int_equal(r1[i].total, r2[i].total);
        assert_int_equal(r1[i].room, r2[i].room);
        if (i) {
            assert_true(r1[i - 1].total <= r1[i].total);   /* cheapest first */
        }
        assert_int_equal(sbx_hquote_price(h, w, &r1[i], now, p), r1[i].total);
        for (k = 0; k < q.n_rooms; k++) {
            apr_int64_t nights = 0;
            int n;
            assert_true(sbx_room_fits(r1[i].room, &q.occ[k]));
            for (n = 0; n < q.nights; n++) {
                assert_true(p[k].nightly[n] > 0);
                nights += p[k].nightly[n];
            }
            assert_int_equal(nights, p[k].gross);
            assert_int_equal(p[k].total, p[k].gross - p[k].discount);
            assert_true(p[k].vat > 0 && p[k].vat < p[k].total);
            /* Paris charges a city tax at the hotel, per adult and night. */
            assert_true(p[k].due_at_property > 0);
            if (r1[i].plan == SBX_PLAN_REFUNDABLE) {
                assert_true(p[k].refundable);
                assert_true(p[k].deadline < (apr_int64_t)q.checkin * 86400);
                assert_int_equal(sbx_hprice_fee(&p[k], p[k].deadline - 1), 0);
                assert_true(sbx_hprice_fee(&p[k], p[k].deadline) > 0);
                assert_true(sbx_hprice_fee(&p[k], p[k].deadline) < p[k].total);
                assert_int_equal(sbx_hprice_fee(&p[k], (apr_int64_t)(q.checkin + 1) * 86400),
                                 p[k].total);
            }
            else {
                assert_false(p[k].refundable);
                assert_int_equal(sbx_hprice_fee(&p[k], now), p[k].total);
            }
            sum += p[k].total;
        }
        assert_int_equal(sum, r1[i].total);
        if (r1[i].plan == SBX_PLAN_NONREFUNDABLE) {
            /* The same room and board, refundable, costs more. */
            for (k = 0; k < n1; k++) {
                if (r1[k].room == r1[i].room && r1[k].board == r1[i].board
                    && r1[k].plan == SBX_PLAN_REFUNDABLE) {
                    assert_true(r1[k].total > r1[i].total);
                    nrf_seen++;
                }
            }
        }
    }
    (void)nrf_seen;
}

static void prices_follow_stay_currency_and_factor(void **state)
{
    int hotel = h->cities[city_of("London", "GB")].first + 3;
    sbx_hquote q = stay(hotel, 20, 3, "EUR"), d, j;
    sbx_hprice p[SBX_MAX_HROOMS];
    apr_int64_t base, doubled;
    (void)state;
    q.room = 0;
    q.board = 0;
    base = sbx_hquote_price(h, w, &q, 0, p);
    d = q;
    d.factor_permille = 2000;
    doubled = sbx_hquote_price(h, w, &d, 0, p);
    /* Each night is converted once: at most a unit per night off 2x. */
    assert_true(doubled >= 2 * base - 6 && doubled <= 2 * base + 6);
    /* Breakfast costs more than room only; a longer stay more. */
    d = q;
    d.board = 1;
    assert_true(sbx_hquote_price(h, w, &d, 0, p) > base);
    d = q;
    d.nights = 6;
    assert_true(sbx_hquote_price(h, w, &d, 0, p) > base);
    /* Yen have no minor unit and are worth about 1/160 EUR. */
    j = q;
    memcpy(j.currency, "JPY", 4);
    assert_true(sbx_hquote_price(h, w, &j, 0, p) > base * 150 / 100);
    assert_true(sbx_hquote_price(h, w, &j, 0, p) < base * 170 / 100);
}

static void tokens_refuse_any_edit(void **state)
{
    sbx_hquote q = stay(h->cities[0].first, 10, 2, "USD"), back;
    char *t, *bad;
    size_t i;
    (void)state;
    q.total = 12345;
    q.expires = 1800000000;
    t = sbx_hquote_encode(pool, &q, "r", "key-1");
    assert_int_equal(sbx_hquote_decode(pool, t, "r", "key-1", h, &back), 0);
    assert_int_equal(back.hotel, q.hotel);
    assert_int_equal(back.total, 12345);
    assert_int_equal(back.n_rooms, 2);
    assert_int_equal(back.occ[1].n_children, 2);
    assert_int_equal(back.occ[1].ages[1], 9);
    assert_string_equal(back.currency, "USD");
    assert_int_equal(sbx_hquote_decode(pool, t, "p", "key-1", h, &back), -1);
    assert_int_equal(sbx_hquote_decode(pool, t, "r", "key-2", h, &back), -1);
    /* The last character may carry unused bits: every other one counts. */
    for (i = 0; i + 1 < strlen(t); i += 7) {
        bad = apr_pstrdup(pool, t);
        bad[i] = bad[i] == 'A' ? 'B' : 'A';
        assert_int_equal(sbx_hquote_decode(pool, bad, "r", "key-1", h, &back), -1);
    }
    assert_int_equal(sbx_hquote_decode(pool, NULL, "r", "key-1", h, &back), -1);
}

/* The sealed text, field by field as the decoder splits it (written
 * without a format string: the same text as one). */
static void a_token_holds_the_quote_as_text(void **state)
{
    sbx_hquote q = stay(h->cities[0].first, 10, 2, "USD");
    (void)state;
    q.total = 12345;
    q.expires = 1800000000;
    q.factor_permille = 1100;
    assert_string_equal(sbx_token_open(pool, "key-1", sbx_hquote_encode(pool, &q, "r", "key-1")),
                        apr_psprintf(pool, "h1|r|%d|%d|%d|%d|%d|%ld|%d|%ld|USD|1100|12345|1800000000|%s;%s",
                                     q.supplier, q.hotel, q.room, q.board, q.plan, q.checkin,
                                     q.nights, q.today, sbx_occ_format(pool, &q.occ[0]),
                                     sbx_occ_format(pool, &q.occ[1])));
    assert_string_equal(sbx_occ_format(pool, &q.occ[1]), "1-4,9");
    q.serial = 4000000000u;
    q.n_rooms = 1;
    q.total = -7;
    assert_string_equal(sbx_token_open(pool, "key-1", sbx_hquote_encode(pool, &q, "p", "key-1")),
                        apr_psprintf(pool, "h1|p|%d|%d|%d|%d|%d|%ld|%d|%ld|USD|1100|-7|1800000000|%s|4000000000",
                                     q.supplier, q.hotel, q.room, q.board, q.plan, q.checkin,
                                     q.nights, q.today, sbx_occ_format(pool, &q.occ[0])));
}

/* A token signed with the key holds only what the sandbox signs: one that
 * names a day, amount, factor, supplier, plan, currency or room outside
 * that is refused before anything prices or prints it (fuzz_sandbox_hotel
 * found a check-in of 2^63 days overflowing the calendar). */
static void tokens_hold_only_what_the_sandbox_signs(void **state)
{
    /* Field 2 (supplier) to 14 (occupancies) of a token, in order; each
     * bad case changes one field of a good token. */
    static const struct {
        int field;
        const char *value;
    } bad[] = {
        {2, "7"}, {6, "5"}, {7, "99999999999999999999"}, {7, "-3"},
        {9, "-5"}, {9, "9223372036854775807"}, {10, "ZZZ"}, {11, "2147483647"},
        {11, "99"}, {12, "-100"}, {12, "9223372036854775807"}, {13, "-1"},
        {13, "9223372036854775807"}, {14, "0"}, {14, "2-18"},
    };
    sbx_hquote q = stay(h->cities[0].first, 10, 2, "EUR"), back;
    const char *f[15];
    size_t i;
    int k;
    (void)state;
    f[0] = "h1";
    f[1] = "r";
    f[2] = apr_itoa(pool, q.supplier);
    f[3] = apr_itoa(pool, q.hotel);
    f[4] = f[5] = f[6] = "0";
    f[7] = apr_ltoa(pool, q.checkin);
    f[8] = "2";
    f[9] = apr_ltoa(pool, q.today);
    f[10] = "EUR";
    f[11] = "1000";
    f[12] = "100";
    f[13] = "1800000000";
    f[14] = "2;1-4,9";
    for (i = 0; i <= sizeof(bad) / sizeof(bad[0]); i++) {
        const char *text = "", *saved = NULL;
        if (i) {
            saved = f[bad[i - 1].field];
            f[bad[i - 1].field] = bad[i - 1].value;
        }
        for (k = 0; k < 15; k++) {
            text = apr_pstrcat(pool, text, k ? "|" : "", f[k], NULL);
        }
        /* The good token (i == 0) decodes; each edited one is refused. */
        assert_int_equal(sbx_hquote_decode(pool, sbx_token_seal(pool, "key-1", text), "r",
                                           "key-1", h, &back), i ? -1 : 0);
        if (i) {
            f[bad[i - 1].field] = saved;
        }
    }
}

/* GET /hotels/c/v3/properties/content?language=en-US&supply_source=expedia
 * &country_code=GB&limit=7
 * with a page token carrying payload, through the real handler; the
 * status, and *n the properties on the page. */
static int content_page(const char *payload, size_t *n)
{
    static sbx_settings set;
    static sbx_ctx x;
    trv_router *rt = trv_router_make(pool);
    trv_req req;
    trv_resp resp;
    apr_pool_t *p;
    int status;
    apr_pool_create(&p, pool);
    set.key_hc = "key-c";
    x.set = &set;
    x.world = w;
    x.hotels = h;
    trv_router_add(rt, sbx_hotel_c_routes);
    memset(&req, 0, sizeof(req));
    memset(&resp, 0, sizeof(resp));
    req.pool = p;
    req.method = "GET";
    req.path = "/hotels/c/v3/properties/content";
    req.query = apr_table_make(p, 4);
    apr_table_setn(req.query, "language", "en-US");
    apr_table_setn(req.query, "supply_source", "expedia");
    apr_table_setn(req.query, "country_code", "GB");
    apr_table_setn(req.query, "limit", "7");
    apr_table_setn(req.query, "token", sbx_token_seal(p, "key-c", payload));
    req.headers = apr_table_make(p, 1);
    req.request_id = "req_test";
    req.env = &x.env;
    resp.headers = apr_table_make(p, 1);
    trv_dispatch(rt, NULL, &req, &resp);
    status = resp.status;
    *n = 0;
    if (status == 200) {
        const char *body = trv_resp_body(p, &resp);
        json_t *doc = json_loads(body, 0, NULL);
        *n = json_object_size(doc);
        json_decref(doc);
    }
    apr_pool_destroy(p);
    return status;
}

/* A content page token is signed, but its offset is read as if it were
 * not (fuzz_sandbox_hotel: a negative offset indexed before the hotels, one
 * near INT_MAX overflowed offset + limit). */
static void content_pages_take_offsets_within_the_catalogue(void **state)
{
    size_t n, first;
    (void)state;
    assert_int_equal(content_page("content|0", &first), 200);
    assert_int_equal(first, 7);
    assert_int_equal(content_page("content|7", &n), 200);
    assert_int_equal(n, 7);
    assert_int_equal(content_page("content|100000", &n), 422);
    assert_int_equal(content_page("content|-7", &n), 422);
    assert_int_equal(content_page("content|2147483647", &n), 422);
    assert_int_equal(content_page("content|99999999999999999999", &n), 422);
    assert_int_equal(content_page("content|7x", &n), 422);
}

static void occupancies_parse_rapid_style(void **state)
{
    sbx_occ o;
    static const char *const bad[] = {"", "2-", "a", "2-5,", "2-1,2,3,4,5", "2x", "-3", "123"};
    size_t i;
    (void)state;
    assert_int_equal(sbx_occ_parse("2-5,7", &o), 0);
    assert_int_equal(o.adults, 2);
    assert_int_equal(o.n_children, 2);
    assert_string_equal(sbx_occ_format(pool, &o), "2-5,7");
    assert_int_equal(sbx_occ_parse("1", &o), 0);
    assert_string_equal(sbx_occ_format(pool, &o), "1");
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        if (sbx_occ_parse(bad[i], &o) == 0) {
            fail_msg("%s parsed", bad[i]);
        }
    }
    /* Rooms by size: a single takes one adult; a family room four. */
    o.adults = 4;
    o.n_children = 0;
    assert_false(sbx_room_fits(0, &o));
    assert_true(sbx_room_fits(4, &o));
    o.adults = 2;
    assert_false(sbx_room_fits(6, &o));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hotels_stand_near_the_airports_of_300_cities),
        cmocka_unit_test(the_big_five_page_with_every_supplier),
        cmocka_unit_test(many_hotels_have_two_or_three_suppliers),
        cmocka_unit_test(supplier_ids_map_back_and_differ),
        cmocka_unit_test(names_are_unique_in_a_city_and_builds_agree),
        cmocka_unit_test(rates_are_deterministic_and_consistent),
        cmocka_unit_test(prices_follow_stay_currency_and_factor),
        cmocka_unit_test(tokens_refuse_any_edit),
        cmocka_unit_test(a_token_holds_the_quote_as_text),
        cmocka_unit_test(tokens_hold_only_what_the_sandbox_signs),
        cmocka_unit_test(content_pages_take_offsets_within_the_catalogue),
        cmocka_unit_test(occupancies_parse_rapid_style),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
