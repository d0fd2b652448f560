/* The request JSON arena (core/json_arena.h): trees built in an arena read
 * back whole until their pool goes; what is detached, or made with no
 * arena open, survives the arena and a later one reusing its blocks; each
 * fan-out thread bumps its own arena; pieces too big for a block and
 * everything outside an arena go through malloc and free (under ASan a
 * wrong free, or a malloc'd piece never freed, fails the run). */
#include "unit.h"

#include "core/fanout.h"
#include "core/json_arena.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* {"k0": "value 0 of tag", ..., "list": [0..n-1]} */
static json_t *tree(const char *tag, int n)
{
    json_t *o = json_object(), *list = json_array();
    char k[32], v[64];
    int i;
    for (i = 0; i < n; i++) {
        snprintf(k, sizeof(k), "k%d", i);
        snprintf(v, sizeof(v), "value %d of %s", i, tag);
        json_object_set_new(o, k, json_string(v));
        json_array_append_new(list, json_integer(i));
    }
    json_object_set_new(o, "list", list);
    return o;
}

static void assert_tree(const json_t *o, const char *tag, int n)
{
    char k[32], v[64];
    int i;
    assert_int_equal(json_object_size(o), n + 1);
    for (i = 0; i < n; i++) {
        snprintf(k, sizeof(k), "k%d", i);
        snprintf(v, sizeof(v), "value %d of %s", i, tag);
        assert_string_equal(json_string_value(json_object_get(o, k)), v);
        assert_int_equal(json_integer_value(json_array_get(json_object_get(o, "list"), i)), i);
    }
}

static void a_tree_detached_outlives_its_arena(void **state)
{
    apr_pool_t *p1, *p2;
    trv_json_arena *outer;
    json_t *t, *kept, *plain, *big;
    char *text, *s;
    (void)state;
    assert_int_equal(trv_json_arena_install(), 0);
    assert_int_equal(apr_pool_create(&p1, NULL), APR_SUCCESS);
    outer = trv_json_arena_open(p1);
    assert_non_null(trv_json_arena_current());
    t = tree("first", 2000);
    assert_tree(t, "first", 2000);
    /* json_dumps' text, freed the arena's way. */
    text = json_dumps(t, JSON_COMPACT);
    assert_non_null(strstr(text, "\"k1999\":\"value 1999 of first\""));
    trv_json_free(text);
    /* A string larger than a block's share: malloc'd, freed with the tree. */
    s = malloc(200 * 1024);
    memset(s, 'x', 200 * 1024 - 1);
    s[200 * 1024 - 1] = '\0';
    big = json_string(s);
    free(s);
    json_object_set_new(t, "big", big);
    kept = trv_json_arena_detach(t);
    json_decref(t);
    trv_json_arena_enter(outer);
    assert_null(trv_json_arena_current());
    plain = tree("plain", 100);
    apr_pool_destroy(p1);

    /* A later arena reuses the blocks: the kept trees do not change. */
    assert_int_equal(apr_pool_create(&p2, NULL), APR_SUCCESS);
    outer = trv_json_arena_open(p2);
    t = tree("second", 4000);
    assert_tree(t, "second", 4000);
    /* Its bucket array is too big for a block: malloc'd, freed here. */
    json_decref(t);
    trv_json_arena_enter(outer);
    json_object_del(kept, "big");
    assert_tree(kept, "first", 2000);
    assert_tree(plain, "plain", 100);
    apr_pool_destroy(p2);
    json_decref(kept);
    json_decref(plain);
}

typedef struct build {
    char tag[16];
    json_t *t;
    int had_arena;
} build;

static void build_one(void *baton)
{
    build *b = baton;
    b->had_arena = trv_json_arena_current() != NULL;
    b->t = tree(b->tag, 3000);
}

static void each_fanout_thread_bumps_its_own_arena(void **state)
{
    apr_pool_t *p = *state;
    build b[4];
    void *batons[4];
    trv_json_arena *outer;
    int i;
    assert_int_equal(trv_json_arena_install(), 0);
    outer = trv_json_arena_open(p);
    for (i = 0; i < 4; i++) {
        snprintf(b[i].tag, sizeof(b[i].tag), "call %d", i);
        batons[i] = &b[i];
    }
    trv_fanout(p, 4, build_one, batons);
    for (i = 0; i < 4; i++) {
        assert_int_equal(b[i].had_arena, 1);
        assert_tree(b[i].t, b[i].tag, 3000);
        json_decref(b[i].t);
    }
    trv_json_arena_enter(outer);
}

static void without_an_arena_the_calls_use_malloc(void **state)
{
    build b[2] = {{"none 0", NULL, 1}, {"none 1", NULL, 1}};
    void *batons[2] = {&b[0], &b[1]};
    (void)state;
    assert_int_equal(trv_json_arena_install(), 0);
    assert_null(trv_json_arena_current());
    trv_fanout(*state, 2, build_one, batons);
    assert_int_equal(b[0].had_arena, 0);
    assert_int_equal(b[1].had_arena, 0);
    assert_tree(b[0].t, "none 0", 3000);
    json_decref(b[0].t);
    json_decref(b[1].t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_tree_detached_outlives_its_arena),
        cmocka_unit_test_setup_teardown(each_fanout_thread_bumps_its_own_arena, pool_setup,
                                        pool_teardown),
        cmocka_unit_test_setup_teardown(without_an_arena_the_calls_use_malloc, pool_setup,
                                        pool_teardown),
    };
    return UNIT_RUN(tests);
}
