/* The watch endpoints: create, list, read and cancel price watches
 * (/v1/watcher/travel/hotel/watches) and trip watches (…/trip-watches).
 * A watch is the calling user's, in the calling organization: anyone
 * else's is a 404. Creating one queues the schedule (schedule.c), so the
 * first check follows within TravelWatchInterval. A price watch with
 * auto_purchase gets a mandate (mdt_…, pending_confirmation) in the same
 * transaction; confirming it arms the watch (mandate.c). The traveller
 * the request states (hotel/customer.h) is kept with the watch: its
 * checks and auto-purchase send it to the suppliers that ask. */
#include "watch.h"
#include "input.h"
#include "watch_status.h"
#include "hotel/customer.h"
#include "core/ids.h"
#include "core/json.h"
#include "core/validate.h"

#include <apr_strings.h>
#include <string.h>

static const trv_stmt hotel_known_stmt = {"trv_watch_hotel_known",
    "SELECT count(*) AS n FROM hotel_supplier_ids WHERE hotel_id = %s"};
static const trv_stmt place_stmt = {"trv_watch_place",
    "SELECT id FROM hotel_places WHERE id = %s AND org_id = %s"};
/* The destination text resolved as GET /v1/hotel/places?q= resolves it
 * (its first place), saved for the organization. When another request
 * saves the same place at the same moment, the INSERT waits for it and
 * does nothing, and the SELECT (of this statement's snapshot, taken
 * before that commit) finds nothing either: resolve_place runs the
 * statement again, whose new snapshot sees the committed row. */
static const trv_stmt place_search_stmt = {"trv_watch_place_search",
    "SELECT key FROM hotel_place_catalog "
    "WHERE starts_with(search, lower(%s::text)) OR strpos(search, ' ' || lower(%s::text)) > 0 "
    "ORDER BY (search = lower(%s::text)) DESC, (type = 'city') DESC, routes DESC, name, key "
    "LIMIT 1"};
static const trv_stmt place_save_stmt = {"trv_watch_place_save",
    "WITH s AS (INSERT INTO hotel_places (id, org_id, place_key, type, name, city, "
    "country_code, latitude, longitude, radius_m) "
    "SELECT %s, %s, key, type, name, city, country_code, latitude, longitude, radius_m "
    "FROM hotel_place_catalog WHERE key = %s "
    "ON CONFLICT (org_id, place_key) DO NOTHING RETURNING id) "
    "SELECT id FROM s UNION ALL "
    "SELECT id FROM hotel_places WHERE org_id = %s AND place_key = %s LIMIT 1"};
static const trv_stmt insert_stmt = {"trv_watch_insert",
    "INSERT INTO watches (id, org_id, user_id, kind, status, hotel_id, destination, place_id, "
    "check_in, check_out, occupancy, currency, guest_nationality, guest_residence, stay_key, "
    "trigger_type, trigger_minor, max_total_minor, mandate_id, customer) "
    "VALUES (%s, %s, %s, %s, 'active', %s, %s, %s, %s::date, %s::date, %s::jsonb, %s, %s, %s, "
    "%s, 'below_total', %s::bigint, %s::bigint, %s, %s::jsonb)"};
static const trv_stmt mandate_stmt = {"trv_watch_mandate_insert",
    "INSERT INTO watch_mandates (id, org_id, user_id, watch_id, status, "
    "payment_instrument_id, contact, rooms, max_total_minor) "
    "VALUES (%s, %s, %s, %s, 'pending_confirmation', %s, %s::jsonb, %s::jsonb, %s::bigint)"};
static const trv_stmt one_stmt = {"trv_watch_one",
    "SELECT " TRV_WATCH_COLS " FROM watches w" TRV_WATCH_JOINS
    "WHERE w.id = %s AND w.org_id = %s AND w.user_id = %s AND w.kind = %s"};
/* Newest first; a status filter of active/armed leaves out watches past
 * their check_in (they read as expired) and expired takes them in. */
static const trv_stmt list_stmt = {"trv_watch_list",
    "SELECT " TRV_WATCH_COLS ", count(*) OVER () AS total FROM watches w" TRV_WATCH_JOINS
    "WHERE w.org_id = %s AND w.user_id = %s AND w.kind = %s AND (%s::text IS NULL OR "
    "(CASE WHEN w.status IN ('active', 'armed') AND w.check_in <= (now() AT TIME ZONE 'UTC')::date "
    "THEN 'expired' ELSE w.status END) = %s::text) "
    "ORDER BY w.created_at DESC, w.id DESC LIMIT %s::int OFFSET %s::int"};
