#include "api.h"
#include "json.h"
#include "upstream_limit.h"
#include "utf8.h"

#include <apr_strings.h>
#include <stdarg.h>
#include <string.h>

void trv_ok(trv_req *req, trv_resp *resp, int status, json_t *data, json_t *meta)
{
    resp->status = status;
    resp->data = trv_json_bind(req->pool, data);
    resp->meta = trv_json_bind(req->pool, meta);
}

void trv_ok_text(trv_req *req, trv_resp *resp, int status, const char *data_json,
                 json_t *meta)
{
    trv_ok(req, resp, status, NULL, meta);
    resp->data_text = data_json;
}

/* {"data":[part,part,...],"meta":...} written once into one buffer: the
 * parts are stored renderings (or one run of them already joined by
 * PostgreSQL), copied, never parsed. */
static void ok_parts(trv_req *req, trv_resp *resp, int status, const char *const *parts,
                     int nparts, json_t *meta)
{
    static const char head[] = "{\"data\":[", mid[] = "],\"meta\":";
    const char *m = meta ? trv_json_dump(req->pool, trv_json_bind(req->pool, meta)) : NULL;
    apr_size_t ml = m ? strlen(m) : 0, n, *lens;
    char *body, *at;
    int i;

    lens = apr_palloc(req->pool, sizeof(apr_size_t) * (nparts + 1));
    n = sizeof(head) - 1 + (m ? sizeof(mid) - 1 + ml : 1) + 1;
    for (i = 0; i < nparts; i++) {
        lens[i] = strlen(parts[i]);
        n += lens[i] + (i ? 1 : 0);
    }
    at = body = apr_palloc(req->pool, n + 1);
    memcpy(at, head, sizeof(head) - 1);
    at += sizeof(head) - 1;
    for (i = 0; i < nparts; i++) {
        if (i) {
            *at++ = ',';
        }
        memcpy(at, parts[i], lens[i]);
        at += lens[i];
    }
    if (m) {
        memcpy(at, mid, sizeof(mid) - 1);
        at += sizeof(mid) - 1;
        memcpy(at, m, ml);
        at += ml;
    }
    else {
        *at++ = ']';
    }
    *at++ = '}';
    *at = '\0';
    trv_ok_raw(req, resp, status, "application/json", body, (apr_size_t)(at - body));
}

void trv_ok_items(trv_req *req, trv_resp *resp, int status, const apr_array_header_t *items,
                  json_t *meta)
{
    ok_parts(req, resp, status, (const char *const *)items->elts, items->nelts, meta);
}

void trv_ok_joined(trv_req *req, trv_resp *resp, int status, const char *joined,
                   json_t *meta)
{
    ok_parts(req, resp, status, &joined, 1, meta);
}

void trv_ok_document(trv_req *req, trv_resp *resp, int status, json_t *doc)
{
    resp->status = status;
    resp->data = resp->meta = resp->error = NULL;
    resp->error_code = NULL;
    resp->data_text = NULL;
    resp->document = trv_json_bind(req->pool, doc);
}

void trv_ok_raw(trv_req *req, trv_resp *resp, int status, const char *type,
                const char *body, apr_size_t len)
{
    (void)req;
    resp->status = status;
    resp->data = resp->meta = resp->error = resp->document = NULL;
    resp->error_code = NULL;
    resp->data_text = NULL;
    resp->raw = body;
    resp->raw_len = len;
    resp->raw_type = type;
}

static void fail_with(trv_req *req, trv_resp *resp, int status, const char *code,
                      const char *message, json_t *details)
{
    resp->status = status;
    resp->error_code = code;
    resp->data = resp->meta = resp->document = NULL;
    resp->data_text = NULL;
    resp->raw = NULL;
    /* Every 503 says when to come back (load balancers, SDK retries). */
    if (status == 503 && resp->headers) {
        apr_table_setn(resp->headers, "Retry-After", TRV_RETRY_AFTER_S);
    }
    /* The message may quote what the caller sent: it must stay valid UTF-8
     * or the encoder would drop the whole document. */
    resp->error = trv_json_bind(req->pool,
                                trv_error_doc(code, trv_utf8_clean(req->pool, message),
                                              trv_utf8_clean(req->pool, req->request_id),
                                              details));
}

