/* travelctl: the operator's command for mod_travel's database: migrations,
 * organizations, API keys, and a probe of the background workers. */
#include "migrations.h"
#include "account/keys.h"
#include "core/jobs.h"
#include "core/json.h"
#include "gateway/probe.h"

#include <apr_general.h>
#include <apr_strings.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
    "usage: travelctl [--db CONNINFO] COMMAND\n"
    "\n"
    "  migrate                              apply the migrations not yet applied\n"
    "  org create NAME                      create an organization; prints org_...\n"
    "  key create --org ORG_ID [--user NAME] [--live]\n"
    "                                       create an API key; prints it once\n"
    "  key revoke KEY_ID                    revoke a key\n"
    "  key list --org ORG_ID                one key a line: id, user, prefix, mode,\n"
    "                                       created, revoked\n"
    "  worker probe [--count N] [--timeout SECONDS]\n"
    "                                       enqueue N probe jobs and wait for the\n"
    "                                       running httpd's workers to run them\n"
    "\n"
    "The database is --db, else $TRAVEL_DB (a libpq connection string), else\n"
    "the development stack's var/db.conninfo next to this program's bin/.\n";

static void die(const char *fmt, const char *arg)
{
    fprintf(stderr, "travelctl: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n");
    exit(1);
}

static const char *stack_conninfo(apr_pool_t *p)
{
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    char *slash, *path, *buf;
    FILE *f;
    size_t len;
    if (n <= 0) {
        return NULL;
    }
    exe[n] = '\0';
    if (!(slash = strrchr(exe, '/'))) {
        return NULL;
    }
    *slash = '\0';
    path = apr_pstrcat(p, exe, "/../var/db.conninfo", NULL);
    if (!(f = fopen(path, "r"))) {
        return NULL;
    }
    buf = apr_palloc(p, 1024);
    len = fread(buf, 1, 1023, f);
    fclose(f);
    while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' ')) {
        len--;
    }
    buf[len] = '\0';
    return buf;
}

static const char *opt(int argc, const char *const *argv, const char *name)
{
    int i;
    for (i = 0; i < argc - 1; i++) {
        if (strcmp(argv[i], name) == 0) {
            return argv[i + 1];
        }
    }
    return NULL;
}

static int flag(int argc, const char *const *argv, const char *name)
{
    int i;
    for (i = 0; i < argc; i++) {
        if (strcmp(argv[i], name) == 0) {
            return 1;
        }
    }
    return 0;
}

static void report_migration(const char *name)
{
    printf("applied %s\n", name);
}

static int cmd_migrate(trv_dbc *c, apr_pool_t *p)
{
    int applied;
    const char *err = NULL;
    if (trv_migrate(c, p, &applied, &err, report_migration) != APR_SUCCESS) {
        die("migration failed: %s", err ? err : "unknown error");
    }
    printf("%d migration(s) applied; the schema is up to date\n", applied);
    return 0;
}

static int cmd_org(trv_dbc *c, apr_pool_t *p, int argc, const char *const *argv)
{
    const char *id;
    if (argc != 2 || strcmp(argv[0], "create") != 0) {
        die("%s", "usage: travelctl org create NAME");
    }
    if (strlen(argv[1]) < 1 || strlen(argv[1]) > 200) {
        die("%s", "NAME must be 1 to 200 characters");
    }
    if (trv_org_create(c, p, argv[1], &id) != APR_SUCCESS) {
        die("cannot create the organization: %s", c->error);
    }
    printf("%s\n", id);
    return 0;
}

static int cmd_key(trv_dbc *c, apr_pool_t *p, int argc, const char *const *argv)
{
    if (argc >= 1 && strcmp(argv[0], "create") == 0) {
        const char *org = opt(argc, argv, "--org");
        const char *user = opt(argc, argv, "--user");
        const char *id, *key;
        apr_status_t rv;
        if (!org) {
            die("%s", "usage: travelctl key create --org ORG_ID [--user NAME] [--live]");
        }
        rv = trv_key_create(c, p, org, user ? user : "default", flag(argc, argv, "--live"),
                            &id, &key);
        if (rv == APR_ENOENT) {
            die("no organization %s", org);
        }
        if (rv != APR_SUCCESS) {
            die("cannot create the key: %s", c->error ? c->error : "database error");
        }
        fprintf(stderr, "created %s for user %s; the key is shown once:\n", id,
                user ? user : "default");
        printf("%s\n", key);
        return 0;
    }
    if (argc == 2 && strcmp(argv[0], "revoke") == 0) {
        apr_status_t rv = trv_key_revoke(c, p, argv[1]);
        if (rv == APR_ENOENT) {
            die("no key %s", argv[1]);
        }
        if (rv != APR_SUCCESS) {
            die("cannot revoke: %s", c->error);
        }
        printf("revoked %s\n", argv[1]);
        return 0;
    }
    if (argc >= 1 && strcmp(argv[0], "list") == 0) {
        const char *org = opt(argc, argv, "--org");
        trv_rows *rows;
        int i;
        if (!org) {
            die("%s", "usage: travelctl key list --org ORG_ID");
        }
        if (trv_key_list(c, p, org, &rows) != APR_SUCCESS) {
            die("cannot list keys: %s", c->error);
        }
        for (i = 0; i < rows->n; i++) {
            const char *revoked = trv_rows_get(rows, i, "revoked_at");
            printf("%s\t%s\t%s...\t%s\t%s\t%s\n", trv_rows_get(rows, i, "id"),
                   trv_rows_get(rows, i, "user_name"), trv_rows_get(rows, i, "key_prefix"),
                   trv_rows_get(rows, i, "mode"), trv_rows_get(rows, i, "created_at"),
                   revoked ? apr_pstrcat(p, "revoked ", revoked, NULL) : "active");
        }
        return 0;
    }
    die("%s", "usage: travelctl key create|revoke|list ...");
    return 1;
}

