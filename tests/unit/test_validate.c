/* Request validation: every check records {field, reason} and hands back a
 * usable default so one 422 lists every problem. Query integers are
 * canonical decimal only, enums and booleans exact, dates mean the whole
 * UTC day, and unknown or repeated parameters and unknown JSON fields are
 * refused rather than silently ignored. */
#include "unit.h"

#include <apr_strings.h>
#include <apr_tables.h>
#include <limits.h>
#include <string.h>

#include "core/clock.h"
#include "core/json.h"
#include "core/validate.h"

typedef struct fixture {
    apr_pool_t *pool;
    apr_table_t *q;
    trv_errs *errs;
} fixture;

static int setup(void **state)
{
    apr_pool_t *p;
    fixture *f;
    if (apr_pool_create(&p, NULL) != APR_SUCCESS) {
        return -1;
    }
    f = apr_pcalloc(p, sizeof(*f));
    f->pool = p;
    f->q = apr_table_make(p, 8);
    f->errs = trv_errs_new(p);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    apr_pool_destroy(f->pool);
    return 0;
}

/* A fresh query holding one parameter, and no errors yet (f->errs keeps
 * its address: callers pass it in the same call). */
static apr_table_t *query1(fixture *f, const char *name, const char *value)
{
    f->q = apr_table_make(f->pool, 4);
    apr_table_add(f->q, name, value);
    json_array_clear(f->errs->details);
    return f->q;
}

static size_t n_errs(const fixture *f)
{
    return json_array_size(f->errs->details);
}

/* Asserts the only detail is on `field` and its reason is `reason`. */
static void assert_one_error(const fixture *f, const char *field, const char *reason)
{
    json_t *d;
    if (n_errs(f) != 1) {
        fail_msg("expected one detail on %s, got %s", field,
                 trv_json_dump(f->pool, f->errs->details));
    }
    d = json_array_get(f->errs->details, 0);
    assert_string_equal(json_string_value(json_object_get(d, "field")), field);
    if (reason) {
        assert_string_equal(json_string_value(json_object_get(d, "reason")), reason);
    }
}

static void test_query_known(void **state)
{
    fixture *f = *state;
    static const char *const known[] = {"limit", "offset", "status", NULL};

    f->q = apr_table_make(f->pool, 4);
    apr_table_add(f->q, "limit", "10");
    apr_table_add(f->q, "status", "confirmed");
    trv_query_known(f->q, known, f->errs);
    assert_false(trv_errs_any(f->errs));

    query1(f, "limt", "10");
    trv_query_known(f->q, known, f->errs);
    assert_one_error(f, "limt", "is not a known parameter");

    query1(f, "LIMIT", "10"); /* names are case-sensitive */
    trv_query_known(f->q, known, f->errs);
    assert_one_error(f, "LIMIT", "is not a known parameter");

    query1(f, "limit", "10");
    apr_table_add(f->q, "limit", "20");
    trv_query_known(f->q, known, f->errs);
    assert_one_error(f, "limit", "must be given once");

    /* Both kinds at once, each reported. */
    query1(f, "offset", "1");
    apr_table_add(f->q, "offset", "2");
    apr_table_add(f->q, "sort", "asc");
    trv_query_known(f->q, known, f->errs);
    assert_int_equal(n_errs(f), 2);
}

static long qint(fixture *f, const char *v, long dflt, long min, long max)
{
    return trv_query_int(query1(f, "limit", v), "limit", dflt, min, max, f->errs);
}

static void int_bad(fixture *f, const char *v)
{
    long n = qint(f, v, 20, 1, 100);
    if (n != 20 || n_errs(f) != 1) {
        fail_msg("limit=\"%s\" gave %ld with %zu details", v, n, n_errs(f));
    }
}

