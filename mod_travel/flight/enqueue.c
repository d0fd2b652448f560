#include "enqueue.h"
#include "core/json.h"

#include <apr_strings.h>

/* Attempt limits: complete polls a ticketing supplier for as long as it
 * takes; settle retries a capture for about a day of backoff; release
 * keeps trying to void an authorization nobody uses. */
const trv_job_spec trv_fjob_complete = {"flight.booking.complete", 2000};
const trv_job_spec trv_fjob_settle = {"flight.payment.settle", 30};
const trv_job_spec trv_fjob_cancel = {"flight.booking.cancel", 8};
const trv_job_spec trv_fjob_refund = {"flight.refund.submit", 8};
const trv_job_spec trv_fjob_expire = {"flight.booking.expire", 10};
const trv_job_spec trv_fjob_prebook_watch = {"flight.prebook.watchdog", 10};
const trv_job_spec trv_fjob_sync = {"flight.order.sync", 3};
const trv_job_spec trv_fjob_release = {"flight.payment.release", 40};
/* Queued by sql/045 with the same name and limit. */
const trv_job_spec trv_fjob_render = {"flight.booking.render", 5};

apr_status_t trv_fjob_enqueue(trv_dbc *c, apr_pool_t *p, const trv_job_spec *kind,
                              const char *id, int attempt, const char *request_id,
                              apr_interval_time_t delay)
{
    json_t *payload = trv_json_bind(p, json_pack("{s:s,s:s}", "id", id, "request_id",
                                                 request_id ? request_id : "-"));
    const char *dedupe = attempt >= 0 ? apr_psprintf(p, "%s:%s:%d", kind->kind, id, attempt)
                                      : apr_psprintf(p, "%s:%s", kind->kind, id);
    if (attempt >= 0) {
        json_object_set_new(payload, "attempt", json_integer(attempt));
    }
    return trv_job_enqueue_spec(c, p, kind, payload, delay, dedupe, NULL);
}
