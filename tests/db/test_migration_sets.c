/* The product's and the sandbox's migrations are separate sets: a
 * production `travelctl migrate` (trv_migrate) never creates schema
 * sandbox; the sandbox's tool (sandboxctl) applies sql/sandbox/ on top,
 * records it in sandbox.schema_migrations, and adopts the sandbox
 * migrations an older database recorded under their product-era names.
 * Each test works in a fresh database of its own on the test cluster. */
#include "dbtest.h"
#include "cli/migrations.h"
#include "sandbox/ctl/sbx_migrate.h"

#include <apr_strings.h>
#include <libpq-fe.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* A superuser connection to the cluster's postgres database (the test
 * cluster trusts local connections): later keywords of a conninfo win. */
static PGconn *admin(void)
{
    PGconn *a = PQconnectdb(apr_pstrcat(dbt_pool, getenv("TRAVEL_TEST_DB"),
                                        " dbname=postgres user=postgres", NULL));
    assert_int_equal(PQstatus(a), CONNECTION_OK);
    return a;
}

static void admin_sql(const char *sql)
{
    PGconn *a = admin();
    PGresult *r = PQexec(a, sql);
    if (PQresultStatus(r) != PGRES_COMMAND_OK) {
        fail_msg("%s: %s", sql, PQerrorMessage(a));
    }
    PQclear(r);
    PQfinish(a);
}

/* A fresh, empty database owned by the test role; *c connects to it. */
static const char *fresh_db(apr_pool_t *p, trv_dbc **c)
{
    const char *name = apr_psprintf(p, "trv_migsets_%ld", (long)getpid());
    const char *err = NULL;
    admin_sql(apr_psprintf(p, "DROP DATABASE IF EXISTS %s WITH (FORCE)", name));
    admin_sql(apr_psprintf(p, "CREATE DATABASE %s OWNER travel", name));
    assert_int_equal(trv_db_connect(p, apr_pstrcat(p, getenv("TRAVEL_TEST_DB"), " dbname=",
                                                   name, NULL), c, &err), APR_SUCCESS);
    return name;
}

static long count(trv_dbc *c, apr_pool_t *p, const char *sql)
{
    /* A label of its own per text: statements are registered by label. */
    static int seq;
    trv_stmt *st = apr_pcalloc(dbt_pool, sizeof(*st));
    trv_rows *r;
    st->label = apr_psprintf(dbt_pool, "migsets_%d", ++seq);
    st->sql = sql;
    assert_int_equal(trv_db_select(c, p, st, &r, 0, NULL), APR_SUCCESS);
    return atol(trv_rows_get(r, 0, "n"));
}

static void plain(trv_dbc *c, const char *sql)
{
    int n;
    assert_int_equal(apr_dbd_query(c->driver, c->handle, &n, sql), 0);
}

static int n_sandbox_migrations(void)
{
    int n = 0;
    while (sbx_migrations[n].name) {
        n++;
    }
    return n;
}

static void production_migrate_makes_no_sandbox_schema(void **state)
{
    apr_pool_t *p;
    trv_dbc *c;
    const char *name, *err = NULL;
    int applied = -1;
    (void)state;
    apr_pool_create(&p, dbt_pool);
    name = fresh_db(p, &c);
    assert_int_equal(trv_migrate(c, p, &applied, &err, NULL), APR_SUCCESS);
    assert_true(applied > 0);
    assert_int_equal(count(c, p, "SELECT count(*) AS n FROM pg_namespace "
                                 "WHERE nspname = 'sandbox'"), 0);
    assert_int_equal(count(c, p, "SELECT count(*) AS n FROM schema_migrations "
                                 "WHERE position('sandbox' in version) > 0"), 0);

    /* The sandbox's set, on top: every one applied, then none again. */
    assert_int_equal(trv_migrate_set(c, p, &sbx_migration_set, &applied, &err, NULL),
                     APR_SUCCESS);
    assert_int_equal(applied, n_sandbox_migrations());
    assert_int_equal(count(c, p, "SELECT count(*) AS n FROM sandbox.schema_migrations"),
                     n_sandbox_migrations());
    assert_int_equal(count(c, p, "SELECT count(*) AS n FROM information_schema.tables "
                                 "WHERE table_schema = 'sandbox' AND table_name = 'faults'"), 1);
    assert_int_equal(trv_migrate_set(c, p, &sbx_migration_set, &applied, &err, NULL),
                     APR_SUCCESS);
    assert_int_equal(applied, 0);
    /* The product's set is not disturbed by the sandbox's records. */
    assert_int_equal(trv_migrate(c, p, &applied, &err, NULL), APR_SUCCESS);
    assert_int_equal(applied, 0);
    apr_pool_destroy(p);
    admin_sql(apr_psprintf(dbt_pool, "DROP DATABASE %s WITH (FORCE)", name));
}

/* A database migrated when the sandbox's migrations were product
 * migrations (003_sandbox_inbox, 030-032) already has their tables: the
 * sandbox's set adopts them instead of failing on CREATE TABLE. */
static void legacy_records_are_adopted(void **state)
{
    apr_pool_t *p;
    trv_dbc *c;
    const char *name, *err = NULL;
    int applied = -1, i;
    (void)state;
    apr_pool_create(&p, dbt_pool);
    name = fresh_db(p, &c);
    assert_int_equal(trv_migrate(c, p, &applied, &err, NULL), APR_SUCCESS);
    /* As the old layout left it: the first four sandbox migrations' tables
     * (then product migrations 003 and 030-032), recorded in the product's
     * table under those names. */
    plain(c, "CREATE SCHEMA sandbox");
    for (i = 0; i < 4; i++) {
        plain(c, sbx_migrations[i].sql);
    }
    plain(c, "INSERT INTO schema_migrations (version) VALUES ('003_sandbox_inbox'), "
             "('030_sandbox_suppliers'), ('031_sandbox_faults'), ('032_sandbox_sdk_cancel')");
    err = NULL;
    assert_int_equal(trv_migrate_set(c, p, &sbx_migration_set, &applied, &err, NULL),
                     APR_SUCCESS);
    assert_null(err);
    /* Only what came after the old layout is applied. */
    assert_int_equal(applied, n_sandbox_migrations() - 4);
    apr_pool_destroy(p);
    admin_sql(apr_psprintf(dbt_pool, "DROP DATABASE %s WITH (FORCE)", name));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(production_migrate_makes_no_sandbox_schema),
        cmocka_unit_test(legacy_records_are_adopted),
    };
    return cmocka_run_group_tests(tests, dbt_setup, dbt_teardown);
}
