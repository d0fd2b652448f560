/* Migrations compiled in (see tools/embed-sql.sh): the product's from sql/,
 * and, in the sandbox's own tool only, the sandbox's from sql/sandbox/. */
#ifndef TRV_CLI_MIGRATIONS_H
#define TRV_CLI_MIGRATIONS_H

#include "core/db.h"

typedef struct trv_migration {
    const char *name; /* file name without .sql: "001_foundation" */
    const char *sql;
} trv_migration;

extern const trv_migration trv_migrations[];

/* A list of migrations and where they are recorded: the product's (sql/,
 * table schema_migrations) or the sandbox's (sql/sandbox/, table
 * sandbox.schema_migrations; see mod_travel/sandbox/ctl/). */
typedef struct trv_migration_set {
    const trv_migration *list;   /* ends with {0, 0} */
    const char *bootstrap;       /* DDL making the record table (idempotent) */
    const trv_stmt *applied;     /* SELECT 1 ... WHERE version = %s */
    const trv_stmt *record;      /* INSERT ... (version) VALUES (%s) */
} trv_migration_set;

/* Applies every migration of the set not yet recorded, each in its own
 * transaction, under an advisory lock so concurrent runs wait for each
 * other. Calls report with the name of each migration applied. *applied
 * counts them. */
apr_status_t trv_migrate_set(trv_dbc *c, apr_pool_t *p, const trv_migration_set *set,
                             int *applied, const char **error,
                             void (*report)(const char *name));
/* The product's migrations (sql/NNN_name.sql), never the sandbox's. */
apr_status_t trv_migrate(trv_dbc *c, apr_pool_t *p, int *applied, const char **error,
                         void (*report)(const char *name));

#endif