static int cmd_worker(trv_dbc *c, apr_pool_t *p, int argc, const char *const *argv)
{
    static const trv_stmt count_stmt = {"trv_probe_count",
        "SELECT count(*) AS n FROM job_probe_runs WHERE label = %s"};
    const char *count_s = opt(argc, argv, "--count");
    const char *timeout_s = opt(argc, argv, "--timeout");
    long count = count_s ? atol(count_s) : 1;
    long timeout = timeout_s ? atol(timeout_s) : 30;
    const char *label = apr_psprintf(p, "probe-%d-%" APR_TIME_T_FMT, (int)getpid(),
                                     apr_time_now());
    json_t *payload = trv_json_bind(p, json_pack("{s:s}", "label", label));
    apr_time_t start = apr_time_now();
    long i, done = 0;

    if (argc < 1 || strcmp(argv[0], "probe") != 0 || count < 1 || count > 100000) {
        die("%s", "usage: travelctl worker probe [--count 1..100000] [--timeout SECONDS]");
    }
    if (trv_db_begin(c, p) != APR_SUCCESS) {
        die("cannot begin: %s", c->error);
    }
    for (i = 0; i < count; i++) {
        trv_job_enqueue_spec(c, p, &trv_probe_job, payload, 0, NULL, NULL);
    }
    if (trv_db_commit(c) != APR_SUCCESS) {
        die("cannot enqueue: %s", c->error);
    }
    while (apr_time_now() - start < apr_time_from_sec(timeout)) {
        trv_rows *rows;
        if (trv_db_select(c, p, &count_stmt, &rows, TRV_DB_ARGS(label)) != APR_SUCCESS) {
            die("cannot count: %s", c->error);
        }
        done = atol(trv_rows_get(rows, 0, "n"));
        if (done >= count) {
            break;
        }
        apr_sleep(apr_time_from_msec(50));
    }
    printf("%ld of %ld probe job(s) ran in %.3f s\n", done, count,
           (double)(apr_time_now() - start) / APR_USEC_PER_SEC);
    return done >= count ? 0 : 1;
}

int main(int argc, const char *const *argv)
{
    apr_pool_t *p;
    const char *conninfo = NULL, *err = NULL;
    trv_dbc *c;
    int rc;

    apr_app_initialize(&argc, &argv, NULL);
    atexit(apr_terminate);
    apr_pool_create(&p, NULL);
    argv++;
    argc--;
    if (argc >= 2 && strcmp(argv[0], "--db") == 0) {
        conninfo = argv[1];
        argv += 2;
        argc -= 2;
    }
    if (argc < 1 || strcmp(argv[0], "-h") == 0 || strcmp(argv[0], "--help") == 0) {
        fputs(usage, argc < 1 ? stderr : stdout);
        return argc < 1 ? 2 : 0;
    }
    if (!conninfo) {
        conninfo = getenv("TRAVEL_DB");
    }
    if (!conninfo) {
        conninfo = stack_conninfo(p);
    }
    if (!conninfo) {
        die("%s", "no database: pass --db CONNINFO, set TRAVEL_DB, or run `make start`");
    }
    if (trv_db_connect(p, conninfo, &c, &err) != APR_SUCCESS) {
        die("cannot connect to the database: %s", err);
    }
    if (strcmp(argv[0], "migrate") == 0) {
        rc = cmd_migrate(c, p);
    }
    else if (strcmp(argv[0], "org") == 0) {
        rc = cmd_org(c, p, argc - 1, argv + 1);
    }
    else if (strcmp(argv[0], "key") == 0) {
        rc = cmd_key(c, p, argc - 1, argv + 1);
    }
    else if (strcmp(argv[0], "worker") == 0) {
        rc = cmd_worker(c, p, argc - 1, argv + 1);
    }
    else {
        fputs(usage, stderr);
        rc = 2;
    }
    fflush(stdout);
    return rc;
}
