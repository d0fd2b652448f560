/* The sandbox's world and offers, on the real OpenFlights data in
 * data/openflights: timetables only on routes the file lists, flown by
 * its carriers, with local times that agree with the airports' zones;
 * one-stop connections through real hubs where no direct route exists;
 * deterministic and dated fares; offer references that rebuild the same
 * offer and refuse any edit. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <apr_general.h>
#include <apr_strings.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "sandbox/air/offers.h"

static apr_pool_t *pool;
static const sbx_world *w;

static int setup(void **state)
{
    const char *err = NULL, *dir = getenv("TRAVEL_TEST_DATA");
    (void)state;
    apr_initialize();
    apr_pool_create(&pool, NULL);
    w = sbx_world_load(pool, dir ? dir : "data/openflights", "/usr/share/zoneinfo", &err);
    if (!w) {
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

static long day_of(int y, int m, int d)
{
    return trv_days_from_civil(y, m, d);
}

/* Whether routes.dat (as loaded) has airline al flying from -> to. */
static int route_listed(int from, int to, int al, int *codeshare)
{
    int b, e, i;
    sbx_routes_from(w, from, &b, &e);
    for (i = b; i < e; i++) {
        if (w->routes[i].to == to && w->routes[i].airline == al) {
            if (codeshare) {
                *codeshare = w->routes[i].codeshare;
            }
            return 1;
        }
    }
    return 0;
}

static void the_data_is_loaded(void **state)
{
    int lhr = sbx_airport_find(w, "LHR"), ba = sbx_airline_find(w, "BA");
    (void)state;
    assert_true(w->n_airports > 5000);
    assert_true(w->n_routes > 50000);
    assert_true(w->n_zones > 250);
    assert_true(lhr >= 0);
    assert_string_equal(w->airports[lhr].tz_name, "Europe/London");
    assert_string_equal(w->airports[lhr].country_code, "GB");
    assert_string_equal(w->airports[sbx_airport_find(w, "jfk")].city, "New York");
    assert_true(ba >= 0);
    assert_string_equal(w->airlines[ba].name, "British Airways");
    assert_string_equal(w->airlines[ba].alliance, "oneworld");
    assert_true(w->airlines[ba].active);
    assert_int_equal(sbx_airport_find(w, "XQX"), -1);
    assert_int_equal(sbx_airline_find(w, "9Z"), -1);
}

static void direct_flights_follow_the_route_file(void **state)
{
    sbx_itin it[SBX_MAX_ITINS];
    int lhr = sbx_airport_find(w, "LHR"), jfk = sbx_airport_find(w, "JFK");
    int n = sbx_itineraries(w, lhr, jfk, day_of(2026, 3, 8), it, SBX_MAX_ITINS), i;
    (void)state;
    assert_true(n > 3);
    for (i = 0; i < n; i++) {
        const sbx_leg *l = &it[i].legs[0];
        int cs = 1;
        apr_int64_t dep_min = (l->dep_local % 86400) / 60;
        assert_int_equal(it[i].n, 1);
        assert_int_equal(l->from, lhr);
        assert_int_equal(l->to, jfk);
        /* The operating carrier flies the route itself ... */
        assert_true(route_listed(lhr, jfk, l->op, &cs));
        assert_false(cs);
        /* ... and a different marketing carrier is a listed codesharer. */
        if (l->mkt != l->op) {
            assert_true(route_listed(lhr, jfk, l->mkt, &cs));
            assert_true(cs);
        }
        assert_true(dep_min >= 6 * 60 && dep_min <= 22 * 60 + 30);
        assert_int_equal(l->arr_utc - l->dep_utc, (apr_int64_t)l->block_min * 60);
        /* London is on GMT and New York switches to EDT at 07:00 UTC. */
        assert_true(l->dep_local - l->dep_utc == 0);
        assert_true(l->arr_local - l->arr_utc
                    == (l->arr_utc >= 1772953200 ? -4 * 3600 : -5 * 3600));
    }
    /* Ordered by departure. */
    for (i = 1; i < n; i++) {
        assert_true(it[i].legs[0].dep_utc >= it[i - 1].legs[0].dep_utc);
    }
}

