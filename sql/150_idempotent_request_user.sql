-- A key is scoped as the resource its route acts on: organization-scoped
-- routes (webhook subscriptions, hotel bookings) keep user_scope '', routes
-- on user-scoped resources (flight bookings, watches, mandates) record the
-- calling user. Another user of the organization sending the same key,
-- path and body is then another request (it runs, and answers 404 for a
-- resource that is not theirs) instead of replaying the owner's answer.
ALTER TABLE idempotent_requests ADD COLUMN user_scope text NOT NULL DEFAULT '';
ALTER TABLE idempotent_requests DROP CONSTRAINT idempotent_requests_pkey;
ALTER TABLE idempotent_requests ADD PRIMARY KEY (org_id, user_scope, idem_key);
