/* Virtual hosts as tenants: one httpd with two name-based virtual hosts on
 * one port, tenant-a.localhost on the test database and tenant-b.localhost
 * on a database of its own (with its own secret key), each with its own
 * organization and key. A key of one is refused by the other, a booking of
 * one is not found on the other, each one's background jobs run in its own
 * database (an asynchronously ticketed booking completes on both), and an
 * event of one is delivered only to its own subscriptions. Names under
 * .localhost are loopback (libcurl and the test resolver answer them
 * without DNS); curl sends them as the Host header. */
#include "flight_e2e.h"
#include "test_webhook_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char url_a[128], url_b[128], b_conninfo[1024];
static char *key_a, *key_b, *org_a, *org_b;
static long pid = -1;
static PGconn *db_b;

/* The test database's conninfo with another dbname / user. */
static void conninfo_for(char *out, size_t n, const char *dbname, const char *user)
{
    const char *base = e2e_conninfo();
    const char *host = strstr(base, "host="), *port = strstr(base, "port=");
    assert_non_null(host);
    assert_non_null(port);
    snprintf(out, n, "host=%.*s port=%.*s dbname=%s user=%s",
             (int)strcspn(host + 5, " "), host + 5, (int)strcspn(port + 5, " "), port + 5,
             dbname, user);
}

/* Last line printed by travelctl on tenant b's database (malloc'd). */
static char *travelctl_b(const char *args)
{
    char cmd[4096], line[1024], *last = NULL;
    FILE *f;
    snprintf(cmd, sizeof(cmd), "%s --db '%s' %s 2>/dev/null", e2e_env("TRAVEL_TEST_TRAVELCTL"),
             b_conninfo, args);
    f = popen(cmd, "r");
    assert_non_null(f);
    while (fgets(line, sizeof(line), f)) {
        line[strcspn(line, "\n")] = '\0';
        free(last);
        last = strdup(line);
    }
    if (pclose(f) != 0) {
        fail_msg("travelctl %s on tenant b's database failed", args);
    }
    assert_non_null(last);
    return last;
}

static void make_database_b(void)
{
    char admin[1024];
    PGconn *pg;
    PGresult *res;
    conninfo_for(admin, sizeof(admin), "postgres", "postgres");
    pg = PQconnectdb(admin);
    assert_int_equal(PQstatus(pg), CONNECTION_OK);
    res = PQexec(pg, "SELECT 1 FROM pg_database WHERE datname = 'travel_tenant_b'");
    if (PQntuples(res) == 0) {
        PQclear(res);
        res = PQexec(pg, "CREATE DATABASE travel_tenant_b OWNER travel");
        if (PQresultStatus(res) != PGRES_COMMAND_OK) {
            fail_msg("CREATE DATABASE: %s", PQerrorMessage(pg));
        }
    }
    PQclear(res);
    PQfinish(pg);
    conninfo_for(b_conninfo, sizeof(b_conninfo), "travel_tenant_b", "travel");
    free(travelctl_b("migrate"));
    db_b = PQconnectdb(b_conninfo);
    assert_int_equal(PQstatus(db_b), CONNECTION_OK);
}

/* Count of a query with one parameter on tenant b's database. */
static long b_count(const char *sql, const char *param)
{
    const char *p[1] = {param};
    PGresult *res = PQexecParams(db_b, sql, 1, NULL, p, NULL, NULL, 0);
    long n;
    if (PQresultStatus(res) != PGRES_TUPLES_OK) {
        fail_msg("%s: %s", sql, PQerrorMessage(db_b));
    }
    n = atol(PQgetvalue(res, 0, 0));
    PQclear(res);
    return n;
}

static char *b_text(const char *sql, const char *param)
{
    const char *p[1] = {param};
    PGresult *res = PQexecParams(db_b, sql, 1, NULL, p, NULL, NULL, 0);
    char *v = NULL;
    if (PQresultStatus(res) != PGRES_TUPLES_OK) {
        fail_msg("%s: %s", sql, PQerrorMessage(db_b));
    }
    if (PQntuples(res) > 0 && !PQgetisnull(res, 0, 0)) {
        v = strdup(PQgetvalue(res, 0, 0));
    }
    PQclear(res);
    return v;
}