static void connections_through_real_hubs(void **state)
{
    sbx_itin it[SBX_MAX_ITINS];
    int gka = sbx_airport_find(w, "GKA"), syd = sbx_airport_find(w, "SYD");
    int n = sbx_itineraries(w, gka, syd, day_of(2026, 12, 10), it, SBX_MAX_ITINS), i;
    (void)state;
    assert_false(route_listed(gka, syd, sbx_airline_find(w, "PX"), NULL));
    assert_true(n > 0);
    for (i = 0; i < n; i++) {
        const sbx_leg *a = &it[i].legs[0], *b = &it[i].legs[1];
        assert_int_equal(it[i].n, 2);
        assert_int_equal(a->from, gka);
        assert_int_equal(b->to, syd);
        assert_int_equal(a->to, b->from);
        assert_true(route_listed(a->from, a->to, a->op, NULL));
        assert_true(route_listed(b->from, b->to, b->op, NULL));
        assert_true(b->dep_utc - a->arr_utc >= SBX_MIN_CONNECT * 60);
        assert_true(b->dep_utc - a->arr_utc <= SBX_MAX_CONNECT * 60);
    }
    /* Nowhere to fly: an airport without routes. */
    assert_int_equal(sbx_itineraries(w, sbx_airport_find(w, "BER"), syd, day_of(2026, 12, 10),
                                     it, SBX_MAX_ITINS), 0);
}

static sbx_search one_way(const char *from, const char *to, long day, int cabin)
{
    sbx_search q;
    memset(&q, 0, sizeof(q));
    q.nj = 1;
    q.j[0].origin = sbx_airport_find(w, from);
    q.j[0].dest = sbx_airport_find(w, to);
    q.j[0].day = day;
    q.adults = 1;
    q.cabin = cabin;
    return q;
}

static apr_int64_t cheapest(const sbx_search *q, apr_int64_t now)
{
    sbx_offer *o;
    int t, n = sbx_search_run(pool, w, q, 'A', "k", now, 1800, 100, 1, &o, &t);
    if (n == 0) {
        return -1;
    }
    return o[0].base + o[0].tax;
}

static void fares_are_deterministic_and_dated(void **state)
{
    apr_int64_t now = (apr_int64_t)day_of(2026, 1, 10) * 86400 + 3600;
    sbx_search q = one_way("ZRH", "SFO", day_of(2026, 3, 20), SBX_ECONOMY);
    apr_int64_t e, pe, b, f, later;
    (void)state;
    e = cheapest(&q, now);
    assert_true(e > 0);
    assert_true(cheapest(&q, now) == e); /* the same search, the same price */
    q.cabin = SBX_PREMIUM_ECONOMY;
    pe = cheapest(&q, now);
    q.cabin = SBX_BUSINESS;
    b = cheapest(&q, now);
    q.cabin = SBX_FIRST;
    f = cheapest(&q, now);
    assert_true(e < pe && pe < b && b < f);
    /* The same flight bought three days before departure costs more. */
    q.cabin = SBX_ECONOMY;
    later = cheapest(&q, (apr_int64_t)day_of(2026, 3, 17) * 86400);
    assert_true(later > e);
}

static void search_limits_and_references(void **state)
{
    apr_int64_t now = (apr_int64_t)day_of(2026, 1, 10) * 86400;
    sbx_search q = one_way("LHR", "JFK", day_of(2026, 2, 20), SBX_ECONOMY);
    sbx_offer *o, d;
    int t, n, i;
    char *bad;
    (void)state;
    n = sbx_search_run(pool, w, &q, 'A', "key-a", now, 1800, 5, 42, &o, &t);
    assert_int_equal(n, 5);
    assert_true(t);
    for (i = 1; i < n; i++) {
        assert_true(o[i].base + o[i].tax >= o[i - 1].base + o[i - 1].tax);
    }
    assert_string_equal(o[0].currency, "GBP");
    assert_int_equal(o[0].expires, now + 1800);
    /* The reference rebuilds the same offer and price. */
    assert_int_equal(sbx_offer_decode(pool, w, o[2].ref, 'A', "key-a", now + 60, &d), 0);
    assert_true(d.base == o[2].base && d.tax == o[2].tax && d.brand == o[2].brand);
    assert_true(d.it[0].legs[0].dep_utc == o[2].it[0].legs[0].dep_utc);
    assert_int_equal(d.it[0].legs[0].flight_no, o[2].it[0].legs[0].flight_no);
    assert_string_equal(d.tag, o[2].tag);
    /* Another supplier's key, another supplier, or one edited character: refused. */
    assert_int_equal(sbx_offer_decode(pool, w, o[2].ref, 'A', "key-b", now, &d), -1);
    assert_int_equal(sbx_offer_decode(pool, w, o[2].ref, 'B', "key-a", now, &d), -1);
    bad = strdup(o[2].ref);
    bad[10] = bad[10] == 'A' ? 'B' : 'A';
    assert_int_equal(sbx_offer_decode(pool, w, bad, 'A', "key-a", now, &d), -1);
    free(bad);
    assert_int_equal(sbx_offer_decode(pool, w, "not base64!", 'A', "key-a", now, &d), -1);
    /* A new search (another nonce) makes new references for the same flights. */
    {
        sbx_offer *o2;
        assert_int_equal(sbx_search_run(pool, w, &q, 'A', "key-a", now, 1800, 5, 43, &o2, &t), 5);
        assert_string_not_equal(o2[0].ref, o[0].ref);
        assert_true(o2[0].base == o[0].base);
    }
}

