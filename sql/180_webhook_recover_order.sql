-- A recovery (POST .../recover, webhook/recover.c) goes out in the order of
-- the log, one request at a time per subscription: recover_seq numbers the
-- deliveries it queued, in log order, and only the first gets a send job;
-- when a member's send ends (DELIVERED, or FAILED after its retries), or a
-- replay takes the member being sent out of the order (webhook/api.c), the
-- trigger below queues the next waiting member (PENDING, no attempt yet).
-- Senders run batches of requests at once on several threads, so queuing
-- every job at once reordered the window (990 of 1,000 out of place in
-- tests/e2e/test_webhook_recover.c). Ordinary deliveries have no
-- recover_seq: the trigger's WHEN skips them, so the send path is unchanged
-- (and the index does not cover status, so their updates stay HOT).
ALTER TABLE webhook_deliveries ADD COLUMN recover_seq bigint;
CREATE INDEX webhook_deliveries_recover ON webhook_deliveries (subscription_id, recover_seq)
    WHERE recover_seq IS NOT NULL;

-- The subscription's row is locked first, as recover locks it, so a
-- recovery that appends members while the last one ends is either seen
-- here (its commit came first: this statement's snapshot is taken after
-- the lock) or sees this member ended and starts the chain itself.
-- 'webhook.send' and 25 runs are TRV_WEBHOOK_SEND_JOB and
-- TRV_WEBHOOK_SEND_MAX_RUNS (webhook/send.h).
CREATE FUNCTION webhook_recover_next() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM webhook_subscriptions WHERE id = NEW.subscription_id FOR NO KEY UPDATE;
    INSERT INTO jobs (kind, payload, available_at, max_attempts)
    SELECT 'webhook.send', jsonb_build_object('delivery_id', d.id, 'replay', d.replay_count,
                                              'attempt', 1), clock_timestamp(), 25
      FROM webhook_deliveries d
     WHERE d.subscription_id = NEW.subscription_id AND d.recover_seq > OLD.recover_seq
       AND d.status = 'PENDING' AND d.attempt_count = 0
     ORDER BY d.recover_seq LIMIT 1;
    RETURN NULL;
END $$;

CREATE TRIGGER webhook_recover_next AFTER UPDATE OF status ON webhook_deliveries
    FOR EACH ROW
    WHEN (OLD.recover_seq IS NOT NULL
          AND ((NEW.recover_seq IS NOT DISTINCT FROM OLD.recover_seq
                AND OLD.status IN ('PENDING', 'PUBLISHED') AND NEW.status IN ('DELIVERED', 'FAILED'))
               -- a replay took the member being sent out of the order
               OR (NEW.recover_seq IS NULL AND OLD.status = 'PUBLISHED')))
    EXECUTE FUNCTION webhook_recover_next();
