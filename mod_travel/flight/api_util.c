#include "handlers.h"
#include "render.h"

int trv_fapi_open(trv_req *req, trv_resp *resp, trv_dbc **c, int logno, const char *what)
{
    if (trv_db_open(req->env->db, req->pool, c) != APR_SUCCESS) {
        trv_fail_db(req, resp, NULL, logno, what);
        return 0;
    }
    return 1;
}

void trv_fapi_db_fail(trv_req *req, trv_resp *resp, trv_dbc *c, int logno,
                      const char *what)
{
    trv_fail_db(req, resp, c, logno, what);
    if (c) {
        if (c->in_txn) {
            trv_db_rollback(c);
        }
        trv_db_close(req->env->db, c);
    }
}

void trv_fapi_upstream_fail(trv_req *req, trv_resp *resp, trv_up_status st,
                            const char *who, const char *message)
{
    trv_log_msg(&req->log, TRV_LOG_WARNING, req->request_id,
                TRVLOGNO(1050) "%s: %s: %s", who, trv_up_status_name(st),
                message ? message : "");
    if (st == TRV_UP_TIMEOUT) {
        trv_fail(req, resp, 504, "supplier_timeout", "%s did not answer in time; retry later",
                 who);
    }
    else {
        trv_fail(req, resp, 502, "supplier_error", "%s could not be used: %s", who,
                 st == TRV_UP_UNAVAILABLE ? "it is unavailable; retry later"
                                          : "it gave an answer the service cannot use");
    }
}

void trv_fapi_booking(trv_req *req, trv_resp *resp, int status, const trv_fbooking *b,
                      json_t *meta)
{
    trv_ok(req, resp, status, trv_fbooking_render(req->pool, b, TRV_RENDER_FULL), meta);
}

void trv_fapi_no_booking(trv_req *req, trv_resp *resp, const char *id)
{
    trv_fail(req, resp, 404, "not_found", "No flight booking %s", id);
}
