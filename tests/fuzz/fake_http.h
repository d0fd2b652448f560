/* An upstream for the targets that read what a supplier or the payment
 * provider answers: a trv_http whose answers come from the fuzz input.
 * Every call gets the given HTTP status and the next piece of the text,
 * pieces being separated by "\n--next--\n" (the last piece answers any
 * further calls). Nothing leaves the process. */
#ifndef TRV_FUZZ_FAKE_HTTP_H
#define TRV_FUZZ_FAKE_HTTP_H

#include "core/config.h"
#include "core/env.h"
#include "core/http.h"

#define FAKE_SEPARATOR "\n--next--\n"

/* The statuses an input's status byte picks from (mostly success). */
static const int fake_statuses[16] = {200, 201, 200, 200, 404, 409, 422, 402,
                                      429, 500, 503, 400, 302, 204, 200, 299};

typedef struct fake_http {
    trv_http http;
    int status;
    const char *rest;   /* the pieces not answered yet */
    const char *last;
    trv_config cfg;
    trv_upstream up;
    trv_env env;
} fake_http;

static apr_status_t fake_perform(trv_http *h, apr_pool_t *p, const trv_http_req *req,
                                 trv_http_resp *resp)
{
    fake_http *f = h->impl;
    const char *piece = f->rest, *sep;
    (void)req;
    memset(resp, 0, sizeof(*resp));
    if (!piece) {
        piece = f->last;
    }
    else if ((sep = strstr(piece, FAKE_SEPARATOR))) {
        f->last = apr_pstrmemdup(p, piece, (apr_size_t)(sep - piece));
        f->rest = sep + strlen(FAKE_SEPARATOR);
        piece = f->last;
    }
    else {
        f->last = piece;
        f->rest = NULL;
    }
    resp->status = f->status;
    resp->headers = apr_table_make(p, 1);
    apr_table_setn(resp->headers, "Content-Type", "application/json");
    resp->body = apr_pstrdup(p, piece);
    resp->body_len = strlen(piece);
    return APR_SUCCESS;
}

/* Sets f up to answer `text` with fake_statuses[status_byte % 16] for the
 * upstream `name`; f->env is the environment to call with. */
static inline void fake_http_init(fake_http *f, const char *name, uint8_t status_byte,
                                  const char *text)
{
    memset(f, 0, sizeof(*f));
    f->http.perform = fake_perform;
    f->http.impl = f;
    f->status = fake_statuses[status_byte % 16];
    f->rest = text;
    f->last = "";
    f->cfg.max_response = 8 * 1024 * 1024;
    f->up.name = name;
    f->up.base_url = "http://127.0.0.1:9/upstream";
    f->up.api_key = "sandbox-key";
    f->env.http = &f->http;
    f->env.cfg = &f->cfg;
}

#endif
