/* The pure pieces of hotel search: grouping the suppliers' hotels into the
 * service's hotels (shared code first, then name + postal code + distance
 * for a supplier without one), the order of results, sealed tokens
 * (cursors, offer references) bound to organization and purpose, the stay
 * parser's checks, and the hotel supplier rows. */
#include "unit.h"

#include <apr_lib.h>
#include <apr_strings.h>
#include <string.h>

#include "core/errors.h"
#include "core/registry.h"
#include "gateway/gateway.h"
#include "hotel/input.h"
#include "hotel/mapping.h"
#include "hotel/seal.h"
#include "hotel/supplier.h"

static trv_hotel_found *hotel(apr_pool_t *p, const char *sup, const char *sid, const char *name,
                              const char *postal, const char *giata, double lat, double lon,
                              long total)
{
    trv_hotel_found *f = apr_pcalloc(p, sizeof(*f));
    f->supplier = sup;
    f->sid = sid;
    f->name = name;
    f->city = "Paris";
    f->country_code = "FR";
    f->postal_code = postal;
    f->giata = giata;
    f->latitude = lat;
    f->longitude = lon;
    f->priced = total >= 0;
    f->total_minor = total >= 0 ? total : 0;
    return f;
}

static apr_array_header_t *list(apr_pool_t *p, trv_hotel_found **h, int n)
{
    apr_array_header_t *a = apr_array_make(p, n, sizeof(trv_hotel_found *));
    int i;
    for (i = 0; i < n; i++) {
        APR_ARRAY_PUSH(a, trv_hotel_found *) = h[i];
    }
    return a;
}

static const trv_hotel_group *group(const apr_array_header_t *g, int i)
{
    return APR_ARRAY_IDX(g, i, const trv_hotel_group *);
}

static int members(const trv_hotel_group *g)
{
    return g->members->nelts;
}

static void shared_codes_then_name_postal_and_distance(void **state)
{
    apr_pool_t *p = *state;
    trv_hotel_found *h[] = {
        hotel(p, "SUPPLIER_A", "lp1", "Aster Suites Paris Central", "75001", "111", 48.8600, 2.3400, 30000),
        hotel(p, "SUPPLIER_B", "901", "Aster Suites Paris Central", "75001", "111", 48.8601, 2.3401, 29000),
        /* C: no code; same name (other case and spacing), postal, 30 m away. */
        hotel(p, "SUPPLIER_C", "c1", "aster  suites PARIS central", "75001", NULL, 48.8602, 2.3402, 31000),
        /* C: same name, other postal code: another hotel. */
        hotel(p, "SUPPLIER_C", "c2", "Aster Suites Paris Central", "75009", NULL, 48.8600, 2.3400, 20000),
        /* C: same name and postal code, 2 km away: another hotel. */
        hotel(p, "SUPPLIER_C", "c3", "Aster Suites Paris Central", "75001", NULL, 48.8780, 2.3400, 25000),
        /* A hotel without a rate comes last. */
        hotel(p, "SUPPLIER_A", "lp2", "Zenith Paris", "75002", "222", 48.87, 2.35, -1),
    };
    apr_array_header_t *g = trv_hotel_group_found(p, list(p, h, 6));
    assert_int_equal(g->nelts, 4);
    /* Cheapest first: c2 (200.00), c3 (250.00), the joined group (290.00). */
    assert_string_equal(group(g, 0)->cheapest->sid, "c2");
    assert_int_equal(members(group(g, 0)), 1);
    assert_string_equal(group(g, 1)->cheapest->sid, "c3");
    assert_int_equal(members(group(g, 2)), 3);
    assert_string_equal(group(g, 2)->cheapest->sid, "901");
    assert_string_equal(group(g, 2)->giata, "111");
    assert_null(group(g, 3)->cheapest);
    assert_string_equal(APR_ARRAY_IDX(group(g, 3)->members, 0, trv_hotel_found *)->sid, "lp2");
}