static void test_query_int(void **state)
{
    fixture *f = *state;

    f->q = apr_table_make(f->pool, 1);
    assert_int_equal(trv_query_int(f->q, "limit", 20, 1, 100, f->errs), 20);
    assert_false(trv_errs_any(f->errs));

    assert_int_equal(qint(f, "1", 20, 1, 100), 1);
    assert_int_equal(qint(f, "100", 20, 1, 100), 100);
    assert_int_equal(qint(f, "0", 20, 0, 100), 0);
    assert_int_equal(qint(f, "-5", 0, -10, 10), -5);
    assert_false(trv_errs_any(f->errs));

    int_bad(f, "0");     /* below min */
    int_bad(f, "101");   /* above max */
    int_bad(f, "");
    int_bad(f, "01");
    int_bad(f, "+1");
    int_bad(f, "1x");
    int_bad(f, "x1");
    int_bad(f, "1.0");
    int_bad(f, "1e1");
    int_bad(f, "0x10");
    int_bad(f, " 1");
    int_bad(f, "\t1");
    int_bad(f, "\n1");
    int_bad(f, "1 ");
    int_bad(f, "-");
    int_bad(f, "99999999999999999999999"); /* beyond long */
    assert_int_equal(qint(f, "-01", 0, -10, 10), 0);
    assert_int_equal(n_errs(f), 1);

    qint(f, "500", 20, 1, 100);
    assert_one_error(f, "limit", "must be an integer from 1 to 100");
    qint(f, "-1", 0, 0, LONG_MAX);
    assert_one_error(f, "limit", "must be an integer >= 0");
    assert_true(qint(f, "9223372036854775807", 0, 0, LONG_MAX) == LONG_MAX);
}

static void test_query_enum(void **state)
{
    fixture *f = *state;
    static const char *const values[] = {"confirmed", "cancelled", "pending", NULL};
    const char *v;

    f->q = apr_table_make(f->pool, 1);
    assert_string_equal(trv_query_enum(f->q, "status", values, "pending", f->errs),
                        "pending");
    assert_null(trv_query_enum(f->q, "status", values, NULL, f->errs));
    assert_false(trv_errs_any(f->errs));

    v = trv_query_enum(query1(f, "status", "cancelled"), "status", values, NULL, f->errs);
    assert_ptr_equal(v, values[1]); /* the table's own string */
    assert_false(trv_errs_any(f->errs));

    v = trv_query_enum(query1(f, "status", "Cancelled"), "status", values, "pending",
                       f->errs);
    assert_string_equal(v, "pending");
    assert_one_error(f, "status", "must be one of confirmed, cancelled, pending");

    v = trv_query_enum(query1(f, "status", ""), "status", values, NULL, f->errs);
    assert_null(v);
    assert_one_error(f, "status", NULL);
}

static void test_query_str(void **state)
{
    fixture *f = *state;

    f->q = apr_table_make(f->pool, 1);
    assert_null(trv_query_str(f->q, "ref", 1, 10, f->errs));
    assert_false(trv_errs_any(f->errs));

    assert_string_equal(trv_query_str(query1(f, "ref", "a"), "ref", 1, 10, f->errs), "a");
    assert_string_equal(trv_query_str(query1(f, "ref", "abcdefghij"), "ref", 1, 10,
                                      f->errs), "abcdefghij");
    assert_false(trv_errs_any(f->errs));

    assert_null(trv_query_str(query1(f, "ref", ""), "ref", 1, 10, f->errs));
    assert_one_error(f, "ref", "must be 1 to 10 characters");
    assert_null(trv_query_str(query1(f, "ref", "abcdefghijk"), "ref", 1, 10, f->errs));
    assert_one_error(f, "ref", "must be 1 to 10 characters");
    assert_null(trv_query_str(query1(f, "q", "ab"), "q", 3, 1000000, f->errs));
    assert_one_error(f, "q", "must be at least 3 characters");
}

