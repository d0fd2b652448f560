/* The booking lists' shared query (core/list_page.c): for every status
 * kind, combination of filters, sort, page size and form, the statement's
 * text takes exactly the arguments built for it, in its placeholders'
 * order, so a page never binds a supplier where a date belongs. Checked
 * with a list shaped as the flight one (two owners, four filters) and one
 * shaped as the hotel one (one owner, three). */
#include "unit.h"

#include <apr_strings.h>
#include <stdlib.h>
#include <string.h>

#include "core/list_page.h"

static const trv_list_shape shape = {"t_bookings", "t_booking_docs", "expires_at"};

/* Each placeholder names what it takes, so the order can be read back. */
#define TOTAL_COUNTS(o) \
    {{"(SELECT count(*) FROM t WHERE o = %s" o ")", \
      "(SELECT count(*) FROM t WHERE o = %s" o " AND s = %s/*supplier*/)"}, \
     {"(SELECT count(*) FROM t WHERE o = %s" o " AND st = %s/*status*/)", \
      "(SELECT count(*) FROM t WHERE o = %s" o " AND st = %s/*status*/ AND s = %s/*supplier*/)"}}

static const trv_stmt *made_two[TRV_LIST_KINDS * 16 * TRV_LIST_SORTS * 4];
static trv_list_stmts two_variants = {"t_two_", TRV_LIST_KINDS * 16 * TRV_LIST_SORTS * 4,
                                      made_two, PTHREAD_MUTEX_INITIALIZER};
static const trv_list_page_query two = {
    &shape, &two_variants, "b.o = %s AND b.u = %s/*user*/", 2,
    {"", " AND b.st = %s/*status*/", " AND b.st = 'READY'", " AND b.st = 'EXPIRED'"},
    4,
    {" AND b.s = %s/*supplier*/", " AND b.r = %s/*ref*/", " AND b.c >= %s/*from*/",
     " AND b.c <= %s/*to*/"},
    TOTAL_COUNTS(" AND u = %s/*user*/"),
    "total(%s, %s/*user*/, %s/*status*/, %s/*supplier*/, %s/*ref*/, %s/*from*/, %s/*to*/)"};

static const trv_stmt *made_one[TRV_LIST_KINDS * 8 * TRV_LIST_SORTS * 4];
static trv_list_stmts one_variants = {"t_one_", TRV_LIST_KINDS * 8 * TRV_LIST_SORTS * 4,
                                      made_one, PTHREAD_MUTEX_INITIALIZER};
static const trv_list_page_query one = {
    &shape, &one_variants, "b.o = %s", 1,
    {"", " AND b.st = %s/*status*/", " AND b.st = 'READY'", " AND b.st = 'EXPIRED'"},
    3,
    {" AND b.s = %s/*supplier*/", " AND b.c >= %s/*from*/", " AND b.c <= %s/*to*/"},
    TOTAL_COUNTS(""),
    "total(%s, %s/*status*/, %s/*supplier*/, %s/*from*/, %s/*to*/)"};

/* What each placeholder of sql takes, in order: the comment after it, or
 * "owner" / "limit" / "offset" where there is none. */
static apr_array_header_t *placeholders(apr_pool_t *p, const char *sql)
{
    apr_array_header_t *out = apr_array_make(p, 16, sizeof(const char *));
    const char *m = sql;
    while ((m = strstr(m, "%s"))) {
        const char *name = "owner";
        if (strncmp(m + 2, "/*", 2) == 0) {
            const char *e = strstr(m + 4, "*/");
            name = apr_pstrndup(p, m + 4, (apr_size_t)(e - m - 4));
        }
        else if (strncmp(m + 2, "::bigint", 8) == 0) {
            name = "limit-or-offset";
        }
        APR_ARRAY_PUSH(out, const char *) = name;
        m += 2;
    }
    return out;
}

static const trv_list_page_query *building;

static char *build(int v)
{
    return trv_list_page_query_sql(building, v);
}

static void check_all(apr_pool_t *p, const trv_list_page_query *q, const char *const *names)
{
    static const char *const kinds[TRV_LIST_KINDS] = {NULL, "status", "status", "status"};
    int kind, bits, sort, limit, joined, i, checked = 0;

    building = q;
    for (kind = 0; kind < TRV_LIST_KINDS; kind++) {
        for (bits = 0; bits < 1 << q->nfilters; bits++) {
            for (sort = 0; sort < TRV_LIST_SORTS; sort++) {
                for (limit = 0; limit < 2; limit++) {
                    for (joined = 0; joined < 2; joined++) {
                        trv_list_ask a;
                        const char *args[TRV_LIST_MAX_ARGS];
                        apr_array_header_t *want;
                        const trv_stmt *st;
                        int nargs, v;

                        memset(&a, 0, sizeof(a));
                        a.owners[0] = "owner";
                        a.owners[1] = "user";
                        a.status = kinds[kind];
                        a.kind = kind;
                        for (i = 0; i < q->nfilters; i++) {
                            a.filters[i] = bits & (1 << i) ? names[i] : NULL;
                        }
                        a.sort = sort;
                        a.limit = limit ? TRV_LIST_DEFAULT_LIMIT : 50;
                        a.offset = 40;
                        v = trv_list_page_query_args(p, q, &a, joined, args, &nargs);
                        st = trv_list_stmt(q->variants, v, build);
                        assert_non_null(st);
                        want = placeholders(p, st->sql);
                        assert_int_equal(want->nelts, nargs);
                        for (i = 0; i < nargs; i++) {
                            const char *w = APR_ARRAY_IDX(want, i, const char *);
                            const char *got = args[i] ? args[i] : "(null)";
                            if (strcmp(w, "limit-or-offset") == 0) {
                                assert_true(strcmp(got, "50") == 0 || strcmp(got, "40") == 0);
                            }
                            else if (args[i]) {
                                assert_string_equal(got, w);
                            }
                            else {
                                /* A NULL only where the per-day total
                                 * takes an absent filter or status. */
                                assert_true(strstr(st->sql, "total(") != NULL);
                            }
                        }
                        /* The page size is text when it is the default. */
                        assert_int_equal(strstr(st->sql, "LIMIT 20") != NULL, limit);
                        checked++;
                    }
                }
            }
        }
    }
    assert_int_equal(checked, TRV_LIST_KINDS * (1 << q->nfilters) * TRV_LIST_SORTS * 4);
}

static void test_two_owners_four_filters(void **state)
{
    static const char *const names[] = {"supplier", "ref", "from", "to"};
    check_all(*state, &two, names);
}

static void test_one_owner_three_filters(void **state)
{
    static const char *const names[] = {"supplier", "from", "to"};
    check_all(*state, &one, names);
}

static void test_kind(void **state)
{
    (void)state;
    assert_int_equal(trv_list_kind(NULL, 0, 0), TRV_LIST_ANY);
    assert_int_equal(trv_list_kind("CONFIRMED", 0, 0), TRV_LIST_PLAIN);
    assert_int_equal(trv_list_kind("READY_FOR_COMPLETE", 1, 0), TRV_LIST_READY);
    assert_int_equal(trv_list_kind("EXPIRED", 0, 1), TRV_LIST_EXPIRED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_two_owners_four_filters, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(test_one_owner_three_filters, pool_setup, pool_teardown),
        cmocka_unit_test(test_kind),
    };
    return UNIT_RUN(tests);
}
