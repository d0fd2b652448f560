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

/* The column text; *_from_text: 1 and *out set for one of the five. */
const char *trv_pintent_status_text(trv_pintent_status s);
int trv_pintent_status_from_text(const char *text, trv_pintent_status *out);

#endif
