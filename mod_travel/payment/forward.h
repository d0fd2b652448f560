/* Vault and forward as a transport: a trv_http whose requests go to the
 * payment provider's forwarding endpoint instead of to their URL, so that
 * a supplier that must receive the traveller's card (a merchant of record)
 * gets it from the provider's vault and the card number never passes
 * through the service, its logs or its database. An adapter sends its
 * request through it with trv_upstream_call_via, exactly as it would send
 * it directly, with the card fields left empty. */
#ifndef TRV_PAYMENT_FORWARD_H
#define TRV_PAYMENT_FORWARD_H

#include "payment/provider.h"

typedef struct trv_pay_forwarder trv_pay_forwarder;

/* A transport that forwards with the card of instrument_id. The
 * provider's own idempotency key (the provider honours one) is derived from
 * key, else from each request's Idempotency-Key, so a retried request is
 * forwarded once; key lets a request reach a supplier that honours no
 * Idempotency-Key without one while the hop to the provider stays keyed.
 * Lives as long as ctx->pool. */
trv_pay_forwarder *trv_pay_forwarder_make(trv_pay_ctx *ctx, const char *instrument_id,
                                          const char *key);

trv_http *trv_pay_forwarder_http(trv_pay_forwarder *fw);

/* After a call that reached the supplier: the last 4 digits of the card
 * the provider forwarded (from its record of the request), or NULL. */
const char *trv_pay_forwarder_last4(const trv_pay_forwarder *fw);

/* After a call: 1 when the provider itself refused to forward (then *err
 * says why: resource_missing for an instrument it does not hold), 0 when
 * the request reached the supplier or could not be sent at all. */
int trv_pay_forwarder_refused(const trv_pay_forwarder *fw, trv_pay_err *err);

#endif
