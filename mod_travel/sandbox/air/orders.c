/* Flight orders of both sandbox suppliers, and the control endpoint that
 * makes an airline change a booked flight (an airline-initiated schedule
 * change), as a supplier's test mode lets a developer do. */
#include "air.h"
#include "core/clock.h"
#include "core/ids.h"
#include "core/validate.h"

#include <apr_strings.h>
#include <stdio.h>
#include <string.h>

static const trv_stmt insert_stmt = {"sbx_order_insert",
    "INSERT INTO sandbox.flight_orders (id, supplier, offer_ref, checkout_id, status, pnr, "
    "trigger, brand, currency, total_minor, tax_minor, services_minor, refund_allowed, "
    "refund_penalty, doc, segments, payment, failure, ticketing_due_at) VALUES "
    "(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s::bigint, %s::bigint, %s::bigint, %s::boolean, "
    "%s::bigint, %s::jsonb, %s::jsonb, %s::jsonb, %s::jsonb, "
    "clock_timestamp() + %s::bigint * interval '1 millisecond') "
    "ON CONFLICT DO NOTHING RETURNING id"};

static const trv_stmt get_stmt = {"sbx_order_get",
    "SELECT id, supplier, offer_ref, checkout_id, status, pnr, trigger, brand, currency, "
    "total_minor, tax_minor, services_minor, refund_allowed, refund_penalty, doc::text AS doc, "
    "segments::text AS segments, payment::text AS payment, failure::text AS failure, "
    "cancellation::text AS cancellation, trv_ts(created_at) AS created_at, "
    "trv_ts(updated_at) AS updated_at, trv_ts(cancelled_at) AS cancelled_at "
    "FROM sandbox.flight_orders WHERE id = %s AND supplier = %s"};

static const trv_stmt change_order_stmt = {"sbx_change_order",
    "SELECT status, segments::text AS segments FROM sandbox.flight_orders WHERE id = %s "
    "FOR UPDATE"};

static const trv_stmt change_insert_stmt = {"sbx_change_insert",
    "INSERT INTO sandbox.airline_changes (id, order_id, doc) VALUES (%s, %s, %s::jsonb)"};

static const trv_stmt changes_stmt = {"sbx_order_changes",
    "SELECT doc::text AS doc FROM sandbox.airline_changes WHERE order_id = %s "
    "ORDER BY created_at, id"};
static const trv_stmt settle_stmt = {"sbx_order_settle",
    "UPDATE sandbox.flight_orders SET status = 'ticketed', updated_at = clock_timestamp() "
    "WHERE id = %s AND status = 'pending' AND ticketing_due_at <= clock_timestamp()"};

apr_status_t sbx_order_insert(trv_dbc *c, apr_pool_t *p, const sbx_order_new *o,
                              int *duplicate)
{
    trv_rows *rows;
    char sup[2] = {o->supplier, '\0'};
    apr_status_t rv = trv_db_select(c, p, &insert_stmt, &rows, TRV_DB_ARGS(
        o->id, sup, o->offer_ref, o->checkout_id, o->status, o->pnr, o->trigger, o->brand,
        o->currency, apr_psprintf(p, "%" APR_INT64_T_FMT, o->total),
        apr_psprintf(p, "%" APR_INT64_T_FMT, o->tax),
        apr_psprintf(p, "%" APR_INT64_T_FMT, o->services), o->refund_allowed ? "t" : "f",
        apr_psprintf(p, "%" APR_INT64_T_FMT, o->refund_penalty), trv_json_dump(p, o->doc),
        trv_json_dump(p, o->segments), o->payment ? trv_json_dump(p, o->payment) : NULL,
        o->failure ? trv_json_dump(p, o->failure) : NULL,
        o->ticketing_in > 0 ? apr_psprintf(p, "%" APR_INT64_T_FMT,
                                           (apr_int64_t)apr_time_as_msec(o->ticketing_in))
                            : NULL));
    *duplicate = rv == APR_SUCCESS && rows->n == 0;
    return rv;
}

apr_status_t sbx_order_get(trv_dbc *c, apr_pool_t *p, const char *id, char supplier,
                           trv_rows **rows)
{
    char sup[2] = {supplier, '\0'};
    apr_status_t rv = sbx_order_settle(c, p, id);
    if (rv != APR_SUCCESS) {
        return rv;
    }
    return trv_db_select(c, p, &get_stmt, rows, TRV_DB_ARGS(id, sup));
}

