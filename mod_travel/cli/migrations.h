/* The migrations in sql/, compiled in (see tools/embed-sql.sh). */
#ifndef TRV_CLI_MIGRATIONS_H
#define TRV_CLI_MIGRATIONS_H

#include "core/db.h"

typedef struct trv_migration {
    const char *name; /* file name without .sql: "001_foundation" */
    const char *sql;
} trv_migration;

extern const trv_migration trv_migrations[];

/* Applies every migration not yet recorded, each in its own transaction,
 * under an advisory lock so concurrent runs wait for each other. Prints
 * one line per migration applied to out. *applied counts them. */
apr_status_t trv_migrate(trv_dbc *c, apr_pool_t *p, int *applied, const char **error,
                         void (*report)(const char *name));

/* Reports every migration not yet recorded, applying nothing (and
 * creating nothing: a database never migrated has them all pending). */
apr_status_t trv_migrate_pending(trv_dbc *c, apr_pool_t *p, int *pending,
                                 const char **error, void (*report)(const char *name));

#endif
