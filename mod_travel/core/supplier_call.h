/* What a call to a supplier adapter carries, whatever its domain: the
 * environment, the pool its answers are bound to, the request it is made
 * for, the supplier's configured line and, for the calls of a booking's
 * lifecycle, that booking (each such call is recorded, core/call_log.h);
 * and how an adapter says what went wrong. A domain's context
 * (flight/supplier.h's trv_flight_ctx, hotel/supplier.h's trv_hotel_ctx)
 * starts with TRV_SUPPLIER_CALL and adds what only its adapters read; its
 * error type is trv_supplier_err. */
#ifndef TRV_SUPPLIER_CALL_H
#define TRV_SUPPLIER_CALL_H

#include "upstream.h"

/* One list for the named struct and the anonymous one, so both lay out alike. */
#define TRV_SUPPLIER_CALL_FIELDS \
    trv_env *env; \
    apr_pool_t *pool; \
    const char *request_id;      /* sent upstream as x-request-id */ \
    const trv_upstream *up;      /* this supplier's configured line */ \
    const char *org_id, *booking_id; /* a booking's lifecycle call: recorded */

typedef struct trv_supplier_call {
    TRV_SUPPLIER_CALL_FIELDS
} trv_supplier_call;

/* The first member of a domain's context: the fields by name (ctx->up)
 * and as one (ctx->call). */
#define TRV_SUPPLIER_CALL \
    union { \
        trv_supplier_call call; \
        struct { \
            TRV_SUPPLIER_CALL_FIELDS \
        }; \
    }

/* A result other than TRV_UP_OK, as an adapter reports it: the
 * supplier's code (or the status's name) and a sentence. */
typedef struct trv_supplier_err {
    const char *code;
    const char *message;
} trv_supplier_err;

/* call for a request of env to the supplier line up, its answers bound to
 * p; no booking (org_id, booking_id NULL). The caller zeroes the rest of
 * its context. */
void trv_supplier_call_start(trv_supplier_call *call, trv_env *env, apr_pool_t *p,
                             const char *request_id, const trv_upstream *up);

#endif
