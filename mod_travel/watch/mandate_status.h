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

/* The column text; *_from_text: 1 and *out set for one of the three. */
const char *trv_mandate_status_text(trv_mandate_status s);
int trv_mandate_status_from_text(const char *text, trv_mandate_status *out);

#endif
