/* Method + path pattern -> handler, with path parameters checked against the
 * service document's patterns. Patterns are "/v1/flight/bookings/{id:bkg}":
 * a parameter's kind is an id prefix (^bkg_[a-zA-Z0-9-]+$, at most 128
 * characters), "iata" (two letters or digits) or absent (1..512 characters). */
#ifndef TRV_ROUTER_H
#define TRV_ROUTER_H

#include "api.h"
#include "errors.h"

#define TRV_ROUTE_PUBLIC 0x1 /* no x-api-key needed */
#define TRV_ROUTE_OWN_QUERY 0x4 /* the handler checks its query parameters; on
                                 * other routes any query parameter is a 422 */
#define TRV_ROUTE_NO_BODY 0x8   /* an action without fields: no body or {} */
#define TRV_ROUTE_IDEMPOTENT 0x10 /* creates or changes something: an
                                   * x-idempotency-key makes a repeat replay
                                   * the first answer (env->idempotency) */
#define TRV_ROUTE_JSON_ARENA 0x40 /* Jansson draws from a request arena
                                    * (core/json_arena.h): the search path */
#define TRV_ROUTE_USER_SCOPED 0x20 /* acts on a resource of the calling user
                                    * (flight bookings, watches, mandates):
                                    * its idempotency keys are the user's */

typedef struct trv_route {
    const char *method;
    const char *pattern;
    trv_handler_fn *handler;
    unsigned flags;
    /* What a handler shared by several routes answers with (the request's
     * route_arg): each domain's table for the booking reads, say. */
    const void *arg;
} trv_route;

typedef enum {
    TRV_ROUTE_FOUND,
    TRV_ROUTE_NOT_FOUND,
    TRV_ROUTE_BAD_METHOD,  /* *allow lists the methods the path takes */
    TRV_ROUTE_BAD_PARAM    /* errs holds the failing path parameters */
} trv_route_result;

typedef struct trv_router trv_router;

trv_router *trv_router_make(apr_pool_t *p);
/* Adds routes up to the first entry whose method is NULL. */
void trv_router_add(trv_router *rt, const trv_route *routes);
trv_route_result trv_router_match(const trv_router *rt, apr_pool_t *p,
                                  const char *method, const char *path,
                                  const trv_route **route, apr_table_t *params,
                                  const char **allow, trv_errs *errs);

/* The routes added, in order (for checks such as the OpenAPI drift test). */
int trv_router_count(const trv_router *rt);
const trv_route *trv_router_at(const trv_router *rt, int i);

/* The path-parameter rule for a kind, as a sentence for error details. */
const char *trv_param_rule(apr_pool_t *p, const char *kind);
int trv_param_valid(const char *kind, const char *value);

#endif
