/* watch.trip: one trip watch checked. The destination's hotels are
 * searched at every configured supplier at once (as POST /v1/hotel/search
 * does, holding no connection), grouped into the service's hotels, and the
 * hotels whose cheapest stay total (all rooms, all nights) is at or below
 * the trigger amount are the candidates, cheapest first. Up to three are
 * priced with offers (one request per supplier) for their room type, board
 * and refundability; those still at or below the amount are the matches.
 * Any match fires the watch once (guarded by its status) with its
 * travel.hotel.trip_watch.triggered event in the same transaction. */
#include "watch.h"
#include "core/fanout.h"
#include "hotel/customer.h"
#include "hotel/mapping.h"
#include "hotel/hotel_store.h"
#include "webhook/outbox.h"
#include "core/json.h"
#include "core/log.h"
#include "core/money.h"

#include <apr_strings.h>
#include <string.h>

static const trv_stmt read_stmt = {"trv_watch_trip_read",
    "SELECT w.id, w.org_id, w.user_id, w.place_id, w.check_in::text AS check_in, "
    "w.check_out::text AS check_out, w.occupancy::text AS occupancy, w.currency, "
    "w.guest_nationality, w.guest_residence, w.trigger_minor::text AS trigger_minor, "
    "w.customer::text AS customer "
    "FROM watches w WHERE w.id = %s AND w.kind = 'trip' AND w.status = 'active' "
    "AND w.check_in > (now() AT TIME ZONE 'UTC')::date"};
static const trv_stmt fire_stmt = {"trv_watch_fire_trip",
    "WITH f AS (UPDATE watches SET status = 'triggered', triggered_at = trv_now(), "
    "last_checked_at = trv_now(), last_price_minor = %s::bigint, checking_until = NULL, "
    "updated_at = trv_now() WHERE id = %s AND status = 'active' RETURNING *) "
    "SELECT " TRV_WATCH_COLS ", w.org_id FROM f w" TRV_WATCH_JOINS};
static const trv_stmt seen_stmt = {"trv_watch_trip_seen",
    "UPDATE watches SET last_checked_at = trv_now(), last_price_minor = %s::bigint, "
    "checking_until = NULL, updated_at = trv_now() WHERE id = %s AND status = 'active'"};

typedef struct ask {
    const trv_supplier *row;
    const trv_hotel_supplier *adapter;
    trv_hotel_ctx ctx;
    const trv_hotel_area *area;
    const trv_hotel_stay *stay;
    const char **sids;        /* offers: the hotels to price */
    int n;
    apr_array_header_t *list;
    trv_hotel_err err;
    trv_up_status st;
} ask;

static void search_one(void *baton)
{
    ask *a = baton;
    a->st = a->adapter->search(&a->ctx, a->area, a->stay, &a->list, &a->err);
}

static void offers_one(void *baton)
{
    ask *a = baton;
    a->st = a->adapter->offers(&a->ctx, a->stay, a->sids, a->n, 1, &a->list, &a->err);
}

static const trv_supplier *hotel_rows(const trv_env *env)
{
    return trv_hotel_supplier_rows(env);
}

/* Each configured supplier asked at once; 0 when any failed (*why). */
static int ask_all(trv_env *env, apr_pool_t *p, const char *rid, const trv_hotel_area *area,
                   const trv_hotel_stay *stay, const json_t *customer, void (*fn)(void *),
                   ask **asks, int *n, const char **why)
{
    const trv_supplier *row;
    void *batons[16];
    int i;
    *n = 0;
    for (row = hotel_rows(env); row && row->name && *n < 16; row++) {
        ask *a = apr_pcalloc(p, sizeof(*a));
        apr_pool_t *cp = trv_call_pool(p);
        if (!cp || !(a->adapter = trv_hotel_supplier_for(env, cp, rid, row, &a->ctx))) {
            continue;
        }
        /* The traveller the watch was created for (watches.customer). */
        trv_hcustomer_apply_kept(&a->ctx, customer);
        a->row = row;
        a->area = area;
        a->stay = stay;
        asks[(*n)++] = a;
    }
    for (i = 0; i < *n; i++) {
        batons[i] = asks[i];
    }
    trv_fanout(p, *n, fn, batons);
    for (i = 0; i < *n; i++) {
        if (asks[i]->st != TRV_UP_OK) {
            *why = apr_psprintf(p, "%s: %s", asks[i]->row->name,
                                asks[i]->err.message ? asks[i]->err.message : "failed");
            return 0;
        }
    }
    return 1;
}

typedef struct match {
    const trv_hotel_group *g;
    const char *hotel_id;
    const trv_hotel_offer *offer;  /* NULL: not priced by offers */
} match;