static const trv_stmt cancel_stmt = {"trv_watch_cancel",
    "UPDATE watches SET status = 'canceled', checking_until = NULL, updated_at = trv_now() "
    "WHERE id = %s AND org_id = %s AND user_id = %s AND kind = %s "
    "AND status IN ('active', 'armed') RETURNING mandate_id"};
static const trv_stmt cancel_mandate_stmt = {"trv_watch_cancel_mandate",
    "UPDATE watch_mandates SET status = 'canceled', updated_at = trv_now() "
    "WHERE id = %s AND status <> 'canceled'"};

static long today(void)
{
    return (long)(apr_time_sec(apr_time_now()) / 86400);
}

static const char *i64(apr_pool_t *p, apr_int64_t v)
{
    return apr_psprintf(p, "%" APR_INT64_T_FMT, v);
}

/* The trip destination as a saved place of the organization: a plc_ id
 * it has, or the first place the text finds. NULL with a detail in errs
 * when nothing resolves; 0 when the database failed. */
static int resolve_place(trv_req *req, trv_resp *resp, trv_dbc *c, const char *dest,
                         const char **place_id, trv_errs *errs)
{
    trv_rows *r;
    *place_id = NULL;
    if (trv_id_valid(dest, "plc")) {
        if (trv_db_select(c, req->pool, &place_stmt, &r, TRV_DB_ARGS(dest, req->org_id))
            != APR_SUCCESS) {
            trv_api_db_fail(req, resp, c, 1501, "reading a place");
            return 0;
        }
        if (!r->n) {
            trv_errs_add(errs, "destination", "is not a saved destination of this "
                         "organization (GET /v1/hotel/places?q=)");
        }
        else {
            *place_id = dest;
        }
        return 1;
    }
    if (trv_db_select(c, req->pool, &place_search_stmt, &r, TRV_DB_ARGS(dest, dest, dest))
        != APR_SUCCESS) {
        trv_api_db_fail(req, resp, c, 1501, "resolving a destination");
        return 0;
    }
    if (!r->n) {
        trv_errs_add(errs, "destination", "names no city or airport the service knows");
        return 1;
    }
    {
        const char *key = trv_rows_get(r, 0, "key");
        int attempt;
        /* Twice is enough: the second run's snapshot has every row that
         * made the first one's INSERT do nothing. */
        for (attempt = 0; attempt < 3; attempt++) {
            if (trv_db_select(c, req->pool, &place_save_stmt, &r,
                              TRV_DB_ARGS(trv_id_new(req->pool, "plc"), req->org_id, key,
                                          req->org_id, key)) != APR_SUCCESS) {
                trv_api_db_fail(req, resp, c, 1501, "saving a destination");
                return 0;
            }
            if (r->n) {
                *place_id = trv_rows_get(r, 0, "id");
                return 1;
            }
        }
        trv_log_msg(&req->log, TRV_LOG_ERR, req->request_id,
                    TRVLOGNO(2400) "saving destination %s: no row after %d attempts", key,
                    attempt);
        trv_api_db_fail(req, resp, c, 1501, "saving a destination");
        return 0;
    }
}

static int answer_one(trv_req *req, trv_resp *resp, trv_dbc *c, const char *id,
                      const char *kind, int status)
{
    trv_rows *r;
    if (trv_db_select(c, req->pool, &one_stmt, &r,
                      TRV_DB_ARGS(id, req->org_id, req->user_id, kind)) != APR_SUCCESS) {
        trv_api_db_fail(req, resp, c, 1502, "reading a watch");
        return 0;
    }
    trv_db_close(req->env->db, c);
    if (!r->n) {
        trv_fail(req, resp, 404, "not_found", "No watch %s", id);
        return 1;
    }
    trv_ok(req, resp, status, trv_watch_json(req->pool, r, 0), NULL);
    return 1;
}

/* What one run of a watch's insert needs (trv_db_transaction runs it
 * again when PostgreSQL aborts it for a deadlock or serialization). */
typedef struct creating {
    trv_req *req;
    const trv_watch_input *in;
    const char *id, *kind, *place, *mandate;
    trv_hcustomer customer;        /* the traveller, kept for the checks and the purchase */
} creating;

