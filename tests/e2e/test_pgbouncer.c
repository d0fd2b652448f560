/* mod_travel behind a real PgBouncer in transaction pooling (the Debian
 * package), TravelDBMode pooled: the test starts its own pgbouncer on a
 * loopback port in front of the stack's cluster and two httpd instances
 * (copies of instance b's configuration) whose DBDParams name it:
 *   pooled    TravelNotifyConnInfo names the cluster directly: the
 *             listener proves its notifications and caches keys;
 *   nonotify  no TravelNotifyConnInfo: it LISTENs through the pooler,
 *             its proof NOTIFY never comes back, so it must say so in
 *             /v1/health, keep the key cache off and poll.
 * Bookings, reads, lists and a key revocation go through both: no 5xx, the
 * traffic really went through the pooler (its SHOW STATS), a revoked key
 * is refused on both within 2 s (docs/operations.md, "Behind PgBouncer").
 * A second pgbouncer in session mode with the same pool of 4 and a third
 * instance, `session`, on it: its 2 children x DBDMax 6 connections cannot
 * all get a server, which it says at start (TRV2203) instead of letting
 * requests wait 120 s. */
#include "flight_e2e.h"

#include <signal.h>
#include <sys/stat.h>

static char pooled_url[256], nonotify_url[256], session_url[256];
static long pooled_pid = -1, nonotify_pid = -1, session_pid = -1;
static long bouncer_pid = -1, session_bouncer_pid = -1;
static int bouncer_port, session_port;
static const char *direct_url;

/* "host=... port=..." of the stack's cluster, from its conninfo. */
static void cluster_socket(char *host, size_t hn, char *port, size_t pn)
{
    const char *ci = e2e_conninfo(), *h = strstr(ci, "host="), *p = strstr(ci, "port=");
    assert_non_null(h);
    assert_non_null(p);
    snprintf(host, hn, "%.*s", (int)strcspn(h + 5, " "), h + 5);
    snprintf(port, pn, "%.*s", (int)strcspn(p + 5, " "), p + 5);
}

/* Starts a pgbouncer with pool_mode `mode` and a pool of 4 in its own
 * folder; fills *listen_port, returns its pid. */
static long start_bouncer(const char *mode, int *listen_port)
{
    char host[1024], port[32], dir[2048], path[2300], cmd[8192];
    char *pid;
    FILE *f;
    long bpid = -1;
    int i;
    cluster_socket(host, sizeof(host), port, sizeof(port));
    snprintf(dir, sizeof(dir), "%s/pgbouncer-%s", e2e_env("TRAVEL_TEST_DIR"), mode);
    mkdir(dir, 0755);
    *listen_port = e2e_free_port();
    snprintf(path, sizeof(path), "%s/users.txt", dir);
    f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "\"travel\" \"\"\n");
    fclose(f);
    snprintf(path, sizeof(path), "%s/pgbouncer.ini", dir);
    f = fopen(path, "w");
    assert_non_null(f);
    /* A pool of 4 server connections for 4 children x 6 client
     * connections: transaction pooling shares them. */
    fprintf(f, "[databases]\ntravel = host=%s port=%s dbname=travel user=travel\n"
            "[pgbouncer]\nlisten_addr = 127.0.0.1\nlisten_port = %d\n"
            "unix_socket_dir =\nauth_type = trust\nauth_file = %s/users.txt\n"
            "admin_users = travel\npool_mode = %s\ndefault_pool_size = 4\n"
            "max_client_conn = 200\nlogfile = %s/pgbouncer.log\npidfile = %s/pgbouncer.pid\n"
            /* A starved client gives up after 5 s here, not 120 s. */
            "query_wait_timeout = 5\n",
            host, port, *listen_port, dir, mode, dir, dir);
    fclose(f);
    /* PgBouncer refuses to run as root. */
    snprintf(cmd, sizeof(cmd), "if [ \"$(id -u)\" = 0 ]; then chown -R postgres: '%s' && "
             "runuser -u postgres -- pgbouncer -d -q '%s'; else pgbouncer -d -q '%s'; fi",
             dir, path, path);
    assert_int_equal(system(cmd), 0);
    snprintf(path, sizeof(path), "%s/pgbouncer.pid", dir);
    for (i = 0; i < 50 && bpid <= 0; i++) {
        pid = e2e_slurp(path);
        bpid = atol(pid);
        free(pid);
        if (bpid <= 0) {
            e2e_sleep_ms(100);
        }
    }
    assert_true(bpid > 0);
    return bpid;
}

