/* The webhook inbox: a receiver for tests and for developers trying
 * webhooks locally. It records method, path, headers and the raw body of
 * every request, and answers 200 unless told otherwise (a status, a
 * Retry-After, a delay, a body that is not JSON, no answer) for the next
 * requests. Its behavior is a fault of target "inbox" (faults.h), scoped
 * by the inbox name. */
#include "faults.h"
#include "sandbox.h"
#include "core/json.h"
#include "core/validate.h"

#include <apr_base64.h>
#include <apr_lib.h>
#include <apr_strings.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

static const trv_stmt record_stmt = {"sbx_inbox_record",
    "INSERT INTO sandbox.inbox_requests (inbox, method, path, query, headers, body, status) "
    "VALUES (%s, %s, %s, %s, %s::jsonb, decode(%s, 'base64'), %s::int) RETURNING id"};

static const trv_stmt list_stmt = {"sbx_inbox_list",
    "SELECT id, method, path, query, headers::text AS headers, "
    "translate(encode(body, 'base64'), E'\\n', '') AS body, status, trv_ts(received_at) AS received_at "
    "FROM sandbox.inbox_requests WHERE inbox = %s AND id > %s::bigint "
    "ORDER BY id LIMIT %s::int"};

static const trv_stmt clear_requests = {"sbx_inbox_clear_requests",
    "DELETE FROM sandbox.inbox_requests WHERE inbox = %s"};

static int inbox_name_ok(const char *s)
{
    size_t n = strlen(s), i;
    if (n < 1 || n > 100) {
        return 0;
    }
    for (i = 0; i < n; i++) {
        char ch = s[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z')
              || (ch >= '0' && ch <= '9') || ch == '-' || ch == '_')) {
            return 0;
        }
    }
    return 1;
}

typedef struct header_ctx {
    apr_pool_t *pool;
    json_t *obj;
} header_ctx;

/* Header names lower-cased; repeated headers joined with ", " as HTTP allows. */
static int add_header(void *u, const char *k, const char *v)
{
    header_ctx *h = u;
    char *name = apr_pstrdup(h->pool, k), *s;
    json_t *old;
    for (s = name; *s; s++) {
        *s = (char)apr_tolower(*s);
    }
    old = json_object_get(h->obj, name);
    json_object_set_new(h->obj, name, json_string(
        old ? apr_pstrcat(h->pool, json_string_value(old), ", ", v, NULL) : v));
    return 1;
}

static char *b64(apr_pool_t *p, const char *data, apr_size_t len)
{
    char *out = apr_palloc(p, apr_base64_encode_len((int)len));
    apr_base64_encode(out, data, (int)len);
    return out;
}

static int fail_db(trv_req *req, trv_resp *resp, trv_dbc *c, int logno)
{
    trv_fail_db(req, resp, c, logno, "sandbox inbox");
    if (c) {
        trv_db_close(req->env->db, c);
    }
    return 0;
}

sbx_fault_outcome trv_sandbox_inbox_receive(trv_req *req, trv_resp *resp, const char *inbox)
{
    trv_dbc *c = NULL;
    trv_rows *rows;
    int status = 200;
    sbx_fault *f = NULL;
    json_t *headers;

    if (!inbox_name_ok(inbox)) {
        trv_fail(req, resp, 404, "not_found", "Inbox names are 1-100 of [A-Za-z0-9_-]");
        return SBX_FAULT_ANSWERED;
    }
    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS) {
        fail_db(req, resp, NULL, 801);
        return SBX_FAULT_ANSWERED;
    }
    if (sbx_fault_take(c, req->pool, "inbox", inbox, req->method, req->path, &f,
                       NULL)
        != APR_SUCCESS) {
        fail_db(req, resp, c, 802);
        return SBX_FAULT_ANSWERED;
    }
    if (f) {
        /* 0 is recorded for a connection closed without an answer. */
        status = strncmp(f->action, "drop", 4) == 0 ? 0 : f->status ? f->status : 200;
    }
    headers = trv_json_bind(req->pool, json_object());
    {
        header_ctx hc = {req->pool, headers};
        apr_table_do(add_header, &hc, req->headers, NULL);
    }
    if (trv_db_select(c, req->pool, &record_stmt, &rows,
                      TRV_DB_ARGS(inbox, req->method, req->path,
                                  req->args,
                                  trv_json_dump(req->pool, headers),
                                  b64(req->pool, req->body ? req->body : "", req->body_len),
                                  apr_itoa(req->pool, status))) != APR_SUCCESS) {
        fail_db(req, resp, c, 803);
        return SBX_FAULT_ANSWERED;
    }
    trv_db_close(req->env->db, c);
    if (f) {
        sbx_fault_wait(req, resp, f);
        if (strncmp(f->action, "drop", 4) == 0) { /* recorded, so handled either way */
            return SBX_FAULT_DROP;
        }
        if (strcmp(f->action, "garbage") == 0) {
            resp->status = status;
            return SBX_FAULT_GARBAGE;
        }
    }
    if (status >= 400) {
        trv_fail(req, resp, status, f && f->code ? f->code : "inbox_told_to_fail",
                 "%s", f && f->message ? f->message
                 : apr_psprintf(req->pool, "The sandbox inbox was told to answer %d", status));
        return SBX_FAULT_ANSWERED;
    }
    trv_ok(req, resp, status, json_pack("{s:b,s:s}", "received", 1, "inbox", inbox), NULL);
    return SBX_FAULT_ANSWERED;
}

