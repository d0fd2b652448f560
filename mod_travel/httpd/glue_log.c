/* Logging through httpd. Core messages carry a TRVnnn tag; the request id
 * is appended to every line. Each module sets the module its lines are
 * attributed to (both modules link this file), so `LogLevel travel:debug`
 * (or travel_sandbox:debug) selects them, and the caller's file and line
 * are passed on (TRV_LOG_MARK), as mod_md does. */
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

static void request_emit(void *baton, const char *file, int line, int level, const char *rid,
                         const char *msg)
{
    request_rec *r = baton;
    ap_log_rerror_(file, line, module_index(), level, 0, r, "%s [request_id %s]", msg, rid);
}

static int request_enabled(void *baton, int level)
{
    request_rec *r = baton;
    return APLOG_R_MODULE_IS_LEVEL(r, module_index(), level);
}

static void server_emit(void *baton, const char *file, int line, int level, const char *rid,
                        const char *msg)
{
    server_rec *s = baton;
    ap_log_error_(file, line, module_index(), level, 0, s, "%s [request_id %s]", msg, rid);
}

static int server_enabled(void *baton, int level)
{
    server_rec *s = baton;
    return APLOG_MODULE_IS_LEVEL(s, module_index(), level);
}

void trv_httpd_request_log(request_rec *r, trv_req *req)
{
    req->log.emit = NULL;
    req->log.emit_at = request_emit;
    req->log.enabled = request_enabled;
    req->log.baton = r;
}

trv_log trv_httpd_server_log(server_rec *s)
{
    trv_log l;
    l.emit = NULL;
    l.emit_at = server_emit;
    l.enabled = server_enabled;
    l.baton = s;
    return l;
}