static void start(void)
{
    char secret[1024], extra[4096], url[128];
    const char *hex = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
    int port = e2e_free_port();
    FILE *f;
    make_database_b();
    /* Tenant b's own key for secrets at rest (a fixed test value). */
    snprintf(secret, sizeof(secret), "%s/tenant-b.key", e2e_env("TRAVEL_TEST_DIR"));
    f = fopen(secret, "w");
    assert_non_null(f);
    fprintf(f, "%s\n", hex);
    fclose(f);
    snprintf(extra, sizeof(extra),
             "Listen 127.0.0.1:%d\n"
             "<VirtualHost 127.0.0.1:%d>\n"
             "    ServerName tenant-a.localhost\n"
             "    <Location /v1>\n        SetHandler travel\n    </Location>\n"
             "</VirtualHost>\n"
             "<VirtualHost 127.0.0.1:%d>\n"
             "    ServerName tenant-b.localhost\n"
             "    DBDParams \"%s\"\n"
             "    TravelSecretKeyFile \"%s\"\n"
             "    <Location /v1>\n        SetHandler travel\n    </Location>\n"
             "    <Location /metrics>\n        SetHandler travel-metrics\n    </Location>\n"
             "</VirtualHost>\n", port, port, port, b_conninfo, secret);
    pid = e2e_start_instance("vhosts", NULL, extra, url, sizeof(url));
    snprintf(url_a, sizeof(url_a), "http://tenant-a.localhost:%d", port);
    snprintf(url_b, sizeof(url_b), "http://tenant-b.localhost:%d", port);
    key_a = e2e_new_org_key("tenant-a-user", &org_a);
    org_b = travelctl_b("org create tenant-b");
    {
        char args[256];
        snprintf(args, sizeof(args), "key create --org %s --user tenant-b-user", org_b);
        key_b = travelctl_b(args);
    }
}

static int teardown(void **state)
{
    (void)state;
    e2e_stop_pid(pid);
    pid = -1;
    if (db_b) {
        PQfinish(db_b);
    }
    return 0;
}

/* The shared helpers (flight_e2e.h, test_webhook_common.h) talk to
 * e2e_url(): point it at one tenant. */
static void use(const char *url)
{
    setenv("TRAVEL_TEST_URL", url, 1);
}

static long status_of(const char *url, const char *key, const char *path)
{
    e2e_resp *r;
    long st;
    use(url);
    r = e2e_get(key, path);
    st = r->status;
    e2e_free(r);
    return st;
}

static void keys_belong_to_their_tenant(void)
{
    /* Each key is known (and cached) on its own host first. */
    assert_int_equal(status_of(url_a, key_a, "/v1/flight/bookings"), 200);
    assert_int_equal(status_of(url_b, key_b, "/v1/flight/bookings"), 200);
    assert_int_equal(status_of(url_b, key_a, "/v1/flight/bookings"), 401);
    assert_int_equal(status_of(url_a, key_b, "/v1/flight/bookings"), 401);
    /* Still refused once the other host has seen it many times. */
    assert_int_equal(status_of(url_a, key_a, "/v1/flight/bookings"), 200);
    assert_int_equal(status_of(url_b, key_a, "/v1/flight/bookings"), 401);
}

/* A SUPPLIER_B booking ticketed in the background (the sandbox's Async
 * passenger): 202, then CONFIRMED by a job. Returns its id (malloc'd). */
static char *book_async(const char *url, const char *key)
{
    json_t *b, *done;
    e2e_resp *r;
    char *id;
    use(url);
    b = fe_ready(key, "SUPPLIER_B", "Async", NULL);
    id = strdup(fe_s(b, "id"));
    r = fe_book(key, id, "{}");
    fe_expect(r, 202, "book while ticketing");
    assert_string_equal(fe_s(fe_data(r), "status"), "COMPLETE_IN_PROGRESS");
    done = fe_wait_status(key, id, "CONFIRMED", 60000);
    json_decref(done);
    e2e_free(r);
    json_decref(b);
    return id;
}

