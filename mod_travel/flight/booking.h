/* A flight booking and its payment as read from PostgreSQL: the values the
 * state machine, the renderer and the jobs work with. Strings and JSON are
 * pool-bound; money columns are exact decimal text in major units. */
#ifndef TRV_FLIGHT_BOOKING_H
#define TRV_FLIGHT_BOOKING_H

#include "state.h"
#include "payment/record.h"

#include <apr_tables.h>
#include <jansson.h>

/* A flight booking's payment (payment/record.h). */
typedef trv_payment_record trv_fpayment;

typedef struct trv_fbooking {
    const char *id;
    const char *org_id;
    const char *user_id;
    const char *supplier;
    trv_fb_status status;
    const char *currency;
    const char *total_amount, *fare_amount, *fare_tax_amount, *services_amount;
    const char *expires_at;    /* wire timestamp or NULL */
    int past_expiry;           /* READY_FOR_COMPLETE and expires_at has passed */
    const char *idempotency_key;
    const char *request_hash;
    const char *offer_reference;
    int use_payment_sdk;
    const char *sdk_token;
    json_t *contact, *passengers, *journeys, *services;
    json_t *fare_conditions, *cancellation_policy, *supplier_data, *hold;
    json_t *failure, *cancellation, *changes;
    const char *supplier_reference;
    const char *airline_pnr;
    const char *confirmed_at, *canceled_at, *created_at, *updated_at;
    trv_fb_phase book_phase;
    const char *phase_owner;
    int phase_due;             /* phase_deadline has passed */
    int book_attempt;
    const char *payment_instrument_id;
    int cancel_attempt;
    int sync_due;              /* CONFIRMED and not read from the supplier lately */
    apr_array_header_t *payments; /* trv_fpayment, oldest first; NULL until loaded */
    const char *revision;      /* raised by every change to the booking or its payments */
    const char *list_doc;      /* list: its stored rendering for this revision, if any */
} trv_fbooking;

#endif
