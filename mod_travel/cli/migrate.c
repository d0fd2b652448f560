#include "migrations.h"

#include <apr_strings.h>
#include <string.h>

static const trv_stmt applied_stmt = {"trv_migration_applied",
    "SELECT 1 FROM schema_migrations WHERE version = %s"};
static const trv_stmt record_stmt = {"trv_migration_record",
    "INSERT INTO schema_migrations (version) VALUES (%s)"};

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

static apr_status_t plain(trv_dbc *c, apr_pool_t *p, const char *sql, const char **error)
{
    int n = 0, rv = apr_dbd_query(c->driver, c->handle, &n, sql);
    if (rv != 0) {
        const char *e = apr_dbd_error(c->driver, c->handle, rv);
        *error = apr_pstrdup(p, e ? e : "query failed");
        return APR_EGENERAL;
    }
    return APR_SUCCESS;
}

apr_status_t trv_migrate(trv_dbc *c, apr_pool_t *p, int *applied, const char **error,
                         void (*report)(const char *name))
{
    const trv_migration *m;
    *applied = 0;
    /* DDL cannot be a prepared statement; these fixed texts carry no input. */
    if (plain(c, p, "BEGIN; SELECT pg_advisory_xact_lock(7263530); "
                    "CREATE TABLE IF NOT EXISTS schema_migrations ("
                    "version text PRIMARY KEY, applied_at timestamptz NOT NULL "
                    "DEFAULT now()); COMMIT", error) != APR_SUCCESS) {
        const char *ignored;
        plain(c, p, "ROLLBACK", &ignored);
        return APR_EGENERAL;
    }
    for (m = trv_migrations; m->name; m++) {
        trv_rows *rows;
        if (plain(c, p, "BEGIN", error) != APR_SUCCESS) {
            return APR_EGENERAL;
        }
        /* One migrator at a time; the lock ends with the transaction. */
        if (plain(c, p, "SELECT pg_advisory_xact_lock(7263530)", error) != APR_SUCCESS) {
            goto fail;
        }
        if (trv_db_select(c, p, &applied_stmt, &rows, TRV_DB_ARGS(m->name)) != APR_SUCCESS) {
            *error = c->error;
            goto fail;
        }
        if (rows->n > 0) {
            plain(c, p, "COMMIT", error);
            continue;
        }
        if (plain(c, p, m->sql, error) != APR_SUCCESS) {
            *error = apr_psprintf(p, "%s: %s", m->name, *error);
            goto fail;
        }
        if (trv_db_exec(c, p, &record_stmt, NULL, TRV_DB_ARGS(m->name)) != APR_SUCCESS) {
            *error = c->error;
            goto fail;
        }
        if (plain(c, p, "COMMIT", error) != APR_SUCCESS) {
            return APR_EGENERAL;
        }
        (*applied)++;
        if (report) {
            report(m->name);
        }
    }
    return APR_SUCCESS;
fail:
    {
        const char *ignored;
        plain(c, p, "ROLLBACK", &ignored);
    }
    return APR_EGENERAL;
}