static int list_has(const char *url, const char *key, const char *id)
{
    e2e_resp *r;
    json_t *item;
    size_t i;
    int found = 0;
    use(url);
    r = e2e_get(key, "/v1/flight/bookings?limit=100");
    fe_expect(r, 200, "listing bookings");
    json_array_foreach(fe_data(r), i, item) {
        found |= strcmp(fe_s(item, "id"), id) == 0;
    }
    e2e_free(r);
    return found;
}

/* The requests an inbox received with this webhook-id (event id). */
static int inbox_has(const char *inbox, const char *event_id)
{
    json_t *all = wh_inbox_requests(inbox), *r;
    size_t i;
    int n = 0;
    json_array_foreach(all, i, r) {
        const char *id = wh_header(r, "webhook-id");
        n += id && strcmp(id, event_id) == 0;
    }
    json_decref(all);
    return n;
}

static json_t *inbox_request(const char *inbox, const char *event_id)
{
    json_t *all = wh_inbox_requests(inbox), *r, *found = NULL;
    size_t i;
    json_array_foreach(all, i, r) {
        const char *id = wh_header(r, "webhook-id");
        if (!found && id && strcmp(id, event_id) == 0) {
            found = json_incref(r);
        }
    }
    json_decref(all);
    return found;
}

static void bookings_jobs_and_webhooks_stay_in_their_tenant(void)
{
    char inbox_a[64], inbox_b[64], hook_a[256], hook_b[256], path[256];
    json_t *sub_a, *sub_b, *req;
    char *id_a, *id_b, *ev_a, *ev_b;
    const char *p[1];
    long t0;
    wh_inbox(inbox_a, sizeof(inbox_a), hook_a, sizeof(hook_a));
    wh_inbox(inbox_b, sizeof(inbox_b), hook_b, sizeof(hook_b));
    use(url_a);
    sub_a = wh_subscribe(key_a, "flight", hook_a, "[\"flight.booking.confirmed\"]");
    use(url_b);
    sub_b = wh_subscribe(key_b, "flight", hook_b, "[\"flight.booking.confirmed\"]");

    /* Each tenant's ticketing job runs against its own database. */
    id_a = book_async(url_a, key_a);
    id_b = book_async(url_b, key_b);
    p[0] = id_a;
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM flight_bookings WHERE id = $1 "
                                  "AND status = 'CONFIRMED'", 1, p), 1);
    assert_int_equal(b_count("SELECT count(*) FROM flight_bookings WHERE id = $1", id_a), 0);
    assert_int_equal(b_count("SELECT count(*) FROM flight_bookings WHERE id = $1 "
                             "AND status = 'CONFIRMED'", id_b), 1);
    p[0] = id_b;
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM flight_bookings WHERE id = $1", 1, p),
                     0);

    /* A booking of one tenant is not found on the other. */
    snprintf(path, sizeof(path), "/v1/flight/bookings/%s", id_a);
    assert_int_equal(status_of(url_b, key_b, path), 404);
    assert_int_equal(status_of(url_a, key_a, path), 200);
    snprintf(path, sizeof(path), "/v1/flight/bookings/%s", id_b);
    assert_int_equal(status_of(url_a, key_a, path), 404);
    assert_true(list_has(url_a, key_a, id_a));
    assert_false(list_has(url_b, key_b, id_a));
    assert_true(list_has(url_b, key_b, id_b));
    assert_false(list_has(url_a, key_a, id_b));

    /* Each confirmation is delivered to its own tenant's subscription,
     * signed with the secret that tenant's database keeps (sealed under
     * its own TravelSecretKeyFile). */
    p[0] = id_a;
    ev_a = e2e_sql_text("SELECT id FROM events WHERE data->'booking'->>'id' = $1 "
                        "AND type = 'flight.booking.confirmed'", 1, p);
    ev_b = b_text("SELECT id FROM events WHERE data->'booking'->>'id' = $1 "
                  "AND type = 'flight.booking.confirmed'", id_b);
    assert_non_null(ev_a);
    assert_non_null(ev_b);
    t0 = e2e_now_ms();
    while (!inbox_has(inbox_a, ev_a) || !inbox_has(inbox_b, ev_b)) {
        if (e2e_now_ms() - t0 > 60000) {
            fail_msg("deliveries did not arrive: a %d, b %d", inbox_has(inbox_a, ev_a),
                     inbox_has(inbox_b, ev_b));
        }
        e2e_sleep_ms(100);
    }
    req = inbox_request(inbox_b, ev_b);
    assert_true(wh_request_verifies(req, wh_str(sub_b, "signing_secret")));
    json_decref(req);
    req = inbox_request(inbox_a, ev_a);
    assert_true(wh_request_verifies(req, wh_str(sub_a, "signing_secret")));
    json_decref(req);
    assert_int_equal(inbox_has(inbox_a, ev_b), 0);
    assert_int_equal(inbox_has(inbox_b, ev_a), 0);
    /* Tenant b's subscription is in its database only. */
    assert_int_equal(b_count("SELECT count(*) FROM webhook_subscriptions WHERE id = $1",
                             wh_str(sub_b, "id")), 1);
    p[0] = wh_str(sub_b, "id");
    assert_int_equal(e2e_sql_long("SELECT count(*) FROM webhook_subscriptions WHERE id = $1",
                                  1, p), 0);
    free(id_a);
    free(id_b);
    free(ev_a);
    free(ev_b);
    json_decref(sub_a);
    json_decref(sub_b);
}

