/* The steps every API request goes through, in order: authenticate (401,
 * 503), read the body (413, 415, 400, 422 for a non-object), route (404,
 * 405 with Allow), path parameters (422), then the handler. */
#ifndef TRV_DISPATCH_H
#define TRV_DISPATCH_H

#include "router.h"

/* Sets req's principal or answers the failure; returns 1 to go on. */
typedef int trv_auth_fn(trv_req *req, trv_resp *resp);

void trv_dispatch(const trv_router *rt, trv_auth_fn *auth, trv_req *req,
                  trv_resp *resp);

/* Parses a POST/PATCH/PUT body: 413, 415, 400, or 422 when it is not an
 * object. Returns 1 to go on (req->json may stay NULL for an empty body). */
int trv_read_json_body(trv_req *req, trv_resp *resp, apr_off_t max_body);

#endif