/* One supplier's two hotels never merge, whatever they share. */
static void one_supplier_never_twice_in_a_hotel(void **state)
{
    apr_pool_t *p = *state;
    trv_hotel_found *h[] = {
        hotel(p, "SUPPLIER_C", "c1", "Twin House", "10115", NULL, 52.52, 13.40, 10000),
        hotel(p, "SUPPLIER_C", "c2", "Twin House", "10115", NULL, 52.52, 13.40, 10000),
        hotel(p, "SUPPLIER_A", "a1", "Other", "10115", "7", 52.52, 13.40, 10000),
        hotel(p, "SUPPLIER_A", "a2", "Other", "10115", "7", 52.52, 13.40, 10000),
    };
    apr_array_header_t *g = trv_hotel_group_found(p, list(p, h, 4));
    int i;
    assert_int_equal(g->nelts, 4);
    for (i = 0; i < 4; i++) {
        assert_int_equal(members(group(g, i)), 1);
    }
    /* Equal prices: by name, then the supplier's id, every time. */
    assert_string_equal(group(g, 0)->cheapest->sid, "a1");
    assert_string_equal(group(g, 3)->cheapest->sid, "c2");
}

static void names_fold_and_distances(void **state)
{
    apr_pool_t *p = *state;
    assert_string_equal(trv_hotel_name_key(p, "  Aster   Suites\tPARIS "), "aster suites paris");
    assert_true(trv_hotel_distance_m(48.8600, 2.3400, 48.8600, 2.3400) < 0.001);
    /* 0.001 degree of latitude is about 111 m. */
    assert_in_range((long)trv_hotel_distance_m(48.8600, 2.3400, 48.8610, 2.3400), 110, 112);
}

static const unsigned char key[32] = {1, 2, 3};

static void sealed_tokens_are_bound(void **state)
{
    apr_pool_t *p = *state;
    char *t = trv_hotel_seal(p, key, "org_a", "hotel-search", "digest|40"), *out = NULL;
    size_t i;
    assert_int_equal(trv_hotel_unseal(p, key, "org_a", "hotel-search", t, &out), APR_SUCCESS);
    assert_string_equal(out, "digest|40");
    for (i = 0; t[i]; i++) {
        assert_true(apr_isalnum(t[i]) || t[i] == '-' || t[i] == '_');
    }
    assert_int_equal(trv_hotel_unseal(p, key, "org_b", "hotel-search", t, &out), APR_EINVAL);
    assert_int_equal(trv_hotel_unseal(p, key, "org_a", "hotel-offer", t, &out), APR_EINVAL);
    {
        unsigned char other[32] = {9};
        assert_int_equal(trv_hotel_unseal(p, other, "org_a", "hotel-search", t, &out), APR_EINVAL);
    }
    /* Every single-character edit is refused. */
    for (i = 0; t[i]; i++) {
        char *e = apr_pstrdup(p, t);
        e[i] = e[i] == 'A' ? 'B' : 'A';
        assert_int_equal(trv_hotel_unseal(p, key, "org_a", "hotel-search", e, &out), APR_EINVAL);
    }
    assert_int_equal(trv_hotel_unseal(p, key, "org_a", "hotel-search", "", &out), APR_EINVAL);
    assert_int_equal(trv_hotel_unseal(p, key, "org_a", "hotel-search", "a+b/c=", &out), APR_EINVAL);
}

/* Found by fuzz_hotel_seal: a one-byte payload seals to 23 characters,
 * which unseal used to refuse as too short. Every payload seal makes opens
 * back, the shortest included. */
