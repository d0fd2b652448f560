/* Hotel authorization intents (hotel_authorization_intents, sql/100): the
 * shared intents of payment/intents.h on the hotel tables. Hotel book
 * writes one before it asks the provider to authorize a saved instrument,
 * so an authorization the provider made after the call went unanswered is
 * used by the booking's next attempt (same instrument and amount: same
 * key) or voided by the hotel.payment.release job. */
#ifndef TRV_HOTEL_INTENTS_H
#define TRV_HOTEL_INTENTS_H

#include "payment/intents.h"

extern const trv_pintent_kind trv_hotel_intents;
extern const trv_job_spec trv_hjob_release;

/* The release job's runner (the shared one with the hotel kind). */
void trv_hjob_release_run(trv_env *env, apr_pool_t *p, const trv_job *job,
                          trv_job_result *res);


#endif
