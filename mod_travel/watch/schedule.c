/* The watch schedule: one job kind, watch.schedule, of which at most one
 * is queued or running at a time (its dedupe key), on any worker of any
 * instance. Each run:
 *   1. hands its key to the next run, due TravelWatchInterval later (or
 *      at once when it could not take every due watch);
 *   2. stores expired for the watches whose check_in has come;
 *   3. claims the due watches, in stay and hotel order so that one run
 *      holds all the watches of a hotel-stay (FOR UPDATE SKIP LOCKED, a check lease in
 *      checking_until, the next check one interval later), so no watch is
 *      in two checks at once across children and instances;
 *   4. queues their checks: price watches grouped by stay and hotel (all
 *      the watches of one hotel and stay share one supplier call), each
 *      hotel priced by the first configured supplier (registry order) that
 *      sells it, ten hotels per watch.price job (one offers request); one
 *      watch.trip job per trip watch. A supplier that asks who the
 *      traveller is (TRV_SUP_TRAVELLER: Expedia Rapid) gets one call per
 *      traveller kept with the watches (watches.customer), stated in the
 *      job's payload, so no watch's check goes out as another's traveller.
 * All of it in one transaction: the claims exist exactly when their
 * checks are queued. The chain stops when no watch is active or armed;
 * creating a watch starts it again. */
#include "watch.h"
#include "core/json.h"
#include "core/log.h"

#include <apr_hash.h>
#include <apr_strings.h>
#include <string.h>

#define CLAIM_LIMIT 20000
const trv_job_spec trv_watch_schedule_job = {"watch.schedule", 5};
/* One schedule job at a time: its kind is its dedupe key. */
#define SCHEDULE_KEY (trv_watch_schedule_job.kind)
const trv_job_spec trv_watch_price_job = {"watch.price", 3};
const trv_job_spec trv_watch_trip_job = {"watch.trip", 3};

static const trv_stmt handover_stmt = {"trv_watch_sched_handover",
    "UPDATE jobs SET dedupe_key = NULL WHERE id = %s::bigint AND locked_by = %s"};
static const trv_stmt expire_stmt = {"trv_watch_expire",
    "UPDATE watches SET status = 'expired', checking_until = NULL, updated_at = trv_now() "
    "WHERE status IN ('active', 'armed') AND check_in <= (now() AT TIME ZONE 'UTC')::date"};
static const trv_stmt claim_stmt = {"trv_watch_claim",
    "WITH due AS (SELECT id FROM watches WHERE status IN ('active', 'armed') "
    "AND next_check_at <= now() AND (checking_until IS NULL OR checking_until < now()) "
    "ORDER BY stay_key, hotel_id LIMIT %s::int FOR UPDATE SKIP LOCKED) "
    "UPDATE watches w SET checking_until = now() + %s::int * interval '1 second', "
    "next_check_at = now() + %s::bigint * interval '1 microsecond' FROM due WHERE w.id = due.id "
    "RETURNING w.id, w.kind, w.hotel_id, w.stay_key, w.check_in::text AS check_in, "
    "w.check_out::text AS check_out, w.occupancy::text AS occupancy, w.currency, "
    "w.guest_nationality, w.guest_residence, w.customer::text AS customer"};
static const trv_stmt sellers_stmt = {"trv_watch_sellers",
    "SELECT hotel_id, supplier, supplier_hotel_id FROM hotel_supplier_ids "
    "WHERE hotel_id = ANY (string_to_array(%s, ' '))"};
static const trv_stmt release_stmt = {"trv_watch_release",
    "UPDATE watches SET checking_until = NULL WHERE id = ANY (string_to_array(%s, ' '))"};
static const trv_stmt any_stmt = {"trv_watch_any_active",
    "SELECT EXISTS (SELECT 1 FROM watches WHERE status IN ('active', 'armed')) AS any"};

apr_status_t trv_watch_schedule_soon(trv_dbc *c, apr_pool_t *p)
{
    return trv_job_enqueue_spec(c, p, &trv_watch_schedule_job, NULL, 0, SCHEDULE_KEY, NULL);
}

/* One hotel of one stay: its watches. */
typedef struct hotel_stay {
    const char *hotel_id;
    int row;                 /* a claimed row of the stay (its stored parts) */
    json_t *watches;         /* ids */
    json_t *customers;       /* each watch's traveller as stored (text), or null */
} hotel_stay;

static const trv_supplier *hotel_rows(const trv_env *env)
{
    return trv_hotel_supplier_rows(env);
}

/* Who prices a hotel: the first configured supplier, in registry order,
 * that sells it; sets *sid. */
static const trv_supplier *seller(const trv_env *env, const trv_rows *s, const char *hotel,
                                  const char **sid)
{
    const trv_supplier *row;
    int k;
    for (row = hotel_rows(env); row && row->name; row++) {
        if (!trv_config_hotel_upstream(env->cfg, row->name)) {
            continue;
        }
        for (k = 0; k < s->n; k++) {
            if (strcmp(trv_rows_get(s, k, "hotel_id"), hotel) == 0
                && strcmp(trv_rows_get(s, k, "supplier"), row->name) == 0) {
                *sid = trv_rows_get(s, k, "supplier_hotel_id");
                return row;
            }
        }
    }
    return NULL;
}

