/* The sandbox's settings version: see changes.h. */
#include "changes.h"

#include <apr_shm.h>

static const char key[] = "mod_travel_sandbox.changes";

/* The counter, in anonymous shared memory inherited by every child; NULL
 * when it could not be made. */
static volatile apr_uint32_t *counter;

apr_status_t sbx_changes_init(apr_pool_t *process_pool)
{
    apr_shm_t *shm = NULL;
    apr_status_t rv;
    void *kept = NULL;

    /* A restart reloads the module (counter is NULL again), not the
     * process pool. */
    apr_pool_userdata_get(&kept, key, process_pool);
    if (kept) {
        counter = apr_shm_baseaddr_get(kept);
        return APR_SUCCESS;
    }
    rv = apr_shm_create(&shm, sizeof(apr_uint32_t), NULL, process_pool);
    if (rv != APR_SUCCESS) {
        counter = NULL;
        return rv;
    }
    counter = apr_shm_baseaddr_get(shm);
    apr_atomic_set32(counter, 0);
    apr_pool_userdata_set(shm, key, apr_pool_cleanup_null, process_pool);
    return APR_SUCCESS;
}

apr_uint32_t sbx_changes_now(void)
{
    return counter ? apr_atomic_read32(counter) : 0;
}

void sbx_changes_made(void)
{
    if (counter) {
        apr_atomic_inc32(counter);
    }
}

/* A memo holds v + 1 (0: not known). */
int sbx_changes_none(const sbx_none_memo *m, apr_uint32_t v)
{
    return counter && apr_atomic_read32((volatile apr_uint32_t *)m) == v + 1;
}

void sbx_changes_note_none(sbx_none_memo *m, apr_uint32_t v)
{
    apr_atomic_set32(m, v + 1);
}
