/* The payment provider's adapter: a client of a Stripe-style API
 * (authorizations with manual capture, refunds, SDK sessions; amounts as
 * integers in minor units with lower-case currencies; Idempotency-Key on
 * every call that changes something). */
#include "provider.h"
#include "core/config.h"
#include "core/json.h"

#include <apr_lib.h>
#include <apr_strings.h>
#include <string.h>

/* What meta.payment_sdk.provider names: the client SDK to load. */
#define SDK_PROVIDER "sandbox_pay"

static trv_up_status call(trv_pay_ctx *ctx, const char *method, const char *path,
                          const json_t *body, const char *key, trv_up_result *res,
                          trv_pay_err *err)
{
    trv_up_status st = trv_upstream_call(ctx->env, ctx->pool, ctx->up, method, path, body,
                                         ctx->request_id, key, res);
    if (st != TRV_UP_OK) {
        int level = (st == TRV_UP_DECLINED || st == TRV_UP_REJECTED || st == TRV_UP_NOT_FOUND)
                        ? TRV_LOG_INFO : TRV_LOG_WARNING;
        err->code = res->code ? res->code : trv_up_status_name(st);
        err->message = res->message ? res->message : "the payment provider did not answer";
        trv_log_msg(&ctx->env->log, level, ctx->request_id,
                    TRVLOGNO(701) "payment %s %s: %s (HTTP %d, %s) after %" APR_TIME_T_FMT " ms",
                    method, path, trv_up_status_name(st), res->http_status, err->code,
                    apr_time_as_msec(res->elapsed));
    }
    return st;
}

static trv_up_status bad(trv_pay_ctx *ctx, trv_pay_err *err, const char *what)
{
    err->code = "bad_response";
    err->message = apr_psprintf(ctx->pool, "the payment provider answered without %s", what);
    trv_log_msg(&ctx->env->log, TRV_LOG_WARNING, ctx->request_id, TRVLOGNO(702) "%s",
                err->message);
    return TRV_UP_BAD_RESPONSE;
}

static const char *esc(apr_pool_t *p, const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    char *out = apr_palloc(p, strlen(s) * 3 + 1), *o = out;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (apr_isalnum(c) || c == '-' || c == '_' || c == '.') {
            *o++ = (char)c;
        }
        else {
            *o++ = '%';
            *o++ = hex[c >> 4];
            *o++ = hex[c & 15];
        }
    }
    *o = '\0';
    return out;
}

static const char *lower(apr_pool_t *p, const char *s)
{
    char *o = apr_pstrdup(p, s), *c;
    for (c = o; *c; c++) {
        *c = (char)apr_tolower(*c);
    }
    return o;
}

static json_t *money_of(apr_pool_t *p, const json_t *amount, const char *currency)
{
    trv_money m;
    char *cur;
    int i;
    if (!json_is_integer(amount) || !currency || strlen(currency) != 3) {
        return NULL;
    }
    cur = apr_pstrdup(p, currency);
    for (i = 0; i < 3; i++) {
        cur[i] = (char)apr_toupper(cur[i]);
    }
    if (trv_money_make(&m, (apr_int64_t)json_integer_value(amount), cur) != APR_SUCCESS) {
        return NULL;
    }
    return trv_money_json(&m);
}

/* The provider's authorization in the interface's shape. */
static trv_up_status auth_of(trv_pay_ctx *ctx, const json_t *a, json_t **auth, trv_pay_err *err)
{
    const char *st = trv_json_str(a, "status"), *status;
    const json_t *pmd = json_object_get(a, "payment_method_details");
    const json_t *card = json_object_get(pmd, "card");
    json_t *amount = money_of(ctx->pool, json_object_get(a, "amount"),
                              trv_json_str(a, "currency"));
    json_t *c = json_null();
    if (!st || !trv_json_str(a, "id") || !amount) {
        json_decref(amount);
        return bad(ctx, err, "a readable authorization");
    }
    status = strcmp(st, "captured") == 0   ? "CAPTURED"
           : strcmp(st, "canceled") == 0   ? "VOIDED"
                                           : "AUTHORIZED";
    if (json_is_object(card)) {
        const json_t *w = json_object_get(card, "wallet");
        c = json_pack("{s:s?,s:s?,s:s?,s:s?}", "brand", trv_json_str(card, "brand"),
                      "last4", trv_json_str(card, "last4"), "funding",
                      trv_json_str(card, "funding"), "wallet",
                      json_is_object(w) ? trv_json_str(w, "type") : NULL);
    }
    *auth = trv_json_bind(ctx->pool, json_pack("{s:s,s:s,s:o,s:o}", "id", trv_json_str(a, "id"),
                                               "status", status, "amount", amount, "card", c));
    return TRV_UP_OK;
}

