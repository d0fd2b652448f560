/* travelctl as an administrator meets it: a flag a command does not take
 * is refused (exit status 2, usage on stderr) before anything is done;
 * `migrate --status` lists what is pending and applies nothing; `org list`;
 * `key create --expires-at`, whose key is refused (401) once expired. */
#include "e2e.h"

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

static char out[65536], err[65536];

static void slurp(const char *path, char *buf, size_t n)
{
    FILE *f = fopen(path, "r");
    size_t len = 0;
    buf[0] = '\0';
    if (f) {
        len = fread(buf, 1, n - 1, f);
        buf[len] = '\0';
        fclose(f);
    }
}

/* Runs travelctl with these arguments (shell words) against database db
 * (NULL: the test database); its exit status, stdout in out, stderr in err. */
static int ctl(const char *db, const char *args)
{
    char cmd[16384], o[2048], e[2048];
    int rc;
    snprintf(o, sizeof(o), "%s/travelctl.out", e2e_env("TRAVEL_TEST_DIR"));
    snprintf(e, sizeof(e), "%s/travelctl.err", e2e_env("TRAVEL_TEST_DIR"));
    snprintf(cmd, sizeof(cmd), "'%s' --db '%s' %s >'%s' 2>'%s'",
             e2e_env("TRAVEL_TEST_TRAVELCTL"), db ? db : e2e_conninfo(), args, o, e);
    rc = system(cmd);
    slurp(o, out, sizeof(out));
    slurp(e, err, sizeof(err));
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : 255;
}

static void refused(const char *args)
{
    int rc = ctl(NULL, args);
    if (rc != 2 || !strstr(err, "usage: travelctl") || out[0]) {
        fail_msg("travelctl %s: expected exit 2 with the usage on stderr and nothing on "
                 "stdout, got %d\nstdout: %s\nstderr: %s", args, rc, out, err);
    }
}

static long keys_of(const char *org)
{
    const char *params[] = {org};
    return e2e_sql_long("SELECT count(*) FROM api_keys WHERE org_id = $1", 1, params);
}

static void unknown_flags_are_refused(void **state)
{
    char *org, args[512];
    (void)state;
    org = e2e_travelctl("org create flags-%ld", e2e_now_ms());
    assert_non_null(org);
    refused("migrate --stat");
    refused("migrate --status --force");
    refused("--verbose org list");
    refused("org list --all");
    refused("org create");
    refused("org create one two");
    refused("key frobnicate");
    refused("key list");
    refused("worker probe --count many");
    refused("");
    /* A mistyped flag creates nothing. */
    snprintf(args, sizeof(args), "key create --org %s --user x --expire-at 2030-01-01", org);
    refused(args);
    snprintf(args, sizeof(args), "key create --org %s --live=yes", org);
    refused(args);
    snprintf(args, sizeof(args), "key create --org %s --expires-at 2001-01-01", org);
    refused(args);
    snprintf(args, sizeof(args), "key create --org %s --expires-at tomorrow", org);
    refused(args);
    assert_int_equal(keys_of(org), 0);
    /* --help is an answer, not a mistake. */
    assert_int_equal(ctl(NULL, "--help"), 0);
    assert_non_null(strstr(out, "usage: travelctl"));
    free(org);
}

static void quiet(void *arg, const char *message)
{
    (void)arg;
    (void)message;
}

/* A statement as the test cluster's superuser on its postgres database. */
static void admin_sql(const char *sql)
{
    char ci[1024];
    PGconn *c;
    PGresult *res;
    snprintf(ci, sizeof(ci), "%s", e2e_conninfo());
    *strstr(ci, "dbname=") = '\0';
    strcat(ci, "dbname=postgres user=postgres");
    c = PQconnectdb(ci);
    if (PQstatus(c) != CONNECTION_OK) {
        fail_msg("%s", PQerrorMessage(c));
    }
    PQsetNoticeProcessor(c, quiet, NULL); /* "does not exist, skipping" */
    res = PQexec(c, sql);
    if (PQresultStatus(res) != PGRES_COMMAND_OK) {
        fail_msg("%s: %s", sql, PQerrorMessage(c));
    }
    PQclear(res);
    PQfinish(c);
}

static int count_lines(const char *s, const char *prefix)
{
    int n = 0;
    const char *line = s;
    while (line && *line) {
        if (strncmp(line, prefix, strlen(prefix)) == 0) {
            n++;
        }
        line = strchr(line, '\n');
        line = line ? line + 1 : NULL;
    }
    return n;
}