json_t *sbx_segment_entry(apr_pool_t *p, const sbx_world *w, int journey, int seg,
                          const char *id, const sbx_leg *l)
{
    char dep[20], arr[20];
    sbx_local_format(l->dep_local, dep);
    sbx_local_format(l->arr_local, arr);
    return json_pack("{s:i,s:i,s:s,s:s,s:s,s:s,s:s,s:s}", "journey", journey, "segment", seg,
                     "id", id, "flight",
                     apr_psprintf(p, "%s%d", w->airlines[l->mkt].iata, l->flight_no),
                     "origin", w->airports[l->from].iata, "destination",
                     w->airports[l->to].iata, "departure_time", dep, "arrival_time", arr);
}

/* "2026-12-01T07:35:00" -> wall-clock seconds; -1 when malformed. */
static apr_int64_t local_parse(const char *s)
{
    int y, mo, d, h, mi, sec;
    if (!s || sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d", &y, &mo, &d, &h, &mi, &sec) != 6) {
        return -1;
    }
    return (apr_int64_t)trv_days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec;
}

static char *local_shift(apr_pool_t *p, const char *s, int minutes)
{
    char out[20];
    apr_int64_t t = local_parse(s);
    if (t < 0) {
        return apr_pstrdup(p, s ? s : "");
    }
    sbx_local_format(t + (apr_int64_t)minutes * 60, out);
    return apr_pstrdup(p, out);
}

/* POST /sandbox/orders/{order_id}/airline-initiated-changes
 * {"delay_minutes": 95, "journey": 0, "segment": 0}: the airline retimes a
 * booked flight; the order then lists the change. */
static void record_change(trv_req *req, trv_resp *resp)
{
    static const char *const known[] = {"delay_minutes", "journey", "segment", NULL};
    const char *order_id = apr_table_get(req->params, "order_id");
    const json_t *b = req->json;
    trv_errs *errs = trv_errs_new(req->pool);
    json_t *segs, *seg = NULL, *doc;
    json_int_t delay = 95, journey = 0, segment = 0;
    trv_dbc *c;
    trv_rows *rows;
    const char *status;
    size_t i;

    if (b) {
        json_t *v;
        trv_json_known(b, NULL, known, errs);
        if ((v = json_object_get(b, "delay_minutes"))) {
            if (!json_is_integer(v) || json_integer_value(v) < -1440
                || json_integer_value(v) > 2880 || json_integer_value(v) == 0) {
                trv_errs_add(errs, "delay_minutes", "must be a non-zero integer from -1440 to 2880");
            }
            else {
                delay = json_integer_value(v);
            }
        }
        if ((v = json_object_get(b, "journey"))) {
            journey = json_is_integer(v) ? json_integer_value(v) : -1;
        }
        if ((v = json_object_get(b, "segment"))) {
            segment = json_is_integer(v) ? json_integer_value(v) : -1;
        }
    }
    if (trv_errs_any(errs)) {
        trv_fail_invalid(req, resp, errs);
        return;
    }
    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS) {
        sbx_db_fail(req, resp, NULL, 981, "recording a change");
        return;
    }
    if (trv_db_begin(c, req->pool) != APR_SUCCESS
        || sbx_order_settle(c, req->pool, order_id) != APR_SUCCESS
        || trv_db_select(c, req->pool, &change_order_stmt, &rows, TRV_DB_ARGS(order_id))
               != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 982, "recording a change");
        return;
    }
    if (rows->n == 0) {
        trv_db_rollback(c);
        trv_db_close(req->env->db, c);
        sbx_error(req, resp, 404, "not_found", "No order %s", order_id);
        return;
    }
    status = trv_rows_get(rows, 0, "status");
    if (strcmp(status, "ticketed") != 0) {
        trv_db_rollback(c);
        trv_db_close(req->env->db, c);
        sbx_error(req, resp, 409, "order_not_ticketed",
                  "Only a ticketed order can be changed by the airline (it is %s)", status);
        return;
    }
    segs = trv_json_parse(req->pool, trv_rows_get(rows, 0, "segments"),
                          strlen(trv_rows_get(rows, 0, "segments")), NULL);
    for (i = 0; i < json_array_size(segs); i++) {
        json_t *s = json_array_get(segs, i);
        if (json_integer_value(json_object_get(s, "journey")) == journey
            && json_integer_value(json_object_get(s, "segment")) == segment) {
            seg = s;
        }
    }
    if (!seg) {
        trv_db_rollback(c);
        trv_db_close(req->env->db, c);
        sbx_invalid(req, resp, "segment", "the order has no such journey and segment");
        return;
    }
    {
        const char *dep = trv_json_str(seg, "departure_time");
        const char *arr = trv_json_str(seg, "arrival_time");
        doc = json_pack("{s:s,s:s,s:s,s:I,s:I,s:s,s:s,s:s,s:s,s:{s:s,s:s},s:{s:s,s:s},s:I}",
            "id", trv_id_new(req->pool, "aic"), "type", "schedule_change",
            "created_at", trv_time_format(req->pool, apr_time_now()),
            "journey_index", journey, "segment_index", segment,
            "segment_id", trv_json_str(seg, "id"), "flight", trv_json_str(seg, "flight"),
            "origin", trv_json_str(seg, "origin"),
            "destination", trv_json_str(seg, "destination"),
            "previous", "departure_time", dep, "arrival_time", arr,
            "current", "departure_time", local_shift(req->pool, dep, (int)delay),
            "arrival_time", local_shift(req->pool, arr, (int)delay),
            "delay_minutes", delay);
        trv_json_bind(req->pool, doc);
    }
    if (trv_db_exec(c, req->pool, &change_insert_stmt, NULL,
                    TRV_DB_ARGS(trv_json_str(doc, "id"), order_id,
                                trv_json_dump(req->pool, doc))) != APR_SUCCESS
        || trv_db_commit(c) != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 983, "recording a change");
        return;
    }
    trv_db_close(req->env->db, c);
    sbx_send(req, resp, 201, json_pack("{s:O}", "data", doc));
}