static json_t *stay_json(const trv_rows *r, int i)
{
    return json_pack("{s:s,s:s,s:s,s:s,s:s,s:s}", "check_in", trv_rows_get(r, i, "check_in"),
                     "check_out", trv_rows_get(r, i, "check_out"), "occupancy",
                     trv_rows_get(r, i, "occupancy"), "currency",
                     trv_rows_get(r, i, "currency"), "guest_nationality",
                     trv_rows_get(r, i, "guest_nationality"), "guest_residence",
                     trv_rows_get(r, i, "guest_residence"));
}

/* Adds hotel h's watches (of one traveller, customer: the stored text,
 * NULL for none or when the supplier does not ask) to the batch of its
 * stay, supplier and traveller in batches (key -> payload), queueing the
 * batch once it holds TRV_WATCH_BATCH hotels. */
static apr_status_t add_to_batch(trv_dbc *c, apr_pool_t *p, apr_hash_t *batches,
                                 const trv_rows *r, const hotel_stay *h,
                                 const trv_supplier *row, const char *sid, json_t *watches,
                                 const char *customer, int *jobs)
{
    const char *bkey = apr_pstrcat(p, trv_rows_get(r, h->row, "stay_key"), "#", row->name,
                                   customer ? "#" : "", customer ? customer : "", NULL);
    json_t *batch = apr_hash_get(batches, bkey, APR_HASH_KEY_STRING), *list;
    apr_status_t rv;
    if (!batch) {
        batch = trv_json_bind(p, json_pack("{s:s,s:o,s:[]}", "supplier", row->name,
                                           "stay", stay_json(r, h->row), "hotels"));
        if (customer) {
            json_t *who = trv_json_parse(p, customer, strlen(customer), NULL);
            json_object_set(batch, "customer", who ? who : json_null());
        }
        apr_hash_set(batches, bkey, APR_HASH_KEY_STRING, batch);
    }
    list = json_object_get(batch, "hotels");
    json_array_append_new(list, json_pack("{s:s,s:s,s:O}", "hotel_id", h->hotel_id,
                                          "sid", sid, "watches", watches));
    if (json_array_size(list) == TRV_WATCH_BATCH) {
        if ((rv = trv_job_enqueue_spec(c, p, &trv_watch_price_job, batch, 0, NULL, NULL))
            != APR_SUCCESS) {
            return rv;
        }
        (*jobs)++;
        apr_hash_set(batches, bkey, APR_HASH_KEY_STRING, NULL);
    }
    return APR_SUCCESS;
}

/* Queues the checks of the claimed rows; the ids of watches nobody can
 * price now go to *unpriced (space-separated). */
