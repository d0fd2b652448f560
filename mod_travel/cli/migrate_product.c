/* The product's migration set (sql/NNN_name.sql); see migrations.h. Its own
 * file so that a tool applying another set does not carry the product's. */
#include "migrations.h"

#include <string.h>

static const trv_stmt applied_stmt = {"trv_migration_applied",
    "SELECT 1 FROM schema_migrations WHERE version = %s"};
static const trv_stmt record_stmt = {"trv_migration_record",
    "INSERT INTO schema_migrations (version) VALUES (%s)"};

/* The product's migrations (sql/NNN_name.sql). The sandbox's (sql/sandbox/) are a
 * set of their own that only its tool applies: a production database never
 * receives them. */
static const trv_migration_set product_set = {
    trv_migrations,
    "CREATE TABLE IF NOT EXISTS schema_migrations (version text PRIMARY KEY, "
    "applied_at timestamptz NOT NULL DEFAULT now())",
    &applied_stmt, &record_stmt};

apr_status_t trv_migrate(trv_dbc *c, apr_pool_t *p, int *applied, const char **error,
                         void (*report)(const char *name))
{
    return trv_migrate_set(c, p, &product_set, applied, error, report);
}

static const trv_stmt table_stmt = {"trv_migration_table",
    "SELECT to_regclass('schema_migrations') IS NOT NULL AS present"};
static const trv_stmt versions_stmt = {"trv_migration_versions",
    "SELECT version FROM schema_migrations"};

apr_status_t trv_migrate_pending(trv_dbc *c, apr_pool_t *p, int *pending,
                                 const char **error, void (*report)(const char *name))
{
    const trv_migration *m;
    trv_rows *rows, *done = NULL;
    *pending = 0;
    if (trv_db_select(c, p, &table_stmt, &rows, 0, NULL) != APR_SUCCESS) {
        *error = c->error;
        return APR_EGENERAL;
    }
    /* A database never migrated has no table yet: everything is pending. */
    if (trv_rows_bool(rows, 0, "present")
        && trv_db_select(c, p, &versions_stmt, &done, 0, NULL) != APR_SUCCESS) {
        *error = c->error;
        return APR_EGENERAL;
    }
    for (m = trv_migrations; m->name; m++) {
        int i, applied = 0;
        for (i = 0; done && i < done->n && !applied; i++) {
            applied = strcmp(trv_rows_get(done, i, "version"), m->name) == 0;
        }
        if (!applied) {
            (*pending)++;
            if (report) {
                report(m->name);
            }
        }
    }
    return APR_SUCCESS;
}
