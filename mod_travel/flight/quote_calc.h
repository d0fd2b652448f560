/* The cancellation quote's money: the airline's own quote as the API shows
 * it, or the FARE_RULES_ESTIMATE computed from the fare terms stored at
 * prebook when the airline cannot answer. */
#ifndef TRV_FLIGHT_QUOTE_CALC_H
#define TRV_FLIGHT_QUOTE_CALC_H

#include "core/money.h"

#include <apr_pools.h>
#include <jansson.h>

#define TRV_QUOTE_SUPPLIER "SUPPLIER_QUOTE"
#define TRV_QUOTE_ESTIMATE "FARE_RULES_ESTIMATE"

/* The estimate from the stored terms (a new reference):
 *  - refund allowed with a penalty in the booking's currency: fee = the
 *    penalty (at most the total), refundable_amount = total - fee,
 *    is_free = (fee == 0);
 *  - refund not allowed: fee = the total, refundable_amount = 0;
 *  - no usable terms (none stored, no "allowed", a penalty missing or in
 *    another currency): unavailable_reason "no_policy", no money fields,
 *    is_free false (an unknown fee is not a free cancellation).
 * fare_conditions.refund is used first, else cancellation_policy
 * {refundable, penalty}. quoted_at is the wire timestamp to show. */
json_t *trv_fquote_calc_estimate(apr_pool_t *p, const trv_money *total,
                                 const json_t *fare_conditions,
                                 const json_t *cancellation_policy, const char *quoted_at);

/* The airline's quote {fee?, refundable_amount?} as the API shows it (a new
 * reference), or NULL when it is not usable (malformed money, or neither
 * amount present). is_free is true only for a fee of exactly zero. */
json_t *trv_fquote_calc_supplier(apr_pool_t *p, const json_t *quote,
                                 const char *quoted_at);

#endif
