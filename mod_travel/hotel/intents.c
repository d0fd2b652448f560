/* The hotel kind of the shared authorization intents (intents.h). */
#include "intents.h"
#include "reply.h"
#include "core/config.h"
#include "payment/intents_sql.h"

/* A release retries with backoff for about as long as a flight's. */
const trv_job_spec trv_hjob_release = {"hotel.payment.release", 40};

static const trv_pintent_sql hotel_sql =
    TRV_PINTENT_SQL("hotel", "hotel_authorization_intents", "hotel_bookings",
                    "hotel_payments", "offer_expires_at");

const trv_pintent_kind trv_hotel_intents = {"hotel", &hotel_sql, &trv_hjob_release};

void trv_hjob_release_run(trv_env *env, apr_pool_t *p, const trv_job *job,
                          trv_job_result *res)
{
    trv_pintent_release_run(&trv_hotel_intents, env, p, job, res);
}
