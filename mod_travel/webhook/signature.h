/* Standard Webhooks signatures (https://www.standardwebhooks.com/): for
 * every live secret "v1,<base64 HMAC-SHA256(key, id.timestamp.body)>",
 * space-separated, in the webhook-signature header; the key is the
 * base64-decoded part of the whsec_ secret. A v1a subscription's entries
 * are "v1a,<base64 Ed25519 signature>" (signing_key.h). */
#ifndef TRV_WEBHOOK_SIGNATURE_H
#define TRV_WEBHOOK_SIGNATURE_H

#include <apr_pools.h>
#include <apr_tables.h>

/* One "v1,<base64>" entry for one whsec_ secret, or "v1a,<base64>" for a
 * whsk_ Ed25519 private key (signing_key.h); NULL when the secret is
 * neither. */
const char *trv_webhook_sign1(apr_pool_t *p, const char *secret, const char *msg_id,
                              long long timestamp, const char *body,
                              apr_size_t body_len);

/* The webhook-signature header value for every secret of `secrets` (const
 * char *), in order; NULL when any secret is invalid or there is none. */
const char *trv_webhook_signature(apr_pool_t *p, const apr_array_header_t *secrets,
                                  const char *msg_id, long long timestamp,
                                  const char *body, apr_size_t body_len);

/* The watcher events' signature header, service-signature:
 * "t=<timestamp>,v1=<lower-case hex HMAC-SHA256(secret, "<timestamp>.<body>")>",
 * keyed with the whole secret text (whsec_ included), as Stripe's
 * verifiers check it. NULL when out of memory or HMAC fails. */
const char *trv_webhook_sign_service(apr_pool_t *p, const char *secret, long long timestamp,
                                     const char *body, apr_size_t body_len);

#endif
