/* The background worker framework: jobs claimed from PostgreSQL with SKIP
 * LOCKED and a lease, run exactly once across two httpd instances sharing
 * one database, and run again when the child running one is killed. */
#include "e2e.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

static void thousand_jobs_run_exactly_once_on_two_instances(void **state)
{
    char label[64];
    const char *p[1] = {label};
    long start = e2e_now_ms(), runs = 0, a = e2e_instance_pid("a"), b = e2e_instance_pid("b");
    int saw_a = 0, saw_b = 0;
    PGresult *res;
    int i;
    (void)state;
    snprintf(label, sizeof(label), "thousand-%ld", start);
    assert_true(a > 0 && b > 0);
    e2e_sql_exec("INSERT INTO jobs (kind, payload) SELECT 'system.probe', "
                 "jsonb_build_object('label', $1::text) FROM generate_series(1, 1000)", 1, p);
    while (e2e_now_ms() - start < 120000) {
        runs = e2e_sql_long("SELECT count(*) FROM job_probe_runs WHERE label = $1", 1, p);
        if (runs >= 1000) {
            break;
        }
        e2e_sleep_ms(100);
    }
    assert_int_equal(runs, 1000);
    /* Let any duplicate run land before counting distinct jobs. */
    e2e_sleep_ms(1000);
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM job_probe_runs WHERE label = $1",
                                  1, p), 1000);
    assert_int_equal(e2e_sql_long("SELECT count(DISTINCT job_id) FROM job_probe_runs "
                                  "WHERE label = $1", 1, p), 1000);
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM job_probe_runs WHERE label = $1 "
                                  "AND attempt <> 1", 1, p), 0);
    /* Both instances' children took part. */
    res = PQexecParams(e2e_db(), "SELECT DISTINCT split_part(worker, ':', 2) FROM "
                       "job_probe_runs WHERE label = $1", 1, NULL, p, NULL, NULL, 0);
    for (i = 0; i < PQntuples(res); i++) {
        long parent = e2e_parent_of(atol(PQgetvalue(res, i, 0)));
        saw_a |= parent == a;
        saw_b |= parent == b;
    }
    PQclear(res);
    assert_true(saw_a);
    assert_true(saw_b);
    /* Finished jobs leave the queue. */
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM jobs WHERE payload->>'label' = $1",
                                  1, p), 0);
}

static void killed_worker_job_runs_again_after_its_lease(void **state)
{
    char label[64], *job_id = NULL, *worker = NULL;
    const char *p[1] = {label};
    long start = e2e_now_ms(), pid;
    (void)state;
    snprintf(label, sizeof(label), "killed-%ld", start);
    /* Long enough to be caught mid-run; the test stack's lease is 3 s. */
    job_id = e2e_sql_text("INSERT INTO jobs (kind, payload) VALUES ('system.probe', "
                          "jsonb_build_object('label', $1::text, 'sleep_ms', 2500)) "
                          "RETURNING id", 1, p);
    while (e2e_now_ms() - start < 20000) {
        worker = e2e_sql_text("SELECT locked_by FROM jobs WHERE payload->>'label' = $1 "
                              "AND status = 'running'", 1, p);
        if (worker) {
            break;
        }
        e2e_sleep_ms(10);
    }
    assert_non_null(worker);
    pid = atol(strchr(worker, ':') + 1);
    assert_true(pid > 1);
    e2e_expect_log("AH00052: .*exit signal Killed");
    assert_int_equal(kill((pid_t)pid, SIGKILL), 0);
    /* The run that was killed never finished; after the lease another
     * worker claims the job and runs it to the end. */
    start = e2e_now_ms();
    while (e2e_now_ms() - start < 30000
           && e2e_sql_long("SELECT count(*) FROM job_probe_runs WHERE label = $1", 1, p) == 0) {
        e2e_sleep_ms(100);
    }
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM job_probe_runs WHERE label = $1",
                                  1, p), 1);
    assert_int_equal(e2e_sql_long("SELECT attempt FROM job_probe_runs WHERE label = $1",
                                  1, p), 2);
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM jobs WHERE payload->>'label' = $1",
                                  1, p), 0);
    free(job_id);
    free(worker);
}

