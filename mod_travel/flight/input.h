/* The request bodies of the flight endpoints, checked field by field (every
 * problem reported in one 422) and normalized for the code behind them. */
#ifndef TRV_FLIGHT_INPUT_H
#define TRV_FLIGHT_INPUT_H

#include "core/errors.h"

#include <apr_time.h>
#include <jansson.h>

#define TRV_OFFERS_DEFAULT_LIMIT 20
#define TRV_OFFERS_MAX_LIMIT 100

/* POST /v1/flight/offers */
typedef struct trv_offers_input {
    json_t *query;         /* for the supplier: {journeys, passengers, cabin_class?, limit} */
    const char *supplier;  /* NULL: the routing rule picks */
    long limit;
    int max_stops;         /* -1: no filter */
    json_t *carriers;      /* filters.carriers (upper-case codes) or NULL */
    json_t *unsupported;   /* names of filters given that no supplier applies */
    int adults, children, infants;
} trv_offers_input;

/* today: the current time (dates may not be before yesterday, UTC, nor more
 * than 365 days ahead); suppliers: the configured wire names a search may
 * name (NULL-terminated). All json is pool-bound. */
void trv_finput_offers(apr_pool_t *p, const json_t *body, apr_time_t now,
                       const char *const *suppliers, trv_offers_input *in,
                       trv_errs *errs);

/* POST /v1/flight/prebook */
typedef struct trv_prebook_input {
    const char *offer_reference;
    json_t *contact;        /* {first_name, last_name, email, phone_number, phone_country_code} */
    json_t *passengers;     /* [{first_name, last_name, birthday, type, gender,
                             *   nationality?, loyalty_accounts[]}] */
    json_t *services;       /* [{id, quantity}] */
    int use_payment_sdk;
    int adults, children, infants;  /* counted from passengers[].type */
} trv_prebook_input;

void trv_finput_prebook(apr_pool_t *p, const json_t *body, apr_time_t now,
                        trv_prebook_input *in, trv_errs *errs);

/* POST /v1/flight/bookings/{id}/book: {payment_instrument_id} or {}.
 * Returns the instrument or NULL. */
const char *trv_finput_book(apr_pool_t *p, const json_t *body, trv_errs *errs);

#endif
