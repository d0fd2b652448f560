/* The database layer, the job queue and API keys against a real PostgreSQL
 * through apr_dbd, without httpd. */
#include "dbtest.h"
#include "account/keys.h"
#include "cli/migrations.h"
#include "core/jobs.h"
#include "core/json.h"

#include <apr_strings.h>
#include <libpq-fe.h>
#include <poll.h>
#include <string.h>

static const trv_stmt one_stmt = {"dbt_one", "SELECT %s::int + 1 AS n"};
static const trv_stmt scratch_insert = {"dbt_scratch_insert",
    "INSERT INTO dbt_scratch (v) VALUES (%s)"};
static const trv_stmt scratch_count = {"dbt_scratch_count",
    "SELECT count(*) AS n FROM dbt_scratch WHERE v = %s"};
static const trv_stmt nulls_stmt = {"dbt_nulls", "SELECT NULL::text AS a, ''::text AS b"};

static void plain(const char *sql)
{
    int n;
    assert_int_equal(apr_dbd_query(dbt_conn->driver, dbt_conn->handle, &n, sql), 0);
}

static void migrate_again_is_a_noop(void **state)
{
    int applied = -1;
    const char *err = NULL;
    (void)state;
    assert_int_equal(trv_migrate(dbt_conn, dbt_pool, &applied, &err, NULL), APR_SUCCESS);
    assert_int_equal(applied, 0);
}

static void null_is_not_empty(void **state)
{
    trv_rows *r;
    (void)state;
    assert_int_equal(trv_db_select(dbt_conn, dbt_pool, &nulls_stmt, &r, 0, NULL), APR_SUCCESS);
    assert_null(trv_rows_get(r, 0, "a"));
    assert_string_equal(trv_rows_get(r, 0, "b"), "");
    assert_null(trv_rows_get(r, 0, "no_such_column"));
}

static void statements_survive_a_server_side_reset(void **state)
{
    trv_rows *r;
    PGconn *other = PQconnectdb(getenv("TRAVEL_TEST_DB"));
    PGconn *mine = apr_dbd_native_handle(dbt_conn->driver, dbt_conn->handle);
    char sql[128];
    trv_dbsrc *src = trv_dbsrc_single(dbt_pool, dbt_conn);
    trv_dbc *c;
    (void)state;
    assert_int_equal(trv_db_select(dbt_conn, dbt_pool, &one_stmt, &r, TRV_DB_ARGS("41")),
                     APR_SUCCESS);
    assert_string_equal(trv_rows_get(r, 0, "n"), "42");
    /* PostgreSQL drops our session (as a restart would). */
    snprintf(sql, sizeof(sql), "SELECT pg_terminate_backend(%d)", PQbackendPID(mine));
    PQclear(PQexec(other, sql));
    PQfinish(other);
    assert_int_not_equal(trv_db_select(dbt_conn, dbt_pool, &one_stmt, &r, TRV_DB_ARGS("1")),
                         APR_SUCCESS);
    assert_true(dbt_conn->unavailable);
    /* mod_dbd's check resets the connection: a new session without our
     * prepared statements; the layer notices and prepares them again. */
    assert_int_equal(apr_dbd_check_conn(dbt_conn->driver, dbt_pool, dbt_conn->handle), 0);
    assert_int_equal(trv_db_open(src, dbt_pool, &c), APR_SUCCESS);
    assert_int_equal(trv_db_select(c, dbt_pool, &one_stmt, &r, TRV_DB_ARGS("1")), APR_SUCCESS);
    assert_string_equal(trv_rows_get(r, 0, "n"), "2");
}

/* PostgreSQL ends a session while it sits idle in the pool (a restart, a
 * failover): the next open notices and reconnects, so the request that
 * borrows it runs its first statement on a new session instead of failing. */
static void an_idle_connection_the_server_ended_is_reconnected_at_open(void **state)
{
    PGconn *other = PQconnectdb(getenv("TRAVEL_TEST_DB"));
    PGconn *mine = apr_dbd_native_handle(dbt_conn->driver, dbt_conn->handle);
    int before = PQbackendPID(mine);
    trv_dbsrc *src = trv_dbsrc_single(dbt_pool, dbt_conn);
    struct pollfd pfd;
    char sql[128];
    trv_rows *r;
    trv_dbc *c;
    (void)state;
    snprintf(sql, sizeof(sql), "SELECT pg_terminate_backend(%d)", before);
    PQclear(PQexec(other, sql));
    PQfinish(other);
    /* The server's goodbye has arrived (bounded wait). */
    pfd.fd = PQsocket(mine);
    pfd.events = POLLIN;
    assert_int_equal(poll(&pfd, 1, 10000), 1);
    assert_int_equal(PQstatus(mine), CONNECTION_OK); /* libpq does not know yet */

    assert_int_equal(trv_db_open(src, dbt_pool, &c), APR_SUCCESS);
    assert_int_not_equal(PQbackendPID(mine), before);
    assert_int_equal(trv_db_select(c, dbt_pool, &one_stmt, &r, TRV_DB_ARGS("1")), APR_SUCCESS);
    assert_string_equal(trv_rows_get(r, 0, "n"), "2");
    assert_false(c->unavailable);
    trv_db_close(src, c);
}

