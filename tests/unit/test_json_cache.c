/* The content cache (core/json_cache.c): a document is found again under
 * its key until its expiry and not after; a reader's reference outlives
 * the entry it came from (replaced, evicted, or the cache destroyed); a
 * full cache drops the entry that expires first; threads read one shared
 * document at once. Run under ASan: a document freed while read would
 * show. */
#include "unit.h"

#include "core/json_cache.h"

#include <apr_thread_proc.h>

#define T0 ((apr_time_t)1795385326 * APR_USEC_PER_SEC)

static void found_until_its_expiry(void **state)
{
    trv_json_cache *c = trv_json_cache_create(*state, 4);
    json_t *doc = json_pack("{s:[i,i]}", "hotels", 1, 2), *got;
    assert_non_null(c);
    trv_json_cache_put(c, "A /data/hotels?city=Paris", doc, T0, apr_time_from_sec(60));
    json_decref(doc);
    got = trv_json_cache_get(c, "A /data/hotels?city=Paris", T0 + apr_time_from_sec(59));
    assert_non_null(got);
    assert_int_equal(json_array_size(json_object_get(got, "hotels")), 2);
    json_decref(got);
    assert_null(trv_json_cache_get(c, "A /data/hotels?city=Paris", T0 + apr_time_from_sec(60)));
    assert_null(trv_json_cache_get(c, "B /data/hotels?city=Paris", T0));
    /* No freshness, no entry. */
    doc = json_true();
    trv_json_cache_put(c, "zero", doc, T0, 0);
    assert_null(trv_json_cache_get(c, "zero", T0));
}

static void a_reference_outlives_its_entry(void **state)
{
    apr_pool_t *p;
    trv_json_cache *c;
    json_t *first = json_pack("{s:s}", "name", "first"), *second = json_pack("{s:s}", "name",
                                                                           "second");
    json_t *got;
    apr_pool_create(&p, *state);
    c = trv_json_cache_create(p, 2);
    trv_json_cache_put(c, "k", first, T0, apr_time_from_sec(60));
    json_decref(first);
    got = trv_json_cache_get(c, "k", T0);
    /* Replaced while read. */
    trv_json_cache_put(c, "k", second, T0, apr_time_from_sec(60));
    json_decref(second);
    assert_string_equal(json_string_value(json_object_get(got, "name")), "first");
    json_decref(got);
    got = trv_json_cache_get(c, "k", T0);
    assert_string_equal(json_string_value(json_object_get(got, "name")), "second");
    /* The cache goes with its pool; the reader's document stays. */
    apr_pool_destroy(p);
    assert_string_equal(json_string_value(json_object_get(got, "name")), "second");
    json_decref(got);
}

static void a_full_cache_drops_the_first_to_expire(void **state)
{
    trv_json_cache *c = trv_json_cache_create(*state, 2);
    json_t *d = json_true(), *got;
    trv_json_cache_put(c, "soon", d, T0, apr_time_from_sec(10));
    trv_json_cache_put(c, "later", d, T0, apr_time_from_sec(100));
    trv_json_cache_put(c, "new", d, T0, apr_time_from_sec(50));
    assert_null(trv_json_cache_get(c, "soon", T0));
    got = trv_json_cache_get(c, "later", T0);
    assert_non_null(got);
    json_decref(got);
    got = trv_json_cache_get(c, "new", T0);
    assert_non_null(got);
    json_decref(got);
    assert_null(trv_json_cache_create(*state, 0));
}

typedef struct reader {
    trv_json_cache *c;
    long sum;
} reader;

static void *APR_THREAD_FUNC read_many(apr_thread_t *t, void *baton)
{
    reader *r = baton;
    int i;
    for (i = 0; i < 2000; i++) {
        json_t *got = trv_json_cache_get(r->c, "shared", T0);
        if (got) {
            r->sum += (long)json_array_size(got);
            json_decref(got);
        }
    }
    apr_thread_exit(t, APR_SUCCESS);
    return NULL;
}

static void threads_share_one_document(void **state)
{
    trv_json_cache *c = trv_json_cache_create(*state, 4);
    json_t *doc = json_pack("[i,i,i]", 1, 2, 3);
    apr_thread_t *th[4];
    reader rd[4];
    apr_status_t rv;
    int i;
    trv_json_cache_put(c, "shared", doc, T0, apr_time_from_sec(60));
    json_decref(doc);
    for (i = 0; i < 4; i++) {
        rd[i].c = c;
        rd[i].sum = 0;
        assert_int_equal(apr_thread_create(&th[i], NULL, read_many, &rd[i], *state),
                         APR_SUCCESS);
    }
    /* Replaced while they read. */
    doc = json_pack("[i,i,i]", 4, 5, 6);
    trv_json_cache_put(c, "shared", doc, T0, apr_time_from_sec(60));
    json_decref(doc);
    for (i = 0; i < 4; i++) {
        apr_thread_join(&rv, th[i]);
        assert_int_equal(rd[i].sum, 3 * 2000);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(found_until_its_expiry, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(a_reference_outlives_its_entry, pool_setup,
                                        pool_teardown),
        cmocka_unit_test_setup_teardown(a_full_cache_drops_the_first_to_expire, pool_setup,
                                        pool_teardown),
        cmocka_unit_test_setup_teardown(threads_share_one_document, pool_setup, pool_teardown),
    };
    return UNIT_RUN(tests);
}
