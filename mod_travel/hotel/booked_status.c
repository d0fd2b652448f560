#include "booked_status.h"

#include <stddef.h>

#define N (TRV_HBOOKED_CANCELED + 1)

static const char *const names[] = {"CONFIRMED", "PENDING", "CANCELED", NULL};

static const unsigned char moves[N][N] = {
    [TRV_HBOOKED_PENDING][TRV_HBOOKED_CONFIRMED] = 1,
    [TRV_HBOOKED_PENDING][TRV_HBOOKED_CANCELED] = 1,
    [TRV_HBOOKED_CONFIRMED][TRV_HBOOKED_CANCELED] = 1,
};

const trv_transit_table trv_hbooked_status_table = {"hotel supplier booking status", N,
                                                    names, &moves[0][0]};
