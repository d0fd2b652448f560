/* The text cache (core/text_cache.c), as the hotel id cache uses it: an
 * id is found again under its members' exact text and under no other (a
 * prefix, a longer text, one byte changed); a group replaces the one in
 * its slot and the replaced one is asked of the database again; what a
 * reader got stays valid after its entry is replaced or the cache is gone;
 * threads writing and reading one slot each read an id that was put under
 * their key. As the sellers cache uses it: a flush forgets every entry,
 * and a put with a stamp taken before a flush keeps nothing. Run under
 * ASan too. */
#include "unit.h"

#include "core/text_cache.h"

#include <apr_strings.h>
#include <apr_thread_proc.h>
#include <string.h>

static const char *get(trv_text_cache *c, apr_pool_t *p, const char *key)
{
    return trv_text_cache_get(c, p, key, strlen(key));
}

static void put(trv_text_cache *c, const char *key, const char *id)
{
    trv_text_cache_put(c, key, strlen(key), id, trv_text_cache_stamp(c));
}

#define KEY_A "[{\"supplier\":\"SUPPLIER_A\",\"id\":\"lp63ccc2\"}]"
#define KEY_AC "[{\"supplier\":\"SUPPLIER_A\",\"id\":\"lp63ccc2\"},{\"supplier\":\"SUPPLIER_C\"," \
               "\"id\":\"48131590\"}]"

static void found_under_its_exact_key_only(void **state)
{
    trv_text_cache *c = trv_text_cache_create(*state, 64);
    char prefix[sizeof(KEY_A)];
    char changed[] = KEY_A;
    assert_non_null(c);
    assert_null(get(c, *state, KEY_A));
    put(c, KEY_A, "htl_one");
    assert_string_equal(get(c, *state, KEY_A), "htl_one");
    /* The same bytes given with their length, not NUL-terminated. */
    assert_string_equal(trv_text_cache_get(c, *state, KEY_A ",more", strlen(KEY_A)),
                        "htl_one");
    assert_null(get(c, *state, KEY_AC));
    memcpy(prefix, KEY_A, sizeof(KEY_A) - 2);
    prefix[sizeof(KEY_A) - 2] = '\0';
    assert_null(get(c, *state, prefix));
    changed[strlen(changed) - 4] = '3';
    assert_null(get(c, *state, changed));
    /* A group with another member is another key. */
    put(c, KEY_AC, "htl_two");
    assert_string_equal(get(c, *state, KEY_AC), "htl_two");
    assert_string_equal(get(c, *state, KEY_A), "htl_one");
    /* No cache: nothing kept, nothing found. */
    assert_null(trv_text_cache_create(*state, 0));
    put(NULL, KEY_A, "htl_one");
    assert_null(get(NULL, *state, KEY_A));
}

static void a_group_replaces_the_one_in_its_slot(void **state)
{
    /* One slot: every key shares it. */
    trv_text_cache *c = trv_text_cache_create(*state, 1);
    put(c, KEY_A, "htl_one");
    put(c, KEY_AC, "htl_two");
    assert_null(get(c, *state, KEY_A));
    assert_string_equal(get(c, *state, KEY_AC), "htl_two");
    /* Many keys in few slots: each found is its own id, and the last
     * written of each slot is found. */
    c = trv_text_cache_create(*state, 8);
    {
        int i, found = 0;
        for (i = 0; i < 100; i++) {
            put(c, apr_psprintf(*state, "[{\"supplier\":\"S\",\"id\":\"%d\"}]", i),
                apr_psprintf(*state, "htl_%d", i));
        }
        for (i = 0; i < 100; i++) {
            const char *id = get(c, *state, apr_psprintf(*state, "[{\"supplier\":\"S\",\"id\":"
                                                         "\"%d\"}]", i));
            if (id) {
                assert_string_equal(id, apr_psprintf(*state, "htl_%d", i));
                found++;
            }
        }
        assert_true(found >= 1 && found <= 8);
        assert_non_null(get(c, *state, "[{\"supplier\":\"S\",\"id\":\"99\"}]"));
    }
}

