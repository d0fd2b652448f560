/* A flight booking and its payment as read from PostgreSQL: the values the
 * state machine, the renderer and the jobs work with. Strings and JSON are
 * pool-bound; money columns are exact decimal text in major units. */
#ifndef TRV_FLIGHT_BOOKING_H
#define TRV_FLIGHT_BOOKING_H

#include "state.h"
#include "lifecycle/row.h"
#include "payment/record.h"

#include <apr_tables.h>
#include <jansson.h>

/* A flight booking's payment (payment/record.h). */
typedef trv_payment_record trv_fpayment;

typedef struct trv_fbooking {
    TRV_LIFECYCLE_ROW;         /* id, org_id, ... payments, list_doc (lifecycle/row.h) */
    trv_fb_status status;
    const char *fare_amount, *fare_tax_amount, *services_amount;
    const char *expires_at;    /* wire timestamp or NULL (past_expiry: it has passed) */
    json_t *passengers, *journeys, *services;
    json_t *fare_conditions, *hold;
    json_t *cancellation, *changes;
    const char *supplier_reference;
    const char *airline_pnr;
    trv_fb_phase book_phase;
    int sync_due;              /* CONFIRMED and not read from the supplier lately */
} trv_fbooking;

#endif
