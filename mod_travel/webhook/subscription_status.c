#include "subscription_status.h"

#include <stddef.h>

#define N (TRV_SUBSCRIPTION_DISABLED + 1)

const char *const trv_subscription_statuses[] = {"ACTIVE", "PAUSED", "DISABLED", NULL};

/* PAUSED -> DISABLED does not exist: the breaker disables only what it
 * sends to (webhook_disable, sql/181, checks ACTIVE). */
static const unsigned char moves[N][N] = {
    [TRV_SUBSCRIPTION_ACTIVE][TRV_SUBSCRIPTION_ACTIVE] = 1,
    [TRV_SUBSCRIPTION_ACTIVE][TRV_SUBSCRIPTION_PAUSED] = 1,
    [TRV_SUBSCRIPTION_ACTIVE][TRV_SUBSCRIPTION_DISABLED] = 1,
    [TRV_SUBSCRIPTION_PAUSED][TRV_SUBSCRIPTION_PAUSED] = 1,
    [TRV_SUBSCRIPTION_PAUSED][TRV_SUBSCRIPTION_ACTIVE] = 1,
    [TRV_SUBSCRIPTION_DISABLED][TRV_SUBSCRIPTION_DISABLED] = 1,
    [TRV_SUBSCRIPTION_DISABLED][TRV_SUBSCRIPTION_ACTIVE] = 1,
    [TRV_SUBSCRIPTION_DISABLED][TRV_SUBSCRIPTION_PAUSED] = 1,
};

const trv_transit_table trv_subscription_status_table = {"webhook subscription status", N,
                                                         trv_subscription_statuses,
                                                         &moves[0][0]};


int trv_subscription_status_patchable(trv_subscription_status s)
{
    return s == TRV_SUBSCRIPTION_ACTIVE || s == TRV_SUBSCRIPTION_PAUSED;
}

int trv_subscription_status_resumable(trv_subscription_status s)
{
    switch (s) {
    case TRV_SUBSCRIPTION_PAUSED:
    case TRV_SUBSCRIPTION_DISABLED:
        return 1;
    case TRV_SUBSCRIPTION_ACTIVE:
        return 0;
    }
    return 0;
}
