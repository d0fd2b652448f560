#include "gzip.h"

#include <string.h>
#include <strings.h>

#include <apr_strings.h>
#include <libdeflate.h>

/* The fastest level: the same answer once decoded; the larger member is
 * read by the gateway on loopback. */
#define SBX_GZIP_LEVEL 1

int sbx_gzip_accepted(const char *ae)
{
    while (ae && *ae) {
        const char *name, *end;
        int zero = 0;
        while (*ae == ' ' || *ae == '\t' || *ae == ',') {
            ae++;
        }
        name = ae;
        while (*ae && *ae != ',' && *ae != ';' && *ae != ' ' && *ae != '\t') {
            ae++;
        }
        end = ae;
        /* Parameters: only q matters, and only whether it is zero
         * ("q=0", "q=0.0", ... as RFC 9110 writes a refusal). */
        while (*ae && *ae != ',') {
            if (*ae == ';') {
                const char *v = ae + 1;
                while (*v == ' ' || *v == '\t') {
                    v++;
                }
                if ((v[0] == 'q' || v[0] == 'Q') && v[1] == '=' && v[2] == '0') {
                    v += 3;
                    if (*v == '.') {
                        for (v++; *v == '0'; v++) {
                        }
                    }
                    zero = !*v || *v == ',' || *v == ';' || *v == ' ' || *v == '\t';
                }
            }
            ae++;
        }
        if (end - name == 4 && strncasecmp(name, "gzip", 4) == 0) {
            return !zero;
        }
    }
    return 0;
}

void sbx_gzip_answer(trv_req *req, trv_resp *resp)
{
    struct libdeflate_compressor *c;
    const char *body;
    apr_size_t len, bound, zlen;
    char *z;
    if (!resp->headers) {
        resp->headers = apr_table_make(req->pool, 2);
    }
    apr_table_mergen(resp->headers, "Vary", "Accept-Encoding");
    if (resp->status == 204 || resp->status == 304 || apr_table_get(resp->headers, "Content-Encoding")
        || !sbx_gzip_accepted(req->headers ? apr_table_get(req->headers, "Accept-Encoding") : NULL)) {
        return;
    }
    body = resp->raw ? resp->raw : trv_resp_body(req->pool, resp);
    if (!body || !(c = libdeflate_alloc_compressor(SBX_GZIP_LEVEL))) {
        return;
    }
    len = resp->raw ? resp->raw_len : strlen(body);
    bound = libdeflate_gzip_compress_bound(c, len);
    z = apr_palloc(req->pool, bound);
    zlen = libdeflate_gzip_compress(c, body, len, z, bound);
    libdeflate_free_compressor(c);
    if (zlen == 0) {
        return;
    }
    resp->raw_type = resp->raw ? resp->raw_type : "application/json";
    resp->raw = z;
    resp->raw_len = zlen;
    apr_table_setn(resp->headers, "Content-Encoding", "gzip");
}