static void what_a_reader_got_outlives_its_entry(void **state)
{
    apr_pool_t *p;
    trv_text_cache *c;
    const char *got;
    apr_pool_create(&p, *state);
    c = trv_text_cache_create(p, 1);
    put(c, KEY_A, "htl_one");
    got = get(c, *state, KEY_A);
    put(c, KEY_A, "htl_replaced");
    assert_string_equal(got, "htl_one");
    apr_pool_destroy(p);
    assert_string_equal(got, "htl_one");
}

/* A hotel's sellers as hotel_store.c keeps them. */
#define US "\x1f"
#define RS "\x1e"

static void a_flush_forgets_and_outdates_a_lookup(void **state)
{
    trv_text_cache *c = trv_text_cache_create(*state, 64);
    trv_text_stamp before;
    put(c, "htl_one", "SUPPLIER_A" US "a1" RS);
    put(c, "htl_two", "SUPPLIER_B" US "b2" RS);
    /* A lookup begins: its stamp is taken before it asks the database. */
    before = trv_text_cache_stamp(c);
    trv_text_cache_flush(c);
    assert_null(get(c, *state, "htl_one"));
    assert_null(get(c, *state, "htl_two"));
    /* Its answer, read before the change the flush stood for, is not kept. */
    trv_text_cache_put(c, "htl_one", strlen("htl_one"), "SUPPLIER_A" US "a1" RS, before);
    assert_null(get(c, *state, "htl_one"));
    /* One read after the flush is. */
    put(c, "htl_one", "SUPPLIER_C" US "c3" RS);
    assert_string_equal(get(c, *state, "htl_one"), "SUPPLIER_C" US "c3" RS);
    /* No cache: a flush and a stamp are harmless. */
    trv_text_cache_flush(NULL);
    assert_int_equal(trv_text_cache_stamp(NULL), 0);
}

typedef struct worker {
    trv_text_cache *c;
    apr_pool_t *p;
    int n, wrong, found;
} worker;

static void *APR_THREAD_FUNC work(apr_thread_t *t, void *baton)
{
    worker *w = baton;
    int i;
    for (i = 0; i < 4000; i++) {
        const char *key = apr_psprintf(w->p, "[{\"supplier\":\"S\",\"id\":\"%d\"}]", i % 50);
        const char *want = apr_psprintf(w->p, "htl_%d", i % 50);
        const char *id;
        if (i % 3 == w->n % 3) {
            put(w->c, key, want);
        }
        if ((id = get(w->c, w->p, key))) {
            w->found++;
            w->wrong += strcmp(id, want) != 0;
        }
    }
    apr_thread_exit(t, APR_SUCCESS);
    return NULL;
}

static void threads_read_and_write_at_once(void **state)
{
    /* Fewer slots than keys: threads replace each other's groups. */
    trv_text_cache *c = trv_text_cache_create(*state, 16);
    apr_thread_t *th[4];
    worker w[4];
    apr_status_t rv;
    int i;
    for (i = 0; i < 4; i++) {
        w[i].c = c;
        w[i].n = i;
        w[i].wrong = w[i].found = 0;
        apr_pool_create(&w[i].p, *state);
        assert_int_equal(apr_thread_create(&th[i], NULL, work, &w[i], *state), APR_SUCCESS);
    }
    for (i = 0; i < 4; i++) {
        apr_thread_join(&rv, th[i]);
        assert_int_equal(w[i].wrong, 0);
        assert_true(w[i].found > 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(found_under_its_exact_key_only, pool_setup,
                                        pool_teardown),
        cmocka_unit_test_setup_teardown(a_group_replaces_the_one_in_its_slot, pool_setup,
                                        pool_teardown),
        cmocka_unit_test_setup_teardown(what_a_reader_got_outlives_its_entry, pool_setup,
                                        pool_teardown),
        cmocka_unit_test_setup_teardown(a_flush_forgets_and_outdates_a_lookup, pool_setup,
                                        pool_teardown),
        cmocka_unit_test_setup_teardown(threads_read_and_write_at_once, pool_setup,
                                        pool_teardown),
    };
    return UNIT_RUN(tests);
}
