/* Expedia Rapid's answer envelope on the sandbox; see rapid.h. */
#include "rapid.h"
#include "core/json.h"
#include "core/validate.h"
#include "core/log.h"

#include <apr_strings.h>
#include <string.h>

/* Rapid's languages (its language.not_supported error lists them). */
static const char *const languages[] = {
    "ar-SA", "cs-CZ", "da-DK", "de-DE", "el-GR", "en-US", "es-ES", "es-MX", "fi-FI", "fr-CA",
    "fr-FR", "hr-HR", "hu-HU", "id-ID", "is-IS", "it-IT", "ja-JP", "lt-LT", "ko-KR", "ms-MY",
    "nb-NO", "nl-NL", "pl-PL", "pt-BR", "pt-PT", "ru-RU", "sk-SK", "sv-SE", "th-TH", "tr-TR",
    "uk-UA", "vi-VN", "zh-CN", "zh-TW", NULL};

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

/* Rapid's invalid_input with one field of the request (a header, a
 * query parameter), written in Rapid's shape at once. */
static void invalid(trv_req *req, trv_resp *resp, const char *type, const char *message,
                    const char *name, const char *where, const char *value)
{
    json_t *field = json_pack("{s:s,s:s,s:s?}", "name", name, "type", where, "value", value);
    /* The field on the error itself too, as the sandbox's other refusals
     * name theirs (Rapid's Error has both fields and nested errors). */
    trv_ok_document(req, resp, 400, json_pack(
        "{s:s,s:s,s:[O],s:[{s:s,s:s,s:[o]}]}", "type", "invalid_input", "message",
        "An invalid request was sent in, please check the nested errors for details.",
        "fields", field, "errors", "type", type, "message", message, "fields", field));
}

int sbx_rapid_customer_ip(trv_req *req, trv_resp *resp)
{
    const char *ip = apr_table_get(req->headers, "Customer-Ip");
    if (!ip || !*ip) {
        invalid(req, resp, "customer_ip.required", "The Customer-Ip header is required: the "
                "customer's IP address", "Customer-Ip", "header", NULL);
        return 0;
    }
    return sbx_rapid_customer_ip_format(req, resp);
}

int sbx_rapid_customer_ip_format(trv_req *req, trv_resp *resp)
{
    const char *ip = apr_table_get(req->headers, "Customer-Ip");
    if (ip && !trv_ip_literal(ip)) {
        invalid(req, resp, "customer_ip.invalid", "Customer-Ip must be an IPv4 or IPv6 "
                "address", "Customer-Ip", "header", ip);
        return 0;
    }
    return 1;
}

int sbx_rapid_language(trv_req *req, trv_resp *resp)
{
    const char *l = apr_table_get(req->query, "language");
    const char *const *k;
    for (k = languages; l && *k; k++) {
        if (strcmp(*k, l) == 0) {
            return 1;
        }
    }
    invalid(req, resp, l ? "language.not_supported" : "language.required",
            l ? "Language is not supported: one of Rapid's 34 (ar-SA ... zh-TW)"
              : "A language is required: one of Rapid's 34 (ar-SA ... zh-TW)",
            "language", "querystring", l);
    return 0;
}

static const trv_stmt record_stmt = {"sbx_rapid_record",
    "INSERT INTO sandbox.rapid_travellers (request_id, method, path, customer_ip, "
    "customer_session_id, language, status) VALUES (%s, %s, %s, %s, %s, %s, %s::int)"};

void sbx_rapid_record(trv_req *req, const trv_resp *resp)
{
    trv_dbc *c;
    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS) {
        trv_log_msg(&req->log, TRV_LOG_WARNING, req->request_id,
                    TRVLOGNO(3320) "sandbox Rapid call not recorded: " TRV_DB_UNAVAILABLE);
        return;
    }
    if (trv_db_exec(c, req->pool, &record_stmt, NULL, TRV_DB_ARGS(
            req->request_id, req->method, req->path,
            apr_table_get(req->headers, "Customer-Ip"),
            apr_table_get(req->headers, "Customer-Session-Id"),
            apr_table_get(req->query, "language"),
            apr_itoa(req->pool, resp->status))) != APR_SUCCESS) {
        /* A record is the tests' window on the wire, never the answer's
         * condition. */
        trv_log_msg(&req->log, TRV_LOG_WARNING, req->request_id,
                    TRVLOGNO(3321) "sandbox Rapid call not recorded: %s",
                    c->error ? c->error : "failed");
    }
    trv_db_close(req->env->db, c);
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
