/* request_rec <-> trv_req / trv_resp. */
#include "glue.h"
#include "core/decode.h"
#include "core/ids.h"
#include "core/json.h"
#include "core/validate.h"

#include "http_protocol.h"
#include "http_request.h"
#include "util_script.h"

#include <apr_strings.h>

const char *trv_httpd_request_id(request_rec *r)
{
    const char *rid = apr_table_get(r->notes, "trv-request-id");
    if (rid) {
        return rid;
    }
    rid = apr_table_get(r->headers_in, "x-request-id");
    if (!rid || !trv_printable(rid, 1, 200)) {
        char *u = trv_uuid7_at(r->pool, apr_time_now());
        rid = apr_pstrcat(r->pool, "req_", u ? u : "unavailable", NULL);
    }
    apr_table_setn(r->notes, "trv-request-id", rid);
    apr_table_setn(r->err_headers_out, "x-request-id", rid);
    return rid;
}

/* The query and the path, by the one decoding rule of core/decode.h;
 * what breaks it is kept for the dispatcher to answer (after the caller
 * is authenticated). */
static void decode_request_line(request_rec *r, trv_req *req)
{
    trv_errs *errs = trv_errs_new(r->pool);
    req->query = apr_table_make(r->pool, 8);
    trv_path_check(r->uri, errs);
    trv_query_decode(r->pool, r->args, req->query, errs);
    req->decode_errs = trv_errs_any(errs) ? errs : NULL;
}

/* Reads the body with our own cap: r->remaining is 0 for chunked bodies,
 * so nothing is sized from it. */
static int read_body(request_rec *r, apr_off_t max, trv_req *req)
{
    const char *cl = apr_table_get(r->headers_in, "Content-Length");
    apr_bucket_brigade *bb;
    char *buf = NULL;
    apr_size_t len = 0, cap = 0;
    int seen_eos = 0;

    if (max < 0) {
        return 0;
    }
    if (cl) {
        char *end;
        apr_off_t n;
        if (apr_strtoff(&n, cl, &end, 10) != APR_SUCCESS || *end || n < 0) {
            return HTTP_BAD_REQUEST;
        }
        if (n > max) {
            req->body_too_large = 1;
            r->connection->keepalive = AP_CONN_CLOSE;
            return 0;
        }
        if (n == 0) {
            return 0;
        }
    }
    else if (!apr_table_get(r->headers_in, "Transfer-Encoding")) {
        return 0;
    }
    bb = apr_brigade_create(r->pool, r->connection->bucket_alloc);
    while (!seen_eos) {
        apr_bucket *b;
        apr_status_t rv = ap_get_brigade(r->input_filters, bb, AP_MODE_READBYTES,
                                         APR_BLOCK_READ, HUGE_STRING_LEN);
        if (rv != APR_SUCCESS) {
            apr_brigade_destroy(bb);
            return rv == AP_FILTER_ERROR ? HTTP_REQUEST_ENTITY_TOO_LARGE
                                         : HTTP_BAD_REQUEST;
        }
        for (b = APR_BRIGADE_FIRST(bb); b != APR_BRIGADE_SENTINEL(bb);
             b = APR_BUCKET_NEXT(b)) {
            const char *data;
            apr_size_t n;
            if (APR_BUCKET_IS_EOS(b)) {
                seen_eos = 1;
                break;
            }
            if (APR_BUCKET_IS_METADATA(b)) {
                continue;
            }
            if (apr_bucket_read(b, &data, &n, APR_BLOCK_READ) != APR_SUCCESS) {
                apr_brigade_destroy(bb);
                return HTTP_BAD_REQUEST;
            }
            if ((apr_off_t)(len + n) > max) {
                req->body_too_large = 1;
                r->connection->keepalive = AP_CONN_CLOSE;
                apr_brigade_destroy(bb);
                return 0;
            }
            if (len + n + 1 > cap) {
                char *nb;
                cap = (len + n + 1) * 2;
                nb = apr_palloc(r->pool, cap);
                if (len) {
                    memcpy(nb, buf, len);
                }
                buf = nb;
            }
            memcpy(buf + len, data, n);
            len += n;
        }
        apr_brigade_cleanup(bb);
    }
    apr_brigade_destroy(bb);
    if (buf) {
        buf[len] = '\0';
    }
    req->body = buf;
    req->body_len = len;
    return 0;
}

int trv_httpd_read_request(request_rec *r, apr_off_t max_body, trv_req *req)
{
    memset(req, 0, sizeof(*req));
    req->pool = r->pool;
    req->method = r->header_only ? "GET" : r->method;
    req->path = r->uri;
    decode_request_line(r, req);
    req->args = r->args;
    req->headers = r->headers_in;
    req->client_ip = r->useragent_ip;
    req->content_type = apr_table_get(r->headers_in, "Content-Type");
    req->request_id = trv_httpd_request_id(r);
    trv_httpd_request_log(r, req);
    return read_body(r, max_body, req);
}

static int copy_header(void *u, const char *k, const char *v)
{
    apr_table_set(((request_rec *)u)->headers_out, k, v);
    return 1;
}

int trv_httpd_write_response(request_rec *r, const trv_resp *resp)
{
    const char *body = resp->raw ? resp->raw : trv_resp_body(r->pool, resp);
    apr_size_t len;
    if (!body) {
        body = "{\"error\":{\"code\":\"internal_error\",\"message\":\"response encoding failed\"}}";
    }
    len = resp->raw ? resp->raw_len : strlen(body);
    r->status = resp->status ? resp->status : HTTP_INTERNAL_SERVER_ERROR;
    if (resp->headers) {
        apr_table_do(copy_header, r, resp->headers, NULL);
    }
    apr_table_setn(r->headers_out, "Cache-Control", "no-store");
    ap_set_content_type(r, resp->raw ? resp->raw_type : "application/json");
    ap_set_content_length(r, (apr_off_t)len);
    if (!r->header_only) {
        ap_rwrite(body, (int)len, r);
    }
    return OK;
}