static json_t *match_json(const match *m, const char *currency)
{
    const trv_hotel_found *f = m->g->cheapest;
    int e = trv_currency_exponent(currency);
    apr_int64_t total = m->offer ? m->offer->total_minor : f->total_minor;
    const json_t *doc = m->offer ? m->offer->doc : NULL;
    const json_t *refundable = json_object_get(json_object_get(doc, "cancellation_policy"),
                                               "refundable");
    return json_pack("{s:s,s:s,s:n,s:n,s:o,s:s,s:O,s:O,s:O}", "hotel_id", m->hotel_id,
                     "name", f->name, "guest_rating", "star_rating", "total",
                     trv_money_amount_json(total, e), "currency", currency,
                     "room_type", json_object_get(doc, "room_type")
                                      ? json_object_get(doc, "room_type") : json_null(),
                     "board", json_object_get(doc, "board")
                                  ? json_object_get(doc, "board") : json_null(),
                     "refundable", refundable ? refundable : json_null());
}

static void finish(trv_env *env, apr_pool_t *p, const trv_rows *w, const char *price,
                   json_t *matches, trv_job_result *res)
{
    const char *id = trv_rows_get(w, 0, "id");
    trv_dbc *c;
    trv_rows *fired;
    if (!trv_job_db_open(env, p, &c, res)) {
        return;
    }
    if (trv_db_begin(c, p) != APR_SUCCESS) {
        goto failed;
    }
    if (json_array_size(matches)) {
        if (trv_db_select(c, p, &fire_stmt, &fired, TRV_DB_ARGS(price, id)) != APR_SUCCESS) {
            goto failed;
        }
        if (fired->n) {
            json_t *data = trv_json_bind(p, json_pack("{s:s,s:o,s:O}", "user_id",
                                                      trv_rows_get(fired, 0, "user_id"),
                                                      "watch", trv_watch_json(p, fired, 0),
                                                      "matches", matches));
            if (trv_outbox_emit(c, p, trv_rows_get(fired, 0, "org_id"),
                                TRV_WEV_TRIP_TRIGGERED, data, NULL) != APR_SUCCESS) {
                goto failed;
            }
        }
    }
    else if (trv_db_exec(c, p, &seen_stmt, NULL, TRV_DB_ARGS(price, id)) != APR_SUCCESS) {
        goto failed;
    }
    if (trv_db_commit(c) != APR_SUCCESS) {
        goto failed;
    }
    trv_db_close(env->db, c);
    return;
failed:
    res->outcome = TRV_JOB_RETRY;
    res->error = apr_pstrdup(p, c->error ? c->error : "failed");
    trv_log_msg(&env->log, TRV_LOG_WARNING, NULL, TRVLOGNO(1542) "trip watch %s: %s", id,
                res->error);
    if (c->in_txn) {
        trv_db_rollback(c);
    }
    trv_db_close(env->db, c);
}

