/* trv_json_write must write what json_dumps writes with the service's
 * flags (TRV_JSON_DUMP_FLAGS | JSON_ENCODE_ANY), byte for byte, for every
 * tree, and write nothing where Jansson would fail or it does not follow
 * Jansson (its caller then asks Jansson): random trees of every kind of
 * value (strings with every control byte, quotes, backslashes and
 * multi-byte UTF-8; integers to the 64-bit ends; reals of every
 * magnitude, money-like decimals among them), the cases one by one, and
 * text that is not UTF-8. The text writer (core/json_text.c, member by
 * member without a tree) must write the same text for the same members. */
#include "unit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "core/json_text.h"
#include "core/json_write.h"

static unsigned long long seed = 88172645463325252ull;

static unsigned long long rnd(void)
{
    return unit_rnd(&seed);
}

/* Text of up to 12 pieces: ASCII, the bytes Jansson escapes, UTF-8 of
 * two to four bytes, and now and then a NUL inside (json_stringn). */
static json_t *random_string(void)
{
    static const char *const pieces[] = {
        "a", "Z", " ", "\"", "\\", "/", "\b", "\f", "\n", "\r", "\t", "\x01", "\x1f", "\x7f",
        "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xe2\x80\xa8", "htl_01", "100.00"};
    char buf[128];
    size_t n = 0, k = rnd() % 13, i;
    for (i = 0; i < k; i++) {
        const char *s = pieces[rnd() % (sizeof(pieces) / sizeof(pieces[0]))];
        memcpy(buf + n, s, strlen(s));
        n += strlen(s);
    }
    if (n && rnd() % 10 == 0) {
        buf[rnd() % n] = '\0';
    }
    return json_stringn(buf, n);
}

static json_t *random_real(void)
{
    switch (rnd() % 5) {
    case 0: /* money: an exact decimal of two places */
        return json_real((double)(long long)(rnd() % 100000000) / 100.0);
    case 1:
        return json_real((double)(long long)(rnd() % 2000001 - 1000000) / 1000.0);
    case 2: /* any magnitude */
        return json_real(ldexp((double)(rnd() % 1000000) / 999983.0, (int)(rnd() % 2100) - 1050));
    case 3:
        return json_real((double)(long long)(rnd() % 1000000000000000ull));
    default:
        return json_real(-ldexp(1.0 + (double)(rnd() % 1000) / 7.0, (int)(rnd() % 200) - 100));
    }
}

static json_t *random_value(int depth)
{
    unsigned k = (unsigned)(rnd() % (depth > 5 ? 6 : 8));
    json_t *v;
    int i, n;
    switch (k) {
    case 0: return json_null();
    case 1: return rnd() % 2 ? json_true() : json_false();
    case 2:
        switch (rnd() % 5) {
        case 0: return json_integer(INT64_MAX);
        case 1: return json_integer(INT64_MIN);
        case 2: return json_integer((json_int_t)(((unsigned long long)rnd() << 33) ^ rnd()));
        default: return json_integer((json_int_t)(rnd() % 2000001) - 1000000);
        }
    case 3: return random_real();
    case 4:
    case 5: return random_string();
    case 6:
        v = json_array();
        n = (int)(rnd() % 6);
        for (i = 0; i < n; i++) {
            json_array_append_new(v, random_value(depth + 1));
        }
        return v;
    default:
        v = json_object();
        n = (int)(rnd() % 6);
        for (i = 0; i < n; i++) {
            json_t *key = random_string();
            json_object_setn_new(v, json_string_value(key), json_string_length(key),
                                 random_value(depth + 1));
            json_decref(key);
        }
        return v;
    }
}

/* The same text as json_dumps, or NULL where json_dumps is NULL. */
static void same_as_jansson(apr_pool_t *p, const json_t *v)
{
    char *want = json_dumps(v, TRV_JSON_DUMP_FLAGS | JSON_ENCODE_ANY);
    apr_size_t len = 0;
    char *got = trv_json_write(p, v, &len);
    if (!want) {
        assert_null(got);
        return;
    }
    assert_non_null(got);
    assert_int_equal(len, strlen(want));
    assert_string_equal(got, want);
    /* And trv_json_dump, which every answer goes through. */
    assert_string_equal(trv_json_dump(p, v), want);
    free(want);
}

static void random_trees_are_written_as_jansson_writes_them(void **state)
{
    apr_pool_t *p = *state;
    int i;
    for (i = 0; i < 20000; i++) {
        json_t *v = random_value(0);
        same_as_jansson(p, v);
        json_decref(v);
        if (i % 1000 == 999) {
            apr_pool_clear(p);
        }
    }
}