static trv_up_status authorize(trv_pay_ctx *ctx, const char *instrument_id,
                               const trv_money *amount, const char *idempotency_key,
                               json_t **auth, trv_pay_err *err)
{
    trv_up_result res;
    json_t *body = trv_json_bind(ctx->pool, json_pack("{s:I,s:s,s:s,s:s}",
        "amount", (json_int_t)amount->minor, "currency", lower(ctx->pool, amount->currency),
        "payment_method", instrument_id, "capture_method", "manual"));
    trv_up_status st = call(ctx, "POST", "/v1/authorizations", body, idempotency_key, &res, err);
    return st == TRV_UP_OK ? auth_of(ctx, res.body, auth, err) : st;
}

static trv_up_status capture(trv_pay_ctx *ctx, const char *authorization_id,
                             const trv_money *amount, const char *idempotency_key,
                             json_t **auth, trv_pay_err *err)
{
    trv_up_result res;
    json_t *body = trv_json_bind(ctx->pool, json_pack("{s:I}", "amount_to_capture",
                                                      (json_int_t)amount->minor));
    trv_up_status st = call(ctx, "POST", apr_pstrcat(ctx->pool, "/v1/authorizations/",
                                                     esc(ctx->pool, authorization_id),
                                                     "/capture", NULL),
                            body, idempotency_key, &res, err);
    return st == TRV_UP_OK ? auth_of(ctx, res.body, auth, err) : st;
}

static trv_up_status void_auth(trv_pay_ctx *ctx, const char *authorization_id, json_t **auth,
                               trv_pay_err *err)
{
    trv_up_result res;
    /* Voiding twice is harmless, so the id itself is a fine key. */
    trv_up_status st = call(ctx, "POST", apr_pstrcat(ctx->pool, "/v1/authorizations/",
                                                     esc(ctx->pool, authorization_id),
                                                     "/cancel", NULL),
                            NULL, apr_pstrcat(ctx->pool, "void-", authorization_id, NULL),
                            &res, err);
    return st == TRV_UP_OK ? auth_of(ctx, res.body, auth, err) : st;
}

static trv_up_status read_auth(trv_pay_ctx *ctx, const char *authorization_id, json_t **auth,
                               trv_pay_err *err)
{
    trv_up_result res;
    trv_up_status st = call(ctx, "GET", apr_pstrcat(ctx->pool, "/v1/authorizations/",
                                                    esc(ctx->pool, authorization_id), NULL),
                            NULL, NULL, &res, err);
    return st == TRV_UP_OK ? auth_of(ctx, res.body, auth, err) : st;
}

static trv_up_status refund(trv_pay_ctx *ctx, const char *authorization_id,
                            const trv_money *amount, const char *idempotency_key,
                            json_t **out, trv_pay_err *err)
{
    trv_up_result res;
    json_t *body = trv_json_bind(ctx->pool, json_pack("{s:s,s:I}", "authorization",
                                                      authorization_id, "amount",
                                                      (json_int_t)amount->minor));
    trv_up_status st = call(ctx, "POST", "/v1/refunds", body, idempotency_key, &res, err);
    const char *status;
    json_t *m;
    if (st != TRV_UP_OK) {
        return st;
    }
    status = trv_json_str(res.body, "status");
    m = money_of(ctx->pool, json_object_get(res.body, "amount"),
                 trv_json_str(res.body, "currency"));
    if (!status || !trv_json_str(res.body, "id") || !m) {
        json_decref(m);
        return bad(ctx, err, "a readable refund");
    }
    *out = trv_json_bind(ctx->pool, json_pack("{s:s,s:s,s:o}", "id",
                                              trv_json_str(res.body, "id"), "status",
                                              strcmp(status, "succeeded") == 0 ? "SUCCEEDED"
                                              : strcmp(status, "failed") == 0  ? "FAILED"
                                                                               : "PENDING",
                                              "amount", m));
    return TRV_UP_OK;
}

