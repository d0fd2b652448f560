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

#endif
