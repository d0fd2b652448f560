/* Reading the parts of hotel requests that search and offers share: the
 * stay (dates, rooms and their guests, the guests' market, the currency).
 * Pure functions of the JSON and today's date, so they are unit tested. */
#ifndef TRV_HOTEL_INPUT_H
#define TRV_HOTEL_INPUT_H

#include "supplier.h"
#include "core/errors.h"

#include <jansson.h>

/* Check-in from today (UTC) to this many days ahead. */
#define TRV_HOTEL_MAX_DAYS_AHEAD 500
/* Nights of a stay the API accepts; a supplier may accept fewer. */
#define TRV_HOTEL_MAX_NIGHTS 99

/* Reads check_in, check_out, occupancy[], guest_nationality,
 * guest_residence and currency from body into *stay; today is the number
 * of days since 1970-01-01 (UTC). Every problem goes to errs. */
void trv_hotel_read_stay(apr_pool_t *p, const json_t *body, long today,
                         trv_hotel_stay *stay, trv_errs *errs);

/* The nights limit of the suppliers asked (0: the API's own). */
void trv_hotel_check_nights(const trv_hotel_stay *stay, const trv_supplier *row,
                            trv_errs *errs);

/* "YYYY-MM-DD" -> days since 1970-01-01, or -1. */
long trv_hotel_day(const char *s);

#endif
