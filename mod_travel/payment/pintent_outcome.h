/* How a RESOLVED authorization intent was settled (column outcome of
 * flight_ and hotel_authorization_intents): text only at the edge, where
 * the row is written. NONE: not settled (the intent stays UNRESOLVED). */
#ifndef TRV_PAYMENT_PINTENT_OUTCOME_H
#define TRV_PAYMENT_PINTENT_OUTCOME_H

typedef enum {
    TRV_PINTENT_OUTCOME_NONE,
    TRV_PINTENT_OUTCOME_VOIDED,      /* its authorization is voided */
    TRV_PINTENT_OUTCOME_CAPTURED,    /* its key answered a captured authorization */
    TRV_PINTENT_OUTCOME_DECLINED,    /* the provider declined the instrument */
    TRV_PINTENT_OUTCOME_NOT_FOUND,   /* the provider knows no such instrument or authorization */
    TRV_PINTENT_OUTCOME_REJECTED,    /* the provider refused the request */
    TRV_PINTENT_OUTCOME_UNAVAILABLE, /* the provider answered an error: nothing authorized */
    TRV_PINTENT_OUTCOME_CANCELED,    /* the SDK session was canceled unpaid */
    TRV_PINTENT_OUTCOME_UNREADABLE   /* the intent's amount cannot be read: nothing to ask */
} trv_pintent_outcome;

/* The column text; NULL for NONE. */
const char *trv_pintent_outcome_text(trv_pintent_outcome o);

#endif