static trv_up_status sdk_token(trv_pay_ctx *ctx, const trv_money *amount,
                               const char *idempotency_key, json_t **token, trv_pay_err *err)
{
    trv_up_result res;
    json_t *body = trv_json_bind(ctx->pool, json_pack("{s:I,s:s}", "amount",
                                                      (json_int_t)amount->minor, "currency",
                                                      lower(ctx->pool, amount->currency)));
    trv_up_status st = call(ctx, "POST", "/v1/sdk_sessions", body, idempotency_key, &res, err);
    if (st != TRV_UP_OK) {
        return st;
    }
    if (!trv_json_str(res.body, "client_secret")) {
        return bad(ctx, err, "a client secret");
    }
    *token = trv_json_bind(ctx->pool, json_pack("{s:s,s:s}", "provider", SDK_PROVIDER, "token",
                                                trv_json_str(res.body, "client_secret")));
    return TRV_UP_OK;
}

/* The session id of a client secret ("<session id>_secret_<random>", as
 * Stripe's), escaped for a path; NULL (err filled) when it is not one. */
static const char *session_of(trv_pay_ctx *ctx, const char *token, trv_pay_err *err)
{
    const char *cut = token ? strstr(token, "_secret_") : NULL;
    if (!cut || cut == token) {
        err->code = "invalid_token";
        err->message = "not an SDK session token";
        return NULL;
    }
    return esc(ctx->pool, apr_pstrndup(ctx->pool, token, (apr_size_t)(cut - token)));
}

static trv_up_status sdk_authorization(trv_pay_ctx *ctx, const char *token, json_t **auth,
                                       trv_pay_err *err)
{
    const char *session = session_of(ctx, token, err);
    const json_t *a;
    trv_up_result res;
    trv_up_status st;
    if (!session) {
        return TRV_UP_NOT_FOUND;
    }
    st = call(ctx, "GET", apr_pstrcat(ctx->pool, "/v1/sdk_sessions/", session, NULL), NULL,
              NULL, &res, err);
    if (st != TRV_UP_OK) {
        return st;
    }
    a = json_object_get(res.body, "authorization");
    if (!json_is_object(a)) {
        err->code = "not_paid";
        err->message = "the customer has not paid this session yet";
        return TRV_UP_NOT_FOUND;
    }
    return auth_of(ctx, a, auth, err);
}

static trv_up_status sdk_cancel(trv_pay_ctx *ctx, const char *token, json_t **auth,
                                trv_pay_err *err)
{
    const char *session = session_of(ctx, token, err), *status;
    const json_t *a;
    trv_up_result res;
    trv_up_status st;
    *auth = NULL;
    if (!session) {
        return TRV_UP_NOT_FOUND;
    }
    /* Canceling twice is harmless, so the session itself is a fine key. */
    st = call(ctx, "POST", apr_pstrcat(ctx->pool, "/v1/sdk_sessions/", session, "/cancel", NULL),
              NULL, apr_pstrcat(ctx->pool, "cancel-", session, NULL), &res, err);
    if (st != TRV_UP_OK) {
        return st;
    }
    status = trv_json_str(res.body, "status");
    if (!status || strcmp(status, "canceled") != 0) {
        return bad(ctx, err, "a canceled session");
    }
    a = json_object_get(res.body, "authorization");
    return json_is_object(a) ? auth_of(ctx, a, auth, err) : TRV_UP_OK;
}

static int answer_header(trv_pay_ctx *ctx, const json_t *hs, apr_table_t *out)
{
    const json_t *h;
    size_t i;
    if (!json_is_array(hs)) {
        return 0;
    }
    json_array_foreach(hs, i, h) {
        if (!trv_json_str(h, "name") || !trv_json_str(h, "value")) {
            return 0;
        }
        apr_table_add(out, apr_pstrdup(ctx->pool, trv_json_str(h, "name")),
                      apr_pstrdup(ctx->pool, trv_json_str(h, "value")));
    }
    return 1;
}

