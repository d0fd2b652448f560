#include "cancel_status.h"

#include <stddef.h>

#define N (TRV_HCANCEL_FAILED + 1)

static const char *const names[] = {"IN_PROGRESS", "SUCCEEDED", "FAILED", NULL};

/* cancellation_store.c: start (a new attempt, or a FAILED one resumed), succeeded,
 * failed. */
static const unsigned char moves[N][N] = {
    [TRV_HCANCEL_IN_PROGRESS][TRV_HCANCEL_SUCCEEDED] = 1,
    [TRV_HCANCEL_IN_PROGRESS][TRV_HCANCEL_FAILED] = 1,
    [TRV_HCANCEL_FAILED][TRV_HCANCEL_IN_PROGRESS] = 1,
};

const trv_transit_table trv_hcancel_status_table = {"hotel cancellation status", N, names,
                                                    &moves[0][0]};
