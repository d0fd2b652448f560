-- Test mode (mod_travel_sandbox): the webhook inbox records every request it
-- receives, and can be told how to answer the next ones.
-- Schema sandbox and sandbox.schema_migrations are made by the migrator
-- (mod_travel/sandbox/ctl/sandboxctl.c) before the first migration.

CREATE TABLE sandbox.inbox_requests (
    id           bigserial PRIMARY KEY,
    inbox        text NOT NULL,
    method       text NOT NULL,
    path         text NOT NULL,
    query        text,
    headers      jsonb NOT NULL,
    body         bytea NOT NULL,
    status       integer NOT NULL,       -- what the inbox answered
    received_at  timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX inbox_requests_inbox ON sandbox.inbox_requests (inbox, id);

CREATE TABLE sandbox.inbox_behaviors (
    inbox        text PRIMARY KEY,
    status       integer NOT NULL CHECK (status BETWEEN 100 AND 599),
    retry_after  text,
    delay_ms     integer NOT NULL DEFAULT 0 CHECK (delay_ms BETWEEN 0 AND 120000),
    remaining    integer                  -- NULL: every request until reset
);