/* Stripe's forwarding request: the destination's request with the card's
 * fields left empty; the provider fills card_number from the saved
 * payment method, sends it and answers the destination's response. */
#define FORWARD_HOP apr_time_from_sec(2)

/* The last 4 digits of payments[0].number in the body the provider says
 * it sent (the number masked, "424242******4242"), or NULL. */
static const char *sent_last4(trv_pay_ctx *ctx, const json_t *request_details)
{
    const char *text = trv_json_str(request_details, "body"), *num;
    json_t *sent = text ? trv_json_parse(ctx->pool, text, strlen(text), NULL) : NULL;
    size_t n, i;
    num = trv_json_str(json_array_get(json_object_get(sent, "payments"), 0), "number");
    n = num ? strlen(num) : 0;
    for (i = n >= 4 ? n - 4 : 0; n >= 4 && i < n; i++) {
        if (num[i] < '0' || num[i] > '9') {
            return NULL;
        }
    }
    return n >= 4 ? apr_pstrdup(ctx->pool, num + n - 4) : NULL;
}

static trv_up_status forward(trv_pay_ctx *ctx, const char *instrument_id,
                             const trv_http_req *req, const char *idempotency_key,
                             trv_http_resp *answer, const char **card_last4, trv_pay_err *err)
{
    trv_upstream up = *ctx->up;
    trv_pay_ctx fctx = *ctx;
    trv_up_result res;
    json_t *headers = trv_json_headers(req->headers), *body;
    const json_t *rd;
    const char *text;
    trv_up_status st;
    json_int_t status;

    body = trv_json_bind(ctx->pool, json_pack("{s:s,s:s,s:[s],s:{s:o,s:s%}}", "payment_method",
                                              instrument_id, "url", req->url, "replacements",
                                              "card_number", "request", "headers", headers,
                                              "body", req->body ? req->body : "",
                                              req->body ? req->body_len : 0));
    /* The supplier's deadline is the caller's: the provider's hop adds
     * its own time, not the provider's whole timeout, so a supplier that
     * does not answer is given up on (an unknown outcome) as if called
     * directly. */
    up.timeout = req->timeout + FORWARD_HOP;
    fctx.up = &up;
    st = call(&fctx, "POST", "/v1/forwarding/requests", body, idempotency_key, &res, err);
    if (st == TRV_UP_UNAVAILABLE && res.http_status == 504) {
        /* The provider sent the request and the destination did not
         * answer: the supplier may have acted. */
        return TRV_UP_TIMEOUT;
    }
    if (st != TRV_UP_OK) {
        return st;
    }
    rd = json_object_get(res.body, "response_details");
    status = json_integer_value(json_object_get(rd, "status"));
    text = trv_json_str(rd, "body");
    memset(answer, 0, sizeof(*answer));
    answer->headers = apr_table_make(ctx->pool, 8);
    if (!text || status < 100 || status > 599
        || !answer_header(ctx, json_object_get(rd, "headers"), answer->headers)) {
        return bad(ctx, err, "the destination's response");
    }
    answer->status = (int)status;
    answer->body_len = json_string_length(json_object_get(rd, "body"));
    answer->body = apr_pmemdup(ctx->pool, text, answer->body_len + 1);
    answer->elapsed = res.elapsed;
    if (card_last4) {
        *card_last4 = sent_last4(ctx, json_object_get(res.body, "request_details"));
    }
    return TRV_UP_OK;
}

const trv_payment_provider trv_payment_adapter = {
    "PAYMENT",
    authorize,
    capture,
    void_auth,
    read_auth,
    refund,
    sdk_token,
    sdk_authorization,
    sdk_cancel,
    forward,
};

int trv_pay_ctx_init(trv_env *env, apr_pool_t *p, const char *request_id, trv_pay_ctx *ctx)
{
    memset(ctx, 0, sizeof(*ctx));
    if (!env->cfg || !env->cfg->payment) {
        return 0;
    }
    ctx->env = env;
    ctx->pool = p;
    ctx->request_id = request_id;
    ctx->up = env->cfg->payment;
    return 1;
}