static apr_status_t create_txn(trv_dbc *c, apr_pool_t *p, void *baton)
{
    const creating *x = baton;
    const trv_watch_input *in = x->in;
    trv_req *req = x->req;
    if (trv_db_exec(c, p, &insert_stmt, NULL,
                    TRV_DB_ARGS(x->id, req->org_id, req->user_id, x->kind, in->hotel_id,
                                in->destination, x->place, in->stay.check_in,
                                in->stay.check_out, trv_json_dump(p, in->occupancy),
                                in->stay.currency, in->stay.nationality, in->stay.residence,
                                trv_watch_stay_key(p, &in->stay),
                                i64(p, in->trigger_minor),
                                x->mandate ? i64(p, in->max_total_minor) : NULL, x->mandate,
                                trv_hcustomer_json(p, &x->customer)))
            != APR_SUCCESS
        || (x->mandate
            && trv_db_exec(c, p, &mandate_stmt, NULL,
                           TRV_DB_ARGS(x->mandate, req->org_id, req->user_id, x->id,
                                       in->instrument, trv_json_dump(p, in->contact),
                                       trv_json_dump(p, in->rooms),
                                       i64(p, in->max_total_minor))) != APR_SUCCESS)
        || trv_watch_schedule_soon(c, p) != APR_SUCCESS) {
        return APR_EGENERAL;
    }
    return APR_SUCCESS;
}

static void create(trv_req *req, trv_resp *resp, const char *kind)
{
    trv_errs *errs = trv_errs_new(req->pool);
    trv_watch_input in;
    trv_hcustomer customer;
    const char *id = trv_id_new(req->pool, "wtc"), *mandate = NULL, *place = NULL;
    trv_dbc *c;
    trv_rows *r;

    trv_watch_read(req->pool, req->json, kind, today(), &in, errs);
    /* The traveller the watch acts for, read as a booking's prebook reads
     * it: its checks and purchase state it to the suppliers that ask. */
    trv_hcustomer_read(req, &customer, errs);
    if (trv_errs_any(errs)) {
        trv_fail_invalid(req, resp, errs);
        return;
    }
    if (!trv_api_db_open(req, resp, &c, 1500, "creating a watch")) {
        return;
    }
    if (in.hotel_id) {
        if (!trv_id_valid(in.hotel_id, "htl")) {
            trv_errs_add(errs, "hotel_id", "must be a hotel id (htl_...)");
        }
        else if (trv_db_select(c, req->pool, &hotel_known_stmt, &r,
                               TRV_DB_ARGS(in.hotel_id)) != APR_SUCCESS) {
            trv_api_db_fail(req, resp, c, 1501, "reading a hotel");
            return;
        }
        else if (trv_rows_int(r, 0, "n", 0) == 0) {
            trv_errs_add(errs, "hotel_id", "is not a hotel id this service gave (search "
                         "first)");
        }
    }
    if (in.destination && !resolve_place(req, resp, c, in.destination, &place, errs)) {
        return;
    }
    if (trv_errs_any(errs)) {
        trv_db_close(req->env->db, c);
        trv_fail_invalid(req, resp, errs);
        return;
    }
    if (in.auto_purchase) {
        mandate = trv_id_new(req->pool, "mdt");
    }
    {
        creating x = {req, &in, id, kind, place, mandate, customer};
        if (trv_db_transaction(c, req->pool, create_txn, &x) != APR_SUCCESS) {
            trv_api_db_fail(req, resp, c, 1503, "creating a watch");
            return;
        }
    }
    trv_env_wake(req->env);
    answer_one(req, resp, c, id, kind, 201);
}

static void get(trv_req *req, trv_resp *resp, const char *kind)
{
    trv_dbc *c;
    if (!trv_api_db_open(req, resp, &c, 1502, "reading a watch")) {
        return;
    }
    answer_one(req, resp, c, apr_table_get(req->params, "id"), kind, 200);
}

