/* The bookings list's exact total (migration 041): per-day counts kept by
 * statement triggers, plus row counts for partial days and for bookings
 * past expiry not yet stored EXPIRED, must equal a plain count of the
 * matching rows after inserts (bulk and single), status changes and
 * deletes, for every combination of filters. */
#include "dbtest.h"

#include <apr_strings.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *org, *usr;

static void plain(const char *sql)
{
    int rows;
    if (apr_dbd_query(dbt_conn->driver, dbt_conn->handle, &rows, sql) != 0) {
        fail_msg("%s: %s", sql, apr_dbd_error(dbt_conn->driver, dbt_conn->handle, 1));
    }
}

static long scalar(const char *sql)
{
    apr_dbd_results_t *res = NULL;
    apr_dbd_row_t *row = NULL;
    const char *v;
    if (apr_dbd_select(dbt_conn->driver, dbt_pool, dbt_conn->handle, &res, sql, 1) != 0
        || apr_dbd_get_row(dbt_conn->driver, dbt_pool, res, &row, 1) != 0) {
        fail_msg("%s: %s", sql, apr_dbd_error(dbt_conn->driver, dbt_conn->handle, 1));
    }
    v = apr_dbd_get_entry(dbt_conn->driver, row, 0);
    return v ? atol(v) : -1;
}

static const char *q(const char *v)
{
    return v ? apr_psprintf(dbt_pool, "'%s'", v) : "NULL";
}

/* Every filter combination: the function against a plain count. */
static void check_all(void)
{
    static const char *const statuses[] = {NULL, "CONFIRMED", "READY_FOR_COMPLETE",
                                           "EXPIRED", "FAILED"};
    static const char *const suppliers[] = {NULL, "SUPPLIER_A"};
    static const char *const ranges[][2] = {
        {NULL, NULL},
        {"2026-03-02T00:00:00.000Z", "2026-03-05T23:59:59.999Z"}, /* whole days */
        {"2026-03-02T07:30:00.000Z", "2026-03-05T13:15:00.001Z"}, /* partial ends */
        {"2026-03-03T01:00:00.000Z", "2026-03-03T20:00:00.000Z"}, /* inside a day */
        {"2026-03-04T00:00:00.000Z", NULL},
        {NULL, "2026-03-03T11:59:59.999Z"},
        {"2026-03-09T00:00:00.000Z", "2026-03-01T00:00:00.000Z"}, /* empty */
    };
    static const char *const refs[] = {NULL, "REF-57"};
    size_t s, u, r, f;
    for (s = 0; s < sizeof(statuses) / sizeof(*statuses); s++)
    for (u = 0; u < sizeof(suppliers) / sizeof(*suppliers); u++)
    for (r = 0; r < sizeof(ranges) / sizeof(*ranges); r++)
    for (f = 0; f < sizeof(refs) / sizeof(*refs); f++) {
        const char *st = q(statuses[s]), *sp = q(suppliers[u]), *rf = q(refs[f]),
                   *lo = q(ranges[r][0]), *hi = q(ranges[r][1]);
        long got = scalar(apr_psprintf(dbt_pool,
            "SELECT flight_bookings_total('%s', '%s', %s, %s, %s, %s::timestamptz, "
            "%s::timestamptz)", org, usr, st, sp, rf, lo, hi));
        long want = scalar(apr_psprintf(dbt_pool,
            "SELECT count(*) FROM flight_bookings b WHERE org_id = '%s' AND user_id = '%s' "
            "AND (%s::text IS NULL OR CASE WHEN b.status = 'READY_FOR_COMPLETE' AND "
            "b.expires_at <= now() THEN 'EXPIRED' ELSE b.status END = %s) "
            "AND (%s::text IS NULL OR b.supplier = %s) "
            "AND (%s::text IS NULL OR b.supplier_reference = %s) "
            "AND (%s::timestamptz IS NULL OR b.created_at >= %s) "
            "AND (%s::timestamptz IS NULL OR b.created_at <= %s)",
            org, usr, st, st, sp, sp, rf, rf, lo, lo, hi, hi));
        if (got != want) {
            fail_msg("total(%s, %s, %s, %s..%s) = %ld, rows %ld", st, sp, rf, lo, hi, got,
                     want);
        }
    }
}

