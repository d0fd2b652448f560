/* The API as a whole: the domains that make it up (their registrations
 * built into one registry), and the steps every request goes through
 * (route, authenticate, read the body, handle). */
#ifndef TRV_GATEWAY_H
#define TRV_GATEWAY_H

#include "core/api.h"
#include "core/jobs.h"
#include "core/registry.h"
#include "core/router.h"

typedef struct trv_gateway trv_gateway;

/* Builds the registry of every domain and the router over its routes;
 * APR_EINVAL with *err when a registration is refused (registry.h). */
apr_status_t trv_gateway_make(apr_pool_t *p, trv_gateway **gw, const char **err);
/* trv_gateway_make, NULL when a registration is refused. */
trv_gateway *trv_gateway_create(apr_pool_t *p);

/* The domains every gateway is made of, NULL-terminated. */
const trv_domain *const *trv_gateway_domains(void);

const trv_registry *trv_gateway_registry(const trv_gateway *gw);
/* Every route of the API (docs/openapi.yaml must describe each). */
const trv_router *trv_gateway_router(const trv_gateway *gw);
void trv_gateway_handle(const trv_gateway *gw, trv_req *req, trv_resp *resp);

/* The error document for an error httpd raised before the handler ran
 * (reached through an internal redirect). */
void trv_gateway_error(trv_req *req, trv_resp *resp, int status);

/* Every job kind the workers run, terminated by a NULL kind. */
const trv_job_kind *trv_gateway_job_kinds(const trv_gateway *gw);

#endif
