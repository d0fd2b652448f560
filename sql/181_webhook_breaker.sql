-- The circuit breaker (webhook/breaker.c): a subscription none of whose
-- requests got a 2xx for TravelWebhookDisableAfter is DISABLED with a
-- reason, its queued requests are not sent, and the organization's other
-- subscriptions of the family get an operational event. PATCH
-- {"status": "ACTIVE"} re-enables it and sends the outage's events again
-- (webhook/recover.c).
--
-- failing_since: the first failed attempt since the last 2xx (NULL while
-- the receiver answers), read by the sender's claim and written after its
-- record only when it changes (webhook/breaker.c), so a healthy
-- subscription's row is not written.
ALTER TABLE webhook_subscriptions
    ADD COLUMN failing_since timestamptz,
    ADD COLUMN disabled_reason text,
    ADD COLUMN disabled_at timestamptz,
    DROP CONSTRAINT webhook_subscriptions_status_check,
    ADD CONSTRAINT webhook_subscriptions_status_check
        CHECK (status IN ('ACTIVE', 'PAUSED', 'DISABLED'));

-- Disables p_sub when it is ACTIVE, of a subscription family (flight,
-- hotel) and has failed since p_window ago or longer: its queued requests
-- end FAILED subscription_disabled (their jobs then find nothing to send),
-- and an event <family>.webhook_subscription.disabled is written to the
-- log, published already (the fan-out by type does not apply), with a
-- delivery to every other live subscription of the organization and family
-- (ACTIVE: sent; PAUSED or DISABLED: FAILED as the fan-out makes them).
-- Returns the event id, or NULL when the subscription was not disabled.
-- 'webhook.send' and 25 runs are TRV_WEBHOOK_SEND_JOB and
-- TRV_WEBHOOK_SEND_MAX_RUNS (webhook/send.h).
CREATE FUNCTION webhook_disable(p_sub text, p_window interval, p_last text)
    RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    s record;
    reason text;
    evt text := 'evt_' || trv_uuid7();
BEGIN
    SELECT * INTO s FROM webhook_subscriptions
     WHERE id = p_sub AND status = 'ACTIVE' AND deleted_at IS NULL
       AND family IN ('flight', 'hotel') AND failing_since <= trv_now() - p_window
       FOR UPDATE;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    reason := format('no 2xx answer since %s (disabled after %s of failures); last: %s',
                     trv_ts(s.failing_since), p_window, coalesce(p_last, 'no answer'));
    UPDATE webhook_subscriptions SET status = 'DISABLED', disabled_reason = reason,
           disabled_at = trv_now(), updated_at = trv_now()
     WHERE id = p_sub;
    UPDATE webhook_deliveries SET status = 'FAILED', failure_reason = 'subscription_disabled',
           failed_at = trv_now(), updated_at = trv_now()
     WHERE subscription_id = p_sub AND status IN ('PENDING', 'PUBLISHED');
    INSERT INTO events (id, org_id, family, type, data, published_at)
    VALUES (evt, s.org_id, s.family, s.family || '.webhook_subscription.disabled',
            jsonb_build_object('subscription', jsonb_build_object(
                'id', s.id, 'url', s.url, 'status', 'DISABLED', 'disabled_reason', reason,
                'failing_since', trv_ts(s.failing_since), 'disabled_at', trv_ts(trv_now()))),
            trv_now());
    WITH o AS (
        SELECT o.* FROM webhook_subscriptions o
         WHERE o.org_id = s.org_id AND o.family = s.family AND o.deleted_at IS NULL
           AND o.id <> s.id
         ORDER BY o.created_at, o.id FOR SHARE
    ), d AS (
        INSERT INTO webhook_deliveries (id, subscription_id, org_id, event_id, status,
                                        failure_reason, failed_at, url, secrets_enc)
        SELECT 'dlv_' || trv_uuid7(), o.id, o.org_id, evt,
               CASE WHEN o.status = 'ACTIVE' THEN 'PENDING' ELSE 'FAILED' END,
               CASE WHEN o.status = 'ACTIVE' THEN NULL
                    WHEN o.status = 'DISABLED' THEN 'subscription_disabled'
                    ELSE 'subscription_paused' END,
               CASE WHEN o.status = 'ACTIVE' THEN NULL ELSE trv_now() END,
               o.url,
               CASE WHEN o.previous_secret_enc IS NOT NULL
                         AND o.previous_secret_expires_at > now()
                    THEN ARRAY[o.secret_enc, o.previous_secret_enc]
                    ELSE ARRAY[o.secret_enc] END
          FROM o RETURNING id, status
    )
    INSERT INTO jobs (kind, payload, available_at, max_attempts)
    SELECT 'webhook.send', jsonb_build_object('delivery_id', d.id, 'replay', 0, 'attempt', 1),
           clock_timestamp(), 25
      FROM d WHERE d.status = 'PENDING';
    RETURN evt;