static void test_query_bool(void **state)
{
    fixture *f = *state;
    static const char *const bad[] = {"TRUE", "True", "1", "0", "yes", "", "true ", NULL};
    const char *const *b;

    f->q = apr_table_make(f->pool, 1);
    assert_int_equal(trv_query_bool(f->q, "live", 1, f->errs), 1);
    assert_int_equal(trv_query_bool(f->q, "live", 0, f->errs), 0);
    assert_int_equal(trv_query_bool(query1(f, "live", "true"), "live", 0, f->errs), 1);
    assert_int_equal(trv_query_bool(query1(f, "live", "false"), "live", 1, f->errs), 0);
    assert_false(trv_errs_any(f->errs));

    for (b = bad; *b; b++) {
        assert_int_equal(trv_query_bool(query1(f, "live", *b), "live", 0, f->errs), 0);
        assert_one_error(f, "live", "must be 'true' or 'false'");
    }
}

static void test_query_instant(void **state)
{
    fixture *f = *state;
    apr_time_t midnight, t = 4242;

    assert_int_equal(trv_date_parse("2026-11-22", &midnight), APR_SUCCESS);

    /* Absent: 0, no error, out untouched. */
    f->q = apr_table_make(f->pool, 1);
    assert_int_equal(trv_query_instant(f->q, "from", 0, &t, f->errs), 0);
    assert_true(t == 4242);
    assert_false(trv_errs_any(f->errs));

    assert_int_equal(trv_query_instant(query1(f, "from", "2026-11-22"), "from", 0, &t,
                                       f->errs), 1);
    assert_true(t == midnight);
    assert_int_equal(trv_query_instant(query1(f, "to", "2026-11-22"), "to", 1, &t,
                                       f->errs), 1);
    assert_true(t == midnight + apr_time_from_sec(86400) - 1000);
    assert_string_equal(trv_time_format(f->pool, t), "2026-11-22T23:59:59.999Z");
    assert_false(trv_errs_any(f->errs));

    /* A timestamp is taken as given, end_of_day or not. */
    assert_int_equal(trv_query_instant(query1(f, "to", "2026-11-22T10:00:00.250Z"), "to",
                                       1, &t, f->errs), 1);
    assert_string_equal(trv_time_format(f->pool, t), "2026-11-22T10:00:00.250Z");
    assert_int_equal(trv_query_instant(query1(f, "to", "2026-11-22T12:00:00+02:00"), "to",
                                       0, &t, f->errs), 1);
    assert_string_equal(trv_time_format(f->pool, t), "2026-11-22T10:00:00.000Z");
    assert_false(trv_errs_any(f->errs));

    assert_int_equal(trv_query_instant(query1(f, "from", "2026-02-30"), "from", 0, &t,
                                       f->errs), 0);
    assert_one_error(f, "from", NULL);
    assert_int_equal(trv_query_instant(query1(f, "from", "2026-11-22T10:00:00"), "from",
                                       0, &t, f->errs), 0);
    assert_one_error(f, "from", NULL);
    assert_int_equal(trv_query_instant(query1(f, "from", "yesterday"), "from", 0, &t,
                                       f->errs), 0);
    assert_one_error(f, "from", NULL);
}

static void test_json_req_str(void **state)
{
    fixture *f = *state;
    json_t *obj = trv_json_bind(f->pool, json_pack("{s:s,s:n,s:i,s:s}",
        "email", "a@example.com", "phone", "age", 42, "empty", ""));

    assert_string_equal(trv_json_req_str(obj, "email", "contact.email", 1, 3, 254,
                                         f->errs), "a@example.com");
    assert_null(trv_json_req_str(obj, "missing", "contact.missing", 0, 1, 10, f->errs));
    assert_null(trv_json_req_str(obj, "phone", "contact.phone", 0, 1, 10, f->errs));
    assert_false(trv_errs_any(f->errs));

    assert_null(trv_json_req_str(obj, "missing", "contact.missing", 1, 1, 10, f->errs));
    assert_one_error(f, "contact.missing", "is required");

    f->errs = trv_errs_new(f->pool);
    assert_null(trv_json_req_str(obj, "phone", "contact.phone", 1, 1, 10, f->errs));
    assert_one_error(f, "contact.phone", "is required");

    f->errs = trv_errs_new(f->pool);
    assert_null(trv_json_req_str(obj, "age", "age", 1, 1, 10, f->errs));
    assert_one_error(f, "age", "must be a string");

    f->errs = trv_errs_new(f->pool);
    assert_null(trv_json_req_str(obj, "empty", "name", 0, 1, 10, f->errs));
    assert_one_error(f, "name", "must be 1 to 10 characters");

    f->errs = trv_errs_new(f->pool);
    assert_null(trv_json_req_str(obj, "email", "contact.email", 1, 1, 5, f->errs));
    assert_one_error(f, "contact.email", "must be 1 to 5 characters");
}