/* A bad statement is the request's fault: the connection stays. A server
 * that answers 25006 (a demoted primary, or a standby that a multi-host
 * conninfo should have skipped) is useless to every request after: the
 * connection is marked, broken at close, and reset by the pool's check. */
static void a_read_only_server_drops_the_connection(void **state)
{
    trv_dbsrc *src = trv_dbsrc_single(dbt_pool, dbt_conn);
    PGconn *mine = apr_dbd_native_handle(dbt_conn->driver, dbt_conn->handle);
    int before = PQbackendPID(mine);
    trv_rows *r;
    trv_dbc *c;
    (void)state;
    assert_int_equal(trv_db_open(src, dbt_pool, &c), APR_SUCCESS);
    assert_int_not_equal(trv_db_select(c, dbt_pool, &one_stmt, &r, TRV_DB_ARGS("x")),
                         APR_SUCCESS);
    assert_string_equal(c->sqlstate, "22P02");
    assert_false(c->drop);
    assert_false(c->unavailable);
    assert_null(strstr(c->error, "LOCATION"));
    trv_db_close(src, c);
    assert_int_equal(PQstatus(mine), CONNECTION_OK);

    /* What a demoted primary answers every write. */
    plain("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY");
    assert_int_equal(trv_db_open(src, dbt_pool, &c), APR_SUCCESS);
    assert_int_not_equal(trv_db_exec(c, dbt_pool, &scratch_insert, NULL, TRV_DB_ARGS("ro")),
                         APR_SUCCESS);
    assert_string_equal(c->sqlstate, "25006");
    assert_true(c->drop);
    assert_true(c->unavailable);
    assert_non_null(strstr(c->error, TRV_DB_UNAVAILABLE));
    assert_non_null(strstr(c->error, "read-only transaction"));
    trv_db_close(src, c);
    assert_int_equal(PQstatus(mine), CONNECTION_BAD);
    /* The pool's check reconnects: a new session, writable again. */
    assert_int_equal(apr_dbd_check_conn(dbt_conn->driver, dbt_pool, dbt_conn->handle), 0);
    assert_int_not_equal(PQbackendPID(mine), before);
    assert_int_equal(trv_db_open(src, dbt_pool, &c), APR_SUCCESS);
    assert_int_equal(trv_db_exec(c, dbt_pool, &scratch_insert, NULL, TRV_DB_ARGS("rw")),
                     APR_SUCCESS);
    assert_false(c->drop);
}

static void sqlstates_that_drop(void **state)
{
    (void)state;
    assert_true(trv_db_sqlstate_drops("25006"));
    assert_true(trv_db_sqlstate_drops("57P01"));
    assert_true(trv_db_sqlstate_drops("57P02"));
    assert_true(trv_db_sqlstate_drops("57P03"));
    assert_true(trv_db_sqlstate_drops("08006"));
    assert_true(trv_db_sqlstate_drops("08P01"));
    assert_false(trv_db_sqlstate_drops("23505"));
    assert_false(trv_db_sqlstate_drops("40001"));
    assert_false(trv_db_sqlstate_drops("57014")); /* a cancelled statement */
    assert_false(trv_db_sqlstate_drops(""));
}

/* An outage is logged once per interval, not once per request. */
static void outage_is_noted_once_per_interval(void **state)
{
    apr_time_t t = apr_time_now();
    (void)state;
    assert_true(trv_db_outage_note(t));
    assert_false(trv_db_outage_note(t + apr_time_from_msec(10)));
    assert_false(trv_db_outage_note(t + TRV_DB_OUTAGE_LOG_EVERY - 1));
    assert_true(trv_db_outage_note(t + TRV_DB_OUTAGE_LOG_EVERY));
}

static long scratch(const char *v)
{
    trv_rows *r;
    assert_int_equal(trv_db_select(dbt_conn, dbt_pool, &scratch_count, &r, TRV_DB_ARGS(v)),
                     APR_SUCCESS);
    return atol(trv_rows_get(r, 0, "n"));
}

