/* travelctl: the operator's command for mod_travel's database: migrations,
 * organizations, API keys, dashboard logins, and a probe of the background
 * workers. */
#include "migrations.h"
#include "supplier_check.h"
#include "account/keys.h"
#include "dashboard/logins.h"
#include "core/clock.h"
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
    "  migrate --status                     list the migrations not yet applied;\n"
    "                                       applies nothing\n"
    "  org create NAME                      create an organization; prints org_...\n"
    "  org list                             one organization a line: id, name, created\n"
    "  key create --org ORG_ID [--user NAME] [--live] [--expires-at TIME]\n"
    "                                       create an API key; prints it once. TIME:\n"
    "                                       2027-01-31 or 2027-01-31T12:00:00Z; the key\n"
    "                                       is refused from then on\n"
    "  key revoke KEY_ID                    revoke a key\n"
    "  key list --org ORG_ID                one key a line: id, user, prefix, mode,\n"
    "                                       created, revoked, expires\n"
    "  dashboard grant --org ORG_ID --login LOGIN\n"
    "                                       let the httpd login LOGIN use the\n"
    "                                       dashboard as a user of the organization\n"
    "  dashboard revoke --login LOGIN       take the dashboard from LOGIN\n"
    "  supplier check NAME [--hotel] [--conf FILE] [--timeout SECONDS]\n"
    "                                       try NAME's supplier line (of FILE, default\n"
    "                                       the development stack's httpd.conf) with one\n"
    "                                       cheap authenticated call; needs no database\n"
    "  worker probe [--count N] [--timeout SECONDS]\n"
    "                                       enqueue N probe jobs and wait for the\n"
    "                                       running httpd's workers to run them\n"
    "\n"
    "The database is --db, else $TRAVEL_DB (a libpq connection string), else\n"
    "the development stack's var/db.conninfo next to this program's bin/.\n"
    "A flag the command does not take is refused (exit status 2).\n";

static void die(const char *fmt, const char *arg)
{
    fprintf(stderr, "travelctl: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n");
    exit(1);
}

/* A command line the program does not take: the reason and the usage on
 * standard error, exit status 2 (nothing has been done yet). */
static void usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "travelctl: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n\n%s", usage);
    exit(2);
}

/* One option of a command: --name VALUE (or --name=VALUE) when it takes a
 * value, else a plain --name. */
typedef struct opt {
    const char *name;
    int takes_value;
    const char *value;  /* filled in by parse_args */
    int given;
} opt;

/* Splits a command's arguments into its options and from min to max
 * positional arguments; anything else is a usage error. */
static void parse_args(int argc, const char *const *argv, opt *opts, const char **pos,
                       int min, int max)
{
    int i, n = 0;
    for (i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strncmp(a, "-", 1) == 0 && strcmp(a, "-") != 0) {
            const char *eq = strchr(a, '=');
            size_t len = eq ? (size_t)(eq - a) : strlen(a);
            opt *o;
            for (o = opts; o && o->name; o++) {
                if (strlen(o->name) == len && strncmp(o->name, a, len) == 0) {
                    break;
                }
            }
            if (!o || !o->name) {
                usage_error("unknown flag %s", a);
            }
            if (o->given) {
                usage_error("%s is given twice", o->name);
            }
            o->given = 1;
            if (o->takes_value) {
                if (eq) {
                    o->value = eq + 1;
                }
                else if (i + 1 < argc) {
                    o->value = argv[++i];
                }
                else {
                    usage_error("%s needs a value", o->name);
                }
            }
            else if (eq) {
                usage_error("%s takes no value", o->name);
            }
            continue;
        }
        if (n >= max) {
            usage_error("unexpected argument %s", a);
        }
        pos[n++] = a;
    }
    if (n < min) {
        usage_error("%s", "missing argument");
    }
}

/* A whole number from lo to hi, else a usage error naming the flag. */
static long number_arg(const char *flag, const char *v, long dflt, long lo, long hi)
{
    char *end;
    long n;
    if (!v) {
        return dflt;
    }
    n = strtol(v, &end, 10);
    if (!*v || *end || n < lo || n > hi) {
        fprintf(stderr, "travelctl: %s must be a whole number from %ld to %ld\n\n%s", flag,
                lo, hi, usage);
        exit(2);
    }
    return n;
}

/* A file of the development stack: rel under the checkout this program's
 * bin/ is in, or NULL. */
static const char *stack_file(apr_pool_t *p, const char *rel)
{
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    char *slash;
    if (n <= 0) {
        return NULL;
    }
    exe[n] = '\0';
    if (!(slash = strrchr(exe, '/'))) {
        return NULL;
    }
    *slash = '\0';
    return apr_pstrcat(p, exe, "/../", rel, NULL);
}

