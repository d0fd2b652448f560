#ifndef SBX_CHANGES_H
#define SBX_CHANGES_H
/* The version of the sandbox's test settings (its faults and hotel price
 * factors): a counter shared by the instance's children, moved on by every
 * control request that adds a fault or sets a factor, after its write has
 * committed (removing them needs no move: a memo only ever says "none").
 *
 * Nearly every supplier request the sandbox serves finds no fault and no
 * price factor, yet asked PostgreSQL for both: seven of the nine
 * statements of a hotel search (docs/performance.md). A child that saw,
 * at version v, that there was none may answer "none" again without
 * asking while the version is still v. Since the counter moves only after
 * a write commits, a reader that took v before a write either read after
 * the commit (and saw it) or sees the version moved and asks again.
 *
 * The settings must be written through the instance that serves them (its
 * control endpoints): one sandbox instance per database, as
 * scripts/stack.sh runs it. */
#include <apr_pools.h>
#include <apr_atomic.h>

/* In post_config: the counter lives in the process pool, so it outlives
 * graceful restarts (a child of the old generation and one of the new
 * read the same counter). Without it (shared memory refused) every memo
 * misses: the settings are read on every request, as before. */
apr_status_t sbx_changes_init(apr_pool_t *process_pool);

/* The current version (read before reading the settings). */
apr_uint32_t sbx_changes_now(void);

/* After a write of the settings has committed. */
void sbx_changes_made(void);

/* A memo of "none at version v", one per kind of setting a child reads
 * (a static zero is "not known"). */
typedef apr_uint32_t sbx_none_memo;

/* 1 when the memo says there was none at v (v from sbx_changes_now()). */
int sbx_changes_none(const sbx_none_memo *m, apr_uint32_t v);

/* Remember that a read begun at version v found none. */
void sbx_changes_note_none(sbx_none_memo *m, apr_uint32_t v);

#endif
