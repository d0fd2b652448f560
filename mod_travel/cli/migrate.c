#include "migrations.h"

#include <apr_strings.h>
#include <string.h>

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

apr_status_t trv_migrate_set(trv_dbc *c, apr_pool_t *p, const trv_migration_set *set,
                             int *applied, const char **error,
                             void (*report)(const char *name))
{
    const trv_migration *m;
    *applied = 0;
    /* DDL cannot be a prepared statement; these fixed texts carry no input. */
    if (plain(c, p, apr_pstrcat(p, "BEGIN; SELECT pg_advisory_xact_lock(7263530); ",
                                set->bootstrap, "; COMMIT", NULL), error) != APR_SUCCESS) {
        const char *ignored;
        plain(c, p, "ROLLBACK", &ignored);
        return APR_EGENERAL;
    }
    for (m = set->list; m->name; m++) {
        trv_rows *rows;
        if (plain(c, p, "BEGIN", error) != APR_SUCCESS) {
            return APR_EGENERAL;
        }
        /* One migrator at a time; the lock ends with the transaction. */
        if (plain(c, p, "SELECT pg_advisory_xact_lock(7263530)", error) != APR_SUCCESS) {
            goto fail;
        }
        if (trv_db_select(c, p, set->applied, &rows, TRV_DB_ARGS(m->name)) != APR_SUCCESS) {
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
        if (trv_db_exec(c, p, set->record, NULL, TRV_DB_ARGS(m->name)) != APR_SUCCESS) {
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