/* The writer's money fast path (whole hundredths written without %.15g)
 * against json_dumps: every k/100 for |k| <= 200,000, random ones up to
 * 10^13 hundredths and past it, each one's neighbouring doubles (not
 * hundredths: the slow path), and negative zero. */
static void hundredths_are_written_as_jansson_writes_them(void **state)
{
    apr_pool_t *p = *state;
    long long k;
    int i;
    for (k = -200000; k <= 200000; k++) {
        json_t *v = json_real((double)k / 100.0);
        same_as_jansson(p, v);
        json_decref(v);
        if (k % 1000 == 0) {
            apr_pool_clear(p);
        }
    }
    for (i = 0; i < 200000; i++) {
        long long m = (long long)(rnd() % 20000000000000ull) - 10000000000000ll;
        double d = (double)m / 100.0;
        json_t *v = json_pack("[f,f,f,f]", d, nextafter(d, INFINITY), nextafter(d, -INFINITY),
                              d * 10.0);
        same_as_jansson(p, v);
        json_decref(v);
        if (i % 1000 == 999) {
            apr_pool_clear(p);
        }
    }
    {
        json_t *v = json_pack("[f,f,f,f]", -0.0, 0.0, 99999999999.99, -99999999999.99);
        same_as_jansson(p, v);
        assert_string_equal(trv_json_write(p, v, NULL),
                            "[-0.0,0.0,99999999999.99,-99999999999.99]");
        json_decref(v);
    }
}

static void each_kind_of_value_alone(void **state)
{
    apr_pool_t *p = *state;
    static const double reals[] = {0.0, -0.0, 0.1, 1.0, 100.0, 1e15, 1e16, 1e21, 1e-7, 1.5e-300,
                                   -2.5e300, 123456789012345.6, 0.30000000000000004, 99.99,
                                   1234.5, 5e-324, 1.7976931348623157e308};
    json_t *v;
    size_t i;
    for (i = 0; i < sizeof(reals) / sizeof(reals[0]); i++) {
        v = json_real(reals[i]);
        same_as_jansson(p, v);
        json_decref(v);
    }
    v = json_pack("{s:[],s:{},s:s,s:n,s:b,s:I}", "a", "o", "s", "x\"y\\z\n\x01", "n", "t", 1,
                  "i", (json_int_t)-42);
    same_as_jansson(p, v);
    json_decref(v);
    v = json_stringn("a\0b", 3);
    same_as_jansson(p, v);
    assert_string_equal(trv_json_write(p, v, NULL), "\"a\\u0000b\"");
    json_decref(v);
    assert_null(trv_json_write(p, NULL, NULL));
}

static void text_that_is_not_utf8_is_left_to_jansson(void **state)
{
    apr_pool_t *p = *state;
    static const char *const bad[] = {"\xff", "a\xc3", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80"};
    size_t i;
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        json_t *a = json_array();
        json_array_append_new(a, json_string_nocheck(bad[i]));
        assert_null(trv_json_write(p, a, NULL));
        same_as_jansson(p, a);
        json_decref(a);
    }
}

/* The scan that passes plain text 8 bytes at a time: every byte at every
 * place of strings of 1 to 20 bytes, so that each falls in a word, in the
 * tail after the words, and at their seams. */
static void every_byte_at_every_place(void **state)
{
    apr_pool_t *p = *state;
    char buf[24];
    int len, at, c;
    for (len = 1; len <= 20; len++) {
        for (at = 0; at < len; at++) {
            for (c = 1; c < 256; c++) {
                json_t *v;
                memset(buf, 'a', sizeof(buf));
                buf[at] = (char)c;
                v = json_stringn_nocheck(buf, (size_t)len);
                same_as_jansson(p, v);
                json_decref(v);
            }
        }
    }
}

static void a_tree_deeper_than_the_writer_goes_is_left_to_jansson(void **state)
{
    apr_pool_t *p = *state;
    json_t *root = json_array(), *at = root;
    char *want;
    int i;
    for (i = 0; i < TRV_JSON_WRITE_MAX_DEPTH + 5; i++) {
        json_t *next = json_array();
        json_array_append_new(at, next);
        at = next;
    }
    assert_null(trv_json_write(p, root, NULL));
    want = json_dumps(root, TRV_JSON_DUMP_FLAGS);
    assert_non_null(want);
    assert_string_equal(trv_json_dump(p, root), want);
    free(want);
    json_decref(root);
}

