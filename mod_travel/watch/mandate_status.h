/* The status of an auto-purchase mandate (watch_mandates, sql/120): it
 * waits for its confirmation, and a confirmed or waiting mandate can be
 * canceled (with its watch). */
#ifndef TRV_WATCH_MANDATE_STATUS_H
#define TRV_WATCH_MANDATE_STATUS_H

#include "core/transit.h"

typedef enum {
    TRV_MANDATE_PENDING_CONFIRMATION,
    TRV_MANDATE_CONFIRMED,
    TRV_MANDATE_CANCELED
} trv_mandate_status;

extern const trv_transit_table trv_mandate_status_table;

/* Its texts through the table: trv_transit_text, trv_transit_from_text. */

#endif
