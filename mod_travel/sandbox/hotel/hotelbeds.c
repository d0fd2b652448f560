/* Hotelbeds APItude's answer envelope on the sandbox; see hotelbeds.h.
 * Written from "Hotel Booking API" and "API Errors" of Hotelbeds' developer
 * portal (developer.hotelbeds.com, APItude Hotel API 1.0). */
#include "hotelbeds.h"
#include "core/json.h"

#include <apr_strings.h>
#include <apr_time.h>
#include <string.h>

int sbx_hotelbeds_path(const char *path)
{
    size_t n = sizeof(SBX_HOTELBEDS_BASE) - 1;
    return path && strncmp(path, SBX_HOTELBEDS_BASE, n) == 0 && (path[n] == '/' || !path[n]);
}

json_t *sbx_hotelbeds_audit(trv_req *req)
{
    char ts[APR_RFC822_DATE_LEN + 8];
    apr_time_exp_t t;
    apr_size_t n;
    /* Hotelbeds writes "2024-02-25 13:12:06.367", every member a string. */
    apr_time_exp_gmt(&t, apr_time_now());
    apr_strftime(ts, &n, sizeof(ts), "%Y-%m-%d %H:%M:%S", &t);
    return json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s}", "processTime", "0",
                     "timestamp", apr_psprintf(req->pool, "%s.%03d", ts, t.tm_usec / 1000),
                     "requestHost", "127.0.0.1", "serverId", "sandbox",
                     "environment", "[sandbox]", "release", "",
                     "token", req->request_id ? req->request_id : "");
}

void sbx_hotelbeds_send(trv_req *req, trv_resp *resp, int status, trv_jtext *t)
{
    json_t *audit = sbx_hotelbeds_audit(req);
    trv_jtext_key(t, "auditData");
    sbx_jt_json(t, audit);
    json_decref(audit);
    trv_jtext_end(t);
    sbx_jt_send(req, resp, status, t);
}

void sbx_hotelbeds_finish(trv_req *req, trv_resp *resp)
{
    const json_t *e = NULL;
    const char *code, *message;
    json_t *err;
    if (resp->status == 429) {
        /* Hotelbeds' gateway throttles with a 403 named by this header. */
        apr_table_unset(resp->headers, "Retry-After");
        apr_table_setn(resp->headers, "X-Mashery-Error-Code", "ERR_403_DEVELOPER_OVER_QPS");
        trv_ok_document(req, resp, 403, json_pack("{s:o,s:{s:s,s:s}}", "auditData",
                                                  sbx_hotelbeds_audit(req), "error", "code",
                                                  "ERR_403_DEVELOPER_OVER_QPS", "message",
                                                  "Developer Over Qps"));
        return;
    }
    if (resp->document && json_is_object(resp->document)) {
        e = json_object_get(resp->document, "error");
        if (!e) {
            if (!json_object_get(resp->document, "auditData")) {
                json_object_set_new(resp->document, "auditData", sbx_hotelbeds_audit(req));
            }
            return;
        }
    }
    else if (resp->error) {
        e = json_object_get(resp->error, "error") ? json_object_get(resp->error, "error")
                                                  : resp->error;
    }
    if (!e || resp->status < 400) {
        return;
    }
    code = trv_json_str(e, "code");
    message = trv_json_str(e, "message");
    err = json_pack("{s:s,s:s}", "code", code ? code : "SYSTEM_ERROR", "message",
                    message ? message : "");
    /* The sandbox's own members beside Hotelbeds' two (docs/suppliers.md):
     * the request id (also auditData.token), the field refused and the
     * booking a reference already names. */
    if (req->request_id) {
        json_object_set_new(err, "request_id", json_string(req->request_id));
    }
    if (trv_json_str(e, "field")) {
        json_object_set_new(err, "field", json_string(trv_json_str(e, "field")));
    }
    if (trv_json_str(e, "existing_booking_id")) {
        json_object_set_new(err, "existing_booking_id",
                            json_string(trv_json_str(e, "existing_booking_id")));
    }
    trv_ok_document(req, resp, resp->status,
                    json_pack("{s:o,s:o}", "auditData", sbx_hotelbeds_audit(req), "error", err));
}
