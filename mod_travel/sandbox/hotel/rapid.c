/* Expedia Rapid's answer envelope on the sandbox; see rapid.h. */
#include "rapid.h"
#include "core/json.h"

#include <apr_strings.h>
#include <string.h>

int sbx_rapid_path(const char *path)
{
    size_t n = sizeof(SBX_RAPID_BASE) - 1;
    return path && strncmp(path, SBX_RAPID_BASE, n) == 0 && (path[n] == '/' || !path[n]);
}

int sbx_rapid_test(trv_req *req, trv_resp *resp, const char *const *keywords,
                   const char **kw)
{
    const char *t = apr_table_get(req->headers, "Test");
    const char *const *k;
    *kw = t;
    if (!t || strcmp(t, "standard") == 0 || strcmp(t, "available") == 0) {
        return 0;
    }
    for (k = keywords; *k; k++) {
        if (strcmp(*k, t) == 0) {
            break;
        }
    }
    if (!*k) {
        sbx_error(req, resp, 400, "invalid_input", "Test: %s is not a keyword of this call", t);
        return 1;
    }
    if (strcmp(t, "service_unavailable") == 0) {
        sbx_error(req, resp, 503, "service_unavailable",
                  "This service is currently unavailable (Test header)");
        return 1;
    }
    if (strcmp(t, "unknown_internal_error") == 0 || strcmp(t, "internal_server_error") == 0) {
        sbx_error(req, resp, 500, "unknown_internal_error",
                  "An internal server error has occurred (Test header)");
        return 1;
    }
    return 0; /* the caller's own keyword */
}

int sbx_rapid_customer_ip(trv_req *req, trv_resp *resp)
{
    const char *ip = apr_table_get(req->headers, "Customer-Ip");
    if (!ip || !*ip) {
        sbx_error(req, resp, 400, "invalid_input", "The Customer-Ip header is required");
        return 0;
    }
    return 1;
}

void sbx_rapid_finish(trv_req *req, trv_resp *resp)
{
    const json_t *e = NULL;
    const char *code, *field, *type;
    json_t *err;
    if (resp->status == 200 && strcmp(req->method, "DELETE") == 0) {
        /* A room's cancellation: 204, no body. */
        resp->status = 204;
        resp->document = NULL;
        resp->raw = "";
        resp->raw_len = 0;
        resp->raw_type = "application/json";
        return;
    }
    if (resp->status < 400) {
        return;
    }
    /* Rapid documents no 422: a request it refuses is a 400. */
    if (resp->status == 422) {
        resp->status = 400;
    }
    if (resp->document && json_is_object(resp->document)) {
        e = json_object_get(resp->document, "error");
    }
    else if (resp->error) {
        e = json_object_get(resp->error, "error") ? json_object_get(resp->error, "error")
                                                  : resp->error;
    }
    if (!e) {
        return;
    }
    code = trv_json_str(e, "code") ? trv_json_str(e, "code") : "unknown_internal_error";
    field = trv_json_str(e, "field");
    /* Rapid's types for the sandbox's common words. */
    type = strcmp(code, "validation_error") == 0 ? "invalid_input"
         : strcmp(code, "unauthorized") == 0 ? "request_unauthenticated"
         : strcmp(code, "rate_limited") == 0 || resp->status == 429 ? "too_many_requests"
         : strcmp(code, "not_found") == 0 ? "resource_not_found" : code;
    err = json_pack("{s:s,s:s}", "type", type, "message",
                    trv_json_str(e, "message") ? trv_json_str(e, "message") : "");
    if (field) {
        json_object_set_new(err, "fields", json_pack("[{s:s,s:s}]", "name", field, "type",
                                                     strcmp(req->method, "GET") == 0
                                                     || strcmp(req->method, "DELETE") == 0
                                                         ? "querystring" : "body"));
    }
    trv_ok_document(req, resp, resp->status, err);
}
