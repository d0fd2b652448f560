/* `make install` as an administrator uses it, without touching the system:
 * the installation is staged with DESTDIR into a folder that holds a
 * scratch copy of /etc/apache2; `a2enmod travel travel_sandbox` runs on
 * that copy (APACHE_CONFDIR), pulls in mod_dbd by the `# Depends:` line,
 * configtest fails until the one secret is filled in and passes after,
 * and the installed httpd books a flight against the installed sandbox
 * with a key made by the installed travelctl. */
#include "flight_e2e.h"

#include <stdarg.h>
#include <sys/stat.h>

static char root[4096];   /* the checkout */
static char tmp[4096];    /* everything this test makes */
static char dest[4200];   /* DESTDIR */
static char conf[4300];   /* the scratch /etc/apache2 under DESTDIR */
static char out[16384];   /* the last command's output */
static long pid = -1;     /* the installed httpd */

/* Runs a shell command; returns its exit status, its output in `out`. */
static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
    char cmd[16384];
    va_list ap;
    FILE *p;
    size_t len = 0;
    int rc;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof(cmd) - 8, fmt, ap);
    va_end(ap);
    strcat(cmd, " 2>&1");
    p = popen(cmd, "r");
    assert_non_null(p);
    out[0] = '\0';
    while (len < sizeof(out) - 1 && fgets(out + len, (int)(sizeof(out) - len), p)) {
        len = strlen(out);
    }
    rc = pclose(p);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : 255;
}

#define SH_OK(...)                                                                     \
    do {                                                                               \
        if (sh(__VA_ARGS__) != 0) {                                                    \
            fail_msg("failed: %s", out);                                               \
        }                                                                              \
    } while (0)

/* "size mtime" of a system path, or "absent": the path must not change. */
static void stamp(const char *path, char *buf, size_t n)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(buf, n, "absent");
    }
    else {
        snprintf(buf, n, "%lld %lld", (long long)st.st_size, (long long)st.st_mtime);
    }
}

static const char *const system_paths[] = {
    "/usr/lib/apache2/modules/mod_travel.so", "/usr/lib/apache2/modules/mod_travel_sandbox.so",
    "/etc/apache2/mods-available/travel.load", "/etc/apache2/mods-available/travel.conf",
    "/etc/apache2/mods-enabled/travel.load", "/usr/local/bin/travelctl",
    "/usr/local/bin/sandboxctl",
    "/usr/local/share/mod_travel", NULL};

static void quiet(void *arg, const char *message)
{
    (void)arg;
    (void)message;
}

/* A statement as the test cluster's superuser; base is the conninfo
 * without its dbname and user. */
static void admin_sql(const char *base, const char *sql)
{
    char ci[1024];
    PGconn *c;
    PGresult *res;
    snprintf(ci, sizeof(ci), "%s dbname=postgres user=postgres", base);
    c = PQconnectdb(ci);
    if (PQstatus(c) != CONNECTION_OK) {
        fail_msg("%s: %s", ci, PQerrorMessage(c));
    }
    PQsetNoticeProcessor(c, quiet, NULL); /* "does not exist, skipping" */
    res = PQexec(c, sql);
    if (PQresultStatus(res) != PGRES_COMMAND_OK) {
        fail_msg("%s: %s", sql, PQerrorMessage(c));
    }
    PQclear(res);
    PQfinish(c);
}

static int setup(void **state)
{
    const char *ctl = e2e_env("TRAVEL_TEST_TRAVELCTL");
    char *slash;
    (void)state;
    /* TRAVEL_TEST_TRAVELCTL is <checkout>/bin/travelctl. */
    snprintf(root, sizeof(root), "%s", ctl);
    if ((slash = strrchr(root, '/'))) {
        *slash = '\0';
    }
    if ((slash = strrchr(root, '/'))) {
        *slash = '\0';
    }
    snprintf(tmp, sizeof(tmp), "%s/install", e2e_env("TRAVEL_TEST_DIR"));
    snprintf(dest, sizeof(dest), "%s/root", tmp);
    snprintf(conf, sizeof(conf), "%s/etc/apache2", dest);
    return 0;
}

