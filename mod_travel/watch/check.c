/* watch.price: one offers request for up to ten hotels of one stay at one
 * supplier (the schedule's batch), then, per hotel, the watches of that
 * hotel and stay decided in one transaction: every active watch whose
 * trigger amount the cheapest offer is at or below fires — status
 * triggered, guarded by its status so a watch fires once however many
 * checks race — and its travel.hotel.watch.triggered event is written in
 * the same transaction (the outbox); the others record the price. An armed
 * watch (confirmed auto-purchase) whose trigger is met is not fired: its
 * purchase job is queued in the same transaction (purchase.c). The
 * supplier is asked holding no database connection. */
#include "watch.h"
#include "hotel/customer.h"
#include "webhook/outbox.h"
#include "core/call_budget.h"
#include "core/json.h"
#include "core/log.h"
#include "core/metrics.h"
#include "core/upstream_limit.h"
#include "core/money.h"

#include <apr_strings.h>
#include <string.h>

static const trv_stmt fire_stmt = {"trv_watch_fire_price",
    "WITH f AS (UPDATE watches SET status = 'triggered', triggered_at = trv_now(), "
    "last_checked_at = trv_now(), last_price_minor = %s::bigint, checking_until = NULL, "
    "updated_at = trv_now() WHERE id = ANY (string_to_array(%s, ' ')) AND status = 'active' "
    "AND kind = 'price' AND trigger_minor >= %s::bigint "
    "AND check_in > (now() AT TIME ZONE 'UTC')::date RETURNING *) "
    "SELECT " TRV_WATCH_COLS ", w.org_id FROM f w" TRV_WATCH_JOINS "ORDER BY w.id"};
/* Armed watches whose trigger is met buy instead of firing (purchase.c). */
static const trv_stmt armed_stmt = {"trv_watch_armed_met",
    "SELECT id FROM watches WHERE id = ANY (string_to_array(%s, ' ')) AND status = 'armed' "
    "AND kind = 'price' AND trigger_minor >= %s::bigint "
    "AND check_in > (now() AT TIME ZONE 'UTC')::date"};
static const trv_stmt seen_stmt = {"trv_watch_seen",
    "UPDATE watches SET last_checked_at = trv_now(), last_price_minor = %s::bigint, "
    "checking_until = NULL, updated_at = trv_now() "
    "WHERE id = ANY (string_to_array(%s, ' ')) AND status IN ('active', 'armed')"};

static const char *ids_text(apr_pool_t *p, const json_t *ids)
{
    const char *s = "";
    size_t i;
    for (i = 0; i < json_array_size(ids); i++) {
        s = apr_pstrcat(p, s, i ? " " : "", json_string_value(json_array_get(ids, i)), NULL);
    }
    return s;
}

/* data.current: the cheapest offer's advisory details. */
static json_t *current(const trv_hotel_offer *o, const char *currency)
{
    const json_t *policy = json_object_get(o->doc, "cancellation_policy");
    int e = trv_currency_exponent(currency);
    json_t *refundable = json_object_get(policy, "refundable");
    return json_pack("{s:o,s:s,s:O,s:O,s:O}", "total", trv_money_amount_json(o->total_minor, e),
                     "currency", currency,
                     "room_type", json_object_get(o->doc, "room_type")
                                      ? json_object_get(o->doc, "room_type") : json_null(),
                     "board", json_object_get(o->doc, "board")
                                  ? json_object_get(o->doc, "board") : json_null(),
                     "refundable", refundable ? refundable : json_null());
}