/* The pooler's admin console: one SHOW, the sum of the columns `cols`
 * (NULL-terminated) of the travel database's row, all from one answer (a
 * server moves between sv_active and sv_idle from one SHOW to the next). */
static long bouncer_sum(const char *what, const char *const *cols)
{
    char ci[256];
    PGconn *c;
    PGresult *r;
    long v = -1;
    int i, k;
    snprintf(ci, sizeof(ci), "host=127.0.0.1 port=%d dbname=pgbouncer user=travel",
             bouncer_port);
    c = PQconnectdb(ci);
    assert_int_equal(PQstatus(c), CONNECTION_OK);
    r = PQexec(c, what);
    assert_int_equal(PQresultStatus(r), PGRES_TUPLES_OK);
    for (i = 0; i < PQntuples(r); i++) {
        if (strcmp(PQgetvalue(r, i, PQfnumber(r, "database")), "travel") != 0) {
            continue;
        }
        v = 0;
        for (k = 0; cols[k]; k++) {
            int j = PQfnumber(r, cols[k]);
            assert_true(j >= 0);
            v += atol(PQgetvalue(r, i, j));
        }
    }
    PQclear(r);
    PQfinish(c);
    return v;
}

static long bouncer_show(const char *what, const char *col)
{
    const char *cols[2] = {col, NULL};
    return bouncer_sum(what, cols);
}

/* The edits that put a copy of instance b on the pooler at `port`: its
 * DBDParams (the cluster's socket, or under TRAVEL_TEST_PGBOUNCER the
 * suite's own pgbouncer) names this test's pooler, and b's own
 * TravelNotifyConnInfo, if any, goes (each instance here sets its own). */
static void pooler_edits(int port, char from[4200], char to[512], char notify_from[4400],
                         const char *edits[5])
{
    const char *b_db = getenv("TRAVEL_DB_CONNINFO");
    const char *b_notify = getenv("TRAVEL_NOTIFY_CONNINFO");
    snprintf(from, 4200, "DBDParams \"%s\"", b_db && *b_db ? b_db : e2e_conninfo());
    snprintf(to, 512, "DBDParams \"host=127.0.0.1 port=%d dbname=travel user=travel\"", port);
    snprintf(notify_from, 4400, "TravelNotifyConnInfo \"%s\"",
             b_notify && *b_notify ? b_notify : "(none)");
    edits[0] = from;
    edits[1] = to;
    edits[2] = notify_from;
    edits[3] = "";
    edits[4] = NULL;
}

static void start_instances(void **state)
{
    char from[4200], to[512], notify_from[4400], notify[4400];
    const char *edits[5];
    (void)state;
    direct_url = strdup(e2e_url());
    bouncer_pid = start_bouncer("transaction", &bouncer_port);
    pooler_edits(bouncer_port, from, to, notify_from, edits);
    snprintf(notify, sizeof(notify), "TravelDBMode pooled\nTravelNotifyConnInfo \"%s\"",
             e2e_conninfo());
    pooled_pid = e2e_start_instance("pooled", edits, notify, pooled_url, sizeof(pooled_url));
    nonotify_pid = e2e_start_instance("nonotify", edits, "TravelDBMode pooled",
                                      nonotify_url, sizeof(nonotify_url));
}

static void stop_instances(void **state)
{
    (void)state;
    e2e_stop_pid(pooled_pid);
    e2e_stop_pid(nonotify_pid);
    e2e_stop_pid(session_pid);
    e2e_stop_pid(bouncer_pid);
    e2e_stop_pid(session_bouncer_pid);
    setenv("TRAVEL_TEST_URL", direct_url, 1);
}

/* The state /v1/health reports on base once every child that answers
 * agrees for 2 s (each child proves its own listener), within limit_ms. */