static const char *stack_conninfo(apr_pool_t *p)
{
    const char *path = stack_file(p, "var/db.conninfo");
    char *buf;
    FILE *f;
    size_t len;
    if (!path || !(f = fopen(path, "r"))) {
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

static void report_migration(const char *name)
{
    printf("applied %s\n", name);
}

static void report_pending(const char *name)
{
    printf("pending %s\n", name);
}

/* A command: its words, its arguments checked before anything connects,
 * then run against the database. */
typedef struct command {
    const char *group;  /* "key" */
    const char *verb;   /* "create"; NULL for a command of one word */
    int (*run)(trv_dbc *c, apr_pool_t *p, int argc, const char *const *argv);
} command;

static int cmd_migrate(trv_dbc *c, apr_pool_t *p, int argc, const char *const *argv)
{
    opt opts[] = {{"--status", 0, NULL, 0}, {NULL, 0, NULL, 0}};
    int n;
    const char *err = NULL;
    parse_args(argc, argv, opts, NULL, 0, 0);
    if (!c) {
        return 0;
    }
    if (opts[0].given) {
        if (trv_migrate_pending(c, p, &n, &err, report_pending) != APR_SUCCESS) {
            die("cannot read the applied migrations: %s", err ? err : "unknown error");
        }
        printf("%d migration(s) pending\n", n);
        return 0;
    }
    if (trv_migrate(c, p, &n, &err, report_migration) != APR_SUCCESS) {
        die("migration failed: %s", err ? err : "unknown error");
    }
    printf("%d migration(s) applied; the schema is up to date\n", n);
    return 0;
}

static int cmd_org_create(trv_dbc *c, apr_pool_t *p, int argc, const char *const *argv)
{
    const char *pos[1], *id;
    parse_args(argc, argv, NULL, pos, 1, 1);
    if (strlen(pos[0]) < 1 || strlen(pos[0]) > 200) {
        usage_error("%s", "NAME must be 1 to 200 characters");
    }
    if (!c) {
        return 0;
    }
    if (trv_org_create(c, p, pos[0], &id) != APR_SUCCESS) {
        die("cannot create the organization: %s", c->error);
    }
    printf("%s\n", id);
    return 0;
}

static int cmd_org_list(trv_dbc *c, apr_pool_t *p, int argc, const char *const *argv)
{
    trv_rows *rows;
    int i;
    parse_args(argc, argv, NULL, NULL, 0, 0);
    if (!c) {
        return 0;
    }
    if (trv_org_list(c, p, &rows) != APR_SUCCESS) {
        die("cannot list organizations: %s", c->error);
    }
    for (i = 0; i < rows->n; i++) {
        printf("%s\t%s\t%s\n", trv_rows_get(rows, i, "id"), trv_rows_get(rows, i, "name"),
               trv_rows_get(rows, i, "created_at"));
    }
    return 0;
}

/* --expires-at: a date (its midnight UTC) or an RFC 3339 instant, in the
 * future; returned in the API's own format for PostgreSQL. */
static const char *expiry_arg(apr_pool_t *p, const char *v)
{
    apr_time_t t;
    if (!v) {
        return NULL;
    }
    if (trv_time_parse(v, &t) != APR_SUCCESS && trv_date_parse(v, &t) != APR_SUCCESS) {
        usage_error("--expires-at %s is not a date (2027-01-31) or an RFC 3339 time "
                    "(2027-01-31T12:00:00Z)", v);
    }
    if (t <= apr_time_now()) {
        usage_error("--expires-at %s is not in the future", v);
    }
    return trv_time_format(p, t);
}

static int cmd_key_create(trv_dbc *c, apr_pool_t *p, int argc, const char *const *argv)
{
    opt opts[] = {{"--org", 1, NULL, 0}, {"--user", 1, NULL, 0}, {"--live", 0, NULL, 0},
                  {"--expires-at", 1, NULL, 0}, {NULL, 0, NULL, 0}};
    const char *user, *expires, *id, *key;
    apr_status_t rv;
    parse_args(argc, argv, opts, NULL, 0, 0);
    if (!opts[0].value) {
        usage_error("%s", "key create needs --org ORG_ID");
    }
    user = opts[1].value ? opts[1].value : "default";
    expires = expiry_arg(p, opts[3].value);
    if (!c) {
        return 0;
    }
    rv = trv_key_create_expiring(c, p, opts[0].value, user, opts[2].given, expires, &id, &key);
    if (rv == APR_ENOENT) {
        die("no organization %s", opts[0].value);
    }
    if (rv != APR_SUCCESS) {
        die("cannot create the key: %s", c->error ? c->error : "database error");
    }
    fprintf(stderr, "created %s for user %s%s%s; the key is shown once:\n", id, user,
            expires ? ", expiring at " : "", expires ? expires : "");
    printf("%s\n", key);
    return 0;
}

static int cmd_key_revoke(trv_dbc *c, apr_pool_t *p, int argc, const char *const *argv)
{
    const char *pos[1];
    apr_status_t rv;
    parse_args(argc, argv, NULL, pos, 1, 1);
    if (!c) {
        return 0;
    }
    rv = trv_key_revoke(c, p, pos[0]);
    if (rv == APR_ENOENT) {
        die("no key %s", pos[0]);
    }
    if (rv != APR_SUCCESS) {
        die("cannot revoke: %s", c->error);
    }
    printf("revoked %s\n", pos[0]);
    return 0;
}

static int cmd_key_list(trv_dbc *c, apr_pool_t *p, int argc, const char *const *argv)
{
    opt opts[] = {{"--org", 1, NULL, 0}, {NULL, 0, NULL, 0}};
    trv_rows *rows;
    int i;
    parse_args(argc, argv, opts, NULL, 0, 0);
    if (!opts[0].value) {
        usage_error("%s", "key list needs --org ORG_ID");
    }
    if (!c) {
        return 0;
    }
    if (trv_key_list(c, p, opts[0].value, &rows) != APR_SUCCESS) {
        die("cannot list keys: %s", c->error);
    }
    for (i = 0; i < rows->n; i++) {
        const char *revoked = trv_rows_get(rows, i, "revoked_at");
        const char *expires = trv_rows_get(rows, i, "expires_at");
        printf("%s\t%s\t%s...\t%s\t%s\t%s\t%s\n", trv_rows_get(rows, i, "id"),
               trv_rows_get(rows, i, "user_name"), trv_rows_get(rows, i, "key_prefix"),
               trv_rows_get(rows, i, "mode"), trv_rows_get(rows, i, "created_at"),
               revoked ? apr_pstrcat(p, "revoked ", revoked, NULL) : "active",
               expires ? apr_pstrcat(p, "expires ", expires, NULL) : "no expiry");
    }
    return 0;
}

/* LOGIN: what httpd's authentication names the user (REMOTE_USER). */
static const char *login_arg(const char *v)
{
    const char *s;
    if (!v || !*v || strlen(v) > 200) {
        usage_error("%s", "--login must be 1 to 200 characters");
    }
    for (s = v; *s; s++) {
        if ((unsigned char)*s < 0x20 || *s == 0x7f) {
            usage_error("%s", "--login must not contain control characters");
        }
    }
    return v;
}

static int cmd_dashboard_grant(trv_dbc *c, apr_pool_t *p, int argc, const char *const *argv)
{
    opt opts[] = {{"--org", 1, NULL, 0}, {"--login", 1, NULL, 0}, {NULL, 0, NULL, 0}};
    const char *login, *user_id;
    apr_status_t rv;
    parse_args(argc, argv, opts, NULL, 0, 0);
    if (!opts[0].value || !opts[1].value) {
        usage_error("%s", "dashboard grant needs --org ORG_ID and --login LOGIN");
    }
    login = login_arg(opts[1].value);
    if (!c) {
        return 0;
    }
    rv = trv_dash_grant(c, p, opts[0].value, login, &user_id);
    if (rv == APR_ENOENT) {
        die("no organization %s", opts[0].value);
    }
    if (rv != APR_SUCCESS) {
        die("cannot grant: %s", c->error ? c->error : "database error");
    }
    printf("granted %s: the dashboard of %s as user %s\n", login, opts[0].value, user_id);
    return 0;
}

static int cmd_dashboard_revoke(trv_dbc *c, apr_pool_t *p, int argc, const char *const *argv)
{
    opt opts[] = {{"--login", 1, NULL, 0}, {NULL, 0, NULL, 0}};
    apr_status_t rv;
    parse_args(argc, argv, opts, NULL, 0, 0);
    if (!opts[0].value) {
        usage_error("%s", "dashboard revoke needs --login LOGIN");
    }
    login_arg(opts[0].value);
    if (!c) {
        return 0;
    }
    rv = trv_dash_revoke(c, p, opts[0].value);
    if (rv == APR_ENOENT) {
        die("%s has no dashboard grant", opts[0].value);
    }
    if (rv != APR_SUCCESS) {
        die("cannot revoke: %s", c->error ? c->error : "database error");
    }
    printf("revoked the dashboard of %s\n", opts[0].value);
    return 0;
}

static int cmd_worker_probe(trv_dbc *c, apr_pool_t *p, int argc, const char *const *argv)
{
    static const trv_stmt count_stmt = {"trv_probe_count",
        "SELECT count(*) AS n FROM job_probe_runs WHERE label = %s"};
    opt opts[] = {{"--count", 1, NULL, 0}, {"--timeout", 1, NULL, 0}, {NULL, 0, NULL, 0}};
    long count, timeout, i, done = 0;
    const char *label;
    json_t *payload;
    apr_time_t start;

    parse_args(argc, argv, opts, NULL, 0, 0);
    count = number_arg("--count", opts[0].value, 1, 1, 100000);
    timeout = number_arg("--timeout", opts[1].value, 30, 1, 86400);
    if (!c) {
        return 0;
    }
    label = apr_psprintf(p, "probe-%d-%" APR_TIME_T_FMT, (int)getpid(), apr_time_now());
    payload = trv_json_bind(p, json_pack("{s:s}", "label", label));
    start = apr_time_now();
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

/* Needs no database: the check runs in the argument pass and exits. */
static int cmd_supplier_check(trv_dbc *c, apr_pool_t *p, int argc, const char *const *argv)
{
    opt opts[] = {{"--hotel", 0, NULL, 0}, {"--conf", 1, NULL, 0}, {"--timeout", 1, NULL, 0},
                  {NULL, 0, NULL, 0}};
    const char *pos[1] = {NULL};
    const char *conf;
    long timeout;
    (void)c;
    parse_args(argc, argv, opts, pos, 1, 1);
    timeout = number_arg("--timeout", opts[2].value, 10, 1, 300);
    conf = opts[1].value ? opts[1].value : stack_file(p, "var/httpd-main/httpd.conf");
    if (!conf) {
        die("%s", "no configuration: pass --conf FILE (the httpd.conf with the supplier line)");
    }
    fflush(stdout);
    exit(trv_cli_supplier_check(p, pos[0], conf, opts[0].given, timeout));
}

static const command commands[] = {
    {"migrate", NULL, cmd_migrate},
    {"org", "create", cmd_org_create},
    {"org", "list", cmd_org_list},
    {"key", "create", cmd_key_create},
    {"key", "revoke", cmd_key_revoke},
    {"key", "list", cmd_key_list},
    {"dashboard", "grant", cmd_dashboard_grant},
    {"dashboard", "revoke", cmd_dashboard_revoke},
    {"worker", "probe", cmd_worker_probe},
    {"supplier", "check", cmd_supplier_check},
    {NULL, NULL, NULL},
};

int main(int argc, const char *const *argv)
{
    apr_pool_t *p;
    const char *conninfo = NULL, *err = NULL;
    const command *cmd;
    trv_dbc *c;
    int rc, words;

    apr_app_initialize(&argc, &argv, NULL);
    atexit(apr_terminate);
    apr_pool_create(&p, NULL);
    argv++;
    argc--;
    /* Options before the command: --db and --help only. */
    while (argc >= 1 && argv[0][0] == '-') {
        if (strcmp(argv[0], "-h") == 0 || strcmp(argv[0], "--help") == 0) {
            fputs(usage, stdout);
            return 0;
        }
        if (strcmp(argv[0], "--db") == 0 && argc >= 2) {
            conninfo = argv[1];
            argv += 2;
            argc -= 2;
        }
        else if (strncmp(argv[0], "--db=", 5) == 0) {
            conninfo = argv[0] + 5;
            argv++;
            argc--;
        }
        else {
            usage_error(strcmp(argv[0], "--db") == 0 ? "%s needs a value" : "unknown flag %s",
                        argv[0]);
        }
    }
    if (argc < 1) {
        usage_error("%s", "no command");
    }
    for (cmd = commands; cmd->group; cmd++) {
        if (strcmp(cmd->group, argv[0]) == 0
            && (!cmd->verb || (argc >= 2 && strcmp(cmd->verb, argv[1]) == 0))) {
            break;
        }
    }
    if (!cmd->group) {
        usage_error(argc >= 2 ? "unknown command %s ..." : "unknown command %s", argv[0]);
    }
    words = cmd->verb ? 2 : 1;
    /* The arguments are checked before anything connects: a mistyped
     * command line changes nothing and needs no database. */
    cmd->run(NULL, p, argc - words, argv + words);
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
    rc = cmd->run(c, p, argc - words, argv + words);
    fflush(stdout);
    return rc;
}
