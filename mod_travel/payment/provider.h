/* The payment provider interface (authorize, capture, refund, SDK tokens)
 * and its one adapter. Results use core/upstream's trv_up_status; a
 * declined card is TRV_UP_DECLINED with err->code (e.g. card_declined). */
#ifndef TRV_PAYMENT_PROVIDER_H
#define TRV_PAYMENT_PROVIDER_H

#include "core/money.h"
#include "core/upstream.h"

#include <jansson.h>

typedef struct trv_pay_ctx {
    trv_env *env;
    apr_pool_t *pool;
    const char *request_id;
    const trv_upstream *up;       /* the TravelPaymentProvider configuration */
} trv_pay_ctx;

typedef struct trv_pay_err {
    const char *code;
    const char *message;
} trv_pay_err;

/* What every call returns about an authorization (pool-bound fields):
 * {id, status: "AUTHORIZED"|"CAPTURED"|"VOIDED", amount (Money),
 *  card: {brand, last4, funding, wallet} or null when not readable yet}. */
typedef struct trv_payment_provider {
    const char *name;

    /* Authorizes `amount` on a saved instrument. idempotency_key makes
     * retries safe: the same key returns the same authorization. */
    trv_up_status (*authorize)(trv_pay_ctx *ctx, const char *instrument_id,
                               const trv_money *amount, const char *idempotency_key,
                               json_t **auth, trv_pay_err *err);
    trv_up_status (*capture)(trv_pay_ctx *ctx, const char *authorization_id,
                             const trv_money *amount, const char *idempotency_key,
                             json_t **auth, trv_pay_err *err);
    trv_up_status (*void_auth)(trv_pay_ctx *ctx, const char *authorization_id,
                               json_t **auth, trv_pay_err *err);
    /* Reads it again (a card that was not readable at capture may be now). */
    trv_up_status (*read)(trv_pay_ctx *ctx, const char *authorization_id,
                          json_t **auth, trv_pay_err *err);
    /* *refund: {id, status: "PENDING"|"SUCCEEDED", amount}. */
    trv_up_status (*refund)(trv_pay_ctx *ctx, const char *authorization_id,
                            const trv_money *amount, const char *idempotency_key,
                            json_t **refund, trv_pay_err *err);
    /* A client-side SDK session for `amount`: *token {provider, token}.
     * The customer's device authorizes against the token; */
    trv_up_status (*sdk_token)(trv_pay_ctx *ctx, const trv_money *amount,
                               const char *idempotency_key, json_t **token,
                               trv_pay_err *err);
    /* ... and this finds the authorization it made (NOT_FOUND: not paid yet). */
    trv_up_status (*sdk_authorization)(trv_pay_ctx *ctx, const char *token,
                                       json_t **auth, trv_pay_err *err);
    /* Cancels the session (Stripe cancels a PaymentIntent): from then on
     * the customer's device cannot pay it. *auth: the authorization the
     * device made before the cancel, still held (the caller voids it), or
     * NULL when it was never paid. Canceling again answers the same, so a
     * caller that cancels first and then voids what the answer names
     * leaves nothing held, whenever the device paid. NOT_FOUND: no such
     * session; REJECTED: its payment was captured (refund it instead). */
    trv_up_status (*sdk_cancel)(trv_pay_ctx *ctx, const char *token, json_t **auth,
                                trv_pay_err *err);
    /* Vault and forward: sends req, a supplier's request whose card fields
     * are left empty, through the provider, which fills them from the saved
     * instrument; *answer is the supplier's response (any HTTP status) when
     * TRV_UP_OK. Otherwise the provider did not forward: REJECTED (e.g.
     * resource_missing: no such instrument; a destination it does not
     * serve), UNAVAILABLE, or TIMEOUT (the supplier may have acted).
     * *card_last4 (may be NULL): the last 4 digits of the card forwarded, as
     * the provider's record of the request shows them (masked), or NULL. */
    trv_up_status (*forward)(trv_pay_ctx *ctx, const char *instrument_id,
                             const trv_http_req *req, const char *idempotency_key,
                             trv_http_resp *answer, const char **card_last4,
                             trv_pay_err *err);
} trv_payment_provider;

extern const trv_payment_provider trv_payment_adapter;

/* The payment provider's context for a request or job; 0 when no
 * TravelPaymentProvider is set. */
int trv_pay_ctx_init(trv_env *env, apr_pool_t *p, const char *request_id, trv_pay_ctx *ctx);

#endif