/* A local time is written "YYYY-MM-DDTHH:MM:SS" exactly as the printf
 * format it replaced wrote it: every minute of two days around a year's
 * end, random instants from year 0 to 9999, and before the epoch. */
static void local_times_are_written_as_printf_writes_them(void **state)
{
    apr_int64_t t;
    unsigned long long r = 88172645463325252ull;
    int i;
    (void)state;
    for (t = (apr_int64_t)day_of(2026, 12, 31) * 86400;
         t < (apr_int64_t)day_of(2027, 1, 2) * 86400; t += 59) {
        char got[20], want[32];
        long days = (long)(t / 86400);
        unsigned secs = (unsigned)(t % 86400);
        int y, m, d;
        trv_civil_from_days(days, &y, &m, &d);
        snprintf(want, sizeof(want), "%04u-%02u-%02uT%02u:%02u:%02u", (unsigned)y % 10000u,
                 (unsigned)m, (unsigned)d, secs / 3600u, (secs / 60u) % 60u, secs % 60u);
        sbx_local_format(t, got);
        assert_string_equal(got, want);
    }
    for (i = 0; i < 100000; i++) {
        char got[20], want[32];
        long days;
        unsigned secs;
        int y, m, d;
        r ^= r << 13;
        r ^= r >> 7;
        r ^= r << 17;
        t = (apr_int64_t)(r % 315537897600ull) - 62167219200ll; /* 0000-01-01 .. 9999-12-31 */
        days = (long)(t >= 0 ? t / 86400 : (t - 86399) / 86400);
        secs = (unsigned)(t - (apr_int64_t)days * 86400);
        trv_civil_from_days(days, &y, &m, &d);
        snprintf(want, sizeof(want), "%04u-%02u-%02uT%02u:%02u:%02u", (unsigned)y % 10000u,
                 (unsigned)m, (unsigned)d, secs / 3600u, (secs / 60u) % 60u, secs % 60u);
        sbx_local_format(t, got);
        assert_string_equal(got, want);
    }
}

static void member_price_and_bags(void **state)
{
    apr_int64_t now = (apr_int64_t)day_of(2026, 1, 10) * 86400;
    sbx_search q = one_way("CDG", "FCO", day_of(2026, 2, 20), SBX_ECONOMY);
    sbx_offer *o;
    sbx_bag bags[16];
    int t, n, nb, i;
    const char *carrier;
    (void)state;
    q.children = 1;
    q.infants = 1;
    n = sbx_search_run(pool, w, &q, 'A', "k", now, 1800, 50, 1, &o, &t);
    assert_true(n > 0);
    assert_int_equal(sbx_pax_count(&o[0]), 3);
    assert_int_equal(sbx_pax_type(&o[0], 2), 2);
    /* A child pays less than an adult, an infant less again. */
    assert_true(sbx_pax_base(&o[0], 1, 0) < sbx_pax_base(&o[0], 0, 0));
    assert_true(sbx_pax_base(&o[0], 2, 0) < sbx_pax_base(&o[0], 1, 0));
    carrier = w->airlines[o[0].it[0].legs[0].mkt].iata;
    assert_true(sbx_member_discount(w, &o[0], 0, carrier) > 0);
    assert_int_equal(sbx_member_discount(w, &o[0], 0, strcmp(carrier, "QF") ? "QF" : "NZ"), 0);
    assert_int_equal(sbx_member_discount(w, &o[0], 2, carrier), 0); /* infants: no seat, no miles */
    /* Bags for the two passengers with seats, none for the infant. */
    nb = sbx_offer_bags(&o[0], bags, 16);
    assert_true(nb >= 2);
    for (i = 0; i < nb; i++) {
        assert_true(bags[i].pax < 2);
        assert_int_equal(sbx_bag_find(bags, nb, bags[i].suffix), i);
    }
    assert_int_equal(sbx_bag_find(bags, nb, "p2j0c"), -1);
}

static void searches_are_checked(void **state)
{
    const char *field;
    int j;
    sbx_search q = one_way("LHR", "JFK", 20500, SBX_ECONOMY);
    (void)state;
    assert_null(sbx_search_check(w, &q, 20490, &field, &j));
    assert_non_null(sbx_search_check(w, &q, 20501, &field, &j)); /* in the past */
    assert_string_equal(field, "journeys");
    assert_int_equal(j, 0);
    assert_non_null(sbx_search_check(w, &q, 20500 - SBX_MAX_DAYS_AHEAD - 1, &field, &j));
    q.infants = 2;
    assert_non_null(sbx_search_check(w, &q, 20490, &field, &j));
    assert_string_equal(field, "passengers");
    assert_int_equal(j, -1);
}

