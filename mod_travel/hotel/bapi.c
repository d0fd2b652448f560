#include "bapi.h"
#include "render.h"
#include "core/config.h"

#include <string.h>

int trv_hbapi_open(trv_req *req, trv_resp *resp, trv_dbc **c, int logno, const char *what)
{
    if (trv_db_open(req->env->db, req->pool, c) != APR_SUCCESS) {
        trv_fail_db(req, resp, NULL, logno, what);
        return 0;
    }
    return 1;
}

void trv_hbapi_db_fail(trv_req *req, trv_resp *resp, trv_dbc *c, int logno, const char *what)
{
    trv_fail_db(req, resp, c, logno, what);
    if (c) {
        if (c->in_txn) {
            trv_db_rollback(c);
        }
        trv_db_close(req->env->db, c);
    }
}

void trv_hbapi_booking(trv_req *req, trv_resp *resp, int status, const trv_hbooking *b,
                       json_t *meta)
{
    trv_ok(req, resp, status, trv_hbooking_render(req->pool, b, TRV_HRENDER_FULL), meta);
}

void trv_hbapi_no_booking(trv_req *req, trv_resp *resp, const char *id)
{
    trv_fail(req, resp, 404, "not_found", "No hotel booking %s", id);
}

const trv_hotel_supplier *trv_hbapi_supplier(trv_env *env, apr_pool_t *p,
                                             const char *request_id, const char *name,
                                             const trv_supplier **row, trv_hotel_ctx *ctx)
{
    *row = name ? trv_supplier_find(trv_hotel_suppliers, name) : NULL;
    return *row ? trv_hotel_supplier_for(env, p, request_id, *row, ctx) : NULL;
}

int trv_hbapi_payment_ctx(trv_env *env, apr_pool_t *p, const char *request_id,
                          trv_pay_ctx *ctx)
{
    memset(ctx, 0, sizeof(*ctx));
    if (!env->cfg || !env->cfg->payment) {
        return 0;
    }
    ctx->env = env;
    ctx->pool = p;
    ctx->request_id = request_id;
    ctx->up = env->cfg->payment;
    return 1;
}

apr_interval_time_t trv_hbapi_budget(const trv_env *env, const char *supplier,
                                     int supplier_calls, int payment_calls)
{
    const trv_upstream *s = env->cfg && supplier ? trv_config_hotel_upstream(env->cfg, supplier)
                                                 : NULL;
    const trv_upstream *pay = env->cfg ? env->cfg->payment : NULL;
    apr_interval_time_t t = apr_time_from_sec(5);
    t += supplier_calls * (s ? s->connect_timeout + s->timeout : TRV_DEFAULT_TIMEOUT);
    t += payment_calls * (pay ? pay->connect_timeout + pay->timeout : TRV_DEFAULT_TIMEOUT);
    return t;
}

int trv_hbapi_total(const trv_hbooking *b, trv_money *m)
{
    int e = b->currency ? trv_currency_exponent(b->currency) : -1;
    if (e < 0 || !b->total_amount
        || trv_money_parse_decimal(b->total_amount, e, &m->minor) != APR_SUCCESS) {
        return 0;
    }
    memcpy(m->currency, b->currency, 4);
    return 1;
}
