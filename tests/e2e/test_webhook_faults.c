/* At least once, nothing lost: 1,000 events at a time fanned out and sent
 * while the stack is hurt (an httpd child killed with SIGKILL mid-send, a
 * graceful restart, PostgreSQL restarting), each run ending with every
 * event received and every delivery record consistent; and two httpd
 * instances on one database delivering each event exactly once when
 * nothing goes wrong. */
#include "test_webhook_common.h"
#include "core/db.h"

#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>

#define EVENTS 1000

typedef struct run {
    char *key, *org, inbox[64], url[256];
    json_t *sub;
    const char *sub_id, *secret;
    char label[64];
} run;

/* A fresh organization and subscription, its inbox answering after
 * delay_ms so sends are in flight when the fault strikes. */
static void run_start(run *r, int delay_ms)
{
    char behavior[128];
    memset(r, 0, sizeof(*r));
    r->key = e2e_new_org_key("faults", &r->org);
    wh_inbox(r->inbox, sizeof(r->inbox), r->url, sizeof(r->url));
    r->sub = wh_subscribe(r->key, "flight", r->url, "[\"flight.booking.confirmed\"]");
    r->sub_id = wh_str(r->sub, "id");
    r->secret = wh_str(r->sub, "signing_secret");
    snprintf(r->label, sizeof(r->label), "faults-%ld", e2e_now_ms());
    if (delay_ms > 0) {
        snprintf(behavior, sizeof(behavior), "{\"status\": 200, \"delay_ms\": %d}", delay_ms);
        wh_inbox_behave(r->inbox, behavior);
    }
}

static void run_end(run *r)
{
    free(r->key);
    free(r->org);
    json_decref(r->sub);
}

/* EVENTS events into the outbox in one transaction, as a busy domain would. */
static void emit_all(run *r)
{
    const char *p[2] = {r->org, r->label};
    e2e_sql_exec("WITH e AS (INSERT INTO events (id, org_id, family, type, data) "
                 "SELECT 'evt_' || gen_random_uuid(), $1, 'flight', 'flight.booking.confirmed', "
                 "jsonb_build_object('booking', jsonb_build_object('id', 'bkg_' || i), "
                 "'label', $2::text, 'seq', i) FROM generate_series(1, 1000) i RETURNING id) "
                 "INSERT INTO jobs (kind, payload) "
                 "SELECT 'event.publish', jsonb_build_object('event_id', id) FROM e", 2, p);
}

static long delivered(const run *r)
{
    const char *p[1] = {r->sub_id};
    return e2e_sql_long("SELECT count(*) FROM webhook_deliveries WHERE subscription_id = $1 "
                        "AND status = 'DELIVERED'", 1, p);
}

static void wait_delivered(const run *r, long n, long timeout_ms)
{
    long t0 = e2e_now_ms(), got = 0;
    while (e2e_now_ms() - t0 < timeout_ms) {
        got = delivered(r);
        if (got >= n) {
            return;
        }
        e2e_sleep_ms(100);
    }
    fail_msg("%ld of %ld deliveries DELIVERED after %ld ms", got, n, timeout_ms);
}

/* Every event received (and verified) at least once, or exactly once;
 * every delivery record consistent with its attempts; nothing left queued. */
