/* The API as a whole: every domain's routes and job kinds, and the steps
 * every request goes through (route, authenticate, read the body, handle). */
#ifndef TRV_GATEWAY_H
#define TRV_GATEWAY_H

#include "core/api.h"
#include "core/jobs.h"
#include "core/router.h"

typedef struct trv_gateway trv_gateway;

trv_gateway *trv_gateway_create(apr_pool_t *p);
/* Every route of the API (docs/openapi.yaml must describe each). */
const trv_router *trv_gateway_router(const trv_gateway *gw);
void trv_gateway_handle(const trv_gateway *gw, trv_req *req, trv_resp *resp);

/* The error document for an error httpd raised before the handler ran
 * (reached through an internal redirect). */
void trv_gateway_error(trv_req *req, trv_resp *resp, int status);

/* Every job kind the workers run, terminated by a NULL kind. */
const trv_job_kind *trv_gateway_job_kinds(void);

#endif
