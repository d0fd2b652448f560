/* GET /v1/watcher/events: the organization's watcher events, oldest
 * first, each with its status (pending until its endpoint answered 2xx,
 * delivered, or failed once the retries ran out) and its payload, the
 * exact body that is (or will be) sent: the sender and this list render
 * it with the same expression, and the list embeds it as json text,
 * byte for byte. `after` (an event id of this log, else 404) and `limit`
 * (1..200, default 50) page through it; ids are time-ordered (UUIDv7). */
#include "watch.h"
#include "core/ids.h"
#include "core/validate.h"

#include <apr_strings.h>

#define BODY "jsonb_build_object('id', e.id, 'type', e.type, 'created_at', " \
             "trv_ts(e.created_at), 'data', e.data)::text"

static const trv_stmt known_stmt = {"trv_watcher_event_known",
    "SELECT 1 AS x FROM events WHERE id = %s AND org_id = %s AND family = 'travel'"};
static const trv_stmt page_stmt = {"trv_watcher_events_page",
    "SELECT coalesce(json_agg(json_build_object('id', p.id, 'type', p.type, 'status', "
    "p.status, 'created_at', p.created_at, 'payload', p.body::json) ORDER BY p.id), '[]')::text "
    "AS data, count(*) AS n FROM (SELECT e.id, e.type, trv_ts(e.created_at) AS created_at, "
    BODY " AS body, CASE (SELECT d.status FROM webhook_deliveries d JOIN webhook_subscriptions s "
    "ON s.id = d.subscription_id AND s.family = 'travel' WHERE d.event_id = e.id "
    "ORDER BY d.created_at DESC LIMIT 1) WHEN 'DELIVERED' THEN 'delivered' "
    "WHEN 'FAILED' THEN 'failed' ELSE 'pending' END AS status "
    "FROM events e WHERE e.org_id = %s AND e.family = 'travel' AND e.id > coalesce(%s, '') "
    "ORDER BY e.id LIMIT %s::int) p"};

void trv_watcher_events(trv_req *req, trv_resp *resp)
{
    static const char *const known[] = {"after", "limit", NULL};
    trv_errs *errs = trv_errs_new(req->pool);
    const char *after;
    long limit;
    trv_dbc *c;
    trv_rows *r;

    trv_query_known(req->query, known, errs);
    after = trv_query_str(req->query, "after", 1, 128, errs);
    if (after && !trv_id_valid(after, "evt")) {
        trv_errs_add(errs, "after", "must be an event id (evt_...)");
    }
    limit = trv_query_int(req->query, "limit", 50, 1, 200, errs);
    if (trv_errs_any(errs)) {
        trv_fail_invalid(req, resp, errs);
        return;
    }
    if (!trv_api_db_open(req, resp, &c, 1530, "reading the event log")) {
        return;
    }
    if (after) {
        if (trv_db_select(c, req->pool, &known_stmt, &r, TRV_DB_ARGS(after, req->org_id))
            != APR_SUCCESS) {
            goto failed;
        }
        if (!r->n) {
            trv_db_close(req->env->db, c);
            trv_fail(req, resp, 404, "not_found", "No event %s in this organization's log",
                     after);
            return;
        }
    }
    if (trv_db_select(c, req->pool, &page_stmt, &r,
                      TRV_DB_ARGS(req->org_id, after, apr_ltoa(req->pool, limit)))
        != APR_SUCCESS) {
        goto failed;
    }
    trv_db_close(req->env->db, c);
    trv_ok_text(req, resp, 200, trv_rows_get(r, 0, "data"), NULL);
    return;
failed:
    trv_fail_db(req, resp, c, 1531, "reading the event log");
    trv_db_close(req->env->db, c);
}
