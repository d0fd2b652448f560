/* Reading a price or trip watch request (pure; unit tested). */
#ifndef TRV_WATCH_INPUT_H
#define TRV_WATCH_INPUT_H

#include "hotel/supplier.h"
#include "core/errors.h"

#include <jansson.h>

typedef struct trv_watch_input {
    const char *kind;              /* "price" or "trip" */
    const char *hotel_id;          /* price */
    const char *destination;       /* trip: a plc_ id or a text */
    trv_hotel_stay stay;
    const json_t *occupancy;       /* as stored (the default filled in) */
    apr_int64_t trigger_minor;
    int auto_purchase;             /* price: auto_purchase given */
    apr_int64_t max_total_minor;
    const char *instrument;
    const json_t *contact, *rooms;
} trv_watch_input;

/* Reads body as a watch of kind ("price" or "trip"); today is days since
 * 1970-01-01 (UTC). Every problem goes to errs: any trigger type other
 * than below_total is a detail of trigger.type. */
void trv_watch_read(apr_pool_t *p, const json_t *body, const char *kind, long today,
                    trv_watch_input *in, trv_errs *errs);

#endif
