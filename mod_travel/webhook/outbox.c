#include "outbox.h"
#include "core/ids.h"
#include "core/json.h"

#include <apr_strings.h>
#include <string.h>

const trv_job_spec trv_event_publish_job = {TRV_EVENT_PUBLISH_JOB, 20};

static const trv_stmt insert_event = {"trv_event_insert",
    "INSERT INTO events (id, org_id, family, type, data) "
    "VALUES (%s, %s, %s, %s, %s::jsonb)"};

apr_status_t trv_outbox_emit(trv_dbc *c, apr_pool_t *p, const char *org_id,
                             const char *type, const json_t *data,
                             const char **event_id)
{
    const char *id = trv_id_new(p, "evt");
    const char *dot = strchr(type, '.');
    const char *family = dot ? apr_pstrndup(p, type, (apr_size_t)(dot - type)) : type;
    json_t *payload;
    apr_status_t rv;

    rv = trv_db_exec(c, p, &insert_event, NULL,
                     TRV_DB_ARGS(id, org_id, family, type, trv_json_dump(p, data)));
    if (rv != APR_SUCCESS) {
        return rv;
    }
    payload = trv_json_bind(p, json_pack("{s:s}", "event_id", id));
    rv = trv_job_enqueue_spec(c, p, &trv_event_publish_job, payload, 0, NULL, NULL);
    if (rv == APR_SUCCESS && event_id) {
        *event_id = id;
    }
    return rv;
}
