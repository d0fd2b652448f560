-- Retention (webhook/retention.c): events, their deliveries and attempts
-- older than TravelWebhookRetention are removed by the webhook.retention
-- job in small batches, oldest first; this index finds them without
-- reading the table (events_org_created leads with the organization).
CREATE INDEX events_created ON events (created_at);

-- The job is a chain: each run queues the next under the same dedupe key
-- (at most one queued or running on every instance of the database). The
-- first is queued here; the webhook sender queues one again (the key
-- keeps it single) if the chain ever stopped.
INSERT INTO jobs (kind, payload, max_attempts, dedupe_key)
VALUES ('webhook.retention', '{}', 5, 'webhook.retention')
ON CONFLICT (dedupe_key) WHERE dedupe_key IS NOT NULL AND status IN ('queued', 'running')
DO NOTHING;
