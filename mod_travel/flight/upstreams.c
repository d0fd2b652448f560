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

apr_interval_time_t trv_flight_step_budget(const trv_env *env, const char *supplier,
                                           int supplier_calls, int payment_calls)
{
    return trv_config_call_budget(env->cfg, supplier ? trv_config_upstream(env->cfg, supplier)
                                                     : NULL,
                                  supplier_calls, payment_calls);
}
