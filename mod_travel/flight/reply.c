#include "handlers.h"
#include "render.h"

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
