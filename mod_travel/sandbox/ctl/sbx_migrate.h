/* The sandbox's own migrations (sql/sandbox/), apart from the product's:
 * schema sandbox exists only where this set is applied (the development
 * and test stacks), never through `travelctl migrate`. They are recorded in
 * sandbox.schema_migrations, so their names never meet the product's. */
#ifndef SBX_MIGRATE_H
#define SBX_MIGRATE_H

#include "cli/migrations.h"

extern const trv_migration sbx_migrations[];   /* build/gen/sandbox_migrations.c */
extern const trv_migration_set sbx_migration_set;

#endif
