/* The flight supplier protocols: one row each (protocol name, domain,
 * adapter, capabilities, limits, credentials). A site binds its wire names
 * to these with TravelSupplier lines; a new flight protocol is its adapter
 * file and one row here. */
#include "supplier.h"
#include "core/config.h"

#include <apr_tables.h>
#include <string.h>

const trv_supplier trv_flight_suppliers[] = {
    /* Duffel Air API v2: the service authorizes and captures the payment,
     * the customer may pay through the provider's SDK, and an offer is sold
     * to one unfinished booking at a time. Bearer access token. */
    {"duffel", "flight", &trv_flight_supplier_a, TRV_SUP_PAYMENT_SDK | TRV_SUP_OFFER_ONCE, {0},
     {"token", NULL, NULL}, NULL},
    /* LiteAPI Flights v3.0 (X-API-Key): its prebook is a checkout that may
     * hold the itinerary, and it collects the payment itself through its
     * payment SDK (book takes no payment from the service). */
    {"liteapi-flights", "flight", &trv_flight_supplier_b,
     TRV_SUP_COLLECTS_PAYMENT | TRV_SUP_VENDOR_SDK, {0}, {"api_key", NULL, NULL}, NULL},
    /* The slot's former name (mod_travel's own checkout protocol), still
     * accepted so existing lines keep working: the same adapter and terms. */
    {"travel-air", "flight", &trv_flight_supplier_b,
     TRV_SUP_COLLECTS_PAYMENT | TRV_SUP_VENDOR_SDK, {0}, {"api_key", NULL, NULL}, NULL},
    {NULL, NULL, NULL, 0, {0}, {NULL, NULL, NULL}, NULL},
};

const trv_supplier *trv_flight_supplier_row(const trv_config *cfg, const char *name)
{
    return trv_config_supplier(cfg, "flight", name);
}

const char *const *trv_flight_supplier_names(const trv_config *cfg, apr_pool_t *p)
{
    const trv_supplier *row;
    apr_array_header_t *names = apr_array_make(p, 4, sizeof(const char *));
    for (row = trv_config_suppliers(cfg, "flight"); row->name; row++) {
        *(const char **)apr_array_push(names) = row->name;
    }
    *(const char **)apr_array_push(names) = NULL;
    return (const char *const *)names->elts;
}

const trv_flight_supplier *trv_flight_supplier_of_offer(const char *offer_reference)
{
    const trv_supplier *row;
    for (row = trv_flight_suppliers; offer_reference && row->name; row++) {
        const trv_flight_supplier *s = row->adapter;
        if (strncmp(offer_reference, s->offer_prefix, strlen(s->offer_prefix)) == 0) {
            return s;
        }
    }
    return NULL;
}
