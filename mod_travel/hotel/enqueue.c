#include "enqueue.h"
#include "core/json.h"

#include <apr_strings.h>

/* Polls a supplier that confirms later for as long as it takes. */
const trv_job_spec trv_hjob_complete = {"hotel.booking.complete", 2000};
/* Retried while the database is away; the booking's state makes a rerun a
 * no-op (flight.booking.expire's budget). */
const trv_job_spec trv_hjob_expire = {"hotel.booking.expire", 10};

apr_status_t trv_hjob_enqueue(trv_dbc *c, apr_pool_t *p, const trv_job_spec *kind,
                              const char *id, const char *request_id,
                              apr_interval_time_t delay)
{
    json_t *payload = trv_json_bind(p, json_pack("{s:s,s:s}", "id", id, "request_id",
                                                 request_id ? request_id : "-"));
    return trv_job_enqueue_spec(c, p, kind, payload, delay,
                                apr_psprintf(p, "%s:%s", kind->kind, id), NULL);
}
