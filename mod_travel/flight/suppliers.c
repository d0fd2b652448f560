/* The flight suppliers: one row each (name, domain, adapter, capabilities,
 * limits). A new flight supplier is its adapter file and one row here. */
#include "supplier.h"

#include <apr_tables.h>
#include <string.h>

const trv_supplier trv_flight_suppliers[] = {
    /* Duffel-like: the service authorizes and captures the payment, the
     * customer may pay through the provider's SDK, and an offer is sold to
     * one unfinished booking at a time. */
    {"SUPPLIER_A", "flight", &trv_supplier_a, TRV_SUP_PAYMENT_SDK | TRV_SUP_OFFER_ONCE, {0}},
    /* A checkout API: it holds the itinerary and charges the traveller
     * itself (its book takes no payment). */
    {"SUPPLIER_B", "flight", &trv_supplier_b, TRV_SUP_COLLECTS_PAYMENT, {0}},
    {NULL, NULL, NULL, 0, {0}},
};

const trv_supplier *trv_flight_supplier_row(const char *name)
{
    return trv_supplier_find(trv_flight_suppliers, name);
}

const char *const *trv_flight_supplier_names(apr_pool_t *p)
{
    const trv_supplier *row;
    apr_array_header_t *names = apr_array_make(p, 4, sizeof(const char *));
    for (row = trv_flight_suppliers; row->name; row++) {
        *(const char **)apr_array_push(names) = row->name;
    }
    *(const char **)apr_array_push(names) = NULL;
    return (const char *const *)names->elts;
}

const trv_flight_supplier *trv_flight_supplier_named(const char *name)
{
    const trv_supplier *row = trv_flight_supplier_row(name);
    return row ? row->adapter : NULL;
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
