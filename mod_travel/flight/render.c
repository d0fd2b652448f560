#include "render.h"
#include "mask.h"
#include "state.h"
#include "core/json.h"
#include "core/money.h"

#include <string.h>

json_t *trv_frender_money_json(const char *amount, const char *currency)
{
    trv_money m;
    int exponent = trv_currency_exponent(currency);
    if (!amount || exponent < 0
        || trv_money_parse_decimal(amount, exponent, &m.minor) != APR_SUCCESS) {
        return json_null();
    }
    memcpy(m.currency, currency, 4);
    return trv_money_json(&m);
}

static json_t *copy_or_null(const json_t *v)
{
    return v ? json_deep_copy(v) : json_null();
}

/* The fields of the service document's table, in its order (stored JSON
 * comes back from jsonb in jsonb's key order, and may carry more). */
static json_t *pick(const json_t *src, const char *const *keys)
{
    json_t *o = json_object();
    for (; *keys; keys++) {
        json_object_set_new(o, *keys, copy_or_null(json_object_get(src, *keys)));
    }
    return o;
}

static json_t *pick_or_null(const json_t *src, const char *const *keys)
{
    return json_is_object(src) ? pick(src, keys) : json_null();
}

static const char *const journey_keys[] = {"id", "origin", "destination", "direction",
    "fare_brand", "departure_time", "arrival_time", "duration_minutes", "stops", NULL};
static const char *const segment_keys[] = {"id", "origin", "destination", "departure_time",
    "arrival_time", "marketing_flight", "marketing_carrier", "marketing_carrier_logo_url",
    "operating_carrier", "operating_carrier_logo_url", "duration_minutes", NULL};
static const char *const seg_pax_keys[] = {"passenger_id", "cabin_class", "cabin_name",
    "checked_bags", "carry_on_bags", NULL};
static const char *const card_keys[] = {"brand", "last4", "funding", "wallet", NULL};
static const char *const policy_keys[] = {"refundable", "penalty", NULL};
static const char *const rule_keys[] = {"allowed", "penalty", NULL};
static const char *const cancellation_keys[] = {"fee", "refunded_by", "refund_amount",
    "refund_to", NULL};
static const char *const failure_keys[] = {"code", "description", NULL};
static const char *const baggage_keys[] = {"type", "max_weight_kg", NULL};

static json_t *journeys_json(const json_t *stored)
{
    json_t *out = json_array();
    size_t i, j, k;
    for (i = 0; i < json_array_size(stored); i++) {
        const json_t *jn = json_array_get(stored, i);
        const json_t *segs = json_object_get(jn, "segments");
        json_t *o = pick(jn, journey_keys), *so = json_array();
        for (j = 0; j < json_array_size(segs); j++) {
            const json_t *seg = json_array_get(segs, j);
            const json_t *pax = json_object_get(seg, "passengers");
            json_t *x = pick(seg, segment_keys), *px = json_array();
            for (k = 0; k < json_array_size(pax); k++) {
                json_array_append_new(px, pick(json_array_get(pax, k), seg_pax_keys));
            }
            json_object_set_new(x, "passengers", px);
            json_array_append_new(so, x);
        }
        json_object_set_new(o, "segments", so);
        json_array_append_new(out, o);
    }
    return out;
}

static json_t *fare_conditions_json(const json_t *fc)
{
    if (!json_is_object(fc)) {
        return json_null();
    }
    return json_pack("{s:o,s:o}", "refund", pick_or_null(json_object_get(fc, "refund"),
                                                         rule_keys),
                     "change", pick_or_null(json_object_get(fc, "change"), rule_keys));
}

static json_t *payment_json(const trv_fpayment *pay, int mode)
{
    int full = mode == TRV_RENDER_FULL;
    return trv_payment_record_json(pay, trv_frender_money_json(pay->amount, pay->currency), full,
                                   full && pay->card ? pick(pay->card, card_keys) : NULL);
}

static const char *captured_payment(const trv_fbooking *b)
{
    int i;
    for (i = 0; b->payments && i < b->payments->nelts; i++) {
        const trv_fpayment *pay = &APR_ARRAY_IDX(b->payments, i, trv_fpayment);
        if (pay->status == TRV_PAY_CAPTURED) {
            return pay->id;
        }
    }
    return NULL;
}

