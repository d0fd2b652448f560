-- The transactional outbox: every state change that customers hear about
-- writes its event here in the same transaction as the change, so an event
-- exists exactly when its change committed. The webhook engine fans each
-- event out to the matching subscriptions (job kind event.publish).
CREATE TABLE events (
    id          text PRIMARY KEY,               -- evt_<uuidv7>
    org_id      text NOT NULL REFERENCES organizations (id),
    family      text NOT NULL CHECK (family IN ('flight', 'hotel')),
    type        text NOT NULL,
    data        jsonb NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT trv_now()
);
CREATE INDEX events_org_created ON events (org_id, created_at);

-- When the event.publish job fanned the event out (NULL until then).
ALTER TABLE events ADD COLUMN published_at timestamptz;
