/* The SQL of webhook subscriptions and deliveries. Every statement is
 * scoped by organization and family where a caller's id reaches it. */
#ifndef TRV_WEBHOOK_STORE_H
#define TRV_WEBHOOK_STORE_H

#include "core/db.h"

#include <jansson.h>

/* The signing secrets live while a request is queued: the current one,
 * and the previous one until previous_secret_expires_at (SQL over s.*). */
#define TRV_WHS_LIVE_SECRETS \
    "CASE WHEN s.previous_secret_enc IS NOT NULL AND s.previous_secret_expires_at > now() " \
    "THEN ARRAY[s.secret_enc, s.previous_secret_enc] ELSE ARRAY[s.secret_enc] END"

#define TRV_WHS_COLUMNS \
    "s.id, s.url, array_to_json(s.event_types)::text AS event_types, s.status, " \
    "s.filters::text AS filters, s.signature_scheme, s.public_key, s.max_per_second, " \
    "s.disabled_reason, " \
    "trv_ts(s.previous_secret_expires_at) AS previous_secret_expires_at, " \
    "trv_ts(s.created_at) AS created_at, trv_ts(s.updated_at) AS updated_at"

/* A delivery with its event and the attempts of its current send. */
#define TRV_DLV_COLUMNS \
    "d.id, d.status, d.replay_count, d.failure_reason, trv_ts(d.created_at) AS created_at, " \
    "trv_ts(d.published_at) AS published_at, trv_ts(d.delivered_at) AS delivered_at, " \
    "trv_ts(d.failed_at) AS failed_at, e.id AS event_id, e.type AS event_type, " \
    "trv_ts(e.created_at) AS event_created_at, e.data::text AS event_data, " \
    "(SELECT coalesce(json_agg(json_build_object('attempt_number', a.attempt_number, " \
    "'response_status', a.response_status, 'response_body', a.response_body, " \
    "'error', a.error, 'duration_ms', a.duration_ms, 'created_at', trv_ts(a.created_at)) " \
    "ORDER BY a.attempt_number), '[]')::text FROM webhook_attempts a " \
    "WHERE a.delivery_id = d.id AND a.replay = d.replay_count) AS attempts"

/* The subscription of row i as the API shows it (no secret). */
json_t *trv_whs_json(apr_pool_t *p, const trv_rows *r, int i);
/* The delivery of row i (TRV_DLV_COLUMNS) as the API shows it. */
json_t *trv_dlv_json(apr_pool_t *p, const trv_rows *r, int i);

#endif