END $$;

-- The fan-out of 170 with the disabled state: an event that happens while
-- a subscription is DISABLED gets a delivery FAILED subscription_disabled
-- (sent again when it is re-enabled), as a paused one gets
-- subscription_paused (never sent by itself).
CREATE OR REPLACE FUNCTION events_fan_out() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    WITH s AS (
        SELECT e.id AS event_id, s.id, s.org_id, s.status, s.url, s.secret_enc,
               s.previous_secret_enc, s.previous_secret_expires_at
          FROM new_events e JOIN webhook_subscriptions s
            ON s.org_id = e.org_id AND s.family = e.family AND s.deleted_at IS NULL
           AND e.type = ANY (s.event_types)
           AND (s.filters IS NULL OR trv_webhook_filters_match(s.filters, e.data))
         WHERE e.published_at IS NULL
         ORDER BY s.created_at, s.id, e.id FOR SHARE OF s
    ), d AS (
        INSERT INTO webhook_deliveries (id, subscription_id, org_id, event_id, status,
                                        failure_reason, failed_at, url, secrets_enc)
        SELECT 'dlv_' || trv_uuid7(), s.id, s.org_id, s.event_id,
               CASE WHEN s.status = 'ACTIVE' THEN 'PENDING' ELSE 'FAILED' END,
               CASE WHEN s.status = 'ACTIVE' THEN NULL
                    WHEN s.status = 'DISABLED' THEN 'subscription_disabled'
                    ELSE 'subscription_paused' END,
               CASE WHEN s.status = 'ACTIVE' THEN NULL ELSE trv_now() END,
               s.url,
               CASE WHEN s.previous_secret_enc IS NOT NULL
                         AND s.previous_secret_expires_at > now()
                    THEN ARRAY[s.secret_enc, s.previous_secret_enc]
                    ELSE ARRAY[s.secret_enc] END
          FROM s
        ON CONFLICT (subscription_id, event_id) DO NOTHING RETURNING id, status
    )
    INSERT INTO jobs (kind, payload, available_at, max_attempts)
    SELECT 'webhook.send', jsonb_build_object('delivery_id', d.id, 'replay', 0, 'attempt', 1),
           clock_timestamp(), 25
      FROM d WHERE d.status = 'PENDING';
    UPDATE events e SET published_at = trv_now()
      FROM new_events n WHERE e.id = n.id AND n.published_at IS NULL;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION webhook_publish(p_event text, p_send_kind text, p_send_runs integer)
    RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    ev record;
    queued integer;
BEGIN
    SELECT id, org_id, family, type, data, published_at IS NOT NULL AS published INTO ev
      FROM events WHERE id = p_event FOR UPDATE;
    IF NOT FOUND THEN
        RETURN -1;
    END IF;
    IF ev.published THEN
        RETURN 0;
    END IF;
    WITH s AS (
        SELECT s.* FROM webhook_subscriptions s
         WHERE s.org_id = ev.org_id AND s.family = ev.family AND s.deleted_at IS NULL
           AND ev.type = ANY (s.event_types)
           AND (s.filters IS NULL OR trv_webhook_filters_match(s.filters, ev.data))
         ORDER BY s.created_at, s.id FOR SHARE
    ), d AS (
        INSERT INTO webhook_deliveries (id, subscription_id, org_id, event_id, status,
                                        failure_reason, failed_at, url, secrets_enc)
        SELECT 'dlv_' || trv_uuid7(), s.id, s.org_id, ev.id,
               CASE WHEN s.status = 'ACTIVE' THEN 'PENDING' ELSE 'FAILED' END,
               CASE WHEN s.status = 'ACTIVE' THEN NULL
                    WHEN s.status = 'DISABLED' THEN 'subscription_disabled'
                    ELSE 'subscription_paused' END,
               CASE WHEN s.status = 'ACTIVE' THEN NULL ELSE trv_now() END,
               s.url,
               CASE WHEN s.previous_secret_enc IS NOT NULL
                         AND s.previous_secret_expires_at > now()
                    THEN ARRAY[s.secret_enc, s.previous_secret_enc]
                    ELSE ARRAY[s.secret_enc] END
          FROM s
        ON CONFLICT (subscription_id, event_id) DO NOTHING RETURNING id, status
    ), j AS (
        INSERT INTO jobs (kind, payload, available_at, max_attempts)
        SELECT p_send_kind, jsonb_build_object('delivery_id', d.id, 'replay', 0, 'attempt', 1),
               clock_timestamp(), p_send_runs
          FROM d WHERE d.status = 'PENDING' RETURNING 1
    )
    SELECT count(*) INTO queued FROM j;
    UPDATE events SET published_at = trv_now() WHERE id = p_event;
    RETURN queued;
END $$;