static void migrate_status_applies_nothing(void **state)
{
    char db[1024];
    int pending;
    PGconn *c;
    PGresult *res;
    (void)state;
    snprintf(db, sizeof(db), "%s", e2e_conninfo());
    *strstr(db, "dbname=") = '\0';
    strcat(db, "dbname=travel_status user=travel");
    admin_sql("DROP DATABASE IF EXISTS travel_status");
    admin_sql("CREATE DATABASE travel_status OWNER travel");

    /* A database never migrated: everything pending, nothing created. */
    assert_int_equal(ctl(db, "migrate --status"), 0);
    pending = count_lines(out, "pending ");
    assert_true(pending >= 2);
    assert_non_null(strstr(out, "pending 001_foundation\n"));
    assert_int_equal(ctl(db, "migrate --status"), 0); /* and again: still all */
    assert_int_equal(count_lines(out, "pending "), pending);
    c = PQconnectdb(db);
    assert_int_equal(PQstatus(c), CONNECTION_OK);
    res = PQexec(c, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'");
    assert_string_equal(PQgetvalue(res, 0, 0), "0");
    PQclear(res);

    /* Migrated: as many applied as were pending, then none pending. */
    assert_int_equal(ctl(db, "migrate"), 0);
    assert_int_equal(count_lines(out, "applied "), pending);
    assert_int_equal(ctl(db, "migrate --status"), 0);
    assert_int_equal(count_lines(out, "pending "), 0);
    assert_non_null(strstr(out, "0 migration(s) pending"));

    /* One forgotten: listed by name, and still not applied afterwards. */
    res = PQexec(c, "DELETE FROM schema_migrations WHERE version = "
                    "(SELECT max(version) FROM schema_migrations) RETURNING version");
    assert_int_equal(PQntuples(res), 1);
    {
        char want[256];
        snprintf(want, sizeof(want), "pending %s\n", PQgetvalue(res, 0, 0));
        assert_int_equal(ctl(db, "migrate --status"), 0);
        assert_non_null(strstr(out, want));
        assert_int_equal(count_lines(out, "pending "), 1);
        assert_int_equal(ctl(db, "migrate --status"), 0);
        assert_non_null(strstr(out, want));
    }
    PQclear(res);
    PQfinish(c);
}

static void org_list_shows_every_organization(void **state)
{
    char name[128], *org, want[512];
    (void)state;
    snprintf(name, sizeof(name), "listed-%ld", e2e_now_ms());
    org = e2e_travelctl("org create %s", name);
    assert_non_null(org);
    assert_int_equal(ctl(NULL, "org list"), 0);
    snprintf(want, sizeof(want), "%s\t%s\t", org, name);
    assert_non_null(strstr(out, want));
    free(org);
}

/* The list's status for the headers `hdrs` (a NULL-ended array). */
static long list_status(void *hdrs)
{
    e2e_resp *r = e2e_call(e2e_url(), "GET", "/v1/flight/bookings", hdrs, NULL);
    long st = r->status;
    e2e_free(r);
    return st;
}

static void an_expired_key_is_refused(void **state)
{
    char *org, *key, args[512], expiry[32], kh[256];
    const char *hdrs[] = {kh, NULL};
    const char *params[1];
    time_t t = time(NULL) + 86400;
    e2e_resp *r;
    char *key_id;
    int i;
    (void)state;
    org = e2e_travelctl("org create expiring-%ld", e2e_now_ms());
    assert_non_null(org);
    strftime(expiry, sizeof(expiry), "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
    snprintf(args, sizeof(args), "key create --org %s --user temp --expires-at %s", org,
             expiry);
    assert_int_equal(ctl(NULL, args), 0);
    out[strcspn(out, "\n")] = '\0';
    key = strdup(out);
    snprintf(kh, sizeof(kh), "x-api-key: %s", key);

    /* Before its expiry it works, and `key list` shows the expiry. */
    r = e2e_call(e2e_url(), "GET", "/v1/flight/bookings", hdrs, NULL);
    assert_int_equal(r->status, 200);
    e2e_free(r);
    snprintf(args, sizeof(args), "key list --org %s", org);
    assert_int_equal(ctl(NULL, args), 0);
    expiry[19] = '\0'; /* listed with milliseconds */
    assert_non_null(strstr(out, "expires "));
    assert_non_null(strstr(out, expiry));

    /* Its expiry reached (moved into the past rather than waited for): 401.
     * The change reaches each child's key cache by its database
     * notification, after the commit: allowed up to 10 s, then every
     * request is refused. */
    params[0] = org;
    key_id = e2e_sql_text("SELECT id FROM api_keys WHERE org_id = $1", 1, params);
    params[0] = key_id;
    e2e_sql_exec("UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1",
                 1, params);
    if (!e2e_until_steady(list_status, (void *)hdrs, 401, 10000)) {
        fail_msg("the expired key was still taken 10 s after its expiry was stored");
    }
    for (i = 0; i < 10; i++) {
        r = e2e_call(e2e_url(), "GET", "/v1/flight/bookings", hdrs, NULL);
        e2e_assert_error(r, 401, "unauthorized");
        e2e_free(r);
    }
    free(key_id);
    free(key);
    free(org);
}

/* An expiry passes with no change to the key's row, so nothing tells the
 * children's key caches: a key used (and cached) before its expiry must
 * still be refused after it.
 *
 * Machine speed must not decide the outcome: the key is created with a
 * day's life (however long travelctl takes), then its expiry is set a few
 * seconds ahead by SQL before anyone used it (that change notifies the
 * caches, which do not hold the key yet); only answers that came back
 * before the expiry are held to 200. Should none come back in time, the
 * round is run again with a longer life. */
static void a_used_key_stops_at_its_expiry(void **state)
{
    char *org, *key, args[512], expiry[32], kh[256], life[16];
    const char *hdrs[] = {kh, NULL};
    const char *params[2];
    time_t t = time(NULL) + 86400;
    e2e_resp *r;
    char *key_id;
    long t0, t1, left, before = 0, round_life;
    int i;
    (void)state;
    org = e2e_travelctl("org create expiring-soon-%ld", e2e_now_ms());
    assert_non_null(org);
    for (round_life = 10; round_life <= 40 && before == 0; round_life *= 2) {
        strftime(expiry, sizeof(expiry), "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
        snprintf(args, sizeof(args), "key create --org %s --user soon --expires-at %s", org,
                 expiry);
        assert_int_equal(ctl(NULL, args), 0);
        out[strcspn(out, "\n")] = '\0';
        key = strdup(out);
        snprintf(kh, sizeof(kh), "x-api-key: %s", key);
        params[0] = org;
        /* This round's key: an earlier round's has expired. */
        key_id = e2e_sql_text("SELECT id FROM api_keys WHERE org_id = $1 "
                              "AND expires_at > now() + interval '1 hour'", 1, params);
        assert_non_null(key_id);
        /* The time left, by the database's clock (the one httpd reads too),
         * placed on this test's clock between t0 and t1: the expiry falls
         * in [t0 + left, t1 + left + 1]; the database compares with a
         * millisecond-truncated now, hence a millisecond more after it. */
        snprintf(life, sizeof(life), "%ld", round_life);
        params[0] = key_id;
        params[1] = life;
        t0 = e2e_now_ms();
        left = e2e_sql_long("UPDATE api_keys SET expires_at = clock_timestamp() "
                            "+ make_interval(secs => $2::int) WHERE id = $1 RETURNING "
                            "floor(extract(epoch FROM expires_at - clock_timestamp()) * 1000)"
                            "::bigint", 2, params);
        t1 = e2e_now_ms();
        assert_true(left > 0);
        /* Each child that answers may cache it. */
        for (i = 0; i < 8; i++) {
            r = e2e_call(e2e_url(), "GET", "/v1/flight/bookings", hdrs, NULL);
            if (e2e_now_ms() >= t0 + left) {
                e2e_free(r); /* answered at or after the expiry: either is right */
                break;
            }
            assert_int_equal(r->status, 200);
            e2e_free(r);
            before++;
        }
        while (e2e_now_ms() <= t1 + left + 2) {
            e2e_sleep_ms(100);
        }
        for (i = 0; i < 8; i++) {
            r = e2e_call(e2e_url(), "GET", "/v1/flight/bookings", hdrs, NULL);
            e2e_assert_error(r, 401, "unauthorized");
            e2e_free(r);
        }
        free(key_id);
        free(key);
    }
    /* Proof that a cached key was refused needs a key used before its expiry. */
    assert_true(before > 0);
    free(org);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(unknown_flags_are_refused),
        cmocka_unit_test(migrate_status_applies_nothing),
        cmocka_unit_test(org_list_shows_every_organization),
        cmocka_unit_test(an_expired_key_is_refused),
        cmocka_unit_test(a_used_key_stops_at_its_expiry),
    };
    return E2E_RUN("travelctl", tests);
}
