/* The hotel suppliers: one row each (name, domain, adapter, capabilities,
 * limits). A new hotel supplier is its adapter file and one row here, and
 * its TravelHotelSupplier line. Limits are what one request may ask of the
 * supplier: hotels priced in one offers request, offers returned by one
 * offers request, nights of a stay. */
#include "supplier.h"

#include <string.h>

const trv_supplier trv_hotel_suppliers[] = {
    /* LiteAPI-like: charges the partner's account at book, so the service
     * collects from the traveller itself (and may take the payment SDK);
     * an offer's prebook is booked once. */
    {"SUPPLIER_A", "hotel", &trv_hotel_supplier_a,
     TRV_SUP_PAYMENT_SDK | TRV_SUP_OFFER_ONCE, {250, 10, 99}},
    /* Hotelbeds-like: invoices the partner; the service collects. */
    {"SUPPLIER_B", "hotel", &trv_hotel_supplier_b, TRV_SUP_PAYMENT_SDK, {250, 10, 99}},
    /* Expedia Rapid-like: merchant of record (charges the traveller's card
     * itself) and the one supplier that previews a cancellation's fee. */
    {"SUPPLIER_C", "hotel", &trv_hotel_supplier_c,
     TRV_SUP_COLLECTS_PAYMENT | TRV_SUP_CANCEL_PREVIEW, {250, 10, 99}},
    {NULL, NULL, NULL, 0, {0}},
};

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
    ctx->env = env;
    ctx->pool = p;
    ctx->request_id = request_id;
    ctx->up = up;
    return row->adapter;
}
