#include "api_call.h"
#include "core/decode.h"
#include "core/dispatch.h"
#include "core/json.h"

#include <apr_strings.h>
#include <string.h>

int trv_dash_api(const trv_dash_ctx *x, const char *method, const char *path,
                 const char *json_body, trv_resp *resp)
{
    const trv_req *page = x->req;
    trv_req sub;
    trv_env *env;
    const char *q = strchr(path, '?');

    memset(&sub, 0, sizeof(sub));
    memset(resp, 0, sizeof(*resp));
    resp->headers = apr_table_make(page->pool, 2);
    sub.pool = page->pool;
    sub.method = method;
    sub.path = q ? apr_pstrndup(page->pool, path, (apr_size_t)(q - path)) : path;
    sub.query = apr_table_make(page->pool, 4);
    if (q) {
        trv_errs *errs = trv_errs_new(page->pool);
        sub.args = q + 1;
        trv_query_decode(page->pool, sub.args, sub.query, errs);
        sub.decode_errs = trv_errs_any(errs) ? errs : NULL;
    }
    /* No headers: in particular no x-idempotency-key, so nothing of the
     * browser's request leaks into the API's. */
    sub.headers = apr_table_make(page->pool, 1);
    if (json_body) {
        sub.content_type = "application/json";
        sub.body = json_body;
        sub.body_len = strlen(json_body);
    }
    sub.request_id = page->request_id;
    sub.log = page->log;
    /* The principal is the login's user; the dispatcher's authentication
     * step is skipped (auth NULL) because httpd authenticated the login
     * and the grant named the organization. */
    sub.org_id = x->who.org_id;
    sub.user_id = x->who.user_id;
    /* The API's per-route figures count API callers only. */
    env = apr_pmemdup(page->pool, page->env, sizeof(*env));
    env->metrics = NULL;
    sub.env = env;
    trv_dispatch(x->api, NULL, &sub, resp);
    return resp->status;
}

const char *trv_dash_api_message(const trv_resp *resp)
{
    json_t *err = resp->error ? json_object_get(resp->error, "error") : NULL;
    const char *m = json_string_value(json_object_get(err, "message"));
    return m ? m : "The request failed";
}
