-- Organizations, users, API keys and the background job queue.
-- Timestamps are stored to the millisecond: the API prints milliseconds and
-- filters compare "to the millisecond".

CREATE FUNCTION trv_now() RETURNS timestamptz
    LANGUAGE sql STABLE AS $$ SELECT date_trunc('milliseconds', now()) $$;

-- The wire format of an instant: 2026-11-22T22:08:46.123Z
CREATE FUNCTION trv_ts(t timestamptz) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT AS
    $$ SELECT to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') $$;

CREATE TABLE organizations (
    id          text PRIMARY KEY,
    name        text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    created_at  timestamptz NOT NULL DEFAULT trv_now()
);

CREATE TABLE users (
    id          text PRIMARY KEY,
    org_id      text NOT NULL REFERENCES organizations (id),
    name        text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    created_at  timestamptz NOT NULL DEFAULT trv_now(),
    UNIQUE (org_id, name)
);

-- Only the SHA-256 of a key is kept; the key itself is shown once.
CREATE TABLE api_keys (
    id          text PRIMARY KEY,
    org_id      text NOT NULL REFERENCES organizations (id),
    user_id     text NOT NULL REFERENCES users (id),
    key_hash    text NOT NULL UNIQUE CHECK (key_hash ~ '^[0-9a-f]{64}$'),
    key_prefix  text NOT NULL,             -- first characters, to recognise a key
    mode        text NOT NULL CHECK (mode IN ('live', 'test')),
    created_at  timestamptz NOT NULL DEFAULT trv_now(),
    revoked_at  timestamptz
);
CREATE INDEX api_keys_org ON api_keys (org_id, created_at);

-- The job queue. available_at is when a queued job is due, or when the
-- lease of a running job runs out (then any worker may claim it again).
CREATE TABLE jobs (
    id            bigserial PRIMARY KEY,
    kind          text NOT NULL,
    payload       jsonb NOT NULL DEFAULT '{}',
    status        text NOT NULL DEFAULT 'queued'
                  CHECK (status IN ('queued', 'running', 'dead')),
    available_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
    attempts      integer NOT NULL DEFAULT 0,
    max_attempts  integer NOT NULL DEFAULT 10 CHECK (max_attempts > 0),
    locked_by     text,
    last_error    text,
    dedupe_key    text,
    created_at    timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at    timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX jobs_due ON jobs (available_at) WHERE status IN ('queued', 'running');
CREATE UNIQUE INDEX jobs_dedupe ON jobs (dedupe_key)
    WHERE dedupe_key IS NOT NULL AND status IN ('queued', 'running');

-- Runs of the worker probe job (travelctl worker probe): the end-to-end
-- check that the background workers claim and run work.
CREATE TABLE job_probe_runs (
    job_id      bigint NOT NULL,
    attempt     integer NOT NULL,
    worker      text NOT NULL,
    label       text,
    ran_at      timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX job_probe_runs_label ON job_probe_runs (label);
