/* The rules every idempotent endpoint shares (flight and hotel prebook,
 * and the gateway's x-idempotency-key on the routes that take one): what
 * a key may be, and what makes a repeat "the same request". Where a key
 * is stored and what its repeat answers stays with each endpoint. */
#ifndef TRV_IDEMPOTENCY_H
#define TRV_IDEMPOTENCY_H

#include "errors.h"

#include <apr_pools.h>
#include <jansson.h>

/* The longest x-idempotency-key the API takes; hotel prebook's documented
 * limit is shorter (docs/hotels.md). */
#define TRV_IDEMPOTENCY_KEY_MAX 256
#define TRV_IDEMPOTENCY_HOTEL_KEY_MAX 200

/* The x-idempotency-key header: 1..TRV_IDEMPOTENCY_KEY_MAX printable ASCII
 * characters. */
int trv_idempotency_key_valid(const char *key);

/* The key checked against 1..max printable ASCII characters; a missing
 * (NULL) or bad key adds its x-idempotency-key error to errs. 1 when the
 * key is fine. */
int trv_idempotency_key_check(const char *key, apr_size_t max, trv_errs *errs);

/* Hex SHA-256 of the body with its keys sorted: two requests that differ
 * only in key order or whitespace hash alike. */
char *trv_idempotency_body_hash(apr_pool_t *p, const json_t *body);

/* The request a key stands for: method, path, query and the body's JSON
 * with sorted keys (so the order of fields does not make it another), as
 * hex SHA-256. */
const char *trv_idempotency_fingerprint(apr_pool_t *p, const char *method, const char *path,
                                        const char *args, const json_t *body);

#endif
