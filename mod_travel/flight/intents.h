/* Flight authorization intents (sql/012_flight_authorization_intents.sql):
 * the shared intents of payment/intents.h on the flight tables, released
 * by the flight.payment.release job. The trv_fintent_* names are the
 * shared calls with the flight kind. */
#ifndef TRV_FLIGHT_INTENTS_H
#define TRV_FLIGHT_INTENTS_H

#include "payment/intents.h"

extern const trv_pintent_kind trv_flight_intents;

#define TRV_FINTENT_PENDING TRV_PINTENT_PENDING
#define TRV_FINTENT_UNRESOLVED TRV_PINTENT_UNRESOLVED
#define TRV_FINTENT_RELEASING TRV_PINTENT_RELEASING
#define TRV_FINTENT_AUTHORIZED TRV_PINTENT_AUTHORIZED
#define TRV_FINTENT_RESOLVED TRV_PINTENT_RESOLVED

typedef trv_pintent trv_fintent;
typedef trv_prelease trv_frelease;

#define trv_fintent_lock_step(...) trv_pintent_lock_step(&trv_flight_intents, __VA_ARGS__)
#define trv_fintent_own(...) trv_pintent_own(&trv_flight_intents, __VA_ARGS__)
#define trv_fintent_reuse(...) trv_pintent_reuse(&trv_flight_intents, __VA_ARGS__)
#define trv_fintent_insert(...) trv_pintent_insert(&trv_flight_intents, __VA_ARGS__)
#define trv_fintent_release_others(...) \
    trv_pintent_release_others(&trv_flight_intents, __VA_ARGS__)
#define trv_fintent_authorized(...) trv_pintent_authorized(&trv_flight_intents, __VA_ARGS__)
#define trv_fintent_resolved(...) trv_pintent_resolved(&trv_flight_intents, __VA_ARGS__)
#define trv_fintent_unresolved(...) trv_pintent_unresolved(&trv_flight_intents, __VA_ARGS__)
#define trv_fintent_of_auth(...) trv_pintent_of_auth(&trv_flight_intents, __VA_ARGS__)
#define trv_fintent_sdk_release(...) trv_pintent_sdk_release(&trv_flight_intents, __VA_ARGS__)
#define trv_fintent_get(...) trv_pintent_get(&trv_flight_intents, __VA_ARGS__)
#define trv_fintent_claim(...) trv_pintent_claim(&trv_flight_intents, __VA_ARGS__)
#define trv_fintent_payment_voided(...) \
    trv_pintent_payment_voided(&trv_flight_intents, __VA_ARGS__)
#define trv_fintent_schedule(...) trv_pintent_schedule(&trv_flight_intents, __VA_ARGS__)

#endif
