/* The decoding rule for the request line (core/decode.h), the body shape
 * limits checked before a body is parsed, and the error details that stay
 * valid UTF-8 and bounded in number. */
#include "unit.h"

#include "core/decode.h"
#include "core/errors.h"
#include "core/json.h"

#include <apr_strings.h>
#include <apr_tables.h>
#include <string.h>

static const char *detail(const trv_errs *e, size_t i, const char *what)
{
    return json_string_value(json_object_get(json_array_get(e->details, i), what));
}

static void utf8_validity(void **state)
{
    (void)state;
    assert_true(trv_utf8_valid("", 0));
    assert_true(trv_utf8_valid("abc", 3));
    assert_true(trv_utf8_valid("Z\xC3\xBCrich", 7));           /* ü */
    assert_true(trv_utf8_valid("\xE2\x82\xAC", 3));            /* € */
    assert_true(trv_utf8_valid("\xF0\x9F\x98\x80", 4));        /* U+1F600 */
    assert_false(trv_utf8_valid("\xFF", 1));
    assert_false(trv_utf8_valid("\xC3", 1));                   /* truncated */
    assert_false(trv_utf8_valid("\xC0\xAF", 2));               /* overlong '/' */
    assert_false(trv_utf8_valid("\xE0\x80\xAF", 3));           /* overlong */
    assert_false(trv_utf8_valid("\xED\xA0\x80", 3));           /* surrogate */
    assert_false(trv_utf8_valid("\xF4\x90\x80\x80", 4));       /* > U+10FFFF */
    assert_false(trv_utf8_valid("a\x80" "b", 3));              /* lone continuation */
}

static void utf8_clean_replaces_bad_bytes(void **state)
{
    apr_pool_t *p = *state;
    const char *ok = "caf\xC3\xA9";
    assert_ptr_equal(trv_utf8_clean(p, ok), ok);
    assert_string_equal(trv_utf8_clean(p, "a\xFF" "b"), "a\xEF\xBF\xBD" "b");
    assert_string_equal(trv_utf8_clean(p, "\xC3"), "\xEF\xBF\xBD");
    assert_null(trv_utf8_clean(p, NULL));
}

static void query_pairs_decode(void **state)
{
    apr_pool_t *p = *state;
    apr_table_t *t = apr_table_make(p, 4);
    trv_errs *e = trv_errs_new(p);
    trv_query_decode(p, "q=New+York&city=M%C3%BCnchen&flag&&empty=&", t, e);
    assert_false(trv_errs_any(e));
    assert_string_equal(apr_table_get(t, "q"), "New York");
    assert_string_equal(apr_table_get(t, "city"), "M\xC3\xBCnchen");
    assert_string_equal(apr_table_get(t, "flag"), "");
    assert_string_equal(apr_table_get(t, "empty"), "");
    assert_int_equal(apr_table_elts(t)->nelts, 4);
    trv_query_decode(p, NULL, t, e);
    assert_false(trv_errs_any(e));
}

static void undecodable_pairs_are_details(void **state)
{
    apr_pool_t *p = *state;
    apr_table_t *t = apr_table_make(p, 4);
    trv_errs *e = trv_errs_new(p);
    /* Each bad pair is reported, none is dropped silently or kept. */
    trv_query_decode(p, "limit=1&limit=5%00&bogus=%&x=%4&q=%ff&%ff=1&y=%zz&c=a%0Ab&ok=1",
                     t, e);
    assert_int_equal(e->count, 7);
    assert_string_equal(detail(e, 0, "field"), "limit");
    assert_non_null(strstr(detail(e, 0, "reason"), "control"));
    assert_string_equal(detail(e, 1, "field"), "bogus");
    assert_non_null(strstr(detail(e, 1, "reason"), "percent-encoding"));
    assert_string_equal(detail(e, 2, "field"), "x");
    assert_string_equal(detail(e, 3, "field"), "q");
    assert_non_null(strstr(detail(e, 3, "reason"), "UTF-8"));
    assert_string_equal(detail(e, 4, "field"), "query");
    assert_non_null(strstr(detail(e, 4, "reason"), "UTF-8"));
    assert_string_equal(detail(e, 5, "field"), "y");
    assert_string_equal(detail(e, 6, "field"), "c");
    /* Only the good pairs are in the table. */
    assert_int_equal(apr_table_elts(t)->nelts, 2);
    assert_string_equal(apr_table_get(t, "limit"), "1");
    assert_string_equal(apr_table_get(t, "ok"), "1");
}

