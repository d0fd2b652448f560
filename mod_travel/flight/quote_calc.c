#include "quote_calc.h"

#include <string.h>

static json_t *no_policy(const char *quoted_at)
{
    return json_pack("{s:s,s:b,s:s,s:s}", "source", TRV_QUOTE_ESTIMATE, "is_free", 0,
                     "quoted_at", quoted_at, "unavailable_reason", "no_policy");
}

json_t *trv_fquote_calc_estimate(apr_pool_t *p, const trv_money *total,
                                 const json_t *fare_conditions,
                                 const json_t *cancellation_policy, const char *quoted_at)
{
    const json_t *refund = json_object_get(fare_conditions, "refund");
    const json_t *allowed = json_object_get(refund, "allowed");
    const json_t *penalty_json = json_object_get(refund, "penalty");
    trv_money fee, refundable;
    const char *reason;
    (void)p;

    if (!json_is_boolean(allowed)) {
        allowed = json_object_get(cancellation_policy, "refundable");
        penalty_json = json_object_get(cancellation_policy, "penalty");
    }
    if (!json_is_boolean(allowed) || !total || total->minor < 0) {
        return no_policy(quoted_at);
    }
    fee = *total;
    if (json_is_true(allowed)) {
        if (trv_money_from_json(penalty_json, &fee, &reason) != APR_SUCCESS
            || strcmp(fee.currency, total->currency) != 0 || fee.minor < 0) {
            return no_policy(quoted_at);
        }
        if (fee.minor > total->minor) {
            fee.minor = total->minor;
        }
    }
    refundable = *total;
    refundable.minor = total->minor - fee.minor;
    return json_pack("{s:s,s:b,s:o,s:o,s:s}", "source", TRV_QUOTE_ESTIMATE,
                     "is_free", fee.minor == 0, "fee", trv_money_json(&fee),
                     "refundable_amount", trv_money_json(&refundable),
                     "quoted_at", quoted_at);
}

json_t *trv_fquote_calc_supplier(apr_pool_t *p, const json_t *quote,
                                 const char *quoted_at)
{
    const json_t *fee_json = json_object_get(quote, "fee");
    const json_t *ref_json = json_object_get(quote, "refundable_amount");
    trv_money fee, refundable;
    const char *reason;
    int has_fee = fee_json && !json_is_null(fee_json);
    int has_ref = ref_json && !json_is_null(ref_json);
    json_t *out;
    (void)p;

    if (!has_fee && !has_ref) {
        return NULL;
    }
    if ((has_fee && (trv_money_from_json(fee_json, &fee, &reason) != APR_SUCCESS
                     || fee.minor < 0))
        || (has_ref && (trv_money_from_json(ref_json, &refundable, &reason) != APR_SUCCESS
                        || refundable.minor < 0))) {
        return NULL;
    }
    out = json_pack("{s:s,s:b}", "source", TRV_QUOTE_SUPPLIER, "is_free",
                    has_fee && fee.minor == 0);
    if (has_fee) {
        json_object_set_new(out, "fee", trv_money_json(&fee));
    }
    if (has_ref) {
        json_object_set_new(out, "refundable_amount", trv_money_json(&refundable));
    }
    json_object_set_new(out, "quoted_at", json_string(quoted_at));
    return out;
}
