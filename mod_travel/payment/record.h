/* A booking's payment as recorded (flight_payments and hotel_payments have
 * the same columns): what the service authorized and captured through its
 * provider, or what the supplier collected itself. */
#ifndef TRV_PAYMENT_RECORD_H
#define TRV_PAYMENT_RECORD_H

#include "payment/collector.h"
#include "payment/pay_status.h"

#include <jansson.h>

typedef struct trv_payment_record {
    const char *id;            /* pay_... */
    const char *booking_id;
    trv_pay_status status;
    const char *currency;
    const char *amount;        /* decimal text in major units */
    trv_collector collected_by;
    const char *provider_ref;  /* the provider's authorization id */
    json_t *card;              /* {brand, last4, funding, wallet} or NULL */
    const char *created_at;
} trv_payment_record;

/* A payment as every booking domain's API shows it: id, status, amount
 * (the domain's money JSON, taken), collected_by; when full, its
 * payment_method ({"type": "CARD", "card": card}, card taken, when the
 * card could be read: a card read later shows on the next read of the
 * booking; null when card is NULL); created_at. */
json_t *trv_payment_record_json(const trv_payment_record *pay, json_t *amount, int full,
                                json_t *card);

#endif
