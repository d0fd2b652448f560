/* What the watch domain brings: its routes (api.c), its job kinds (the
 * schedule, the price and trip checks, the purchase) and the watcher event
 * types. Its events are of the family "travel"
 * (travel.hotel.…) and go to the organization's watcher endpoint
 * (POST /v1/watcher/webhooks), not to webhook subscriptions: no
 * /v1/travel/webhook-subscriptions routes are made for it. */
#include "domain.h"
#include "watch.h"

const char *const trv_watch_event_types[] = {
    TRV_WEV_TRIGGERED, TRV_WEV_TRIP_TRIGGERED, TRV_WEV_PURCHASED, TRV_WEV_PURCHASE_FAILED,
    NULL,
};

static const trv_job_def jobs[] = {
    {&trv_watch_schedule_job, trv_watch_schedule_run},
    {&trv_watch_price_job, trv_watch_price_run},
    {&trv_watch_trip_job, trv_watch_trip_run},
    {&trv_watch_purchase_job, trv_watch_purchase_run},
    {NULL, NULL},
};

const trv_domain trv_watch_domain = {
    "watch",
    trv_watch_routes,
    jobs,
    trv_watch_event_types,
    NULL,
    NULL,
    TRV_WATCH_FAMILY,
    TRV_DOMAIN_OWN_ENDPOINT,
};