static apr_status_t queue_checks(trv_env *env, trv_dbc *c, apr_pool_t *p, const trv_rows *r,
                                 const char **unpriced, int *jobs)
{
    apr_hash_t *by = apr_hash_make(p);        /* stay_key|hotel -> hotel_stay */
    apr_array_header_t *order = apr_array_make(p, 64, sizeof(hotel_stay *));
    apr_hash_t *batches = apr_hash_make(p);   /* stay_key|supplier -> json payload */
    const char *hotels = "";
    trv_rows *s;
    apr_status_t rv;
    int i;

    *unpriced = "";
    *jobs = 0;
    for (i = 0; i < r->n; i++) {
        const char *id = trv_rows_get(r, i, "id");
        hotel_stay *h;
        const char *key;
        if (strcmp(trv_rows_get(r, i, "kind"), "trip") == 0) {
            json_t *pl = trv_json_bind(p, json_pack("{s:s}", "watch_id", id));
            key = apr_pstrcat(p, trv_watch_trip_job.kind, ":", id, NULL);
            if ((rv = trv_job_enqueue_spec(c, p, &trv_watch_trip_job, pl, 0, key, NULL))
                != APR_SUCCESS) {
                return rv;
            }
            (*jobs)++;
            continue;
        }
        key = apr_pstrcat(p, trv_rows_get(r, i, "stay_key"), "#",
                          trv_rows_get(r, i, "hotel_id"), NULL);
        if (!(h = apr_hash_get(by, key, APR_HASH_KEY_STRING))) {
            h = apr_pcalloc(p, sizeof(*h));
            h->hotel_id = trv_rows_get(r, i, "hotel_id");
            h->row = i;
            h->watches = trv_json_bind(p, json_array());
            h->customers = trv_json_bind(p, json_array());
            apr_hash_set(by, key, APR_HASH_KEY_STRING, h);
            APR_ARRAY_PUSH(order, hotel_stay *) = h;
            hotels = apr_pstrcat(p, hotels, *hotels ? " " : "", h->hotel_id, NULL);
        }
        json_array_append_new(h->watches, json_string(id));
        json_array_append_new(h->customers, trv_rows_get(r, i, "customer")
                                                ? json_string(trv_rows_get(r, i, "customer"))
                                                : json_null());
    }
    if (!order->nelts) {
        return APR_SUCCESS;
    }
    if ((rv = trv_db_select(c, p, &sellers_stmt, &s, TRV_DB_ARGS(hotels))) != APR_SUCCESS) {
        return rv;
    }
    for (i = 0; i < order->nelts; i++) {
        hotel_stay *h = APR_ARRAY_IDX(order, i, hotel_stay *);
        const char *sid = NULL;
        const trv_supplier *row = seller(env, s, h->hotel_id, &sid);
        size_t k;
        if (!row) {
            for (k = 0; k < json_array_size(h->watches); k++) {
                *unpriced = apr_pstrcat(p, *unpriced, **unpriced ? " " : "",
                                        json_string_value(json_array_get(h->watches, k)),
                                        NULL);
            }
            continue;
        }
        if (!trv_supplier_can(row, TRV_SUP_TRAVELLER)) {
            if ((rv = add_to_batch(c, p, batches, r, h, row, sid, h->watches, NULL, jobs))
                != APR_SUCCESS) {
                return rv;
            }
            continue;
        }
        /* A supplier that asks for the traveller: one call per traveller,
         * each stating its own watches' (the one stored with them). */
        for (k = 0; k < json_array_size(h->watches); k++) {
            const char *who = json_string_value(json_array_get(h->customers, k));
            json_t *mine = trv_json_bind(p, json_array());
            size_t m;
            if (json_is_true(json_array_get(h->customers, k))) {
                continue; /* taken with an earlier watch of the same traveller */
            }
            for (m = k; m < json_array_size(h->watches); m++) {
                const char *theirs = json_string_value(json_array_get(h->customers, m));
                if (json_is_true(json_array_get(h->customers, m))
                    || (who ? !theirs || strcmp(who, theirs) != 0 : theirs != NULL)) {
                    continue;
                }
                json_array_append(mine, json_array_get(h->watches, m));
                if (m > k) {
                    json_array_set_new(h->customers, m, json_true());
                }
            }
            if ((rv = add_to_batch(c, p, batches, r, h, row, sid, mine, who, jobs))
                != APR_SUCCESS) {
                return rv;
            }
        }
    }
    {
        apr_hash_index_t *hi;
        for (hi = apr_hash_first(p, batches); hi; hi = apr_hash_next(hi)) {
            void *v;
            apr_hash_this(hi, NULL, NULL, &v);
            if ((rv = trv_job_enqueue_spec(c, p, &trv_watch_price_job, v, 0, NULL, NULL))
                != APR_SUCCESS) {
                return rv;
            }
            (*jobs)++;
        }
    }
    return APR_SUCCESS;
}

void trv_watch_schedule_run(trv_env *env, apr_pool_t *p, const trv_job *job,
                            trv_job_result *res)
{
    apr_interval_time_t every = env->cfg->watch_interval > 0 ? env->cfg->watch_interval
                                                              : TRV_DEFAULT_WATCH_INTERVAL;
    const char *unpriced = "";
    trv_dbc *c;
    trv_rows *r, *any;
    int jobs = 0;

    if (!trv_job_db_open(env, p, &c, res)) {
        return;
    }
    if (trv_db_begin(c, p) != APR_SUCCESS
        || trv_db_exec(c, p, &handover_stmt, NULL, TRV_DB_ARGS(job->id, job->worker))
               != APR_SUCCESS
        || trv_db_exec(c, p, &expire_stmt, NULL, 0, NULL) != APR_SUCCESS
        || trv_db_select(c, p, &claim_stmt, &r,
                         TRV_DB_ARGS(apr_itoa(p, CLAIM_LIMIT),
                                     apr_itoa(p, TRV_WATCH_CHECK_LEASE_S),
                                     apr_psprintf(p, "%" APR_INT64_T_FMT, (apr_int64_t)every)))
               != APR_SUCCESS
        || queue_checks(env, c, p, r, &unpriced, &jobs) != APR_SUCCESS
        || (*unpriced && trv_db_exec(c, p, &release_stmt, NULL, TRV_DB_ARGS(unpriced))
                             != APR_SUCCESS)
        || trv_db_select(c, p, &any_stmt, &any, 0, NULL) != APR_SUCCESS
        || (trv_rows_bool(any, 0, "any")
            && trv_job_enqueue_spec(c, p, &trv_watch_schedule_job, NULL,
                                    r->n >= CLAIM_LIMIT ? 0 : every, SCHEDULE_KEY, NULL)
                   != APR_SUCCESS)
        || trv_db_commit(c) != APR_SUCCESS) {
        res->outcome = TRV_JOB_RETRY;
        res->error = apr_pstrdup(p, c->error ? c->error : "failed");
        trv_log_msg(&env->log, TRV_LOG_WARNING, NULL,
                    TRVLOGNO(1540) "watch schedule: %s", res->error);
        if (c->in_txn) {
            trv_db_rollback(c);
        }
        trv_db_close(env->db, c);
        return;
    }
    trv_db_close(env->db, c);
    if (jobs) {
        trv_env_wake(env);
    }
    TRV_DEBUG(&env->log, NULL, "watch schedule: %d watches claimed, %d checks queued", r->n,
              jobs);
}