/* A bag's status in the booking's (wire text: the service document's). */
static const char *service_status(trv_fb_status booking_status)
{
    switch (booking_status) {
    case TRV_FB_CONFIRMED:
    case TRV_FB_CANCELING:
        return "CONFIRMED";
    case TRV_FB_CANCELED:
        return "CANCELED";
    case TRV_FB_CREATED:
    case TRV_FB_PREBOOK_IN_PROGRESS:
    case TRV_FB_READY:
    case TRV_FB_COMPLETING:
    case TRV_FB_FAILED:
    case TRV_FB_EXPIRED:
        return "PENDING";
    }
    return "PENDING";
}

static json_t *services_json(const trv_fbooking *b, trv_fb_status status)
{
    json_t *out = json_array();
    const char *pay = captured_payment(b);
    size_t i;
    for (i = 0; i < json_array_size(b->services); i++) {
        const json_t *s = json_array_get(b->services, i);
        json_array_append_new(out, json_pack("{s:o,s:s,s:o,s:o,s:o,s:o,s:o,s:o,s:s,s:o}",
            "id", copy_or_null(json_object_get(s, "id")),
            "status", service_status(status),
            "passenger_id", copy_or_null(json_object_get(s, "passenger_id")),
            "segment_ids", copy_or_null(json_object_get(s, "segment_ids")),
            "quantity", copy_or_null(json_object_get(s, "quantity")),
            "unit_amount", copy_or_null(json_object_get(s, "unit_amount")),
            "total_amount", copy_or_null(json_object_get(s, "total_amount")),
            "payment_id", pay ? json_string(pay) : json_null(),
            "type", "BAGGAGE",
            "baggage", pick_or_null(json_object_get(s, "baggage"), baggage_keys)));
    }
    return out;
}

json_t *trv_frender_booking(apr_pool_t *p, const trv_fbooking *b, int mode)
{
    trv_fb_status status = trv_fb_effective_status(b->status, b->past_expiry);
    json_t *o = json_object();
    json_t *payments = json_array();
    int i;

    json_object_set_new(o, "id", json_string(b->id));
    json_object_set_new(o, "supplier", json_string(b->supplier));
    json_object_set_new(o, "status", json_string(trv_transit_text(&trv_fb_status_table, status)));
    json_object_set_new(o, "total_amount", trv_frender_money_json(b->total_amount, b->currency));
    json_object_set_new(o, "fare_amount", trv_frender_money_json(b->fare_amount, b->currency));
    json_object_set_new(o, "fare_tax_amount",
                        trv_frender_money_json(b->fare_tax_amount, b->currency));
    json_object_set_new(o, "services_amount",
                        trv_frender_money_json(b->services_amount, b->currency));
    json_object_set_new(o, "services", services_json(b, status));
    for (i = 0; b->payments && i < b->payments->nelts; i++) {
        const trv_fpayment *pay = &APR_ARRAY_IDX(b->payments, i, trv_fpayment);
        if (pay->status != TRV_PAY_VOIDED) {
            json_array_append_new(payments, payment_json(pay, mode));
        }
    }
    json_object_set_new(o, "payments", payments);
    /* Present while the booking can still be completed. */
    if (status == TRV_FB_READY && b->expires_at) {
        json_object_set_new(o, "expires_at", json_string(b->expires_at));
    }
    json_object_set_new(o, "cancellation_policy",
                        pick_or_null(b->cancellation_policy, policy_keys));
    json_object_set_new(o, "fare_conditions", fare_conditions_json(b->fare_conditions));
    json_object_set_new(o, "passengers", trv_fmask_passengers(p, b->passengers));
    json_object_set_new(o, "journeys", journeys_json(b->journeys));
    json_object_set_new(o, "airline_initiated_changes",
                        b->changes ? json_deep_copy(b->changes) : json_array());
    if (b->supplier_reference) {
        json_object_set_new(o, "supplier_reference", json_string(b->supplier_reference));
    }
    if (b->airline_pnr) {
        json_object_set_new(o, "airline_pnr", json_string(b->airline_pnr));
    }
    json_object_set_new(o, "confirmed_at", trv_json_strn(b->confirmed_at));
    json_object_set_new(o, "canceled_at", trv_json_strn(b->canceled_at));
    if (b->cancellation && status == TRV_FB_CANCELED) {
        json_object_set_new(o, "cancellation", pick(b->cancellation, cancellation_keys));
    }
    if (b->failure) {
        json_object_set_new(o, "failure", pick(b->failure, failure_keys));
    }
    json_object_set_new(o, "created_at", json_string(b->created_at));
    json_object_set_new(o, "updated_at", json_string(b->updated_at));
    return o;
}

const char *trv_frender_booking_text(apr_pool_t *p, const trv_fbooking *b, int mode)
{
    return trv_json_dump(p, trv_json_bind(p, trv_frender_booking(p, b, mode)));
}
