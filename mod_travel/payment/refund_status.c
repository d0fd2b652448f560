#include "refund_status.h"

#include <stddef.h>

#define N (TRV_REFUND_FAILED + 1)

static const char *const names[] = {"PENDING", "SUBMITTED", "FAILED", NULL};

static const unsigned char moves[N][N] = {
    [TRV_REFUND_PENDING][TRV_REFUND_SUBMITTED] = 1,
    [TRV_REFUND_PENDING][TRV_REFUND_FAILED] = 1,
    [TRV_REFUND_FAILED][TRV_REFUND_PENDING] = 1,
};

const trv_transit_table trv_refund_status_table = {"refund status", N, names, &moves[0][0]};


int trv_refund_status_transit(const trv_log *log, const char *request_id,
                              const char *refund_id, trv_refund_status from,
                              trv_refund_status to)
{
    return trv_transit_check(&trv_refund_status_table, log, request_id, refund_id, (int)from,
                             (int)to);
}