const trv_route sbx_control_routes[] = {
    {"POST", "/sandbox/orders/{order_id}/airline-initiated-changes", record_change,
     TRV_ROUTE_PUBLIC},
    {NULL, NULL, NULL, 0},
};

/* ---- shared by both suppliers ---- */

char *sbx_pnr(apr_pool_t *p)
{
    char *s = apr_palloc(p, 7);
    /* Record locators avoid letters that read as digits. */
    sbx_random_chars(s, 6, "ABCDEFGHJKLMNPQRSTUVWXYZ23456789");
    return s;
}

char *sbx_ticket_number(apr_pool_t *p)
{
    char d[14];
    sbx_random_chars(d, 13, "0123456789");
    return apr_psprintf(p, "%.3s-%.10s", d, d + 3);
}

char *sbx_logo_url(apr_pool_t *p, const char *iata)
{
    return apr_psprintf(p, "https://pics.avs.io/200/200/%s.png", iata);
}

const char *sbx_trigger_of(const char *last_name)
{
    static const char *const triggers[] = {"async", "failticket", "unknown", "nocancel", NULL};
    int i;
    for (i = 0; last_name && triggers[i]; i++) {
        if (strcasecmp(last_name, triggers[i]) == 0) {
            return triggers[i];
        }
    }
    return NULL;
}

void sbx_cancel_terms(int refund_allowed, apr_int64_t penalty, apr_int64_t total,
                      apr_int64_t tax, apr_int64_t *fee, apr_int64_t *refund)
{
    if (refund_allowed) {
        *fee = penalty < total ? penalty : total;
    }
    else {
        *fee = total - tax;
    }
    *refund = total - *fee;
}

json_t *sbx_order_changes(trv_dbc *c, apr_pool_t *p, const char *order_id)
{
    trv_rows *rows;
    json_t *out;
    int i;
    if (trv_db_select(c, p, &changes_stmt, &rows, TRV_DB_ARGS(order_id)) != APR_SUCCESS) {
        return NULL;
    }
    out = trv_json_bind(p, json_array());
    for (i = 0; i < rows->n; i++) {
        const char *d = trv_rows_get(rows, i, "doc");
        json_t *v = json_loads(d, 0, NULL);
        if (v) {
            json_array_append_new(out, v);
        }
    }
    return out;
}

apr_status_t sbx_order_settle(trv_dbc *c, apr_pool_t *p, const char *order_id)
{
    return trv_db_exec(c, p, &settle_stmt, NULL, TRV_DB_ARGS(order_id));
}
