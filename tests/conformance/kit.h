/* The conformance kit's shared pieces (conformance.c): the supplier line
 * under test, the environment its adapter runs in, and the checks' common
 * assertions. The flight checks are in flight.c, the hotel checks in
 * hotel.c. */
#ifndef TRV_CONFORMANCE_KIT_H
#define TRV_CONFORMANCE_KIT_H

#include "core/config.h"
#include "core/env.h"
#include "core/registry.h"
#include "core/upstream.h"

#include <jansson.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

extern apr_pool_t *kit_root;         /* lives as long as the run */
extern apr_pool_t *kit_pool;         /* one check's */
extern trv_env kit_env;
extern trv_config kit_cfg;
extern trv_upstream kit_up;          /* the line under test */
extern const trv_supplier *kit_row;  /* its protocol's row */
extern const char *kit_rid;          /* x-request-id of every call */
extern int kit_booking;              /* CONFORMANCE_BOOK */
extern int kit_days;                 /* CONFORMANCE_DAYS */
extern const char *kit_instrument;   /* PAYMENT_INSTRUMENT */

/* The variable's value, or dflt when unset or empty. */
const char *kit_env_or(const char *name, const char *dflt);
/* Fails the check unless st is wanted, with the adapter's code and message
 * (passed by address: read after the call that fills them, whatever order
 * the arguments are evaluated in). */
void kit_want(trv_up_status st, trv_up_status wanted, const char *what,
              const char *const *code, const char *const *message);
/* A Money object's amount in minor units (fails the check when it is not Money). */
apr_int64_t kit_money_minor(const json_t *m, const char *what);
/* "452.55 GBP", exactly as read. */
const char *kit_money_text(const json_t *m);
/* Fails the check unless s is an RFC 3339 instant in the future. */
void kit_future_instant(const char *s, const char *what);
/* YYYY-MM-DD, n days from today (UTC). */
const char *kit_date_ahead(int n);
const char *kit_str(const json_t *o, const char *k);

/* cmocka set-up and tear-down of every check: kit_pool. */
int kit_per_check(void **state);
int kit_after_check(void **state);

extern const struct CMUnitTest kit_flight_checks[];
extern const size_t kit_flight_n;
extern const struct CMUnitTest kit_hotel_checks[];
extern const size_t kit_hotel_n;

#endif