static void check_consistent(const run *r, int exactly_once)
{
    const char *p[2] = {r->sub_id, r->inbox};
    PGresult *res;
    int i, bad = 0;

    assert_int_equal(e2e_sql_long("SELECT count(*) FROM webhook_deliveries WHERE "
                                  "subscription_id = $1", 1, p), EVENTS);
    assert_int_equal(e2e_sql_long("SELECT count(DISTINCT event_id) FROM webhook_deliveries "
                                  "WHERE subscription_id = $1", 1, p), EVENTS);
    /* DELIVERED with its timestamps, the last attempt of the send a 2xx,
     * attempts numbered 1..attempt_count without gaps. */
    assert_int_equal(e2e_sql_long(
        "SELECT count(*) FROM webhook_deliveries d WHERE d.subscription_id = $1 AND NOT ("
        "d.status = 'DELIVERED' AND d.delivered_at IS NOT NULL AND d.published_at IS NOT NULL "
        "AND d.failed_at IS NULL AND d.failure_reason IS NULL AND d.attempt_count >= 1 "
        "AND (SELECT count(*) FROM webhook_attempts a WHERE a.delivery_id = d.id "
        "AND a.replay = d.replay_count) = d.attempt_count "
        "AND (SELECT max(attempt_number) FROM webhook_attempts a WHERE a.delivery_id = d.id "
        "AND a.replay = d.replay_count) = d.attempt_count "
        "AND (SELECT response_status FROM webhook_attempts a WHERE a.delivery_id = d.id "
        "AND a.replay = d.replay_count AND a.attempt_number = d.attempt_count) "
        "BETWEEN 200 AND 299)", 1, p), 0);
    /* Only the last attempt of a send succeeded. */
    assert_int_equal(e2e_sql_long(
        "SELECT count(*) FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = "
        "a.delivery_id WHERE d.subscription_id = $1 AND a.response_status BETWEEN 200 AND 299 "
        "AND a.attempt_number <> d.attempt_count", 1, p), 0);
    /* Nothing left queued or dead for these deliveries. A send whose
     * outcome could not be recorded while PostgreSQL was down is claimed
     * again when its lease runs out and then finds its delivery done: give
     * such leftovers a few leases to drain. */
    {
        long t0 = e2e_now_ms();
        while (e2e_now_ms() - t0 < 20000
               && e2e_sql_long("SELECT count(*) FROM jobs j JOIN webhook_deliveries d "
                               "ON d.id = j.payload->>'delivery_id' WHERE "
                               "d.subscription_id = $1 AND j.status <> 'dead'", 1, p) > 0) {
            e2e_sleep_ms(200);
        }
    }
    assert_int_equal(e2e_sql_long(
        "SELECT count(*) FROM jobs j JOIN webhook_deliveries d ON d.id = "
        "j.payload->>'delivery_id' WHERE d.subscription_id = $1", 1, p), 0);
    /* The receiver has every event, each request verifying. */
    assert_int_equal(e2e_sql_long(
        "SELECT count(DISTINCT r.headers->>'webhook-id') FROM sandbox.inbox_requests r "
        "WHERE r.inbox = $2 AND r.status = 200 AND r.headers->>'webhook-id' IN "
        "(SELECT event_id FROM webhook_deliveries WHERE subscription_id = $1)", 2, p), EVENTS);
    res = PQexecParams(e2e_db(), "SELECT headers->>'webhook-id', headers->>'webhook-timestamp', "
                       "headers->>'webhook-signature', convert_from(body, 'UTF8') "
                       "FROM sandbox.inbox_requests WHERE inbox = $1", 1, NULL, p + 1, NULL,
                       NULL, 0);
    assert_int_equal(PQresultStatus(res), PGRES_TUPLES_OK);
    for (i = 0; i < PQntuples(res); i++) {
        if (!swh_verify(r->secret, PQgetvalue(res, i, 0), PQgetvalue(res, i, 1),
                        PQgetvalue(res, i, 2), PQgetvalue(res, i, 3),
                        strlen(PQgetvalue(res, i, 3)))) {
            bad++;
        }
    }
    if (exactly_once) {
        assert_int_equal(PQntuples(res), EVENTS);
    }
    else {
        assert_true(PQntuples(res) >= EVENTS);
    }
    PQclear(res);
    assert_int_equal(bad, 0);
}

static void two_instances_deliver_each_event_once(void **state)
{
    run r;
    long a = e2e_instance_pid("a"), b = e2e_instance_pid("b"), t0;
    int saw_a = 0, saw_b = 0, i;
    PGresult *res;
    const char *p[1];
    (void)state;
    assert_true(a > 0 && b > 0);
    run_start(&r, 0);
    t0 = e2e_now_ms();
    emit_all(&r);
    wait_delivered(&r, EVENTS, 120000);
    print_message("      %d events delivered by two instances in %ld ms\n", EVENTS,
                  e2e_now_ms() - t0);
    e2e_sleep_ms(500); /* any duplicate would land now */
    check_consistent(&r, 1);
    /* Each was sent once: one attempt per delivery. */
    p[0] = r.sub_id;
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM webhook_attempts a JOIN "
                                  "webhook_deliveries d ON d.id = a.delivery_id "
                                  "WHERE d.subscription_id = $1", 1, p), EVENTS);
    /* Both instances' senders took part. */
    res = PQexecParams(e2e_db(), "SELECT DISTINCT split_part(a.sender, ':', 2) FROM "
                       "webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id "
                       "WHERE d.subscription_id = $1", 1, NULL, p, NULL, NULL, 0);
    for (i = 0; i < PQntuples(res); i++) {
        long parent = e2e_parent_of(atol(PQgetvalue(res, i, 0)));
        saw_a |= parent == a;
        saw_b |= parent == b;
    }
    PQclear(res);
    assert_true(saw_a);
    assert_true(saw_b);
    run_end(&r);
}

