#include "errors.h"
#include "utf8.h"
#include "json.h"

#include <apr_strings.h>
#include <stdarg.h>

trv_errs *trv_errs_new(apr_pool_t *p)
{
    trv_errs *e = apr_pcalloc(p, sizeof(*e));
    e->pool = p;
    e->details = trv_json_bind(p, json_array());
    return e;
}

void trv_errs_add(trv_errs *e, const char *field, const char *fmt, ...)
{
    va_list ap;
    char *reason;
    va_start(ap, fmt);
    reason = apr_pvsprintf(e->pool, fmt, ap);
    va_end(ap);
    e->count++;
    if (json_array_size(e->details) >= TRV_ERRS_MAX_DETAILS) {
        return;
    }
    json_array_append_new(e->details, json_pack("{s:s,s:s}", "field",
                                                 trv_utf8_clean(e->pool, field), "reason",
                                                 trv_utf8_clean(e->pool, reason)));
}

int trv_errs_any(const trv_errs *e)
{
    return e && e->count > 0;
}

const char *trv_status_code(int status)
{
    switch (status) {
    case 400: return "invalid_json";
    case 401: return "unauthorized";
    case 404: return "not_found";
    case 405: return "method_not_allowed";
    case 409: return "conflict";
    case 413: return "payload_too_large";
    case 415: return "unsupported_media_type";
    case 422: return "validation_failed";
    case 502: return "supplier_error";
    case 503: return "unavailable";
    case 504: return "supplier_timeout";
    default:
        return status >= 500 ? "internal_error" : "bad_request";
    }
}

json_t *trv_error_doc(const char *code, const char *message,
                      const char *request_id, json_t *details)
{
    json_t *err = json_pack("{s:s,s:s,s:s}", "code", code, "message", message,
                            "request_id", request_id ? request_id : "");
    if (details) {
        json_object_set(err, "details", details);
    }
    return json_pack("{s:o}", "error", err);
}
