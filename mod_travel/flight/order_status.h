/* The status of an order as a flight supplier adapter reports it (*order
 * of book and read_order, supplier.h): TICKETED, PENDING (ticketing to
 * come), FAILED, or CANCELED. The book runner reads it here, at the edge
 * of the adapter's answer; the table is the supplier's own: a PENDING
 * order is ticketed, fails or is canceled. */
#ifndef TRV_FLIGHT_ORDER_STATUS_H
#define TRV_FLIGHT_ORDER_STATUS_H

#include "core/transit.h"

typedef enum {
    TRV_FORDER_TICKETED,
    TRV_FORDER_PENDING,
    TRV_FORDER_FAILED,
    TRV_FORDER_CANCELED
} trv_forder_status;

extern const trv_transit_table trv_forder_status_table;

/* Texts through the table: trv_transit_text, trv_transit_from_text. */

#endif