static void list_requests(trv_req *req, trv_resp *resp)
{
    static const char *const known[] = {"after_id", "limit", NULL};
    trv_errs *errs = trv_errs_new(req->pool);
    const char *inbox = apr_table_get(req->params, "inbox");
    long after = trv_query_int(req->query, "after_id", 0, 0, LONG_MAX, errs);
    long limit = trv_query_int(req->query, "limit", 1000, 1, 10000, errs);
    trv_dbc *c;
    trv_rows *rows;
    json_t *data;
    int i;

    trv_query_known(req->query, known, errs);
    if (trv_errs_any(errs)) {
        trv_fail_invalid(req, resp, errs);
        return;
    }
    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS) {
        fail_db(req, resp, NULL, 804);
        return;
    }
    if (trv_db_select(c, req->pool, &list_stmt, &rows,
                      TRV_DB_ARGS(inbox, apr_ltoa(req->pool, after),
                                  apr_ltoa(req->pool, limit))) != APR_SUCCESS) {
        fail_db(req, resp, c, 805);
        return;
    }
    trv_db_close(req->env->db, c);
    data = json_array();
    for (i = 0; i < rows->n; i++) {
        const char *enc = trv_rows_get(rows, i, "body");
        char *raw = apr_palloc(req->pool, apr_base64_decode_len(enc) + 1);
        int len = apr_base64_decode(raw, enc);
        json_t *h = json_loads(trv_rows_get(rows, i, "headers"), 0, NULL);
        raw[len] = '\0';
        json_array_append_new(data, json_pack("{s:I,s:s,s:s,s:o,s:s%,s:s,s:i,s:s}",
            "id", (json_int_t)atol(trv_rows_get(rows, i, "id")),
            "method", trv_rows_get(rows, i, "method"),
            "path", trv_rows_get(rows, i, "path"),
            "headers", h ? h : json_object(),
            "body", raw, (size_t)len,
            "body_base64", enc,
            "status", trv_rows_int(rows, i, "status", 0),
            "received_at", trv_rows_get(rows, i, "received_at")));
    }
    trv_ok(req, resp, 200, data, NULL);
}

/* PUT /sandbox/inboxes/{inbox}/behavior {status, retry_after, delay_ms,
 * times, action, code, message}: how the next requests are answered
 * (times absent: every request until reset). */
static void put_behavior(trv_req *req, trv_resp *resp)
{
    static const char *const known[] = {"status", "retry_after", "delay_ms", "times",
                                        "action", "code", "message", NULL};
    trv_errs *errs = trv_errs_new(req->pool);
    const char *inbox = apr_table_get(req->params, "inbox");
    json_t *b = req->json, *row;
    sbx_fault_rule rule;
    trv_dbc *c;

    if (!b) {
        trv_errs_add(errs, "body", "is required");
        trv_fail_invalid(req, resp, errs);
        return;
    }
    trv_json_known(b, NULL, known, errs);
    memset(&rule, 0, sizeof(rule));
    sbx_fault_parse(req->pool, b, &rule, errs);
    /* (an error without one is refused by the parser already) */
    if (!json_object_get(b, "status") && strcmp(rule.fault.action, "respond") == 0) {
        trv_errs_add(errs, "status", "is required: the status to answer");
    }
    if (trv_errs_any(errs)) {
        trv_fail_invalid(req, resp, errs);
        return;
    }
    rule.target = "inbox";
    rule.scope = inbox;
    rule.exact = 1;
    if (rule.times < 0) {
        rule.times = 0;
    }
    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS) {
        fail_db(req, resp, NULL, 806);
        return;
    }
    if (sbx_fault_add(c, req->pool, &rule, &row) != APR_SUCCESS) {
        fail_db(req, resp, c, 807);
        return;
    }
    trv_db_close(req->env->db, c);
    trv_ok(req, resp, 200, json_incref(b), NULL);
}

static void reset(trv_req *req, trv_resp *resp, int requests_too)
{
    const char *inbox = apr_table_get(req->params, "inbox");
    trv_dbc *c;
    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS) {
        fail_db(req, resp, NULL, 808);
        return;
    }
    if (sbx_fault_clear(c, req->pool, "inbox", inbox, NULL) != APR_SUCCESS
        || (requests_too && trv_db_exec(c, req->pool, &clear_requests, NULL,
                                        TRV_DB_ARGS(inbox)) != APR_SUCCESS)) {
        fail_db(req, resp, c, 809);
        return;
    }
    trv_db_close(req->env->db, c);
    trv_ok(req, resp, 200, json_pack("{s:s}", "inbox", inbox), NULL);
}

static void delete_behavior(trv_req *req, trv_resp *resp)
{
    reset(req, resp, 0);
}

static void delete_inbox(trv_req *req, trv_resp *resp)
{
    reset(req, resp, 1);
}

const trv_route trv_sandbox_inbox_routes[] = {
    {"GET", "/sandbox/inboxes/{inbox}/requests", list_requests,
     TRV_ROUTE_PUBLIC | TRV_ROUTE_OWN_QUERY},
    {"PUT", "/sandbox/inboxes/{inbox}/behavior", put_behavior, TRV_ROUTE_PUBLIC},
    {"DELETE", "/sandbox/inboxes/{inbox}/behavior", delete_behavior, TRV_ROUTE_PUBLIC},
    {"DELETE", "/sandbox/inboxes/{inbox}", delete_inbox, TRV_ROUTE_PUBLIC},
    {NULL, NULL, NULL, 0},
};
