/* core/jval.c, the reader of suppliers' answers: it accepts and refuses
 * what trv_json_parse (Jansson, the reader it replaces on the search path)
 * does, reads every accepted document as Jansson does (jval_same.h), and
 * its readers are NULL-safe as Jansson's. tests/fuzz/fuzz_jval.c makes
 * the same comparison on generated input. */
#include "unit.h"
#include "jval_same.h"

#include "core/json.h"
#include "core/jval.h"

#include <apr_strings.h>

/* Both readers on text: 1 when both accept it and read it alike, 0 when
 * both refuse it; fails the test when they disagree. */
static int both(apr_pool_t *p, const char *text, apr_size_t len)
{
    char *copy = apr_pstrmemdup(p, text, len);
    const char *why = NULL;
    const trv_jval *v = trv_jval_parse(p, copy, len, &why);
    json_t *j = trv_json_parse(p, text, len, NULL);
    if (!!v != !!j) {
        fail_msg("jval %s, Jansson %s: %.*s (%s)", v ? "accepts" : "refuses",
                 j ? "accepts" : "refuses", (int)len, text, why ? why : "");
    }
    if (v && !jval_same(v, j)) {
        fail_msg("jval reads otherwise than Jansson: %.*s", (int)len, text);
    }
    if (!v) {
        assert_non_null(why);
    }
    return v != NULL;
}

#define BOTH(p, lit) both(p, lit, sizeof(lit) - 1)

static void accepts_what_jansson_accepts(void **state)
{
    apr_pool_t *p = *state;
    static const char *const ok[] = {
        "{}", "[]", " {\"a\" : 1 } ", "0", "-0", "-0.0", "1e5", "1E+5", "1.5e-3", "\"\"",
        "true", "false", "null", "[1,2.5,\"x\",true,false,null,{},[]]",
        "{\"data\":{\"offers\":[{\"id\":\"off_1\",\"total_amount\":\"123.45\"}]}}",
        "\"\\u00e9\\ud83d\\ude00\\n\\t\\\"\\\\\\/\\b\\f\\r\"", "\"caf\xc3\xa9 \xf0\x9f\x98\x80\"",
        "9223372036854775807", "-9223372036854775808", "1e-400", "[[[[[[[[[[]]]]]]]]]]",
        "{\"a\":{\"a\":{\"a\":1}},\"b\":[{\"a\":2}]}", "\t\r\n[ 1 , 2 ]\n",
        "{\"k1\":1,\"k2\":2,\"k3\":3,\"k4\":4,\"k5\":5,\"k6\":6,\"k7\":7,\"k8\":8,\"k9\":9,"
        "\"k10\":10,\"k11\":11,\"k12\":12,\"k13\":13,\"k14\":14,\"k15\":15,\"k16\":16,"
        "\"k17\":17,\"k18\":18}",
        NULL};
    int i;
    for (i = 0; ok[i]; i++) {
        assert_int_equal(both(p, ok[i], strlen(ok[i])), 1);
    }
}

static void refuses_what_jansson_refuses(void **state)
{
    apr_pool_t *p = *state;
    static const char *const bad[] = {
        "", " ", "{", "[", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{1:2}", "01", "-", "1.", ".5",
        "1e", "1e+", "+1", "tru", "truex", "nul", "[1 2]", "{} {}", "\"abc", "\"\\x\"",
        "\"\\u12\"", "\"\\u0000\"", "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\"",
        "\"\x01\"", "\"\xc3\"", "\"\xc0\xaf\"", "\"\xed\xa0\x80\"", "\"\xf4\x90\x80\x80\"",
        "\"\xff\"", "9223372036854775808", "-9223372036854775809", "1e400", "-1e400",
        "{\"a\":1,\"a\":2}", "[{\"x\":1,\"y\":2,\"x\":3}]",
        "{\"k1\":1,\"k2\":2,\"k3\":3,\"k4\":4,\"k5\":5,\"k6\":6,\"k7\":7,\"k8\":8,\"k9\":9,"
        "\"k10\":10,\"k11\":11,\"k12\":12,\"k13\":13,\"k14\":14,\"k15\":15,\"k16\":16,"
        "\"k17\":17,\"k1\":18}",
        "[1]x", "NaN", "Infinity", "[\"a\"\"b\"]", NULL};
    int i;
    for (i = 0; bad[i]; i++) {
        assert_int_equal(both(p, bad[i], strlen(bad[i])), 0);
    }
    /* A NUL byte inside a string, and outside one. */
    assert_int_equal(BOTH(p, "\"a\0b\""), 0);
    assert_int_equal(BOTH(p, "[1]\0"), 0);
    /* Jansson skips a NUL right after a number or a word (it reads one
     * byte ahead and a NUL put back is lost): so does jval. */
    assert_int_equal(BOTH(p, "[1\0]"), 1);
    assert_int_equal(BOTH(p, "[true\0,2\0]"), 1);
    assert_int_equal(BOTH(p, "[1\0\0]"), 0);
}

