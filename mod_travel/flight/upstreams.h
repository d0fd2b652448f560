/* Reaching a flight supplier or the payment provider from a request or a
 * job: the adapter, its configuration (TravelSupplier /
 * TravelPaymentProvider) and the context the adapters take. */
#ifndef TRV_FLIGHT_UPSTREAMS_H
#define TRV_FLIGHT_UPSTREAMS_H

#include "supplier.h"
#include "payment/provider.h"

/* The adapter of a configured supplier, with *ctx filled; NULL when the
 * supplier has no adapter or no TravelSupplier line. */
const trv_flight_supplier *trv_flight_supplier_for(trv_env *env, apr_pool_t *p,
                                                   const char *request_id,
                                                   const char *name, trv_flight_ctx *ctx);

/* The routing rule when a search names no supplier: the first TravelSupplier
 * line (in configuration order) whose supplier has a flight adapter. NULL
 * when none is configured. */
const char *trv_flight_route_supplier(const trv_env *env);

#endif
