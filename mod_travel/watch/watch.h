/* The watch domain's shared pieces: price watches (one hotel, one stay)
 * and trip watches (a destination), their checks on the background
 * workers, the organization's watcher endpoint and event log, and the
 * auto-purchase mandates. Amounts are integer minor units of the watch's
 * currency; a watch belongs to one organization and user (404 outside). */
#ifndef TRV_WATCH_H
#define TRV_WATCH_H

#include "core/api.h"
#include "core/jobs.h"
#include "hotel/supplier.h"

/* The event family of the watcher events (travel.hotel.…). */
#define TRV_WATCH_FAMILY "travel"
#define TRV_WEV_TRIGGERED "travel.hotel.watch.triggered"
#define TRV_WEV_TRIP_TRIGGERED "travel.hotel.trip_watch.triggered"
#define TRV_WEV_PURCHASED "travel.hotel.watch.purchased"
#define TRV_WEV_PURCHASE_FAILED "travel.hotel.watch.purchase_failed"

/* Trip matches per event, cheapest first. */
#define TRV_WATCH_MAX_MATCHES 3
/* Hotels priced by one offers request. */
#define TRV_WATCH_BATCH 10
/* How long a check may run before its watches can be claimed again. */
#define TRV_WATCH_CHECK_LEASE_S 600

extern const char *const trv_watch_event_types[];

/* Job kinds: the schedule (one at a time, every TravelWatchInterval),
 * a batch of hotels of one stay priced by one supplier, one trip watch. */
extern const trv_job_spec trv_watch_schedule_job;
extern const trv_job_spec trv_watch_price_job;
extern const trv_job_spec trv_watch_trip_job;
/* An armed watch's purchase (purchase.c). */
extern const trv_job_spec trv_watch_purchase_job;
void trv_watch_purchase_run(trv_env *env, apr_pool_t *p, const trv_job *job,
                            trv_job_result *res);
void trv_watch_schedule_run(trv_env *env, apr_pool_t *p, const trv_job *job,
                            trv_job_result *res);
void trv_watch_price_run(trv_env *env, apr_pool_t *p, const trv_job *job,
                         trv_job_result *res);
void trv_watch_trip_run(trv_env *env, apr_pool_t *p, const trv_job *job,
                        trv_job_result *res);
/* Queues the schedule now unless one is queued (inside c's transaction). */
apr_status_t trv_watch_schedule_soon(trv_dbc *c, apr_pool_t *p);

/* ---- handlers ---- */
void trv_watch_create_price(trv_req *req, trv_resp *resp);
void trv_watch_create_trip(trv_req *req, trv_resp *resp);
void trv_watch_list_price(trv_req *req, trv_resp *resp);
void trv_watch_list_trip(trv_req *req, trv_resp *resp);
void trv_watch_get_price(trv_req *req, trv_resp *resp);
void trv_watch_get_trip(trv_req *req, trv_resp *resp);
void trv_watch_cancel_price(trv_req *req, trv_resp *resp);
void trv_watch_cancel_trip(trv_req *req, trv_resp *resp);
void trv_watch_mandate_confirm(trv_req *req, trv_resp *resp);
void trv_watcher_webhook_put(trv_req *req, trv_resp *resp);
void trv_watcher_webhook_get(trv_req *req, trv_resp *resp);
void trv_watcher_events(trv_req *req, trv_resp *resp);

extern const trv_route trv_watch_routes[];

/* ---- rendering (render.c) ---- */

/* The columns a watch is rendered from, selected from watches w (with
 * its place and mandate joined as in WATCH_FROM). */
#define TRV_WATCH_COLS \
    "w.id, w.kind, w.status, w.user_id, w.hotel_id, w.destination, w.place_id, " \
    "pl.name AS place_name, pl.city AS place_city, pl.country_code AS place_country, " \
    "w.check_in::text AS check_in, w.check_out::text AS check_out, " \
    "w.occupancy::text AS occupancy, w.currency, w.guest_nationality, w.trigger_type, " \
    "w.trigger_minor::text AS trigger_minor, w.max_total_minor::text AS max_total_minor, " \
    "w.mandate_id, m.status AS mandate_status, trv_ts(w.last_checked_at) AS last_checked_at, " \
    "w.last_price_minor::text AS last_price_minor, trv_ts(w.triggered_at) AS triggered_at, " \
    "trv_ts(w.created_at) AS created_at, trv_ts(w.updated_at) AS updated_at, " \
    "(w.status IN ('active', 'armed') AND w.check_in <= (now() AT TIME ZONE 'UTC')::date) " \
    "AS past_check_in"
#define TRV_WATCH_JOINS \
    " LEFT JOIN hotel_places pl ON pl.id = w.place_id " \
    "LEFT JOIN watch_mandates m ON m.id = w.mandate_id "

/* The watch of row i as the API shows it (a new reference). */
json_t *trv_watch_json(apr_pool_t *p, const trv_rows *r, int i);

/* A stay from its stored parts (check.c, trip.c). */
int trv_watch_stay(apr_pool_t *p, const char *check_in, const char *check_out,
                   const char *occupancy, const char *currency, const char *nationality,
                   const char *residence, trv_hotel_stay *stay);
/* The stay's key: watches of one hotel with equal keys share a call. */
const char *trv_watch_stay_key(apr_pool_t *p, const trv_hotel_stay *stay);

/* A context for code that reuses the hotel domain's request helpers from
 * a job: a request of the job's pool, env and organization. */
void trv_watch_job_req(trv_env *env, apr_pool_t *p, const char *request_id,
                       const char *org_id, trv_req *req, trv_resp *resp);

#endif
