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

-- Removal leaves dead rows that only VACUUM makes room of: these three
-- tables churn by design, so autovacuum visits them after 2 % of their
-- rows changed (not the default 20 %), and their size stays flat once the
-- period has passed (tests/bench/retention.sh).
ALTER TABLE events SET (autovacuum_vacuum_scale_factor = 0.02,
                        autovacuum_vacuum_insert_scale_factor = 0.02);
ALTER TABLE webhook_deliveries SET (autovacuum_vacuum_scale_factor = 0.02,
                                    autovacuum_vacuum_insert_scale_factor = 0.02);
ALTER TABLE webhook_attempts SET (autovacuum_vacuum_scale_factor = 0.02,
                                  autovacuum_vacuum_insert_scale_factor = 0.02);
