/* A subscription's conditions on the payload ("filters"): an object of
 * envelope paths to the value, or list of values, the event must carry
 * there, e.g. {"data.booking.status": ["CONFIRMED", "FAILED"],
 * "data.booking.supplier": "SUPPLIER_A"}. Every path must match; a path
 * matches when the value found there equals one of its values. Checked
 * here when a subscription is saved; applied by the fan-out in the
 * database (trv_webhook_filters_match, sql/170). */
#ifndef TRV_WEBHOOK_FILTER_H
#define TRV_WEBHOOK_FILTER_H

#include "core/errors.h"

#include <apr_pools.h>
#include <jansson.h>

#define TRV_WEBHOOK_MAX_FILTERS 10
#define TRV_WEBHOOK_MAX_FILTER_VALUES 20
#define TRV_WEBHOOK_MAX_FILTER_DEPTH 8

/* Checks `filters` (a request's value: an object, or null for none) and
 * returns the stored form (every value a list; pool-bound), or NULL for
 * none. Problems go to errs under "filters" / "filters.<path>". */
json_t *trv_webhook_filters_check(apr_pool_t *p, const json_t *filters, trv_errs *errs);

#endif