static char *steady_notify_state(const char *base, long limit_ms, char **reason)
{
    long start = e2e_now_ms(), since = -1;
    char *last = NULL;
    *reason = NULL;
    while (e2e_now_ms() - start < limit_ms) {
        e2e_resp *r = e2e_call(base, "GET", "/v1/health", NULL, NULL);
        json_t *n = json_object_get(fe_data(r), "notifications");
        const char *st = n ? fe_s(n, "state") : "";
        assert_int_equal(r->status, 200);
        if (!last || strcmp(last, st) != 0) {
            free(last);
            last = strdup(st);
            since = e2e_now_ms();
        }
        free(*reason);
        *reason = json_string_value(json_object_get(n, "reason"))
                  ? strdup(json_string_value(json_object_get(n, "reason"))) : NULL;
        e2e_free(r);
        if (strcmp(last, "starting") != 0 && e2e_now_ms() - since >= 2000) {
            return last;
        }
        e2e_sleep_ms(50);
    }
    return last;
}

static void health_tells_proven_from_polling(void **state)
{
    char *reason, *st;
    (void)state;
    st = steady_notify_state(pooled_url, 15000, &reason);
    assert_string_equal(st, "listening");
    assert_null(reason);
    free(st);
    /* Through the pooler the LISTEN is accepted and the proof is lost. */
    st = steady_notify_state(nonotify_url, 15000, &reason);
    assert_string_equal(st, "polling");
    assert_non_null(reason);
    assert_non_null(strstr(reason, "did not come back"));
    assert_non_null(strstr(reason, "TravelNotifyConnInfo"));
    free(st);
    free(reason);
}

static int status_on(const char *base, const char *key, const char *path)
{
    char kh[512];
    const char *h[2] = {kh, NULL};
    e2e_resp *r;
    int st;
    snprintf(kh, sizeof(kh), "x-api-key: %s", key);
    r = e2e_call(base, "GET", path, h, NULL);
    st = (int)r->status;
    e2e_free(r);
    return st;
}

/* Booking flows and reads on one instance: every answer below 500. */
static void flows_on(const char *base, int n)
{
    char *key = fe_new_key("pgb");
    char *k = e2e_new_org_key(key, NULL);
    int i, j;
    setenv("TRAVEL_TEST_URL", base, 1);
    for (i = 0; i < n; i++) {
        json_t *b = fe_ready(k, i % 2 ? "SUPPLIER_B" : "SUPPLIER_A", "Lovelace", NULL);
        const char *id = fe_s(b, "id");
        char path[256];
        e2e_resp *r = fe_book(k, id, i % 2 ? "{}" : "{\"payment_instrument_id\":\"pi_test_visa\"}");
        fe_expect(r, 200, "book through the pooler");
        assert_string_equal(fe_s(fe_data(r), "status"), "CONFIRMED");
        e2e_free(r);
        snprintf(path, sizeof(path), "/v1/flight/bookings/%s", id);
        for (j = 0; j < 20; j++) {
            assert_int_equal(status_on(base, k, path), 200);
            assert_int_equal(status_on(base, k, "/v1/flight/bookings?limit=5"), 200);
        }
        assert_int_equal(fe_events(id, "flight.booking.confirmed"), 1);
        json_decref(b);
    }
    free(k);
    free(key);
}

static void bookings_and_reads_through_transaction_pooling(void **state)
{
    long before = bouncer_show("SHOW STATS", "total_xact_count"), after;
    (void)state;
    flows_on(pooled_url, 6);
    flows_on(nonotify_url, 4);
    after = bouncer_show("SHOW STATS", "total_xact_count");
    /* Each flow is dozens of transactions; all of them went through. */
    assert_true(after - before > 10 * 40);
    /* Never more server connections than the pool has. */
    {
        const char *servers[] = {"sv_active", "sv_idle", "sv_used", "sv_tested", "sv_login",
                                 NULL};
        long n = bouncer_sum("SHOW POOLS", servers);
        assert_true(n >= 1 && n <= 4);
    }
}

typedef struct on {
    const char *base, *key;
} on;

