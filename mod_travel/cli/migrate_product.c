/* The product's migration set (sql/NNN_name.sql); see migrations.h. Its own
 * file so that a tool applying another set does not carry the product's. */
#include "migrations.h"

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
