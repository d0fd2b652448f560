/* The events outbox. A domain calls trv_outbox_emit inside the transaction
 * that makes the change; the event and its fan-out (deliveries and send
 * jobs, by the insert's trigger, sql/044) commit or roll back with it. An
 * event.publish job is queued only for an event the trigger did not
 * publish. */
#ifndef TRV_WEBHOOK_OUTBOX_H
#define TRV_WEBHOOK_OUTBOX_H

#include "core/db.h"
#include "core/jobs.h"

#include <jansson.h>

#define TRV_EVENT_PUBLISH_JOB "event.publish"

/* The publish job: its name and attempt limit (registered in domain.c). */
extern const trv_job_spec trv_event_publish_job;

/* type is e.g. "flight.booking.confirmed"; its family is the part before
 * the first dot. data becomes the event's "data" (for booking events
 * {"booking": {...}}). *event_id may be NULL. */
apr_status_t trv_outbox_emit(trv_dbc *c, apr_pool_t *p, const char *org_id,
                             const char *type, const json_t *data,
                             const char **event_id);

#endif
