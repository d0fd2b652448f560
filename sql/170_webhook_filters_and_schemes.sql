-- Webhook subscriptions: conditions on the payload (filters) and the
-- signature scheme (Standard Webhooks v1, HMAC; or v1a, Ed25519).
--
-- filters: NULL (every event of the subscribed types) or an object of
-- envelope paths to the values any of which the event must carry there, as
-- webhook/filter.c stores it after checking it: {"data.booking.status":
-- ["CONFIRMED", "FAILED"]}; every path must match.
-- signature_scheme: what the current secret_enc is: a whsec_ HMAC secret
-- (v1) or a whsk_ Ed25519 private key (v1a), whose public key (whpk_) is
-- public_key. The previous secret may be of the other scheme after a
-- change of scheme: both sign while it is live.
ALTER TABLE webhook_subscriptions
    ADD COLUMN filters jsonb,
    ADD COLUMN signature_scheme text NOT NULL DEFAULT 'v1'
        CHECK (signature_scheme IN ('v1', 'v1a')),
    ADD COLUMN public_key text;

-- Whether an event's data satisfies a subscription's filters: for every
-- path, the value found there (in {"data": data}) is one of the listed
-- values. A path that is absent, or leads to an object or an array,
-- matches nothing (containment of a one-element array holds only for an
-- equal scalar).
CREATE FUNCTION trv_webhook_filters_match(f jsonb, data jsonb) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT f IS NULL OR NOT EXISTS (
        SELECT 1 FROM jsonb_each(f) c
         WHERE NOT coalesce(c.value @> jsonb_build_array(
                   jsonb_build_object('data', data) #> string_to_array(c.key, '.')), false))
$$;

-- The fan-out of 044 and 043 with the filters: an event that does not
-- satisfy a subscription's filters gets no delivery for it, as an event of
-- a type it does not ask for.
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
