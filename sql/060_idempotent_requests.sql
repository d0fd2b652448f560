-- Idempotent requests: a POST, PATCH or DELETE that creates or changes
-- something may carry x-idempotency-key. The first request with a key runs
-- and its answer is kept here; a repeat with the same method, path and body
-- within 24 hours gets that answer again, another body is 409
-- idempotency_key_reused, a repeat while the first still runs is 409
-- idempotency_key_in_use. Answers are kept sealed with AES-256-GCM under
-- TravelSecretKeyFile ("v1:" + base64): a webhook subscription's answer
-- carries its signing secret. (Flight prebook keeps its own key rules.)
CREATE TABLE idempotent_requests (
    org_id        text NOT NULL REFERENCES organizations (id),
    idem_key      text NOT NULL CHECK (length(idem_key) BETWEEN 1 AND 256),
    fingerprint   text NOT NULL,       -- SHA-256 of method, path and body
    status        integer,             -- NULL while the first request runs
    answer        text,                -- the body answered, sealed
    created_at    timestamptz NOT NULL DEFAULT trv_now(),
    completed_at  timestamptz,
    PRIMARY KEY (org_id, idem_key)
);
CREATE INDEX idempotent_requests_created ON idempotent_requests (created_at);