/* v written member by member with core/json_text.h's calls. */
static void write_members(trv_jtext *t, const json_t *v)
{
    size_t i;
    switch (json_typeof(v)) {
    case JSON_NULL: trv_jtext_null(t); break;
    case JSON_TRUE: trv_jtext_bool(t, 1); break;
    case JSON_FALSE: trv_jtext_bool(t, 0); break;
    case JSON_INTEGER: trv_jtext_int(t, json_integer_value(v)); break;
    case JSON_REAL: trv_jtext_real(t, json_real_value(v)); break;
    case JSON_STRING: trv_jtext_strn(t, json_string_value(v), json_string_length(v)); break;
    case JSON_ARRAY:
        trv_jtext_arr(t);
        for (i = 0; i < json_array_size(v); i++) {
            write_members(t, json_array_get(v, i));
        }
        trv_jtext_end(t);
        break;
    default: {
        void *it = json_object_iter((json_t *)v);
        trv_jtext_obj(t);
        for (; it; it = json_object_iter_next((json_t *)v, it)) {
            trv_jtext_keyn(t, json_object_iter_key(it), json_object_iter_key_len(it));
            write_members(t, json_object_iter_value(it));
        }
        trv_jtext_end(t);
    }
    }
}

static void text_written_member_by_member_is_jansson_s(void **state)
{
    apr_pool_t *p = *state;
    int i;
    for (i = 0; i < 20000; i++) {
        json_t *v = random_value(0);
        char *want;
        trv_jtext t;
        const char *got;
        apr_size_t len = 0;
        if (!v) { /* json_real of an infinity */
            continue;
        }
        want = json_dumps(v, TRV_JSON_DUMP_FLAGS | JSON_ENCODE_ANY);
        trv_jtext_init(&t, p, 16);
        write_members(&t, v);
        got = trv_jtext_done(&t, &len);
        if (!want) {
            assert_null(got);
        }
        else {
            assert_non_null(got);
            assert_int_equal(len, strlen(want));
            assert_string_equal(got, want);
        }
        free(want);
        json_decref(v);
        if (i % 1000 == 999) {
            apr_pool_clear(p);
        }
    }
}

/* v written with core/json_text.h's calls, every second member or element
 * handed whole to trv_json_write_to (a tree inside text: hotel offers'
 * documents). */
static void write_mixed(trv_jtext *t, const json_t *v, int *turn)
{
    size_t i;
    if (!json_is_object(v) && !json_is_array(v)) {
        assert_int_equal(trv_json_write_to(t, v), 0);
        return;
    }
    if (json_is_array(v)) {
        trv_jtext_arr(t);
        for (i = 0; i < json_array_size(v); i++) {
            if ((*turn)++ % 2) {
                assert_int_equal(trv_json_write_to(t, json_array_get(v, i)), 0);
            }
            else {
                write_mixed(t, json_array_get(v, i), turn);
            }
        }
    }
    else {
        void *it = json_object_iter((json_t *)v);
        trv_jtext_obj(t);
        for (; it; it = json_object_iter_next((json_t *)v, it)) {
            trv_jtext_keyn(t, json_object_iter_key(it), json_object_iter_key_len(it));
            if ((*turn)++ % 2) {
                assert_int_equal(trv_json_write_to(t, json_object_iter_value(it)), 0);
            }
            else {
                write_mixed(t, json_object_iter_value(it), turn);
            }
        }
    }
    trv_jtext_end(t);
}

static void trees_written_inside_text_are_jansson_s(void **state)
{
    apr_pool_t *p = *state;
    int i, turn = 0;
    trv_jtext t;
    for (i = 0; i < 20000; i++) {
        /* Containers only: a scalar is written whole either way. */
        json_t *v = random_value(0), *in = json_is_object(v) || json_is_array(v) ? v
                                                                                 : json_pack("[O]", v);
        char *want = in ? json_dumps(in, TRV_JSON_DUMP_FLAGS) : NULL;
        const char *got;
        if (!want) { /* no value, or one Jansson does not write: tested below */
            json_decref(v);
            if (in != v) {
                json_decref(in);
            }
            continue;
        }
        trv_jtext_init(&t, p, 16);
        write_mixed(&t, in, &turn);
        got = trv_jtext_done(&t, NULL);
        assert_non_null(got);
        assert_string_equal(got, want);
        free(want);
        if (in != v) {
            json_decref(in);
        }
        json_decref(v);
        if (i % 1000 == 999) {
            apr_pool_clear(p);
        }
    }
    /* No tree, or one the writer leaves to Jansson: no text at all. */
    trv_jtext_init(&t, p, 16);
    trv_jtext_arr(&t);
    assert_int_equal(trv_json_write_to(&t, NULL), -1);
    trv_jtext_end(&t);
    assert_null(trv_jtext_done(&t, NULL));
    trv_jtext_init(&t, p, 16);
    trv_jtext_obj(&t);
    trv_jtext_key(&t, "name");
    {
        json_t *bad = json_stringn_nocheck("\xff", 1);
        assert_int_equal(trv_json_write_to(&t, bad), -1);
        json_decref(bad);
    }
    trv_jtext_end(&t);
    assert_null(trv_jtext_done(&t, NULL));
}