/* One hotel's watches decided. 0 on success. */
static int decide(trv_env *env, apr_pool_t *p, const json_t *hotel,
                  const trv_hotel_offer *cheapest, const char *currency)
{
    const char *ids = ids_text(p, json_object_get(hotel, "watches"));
    const char *price = cheapest ? apr_psprintf(p, "%" APR_INT64_T_FMT, cheapest->total_minor)
                                 : NULL;
    trv_dbc *c;
    trv_rows *fired = NULL;
    int i;

    if (trv_db_open(env->db, p, &c) != APR_SUCCESS) {
        return -1;
    }
    if (trv_db_begin(c, p) != APR_SUCCESS
        || (cheapest && trv_db_select(c, p, &fire_stmt, &fired,
                                      TRV_DB_ARGS(price, ids, price)) != APR_SUCCESS)) {
        goto failed;
    }
    for (i = 0; fired && i < fired->n; i++) {
        json_t *data = trv_json_bind(p, json_pack("{s:s,s:o,s:o}", "user_id",
                                                  trv_rows_get(fired, i, "user_id"), "watch",
                                                  trv_watch_json(p, fired, i), "current",
                                                  current(cheapest, currency)));
        if (trv_outbox_emit(c, p, trv_rows_get(fired, i, "org_id"), TRV_WEV_TRIGGERED, data,
                            NULL) != APR_SUCCESS) {
            goto failed;
        }
    }
    if (cheapest
        && trv_db_select(c, p, &armed_stmt, &fired, TRV_DB_ARGS(ids, price)) != APR_SUCCESS) {
        goto failed;
    }
    for (i = 0; cheapest && i < fired->n; i++) {
        const char *wid = trv_rows_get(fired, i, "id");
        if (trv_job_enqueue_spec(c, p, &trv_watch_purchase_job,
                                 trv_json_bind(p, json_pack("{s:s}", "watch_id", wid)), 0,
                                 apr_pstrcat(p, trv_watch_purchase_job.kind, ":", wid, NULL), NULL)
            != APR_SUCCESS) {
            goto failed;
        }
    }
    if (trv_db_exec(c, p, &seen_stmt, NULL, TRV_DB_ARGS(price, ids)) != APR_SUCCESS
        || trv_db_commit(c) != APR_SUCCESS) {
        goto failed;
    }
    trv_db_close(env->db, c);
    return 0;
failed:
    trv_log_msg(&env->log, TRV_LOG_WARNING, NULL, TRVLOGNO(1541) "watch check of %s: %s",
                trv_json_str(hotel, "hotel_id"), c->error ? c->error : "failed");
    if (c->in_txn) {
        trv_db_rollback(c);
    }
    trv_db_close(env->db, c);
    return -1;
}

/* Until when the supplier's calls are held for something that is not a
 * failure: it said it is over its rate limit, or (err of a call just
 * refused) the share of its call budget left to background work is spent.
 * 0 when neither. */
static apr_time_t held(trv_env *env, const trv_hotel_ctx *ctx, const trv_hotel_err *err)
{
    apr_time_t now = apr_time_now(), until;
    apr_int64_t index;
    if ((until = trv_upstream_limit_until(env->upstream_limits, ctx->up, now))) {
        return until;
    }
    if (err && err->code && strcmp(err->code, TRV_CALL_BUDGET_SPENT) == 0) {
        return trv_call_budget_window(now, &index);
    }
    return 0;
}

/* The check is put off, not failed: the job comes back when the supplier
 * may be asked again (plus up to half a second, so deferred checks do not
 * all come back at once), its attempt not counted. Late, never lost. */
static void defer(trv_env *env, apr_pool_t *p, const trv_supplier *row, trv_job_result *res,
                  apr_time_t until, const char *why)
{
    apr_interval_time_t wait = until - apr_time_now();
    wait = wait > apr_time_from_msec(100) ? wait : apr_time_from_msec(100);
    res->outcome = TRV_JOB_DEFER;
    res->retry_in = wait + (apr_time_now() % apr_time_from_msec(500));
    res->error = apr_psprintf(p, "deferred: %s's calls are kept for live searches (%s)",
                              row->name, why ? why : "over its rate limit");
    trv_metrics_upstream_event(env->metrics, apr_pstrcat(p, "hotel ", row->name, NULL),
                               TRV_METRIC_DEFERRED);
    TRV_DEBUG(&env->log, NULL, TRVLOGNO(3221) "watch check %s", res->error);
}

