/* Shared by the db tests: a connection to the test database through the
 * same apr_dbd layer the module uses (no httpd). */
#ifndef TRV_DBTEST_H
#define TRV_DBTEST_H

#include "core/db.h"

#include <apr_dbd.h>
#include <apr_general.h>
#include <apr_strings.h>
#include <libpq-fe.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <cmocka.h>

static apr_pool_t *dbt_pool;
static trv_dbc *dbt_conn;

static int dbt_setup(void **state)
{
    const char *conninfo = getenv("TRAVEL_TEST_DB"), *err = NULL;
    (void)state;
    if (!conninfo) {
        fail_msg("TRAVEL_TEST_DB is not set; run through tests/run-stack-tests.sh");
    }
    apr_initialize();
    apr_pool_create(&dbt_pool, NULL);
    if (trv_db_connect(dbt_pool, conninfo, &dbt_conn, &err) != APR_SUCCESS) {
        fail_msg("cannot connect: %s", err);
    }
    return 0;
}

static int dbt_teardown(void **state)
{
    (void)state;
    apr_pool_destroy(dbt_pool);
    apr_terminate();
    return 0;
}

/* The test connection's libpq handle, for what apr_dbd does not offer
 * (parameters of any type, EXPLAIN, counting rows). */
static inline PGconn *dbt_pq(void)
{
    return apr_dbd_native_handle(dbt_conn->driver, dbt_conn->handle);
}

/* Runs SQL with parameters; the first column of the first row
 * (pool-allocated) or NULL. A failing statement fails the test. */
static inline const char *dbt_sql(const char *text, int n, const char *const *params)
{
    PGresult *res = PQexecParams(dbt_pq(), text, n, NULL, params, NULL, NULL, 0);
    const char *v = NULL;
    ExecStatusType st = PQresultStatus(res);
    if (st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK) {
        fail_msg("%s: %s", text, PQerrorMessage(dbt_pq()));
    }
    if (st == PGRES_TUPLES_OK && PQntuples(res) > 0 && !PQgetisnull(res, 0, 0)) {
        v = apr_pstrdup(dbt_pool, PQgetvalue(res, 0, 0));
    }
    PQclear(res);
    return v;
}

/* dbt_sql's answer as a number (0 for none). */
static inline long dbt_sql_long(const char *text, int n, const char *const *params)
{
    const char *v = dbt_sql(text, n, params);
    return v ? atol(v) : 0;
}

#endif
