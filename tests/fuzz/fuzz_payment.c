/* The payment provider's answers, as the adapter (payment/adapter.c) reads
 * them into authorizations, refunds, SDK sessions and forwarded answers
 * (vault and forward). Input: byte 0 picks
 * the operation, byte 1 the HTTP status, then the answers (fake_http.h).
 * Beyond not crashing or leaking: a success returns something that
 * serializes (an SDK cancel may return no authorization), a failure carries
 * an error code (the provider's own, which may be empty). */
#include "fuzz.h"

#include "core/json.h"
#include "fake_http.h"
#include "payment/provider.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const trv_payment_provider *pay = &trv_payment_adapter;
    apr_pool_t *p;
    fake_http f;
    trv_pay_ctx ctx;
    trv_pay_err err;
    trv_money amount;
    json_t *out = NULL;
    trv_http_req fwd;
    trv_http_resp answer;
    trv_up_status st;
    int op;
    if (size < 2) {
        return 0;
    }
    p = fz_begin();
    op = data[0] % 9;
    fake_http_init(&f, "payment", data[1], fz_str(p, data + 2, size - 2));
    memset(&ctx, 0, sizeof(ctx));
    ctx.env = &f.env;
    ctx.pool = p;
    ctx.request_id = "req_fuzz";
    ctx.up = &f.up;
    memset(&err, 0, sizeof(err));
    FZ_ASSERT(trv_money_make(&amount, 51230, "GBP") == APR_SUCCESS);
    switch (op) {
    case 0: st = pay->authorize(&ctx, "pi_test_visa", &amount, "idem_fuzz", &out, &err); break;
    case 1: st = pay->capture(&ctx, "auth_fuzz", &amount, "idem_fuzz", &out, &err); break;
    case 2: st = pay->void_auth(&ctx, "auth_fuzz", &out, &err); break;
    case 3: st = pay->read(&ctx, "auth_fuzz", &out, &err); break;
    case 4: st = pay->refund(&ctx, "auth_fuzz", &amount, "idem_fuzz", &out, &err); break;
    case 5: st = pay->sdk_token(&ctx, &amount, "idem_fuzz", &out, &err); break;
    case 6: st = pay->sdk_authorization(&ctx, "ses_fuzz_secret_abc", &out, &err); break;
    case 7: st = pay->sdk_cancel(&ctx, "ses_fuzz_secret_abc", &out, &err); break;
    default:
        memset(&fwd, 0, sizeof(fwd));
        fwd.method = "POST";
        fwd.url = "http://127.0.0.1:8081/hotels/c/v3/itineraries";
        fwd.body = "{\"payments\":[{\"number\":\"\"}]}";
        fwd.body_len = strlen(fwd.body);
        st = pay->forward(&ctx, "pi_test_visa", &fwd, "idem_fuzz", &answer, NULL, &err);
        if (st == TRV_UP_OK) {
            /* The destination's answer, whole: a status and a body. */
            FZ_ASSERT(answer.status >= 100 && answer.status <= 599);
            FZ_ASSERT(answer.body != NULL && strlen(answer.body) <= answer.body_len);
            FZ_ASSERT(answer.headers != NULL);
            out = json_true();
        }
    }
    if (st == TRV_UP_OK) {
        FZ_ASSERT(op == 7 || out != NULL);
        FZ_ASSERT(!out || trv_json_dump(p, out) != NULL);
    }
    else {
        /* The provider's own code when it gave one (even ""): callers
         * fall back to their own for an empty one. */
        FZ_ASSERT(err.code != NULL);
    }
    fz_end(p);
    return 0;
}
