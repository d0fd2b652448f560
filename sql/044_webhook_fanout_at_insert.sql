-- Webhook fan-out when the event is written, in the writer's transaction
-- and set-based (one statement for all the events a statement inserts):
-- the deliveries and their send jobs commit with the event, as the outbox
-- requires, and the event.publish job that follows finds the event
-- published and has nothing left to do (webhook_publish, 043, still fans
-- out an event that is not published). A burst of events costs a few
-- statements instead of a fan-out job each: the fan-out had become what
-- capped deliveries per second (docs/performance.md). An event inserted
-- as published already (published_at given) is not fanned out.
--
-- The same rules as webhook_publish (043): one delivery per live
-- subscription of the organization and family that asks for the type,
-- locked so a concurrent pause is either before or after, paused ones
-- FAILED at once, URL and live secrets fixed now, a send job per pending
-- delivery. 'webhook.send' and 25 runs are TRV_WEBHOOK_SEND_JOB and
-- TRV_WEBHOOK_SEND_MAX_RUNS (webhook/send.h).
CREATE FUNCTION events_fan_out() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    WITH s AS (
        SELECT e.id AS event_id, s.id, s.org_id, s.status, s.url, s.secret_enc,
               s.previous_secret_enc, s.previous_secret_expires_at
          FROM new_events e JOIN webhook_subscriptions s
            ON s.org_id = e.org_id AND s.family = e.family AND s.deleted_at IS NULL
           AND e.type = ANY (s.event_types)
         WHERE e.published_at IS NULL
         ORDER BY s.created_at, s.id, e.id FOR SHARE OF s
    ), d AS (
        INSERT INTO webhook_deliveries (id, subscription_id, org_id, event_id, status,
                                        failure_reason, failed_at, url, secrets_enc)
        SELECT 'dlv_' || trv_uuid7(), s.id, s.org_id, s.event_id,
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
    )
    INSERT INTO jobs (kind, payload, available_at, max_attempts)
    SELECT 'webhook.send', jsonb_build_object('delivery_id', d.id, 'replay', 0, 'attempt', 1),
           clock_timestamp(), 25
      FROM d WHERE d.status = 'PENDING';
    UPDATE events e SET published_at = trv_now()
      FROM new_events n WHERE e.id = n.id AND n.published_at IS NULL;
    RETURN NULL;
END $$;

CREATE TRIGGER events_fan_out AFTER INSERT ON events
    REFERENCING NEW TABLE AS new_events
    FOR EACH STATEMENT EXECUTE FUNCTION events_fan_out();
