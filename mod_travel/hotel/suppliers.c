/* The hotel supplier protocols: one row each (protocol name, domain,
 * adapter, capabilities, limits, credentials). A site binds its wire names
 * to these with TravelHotelSupplier lines; a new hotel protocol is its
 * adapter file and one row here. Limits are what one request may ask of
 * the supplier: hotels priced in one offers request, offers returned by one
 * offers request, nights of a stay. */
#include "supplier.h"

#include <string.h>

const trv_supplier trv_hotel_suppliers[] = {
    /* LiteAPI v3.0 (X-API-Key): charges the partner's account at book, so
     * the service collects from the traveller itself (and may take the
     * payment SDK); an offer's prebook is booked once. No
     * TRV_SUP_IDEMPOTENCY_KEY: LiteAPI documents none; its guard is the
     * book's clientReference (a second book under one reference is not a
     * second booking), and a lost answer is found with GET
     * /bookings?clientReference=. */
    {"liteapi", "hotel", &trv_hotel_supplier_a,
     TRV_SUP_PAYMENT_SDK | TRV_SUP_OFFER_ONCE, {250, 10, 99},
     {"api_key", NULL, "book_url"}, NULL},
    /* Hotelbeds APItude (Api-key + X-Signature): invoices the partner, so
     * the service collects from the traveller (and may take the payment
     * SDK); its cancellation simulation is not the slot's preview
     * (docs/suppliers.md). No TRV_SUP_IDEMPOTENCY_KEY: Hotelbeds documents
     * no Idempotency-Key, and a resent booking would book twice. */
    {"hotelbeds", "hotel", &trv_hotel_supplier_b, TRV_SUP_PAYMENT_SDK, {250, 10, 99},
     {"api_key", "api_secret", NULL}, NULL},
    /* The protocol's former name, still accepted so existing lines keep
     * working (docs/configuration.md): the same adapter and terms. */
    {"travel-hotel-b", "hotel", &trv_hotel_supplier_b, TRV_SUP_PAYMENT_SDK, {250, 10, 99},
     {"api_key", "api_secret", NULL}, NULL},
    /* Expedia Group Rapid API v3 (Authorization: EAN, signed): Expedia is
     * the merchant of record (charges the traveller's card, forwarded by the
     * payment provider) and the itinerary's rooms state their refund if
     * cancelled now (the preview). No TRV_SUP_IDEMPOTENCY_KEY: Rapid
     * documents none (its guard is the unique affiliate_reference_id).
     * Rapid asks for the traveller on every call (TRV_SUP_TRAVELLER). */
    {"expedia-rapid", "hotel", &trv_hotel_supplier_c,
     TRV_SUP_COLLECTS_PAYMENT | TRV_SUP_CANCEL_PREVIEW | TRV_SUP_TRAVELLER, {250, 10, 99},
     {"api_key", "api_secret", NULL}, NULL},
    /* The former name of SUPPLIER_C's protocol, still accepted so existing
     * lines keep working (docs/configuration.md): the same adapter and
     * terms. */
    {"travel-hotel-c", "hotel", &trv_hotel_supplier_c,
     TRV_SUP_COLLECTS_PAYMENT | TRV_SUP_CANCEL_PREVIEW | TRV_SUP_TRAVELLER, {250, 10, 99},
     {"api_key", "api_secret", NULL}, NULL},
    /* Duffel Stays (Bearer token): booked from the partner's Duffel
     * balance, so the service collects; every prebook is a quote of its own. */
    {"duffel-stays", "hotel", &trv_hotel_supplier_duffel_stays, TRV_SUP_PAYMENT_SDK,
     {250, 10, 99}, {"token", NULL, NULL}, NULL},
    {NULL, NULL, NULL, 0, {0}, {NULL, NULL, NULL}, NULL},
};

const trv_supplier *trv_hotel_supplier_row(const trv_env *env, const char *name)
{
    return trv_config_supplier(env->cfg, "hotel", name);
}

const trv_supplier *trv_hotel_supplier_rows(const trv_env *env)
{
    return trv_config_suppliers(env->cfg, "hotel");
}

const trv_hotel_supplier *trv_hotel_supplier_for(trv_env *env, apr_pool_t *p,
                                                 const char *request_id,
                                                 const trv_supplier *row, trv_hotel_ctx *ctx)
{
    const trv_upstream *up = row && env->cfg ? trv_config_hotel_upstream(env->cfg, row->name)
                                             : NULL;
    if (!up || !row->adapter) {
        return NULL;
    }
    memset(ctx, 0, sizeof(*ctx));
    trv_supplier_call_start(&ctx->call, env, p, request_id, up);
    return row->adapter;
}
