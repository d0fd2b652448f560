/* The edge of SUPPLIER_A's Duffel Air API v2 surface (under /suppliers/a):
 * what every Duffel answer has whatever the handler was — the
 * Duffel-Version header checked, rate-limit headers, and every error in
 * Duffel's shape {errors: [{type, title, message, code, documentation_url,
 * source?}], meta: {status, request_id}}. The sandbox's shared helpers
 * (sbx_api.c, faults.c, the router) answer errors in the sandbox's own
 * {"error": {code, message, field?}} envelope; this file rewrites them, so
 * idempotent replays, faults and authentication speak Duffel too. */
#include "duffel.h"
#include "core/clock.h"

#include <apr_atomic.h>
#include <apr_date.h>
#include <apr_lib.h>
#include <apr_strings.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define DUFFEL_DOCS "https://duffel.com/docs/api/overview/errors"

int sbx_duffel_path(const char *path)
{
    return path && strncmp(path, SBX_DUFFEL_BASE, sizeof(SBX_DUFFEL_BASE) - 1) == 0
           && (path[sizeof(SBX_DUFFEL_BASE) - 1] == '/' || !path[sizeof(SBX_DUFFEL_BASE) - 1]);
}

void sbx_duffel_path_fix(trv_req *req)
{
    size_t n = strlen(req->path);
    if (n > sizeof(SBX_DUFFEL_BASE) && req->path[n - 1] == '/') {
        req->path = apr_pstrndup(req->pool, req->path, n - 1);
    }
}

int sbx_duffel_version_ok(trv_req *req, trv_resp *resp)
{
    const char *v = apr_table_get(req->headers, "Duffel-Version");
    if (v && strcmp(v, "v2") == 0) {
        return 1;
    }
    if (v) {
        sbx_error(req, resp, 400, "unsupported_version",
                  "Duffel-Version %s is not supported; send Duffel-Version: v2", v);
    }
    else {
        sbx_error(req, resp, 400, "unsupported_version",
                  "The Duffel-Version header is required (v2)");
    }
    return 0;
}

/* ---- the rate limit: a fixed window per child process ---- */

static apr_uint32_t window_start; /* unix seconds / SBX_DUFFEL_RATE_WINDOW */
static apr_uint32_t window_used;

/* Sets a header unless a fault set it already (POST /sandbox/faults
 * "headers": the window as a test wants it). */
static void set_unless_given(trv_resp *resp, const char *name, const char *value)
{
    if (!apr_table_get(resp->headers, name)) {
        apr_table_setn(resp->headers, name, value);
    }
}

static void rate_headers(const trv_req *req, trv_resp *resp, apr_uint32_t left, apr_time_t reset)
{
    apr_pool_t *p = req->pool;
    char date[APR_RFC822_DATE_LEN];
    apr_rfc822_date(date, reset);
    set_unless_given(resp, "ratelimit-limit", apr_itoa(p, SBX(req)->set->duffel_rate));
    set_unless_given(resp, "ratelimit-remaining", apr_psprintf(p, "%u", left));
    set_unless_given(resp, "ratelimit-reset", apr_pstrdup(p, date));
}

void sbx_duffel_rate_fault(trv_req *req, trv_resp *resp)
{
    const char *ra = apr_table_get(resp->headers, "Retry-After");
    apr_time_t reset = apr_time_from_sec((sbx_now() / SBX_DUFFEL_RATE_WINDOW + 1)
                                         * SBX_DUFFEL_RATE_WINDOW);
    if (resp->status != 429) {
        return;
    }
    if (ra && apr_isdigit(ra[0])) {
        reset = apr_time_from_sec(sbx_now() + apr_atoi64(ra));
    }
    rate_headers(req, resp, 0, reset);
}

int sbx_duffel_rate_ok(trv_req *req, trv_resp *resp)
{
    apr_uint32_t now = (apr_uint32_t)(sbx_now() / SBX_DUFFEL_RATE_WINDOW), used;
    apr_uint32_t seen = apr_atomic_read32(&window_start);
    apr_uint32_t limit = (apr_uint32_t)SBX(req)->set->duffel_rate;
    if (seen != now && apr_atomic_cas32(&window_start, now, seen) == seen) {
        apr_atomic_set32(&window_used, 0);
    }
    used = apr_atomic_inc32(&window_used) + 1;
    rate_headers(req, resp, used >= limit ? 0 : limit - used,
                 apr_time_from_sec((apr_time_t)(now + 1) * SBX_DUFFEL_RATE_WINDOW));
    if (used <= limit) {
        return 1;
    }
    apr_table_setn(resp->headers, "Retry-After",
                   apr_psprintf(req->pool, "%d", (int)((apr_int64_t)(now + 1)
                                * SBX_DUFFEL_RATE_WINDOW - sbx_now())));
    sbx_error(req, resp, 429, "rate_limit_exceeded",
              "Too many requests: %u a minute are allowed", limit);
    return 0;
}

/* ---- errors ---- */