static void shortest_tokens_open(void **state)
{
    apr_pool_t *p = *state;
    static const char *const payloads[] = {"x", "xy", "xyz", "\x03"};
    char *out = NULL;
    size_t i;
    for (i = 0; i < sizeof(payloads) / sizeof(payloads[0]); i++) {
        char *t = trv_hotel_seal(p, key, "org_a", "hotel-offer", payloads[i]);
        assert_int_equal(trv_hotel_unseal(p, key, "org_a", "hotel-offer", t, &out), APR_SUCCESS);
        assert_string_equal(out, payloads[i]);
        /* One character less is no token. */
        t[strlen(t) - 1] = '\0';
        assert_int_equal(trv_hotel_unseal(p, key, "org_a", "hotel-offer", t, &out), APR_EINVAL);
    }
}

static int has_field(const trv_errs *e, const char *field)
{
    json_t *d;
    size_t i;
    int found = 0;
    json_array_foreach(e->details, i, d) {
        found |= strcmp(json_string_value(json_object_get(d, "field")), field) == 0;
    }
    return found;
}

static void stays_are_checked(void **state)
{
    apr_pool_t *p = *state;
    long today = trv_hotel_day("2027-01-10");
    trv_hotel_stay s;
    trv_errs *e = trv_errs_new(p);
    json_t *ok = json_pack("{s:s,s:s,s:[{s:i,s:[i,i]},{s:i}],s:s,s:s,s:s}", "check_in",
                           "2027-01-12", "check_out", "2027-01-15", "occupancy", "adults", 2,
                           "children", 4, 17, "adults", 1, "guest_nationality", "DE",
                           "guest_residence", "FR", "currency", "JPY");
    trv_hotel_read_stay(p, ok, today, &s, e);
    assert_false(trv_errs_any(e));
    assert_int_equal(s.nights, 3);
    assert_int_equal(s.n_rooms, 2);
    assert_int_equal(s.rooms[0].n_children, 2);
    assert_int_equal(s.rooms[0].ages[1], 17);
    assert_string_equal(s.currency, "JPY");
    json_decref(ok);
    assert_int_equal(trv_hotel_day("2027-02-30"), -1);
    assert_int_equal(trv_hotel_day("2027-2-3"), -1);

    e = trv_errs_new(p);
    ok = json_pack("{s:s,s:s,s:[{s:i}],s:s,s:s,s:s}", "check_in", "2027-01-09", "check_out",
                   "2027-01-09", "occupancy", "adults", 5, "guest_nationality", "de",
                   "guest_residence", "FRA", "currency", "EURO");
    trv_hotel_read_stay(p, ok, today, &s, e);
    assert_true(has_field(e, "check_in"));
    assert_true(has_field(e, "occupancy[0].adults"));
    assert_true(has_field(e, "guest_nationality"));
    assert_true(has_field(e, "guest_residence"));
    assert_true(has_field(e, "currency"));
    json_decref(ok);

    e = trv_errs_new(p);
    ok = json_pack("{s:s,s:s,s:[],s:s,s:s,s:s}", "check_in", "2027-01-10", "check_out",
                   "2027-04-30", "occupancy", "guest_nationality", "DE",
                   "guest_residence", "FR", "currency", "EUR");
    trv_hotel_read_stay(p, ok, today, &s, e);
    assert_true(has_field(e, "check_out"));   /* 110 nights */
    assert_true(has_field(e, "occupancy"));
    assert_false(has_field(e, "check_in"));
    json_decref(ok);
}

static void offers_are_trimmed_per_hotel(void **state)
{
    apr_pool_t *p = *state;
    apr_array_header_t *a = apr_array_make(p, 8, sizeof(trv_hotel_offer));
    static const char *const sids[] = {"h2", "h1", "h2", "h1", "h2", "h1", "h2"};
    static const long totals[] = {500, 300, 100, 200, 300, 100, 100};
    trv_hotel_offer *o;
    int i;
    for (i = 0; i < 7; i++) {
        o = apr_array_push(a);
        memset(o, 0, sizeof(*o));
        o->sid = sids[i];
        o->total_minor = totals[i];
        o->ref = apr_psprintf(p, "r%d", i);
    }
    trv_hwire_offers_trim(a, 2);
    assert_int_equal(a->nelts, 4);
    o = (trv_hotel_offer *)a->elts;
    assert_string_equal(o[0].sid, "h1");
    assert_int_equal(o[0].total_minor, 100);
    assert_int_equal(o[1].total_minor, 200);
    assert_string_equal(o[2].sid, "h2");
    /* Equal totals: by the supplier's reference, so every run agrees. */
    assert_string_equal(o[2].ref, "r2");
    assert_string_equal(o[3].ref, "r6");
    assert_string_equal(trv_hwire_board(p, "bb"), "BED_AND_BREAKFAST");
    assert_string_equal(trv_hwire_board(p, "AI"), "ALL_INCLUSIVE");
    assert_string_equal(trv_hwire_board(p, "xx"), "XX");
}

