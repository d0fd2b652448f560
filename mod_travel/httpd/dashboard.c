/* `SetHandler travel-dashboard`: the request_rec in, the page out. The
 * dashboard itself (dashboard/) knows nothing of httpd; the login is
 * whatever the site's authentication put in r->user. */
#include "travel.h"
#include "dashboard/dashboard.h"

#include "http_protocol.h"

#include <apr_strings.h>

/* The dashboard's forms are a few hundred bytes. */
#define DASH_MAX_BODY (64 * 1024)

static int copy_header(void *u, const char *k, const char *v)
{
    request_rec *r = u;
    /* err_headers_out: kept on the error statuses (403, 405) too. */
    apr_table_add(r->err_headers_out, k, v);
    return 1;
}

int trv_httpd_dashboard_handler(request_rec *r, const trv_gateway *gw)
{
    trv_srv_conf *c = ap_get_module_config(r->server->module_config, &travel_module);
    trv_dash_in in;
    trv_dash_out out;
    trv_req req;
    int st;

    r->allowed = (AP_METHOD_BIT << M_GET) | (AP_METHOD_BIT << M_POST);
    if (!c || !c->env || !gw) {
        return HTTP_SERVICE_UNAVAILABLE;
    }
    st = trv_httpd_read_request(r, DASH_MAX_BODY, &req);
    if (st) {
        return st;
    }
    if (req.body_too_large) {
        return HTTP_REQUEST_ENTITY_TOO_LARGE;
    }
    req.env = c->env;
    in.req = &req;
    in.login = r->user;
    in.api = trv_gateway_router(gw);
    in.secure = ap_http_scheme(r) && strcmp(ap_http_scheme(r), "https") == 0;
    trv_dash_handle(&in, &out);
    apr_table_do(copy_header, r, out.headers, NULL);
    apr_table_setn(r->err_headers_out, "Cache-Control", "no-store");
    r->status = out.status;
    ap_set_content_type(r, "text/html; charset=utf-8");
    ap_set_content_length(r, (apr_off_t)strlen(out.html));
    if (!r->header_only) {
        ap_rputs(out.html, r);
    }
    return OK;
}
