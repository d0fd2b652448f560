/* Logging through httpd. Core messages carry a TRVnnn tag; the request id
 * is appended to every line. Each module sets the module its lines are
 * attributed to (both modules link this file). */
#include "glue.h"

static module *log_module;

void trv_httpd_glue_init(module *m)
{
    log_module = m;
}

static int module_index(void)
{
    return log_module ? log_module->module_index : APLOG_NO_MODULE;
}

static void request_emit(void *baton, int level, const char *rid, const char *msg)
{
    request_rec *r = baton;
    ap_log_rerror_(__FILE__, __LINE__, module_index(), level, 0, r,
                   "%s [request_id %s]", msg, rid);
}

static void server_emit(void *baton, int level, const char *rid, const char *msg)
{
    server_rec *s = baton;
    ap_log_error_(__FILE__, __LINE__, module_index(), level, 0, s,
                  "%s [request_id %s]", msg, rid);
}

void trv_httpd_request_log(request_rec *r, trv_req *req)
{
    req->log.emit = request_emit;
    req->log.baton = r;
}

trv_log trv_httpd_server_log(server_rec *s)
{
    trv_log l;
    l.emit = server_emit;
    l.baton = s;
    return l;
}