void trv_watch_trip_run(trv_env *env, apr_pool_t *p, const trv_job *job, trv_job_result *res)
{
    const char *wid = trv_json_str(job->payload, "watch_id");
    const char *rid = apr_pstrcat(p, "job_", job->id, NULL), *why = NULL, *price = NULL;
    apr_array_header_t *found = apr_array_make(p, 128, sizeof(trv_hotel_found *));
    apr_array_header_t *groups, *top;
    const char *const *ids;
    trv_hotel_area area;
    trv_hotel_stay stay;
    trv_req req;
    trv_resp resp;
    trv_dbc *c;
    trv_rows *w;
    ask *asks[16];
    match m[TRV_WATCH_MAX_MATCHES];
    json_t *matches;
    apr_int64_t limit;
    int n, i, k, nm = 0, placed;

    if (!wid) {
        res->outcome = TRV_JOB_DEAD;
        res->error = "payload needs watch_id";
        return;
    }
    if (!trv_job_db_open(env, p, &c, res)) {
        return;
    }
    if (trv_db_select(c, p, &read_stmt, &w, TRV_DB_ARGS(wid)) != APR_SUCCESS) {
        res->outcome = TRV_JOB_RETRY;
        res->error = apr_pstrdup(p, c->error ? c->error : "failed");
        trv_db_close(env->db, c);
        return;
    }
    trv_db_close(env->db, c);
    if (!w->n) {
        return; /* canceled, fired or expired meanwhile */
    }
    limit = apr_atoi64(trv_rows_get(w, 0, "trigger_minor"));
    if (!trv_watch_stay(p, trv_rows_get(w, 0, "check_in"), trv_rows_get(w, 0, "check_out"),
                        trv_rows_get(w, 0, "occupancy"), trv_rows_get(w, 0, "currency"),
                        trv_rows_get(w, 0, "guest_nationality"),
                        trv_rows_get(w, 0, "guest_residence"), &stay)) {
        res->outcome = TRV_JOB_DEAD;
        res->error = "the stored stay does not read";
        return;
    }
    trv_watch_job_req(env, p, rid, trv_rows_get(w, 0, "org_id"), &req, &resp);
    if (!trv_hhotel_place_area(&req, &resp, trv_rows_get(w, 0, "place_id"), &area, &placed)
        || !placed) {
        res->outcome = placed ? TRV_JOB_RETRY : TRV_JOB_DEAD;
        res->error = "the watch's place cannot be read";
        return;
    }
    if (!ask_all(env, p, rid, &area, &stay, trv_json_column(p, w, 0, "customer"), search_one,
                 asks, &n, &why)) {
        res->outcome = TRV_JOB_RETRY;
        res->error = why;
        return;
    }
    for (i = 0; i < n; i++) {
        for (k = 0; asks[i]->list && k < asks[i]->list->nelts; k++) {
            APR_ARRAY_PUSH(found, trv_hotel_found *)
                = &APR_ARRAY_IDX(asks[i]->list, k, trv_hotel_found);
        }
    }
    groups = trv_hotel_group_found(p, found);
    top = apr_array_make(p, TRV_WATCH_MAX_MATCHES, sizeof(trv_hotel_group *));
    for (i = 0; i < groups->nelts && top->nelts < TRV_WATCH_MAX_MATCHES; i++) {
        trv_hotel_group *g = APR_ARRAY_IDX(groups, i, trv_hotel_group *);
        if (!price && g->cheapest) {
            price = apr_psprintf(p, "%" APR_INT64_T_FMT, g->cheapest->total_minor);
        }
        if (g->cheapest && g->cheapest->total_minor <= limit) {
            APR_ARRAY_PUSH(top, trv_hotel_group *) = g;
        }
    }
    if (top->nelts) {
        if (!trv_hhotel_ids_for(&req, &resp, top, &ids)) {
            res->outcome = TRV_JOB_RETRY;
            res->error = "keeping hotel ids failed";
            return;
        }
        /* The candidates priced with offers, each by its cheapest seller. */
        for (i = 0; i < n; i++) {
            asks[i]->sids = apr_pcalloc(p, sizeof(char *) * TRV_WATCH_MAX_MATCHES);
            asks[i]->n = 0;
            asks[i]->list = NULL;
            for (k = 0; k < top->nelts; k++) {
                const trv_hotel_found *f = APR_ARRAY_IDX(top, k, trv_hotel_group *)->cheapest;
                if (strcmp(f->supplier, asks[i]->row->name) == 0) {
                    asks[i]->sids[asks[i]->n++] = f->sid;
                }
            }
        }
        {
            void *batons[16];
            int nb = 0;
            for (i = 0; i < n; i++) {
                if (asks[i]->n) {
                    batons[nb++] = asks[i];
                }
            }
            trv_fanout(p, nb, offers_one, batons);
        }
        for (k = 0; k < top->nelts; k++) {
            const trv_hotel_group *g = APR_ARRAY_IDX(top, k, trv_hotel_group *);
            const trv_hotel_offer *best = NULL;
            for (i = 0; i < n; i++) {
                int j;
                if (!asks[i]->n || asks[i]->st != TRV_UP_OK
                    || strcmp(asks[i]->row->name, g->cheapest->supplier) != 0) {
                    continue;
                }
                for (j = 0; asks[i]->list && j < asks[i]->list->nelts; j++) {
                    const trv_hotel_offer *o = &APR_ARRAY_IDX(asks[i]->list, j,
                                                              trv_hotel_offer);
                    if (strcmp(o->sid, g->cheapest->sid) == 0
                        && (!best || o->total_minor < best->total_minor)) {
                        best = o;
                    }
                }
            }
            /* The bookable price decides when there is one. */
            if (best && best->total_minor > limit) {
                continue;
            }
            m[nm].g = g;
            m[nm].hotel_id = ids[k];
            m[nm].offer = best;
            nm++;
        }
    }
    /* Cheapest first, by the price each match shows. */
    for (i = 1; i < nm; i++) {
        for (k = i; k > 0; k--) {
            apr_int64_t a = m[k - 1].offer ? m[k - 1].offer->total_minor
                                           : m[k - 1].g->cheapest->total_minor;
            apr_int64_t b = m[k].offer ? m[k].offer->total_minor : m[k].g->cheapest->total_minor;
            if (a > b) {
                match t = m[k];
                m[k] = m[k - 1];
                m[k - 1] = t;
            }
        }
    }
    matches = trv_json_bind(p, json_array());
    for (i = 0; i < nm; i++) {
        json_array_append_new(matches, match_json(&m[i], stay.currency));
    }
    if (nm) {
        price = apr_psprintf(p, "%" APR_INT64_T_FMT, m[0].offer ? m[0].offer->total_minor
                                                                : m[0].g->cheapest->total_minor);
    }
    finish(env, p, w, price, matches, res);
}