static void failing_job_kind_is_kept_dead_with_its_error(void **state)
{
    char label[64], *err;
    const char *p[1] = {label};
    long start = e2e_now_ms();
    (void)state;
    snprintf(label, sizeof(label), "unknown-%ld", start);
    e2e_expect_log("TRV103: job [0-9]+ \\(no.such.kind\\)");
    e2e_sql_exec("INSERT INTO jobs (kind, payload) VALUES ('no.such.kind', "
                 "jsonb_build_object('label', $1::text))", 1, p);
    while (e2e_now_ms() - start < 20000
           && e2e_sql_long("SELECT count(*) FROM jobs WHERE payload->>'label' = $1 "
                           "AND status = 'dead'", 1, p) == 0) {
        e2e_sleep_ms(50);
    }
    err = e2e_sql_text("SELECT last_error FROM jobs WHERE payload->>'label' = $1", 1, p);
    assert_non_null(err);
    assert_non_null(strstr(err, "no handler for job kind no.such.kind"));
    free(err);
}

static void graceful_restart_releases_and_finishes_jobs(void **state)
{
    char label[64], cmd[4200];
    const char *p[1] = {label};
    long start = e2e_now_ms(), running = 0;
    const char *inst[] = {"a", "b"};
    int i;
    (void)state;
    snprintf(label, sizeof(label), "graceful-%ld", start);
    e2e_sql_exec("INSERT INTO jobs (kind, payload) SELECT 'system.probe', "
                 "jsonb_build_object('label', $1::text, 'sleep_ms', 1500) "
                 "FROM generate_series(1, 16)", 1, p);
    while (e2e_now_ms() - start < 20000 && running < 4) {
        running = e2e_sql_long("SELECT count(*) FROM jobs WHERE payload->>'label' = $1 "
                               "AND status = 'running'", 1, p);
        e2e_sleep_ms(20);
    }
    assert_true(running >= 4);
    /* Both instances restart gracefully with jobs in flight: the stopping
     * children's workers let go of their jobs and are joined; the new
     * children pick the jobs up. */
    for (i = 0; i < 2; i++) {
        snprintf(cmd, sizeof(cmd), "%s -f %s/httpd-%s/httpd.conf -k graceful",
                 e2e_apache2(), e2e_env("TRAVEL_TEST_DIR"), inst[i]);
        assert_int_equal(system(cmd), 0);
    }
    start = e2e_now_ms();
    while (e2e_now_ms() - start < 60000
           && e2e_sql_long("SELECT count(*) FROM job_probe_runs WHERE label = $1", 1, p) < 16) {
        e2e_sleep_ms(100);
    }
    e2e_sleep_ms(500);
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM job_probe_runs WHERE label = $1",
                                  1, p), 16);
    assert_int_equal(e2e_sql_long("SELECT count(DISTINCT job_id) FROM job_probe_runs "
                                  "WHERE label = $1", 1, p), 16);
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM jobs WHERE payload->>'label' = $1",
                                  1, p), 0);
    /* And the restarted server answers. */
    {
        e2e_resp *r = e2e_call(e2e_url(), "GET", "/v1/flight/bookings", NULL, NULL);
        assert_int_equal(r->status, 401);
        e2e_free(r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(thousand_jobs_run_exactly_once_on_two_instances),
        cmocka_unit_test(killed_worker_job_runs_again_after_its_lease),
        cmocka_unit_test(failing_job_kind_is_kept_dead_with_its_error),
        cmocka_unit_test(graceful_restart_releases_and_finishes_jobs),
    };
    return E2E_RUN("background workers", tests);
}