static void depth_as_jansson(void **state)
{
    apr_pool_t *p = *state;
    int n;
    for (n = 2047; n <= 2050; n++) {
        char *text = apr_palloc(p, (apr_size_t)n * 2);
        memset(text, '[', (size_t)n);
        memset(text + n, ']', (size_t)n);
        both(p, text, (apr_size_t)n * 2);
    }
}

static void readers(void **state)
{
    apr_pool_t *p = *state;
    char *text = apr_pstrdup(p, "{\"data\":[{\"id\":\"a\\\"b\",\"n\":3,\"r\":2.5},{\"id\":\"c\"}],"
                                "\"ok\":true,\"none\":null}");
    const trv_jval *doc = trv_jval_parse(p, text, strlen(text), NULL), *data, *v;
    const char *key;
    apr_size_t i, seen = 0;
    assert_non_null(doc);
    data = trv_jval_get(doc, "data");
    assert_int_equal(trv_jval_len(data), 2);
    assert_string_equal(trv_jval_strget(trv_jval_at(data, 0), "id"), "a\"b");
    assert_string_equal(trv_jval_strget(trv_jval_at(data, 1), "id"), "c");
    assert_null(trv_jval_at(data, 2));
    assert_int_equal(trv_jval_int(trv_jval_get(trv_jval_at(data, 0), "n")), 3);
    assert_true(trv_jval_num(trv_jval_get(trv_jval_at(data, 0), "r")) == 2.5);
    assert_int_equal(trv_jval_int(trv_jval_get(trv_jval_at(data, 0), "r")), 0);
    assert_true(trv_jval_is_true(trv_jval_get(doc, "ok")));
    assert_true(trv_jval_is(trv_jval_get(doc, "none"), TRV_JVAL_NULL));
    /* Absent, mistyped and NULL read as nothing. */
    assert_null(trv_jval_get(doc, "missing"));
    assert_null(trv_jval_get(data, "id"));
    assert_null(trv_jval_get(NULL, "id"));
    assert_null(trv_jval_strget(doc, "ok"));
    assert_int_equal(trv_jval_len(NULL), 0);
    assert_int_equal(trv_jval_len(doc), 0);
    assert_int_equal(trv_jval_members(doc), 3);
    trv_jval_foreach(NULL, i, v) {
        fail();
    }
    trv_jval_foreach(doc, i, v) {
        fail(); /* an object has no items */
    }
    trv_jval_foreach_member(doc, i, key, v) {
        assert_ptr_equal(trv_jval_get(doc, key), v);
        seen++;
    }
    assert_int_equal(seen, 3);
}

/* A document bigger than the first guess of its size grows its array. */
static void many_values(void **state)
{
    apr_pool_t *p = *state;
    char *text = apr_palloc(p, 2 + 2 * 20000 + 1), *t = text;
    const trv_jval *doc;
    int i;
    *t++ = '[';
    for (i = 0; i < 20000; i++) {
        *t++ = i ? ',' : '0';
        if (i) {
            *t++ = '0';
        }
    }
    *t++ = ']';
    assert_int_equal(both(p, text, (apr_size_t)(t - text)), 1);
    doc = trv_jval_parse(p, apr_pstrmemdup(p, text, (apr_size_t)(t - text)),
                         (apr_size_t)(t - text), NULL);
    assert_int_equal(trv_jval_len(doc), 20000);
    assert_int_equal(doc->skip, 20001);
}

/* An object of n keys "k0".."k{n-1}", with key dup written again last
 * when dup >= 0. */
static char *object_of(apr_pool_t *p, int n, int dup)
{
    char *t = apr_pstrdup(p, "{");
    int i;
    for (i = 0; i < n; i++) {
        t = apr_psprintf(p, "%s%s\"k%d\":%d", t, i ? "," : "", i, i);
    }
    if (dup >= 0) {
        t = apr_psprintf(p, "%s,\"k%d\":0", t, dup);
    }
    return apr_pstrcat(p, t, "}", NULL);
}

