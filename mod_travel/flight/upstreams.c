#include "upstreams.h"

#include <string.h>

const trv_flight_supplier *trv_flight_supplier_for(trv_env *env, apr_pool_t *p,
                                                   const char *request_id,
                                                   const char *name, trv_flight_ctx *ctx)
{
    const trv_flight_supplier *s = name ? trv_flight_supplier_named(name) : NULL;
    const trv_upstream *up = s && env->cfg ? trv_config_upstream(env->cfg, name) : NULL;
    if (!s || !up) {
        return NULL;
    }
    memset(ctx, 0, sizeof(*ctx));
    ctx->env = env;
    ctx->pool = p;
    ctx->request_id = request_id;
    ctx->up = up;
    return s;
}

const char *trv_flight_route_supplier(const trv_env *env)
{
    int i;
    if (!env->cfg || !env->cfg->upstreams) {
        return NULL;
    }
    for (i = 0; i < env->cfg->upstreams->nelts; i++) {
        const trv_upstream *u = &APR_ARRAY_IDX(env->cfg->upstreams, i, trv_upstream);
        if (trv_flight_supplier_named(u->name)) {
            return u->name;
        }
    }
    return NULL;
}

int trv_flight_payment_ctx(trv_env *env, apr_pool_t *p, const char *request_id,
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

apr_interval_time_t trv_flight_step_budget(const trv_env *env, const char *supplier,
                                           int supplier_calls, int payment_calls)
{
    const trv_upstream *s = env->cfg && supplier ? trv_config_upstream(env->cfg, supplier)
                                                 : NULL;
    const trv_upstream *pay = env->cfg ? env->cfg->payment : NULL;
    apr_interval_time_t t = apr_time_from_sec(5);
    t += supplier_calls * (s ? s->connect_timeout + s->timeout : TRV_DEFAULT_TIMEOUT);
    t += payment_calls * (pay ? pay->connect_timeout + pay->timeout : TRV_DEFAULT_TIMEOUT);
    return t;
}
