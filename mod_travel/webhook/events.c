#include "events.h"

#include <string.h>

static const char *const flight_types[] = {
    "flight.booking.confirmed", "flight.booking.failed", "flight.booking.canceled",
    "flight.booking.cancellation_rejected", "flight.booking.airline_initiated_change",
    NULL};
static const char *const hotel_types[] = {
    "hotel.booking.confirmed", "hotel.booking.canceled",
    "hotel.booking.cancellation_failed", NULL};
static const char *const none[] = {NULL};

const char *const *trv_webhook_event_types(const char *family)
{
    if (family && strcmp(family, "flight") == 0) {
        return flight_types;
    }
    if (family && strcmp(family, "hotel") == 0) {
        return hotel_types;
    }
    return none;
}

int trv_webhook_event_type_known(const char *family, const char *type)
{
    const char *const *t;
    for (t = trv_webhook_event_types(family); *t; t++) {
        if (strcmp(*t, type) == 0) {
            return 1;
        }
    }
    return 0;
}