/* A key twice is refused, as Jansson refuses it, whatever the object's size
 * (pairwise up to 32 keys, a table on the stack up to 128, a malloc'd one
 * beyond), and where the repeated key stands. */
static void duplicate_keys_in_objects_of_any_size(void **state)
{
    apr_pool_t *p = *state;
    static const int sizes[] = {2, 16, 17, 32, 33, 40, 128, 129, 300};
    size_t i;
    for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        char *t;
        int n = sizes[i];
        t = object_of(p, n, -1);
        assert_int_equal(both(p, t, strlen(t)), 1);
        t = object_of(p, n, 0);
        assert_int_equal(both(p, t, strlen(t)), 0);
        t = object_of(p, n, n - 1);
        assert_int_equal(both(p, t, strlen(t)), 0);
        t = object_of(p, n, n / 2);
        assert_int_equal(both(p, t, strlen(t)), 0);
    }
}

/* In objects of up to 32 keys (the ones compared pairwise, after a
 * filter on each key's length and first and last bytes), a key repeated
 * at any two positions is refused, and keys alike in all three but
 * different in between are not (nor the empty key once). */
static void repeated_keys_at_every_pair_of_positions(void **state)
{
    apr_pool_t *p = *state;
    int n, a, b, i;
    for (n = 2; n <= 32; n++) {
        for (a = 0; a < n; a++) {
            for (b = a + 1; b < n; b++) {
                char *t = apr_pstrdup(p, "{");
                for (i = 0; i < n; i++) {
                    /* "x00y" keys: alike in length and ends; key b repeats a */
                    t = apr_psprintf(p, "%s%s\"x%02dy\":%d", t, i ? "," : "",
                                     i == b ? a : i, i);
                }
                t = apr_pstrcat(p, t, "}", NULL);
                assert_int_equal(both(p, t, strlen(t)), 0);
            }
        }
        {
            char *t = apr_pstrdup(p, "{\"\":0");
            for (i = 1; i < n; i++) {
                t = apr_psprintf(p, "%s,\"x%02dy\":%d", t, i, i);
            }
            t = apr_pstrcat(p, t, "}", NULL);
            assert_int_equal(both(p, t, strlen(t)), 1);
        }
    }
}

/* Numbers as Jansson reads them, bit for bit: the short ones are read
 * without strtod/strtoll (fast_number), the rest with them, so every
 * length around the fast path's limits (15 digits of a real, 18 of an
 * integer, 22 and more decimals), with and without a sign, exponent or
 * leading zeros, is read both ways and compared. */
static void numbers_are_read_as_jansson_reads_them(void **state)
{
    apr_pool_t *p = *state;
    unsigned long long seed = 12345;
    int i;
    for (i = 0; i < 300000; i++) {
        char text[96];
        unsigned long long r = unit_rnd(&seed);
        int n = 0, whole = (int)(r % 21), frac = (int)((r >> 8) % 25) - 1, k;
        /* whole: digits before the point; frac: after it, -1 for none */
        if ((r >> 16) & 1) {
            text[n++] = '-';
        }
        if (whole == 0) {
            text[n++] = '0';
        }
        for (k = 0; k < whole; k++) {
            r = unit_rnd(&seed);
            text[n++] = (char)('0' + (k == 0 ? 1 + r % 9 : r % 10));
        }
        if (frac >= 0) {
            text[n++] = '.';
            for (k = 0; k <= frac; k++) {
                text[n++] = (char)('0' + unit_rnd(&seed) % 10);
            }
        }
        r = unit_rnd(&seed);
        if (r % 16 == 0) {
            n += snprintf(text + n, sizeof(text) - (size_t)n, "e%d", (int)((r >> 8) % 40) - 20);
        }
        text[n] = '\0';
        both(p, text, (apr_size_t)n);
        if (i % 1000 == 0) {
            apr_pool_clear(p);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(accepts_what_jansson_accepts, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(refuses_what_jansson_refuses, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(depth_as_jansson, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(readers, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(numbers_are_read_as_jansson_reads_them, pool_setup,
                                        pool_teardown),
        cmocka_unit_test_setup_teardown(many_values, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(repeated_keys_at_every_pair_of_positions, pool_setup,
                                        pool_teardown),
        cmocka_unit_test_setup_teardown(duplicate_keys_in_objects_of_any_size, pool_setup,
                                        pool_teardown),
    };
    return UNIT_RUN(tests);
}