/* A reference signed with key around any payload: base64url of the
 * payload and the first 8 bytes of HMAC-SHA256(key, payload), the way
 * sandbox/air/offers.c signs its own. */
static const char *signed_ref(const char *key, const char *payload)
{
    unsigned char mac[EVP_MAX_MD_SIZE], buf[512];
    unsigned int n = 0;
    size_t len = strlen(payload);
    HMAC(EVP_sha256(), key, (int)strlen(key), (const unsigned char *)payload, len, mac, &n);
    memcpy(buf, payload, len);
    memcpy(buf + len, mac, 8);
    return sbx_b64url(pool, buf, len + 8);
}

/* Found by tests/fuzz/fuzz_sandbox_wire: a signed reference whose day or
 * party no search can produce overflowed (undefined behaviour) while the
 * offer was rebuilt; such references are refused. */
static void references_hold_only_searchable_values(void **state)
{
    sbx_search q = {0};
    sbx_offer *o, d;
    apr_int64_t now;
    apr_size_t len;
    int t;
    const char *payload, *bar;
    unsigned char *raw;
    (void)state;
    assert_int_equal(trv_date_parse("2026-02-10", &now), APR_SUCCESS);
    now = apr_time_sec(now);
    q.nj = 1;
    q.adults = 1;
    q.j[0].origin = sbx_airport_find(w, "LHR");
    q.j[0].dest = sbx_airport_find(w, "JFK");
    q.j[0].day = now / 86400 + 30;
    assert_true(sbx_search_run(pool, w, &q, 'A', "key-a", now, 1800, 1, 7, &o, &t) == 1);
    raw = sbx_b64url_decode(pool, o[0].ref, &len);
    payload = apr_pstrmemdup(pool, (const char *)raw, len - 8);
    /* The helper signs the way the sandbox does: the payload as is decodes. */
    assert_int_equal(sbx_offer_decode(pool, w, signed_ref("key-a", payload), 'A', "key-a", now,
                                      &d), 0);
    /* "1|A|nonce|expires|cabin|brand|adults|children|infants|nj|o-d-day-opt" */
    bar = strrchr(payload, '|');
    assert_int_equal(sbx_offer_decode(pool, w,
        signed_ref("key-a", apr_psprintf(pool, "%.*s|%d-%d-9223372036854775807-0",
                                         (int)(bar - payload), payload, q.j[0].origin,
                                         q.j[0].dest)), 'A', "key-a", now, &d), -1);
    assert_int_equal(sbx_offer_decode(pool, w,
        signed_ref("key-a", apr_psprintf(pool, "%.*s|%d-%d--5-0", (int)(bar - payload),
                                         payload, q.j[0].origin, q.j[0].dest)),
        'A', "key-a", now, &d), -1);
    assert_int_equal(sbx_offer_decode(pool, w,
        signed_ref("key-a", apr_psprintf(pool, "1|A|7|%" APR_INT64_T_FMT "|0|0|-3|0|0|1%s",
                                         o[0].expires, bar)), 'A', "key-a", now, &d), -1);
    assert_int_equal(sbx_offer_decode(pool, w,
        signed_ref("key-a", apr_psprintf(pool, "1|A|7|%" APR_INT64_T_FMT "|0|0|9|1|0|1%s",
                                         o[0].expires, bar)), 'A', "key-a", now, &d), -1);
    assert_int_equal(sbx_offer_decode(pool, w,
        signed_ref("key-a", apr_psprintf(pool, "1|A|7|%" APR_INT64_T_FMT "|0|0|1|0|2|1%s",
                                         o[0].expires, bar)), 'A', "key-a", now, &d), -1);
    /* The same journey with a party a search allows still decodes. */
    assert_int_equal(sbx_offer_decode(pool, w,
        signed_ref("key-a", apr_psprintf(pool, "1|A|7|%" APR_INT64_T_FMT "|0|0|2|1|1|1%s",
                                         o[0].expires, bar)), 'A', "key-a", now, &d), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_data_is_loaded),
        cmocka_unit_test(direct_flights_follow_the_route_file),
        cmocka_unit_test(connections_through_real_hubs),
        cmocka_unit_test(fares_are_deterministic_and_dated),
        cmocka_unit_test(search_limits_and_references),
        cmocka_unit_test(local_times_are_written_as_printf_writes_them),
        cmocka_unit_test(member_price_and_bags),
        cmocka_unit_test(searches_are_checked),
        cmocka_unit_test(references_hold_only_searchable_values),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
