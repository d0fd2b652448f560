/* A supplier adapter call's context (supplier_call.h). */
#include "supplier_call.h"

#include <string.h>

void trv_supplier_call_start(trv_supplier_call *call, trv_env *env, apr_pool_t *p,
                             const char *request_id, const trv_upstream *up)
{
    memset(call, 0, sizeof(*call));
    call->env = env;
    call->pool = p;
    call->request_id = request_id;
    call->up = up;
}
