#include "outbox.h"
#include "core/ids.h"
#include "core/json.h"

#include <apr_strings.h>
#include <string.h>

const trv_job_spec trv_event_publish_job = {TRV_EVENT_PUBLISH_JOB, 20};

static const trv_stmt insert_event = {"trv_event_insert",
    "INSERT INTO events (id, org_id, family, type, data) "
    "VALUES (%s, %s, %s, %s, %s::jsonb)"};

/* The publish job only where the insert's fan-out (sql/044) did not publish
 * the event (its trigger disabled, say): in the usual case the event is
 * published by now and a job would only be claimed, find nothing to do and
 * be removed, three round trips per event queued ahead of later sends. */
static const trv_stmt publish_job = {"trv_event_publish_job",
    "INSERT INTO jobs (kind, payload, max_attempts) "
    "SELECT %s, jsonb_build_object('event_id', %s::text), %s::int "
    "WHERE NOT EXISTS (SELECT 1 FROM events WHERE id = %s AND published_at IS NOT NULL)"};

apr_status_t trv_outbox_emit(trv_dbc *c, apr_pool_t *p, const char *org_id,
                             const char *type, const json_t *data,
                             const char **event_id)
{
    const char *id = trv_id_new(p, "evt");
    const char *dot = strchr(type, '.');
    const char *family = dot ? apr_pstrndup(p, type, (apr_size_t)(dot - type)) : type;
    apr_status_t rv;

    rv = trv_db_exec(c, p, &insert_event, NULL,
                     TRV_DB_ARGS(id, org_id, family, type, trv_json_dump(p, data)));
    if (rv != APR_SUCCESS) {
        return rv;
    }
    rv = trv_db_exec(c, p, &publish_job, NULL,
                     TRV_DB_ARGS(trv_event_publish_job.kind, id,
                                 apr_itoa(p, trv_event_publish_job.max_attempts), id));
    if (rv == APR_SUCCESS && event_id) {
        *event_id = id;
    }
    return rv;
}