static void install_enable_configtest_and_book(void **state)
{
    char before[8][64], after[64], db[512], url[128], *key, *id, *org;
    int i, port = e2e_free_port(), sbx_port = e2e_free_port();
    json_t *b;
    e2e_resp *r;
    (void)state;

    for (i = 0; system_paths[i]; i++) {
        stamp(system_paths[i], before[i], sizeof(before[i]));
    }
    /* The scratch /etc/apache2 the installation lands in. */
    SH_OK("rm -rf '%s' && mkdir -p '%s/etc' && cp -a /etc/apache2 '%s/etc/'", tmp, dest, dest);
    SH_OK("env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -s --no-print-directory -C '%s' "
          "install DESTDIR='%s'", root, dest);
    for (i = 0; system_paths[i]; i++) {
        stamp(system_paths[i], after, sizeof(after));
        if (strcmp(before[i], after) != 0) {
            fail_msg("make install DESTDIR=... changed %s (%s -> %s)", system_paths[i],
                     before[i], after);
        }
    }
    SH_OK("test -f '%s/usr/lib/apache2/modules/mod_travel.so' && "
          "test -x '%s/usr/local/bin/travelctl' && head -n 1 '%s/mods-available/travel.load'",
          dest, dest, conf);
    assert_string_equal(out, "# Depends: dbd\n");

    /* a2enmod on the copy: APACHE_CONFDIR names it, APACHE_STATE_DIRECTORY
     * keeps its "enabled by admin" markers out of /var/lib/apache2. */
    SH_OK("APACHE_CONFDIR='%s' APACHE_STATE_DIRECTORY='%s/state' a2enmod travel travel_sandbox",
          conf, tmp);
    SH_OK("test -L '%s/mods-enabled/dbd.load' && test -L '%s/mods-enabled/travel.conf' && "
          "test -L '%s/mods-enabled/travel_sandbox.conf'", conf, conf, conf);

    /* The copy runs beside everything else: its own ports, run and log
     * folders, and the staged files where the installed ones would be. */
    SH_OK("mkdir -p '%s/run' '%s/log' '%s/lock' && "
          "printf 'export APACHE_RUN_DIR=%s/run APACHE_LOCK_DIR=%s/lock APACHE_LOG_DIR=%s/log "
          "APACHE_PID_FILE=%s/run/apache2.pid\\n' >>'%s/envvars' && "
          "echo 'Listen 127.0.0.1:%d' >'%s/ports.conf' && "
          "sed -i 's|127.0.0.1:8081|127.0.0.1:%d|' '%s/mods-available/travel.conf' "
          "'%s/mods-available/travel_sandbox.conf' && "
          "sed -i 's| /usr/| %s/usr/|' '%s/mods-available/travel.load' "
          "'%s/mods-available/travel_sandbox.load' '%s/mods-available/travel_sandbox.conf'",
          tmp, tmp, tmp, tmp, tmp, tmp, tmp, conf, port, conf, sbx_port, conf, conf, dest,
          conf, conf, conf);

    /* Not before the secret is filled in, with a message that names it. */
    assert_int_not_equal(sh("APACHE_CONFDIR='%s' apache2ctl configtest", conf), 0);
    assert_non_null(strstr(out, "travel-secret.key"));

    /* The administrator's part (docs/install.md): the secret, a database
     * migrated by the installed travelctl, its name in DBDParams. */
    snprintf(db, sizeof(db), "%s", e2e_conninfo());
    *strstr(db, "dbname=travel") = '\0';
    admin_sql(db, "DROP DATABASE IF EXISTS travel_install");
    admin_sql(db, "CREATE DATABASE travel_install OWNER travel");
    strcat(db, "dbname=travel_install user=travel");
    SH_OK("mkdir -p '%s/secrets' && openssl rand -hex 32 >'%s/secrets/travel-secret.key' && "
          "sed -i 's|^DBDParams .*|DBDParams \"%s\"|' '%s/mods-available/travel.conf' && "
          "'%s/usr/local/bin/travelctl' --db '%s' migrate && "
          "'%s/usr/local/bin/sandboxctl' --db '%s' migrate", conf, conf, db, conf, dest, db,
          dest, db);
    SH_OK("APACHE_CONFDIR='%s' apache2ctl configtest", conf);
    assert_non_null(strstr(out, "Syntax OK"));

    /* Installing again (an upgrade) keeps the edited travel.conf and puts
     * the new one beside it. */
    SH_OK("cp '%s/mods-available/travel.conf' '%s/edited.conf' && "
          "env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -s --no-print-directory -C '%s' "
          "install DESTDIR='%s' && cmp '%s/edited.conf' '%s/mods-available/travel.conf' && "
          "cmp '%s/apxs/travel.conf' '%s/mods-available/travel.conf.dist'",
          conf, tmp, root, dest, tmp, conf, root, conf);
    SH_OK("sed -i 's| /usr/| %s/usr/|' '%s/mods-available/travel.load' "
          "'%s/mods-available/travel_sandbox.load'", dest, conf, conf);

    /* The dashboard's section, commented out as installed, turned on as the
     * file and docs/install.md say: its eight lines uncommented (the
     * password file put in the copy), the authentication modules enabled,
     * `apachectl -t`. */
    SH_OK("sed -n '/^#<Location \\/dashboard\\/>$/,/^#<\\/Location>$/p' "
          "'%s/mods-available/travel.conf' | grep -c -e '^#    SetHandler travel-dashboard$' "
          "-e '^#    AuthType Basic$' -e '^#    AuthUserFile ' -e '^#    Require valid-user$'",
          conf);
    assert_string_equal(out, "4\n");
    SH_OK("sed -i -e '/^#<Location \\/dashboard\\/>$/,/^#<\\/Location>$/s/^#//' "
          "-e 's|\"/etc/apache2/travel-dashboard.htpasswd\"|\"%s/travel-dashboard.htpasswd\"|' "
          "'%s/mods-available/travel.conf' && "
          "htpasswd -cb '%s/travel-dashboard.htpasswd' admin install-pw && "
          "APACHE_CONFDIR='%s' APACHE_STATE_DIRECTORY='%s/state' a2enmod -q auth_basic "
          "authn_file authz_user && APACHE_CONFDIR='%s' apachectl -t",
          conf, conf, conf, conf, tmp, conf);
    assert_non_null(strstr(out, "Syntax OK"));

    /* Started the way apache2ctl would (without systemd), then used. */
    SH_OK("set -a; . '%s/envvars'; /usr/sbin/apache2 -d '%s' -k start", conf, conf);
    for (i = 0; i < 100 && pid < 0; i++) {
        if (sh("cat '%s/run/apache2.pid'", tmp) == 0) {
            pid = atol(out);
        }
        else {
            e2e_sleep_ms(100);
        }
    }
    assert_true(pid > 0);
    SH_OK("'%s/usr/local/bin/travelctl' --db '%s' org create Installed | tail -n 1", dest, db);
    out[strcspn(out, "\n")] = '\0';
    org = strdup(out);
    SH_OK("'%s/usr/local/bin/travelctl' --db '%s' key create --org %s --user admin "
          "2>/dev/null | tail -n 1", dest, db, out);
    out[strcspn(out, "\n")] = '\0';
    key = strdup(out);
    snprintf(url, sizeof(url), "http://127.0.0.1:%d", port);
    setenv("TRAVEL_TEST_URL", url, 1);
    for (i = 0; i < 100; i++) { /* the children may still be starting */
        r = e2e_call(url, "GET", "/v1/health", NULL, NULL);
        if (r->status != 0) {
            break;
        }
        e2e_free(r);
        e2e_sleep_ms(100);
    }
    fe_expect(r, 200, "the installed httpd's health");
    e2e_free(r);
    r = e2e_get(key, "/v1/flight/bookings");
    fe_expect(r, 200, "listing bookings on the installed httpd");
    e2e_free(r);
    /* The dashboard: httpd asks for the password; the granted login sees
     * its organization. */
    r = e2e_call(url, "GET", "/dashboard/", NULL, NULL);
    assert_int_equal(r->status, 401);
    e2e_free(r);
    SH_OK("'%s/usr/local/bin/travelctl' --db '%s' dashboard grant --org %s --login admin",
          dest, db, org);
    {
        const char *h[2] = {"Authorization: Basic YWRtaW46aW5zdGFsbC1wdw==", NULL};
        r = e2e_call(url, "GET", "/dashboard/", h, NULL);
        assert_int_equal(r->status, 200);
        assert_non_null(strstr(r->body, org));
        assert_non_null(strstr(r->body, "Create key"));
        e2e_free(r);
    }
    r = e2e_call(url, "GET", "/metrics", NULL, NULL); /* travel.conf: Require local */
    assert_int_equal(r->status, 200);
    assert_non_null(strstr(r->body, "travel_database_up 1\n"));
    e2e_free(r);

    /* A flight booked against the installed sandbox. */
    b = fe_ready(key, "SUPPLIER_A", "Installed", NULL);
    id = strdup(fe_s(b, "id"));
    r = fe_book(key, id, "{\"payment_instrument_id\":\"pi_test_visa\"}");
    fe_expect(r, 200, "booking on the installed httpd");
    assert_string_equal(fe_s(fe_data(r), "status"), "CONFIRMED");
    e2e_free(r);
    json_decref(b);
    free(id);
    free(key);
    free(org);
}

/* Stops the installed httpd, also when the test failed half-way. */
static int teardown(void **state)
{
    (void)state;
    e2e_stop_pid(pid);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(install_enable_configtest_and_book, setup, teardown),
    };
    return E2E_RUN("install", tests);
}