static void paths_are_checked(void **state)
{
    apr_pool_t *p = *state;
    trv_errs *e = trv_errs_new(p);
    assert_true(trv_path_check("/v1/flight/offers/caf\xC3\xA9", e));
    assert_false(trv_errs_any(e));
    assert_false(trv_path_check("/v1/\xFF", e));
    assert_false(trv_path_check("/v1/a\x01" "b", e));
    assert_int_equal(e->count, 2);
    assert_string_equal(detail(e, 0, "field"), "path");
    assert_non_null(strstr(detail(e, 0, "reason"), "UTF-8"));
}

static void details_are_bounded_and_utf8(void **state)
{
    apr_pool_t *p = *state;
    trv_errs *e = trv_errs_new(p);
    int i;
    trv_errs_add(e, "na\xFFme", "bad \xFE value");
    assert_string_equal(detail(e, 0, "field"), "na\xEF\xBF\xBDme");
    assert_string_equal(detail(e, 0, "reason"), "bad \xEF\xBF\xBD value");
    for (i = 0; i < 1000; i++) {
        trv_errs_add(e, apr_psprintf(p, "f%d", i), "is not a known field");
    }
    assert_int_equal(e->count, 1001);
    assert_int_equal(json_array_size(e->details), TRV_ERRS_MAX_DETAILS);
}

static char *repeat(apr_pool_t *p, const char *open, const char *item, int n,
                    const char *close)
{
    apr_array_header_t *a = apr_array_make(p, n, sizeof(const char *));
    int i;
    for (i = 0; i < n; i++) {
        APR_ARRAY_PUSH(a, const char *) = apr_psprintf(p, item, i);
    }
    return apr_pstrcat(p, open, apr_array_pstrcat(p, a, ','), close, NULL);
}

static void body_shape_limits(void **state)
{
    apr_pool_t *p = *state;
    char *s;
    s = "{\"a\":[1,2,{\"b\":\"x,y}]{\"}],\"c\":null}";
    assert_null(trv_json_shape_check(s, strlen(s)));
    s = repeat(p, "{", "\"k%d\":1", TRV_JSON_MAX_MEMBERS, "}");
    assert_null(trv_json_shape_check(s, strlen(s)));
    s = repeat(p, "{", "\"k%d\":1", TRV_JSON_MAX_MEMBERS + 1, "}");
    assert_non_null(strstr(trv_json_shape_check(s, strlen(s)), "members"));
    /* Members whose values are containers count once each. */
    s = repeat(p, "{", "\"k%d\":{\"a\":[1]}", TRV_JSON_MAX_MEMBERS, "}");
    assert_null(trv_json_shape_check(s, strlen(s)));
    s = repeat(p, "[", "%d", TRV_JSON_MAX_ITEMS, "]");
    assert_null(trv_json_shape_check(s, strlen(s)));
    s = repeat(p, "[", "\"%d\"", TRV_JSON_MAX_ITEMS + 1, "]");
    assert_non_null(strstr(trv_json_shape_check(s, strlen(s)), "items"));
    s = repeat(p, "[", "[1,2,3,4,5,6,7,8,9,%d]", 1000, "]");
    assert_non_null(strstr(trv_json_shape_check(s, strlen(s)), "values"));
    s = apr_pstrcat(p, repeat(p, "", "[", TRV_JSON_MAX_DEPTH, ""), "", NULL);
    assert_null(trv_json_shape_check(s, strlen(s)));
    s = apr_pstrcat(p, s, "[", NULL);
    assert_non_null(strstr(trv_json_shape_check(s, strlen(s)), "deeply"));
    /* Escaped quotes do not end a string. */
    s = apr_pstrcat(p, "{\"a\":\"\\\"", repeat(p, "", "[", 40, ""), "\"}", NULL);
    assert_null(trv_json_shape_check(s, strlen(s)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(utf8_validity),
        cmocka_unit_test_setup_teardown(utf8_clean_replaces_bad_bytes, pool_setup,
                                        pool_teardown),
        cmocka_unit_test_setup_teardown(query_pairs_decode, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(undecodable_pairs_are_details, pool_setup,
                                        pool_teardown),
        cmocka_unit_test_setup_teardown(paths_are_checked, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(details_are_bounded_and_utf8, pool_setup,
                                        pool_teardown),
        cmocka_unit_test_setup_teardown(body_shape_limits, pool_setup, pool_teardown),
    };
    return UNIT_RUN(tests);
}