static void transactions_commit_or_change_nothing(void **state)
{
    (void)state;
    plain("CREATE TABLE IF NOT EXISTS dbt_scratch (v text NOT NULL CHECK (v <> 'bad'))");
    assert_int_equal(trv_db_begin(dbt_conn, dbt_pool), APR_SUCCESS);
    trv_db_exec(dbt_conn, dbt_pool, &scratch_insert, NULL, TRV_DB_ARGS("kept"));
    assert_int_equal(trv_db_commit(dbt_conn), APR_SUCCESS);
    assert_int_equal(scratch("kept"), 1);

    assert_int_equal(trv_db_begin(dbt_conn, dbt_pool), APR_SUCCESS);
    trv_db_exec(dbt_conn, dbt_pool, &scratch_insert, NULL, TRV_DB_ARGS("half"));
    assert_int_not_equal(trv_db_exec(dbt_conn, dbt_pool, &scratch_insert, NULL,
                                     TRV_DB_ARGS("bad")), APR_SUCCESS);
    /* One failed statement: the commit refuses and nothing is kept. */
    assert_int_not_equal(trv_db_commit(dbt_conn), APR_SUCCESS);
    assert_int_equal(scratch("half"), 0);

    assert_int_equal(trv_db_begin(dbt_conn, dbt_pool), APR_SUCCESS);
    trv_db_exec(dbt_conn, dbt_pool, &scratch_insert, NULL, TRV_DB_ARGS("rolled"));
    trv_db_rollback(dbt_conn);
    assert_int_equal(scratch("rolled"), 0);
    /* The connection is usable afterwards. */
    assert_int_equal(scratch("kept"), 1);
}

/* ---- the job queue, driven step by step ---- */

static int runs_ok, runs_flaky, runs_release;

static void kind_ok(trv_env *env, apr_pool_t *p, const trv_job *job, trv_job_result *res)
{
    (void)env;
    (void)p;
    (void)job;
    runs_ok++;
    res->outcome = TRV_JOB_DONE;
}

static void kind_flaky(trv_env *env, apr_pool_t *p, const trv_job *job, trv_job_result *res)
{
    (void)env;
    (void)p;
    runs_flaky++;
    res->outcome = TRV_JOB_RETRY;
    res->retry_in = 1; /* due again at once */
    res->error = apr_psprintf(p, "flaky attempt %d", job->attempt);
}

static void kind_release(trv_env *env, apr_pool_t *p, const trv_job *job,
                         trv_job_result *res)
{
    (void)env;
    (void)p;
    (void)job;
    runs_release++;
    res->outcome = TRV_JOB_RELEASE;
}

static const trv_job_kind kinds[] = {
    {"dbt.ok", kind_ok, 3},
    {"dbt.flaky", kind_flaky, 3},
    {"dbt.release", kind_release, 3},
    {NULL, NULL, 0},
};

static trv_env *test_env(void)
{
    static trv_env env;
    static trv_config cfg;
    cfg.job_lease = apr_time_from_sec(30);
    env.db = trv_dbsrc_single(dbt_pool, dbt_conn);
    env.cfg = &cfg;
    return &env;
}

/* Runs steps until the queue has nothing due for these kinds. */
static void drain(void)
{
    int i;
    for (i = 0; i < 50; i++) {
        if (trv_worker_step(test_env(), dbt_pool, kinds, "dbtest:1:0") == 0) {
            break;
        }
    }
}

static void clear_queue(void)
{
    plain("DELETE FROM jobs WHERE kind LIKE 'dbt.%'");
}

static void jobs_run_once_and_leave(void **state)
{
    const char *id;
    (void)state;
    clear_queue();
    runs_ok = 0;
    assert_int_equal(trv_job_enqueue(dbt_conn, dbt_pool, "dbt.ok", NULL, 0, 3, NULL, &id),
                     APR_SUCCESS);
    assert_non_null(id);
    drain();
    assert_int_equal(runs_ok, 1);
    drain();
    assert_int_equal(runs_ok, 1);
}

static void dedupe_key_enqueues_once_while_pending(void **state)
{
    const char *a, *b;
    (void)state;
    clear_queue();
    runs_ok = 0;
    trv_job_enqueue(dbt_conn, dbt_pool, "dbt.ok", NULL, 0, 3, "dbt-same", &a);
    trv_job_enqueue(dbt_conn, dbt_pool, "dbt.ok", NULL, 0, 3, "dbt-same", &b);
    assert_non_null(a);
    assert_null(b);
    drain();
    assert_int_equal(runs_ok, 1);
    /* Once finished, the key is free again. */
    trv_job_enqueue(dbt_conn, dbt_pool, "dbt.ok", NULL, 0, 3, "dbt-same", &b);
    assert_non_null(b);
}

