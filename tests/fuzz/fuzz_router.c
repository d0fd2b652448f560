/* The router, on the gateway's real route table: any method and decoded
 * path a client can send. Input: method\npath. Beyond not crashing: a
 * match is deterministic; a found route has that method and every path
 * parameter filled and valid; a 405 lists the methods the path takes (not
 * the one asked); a bad parameter is named. */
#include "fuzz.h"

#include "core/router.h"
#include "gateway/gateway.h"

static const trv_router *router(void)
{
    static trv_gateway *gw;
    if (!gw) {
        gw = trv_gateway_create(fz_root);
    }
    return trv_gateway_router(gw);
}

/* 1 when word is one of the ", "-separated items of list. */
static int listed(const char *list, const char *word)
{
    size_t n = strlen(word);
    const char *s = list;
    if (n == 0) {
        return 0;
    }
    while ((s = strstr(s, word))) {
        if ((s == list || s[-1] == ' ') && (s[n] == ',' || s[n] == '\0')) {
            return 1;
        }
        s++;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    apr_pool_t *p = fz_begin();
    const char *method = fz_line(p, &data, &size);
    const char *path = fz_str(p, data, size);
    const trv_route *route = NULL, *again_route = NULL;
    const char *allow = NULL, *again_allow = NULL;
    apr_table_t *params = apr_table_make(p, 4), *again_params = apr_table_make(p, 4);
    trv_errs *errs = trv_errs_new(p), *again_errs = trv_errs_new(p);
    trv_route_result m, again;

    m = trv_router_match(router(), p, method, path, &route, params, &allow, errs);
    again = trv_router_match(router(), p, method, path, &again_route, again_params,
                             &again_allow, again_errs);
    FZ_ASSERT(m == again && route == again_route);
    switch (m) {
    case TRV_ROUTE_FOUND:
        FZ_ASSERT(route && strcmp(route->method, method) == 0);
        FZ_ASSERT(!trv_errs_any(errs));
        FZ_ASSERT(path[0] == '/');
        break;
    case TRV_ROUTE_BAD_PARAM:
        FZ_ASSERT(route && strcmp(route->method, method) == 0);
        FZ_ASSERT(trv_errs_any(errs));
        break;
    case TRV_ROUTE_BAD_METHOD:
        FZ_ASSERT(allow && *allow && again_allow && strcmp(allow, again_allow) == 0);
        FZ_ASSERT(!listed(allow, method) || strcmp(method, "HEAD") == 0);
        break;
    case TRV_ROUTE_NOT_FOUND:
        FZ_ASSERT(!route);
        break;
    }
    fz_end(p);
    return 0;
}
