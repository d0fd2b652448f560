#include "delivery_status.h"

#include <stddef.h>

#define N (TRV_DELIVERY_FAILED + 1)

static const char *const names[] = {"PENDING", "PUBLISHED", "DELIVERED", "FAILED", NULL};

/* send_batch.c claims (PENDING or PUBLISHED -> PUBLISHED) and records a
 * send (PUBLISHED -> DELIVERED, PUBLISHED to retry, FAILED); api.c fails
 * the open ones of a deleted subscription and replays (any -> PENDING);
 * recover.c queues FAILED ones again. */
static const unsigned char moves[N][N] = {
    [TRV_DELIVERY_PENDING][TRV_DELIVERY_PENDING] = 1,
    [TRV_DELIVERY_PENDING][TRV_DELIVERY_PUBLISHED] = 1,
    [TRV_DELIVERY_PENDING][TRV_DELIVERY_FAILED] = 1,
    [TRV_DELIVERY_PUBLISHED][TRV_DELIVERY_PENDING] = 1,
    [TRV_DELIVERY_PUBLISHED][TRV_DELIVERY_PUBLISHED] = 1,
    [TRV_DELIVERY_PUBLISHED][TRV_DELIVERY_DELIVERED] = 1,
    [TRV_DELIVERY_PUBLISHED][TRV_DELIVERY_FAILED] = 1,
    [TRV_DELIVERY_DELIVERED][TRV_DELIVERY_PENDING] = 1,
    [TRV_DELIVERY_FAILED][TRV_DELIVERY_PENDING] = 1,
};

const trv_transit_table trv_delivery_status_table = {"webhook delivery status", N, names,
                                                     &moves[0][0]};


int trv_delivery_finished(trv_delivery_status status)
{
    switch (status) {
    case TRV_DELIVERY_DELIVERED:
    case TRV_DELIVERY_FAILED:
        return 1;
    case TRV_DELIVERY_PENDING:
    case TRV_DELIVERY_PUBLISHED:
        return 0;
    }
    return 0;
}
