#include "pintent_status.h"

#include <stddef.h>

#define N (TRV_PINTENT_RESOLVED + 1)

static const char *const names[] = {"PENDING", "UNRESOLVED", "RELEASING", "AUTHORIZED",
                                    "RESOLVED", NULL};

/* reuse: an UNRESOLVED intent, or a PENDING one of an earlier attempt, is
 * PENDING for this attempt; release_others and sdk_release: UNRESOLVED
 * (due now) from PENDING or UNRESOLVED; authorized: PENDING -> AUTHORIZED;
 * unresolved: PENDING, AUTHORIZED or RELEASING -> UNRESOLVED; claim:
 * UNRESOLVED -> RELEASING; resolved: anything not yet RESOLVED. */
static const unsigned char moves[N][N] = {
    [TRV_PINTENT_PENDING][TRV_PINTENT_PENDING] = 1,
    [TRV_PINTENT_PENDING][TRV_PINTENT_UNRESOLVED] = 1,
    [TRV_PINTENT_PENDING][TRV_PINTENT_AUTHORIZED] = 1,
    [TRV_PINTENT_PENDING][TRV_PINTENT_RESOLVED] = 1,
    [TRV_PINTENT_UNRESOLVED][TRV_PINTENT_PENDING] = 1,
    [TRV_PINTENT_UNRESOLVED][TRV_PINTENT_UNRESOLVED] = 1,
    [TRV_PINTENT_UNRESOLVED][TRV_PINTENT_RELEASING] = 1,
    [TRV_PINTENT_UNRESOLVED][TRV_PINTENT_RESOLVED] = 1,
    [TRV_PINTENT_RELEASING][TRV_PINTENT_UNRESOLVED] = 1,
    [TRV_PINTENT_RELEASING][TRV_PINTENT_RESOLVED] = 1,
    [TRV_PINTENT_AUTHORIZED][TRV_PINTENT_UNRESOLVED] = 1,
    [TRV_PINTENT_AUTHORIZED][TRV_PINTENT_RESOLVED] = 1,
};

const trv_transit_table trv_pintent_status_table = {"authorization intent", N, names,
                                                    &moves[0][0]};

