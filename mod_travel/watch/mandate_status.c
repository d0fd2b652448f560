#include "mandate_status.h"

#include <stddef.h>

#define N (TRV_MANDATE_CANCELED + 1)

static const char *const names[] = {"pending_confirmation", "confirmed", "canceled", NULL};

/* mandate.c confirms; watches_api.c cancels whatever is not canceled. */
static const unsigned char moves[N][N] = {
    [TRV_MANDATE_PENDING_CONFIRMATION][TRV_MANDATE_CONFIRMED] = 1,
    [TRV_MANDATE_PENDING_CONFIRMATION][TRV_MANDATE_CANCELED] = 1,
    [TRV_MANDATE_CONFIRMED][TRV_MANDATE_CANCELED] = 1,
};

const trv_transit_table trv_mandate_status_table = {"mandate status", N, names,
                                                    &moves[0][0]};

