/* sandboxctl: applies the sandbox's own migrations (sql/sandbox/) to a
 * database that already has the product's. Only the development and test
 * stacks run it (scripts/stack.sh); a production database, migrated with
 * `travelctl migrate`, never gets schema sandbox. */
#include "sbx_migrate.h"

#include <apr_general.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: sandboxctl [--db CONNINFO] migrate\n"
    "\n"
    "  migrate   apply the sandbox migrations (sql/sandbox/) not yet applied\n"
    "\n"
    "The database is --db, else $TRAVEL_DB (a libpq connection string).\n";

static void report(const char *name)
{
    printf("applied sandbox/%s\n", name);
}

int main(int argc, const char *const *argv)
{
    apr_pool_t *p;
    const char *conninfo = NULL, *err = NULL;
    trv_dbc *c;
    int applied;

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
    if (argc != 1 || strcmp(argv[0], "migrate") != 0) {
        int help = argc == 1 && (strcmp(argv[0], "-h") == 0 || strcmp(argv[0], "--help") == 0);
        fputs(usage, help ? stdout : stderr);
        return help ? 0 : 2;
    }
    if (!conninfo) {
        conninfo = getenv("TRAVEL_DB");
    }
    if (!conninfo) {
        fprintf(stderr, "sandboxctl: no database: pass --db CONNINFO or set TRAVEL_DB\n");
        return 1;
    }
    if (trv_db_connect(p, conninfo, &c, &err) != APR_SUCCESS) {
        fprintf(stderr, "sandboxctl: cannot connect to the database: %s\n", err);
        return 1;
    }
    if (trv_migrate_set(c, p, &sbx_migration_set, &applied, &err, report) != APR_SUCCESS) {
        fprintf(stderr, "sandboxctl: migration failed: %s\n", err ? err : "unknown error");
        return 1;
    }
    printf("%d sandbox migration(s) applied; the sandbox schema is up to date\n", applied);
    return 0;
}
