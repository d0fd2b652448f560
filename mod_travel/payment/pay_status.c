#include "pay_status.h"

#include <stddef.h>

#define N (TRV_PAY_VOIDED + 1)

static const char *const names[] = {"AUTHORIZED", "CAPTURED", "VOIDED", NULL};

static const unsigned char moves[N][N] = {
    [TRV_PAY_AUTHORIZED][TRV_PAY_CAPTURED] = 1,
    [TRV_PAY_AUTHORIZED][TRV_PAY_VOIDED] = 1,
};

const trv_transit_table trv_pay_status_table = {"payment status", N, names, &moves[0][0]};


int trv_pay_status_text_is(const char *text, trv_pay_status s)
{
    return trv_transit_from_text(&trv_pay_status_table, text) == (int)s;
}

int trv_pay_status_transit(const trv_log *log, const char *request_id, const char *payment_id,
                           trv_pay_status from, trv_pay_status to)
{
    return trv_transit_check(&trv_pay_status_table, log, request_id, payment_id, (int)from,
                             (int)to);
}
