/* The administrator's dashboard (`SetHandler travel-dashboard`): one HTML
 * page per organization behind the site's own httpd authentication. The
 * login httpd authenticated (REMOTE_USER) must be granted to an
 * organization (logins.h); it then lists and issues API keys, lists
 * bookings, and lists and works webhook subscriptions and deliveries, in
 * that organization only. Changes are POSTs of the page's forms, each with
 * a CSRF token (csrf.h). httpd-independent: the glue is
 * httpd/dashboard.c. */
#ifndef TRV_DASHBOARD_H
#define TRV_DASHBOARD_H

#include "core/api.h"
#include "core/router.h"

typedef struct trv_dash_in {
    trv_req *req;            /* method, path, headers, body, env, log, request id */
    const char *login;       /* REMOTE_USER; NULL when nobody authenticated */
    const trv_router *api;   /* the API's routes: the webhook buttons use them */
    int secure;              /* the page came over TLS: the cookie is Secure */
} trv_dash_in;

typedef struct trv_dash_out {
    int status;
    const char *html;        /* text/html; charset=utf-8 */
    apr_table_t *headers;    /* CSP and the other security headers, Set-Cookie,
                              * Location, Allow */
} trv_dash_out;

void trv_dash_handle(const trv_dash_in *in, trv_dash_out *out);

#endif