void trv_fail(trv_req *req, trv_resp *resp, int status, const char *code,
              const char *fmt, ...)
{
    va_list ap;
    char *msg;
    va_start(ap, fmt);
    msg = apr_pvsprintf(req->pool, fmt, ap);
    va_end(ap);
    fail_with(req, resp, status, code, msg, NULL);
}

void trv_fail_invalid(trv_req *req, trv_resp *resp, const trv_errs *errs)
{
    size_t n = errs->count;
    json_t *first = json_array_get(errs->details, 0);
    const char *msg = apr_psprintf(req->pool, "%s: %s%s",
        json_string_value(json_object_get(first, "field")),
        json_string_value(json_object_get(first, "reason")),
        n > 1 ? apr_psprintf(req->pool, " (and %" APR_SIZE_T_FMT " more)", n - 1) : "");
    fail_with(req, resp, 422, "validation_failed", msg, errs->details);
}

void trv_fail_db(trv_req *req, trv_resp *resp, const trv_dbc *c, int logno,
                 const char *what)
{
    int down = !c || c->unavailable;
    /* A lost connection is logged by the request that meets it, once per
     * connection (it is dropped and reopened after). No connection at all
     * is what every request meets while the database is away: logged
     * once per child every few seconds, the rest at info level. */
    int level = !c && !trv_db_outage_note(apr_time_now()) ? TRV_LOG_INFO : TRV_LOG_ERR;
    trv_log_msg(&req->log, level, req->request_id,
                "TRV%03d: %s: %s", logno, what,
                c ? (c->error ? c->error : "failed") : TRV_DB_UNAVAILABLE ": no connection");
    if (down) {
        trv_fail(req, resp, 503, "unavailable",
                 "The service is temporarily unavailable; retry shortly");
    }
    else {
        trv_fail(req, resp, 500, "internal_error",
                 "An internal error occurred; the request id identifies it");
    }
}

json_t *trv_resp_document(const trv_resp *resp)
{
    json_t *doc;
    if (resp->document) {
        return json_incref(resp->document);
    }
    if (resp->error) {
        return json_incref(resp->error);
    }
    doc = json_object();
    json_object_set(doc, "data", resp->data ? resp->data : json_null());
    if (resp->meta) {
        json_object_set(doc, "meta", resp->meta);
    }
    return doc;
}

const json_t *trv_resp_data(apr_pool_t *p, const trv_resp *resp)
{
    if (resp->data) {
        return resp->data;
    }
    return resp->data_text ? trv_json_parse(p, resp->data_text, strlen(resp->data_text), NULL)
                           : NULL;
}

char *trv_resp_body(apr_pool_t *p, const trv_resp *resp)
{
    json_t *doc;
    char *body;
    if (resp->data_text && !resp->error && !resp->document) {
        return apr_pstrcat(p, "{\"data\":", resp->data_text,
                           resp->meta ? ",\"meta\":" : "",
                           resp->meta ? trv_json_dump(p, resp->meta) : "", "}", NULL);
    }
    doc = trv_resp_document(resp);
    body = trv_json_dump(p, doc);
    json_decref(doc);
    return body;
}

void trv_fail_upstream(trv_req *req, trv_resp *resp, trv_up_status st, int logno,
                       const char *area, const char *who, const char *message)
{
    trv_log_msg(&req->log, TRV_LOG_WARNING, req->request_id, "TRV%d: %s%s: %s: %s", logno,
                area, who, trv_up_status_name(st), message ? message : "");
    if (st == TRV_UP_TIMEOUT) {
        trv_fail(req, resp, 504, "supplier_timeout", "%s did not answer in time; retry later",
                 who);
    }
    else {
        trv_fail(req, resp, 502, "supplier_error", "%s could not be used: %s", who,
                 st == TRV_UP_UNAVAILABLE ? "it is unavailable; retry later"
                                          : "it gave an answer the service cannot use");
    }
}

