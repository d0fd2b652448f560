#include "handlers.h"
#include "render.h"
#include "booking_store.h"

void trv_freply_upstream_fail(trv_req *req, trv_resp *resp, trv_up_status st,
                              const char *who, const char *message)
{
    trv_fail_supplier(req, resp, st, 1050, "", trv_config_upstream(req->env->cfg, who), who,
                      message);
}

void trv_freply_booking(trv_req *req, trv_resp *resp, int status, const trv_fbooking *b,
                        json_t *meta)
{
    trv_ok(req, resp, status, trv_frender_booking(req->pool, b, TRV_RENDER_FULL), meta);
}

void trv_freply_no_booking(trv_req *req, trv_resp *resp, const char *id)
{
    trv_fail(req, resp, 404, "not_found", "No flight booking %s", id);
}

/* The request's booking for an endpoint of one booking: in its scope. */
static apr_status_t get_scoped(trv_req *req, trv_dbc *c, const char *id, void **out)
{
    trv_fbooking *b;
    apr_status_t rv = trv_fbooking_get(c, req->pool, req->org_id, req->user_id, id, &b);
    *out = b;
    return rv;
}

const trv_api_booking_reader trv_freply_reader = {get_scoped, trv_freply_no_booking};
