#include "reply.h"
#include "render.h"
#include "booking_store.h"

#include <string.h>

void trv_hreply_booking(trv_req *req, trv_resp *resp, int status, const trv_hbooking *b,
                        json_t *meta)
{
    trv_ok(req, resp, status, trv_hrender_booking(req->pool, b, TRV_HRENDER_FULL), meta);
}

void trv_hreply_no_booking(trv_req *req, trv_resp *resp, const char *id)
{
    trv_fail(req, resp, 404, "not_found", "No hotel booking %s", id);
}

const trv_hotel_supplier *trv_hreply_supplier(trv_env *env, apr_pool_t *p,
                                              const char *request_id, const char *name,
                                              const trv_supplier **row, trv_hotel_ctx *ctx)
{
    *row = trv_hotel_supplier_row(env, name);
    return *row ? trv_hotel_supplier_for(env, p, request_id, *row, ctx) : NULL;
}

int trv_hreply_total(const trv_hbooking *b, trv_money *m)
{
    int e = b->currency ? trv_currency_exponent(b->currency) : -1;
    if (e < 0 || !b->total_amount
        || trv_money_parse_decimal(b->total_amount, e, &m->minor) != APR_SUCCESS) {
        return 0;
    }
    memcpy(m->currency, b->currency, 4);
    return 1;
}

/* The request's booking for an endpoint of one booking: in its scope. */
static apr_status_t get_scoped(trv_req *req, trv_dbc *c, const char *id, void **out)
{
    trv_hbooking *b;
    apr_status_t rv = trv_hbooking_get(c, req->pool, req->org_id, id, &b);
    *out = b;
    return rv;
}

const trv_api_booking_reader trv_hreply_reader = {get_scoped, trv_hreply_no_booking};
