/* trv_db_transaction: a transaction PostgreSQL aborts for a deadlock is run
 * again from BEGIN and commits, so the request that lost the race is not a
 * 500; any other failure is returned at once, not repeated. The deadlock
 * is made on purpose: two connections each update one row, meet at a
 * barrier, then update the other's. */
#include "dbtest.h"

#include <pthread.h>
#include <string.h>

static const trv_stmt bump_stmt = {"dbt_retry_bump",
    "UPDATE dbt_retry SET v = v + 1 WHERE id = %s::int"};
static const trv_stmt value_stmt = {"dbt_retry_value",
    "SELECT v FROM dbt_retry WHERE id = %s::int"};
static const trv_stmt broken_stmt = {"dbt_retry_broken", "SELECT 1 / 0 AS n"};

typedef struct crossing {
    trv_dbc *c;
    apr_pool_t *p;
    const char *first, *second;
    pthread_barrier_t *meet;
    int runs;
    apr_status_t rv;
    int retryable_seen;
} crossing;

static apr_status_t crossed(trv_dbc *c, apr_pool_t *p, void *baton)
{
    crossing *x = baton;
    x->runs++;
    if (trv_db_exec(c, p, &bump_stmt, NULL, TRV_DB_ARGS(x->first)) != APR_SUCCESS) {
        return APR_EGENERAL;
    }
    if (x->runs == 1) {
        pthread_barrier_wait(x->meet); /* both hold their first row now */
    }
    if (trv_db_exec(c, p, &bump_stmt, NULL, TRV_DB_ARGS(x->second)) != APR_SUCCESS) {
        x->retryable_seen |= c->retryable;
        return APR_EGENERAL;
    }
    return APR_SUCCESS;
}

static void *run(void *arg)
{
    crossing *x = arg;
    x->rv = trv_db_transaction(x->c, x->p, crossed, x);
    return NULL;
}

static long value_of(const char *id)
{
    trv_rows *r;
    assert_int_equal(trv_db_select(dbt_conn, dbt_pool, &value_stmt, &r, TRV_DB_ARGS(id)),
                     APR_SUCCESS);
    assert_int_equal(r->n, 1);
    return atol(trv_rows_get(r, 0, "v"));
}

static void plain(const char *sql)
{
    int n;
    assert_int_equal(apr_dbd_query(dbt_conn->driver, dbt_conn->handle, &n, sql), 0);
}

static void a_deadlocked_transaction_runs_again_and_commits(void **state)
{
    const char *conninfo = getenv("TRAVEL_TEST_DB"), *err = NULL;
    apr_pool_t *pa, *pb;
    trv_dbc *b;
    pthread_barrier_t meet;
    crossing x[2];
    pthread_t t[2];
    int i;
    (void)state;
    plain("CREATE TABLE IF NOT EXISTS dbt_retry (id int PRIMARY KEY, v int NOT NULL)");
    plain("DELETE FROM dbt_retry");
    plain("INSERT INTO dbt_retry VALUES (1, 0), (2, 0)");
    apr_pool_create(&pa, dbt_pool);
    apr_pool_create(&pb, dbt_pool);
    assert_int_equal(trv_db_connect(pb, conninfo, &b, &err), APR_SUCCESS);
    pthread_barrier_init(&meet, NULL, 2);
    memset(x, 0, sizeof(x));
    x[0].c = dbt_conn;
    x[0].p = pa;
    x[0].first = "1";
    x[0].second = "2";
    x[1].c = b;
    x[1].p = pb;
    x[1].first = "2";
    x[1].second = "1";
    for (i = 0; i < 2; i++) {
        x[i].meet = &meet;
        assert_int_equal(pthread_create(&t[i], NULL, run, &x[i]), 0);
    }
    for (i = 0; i < 2; i++) {
        pthread_join(t[i], NULL);
    }
    pthread_barrier_destroy(&meet);
    /* Both committed; PostgreSQL aborted one, which ran again. */
    assert_int_equal(x[0].rv, APR_SUCCESS);
    assert_int_equal(x[1].rv, APR_SUCCESS);
    assert_int_equal(x[0].runs + x[1].runs, 3);
    assert_true(x[0].retryable_seen || x[1].retryable_seen);
    assert_int_equal(value_of("1"), 2);
    assert_int_equal(value_of("2"), 2);
}

static apr_status_t broken(trv_dbc *c, apr_pool_t *p, void *baton)
{
    trv_rows *r;
    (*(int *)baton)++;
    return trv_db_select(c, p, &broken_stmt, &r, 0, NULL);
}

static void other_failures_are_not_repeated(void **state)
{
    int runs = 0;
    (void)state;
    assert_int_not_equal(trv_db_transaction(dbt_conn, dbt_pool, broken, &runs), APR_SUCCESS);
    assert_int_equal(runs, 1);
    assert_false(dbt_conn->retryable);
    assert_false(dbt_conn->in_txn);
    assert_non_null(strstr(dbt_conn->error, "division by zero"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_deadlocked_transaction_runs_again_and_commits),
        cmocka_unit_test(other_failures_are_not_repeated),
    };
    return cmocka_run_group_tests_name("db transaction", tests, dbt_setup, dbt_teardown);
}