static void test_json_known(void **state)
{
    fixture *f = *state;
    static const char *const known[] = {"name", "email", NULL};
    json_t *ok = trv_json_bind(f->pool, json_pack("{s:s,s:s}", "name", "A", "email", "b"));
    json_t *extra = trv_json_bind(f->pool, json_pack("{s:s,s:s,s:i}", "name", "A",
                                                     "Email", "b", "age", 3));

    trv_json_known(ok, "contact", known, f->errs);
    trv_json_known(trv_json_bind(f->pool, json_object()), NULL, known, f->errs);
    assert_false(trv_errs_any(f->errs));

    trv_json_known(extra, "contact", known, f->errs);
    assert_string_equal(trv_json_dump(f->pool, f->errs->details),
        "[{\"field\":\"contact.Email\",\"reason\":\"is not a known field\"},"
        "{\"field\":\"contact.age\",\"reason\":\"is not a known field\"}]");

    f->errs = trv_errs_new(f->pool);
    trv_json_known(extra, NULL, known, f->errs);
    assert_int_equal(n_errs(f), 2);
    assert_string_equal(json_string_value(json_object_get(
                            json_array_get(f->errs->details, 0), "field")), "Email");
}

static void test_printable(void **state)
{
    (void)state;
    assert_true(trv_printable("Hello, World! ~", 1, 100));
    assert_true(trv_printable("", 0, 10));
    assert_true(trv_printable("abc", 3, 3));
    assert_false(trv_printable("", 1, 10));
    assert_false(trv_printable("abcd", 1, 3));
    assert_false(trv_printable("ab", 3, 10));
    assert_false(trv_printable("a\tb", 1, 10));
    assert_false(trv_printable("a\nb", 1, 10));
    assert_false(trv_printable("a\x7f", 1, 10));
    assert_false(trv_printable("caf\xc3\xa9", 1, 10));
    assert_false(trv_printable(NULL, 0, 10));
}

/* An address literal as a traveller's IP is given: IPv4 or IPv6, nothing
 * around it. */
static void test_ip_literal(void **state)
{
    (void)state;
    assert_true(trv_ip_literal("203.0.113.7"));
    assert_true(trv_ip_literal("2001:db8::17"));
    assert_true(trv_ip_literal("::ffff:192.0.2.1"));
    assert_false(trv_ip_literal(NULL));
    assert_false(trv_ip_literal(""));
    assert_false(trv_ip_literal("203.0.113.7:443"));
    assert_false(trv_ip_literal("203.0.113.7, 10.0.0.1"));
    assert_false(trv_ip_literal(" 203.0.113.7"));
    assert_false(trv_ip_literal("999.1.1.1"));
    assert_false(trv_ip_literal("localhost"));
    assert_false(trv_ip_literal("fe80::1%eth0"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_query_known, setup, teardown),
        cmocka_unit_test_setup_teardown(test_query_int, setup, teardown),
        cmocka_unit_test_setup_teardown(test_query_enum, setup, teardown),
        cmocka_unit_test_setup_teardown(test_query_str, setup, teardown),
        cmocka_unit_test_setup_teardown(test_query_bool, setup, teardown),
        cmocka_unit_test_setup_teardown(test_query_instant, setup, teardown),
        cmocka_unit_test_setup_teardown(test_json_req_str, setup, teardown),
        cmocka_unit_test_setup_teardown(test_json_known, setup, teardown),
        cmocka_unit_test(test_printable),
        cmocka_unit_test(test_ip_literal),
    };
    return UNIT_RUN(tests);
}
