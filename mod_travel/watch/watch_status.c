#include "watch_status.h"

#include <stddef.h>

#define N (TRV_WATCH_CANCELED + 1)

const char *const trv_watch_statuses[] = {"active", "armed", "triggered", "purchased",
                                          "purchase_failed", "expired", "canceled", NULL};

/* check.c and trip.c fire; mandate.c arms; purchase.c buys or disarms;
 * schedule.c expires; watches_api.c cancels. */
static const unsigned char moves[N][N] = {
    [TRV_WATCH_ACTIVE][TRV_WATCH_TRIGGERED] = 1,
    [TRV_WATCH_ACTIVE][TRV_WATCH_ARMED] = 1,
    [TRV_WATCH_ACTIVE][TRV_WATCH_EXPIRED] = 1,
    [TRV_WATCH_ACTIVE][TRV_WATCH_CANCELED] = 1,
    [TRV_WATCH_ARMED][TRV_WATCH_ACTIVE] = 1,
    [TRV_WATCH_ARMED][TRV_WATCH_PURCHASED] = 1,
    [TRV_WATCH_ARMED][TRV_WATCH_PURCHASE_FAILED] = 1,
    [TRV_WATCH_ARMED][TRV_WATCH_EXPIRED] = 1,
    [TRV_WATCH_ARMED][TRV_WATCH_CANCELED] = 1,
};

const trv_transit_table trv_watch_status_table = {"watch status", N, trv_watch_statuses,
                                                  &moves[0][0]};


int trv_watch_status_transit(const trv_log *log, const char *request_id, const char *watch_id,
                             trv_watch_status from, trv_watch_status to)
{
    return trv_transit_check(&trv_watch_status_table, log, request_id, watch_id, (int)from,
                             (int)to);
}
