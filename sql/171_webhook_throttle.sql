-- A per-subscription throttle (webhook/throttle.c): max_per_second (NULL:
-- the site's TravelWebhookMaxPerSecond, which may be off) and the time the
-- last request to the subscription was let go. Every sender of every
-- instance admits a request only by moving throttle_last forward under the
-- row's lock, so the throttle holds across children and nodes.
ALTER TABLE webhook_subscriptions
    ADD COLUMN max_per_second integer CHECK (max_per_second BETWEEN 1 AND 1000),
    ADD COLUMN throttle_last timestamptz;