static void promotions_merge_by_name(void **state)
{
    json_t *promos = json_array();
    json_t *want = json_pack("{s:f,s:s}", "amount", 15.5, "currency", "EUR");
    (void)state;
    trv_hwire_promo_add(promos, "EARLY", 1000, "EUR", 0);
    trv_hwire_promo_add(promos, "EARLY", 550, "EUR", 1);
    trv_hwire_promo_add(promos, "MEMBER", 5, "JPY", 1);
    assert_int_equal(json_array_size(promos), 2);
    assert_true(json_equal(json_object_get(json_array_get(promos, 0), "amount"), want));
    json_decref(want);
    assert_int_equal(json_array_size(json_object_get(json_array_get(promos, 0),
                                                     "room_positions")), 2);
    json_decref(promos);
}

static void hotel_rows_are_registered(void **state)
{
    apr_pool_t *p = *state;
    trv_gateway *gw = NULL;
    const char *err = NULL;
    const trv_registry *reg;
    assert_int_equal(trv_gateway_make(p, &gw, &err), APR_SUCCESS);
    reg = trv_gateway_registry(gw);
    assert_ptr_equal(trv_registry_protocol(reg, "hotel", "liteapi")->adapter,
                     &trv_hotel_supplier_a);
    assert_ptr_equal(trv_registry_protocol(reg, "hotel", "travel-hotel-c")->adapter,
                     &trv_hotel_supplier_c);
    /* A hotel protocol is no flight protocol. */
    assert_null(trv_registry_protocol(reg, "flight", "liteapi"));
    assert_true(trv_supplier_can(trv_registry_protocol(reg, "hotel", "travel-hotel-c"),
                                 TRV_SUP_CANCEL_PREVIEW | TRV_SUP_COLLECTS_PAYMENT));
    assert_false(trv_supplier_can(trv_registry_protocol(reg, "hotel", "liteapi"),
                                  TRV_SUP_CANCEL_PREVIEW));
    assert_int_equal(trv_registry_protocol(reg, "hotel", "hotelbeds")->limits.max_nights,
                     99);
    /* The former name is an alias of the same adapter. */
    assert_ptr_equal(trv_registry_protocol(reg, "hotel", "travel-hotel-b")->adapter,
                     trv_registry_protocol(reg, "hotel", "hotelbeds")->adapter);
    /* LiteAPI books on a second host; the signed protocols need a secret. */
    assert_string_equal(trv_registry_protocol(reg, "hotel", "liteapi")->creds.second_base,
                        "book_url");
    assert_string_equal(trv_registry_protocol(reg, "hotel", "hotelbeds")->creds.secret,
                        "api_secret");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(shared_codes_then_name_postal_and_distance, pool_setup,
                                        pool_teardown),
        cmocka_unit_test_setup_teardown(one_supplier_never_twice_in_a_hotel, pool_setup,
                                        pool_teardown),
        cmocka_unit_test_setup_teardown(names_fold_and_distances, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(sealed_tokens_are_bound, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(shortest_tokens_open, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(stays_are_checked, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(offers_are_trimmed_per_hotel, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(promotions_merge_by_name, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(hotel_rows_are_registered, pool_setup, pool_teardown),
    };
    return UNIT_RUN(tests);
}
