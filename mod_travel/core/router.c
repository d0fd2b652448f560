#include "router.h"
#include "ids.h"

#include <apr_strings.h>
#include <ctype.h>
#include <string.h>

#define MAX_SEGMENTS 12

typedef struct seg {
    const char *literal; /* NULL for a parameter */
    const char *name;
    const char *kind;    /* NULL: any value */
} seg;

typedef struct compiled {
    const trv_route *route;
    int nseg;
    int nliteral;
    seg segs[MAX_SEGMENTS];
} compiled;

struct trv_router {
    apr_pool_t *pool;
    apr_array_header_t *routes; /* compiled */
};

trv_router *trv_router_make(apr_pool_t *p)
{
    trv_router *rt = apr_pcalloc(p, sizeof(*rt));
    rt->pool = p;
    rt->routes = apr_array_make(p, 32, sizeof(compiled));
    return rt;
}

static int split(apr_pool_t *p, const char *path, char **out, int max)
{
    char *copy = apr_pstrdup(p, path), *last, *tok;
    int n = 0;
    if (*copy != '/') {
        return -1;
    }
    /* "/a//b" and a trailing "/" are different paths: refuse them. */
    if (strstr(copy, "//") || (strlen(copy) > 1 && copy[strlen(copy) - 1] == '/')) {
        return -1;
    }
    for (tok = apr_strtok(copy, "/", &last); tok; tok = apr_strtok(NULL, "/", &last)) {
        if (n == max) {
            return -1;
        }
        out[n++] = tok;
    }
    return n;
}

void trv_router_add(trv_router *rt, const trv_route *routes)
{
    for (; routes->method; routes++) {
        compiled *c = apr_array_push(rt->routes);
        char *parts[MAX_SEGMENTS];
        int i;
        memset(c, 0, sizeof(*c));
        c->route = routes;
        c->nseg = split(rt->pool, routes->pattern, parts, MAX_SEGMENTS);
        for (i = 0; i < c->nseg; i++) {
            char *s = parts[i];
            if (*s == '{') {
                char *colon;
                s = apr_pstrndup(rt->pool, s + 1, strlen(s) - 2);
                colon = strchr(s, ':');
                if (colon) {
                    *colon = '\0';
                    c->segs[i].kind = colon + 1;
                }
                c->segs[i].name = s;
            }
            else {
                c->segs[i].literal = s;
                c->nliteral++;
            }
        }
    }
}

int trv_router_count(const trv_router *rt)
{
    return rt->routes->nelts;
}

const trv_route *trv_router_at(const trv_router *rt, int i)
{
    return i >= 0 && i < rt->routes->nelts
               ? APR_ARRAY_IDX(rt->routes, i, compiled).route : NULL;
}

int trv_param_valid(const char *kind, const char *value)
{
    size_t len = strlen(value);
    if (!kind) {
        return len >= 1 && len <= 512;
    }
    if (strcmp(kind, "iata") == 0) {
        return len == 2 && isalnum((unsigned char)value[0])
            && isalnum((unsigned char)value[1]);
    }
    return trv_id_valid(value, kind);
}

const char *trv_param_rule(apr_pool_t *p, const char *kind)
{
    if (!kind) {
        return "must be 1 to 512 characters";
    }
    if (strcmp(kind, "iata") == 0) {
        return "must be a two-character IATA code";
    }
    return apr_psprintf(p, "must match ^%s_[a-zA-Z0-9-]+$ and be at most 128 "
                        "characters", kind);
}

static int structural_match(const compiled *c, char **parts, int n)
{
    int i;
    if (c->nseg != n) {
        return 0;
    }
    for (i = 0; i < n; i++) {
        if (c->segs[i].literal && strcmp(c->segs[i].literal, parts[i]) != 0) {
            return 0;
        }
    }
    return 1;
}

trv_route_result trv_router_match(const trv_router *rt, apr_pool_t *p,
                                  const char *method, const char *path,
                                  const trv_route **route, apr_table_t *params,
                                  const char **allow, trv_errs *errs)
{
    char *parts[MAX_SEGMENTS];
    int n = split(p, path, parts, MAX_SEGMENTS), i, j;
    const compiled *best = NULL, *any = NULL;
    const char *methods = NULL;

    if (n < 0) {
        return TRV_ROUTE_NOT_FOUND;
    }
    for (i = 0; i < rt->routes->nelts; i++) {
        const compiled *c = &APR_ARRAY_IDX(rt->routes, i, compiled);
        if (!structural_match(c, parts, n)) {
            continue;
        }
        /* The most literal pattern wins: /bookings/export over /bookings/{id}. */
        if (!any || c->nliteral > any->nliteral) {
            any = c;
        }
    }
    if (!any) {
        return TRV_ROUTE_NOT_FOUND;
    }
    for (i = 0; i < rt->routes->nelts; i++) {
        const compiled *c = &APR_ARRAY_IDX(rt->routes, i, compiled);
        if (c->nliteral != any->nliteral || !structural_match(c, parts, n)) {
            continue;
        }
        if (!strstr(methods ? methods : "", c->route->method)) {
            methods = methods ? apr_pstrcat(p, methods, ", ", c->route->method, NULL)
                              : c->route->method;
        }
        if (strcmp(c->route->method, method) == 0) {
            best = c;
        }
    }
    if (!best) {
        if (strstr(methods, "GET") && !strstr(methods, "HEAD")) {
            methods = apr_pstrcat(p, methods, ", HEAD", NULL);
        }
        *allow = methods;
        return TRV_ROUTE_BAD_METHOD;
    }
    for (j = 0; j < n; j++) {
        const seg *s = &best->segs[j];
        if (s->literal) {
            continue;
        }
        apr_table_setn(params, s->name, parts[j]);
        if (!trv_param_valid(s->kind, parts[j])) {
            trv_errs_add(errs, s->name, "%s", trv_param_rule(p, s->kind));
        }
    }
    *route = best->route;
    return trv_errs_any(errs) ? TRV_ROUTE_BAD_PARAM : TRV_ROUTE_FOUND;
}
