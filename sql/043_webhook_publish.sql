-- The webhook fan-out of one event in one statement (the event.publish
-- job): it was eight round trips to PostgreSQL per event, which capped the
-- deliveries per second of an instance (docs/performance.md).

-- A UUIDv7 as text, as core/ids.c makes them: 48 bits of Unix time in
-- milliseconds, version 7, the RFC 9562 variant, random bits.
CREATE FUNCTION trv_uuid7() RETURNS text LANGUAGE sql VOLATILE AS $$
    SELECT substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-7' || substr(h, 14, 3) || '-'
           || to_hex(8 + (get_byte(decode(substr(h, 17, 2), 'hex'), 0) & 3))
           || substr(h, 18, 3) || '-' || substr(h, 21, 12)
      FROM (SELECT lpad(to_hex((extract(epoch FROM clock_timestamp()) * 1000)::bigint), 12, '0')
                   || substr(replace(gen_random_uuid()::text, '-', ''), 1, 20) AS h) x
$$;

-- One delivery per live subscription of the event's organization and
-- family that asks for its type (paused ones FAILED at once), with the URL
-- and live secrets fixed now, a send job (p_send_kind, p_send_runs) per
-- pending delivery, and the event marked published: all or nothing, and a
-- second run adds nothing. Returns the number of sends queued, or -1 when
-- there is no such event.
CREATE FUNCTION webhook_publish(p_event text, p_send_kind text, p_send_runs integer)
    RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    ev record;
    queued integer;
BEGIN
    SELECT id, org_id, family, type, published_at IS NOT NULL AS published INTO ev
      FROM events WHERE id = p_event FOR UPDATE;
    IF NOT FOUND THEN
        RETURN -1;
    END IF;
    IF ev.published THEN
        RETURN 0;
    END IF;
    -- Locked so a concurrent pause is either before or after.
    WITH s AS (
        SELECT s.* FROM webhook_subscriptions s
         WHERE s.org_id = ev.org_id AND s.family = ev.family AND s.deleted_at IS NULL
           AND ev.type = ANY (s.event_types)
         ORDER BY s.created_at, s.id FOR SHARE
    ), d AS (
        INSERT INTO webhook_deliveries (id, subscription_id, org_id, event_id, status,
                                        failure_reason, failed_at, url, secrets_enc)
        SELECT 'dlv_' || trv_uuid7(), s.id, s.org_id, ev.id,
               CASE WHEN s.status = 'ACTIVE' THEN 'PENDING' ELSE 'FAILED' END,
               CASE WHEN s.status = 'ACTIVE' THEN NULL ELSE 'subscription_paused' END,
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