static void retries_then_dead_with_the_last_error(void **state)
{
    trv_rows *r;
    static const trv_stmt dead = {"dbt_dead",
        "SELECT status, attempts, last_error FROM jobs WHERE kind = 'dbt.flaky'"};
    (void)state;
    clear_queue();
    runs_flaky = 0;
    trv_job_enqueue(dbt_conn, dbt_pool, "dbt.flaky", NULL, 0, 3, NULL, NULL);
    drain();
    assert_int_equal(runs_flaky, 3);
    assert_int_equal(trv_db_select(dbt_conn, dbt_pool, &dead, &r, 0, NULL), APR_SUCCESS);
    assert_int_equal(r->n, 1);
    assert_string_equal(trv_rows_get(r, 0, "status"), "dead");
    assert_string_equal(trv_rows_get(r, 0, "attempts"), "3");
    assert_string_equal(trv_rows_get(r, 0, "last_error"), "flaky attempt 3");
}

static void release_does_not_use_an_attempt(void **state)
{
    trv_rows *r;
    static const trv_stmt q = {"dbt_released",
        "SELECT status, attempts FROM jobs WHERE kind = 'dbt.release'"};
    (void)state;
    clear_queue();
    runs_release = 0;
    trv_job_enqueue(dbt_conn, dbt_pool, "dbt.release", NULL, 0, 3, NULL, NULL);
    assert_int_equal(trv_worker_step(test_env(), dbt_pool, kinds, "dbtest:1:0"), 1);
    assert_int_equal(trv_db_select(dbt_conn, dbt_pool, &q, &r, 0, NULL), APR_SUCCESS);
    assert_string_equal(trv_rows_get(r, 0, "status"), "queued");
    assert_string_equal(trv_rows_get(r, 0, "attempts"), "0");
    clear_queue();
}

static void delayed_job_waits(void **state)
{
    (void)state;
    clear_queue();
    runs_ok = 0;
    trv_job_enqueue(dbt_conn, dbt_pool, "dbt.ok", NULL, apr_time_from_sec(3600), 3, NULL, NULL);
    drain();
    assert_int_equal(runs_ok, 0);
    clear_queue();
}

static void keys_authenticate_until_revoked(void **state)
{
    const char *org, *key_id, *key;
    trv_principal who;
    (void)state;
    assert_int_equal(trv_org_create(dbt_conn, dbt_pool, "db test org", &org), APR_SUCCESS);
    assert_int_equal(trv_key_create(dbt_conn, dbt_pool, org, "carol", 0, &key_id, &key),
                     APR_SUCCESS);
    assert_int_equal(strncmp(key, "tk_test_", 8), 0);
    /* At least 32 bytes of entropy: 43+ base62 characters. */
    assert_true(strlen(key) >= 8 + 43);
    assert_int_equal(trv_key_authenticate(dbt_conn, dbt_pool, key, &who), APR_SUCCESS);
    assert_string_equal(who.org_id, org);
    assert_string_equal(who.key_id, key_id);
    assert_string_equal(who.mode, "test");
    assert_int_equal(trv_key_revoke(dbt_conn, dbt_pool, key_id), APR_SUCCESS);
    assert_int_equal(trv_key_authenticate(dbt_conn, dbt_pool, key, &who), APR_ENOENT);
    assert_int_equal(trv_key_revoke(dbt_conn, dbt_pool, "key_nope"), APR_ENOENT);
    /* The same user name in the same organization is the same user. */
    {
        const char *k2id, *k2;
        trv_principal w2;
        assert_int_equal(trv_key_create(dbt_conn, dbt_pool, org, "carol", 1, &k2id, &k2),
                         APR_SUCCESS);
        assert_int_equal(strncmp(k2, "tk_live_", 8), 0);
        assert_int_equal(trv_key_authenticate(dbt_conn, dbt_pool, k2, &w2), APR_SUCCESS);
        assert_string_equal(w2.user_id, who.user_id);
    }
    assert_int_equal(trv_key_create(dbt_conn, dbt_pool, "org_missing", "x", 0, &key_id, &key),
                     APR_ENOENT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(migrate_again_is_a_noop),
        cmocka_unit_test(null_is_not_empty),
        cmocka_unit_test(transactions_commit_or_change_nothing),
        cmocka_unit_test(jobs_run_once_and_leave),
        cmocka_unit_test(dedupe_key_enqueues_once_while_pending),
        cmocka_unit_test(retries_then_dead_with_the_last_error),
        cmocka_unit_test(release_does_not_use_an_attempt),
        cmocka_unit_test(delayed_job_waits),
        cmocka_unit_test(keys_authenticate_until_revoked),
        cmocka_unit_test(statements_survive_a_server_side_reset),
        cmocka_unit_test(an_idle_connection_the_server_ended_is_reconnected_at_open),
        cmocka_unit_test(sqlstates_that_drop),
        cmocka_unit_test(outage_is_noted_once_per_interval),
        cmocka_unit_test(a_read_only_server_drops_the_connection),
    };
    return cmocka_run_group_tests_name("db layer", tests, dbt_setup, dbt_teardown);
}