/* A gauge's value in Prometheus text, or -1. */
static long gauge(const char *text, const char *name)
{
    char pat[128];
    const char *at;
    snprintf(pat, sizeof(pat), "\n%s ", name);
    at = strstr(text, pat);
    return at ? atol(at + strlen(pat)) : -1;
}

/* Each host's health reports the workers of its own database, and its
 * metrics the queue of its own database. */
static void each_database_has_its_workers(void)
{
    e2e_resp *r;
    long main_dead = e2e_sql_long("SELECT count(*) FROM jobs WHERE status = 'dead'", 0, NULL);
    char n[32];
    /* More dead jobs in b's database than the test database has. */
    snprintf(n, sizeof(n), "%ld", main_dead + 2);
    b_count("WITH j AS (INSERT INTO jobs (kind, status, last_error) "
            "SELECT 'test.vhosts', 'dead', 'planted by test_vhosts' "
            "FROM generate_series(1, $1::int) RETURNING 1) SELECT count(*) FROM j", n);
    r = e2e_call(url_b, "GET", "/metrics", NULL, NULL);
    fe_expect(r, 200, "tenant b's metrics");
    /* At least main_dead + 2: not the test database's figure. */
    assert_int_equal(gauge(r->body, "travel_jobs_dead"),
                     b_count("SELECT count(*) FROM jobs WHERE status = $1", "dead"));
    e2e_free(r);
    use(url_b);
    r = e2e_call(url_b, "GET", "/v1/health", NULL, NULL);
    fe_expect(r, 200, "tenant b's health");
    assert_string_equal(fe_s(fe_data(r), "database"), "ok");
    assert_true(json_integer_value(json_object_get(json_object_get(fe_data(r), "workers"),
                                                   "running")) > 0);
    e2e_free(r);
}

/* One httpd for the whole test (started here, stopped by the teardown
 * even when a check fails). */
static void two_tenants_in_one_httpd(void **state)
{
    (void)state;
    start();
    keys_belong_to_their_tenant();
    bookings_jobs_and_webhooks_stay_in_their_tenant();
    each_database_has_its_workers();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(two_tenants_in_one_httpd, teardown),
    };
    return E2E_RUN("vhosts", tests);
}
