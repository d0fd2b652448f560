/* The status of a booking's payment row (flight_payments, hotel_payments;
 * both CHECK the same three texts): an authorization is captured or
 * voided, and that is final. A payment the supplier collected is written
 * CAPTURED at once (an insert, not a move). Shared by every domain. */
#ifndef TRV_PAYMENT_PAY_STATUS_H
#define TRV_PAYMENT_PAY_STATUS_H

#include "core/transit.h"

typedef enum {
    TRV_PAY_AUTHORIZED,
    TRV_PAY_CAPTURED,
    TRV_PAY_VOIDED
} trv_pay_status;

extern const trv_transit_table trv_pay_status_table;

/* Its texts through the table: trv_transit_text, trv_transit_from_text. */
/* 1 when text (a provider answer's "status", NULL allowed) reads as s. */
int trv_pay_status_text_is(const char *text, trv_pay_status s);

/* The one place a payment's move is judged (trv_transit_check). */
int trv_pay_status_transit(const trv_log *log, const char *request_id, const char *payment_id,
                           trv_pay_status from, trv_pay_status to);

#endif
