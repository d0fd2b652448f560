/* The watch domain's routes. Paths the service document leaves open are
 * decided in docs/watches.md. */
#include "watch.h"

const trv_route trv_watch_routes[] = {
    {"POST", "/v1/watcher/travel/hotel/watches", trv_watch_create_price, 0},
    {"GET", "/v1/watcher/travel/hotel/watches", trv_watch_list_price, TRV_ROUTE_OWN_QUERY},
    {"GET", "/v1/watcher/travel/hotel/watches/{id:wtc}", trv_watch_get_price, 0},
    {"DELETE", "/v1/watcher/travel/hotel/watches/{id:wtc}", trv_watch_cancel_price, 0},
    {"POST", "/v1/watcher/travel/hotel/trip-watches", trv_watch_create_trip, 0},
    {"GET", "/v1/watcher/travel/hotel/trip-watches", trv_watch_list_trip, TRV_ROUTE_OWN_QUERY},
    {"GET", "/v1/watcher/travel/hotel/trip-watches/{id:wtc}", trv_watch_get_trip, 0},
    {"DELETE", "/v1/watcher/travel/hotel/trip-watches/{id:wtc}", trv_watch_cancel_trip, 0},
    {"POST", "/v1/mandate/{mandate_id:mdt}/confirm", trv_watch_mandate_confirm, 0},
    {"POST", "/v1/watcher/webhooks", trv_watcher_webhook_put, 0},
    {"GET", "/v1/watcher/webhooks", trv_watcher_webhook_get, 0},
    {"GET", "/v1/watcher/events", trv_watcher_events, TRV_ROUTE_OWN_QUERY},
    {NULL, NULL, NULL, 0},
};