static const char *type_of(int status, const char *code)
{
    static const char *const airline[] = {"ticketing_failed", "cancellation_rejected", NULL};
    int i;
    for (i = 0; code && airline[i]; i++) {
        if (strcmp(code, airline[i]) == 0) {
            return "airline_error";
        }
    }
    switch (status) {
    case 401: return "authentication_error";
    case 403: return "authorisation_error";
    case 429: return "rate_limit_error";
    case 400: case 404: case 405: case 413: case 415: return "invalid_request_error";
    case 422:
        return code && strncmp(code, "validation", 10) == 0 ? "validation_error"
                                                            : "invalid_state_error";
    default: return status >= 500 ? "api_error" : "invalid_request_error";
    }
}

/* "offer_no_longer_available" -> "Offer no longer available". */
static const char *title_of(apr_pool_t *p, const char *code)
{
    char *t = apr_pstrdup(p, code && *code ? code : "error"), *c;
    for (c = t; *c; c++) {
        if (*c == '_') {
            *c = ' ';
        }
    }
    t[0] = (char)apr_toupper(t[0]);
    return t;
}

/* "data.passengers[0].id" -> "/passengers/0/id" (Duffel points into data). */
static const char *pointer_of(apr_pool_t *p, const char *field)
{
    char *out = apr_palloc(p, strlen(field) + 2), *o = out;
    const char *s = strncmp(field, "data.", 5) == 0 ? field + 5 : field;
    *o++ = '/';
    for (; *s; s++) {
        if (*s == '.' || *s == '[') {
            *o++ = '/';
        }
        else if (*s != ']') {
            *o++ = *s;
        }
    }
    *o = '\0';
    return out;
}

json_t *sbx_duffel_error_doc(apr_pool_t *p, const char *request_id, int status,
                             const char *code, const char *message, const char *field)
{
    json_t *e = json_pack("{s:s,s:s,s:s,s:s,s:s}", "type", type_of(status, code),
                          "title", title_of(p, code), "message", message ? message : "",
                          "code", code ? code : "error", "documentation_url", DUFFEL_DOCS);
    if (field) {
        json_object_set_new(e, "source", json_pack("{s:s,s:s}", "field", field,
                                                   "pointer", pointer_of(p, field)));
    }
    return json_pack("{s:[o],s:{s:i,s:s}}", "errors", e, "meta", "status", status,
                     "request_id", request_id ? request_id : "");
}

void sbx_duffel_finish(trv_req *req, trv_resp *resp)
{
    const json_t *e = NULL;
    if (resp->status < 400) {
        return;
    }
    if (resp->document) {
        e = json_object_get(resp->document, "error");
        if (!e) {
            return; /* already Duffel's shape */
        }
    }
    else if (resp->error) {
        e = json_object_get(resp->error, "error") ? json_object_get(resp->error, "error")
                                                  : resp->error;
    }
    if (!e) {
        return;
    }
    {
        const char *field = trv_json_str(e, "field");
        const json_t *details = json_object_get(e, "details");
        if (!field && json_is_array(details)) {
            field = trv_json_str(json_array_get(details, 0), "field");
        }
        trv_ok_document(req, resp, resp->status,
                        sbx_duffel_error_doc(req->pool, req->request_id, resp->status,
                                             trv_json_str(e, "code"),
                                             trv_json_str(e, "message"), field));
    }
}

/* ---- pagination ---- */

static const char *cursor(apr_pool_t *p, int offset)
{
    /* Opaque to clients, as Duffel's are. */
    return apr_psprintf(p, "g2wAAAA%x", offset);
}

static int cursor_offset(const char *c)
{
    char *end;
    long v;
    if (!c || strncmp(c, "g2wAAAA", 7) != 0 || !isxdigit((unsigned char)c[7])) {
        return -1;
    }
    v = strtol(c + 7, &end, 16);
    return *end || v < 0 || v > 1000000 ? -1 : (int)v;
}

int sbx_duffel_page(trv_req *req, trv_resp *resp, sbx_duffel_page_t *pg)
{
    const char *l = apr_table_get(req->query, "limit");
    const char *after = apr_table_get(req->query, "after");
    const char *before = apr_table_get(req->query, "before");
    pg->limit = 50;
    pg->offset = 0;
    if (l) {
        char *end;
        long v = strtol(l, &end, 10);
        if (!*l || *end || v < 1 || v > 200) {
            sbx_invalid(req, resp, "limit", "must be an integer from 1 to 200");
            return 0;
        }
        pg->limit = (int)v;
    }
    if (after && before) {
        sbx_invalid(req, resp, "after", "give after or before, not both");
        return 0;
    }
    if (after) {
        if ((pg->offset = cursor_offset(after)) < 0) {
            sbx_invalid(req, resp, "after", "is not a cursor this list gave");
            return 0;
        }
    }
    else if (before) {
        int end = cursor_offset(before);
        if (end < 0) {
            sbx_invalid(req, resp, "before", "is not a cursor this list gave");
            return 0;
        }
        pg->offset = end > pg->limit ? end - pg->limit : 0;
    }
    return 1;
}

json_t *sbx_duffel_page_meta(apr_pool_t *p, const sbx_duffel_page_t *pg, int total)
{
    int next = pg->offset + pg->limit;
    /* after is null on the last page; before is left out on the first
     * (PaginationMeta: after?: string | null, before?: string). */
    json_t *m = json_pack("{s:i,s:o}", "limit", pg->limit,
                          "after", next < total ? json_string(cursor(p, next)) : json_null());
    if (pg->offset > 0) {
        json_object_set_new(m, "before", json_string(cursor(p, pg->offset)));
    }
    return m;
}
