/* x-idempotency-key on the routes that create or change something (Stripe's
 * rules): the first request with a key runs and its answer is kept for 24
 * hours; a repeat with the same method, path, query and body replays it
 * (with Idempotent-Replayed: true), another request is 409
 * idempotency_key_reused, a repeat while the first still runs is 409
 * idempotency_key_in_use. Keys are scoped as the route's resource: per
 * organization, and per organization and user on a user's own resources
 * (TRV_ROUTE_USER_SCOPED). Answers a retry should run again are not kept:
 * validation failures (422 validation_failed), 404 (not found, or not the
 * caller's), rate limits and 5xx. Kept answers are sealed under TravelSecretKeyFile,
 * since a webhook subscription's answer carries its signing secret. A
 * request that ended while the database was away (a failover) has its
 * answer stored, or its key released, by the listener thread as soon as
 * the database is back, so a retry soon gets the answer or runs again
 * (every route taking a key reads the state it changes). A request whose
 * process died while it ran holds its key for 10 minutes, unless the
 * retry reaches the same machine, which sees the process gone. */
#ifndef TRV_GATEWAY_IDEMPOTENCY_H
#define TRV_GATEWAY_IDEMPOTENCY_H

#include "core/env.h"

const trv_idempotency *trv_gateway_idempotency(void);

#endif
