/* Shared by the db tests: a connection to the test database through the
 * same apr_dbd layer the module uses (no httpd). */
#ifndef TRV_DBTEST_H
#define TRV_DBTEST_H

#include "core/db.h"

#include <apr_general.h>
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

#endif