static long status_of(void *baton)
{
    on *o = baton;
    return status_on(o->base, o->key, "/v1/flight/bookings?limit=1");
}

static void revoked_key_is_refused_on_both_within_the_bound(void **state)
{
    char *org, *k = e2e_new_org_key("pgb-revoked", &org), *key_id, *out;
    const char *p[1] = {org};
    const char *bases[2] = {pooled_url, nonotify_url};
    int i, j;
    (void)state;
    for (j = 0; j < 2; j++) {
        for (i = 0; i < 12; i++) {
            assert_int_equal(status_on(bases[j], k, "/v1/flight/bookings?limit=1"), 200);
        }
    }
    key_id = e2e_sql_text("SELECT id FROM api_keys WHERE org_id = $1", 1, p);
    assert_non_null(key_id);
    out = e2e_travelctl("key revoke %s", key_id);
    assert_non_null(out);
    for (j = 0; j < 2; j++) {
        on o = {bases[j], k};
        if (!e2e_until_steady(status_of, &o, 401, 2000)) {
            fail_msg("%s still took the revoked key after 2 s", bases[j]);
        }
    }
    free(out);
    free(key_id);
    free(org);
    free(k);
}

static char *instance_log(const char *name)
{
    char path[2300];
    snprintf(path, sizeof(path), "%s/httpd-%s/error.log", e2e_env("TRAVEL_TEST_DIR"), name);
    return e2e_slurp(path);
}

/* Session pooling with 4 servers for 2 x 6 client connections: said at
 * start, by at least one child; transaction pooling shares the same 4. */
static void a_pool_too_small_is_said_at_start(void **state)
{
    char from[4200], to[512], notify_from[4400], extra[4400];
    const char *edits[5];
    long start;
    char *log = NULL;
    (void)state;
    session_bouncer_pid = start_bouncer("session", &session_port);
    pooler_edits(session_port, from, to, notify_from, edits);
    /* No workers: a starved one would hold its jobs' leases meanwhile. */
    snprintf(extra, sizeof(extra), "TravelDBMode pooled\nTravelNotifyConnInfo \"%s\"\n"
             "TravelWorkerThreads 0", e2e_conninfo());
    session_pid = e2e_start_instance("session", edits, extra, session_url,
                                     sizeof(session_url));
    start = e2e_now_ms();
    for (;;) {
        free(log);
        log = instance_log("session");
        if (strstr(log, "TRV2203") || e2e_now_ms() - start > 15000) {
            break;
        }
        e2e_sleep_ms(200);
    }
    if (!strstr(log, "TRV2203: ") || !strstr(log, "(DBDMax) got no answer")) {
        fail_msg("the session-pooled instance did not say its pool is too small: %s", log);
    }
    free(log);
    log = instance_log("pooled");
    assert_null(strstr(log, "TRV2203"));
    free(log);
    log = instance_log("nonotify");
    assert_null(strstr(log, "TRV2203"));
    free(log);
    e2e_stop_pid(session_pid);
    e2e_stop_pid(session_bouncer_pid);
    session_pid = session_bouncer_pid = -1;
}

/* Nothing failed on either instance's side: no error-level line. */
static void no_errors_logged(void **state)
{
    const char *names[2] = {"pooled", "nonotify"};
    int i;
    (void)state;
    for (i = 0; i < 2; i++) {
        char path[2300], *log;
        snprintf(path, sizeof(path), "%s/httpd-%s/error.log", e2e_env("TRAVEL_TEST_DIR"),
                 names[i]);
        log = e2e_slurp(path);
        if (strstr(log, ":error]") || strstr(log, ":crit]")) {
            fail_msg("httpd %s logged errors: %s", names[i], log);
        }
        free(log);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(start_instances),
        cmocka_unit_test(health_tells_proven_from_polling),
        cmocka_unit_test(bookings_and_reads_through_transaction_pooling),
        cmocka_unit_test(revoked_key_is_refused_on_both_within_the_bound),
        cmocka_unit_test(a_pool_too_small_is_said_at_start),
        cmocka_unit_test(no_errors_logged),
        cmocka_unit_test(stop_instances),
    };
    return E2E_RUN("pgbouncer", tests);
}
