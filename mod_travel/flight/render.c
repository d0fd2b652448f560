#include "render.h"
#include "mask.h"
#include "state.h"
#include "core/json.h"
#include "core/money.h"

#include <string.h>

json_t *trv_money_text_json(const char *amount, const char *currency)
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

static json_t *payment_json(const trv_fpayment *pay, int mode)
{
    json_t *o = json_pack("{s:s,s:s,s:o,s:s}", "id", pay->id, "status", pay->status,
                          "amount", trv_money_text_json(pay->amount, pay->currency),
                          "collected_by", pay->collected_by);
    if (mode == TRV_RENDER_FULL) {
        /* The card when it could be read; a card read later shows on the
         * next read of the booking. */
        json_object_set_new(o, "payment_method",
                            pay->card ? json_pack("{s:s,s:O}", "type", "CARD", "card",
                                                  pay->card)
                                      : json_null());
    }
    json_object_set_new(o, "created_at", json_string(pay->created_at));
    return o;
}

static const char *captured_payment(const trv_fbooking *b)
{
    int i;
    for (i = 0; b->payments && i < b->payments->nelts; i++) {
        const trv_fpayment *pay = &APR_ARRAY_IDX(b->payments, i, trv_fpayment);
        if (strcmp(pay->status, "CAPTURED") == 0) {
            return pay->id;
        }
    }
    return NULL;
}

static const char *service_status(const char *booking_status)
{
    if (strcmp(booking_status, TRV_FB_CONFIRMED) == 0
        || strcmp(booking_status, TRV_FB_CANCELING) == 0) {
        return "CONFIRMED";
    }
    if (strcmp(booking_status, TRV_FB_CANCELED) == 0) {
        return "CANCELED";
    }
    return "PENDING";
}

static json_t *services_json(const trv_fbooking *b, const char *status)
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
            "baggage", copy_or_null(json_object_get(s, "baggage"))));
    }
    return out;
}

json_t *trv_fbooking_render(apr_pool_t *p, const trv_fbooking *b, int mode)
{
    const char *status = trv_fb_effective_status(b->status, b->past_expiry);
    json_t *o = json_object();
    json_t *payments = json_array();
    int i;

    json_object_set_new(o, "id", json_string(b->id));
    json_object_set_new(o, "supplier", json_string(b->supplier));
    json_object_set_new(o, "status", json_string(status));
    json_object_set_new(o, "total_amount", trv_money_text_json(b->total_amount, b->currency));
    json_object_set_new(o, "fare_amount", trv_money_text_json(b->fare_amount, b->currency));
    json_object_set_new(o, "fare_tax_amount",
                        trv_money_text_json(b->fare_tax_amount, b->currency));
    json_object_set_new(o, "services_amount",
                        trv_money_text_json(b->services_amount, b->currency));
    json_object_set_new(o, "services", services_json(b, status));
    for (i = 0; b->payments && i < b->payments->nelts; i++) {
        const trv_fpayment *pay = &APR_ARRAY_IDX(b->payments, i, trv_fpayment);
        if (strcmp(pay->status, "VOIDED") != 0) {
            json_array_append_new(payments, payment_json(pay, mode));
        }
    }
    json_object_set_new(o, "payments", payments);
    /* Present while the booking can still be completed. */
    if (strcmp(status, TRV_FB_READY) == 0 && b->expires_at) {
        json_object_set_new(o, "expires_at", json_string(b->expires_at));
    }
    json_object_set_new(o, "cancellation_policy", copy_or_null(b->cancellation_policy));
    json_object_set_new(o, "fare_conditions", copy_or_null(b->fare_conditions));
    json_object_set_new(o, "passengers", trv_passengers_public(p, b->passengers));
    json_object_set_new(o, "journeys", b->journeys ? json_deep_copy(b->journeys)
                                                   : json_array());
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
    if (b->cancellation && strcmp(status, TRV_FB_CANCELED) == 0) {
        json_object_set_new(o, "cancellation", json_deep_copy(b->cancellation));
    }
    if (b->failure) {
        json_object_set_new(o, "failure", json_deep_copy(b->failure));
    }
    json_object_set_new(o, "created_at", json_string(b->created_at));
    json_object_set_new(o, "updated_at", json_string(b->updated_at));
    return o;
}