static void totals_match_counts_through_changes(void **state)
{
    (void)state;
    org = apr_psprintf(dbt_pool, "org_dbt_total_%d", (int)getpid());
    usr = apr_psprintf(dbt_pool, "usr_dbt_total_%d", (int)getpid());
    plain(apr_psprintf(dbt_pool, "INSERT INTO organizations (id, name) VALUES ('%s', 't')",
                       org));
    plain(apr_psprintf(dbt_pool, "INSERT INTO users (id, org_id, name) VALUES ('%s', '%s', "
                       "'t')", usr, org));
    /* One bulk statement: 700 bookings over ten days, every 20 minutes and
     * a bit, in several statuses, some past expiry, one without expiry. */
    plain(apr_psprintf(dbt_pool,
        "INSERT INTO flight_bookings (id, org_id, user_id, supplier, status, created_at, "
        "updated_at, expires_at, supplier_reference) "
        "SELECT '%s_' || i, '%s', '%s', CASE WHEN i %% 3 = 0 THEN 'SUPPLIER_B' "
        "ELSE 'SUPPLIER_A' END, (ARRAY['CONFIRMED', 'READY_FOR_COMPLETE', 'FAILED', "
        "'EXPIRED', 'CANCELED'])[1 + i %% 5], "
        "timestamptz '2026-03-01T00:00:00Z' + i * interval '20 minutes 7 seconds', now(), "
        "CASE WHEN i %% 10 = 1 THEN now() - interval '1 hour' WHEN i = 6 THEN NULL "
        "ELSE now() + interval '1 hour' END, CASE WHEN i %% 50 = 7 THEN 'REF-' || i END "
        "FROM generate_series(1, 700) i", org, org, usr));
    check_all();
    /* Single-row inserts at the edges of days. */
    plain(apr_psprintf(dbt_pool,
        "INSERT INTO flight_bookings (id, org_id, user_id, supplier, status, created_at) "
        "VALUES ('%s_e1', '%s', '%s', 'SUPPLIER_A', 'CONFIRMED', "
        "'2026-03-05T23:59:59.999Z'), ('%s_e2', '%s', '%s', 'SUPPLIER_A', 'CONFIRMED', "
        "'2026-03-02T00:00:00.000Z')", org, org, usr, org, org, usr));
    check_all();
    /* Status changes, one by one and in bulk, then deletes. */
    plain(apr_psprintf(dbt_pool, "UPDATE flight_bookings SET status = 'CONFIRMED' "
                       "WHERE id = '%s_2'", org));
    plain(apr_psprintf(dbt_pool, "UPDATE flight_bookings SET status = 'EXPIRED' "
                       "WHERE org_id = '%s' AND status = 'READY_FOR_COMPLETE' "
                       "AND expires_at <= now()", org));
    plain(apr_psprintf(dbt_pool, "UPDATE flight_bookings SET supplier = 'SUPPLIER_B', "
                       "created_at = created_at + interval '13 hours' WHERE org_id = '%s' "
                       "AND status = 'FAILED'", org));
    /* A change that does not move any count (the revision trigger's kind). */
    plain(apr_psprintf(dbt_pool, "UPDATE flight_bookings SET airline_pnr = 'X' "
                       "WHERE org_id = '%s'", org));
    check_all();
    plain(apr_psprintf(dbt_pool, "DELETE FROM flight_bookings WHERE org_id = '%s' "
                       "AND status = 'CANCELED'", org));
    plain(apr_psprintf(dbt_pool, "DELETE FROM flight_bookings WHERE id = '%s_e1'", org));
    check_all();
    assert_true(scalar(apr_psprintf(dbt_pool, "SELECT flight_bookings_total('%s', '%s', "
                                    "NULL, NULL, NULL, NULL, NULL)", org, usr)) > 500);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(totals_match_counts_through_changes),
    };
    return cmocka_run_group_tests_name("flight list total", tests, dbt_setup, dbt_teardown);
}