static void a_child_killed_mid_send_loses_nothing(void **state)
{
    run r;
    char *worker = NULL, *dlv = NULL, *held = NULL;
    const char *p[2];
    long pid, t0;
    (void)state;
    run_start(&r, 40);
    emit_all(&r);
    wait_delivered(&r, 150, 60000);
    /* A sender that is in the middle of a batch of requests right now (it
     * holds two jobs or more: a batch's claim is one statement). */
    p[0] = r.sub_id;
    t0 = e2e_now_ms();
    while (!worker && e2e_now_ms() - t0 < 20000) {
        PGresult *res = PQexecParams(e2e_db(),
            "SELECT j.locked_by, min(d.id), array_agg(d.id)::text FROM jobs j "
            "JOIN webhook_deliveries d ON d.id = j.payload->>'delivery_id' "
            "WHERE d.subscription_id = $1 AND j.status = 'running' "
            "AND j.kind = 'webhook.send' GROUP BY j.locked_by HAVING count(*) >= 2 LIMIT 1",
            1, NULL, p, NULL, NULL, 0);
        if (PQntuples(res) == 1) {
            worker = strdup(PQgetvalue(res, 0, 0));
            dlv = strdup(PQgetvalue(res, 0, 1));
            held = strdup(PQgetvalue(res, 0, 2));
        }
        PQclear(res);
    }
    assert_non_null(worker);
    pid = atol(strchr(worker, ':') + 1);
    assert_true(pid > 1);
    e2e_expect_log("AH00052: .*exit signal Killed");
    assert_int_equal(kill((pid_t)pid, SIGKILL), 0);
    print_message("      killed sender %s (deliveries %s) after %ld deliveries\n", worker, held,
                  delivered(&r));
    /* Its jobs are claimed again when the hold runs out (15 s). */
    wait_delivered(&r, EVENTS, 180000);
    e2e_sleep_ms(500);
    check_consistent(&r, 0);
    p[1] = dlv;
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM webhook_deliveries WHERE "
                                  "subscription_id = $1 AND id = $2 AND status = 'DELIVERED'",
                                  2, p), 1);
    /* Every delivery of the batch it held, not only one. */
    p[1] = held;
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM webhook_deliveries WHERE "
                                  "subscription_id = $1 AND id = ANY ($2::text[]) "
                                  "AND status = 'DELIVERED'", 2, p),
                     e2e_sql_long("SELECT cardinality($1::text[])", 1, p + 1));
    assert_true(e2e_sql_long("SELECT cardinality($1::text[])", 1, p + 1) >= 2);
    free(worker);
    free(dlv);
    free(held);
    run_end(&r);
}

static int run_cmd(const char *cmd)
{
    int rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static void a_graceful_restart_loses_nothing(void **state)
{
    run r;
    char cmd[4096];
    (void)state;
    run_start(&r, 20);
    emit_all(&r);
    wait_delivered(&r, 150, 60000);
    snprintf(cmd, sizeof(cmd), "%s -f %s/httpd-a/httpd.conf -k graceful",
             e2e_apache2(), e2e_env("TRAVEL_TEST_DIR"));
    assert_int_equal(run_cmd(cmd), 0);
    print_message("      graceful restart of instance a after %ld deliveries\n", delivered(&r));
    wait_delivered(&r, EVENTS, 180000);
    e2e_sleep_ms(500);
    check_consistent(&r, 0);
    run_end(&r);
}

static void postgresql_restarting_under_load_loses_nothing(void **state)
{
    run r;
    char cmd[4096];
    long t0;
    (void)state;
    run_start(&r, 10);
    emit_all(&r);
    wait_delivered(&r, 150, 60000);
    /* While it is down, everything that touches the database fails loudly. */
    e2e_expect_log("TRV[0-9]+: .*" TRV_DB_UNAVAILABLE);
    /* mod_dbd's own lines, by message id: libpq words a lost server in more
     * ways than a list can hold ("server closed the connection
     * unexpectedly", "starting up", a missing socket, ...). */
    e2e_expect_log("(AH00629|AH02655|AH00639):");
    snprintf(cmd, sizeof(cmd),
             "pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1); "
             "if [ \"$(id -u)\" -eq 0 ]; then run='runuser -u postgres --'; else run=''; fi; "
             "$run \"$pgbin/pg_ctl\" -D %s/pg -m fast -w -t 60 restart >/dev/null",
             e2e_env("TRAVEL_TEST_DIR"));
    t0 = e2e_now_ms();
    assert_int_equal(run_cmd(cmd), 0);
    print_message("      PostgreSQL restarted in %ld ms after %ld deliveries\n",
                  e2e_now_ms() - t0, (PQreset(e2e_db()), delivered(&r)));
    wait_delivered(&r, EVENTS, 180000);
    e2e_sleep_ms(500);
    check_consistent(&r, 0);
    run_end(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(two_instances_deliver_each_event_once),
        cmocka_unit_test(a_child_killed_mid_send_loses_nothing),
        cmocka_unit_test(a_graceful_restart_loses_nothing),
        cmocka_unit_test(postgresql_restarting_under_load_loses_nothing),
    };
    return E2E_RUN("webhook faults", tests);
}
