#include "upstreams.h"

#include <string.h>

const trv_flight_supplier *trv_flight_supplier_for(trv_env *env, apr_pool_t *p,
                                                   const char *request_id,
                                                   const char *name, trv_flight_ctx *ctx)
{
    const trv_supplier *row = trv_flight_supplier_row(env->cfg, name);
    const trv_flight_supplier *s = row ? row->adapter : NULL;
    const trv_upstream *up = s ? trv_config_upstream(env->cfg, name) : NULL;
    if (!s || !up) {
        return NULL;
    }
    memset(ctx, 0, sizeof(*ctx));
    trv_supplier_call_start(&ctx->call, env, p, request_id, up);
    return s;
}

const char *trv_flight_route_supplier(const trv_env *env)
{
    /* Every bound row has an adapter: its protocol's. */
    return trv_config_suppliers(env->cfg, "flight")->name;
}
