/* A supplier's search answer kept in the shared search cache
 * (hotel/search_cache.c), over an in-memory store: what is read back is
 * what was kept, field for field, with when it was kept; the key changes
 * with every field that changes a supplier's answer and never carries the
 * credentials; without a store or a freshness nothing is kept. */
#include "unit.h"

#include "hotel/search_cache.h"
#include "core/shared_cache.h"

#include <apr_strings.h>
#include <string.h>

typedef struct store {
    char *key, *val;
    apr_size_t len;
    apr_time_t expiry;
    int puts;
} store;

static int mem_get(const trv_shared_cache *c, const char *key, apr_pool_t *p, char **val,
                   apr_size_t *len)
{
    store *s = c->baton;
    if (!s->key || strcmp(s->key, key) != 0 || s->expiry <= apr_time_now()) {
        return 0;
    }
    *val = apr_pstrmemdup(p, s->val, s->len);
    *len = s->len;
    return 1;
}

static void mem_put(const trv_shared_cache *c, const char *key, const char *val,
                    apr_size_t len, apr_time_t expiry, apr_pool_t *p)
{
    store *s = c->baton;
    s->key = apr_pstrdup(p, key);
    s->val = apr_pstrmemdup(p, val, len);
    s->len = len;
    s->expiry = expiry;
    s->puts++;
}

static trv_upstream up = {.name = "SUPPLIER_B", .protocol = "travel-hotel-b",
                          .base_url = "http://127.0.0.1:1/hotels/b", .api_key = "the-api-key",
                          .api_secret = "the-api-secret"};

static void a_stay(trv_hotel_stay *st)
{
    memset(st, 0, sizeof(*st));
    st->check_in = "2027-03-12";
    st->check_out = "2027-03-14";
    st->nights = 2;
    st->n_rooms = 1;
    st->rooms[0].adults = 2;
    memcpy(st->currency, "EUR", 4);
    st->nationality = "GB";
    st->residence = "GB";
}

static void read_back_field_for_field(void **state)
{
    apr_pool_t *p = *state;
    store mem = {0};
    trv_shared_cache cache = {mem_get, mem_put, &mem};
    trv_env env;
    trv_hotel_area area = {NULL, NULL, 1, 52.3676, 4.9041, 14500};
    trv_hotel_stay stay;
    apr_array_header_t *list = apr_array_make(p, 2, sizeof(trv_hotel_found)), *got = NULL;
    trv_hotel_found *f;
    apr_time_t before = apr_time_now(), at = 0;
    const char *key;
    memset(&env, 0, sizeof(env));
    env.search_cache = &cache;
    a_stay(&stay);
    f = apr_array_push(list);
    memset(f, 0, sizeof(*f));
    f->supplier = "SUPPLIER_B";
    f->sid = "1234";
    f->name = "H\xc3\xb4tel \"Le Quai\"\n|x";
    f->city = "Amsterdam";
    f->country_code = "NL";
    f->postal_code = NULL;
    f->giata = "G-1";
    f->latitude = 52.36761234567;
    f->longitude = -4.90410000001;
    f->priced = 1;
    f->total_minor = 9007199254740993LL;
    f = apr_array_push(list);
    memset(f, 0, sizeof(*f));
    f->sid = "99";
    f->name = "Unpriced";
    key = trv_hotel_search_cache_key(p, &up, &area, &stay);
    trv_hotel_search_cache_put(&env, p, key, list, apr_time_from_sec(60));
    assert_int_equal(mem.puts, 1);
    assert_null(strstr(mem.val, "the-api-key"));
    assert_true(trv_hotel_search_cache_get(&env, p, key, "SUPPLIER_B", &got, &at));
    assert_true(at >= before && at <= apr_time_now());
    assert_int_equal(got->nelts, 2);
    f = &APR_ARRAY_IDX(got, 0, trv_hotel_found);
    assert_string_equal(f->supplier, "SUPPLIER_B");
    assert_string_equal(f->sid, "1234");
    assert_string_equal(f->name, "H\xc3\xb4tel \"Le Quai\"\n|x");
    assert_string_equal(f->city, "Amsterdam");
    assert_string_equal(f->country_code, "NL");
    assert_null(f->postal_code);
    assert_string_equal(f->giata, "G-1");
    assert_true(f->latitude == 52.36761234567);
    assert_true(f->longitude == -4.90410000001);
    assert_true(f->priced);
    assert_true(f->total_minor == 9007199254740993LL);
    f = &APR_ARRAY_IDX(got, 1, trv_hotel_found);
    assert_string_equal(f->sid, "99");
    assert_false(f->priced);
    /* Another key reads nothing. */
    assert_false(trv_hotel_search_cache_get(&env, p, "trv:hsearch:other", "SUPPLIER_B", &got,
                                            &at));
}