/* Watches spend only what live searches leave: the calls of this check
 * are background calls (core/call_budget.h), and a supplier backing off
 * is not asked at all. 1 when the check was deferred. */
static int defer_for_searches(trv_env *env, apr_pool_t *p, trv_hotel_ctx *ctx,
                              const trv_supplier *row, trv_job_result *res)
{
    trv_upstream *bg = apr_pmemdup(p, ctx->up, sizeof(*bg));
    apr_time_t until;
    bg->background = 1;
    ctx->up = bg;
    if ((until = held(env, ctx, NULL))) {
        defer(env, p, row, res, until, "it said it is over its rate limit");
        return 1;
    }
    return 0;
}

void trv_watch_price_run(trv_env *env, apr_pool_t *p, const trv_job *job,
                         trv_job_result *res)
{
    const json_t *stay_j = json_object_get(job->payload, "stay");
    const json_t *hotels = json_object_get(job->payload, "hotels");
    const trv_supplier *row = trv_hotel_supplier_row(env,
                                                    trv_json_str(job->payload, "supplier"));
    const char *rid = apr_pstrcat(p, "job_", job->id, NULL);
    const trv_hotel_supplier *adapter;
    trv_hotel_ctx ctx;
    trv_hotel_stay stay;
    trv_hotel_err err;
    apr_array_header_t *offers = NULL;
    const char **sids;
    trv_up_status st;
    size_t i;
    int k, n = (int)json_array_size(hotels), failures = 0;

    if (!row || !stay_j || n < 1
        || !trv_watch_stay(p, trv_json_str(stay_j, "check_in"), trv_json_str(stay_j, "check_out"),
                           trv_json_str(stay_j, "occupancy"), trv_json_str(stay_j, "currency"),
                           trv_json_str(stay_j, "guest_nationality"),
                           trv_json_str(stay_j, "guest_residence"), &stay)) {
        res->outcome = TRV_JOB_DEAD;
        res->error = "payload needs a known supplier, a stay and hotels";
        return;
    }
    if (!(adapter = trv_hotel_supplier_for(env, p, rid, row, &ctx))) {
        res->outcome = TRV_JOB_DEAD;
        res->error = "the supplier is not configured here";
        return;
    }
    /* The traveller the batch's watches were created for (schedule.c
     * states one per batch to the suppliers that ask). */
    trv_hcustomer_apply_kept(&ctx, json_object_get(job->payload, "customer"));
    sids = apr_pcalloc(p, sizeof(char *) * (apr_size_t)n);
    for (i = 0; i < (size_t)n; i++) {
        sids[i] = trv_json_str(json_array_get(hotels, i), "sid");
    }
    if (defer_for_searches(env, p, &ctx, row, res)) {
        return;
    }
    memset(&err, 0, sizeof(err));
    st = adapter->offers(&ctx, &stay, sids, n, 1, &offers, &err);
    if (st == TRV_UP_UNAVAILABLE && held(env, &ctx, &err)) {
        defer(env, p, row, res, held(env, &ctx, &err), err.message);
        return;
    }
    if (st != TRV_UP_OK) {
        /* The watches stay claimed until their lease ends; the job retries
         * first, then the next cycles ask again. */
        res->outcome = TRV_JOB_RETRY;
        res->error = apr_psprintf(p, "%s offers: %s", row->name,
                                  err.message ? err.message : "failed");
        return;
    }
    for (i = 0; i < (size_t)n; i++) {
        const trv_hotel_offer *cheapest = NULL;
        for (k = 0; offers && k < offers->nelts; k++) {
            const trv_hotel_offer *o = &APR_ARRAY_IDX(offers, k, trv_hotel_offer);
            if (strcmp(o->sid, sids[i]) == 0
                && (!cheapest || o->total_minor < cheapest->total_minor)) {
                cheapest = o;
            }
        }
        failures += decide(env, p, json_array_get(hotels, i), cheapest, stay.currency) != 0;
    }
    if (failures) {
        res->outcome = TRV_JOB_RETRY;
        res->error = "recording a check failed";
    }
}
