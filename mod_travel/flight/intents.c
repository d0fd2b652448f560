/* The flight kind of the shared authorization intents (intents.h). */
#include "intents.h"
#include "enqueue.h"
#include "upstreams.h"
#include "payment/intents_sql.h"

static const trv_pintent_sql flight_sql =
    TRV_PINTENT_SQL("flight", "flight_authorization_intents", "flight_bookings",
                    "flight_payments", "expires_at");

const trv_pintent_kind trv_flight_intents = {"flight", &flight_sql, &trv_fjob_release};