static void every_field_of_the_answer_changes_the_key(void **state)
{
    apr_pool_t *p = *state;
    trv_hotel_area area = {NULL, NULL, 1, 52.3676, 4.9041, 14500}, other_area = area;
    trv_hotel_area city = {"Paris", "FR", 0, 0, 0, 0};
    trv_hotel_stay stay, s;
    trv_upstream u = up;
    const char *base, *keys[12];
    int n = 0, i, j;
    a_stay(&stay);
    base = trv_hotel_search_cache_key(p, &up, &area, &stay);
    assert_string_equal(base, trv_hotel_search_cache_key(p, &up, &area, &stay));
    assert_null(strstr(base, "the-api-key"));
    assert_null(strstr(base, "the-api-secret"));
    keys[n++] = base;
    s = stay; s.check_in = "2027-03-13"; keys[n++] = trv_hotel_search_cache_key(p, &up, &area, &s);
    s = stay; s.check_out = "2027-03-15"; keys[n++] = trv_hotel_search_cache_key(p, &up, &area, &s);
    s = stay; memcpy(s.currency, "GBP", 4); keys[n++] = trv_hotel_search_cache_key(p, &up, &area, &s);
    s = stay; s.nationality = "FR"; keys[n++] = trv_hotel_search_cache_key(p, &up, &area, &s);
    s = stay; s.residence = "FR"; keys[n++] = trv_hotel_search_cache_key(p, &up, &area, &s);
    s = stay; s.rooms[0].adults = 1; keys[n++] = trv_hotel_search_cache_key(p, &up, &area, &s);
    s = stay; s.rooms[0].n_children = 1; s.rooms[0].ages[0] = 7;
    keys[n++] = trv_hotel_search_cache_key(p, &up, &area, &s);
    other_area.radius_m = 14000;
    keys[n++] = trv_hotel_search_cache_key(p, &up, &other_area, &stay);
    keys[n++] = trv_hotel_search_cache_key(p, &up, &city, &stay);
    u.api_key = "another-account";
    keys[n++] = trv_hotel_search_cache_key(p, &u, &area, &stay);
    u = up;
    u.base_url = "http://127.0.0.1:2/hotels/b";
    keys[n++] = trv_hotel_search_cache_key(p, &u, &area, &stay);
    for (i = 0; i < n; i++) {
        for (j = i + 1; j < n; j++) {
            if (strcmp(keys[i], keys[j]) == 0) {
                fail_msg("keys %d and %d are the same", i, j);
            }
        }
    }
}

static void nothing_is_kept_without_a_store_or_a_freshness(void **state)
{
    apr_pool_t *p = *state;
    store mem = {0};
    trv_shared_cache cache = {mem_get, mem_put, &mem};
    trv_env env;
    apr_array_header_t *list = apr_array_make(p, 1, sizeof(trv_hotel_found)), *got;
    apr_time_t at;
    memset(&env, 0, sizeof(env));
    trv_hotel_search_cache_put(&env, p, "k", list, apr_time_from_sec(60));
    assert_false(trv_hotel_search_cache_get(&env, p, "k", "SUPPLIER_B", &got, &at));
    env.search_cache = &cache;
    trv_hotel_search_cache_put(&env, p, "k", list, 0);
    assert_int_equal(mem.puts, 0);
    /* A value the store holds but that is not a kept answer reads as none. */
    mem_put(&cache, "k", "not json", 8, apr_time_now() + apr_time_from_sec(60), p);
    assert_false(trv_hotel_search_cache_get(&env, p, "k", "SUPPLIER_B", &got, &at));
    mem_put(&cache, "k", "{\"at\":1,\"hotels\":[[null]]}", 26,
            apr_time_now() + apr_time_from_sec(60), p);
    assert_false(trv_hotel_search_cache_get(&env, p, "k", "SUPPLIER_B", &got, &at));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(read_back_field_for_field, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(every_field_of_the_answer_changes_the_key, pool_setup,
                                        pool_teardown),
        cmocka_unit_test_setup_teardown(nothing_is_kept_without_a_store_or_a_freshness,
                                        pool_setup, pool_teardown),
    };
    return UNIT_RUN(tests);
}
