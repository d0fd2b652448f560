#include "order_status.h"

#include <stddef.h>

#define N (TRV_FORDER_CANCELED + 1)

static const char *const names[] = {"TICKETED", "PENDING", "FAILED", "CANCELED", NULL};

static const unsigned char moves[N][N] = {
    [TRV_FORDER_PENDING][TRV_FORDER_TICKETED] = 1,
    [TRV_FORDER_PENDING][TRV_FORDER_FAILED] = 1,
    [TRV_FORDER_PENDING][TRV_FORDER_CANCELED] = 1,
};

const trv_transit_table trv_forder_status_table = {"flight order status", N, names,
                                                   &moves[0][0]};