static void list(trv_req *req, trv_resp *resp, const char *kind)
{
    static const char *const known[] = {"limit", "offset", "status", NULL};
    trv_errs *errs = trv_errs_new(req->pool);
    long limit, offset;
    const char *status;
    trv_dbc *c;
    trv_rows *r;
    json_t *data;
    int i, total;

    trv_query_known(req->query, known, errs);
    limit = trv_query_int(req->query, "limit", 20, 1, 100, errs);
    offset = trv_query_int(req->query, "offset", 0, 0, 100000, errs);
    status = trv_query_enum(req->query, "status", trv_watch_statuses, NULL, errs);
    if (trv_errs_any(errs)) {
        trv_fail_invalid(req, resp, errs);
        return;
    }
    if (!trv_api_db_open(req, resp, &c, 1504, "listing watches")) {
        return;
    }
    if (trv_db_select(c, req->pool, &list_stmt, &r,
                      TRV_DB_ARGS(req->org_id, req->user_id, kind, status, status,
                                  apr_ltoa(req->pool, limit), apr_ltoa(req->pool, offset)))
        != APR_SUCCESS) {
        trv_api_db_fail(req, resp, c, 1504, "listing watches");
        return;
    }
    trv_db_close(req->env->db, c);
    data = json_array();
    for (i = 0; i < r->n; i++) {
        json_array_append_new(data, trv_watch_json(req->pool, r, i));
    }
    /* Past the last row the window count is unknown: no row, no count. */
    total = r->n ? trv_rows_int(r, 0, "total", 0) : (int)offset;
    trv_ok(req, resp, 200, data,
           json_pack("{s:{s:i,s:i,s:b,s:i}}", "pagination", "limit", (int)limit, "offset",
                     (int)offset, "has_more", offset + r->n < total, "total",
                     r->n ? total : 0));
}

typedef struct canceling {
    trv_req *req;
    const char *id, *kind;
    trv_rows *r;
} canceling;

/* The watch, then its mandate: the lock order of mandate.c too. */
static apr_status_t cancel_txn(trv_dbc *c, apr_pool_t *p, void *baton)
{
    canceling *x = baton;
    trv_rows *r;
    if (trv_db_select(c, p, &cancel_stmt, &r,
                      TRV_DB_ARGS(x->id, x->req->org_id, x->req->user_id, x->kind))
            != APR_SUCCESS
        || (r->n && trv_rows_get(r, 0, "mandate_id")
            && trv_db_exec(c, p, &cancel_mandate_stmt, NULL,
                           TRV_DB_ARGS(trv_rows_get(r, 0, "mandate_id"))) != APR_SUCCESS)) {
        return APR_EGENERAL;
    }
    x->r = r;
    return APR_SUCCESS;
}

static void cancel(trv_req *req, trv_resp *resp, const char *kind)
{
    const char *id = apr_table_get(req->params, "id");
    canceling x = {req, id, kind, NULL};
    trv_dbc *c;
    trv_rows *r, *cur;
    if (!trv_api_db_open(req, resp, &c, 1505, "canceling a watch")) {
        return;
    }
    if (trv_db_transaction(c, req->pool, cancel_txn, &x) != APR_SUCCESS) {
        trv_api_db_fail(req, resp, c, 1505, "canceling a watch");
        return;
    }
    r = x.r;
    if (!r->n) {
        /* Not this user's, or no longer cancelable: which one decides the
         * answer (canceled again is the same answer). */
        if (trv_db_select(c, req->pool, &one_stmt, &cur,
                          TRV_DB_ARGS(id, req->org_id, req->user_id, kind)) != APR_SUCCESS) {
            trv_api_db_fail(req, resp, c, 1505, "canceling a watch");
            return;
        }
        if (!cur->n) {
            trv_db_close(req->env->db, c);
            trv_fail(req, resp, 404, "not_found", "No watch %s", id);
            return;
        }
        trv_watch_status now = TRV_WATCH_ACTIVE;
        now = trv_transit_or(&trv_watch_status_table, trv_rows_get(cur, 0, "status"), (int)now);
        if (now != TRV_WATCH_CANCELED) {
            trv_db_close(req->env->db, c);
            trv_fail(req, resp, 409, "invalid_state", "Watch %s is %s and can no longer be "
                     "canceled", id, trv_rows_bool(cur, 0, "past_check_in")
                                         ? "expired" : trv_rows_get(cur, 0, "status"));
            return;
        }
    }
    answer_one(req, resp, c, id, kind, 200);
}

void trv_watch_create_price(trv_req *req, trv_resp *resp) { create(req, resp, "price"); }
void trv_watch_create_trip(trv_req *req, trv_resp *resp) { create(req, resp, "trip"); }
void trv_watch_list_price(trv_req *req, trv_resp *resp) { list(req, resp, "price"); }
void trv_watch_list_trip(trv_req *req, trv_resp *resp) { list(req, resp, "trip"); }
void trv_watch_get_price(trv_req *req, trv_resp *resp) { get(req, resp, "price"); }
void trv_watch_get_trip(trv_req *req, trv_resp *resp) { get(req, resp, "trip"); }
void trv_watch_cancel_price(trv_req *req, trv_resp *resp) { cancel(req, resp, "price"); }
void trv_watch_cancel_trip(trv_req *req, trv_resp *resp) { cancel(req, resp, "trip"); }
