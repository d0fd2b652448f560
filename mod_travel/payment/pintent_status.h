/* The status of an authorization intent (payment/intents.h says what each
 * means; flight_ and hotel_authorization_intents CHECK the same five
 * texts) and the moves payment/intents_sql.h makes. */
#ifndef TRV_PAYMENT_PINTENT_STATUS_H
#define TRV_PAYMENT_PINTENT_STATUS_H

#include "core/transit.h"

typedef enum {
    TRV_PINTENT_PENDING,
    TRV_PINTENT_UNRESOLVED,
    TRV_PINTENT_RELEASING,
    TRV_PINTENT_AUTHORIZED,
    TRV_PINTENT_RESOLVED
} trv_pintent_status;

extern const trv_transit_table trv_pintent_status_table;

/* Its texts through the table: trv_transit_text, trv_transit_from_text. */

#endif
