/* What the hotel domain brings so far: the place routes (api.c) and the
 * event types its webhook subscriptions (/v1/hotel/webhook-subscriptions,
 * served by the webhook domain for every family that emits events) accept.
 * Its jobs and supplier rows join this table as the hotel flow is built. */
#include "domain.h"
#include "api.h"
#include "events.h"

static const char *const event_types[] = {
    TRV_HEV_CONFIRMED, TRV_HEV_CANCELED, TRV_HEV_CANCELLATION_FAILED, NULL,
};

const trv_domain trv_hotel_domain = {
    "hotel",
    trv_hotel_routes,
    NULL,
    event_types,
    NULL,
    NULL,
};