/* What the text writer cannot write as a whole value it does not answer:
 * a value left open, a key where no object is open or twice in a row, an
 * end too many, text that is not UTF-8, nesting past its depth. Raw text
 * and the shorthands land where a value goes. */
static void the_text_writer_answers_only_whole_values(void **state)
{
    apr_pool_t *p = *state;
    trv_jtext t;
    int i;
    trv_jtext_init(&t, p, 16);
    trv_jtext_obj(&t);
    trv_jtext_kstr(&t, "a", NULL);
    trv_jtext_karr(&t, "b");
    trv_jtext_raw(&t, "{\"x\":1}", 7);
    trv_jtext_real(&t, 2.5);
    trv_jtext_end(&t);
    trv_jtext_kobj(&t, "c");
    trv_jtext_end(&t);
    trv_jtext_kint(&t, "d", -3);
    trv_jtext_kbool(&t, "e", 1);
    trv_jtext_knull(&t, "f");
    trv_jtext_kreal(&t, "g", 10.0);
    assert_null(trv_jtext_done(&t, NULL));
    trv_jtext_end(&t);
    assert_string_equal(trv_jtext_done(&t, NULL),
                        "{\"a\":null,\"b\":[{\"x\":1},2.5],\"c\":{},\"d\":-3,\"e\":true,"
                        "\"f\":null,\"g\":10.0}");

    trv_jtext_init(&t, p, 16);
    trv_jtext_arr(&t);
    trv_jtext_key(&t, "k");
    trv_jtext_end(&t);
    assert_null(trv_jtext_done(&t, NULL));

    trv_jtext_init(&t, p, 16);
    trv_jtext_obj(&t);
    trv_jtext_key(&t, "k");
    trv_jtext_key(&t, "l");
    trv_jtext_null(&t);
    trv_jtext_end(&t);
    assert_null(trv_jtext_done(&t, NULL));

    trv_jtext_init(&t, p, 16);
    trv_jtext_obj(&t);
    trv_jtext_key(&t, "k");
    trv_jtext_end(&t);
    assert_null(trv_jtext_done(&t, NULL));

    trv_jtext_init(&t, p, 16);
    trv_jtext_arr(&t);
    trv_jtext_end(&t);
    trv_jtext_end(&t);
    assert_null(trv_jtext_done(&t, NULL));

    trv_jtext_init(&t, p, 16);
    trv_jtext_arr(&t);
    trv_jtext_str(&t, "a\xc3");
    trv_jtext_end(&t);
    assert_null(trv_jtext_done(&t, NULL));

    trv_jtext_init(&t, p, 16);
    for (i = 0; i < TRV_JTEXT_MAX_DEPTH + 1; i++) {
        trv_jtext_arr(&t);
    }
    for (i = 0; i < TRV_JTEXT_MAX_DEPTH + 1; i++) {
        trv_jtext_end(&t);
    }
    assert_null(trv_jtext_done(&t, NULL));

    trv_jtext_init(&t, p, 16);
    assert_null(trv_jtext_done(&t, NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(random_trees_are_written_as_jansson_writes_them,
                                        pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(hundredths_are_written_as_jansson_writes_them,
                                        pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(each_kind_of_value_alone, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(text_that_is_not_utf8_is_left_to_jansson, pool_setup,
                                        pool_teardown),
        cmocka_unit_test_setup_teardown(every_byte_at_every_place, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(a_tree_deeper_than_the_writer_goes_is_left_to_jansson,
                                        pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(text_written_member_by_member_is_jansson_s, pool_setup,
                                        pool_teardown),
        cmocka_unit_test_setup_teardown(trees_written_inside_text_are_jansson_s, pool_setup,
                                        pool_teardown),
        cmocka_unit_test_setup_teardown(the_text_writer_answers_only_whole_values, pool_setup,
                                        pool_teardown),
    };
    return UNIT_RUN(tests);
}
