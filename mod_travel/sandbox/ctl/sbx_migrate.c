/* The sandbox's migration set; see sbx_migrate.h. */
#include "sbx_migrate.h"

static const trv_stmt applied_stmt = {"sbx_migration_applied",
    "SELECT 1 FROM sandbox.schema_migrations WHERE version = %s"};
static const trv_stmt record_stmt = {"sbx_migration_record",
    "INSERT INTO sandbox.schema_migrations (version) VALUES (%s)"};

/* The schema and its record table first. A database migrated before the
 * sandbox had migrations of its own recorded them in the product's table
 * under their old names: they are adopted, not applied twice. (The sandbox
 * tables use the product's trv_ts(), so the product's migrations come
 * first in the same database.) */
const trv_migration_set sbx_migration_set = {
    sbx_migrations,
    "CREATE SCHEMA IF NOT EXISTS sandbox; "
    "CREATE TABLE IF NOT EXISTS sandbox.schema_migrations (version text PRIMARY KEY, "
    "applied_at timestamptz NOT NULL DEFAULT now()); "
    "DO $adopt$ BEGIN "
    "IF to_regclass('public.schema_migrations') IS NOT NULL THEN "
    "INSERT INTO sandbox.schema_migrations (version) "
    "SELECT s.version FROM (VALUES ('001_inbox', '003_sandbox_inbox'), "
    "('002_suppliers', '030_sandbox_suppliers'), ('003_faults', '031_sandbox_faults'), "
    "('004_sdk_cancel', '032_sandbox_sdk_cancel')) s (version, legacy) "
    "JOIN public.schema_migrations m ON m.version = s.legacy "
    "ON CONFLICT DO NOTHING; "
    "END IF; END $adopt$",
    &applied_stmt, &record_stmt};
