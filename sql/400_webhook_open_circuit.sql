-- An open circuit costs the other receivers nothing (docs/webhooks.md,
-- "Circuit breaker"). While a subscription's receiver hangs (webhook/slow.h:
-- a request ended without an answer lately, or one has been going on for
-- 5 s), a sender puts the requests it holds back in line, up to 60 s
-- ahead; and each event that happened meanwhile was still queued due at
-- once, claimed by a sender (woken for it), held and put back: three
-- statements per event, and with them claims of the line as it came due,
-- beside the healthy receivers' in every sender (the breaker bench: 385
-- more batch claims and records in a run, +7.7 %, for its 250 events to
-- the hanging receiver).
--
-- open_until: while set and ahead, the circuit is open, and the fan-out
-- queues the subscription's new sends due then, not at once: they are not
-- claimed at all until the line reaches them. Set (never moved back) by a
-- sender that holds a request in line, through the breaker's note, which
-- also sets failing_since (the open circuit is failing from then on, if no
-- attempt has failed yet); cleared with failing_since by the next 2xx.
-- A sender that sets it and dies leaves it at most 60 s ahead.
ALTER TABLE webhook_subscriptions ADD COLUMN open_until timestamptz;

-- The breaker's note (sql/370) with the open circuit. changes:
-- [{"sub": id, "ok": bool, "open_us": n (optional)}]: ok clears
-- failing_since and open_until; not ok sets failing_since when unset;
-- open_us moves open_until to now + open_us when that is later.
CREATE OR REPLACE FUNCTION trv_webhook_breaker_note(changes jsonb) RETURNS void
LANGUAGE plpgsql
SET enable_seqscan = off SET enable_hashjoin = off SET enable_mergejoin = off AS $$
BEGIN
    UPDATE webhook_subscriptions s
       SET failing_since = CASE WHEN r.ok THEN NULL ELSE coalesce(s.failing_since, trv_now()) END,
           open_until = CASE WHEN r.ok THEN NULL WHEN r.open_us IS NULL THEN s.open_until
                             ELSE greatest(s.open_until,
                                           clock_timestamp() + r.open_us * interval '1 microsecond')
                        END
      FROM jsonb_to_recordset(changes) AS r(sub text, ok boolean, open_us bigint)
     WHERE s.id = r.sub AND (r.ok = (s.failing_since IS NOT NULL) OR r.open_us IS NOT NULL);
END $$;

-- The fan-out of sql/181, its sends due at the subscription's open_until
-- when that is ahead (greatest ignores NULL).
CREATE OR REPLACE FUNCTION events_fan_out() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    WITH s AS (
        SELECT e.id AS event_id, s.id, s.org_id, s.status, s.url, s.secret_enc,
               s.previous_secret_enc, s.previous_secret_expires_at, s.open_until
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
        ON CONFLICT (subscription_id, event_id) DO NOTHING
        RETURNING id, status, subscription_id, event_id
    )
    INSERT INTO jobs (kind, payload, available_at, max_attempts)
    SELECT 'webhook.send', jsonb_build_object('delivery_id', d.id, 'replay', 0, 'attempt', 1),
           greatest(clock_timestamp(), s.open_until), 25
      FROM d JOIN s ON s.id = d.subscription_id AND s.event_id = d.event_id
     WHERE d.status = 'PENDING';
    UPDATE events e SET published_at = trv_now()
      FROM new_events n WHERE e.id = n.id AND n.published_at IS NULL;
    RETURN NULL;
END $$;

-- The publication of one event (sql/181), likewise.
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
        ON CONFLICT (subscription_id, event_id) DO NOTHING RETURNING id, status, subscription_id
    ), j AS (
        INSERT INTO jobs (kind, payload, available_at, max_attempts)
        SELECT p_send_kind, jsonb_build_object('delivery_id', d.id, 'replay', 0, 'attempt', 1),
               greatest(clock_timestamp(), s.open_until), p_send_runs
          FROM d JOIN s ON s.id = d.subscription_id WHERE d.status = 'PENDING' RETURNING 1
    )
    SELECT count(*) INTO queued FROM j;
    UPDATE events SET published_at = trv_now() WHERE id = p_event;
    RETURN queued;
END $$;
