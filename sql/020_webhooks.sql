-- Webhook subscriptions (hotel and flight families), their deliveries and
-- every attempt of every delivery. Secrets are stored encrypted
-- (AES-256-GCM under TravelSecretKeyFile): "v1:" + base64(nonce|ciphertext|tag).
CREATE TABLE webhook_subscriptions (
    id                          text PRIMARY KEY,          -- whs_<uuidv7>
    org_id                      text NOT NULL REFERENCES organizations (id),
    family                      text NOT NULL CHECK (family IN ('flight', 'hotel')),
    url                         text NOT NULL CHECK (length(url) BETWEEN 8 AND 2048),
    event_types                 text[] NOT NULL CHECK (cardinality(event_types) > 0),
    status                      text NOT NULL DEFAULT 'ACTIVE'
                                CHECK (status IN ('ACTIVE', 'PAUSED')),
    secret_enc                  text NOT NULL,
    -- After a rotation the previous secret keeps being signed until then.
    previous_secret_enc         text,
    previous_secret_expires_at  timestamptz,
    created_at                  timestamptz NOT NULL DEFAULT trv_now(),
    updated_at                  timestamptz NOT NULL DEFAULT trv_now(),
    deleted_at                  timestamptz
);
CREATE INDEX webhook_subscriptions_org ON webhook_subscriptions (org_id, family, created_at)
    WHERE deleted_at IS NULL;
-- One subscription per URL (per organization and family).
CREATE UNIQUE INDEX webhook_subscriptions_url ON webhook_subscriptions (org_id, family, url)
    WHERE deleted_at IS NULL;

-- One delivery per (subscription, event). A send is the current run of
-- attempts: the first, or the one a replay started (replay_count). The
-- request of a send is fixed when it is queued: its URL and the secrets it
-- is signed with (pausing, URL changes and rotations affect later sends).
CREATE TABLE webhook_deliveries (
    id               text PRIMARY KEY,                   -- dlv_<uuidv7>
    subscription_id  text NOT NULL REFERENCES webhook_subscriptions (id),
    org_id           text NOT NULL REFERENCES organizations (id),
    event_id         text NOT NULL REFERENCES events (id),
    status           text NOT NULL CHECK (status IN ('PENDING', 'PUBLISHED', 'DELIVERED', 'FAILED')),
    replay_count     integer NOT NULL DEFAULT 0,
    failure_reason   text,
    url              text NOT NULL,                      -- as queued
    secrets_enc      text[] NOT NULL,                    -- as queued, newest first
    attempt_count    integer NOT NULL DEFAULT 0,         -- attempts of the current send
    queued_at        timestamptz NOT NULL DEFAULT trv_now(), -- the current send became PENDING
    created_at       timestamptz NOT NULL DEFAULT trv_now(),
    published_at     timestamptz,
    delivered_at     timestamptz,
    failed_at        timestamptz,
    updated_at       timestamptz NOT NULL DEFAULT trv_now(),
    UNIQUE (subscription_id, event_id)
);
CREATE INDEX webhook_deliveries_list ON webhook_deliveries (subscription_id, created_at DESC, id DESC);
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id);

CREATE TABLE webhook_attempts (
    delivery_id      text NOT NULL REFERENCES webhook_deliveries (id),
    replay           integer NOT NULL,                   -- the send it belongs to
    attempt_number   integer NOT NULL CHECK (attempt_number > 0),
    response_status  integer NOT NULL,                   -- 0: no HTTP response
    response_body    text NOT NULL DEFAULT '',           -- the first 4 KB
    error            text,                               -- why there was no response
    duration_ms      integer NOT NULL DEFAULT 0,
    sender           text,                               -- worker id (host:pid:thread)
    created_at       timestamptz NOT NULL DEFAULT trv_now(),
    PRIMARY KEY (delivery_id, replay, attempt_number)
);
