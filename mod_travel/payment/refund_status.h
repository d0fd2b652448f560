/* The status of a refund request (flight_refunds, hotel_refunds; both
 * CHECK the same three texts): written PENDING, then SUBMITTED to the
 * payment provider or FAILED; a repeated cancel puts FAILED ones back to
 * PENDING. Shared by every domain. */
#ifndef TRV_PAYMENT_REFUND_STATUS_H
#define TRV_PAYMENT_REFUND_STATUS_H

#include "core/transit.h"

typedef enum {
    TRV_REFUND_PENDING,
    TRV_REFUND_SUBMITTED,
    TRV_REFUND_FAILED
} trv_refund_status;

extern const trv_transit_table trv_refund_status_table;

/* Its texts through the table: trv_transit_text, trv_transit_from_text. */

/* The one place a refund's move is judged (trv_transit_check). */
int trv_refund_status_transit(const trv_log *log, const char *request_id,
                              const char *refund_id, trv_refund_status from,
                              trv_refund_status to);

#endif
