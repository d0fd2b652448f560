#include "forward.h"

#include <apr_strings.h>
#include <string.h>

struct trv_pay_forwarder {
    trv_http http;                 /* first: the transport the adapter calls */
    trv_pay_ctx *ctx;
    const char *instrument_id;
    const char *key;               /* the provider's key's source, or NULL */
    const char *last4;             /* of the card last forwarded, or NULL */
    int refused;
    trv_pay_err err;
};

static apr_status_t perform(trv_http *h, apr_pool_t *p, const trv_http_req *req,
                            trv_http_resp *resp)
{
    trv_pay_forwarder *fw = (trv_pay_forwarder *)h;
    const char *key = fw->key ? fw->key
                      : req->headers ? apr_table_get(req->headers, "Idempotency-Key") : NULL;
    trv_up_status st;

    (void)p;
    memset(&fw->err, 0, sizeof(fw->err));
    fw->refused = 0;
    /* The provider's key differs from the supplier's one it forwards, as
     * Stripe asks: one outbound request per forwarding key. */
    st = trv_payment_adapter.forward(fw->ctx, fw->instrument_id, req,
                                     key ? apr_pstrcat(fw->ctx->pool, "fwd-", key, NULL) : NULL,
                                     resp, &fw->last4, &fw->err);
    if (st == TRV_UP_OK) {
        return APR_SUCCESS;
    }
    memset(resp, 0, sizeof(*resp));
    resp->error = fw->err.message ? fw->err.message : "the payment provider did not forward";
    /* No answer from the provider: the supplier may have acted. */
    resp->timed_out = st == TRV_UP_TIMEOUT;
    resp->unanswered = st == TRV_UP_BAD_RESPONSE;
    fw->refused = st == TRV_UP_REJECTED || st == TRV_UP_NOT_FOUND || st == TRV_UP_DECLINED;
    return APR_EGENERAL;
}

trv_pay_forwarder *trv_pay_forwarder_make(trv_pay_ctx *ctx, const char *instrument_id,
                                          const char *key)
{
    trv_pay_forwarder *fw = apr_pcalloc(ctx->pool, sizeof(*fw));
    fw->http.perform = perform;
    fw->http.impl = fw;
    fw->ctx = ctx;
    fw->instrument_id = instrument_id;
    fw->key = key;
    return fw;
}

trv_http *trv_pay_forwarder_http(trv_pay_forwarder *fw)
{
    return &fw->http;
}

const char *trv_pay_forwarder_last4(const trv_pay_forwarder *fw)
{
    return fw->last4;
}

int trv_pay_forwarder_refused(const trv_pay_forwarder *fw, trv_pay_err *err)
{
    if (fw->refused && err) {
        *err = fw->err;
    }
    return fw->refused;
}