void trv_fail_supplier(trv_req *req, trv_resp *resp, trv_up_status st, int logno,
                       const char *area, const trv_upstream *up, const char *who,
                       const char *message)
{
    apr_time_t now = apr_time_now();
    apr_time_t until = st == TRV_UP_UNAVAILABLE
                           ? trv_upstream_limit_until(req->env->upstream_limits, up, now) : 0;
    apr_time_t spent = st == TRV_UP_UNAVAILABLE
                           ? trv_upstream_limit_budget_until(req->env->upstream_limits, up, now)
                           : 0;
    apr_int64_t secs;
    if (!until && spent) {
        /* The operator's ceiling, not the supplier, held the call: the
         * client is asking faster than the supplier may be asked. A 429
         * with the second to wait, never a 5xx (the supplier is fine). */
        trv_log_msg(&req->log, TRV_LOG_WARNING, req->request_id,
                    TRVLOGNO(3220) "%s%s: its call budget (max_calls_per_second=%ld) is spent: %s",
                    area, who, up ? up->max_calls_per_second : 0L, message ? message : "");
        trv_fail(req, resp, 429, "rate_limited",
                 "%s is asked more often than its call budget of %ld a second allows; "
                 "retry after 1 seconds", who, up ? up->max_calls_per_second : 0L);
        if (resp->headers) {
            apr_table_setn(resp->headers, "Retry-After", "1");
        }
        return;
    }
    if (!until) {
        trv_fail_upstream(req, resp, st, logno, area, who, message);
        return;
    }
    /* Whole seconds, rounded up: a client that waits them finds it over. */
    secs = (apr_int64_t)((until - now + APR_USEC_PER_SEC - 1) / APR_USEC_PER_SEC);
    trv_log_msg(&req->log, TRV_LOG_WARNING, req->request_id,
                "TRV%d: %s%s: over its rate limit for %" APR_INT64_T_FMT " s: %s", logno, area,
                who, secs, message ? message : "");
    trv_fail(req, resp, 503, "supplier_rate_limited",
             "%s is over its rate limit (the supplier said so); retry after %" APR_INT64_T_FMT
             " seconds", who, secs);
    if (resp->headers) {
        apr_table_setn(resp->headers, "Retry-After",
                       apr_psprintf(req->pool, "%" APR_INT64_T_FMT, secs));
    }
}

int trv_api_db_open(trv_req *req, trv_resp *resp, trv_dbc **c, int logno, const char *what)
{
    if (trv_db_open(req->env->db, req->pool, c) != APR_SUCCESS) {
        trv_fail_db(req, resp, NULL, logno, what);
        return 0;
    }
    return 1;
}

void trv_api_db_fail(trv_req *req, trv_resp *resp, trv_dbc *c, int logno, const char *what)
{
    trv_fail_db(req, resp, c, logno, what);
    if (c) {
        if (c->in_txn) {
            trv_db_rollback(c);
        }
        trv_db_close(req->env->db, c);
    }
}

void *trv_api_booking_read(trv_req *req, trv_resp *resp, trv_dbc *c,
                           const trv_api_booking_reader *r, const char *id, int logno,
                           const char *what)
{
    void *b = NULL;
    if (r->get(req, c, id, &b) != APR_SUCCESS) {
        trv_api_db_fail(req, resp, c, logno, what);
        return NULL;
    }
    if (!b) {
        trv_db_close(req->env->db, c);
        r->no_booking(req, resp, id);
    }
    return b;
}

void trv_api_booking_reread(trv_req *req, trv_resp *resp, trv_dbc *c,
                            const trv_api_booking_reader *r, const char *id, int logno,
                            const char *what,
                            void (*answer)(trv_req *req, trv_resp *resp, const void *b))
{
    void *b = NULL;
    if (r->get(req, c, id, &b) != APR_SUCCESS || !b) {
        trv_api_db_fail(req, resp, c, logno, what);
        return;
    }
    trv_db_close(req->env->db, c);
    answer(req, resp, b);
}

void *trv_api_booking_open(trv_req *req, trv_resp *resp, trv_errs *errs,
                           const trv_api_booking_reader *r, const char *id, int logno_open,
                           int logno_read, const char *what, trv_dbc **c)
{
    if (errs && trv_errs_any(errs)) {
        trv_fail_invalid(req, resp, errs);
        return NULL;
    }
    if (!trv_api_db_open(req, resp, c, logno_open, what)) {
        return NULL;
    }
    return trv_api_booking_read(req, resp, *c, r, id, logno_read, what);
}
