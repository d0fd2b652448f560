/* The watch domain's routes. Paths the service document leaves open are
 * decided in docs/watches.md. Watches and mandates are the calling user's:
 * their x-idempotency-keys are too (TRV_ROUTE_USER_SCOPED). */
#include "watch.h"

const trv_route trv_watch_routes[] = {
    {"POST", "/v1/watcher/travel/hotel/watches", trv_watch_create_price,
     TRV_ROUTE_IDEMPOTENT | TRV_ROUTE_USER_SCOPED},
    {"GET", "/v1/watcher/travel/hotel/watches", trv_watch_list_price, TRV_ROUTE_OWN_QUERY},
    {"GET", "/v1/watcher/travel/hotel/watches/{id:wtc}", trv_watch_get_price, 0},
    {"DELETE", "/v1/watcher/travel/hotel/watches/{id:wtc}", trv_watch_cancel_price,
     TRV_ROUTE_IDEMPOTENT | TRV_ROUTE_USER_SCOPED},
    {"POST", "/v1/watcher/travel/hotel/trip-watches", trv_watch_create_trip,
     TRV_ROUTE_IDEMPOTENT | TRV_ROUTE_USER_SCOPED},
    {"GET", "/v1/watcher/travel/hotel/trip-watches", trv_watch_list_trip, TRV_ROUTE_OWN_QUERY},
    {"GET", "/v1/watcher/travel/hotel/trip-watches/{id:wtc}", trv_watch_get_trip, 0},
    {"DELETE", "/v1/watcher/travel/hotel/trip-watches/{id:wtc}", trv_watch_cancel_trip,
     TRV_ROUTE_IDEMPOTENT | TRV_ROUTE_USER_SCOPED},
    {"POST", "/v1/mandate/{mandate_id:mdt}/confirm", trv_watch_mandate_confirm,
     TRV_ROUTE_IDEMPOTENT | TRV_ROUTE_USER_SCOPED},
    {"POST", "/v1/watcher/webhooks", trv_watcher_webhook_put, TRV_ROUTE_IDEMPOTENT},
    {"GET", "/v1/watcher/webhooks", trv_watcher_webhook_get, 0},
    {"GET", "/v1/watcher/events", trv_watcher_events, TRV_ROUTE_OWN_QUERY},
    {NULL, NULL, NULL, 0},
};
