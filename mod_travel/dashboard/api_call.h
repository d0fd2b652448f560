/* The dashboard's webhook views and buttons are requests to the API's own
 * route handlers (webhook/api.c), made in process as the login's user: the
 * same validation, organization scope, locking, logging and answers as a
 * call with an API key, and no second implementation to drift apart. */
#ifndef TRV_DASHBOARD_API_CALL_H
#define TRV_DASHBOARD_API_CALL_H

#include "context.h"

/* Runs METHOD path (a query after '?' is decoded as the API's) with an
 * optional JSON body; fills resp. Returns resp->status. */
int trv_dash_api(const trv_dash_ctx *x, const char *method, const char *path,
                 const char *json_body, trv_resp *resp);
/* error.message of a failed answer, or a generic text. */
const char *trv_dash_api_message(const trv_resp *resp);

#endif
