-- Failures on demand (mod_travel_sandbox): the next requests of a scope
-- are answered as told instead of as usual. One table for the supplier
-- APIs, the payment provider and the webhook inbox, whose behaviors
-- (sandbox migration 001) move here: a behavior is a fault of the inbox.
--
-- A request matches a fault of its target when its key matches the scope
-- (exact: the inbox name; otherwise the request's x-request-id starts with
-- it), its method and path match when they are given, and the fault has
-- requests left. The oldest matching fault is taken, remaining counted
-- down in the same UPDATE, so N concurrent requests take at most N.
CREATE TABLE sandbox.faults (
    id           bigserial PRIMARY KEY,
    target       text NOT NULL CHECK (target IN ('supplier_a', 'supplier_b', 'payments', 'inbox')),
    scope        text NOT NULL CHECK (length(scope) BETWEEN 1 AND 200),
    exact        boolean NOT NULL,       -- scope = key, else key starts with scope
    method       text,                   -- NULL: any method
    path         text,                   -- the pattern as given ('*' any characters)
    path_like    text,                   -- the same as a LIKE pattern
    action       text NOT NULL
                 CHECK (action IN ('respond', 'error', 'garbage', 'drop', 'drop_after_handling')),
    status       integer CHECK (status BETWEEN 100 AND 599),
    code         text,                   -- error: the error code answered
    message      text,
    retry_after  text,
    delay_ms     integer NOT NULL DEFAULT 0 CHECK (delay_ms BETWEEN 0 AND 120000),
    remaining    integer CHECK (remaining >= 0),  -- NULL: every request until deleted
    hits         integer NOT NULL DEFAULT 0,      -- requests it was applied to
    created_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
    CHECK ((path IS NULL) = (path_like IS NULL))
);
CREATE INDEX faults_target_scope ON sandbox.faults (target, scope);
-- An inbox has one behavior at a time: setting it replaces the last one.
CREATE UNIQUE INDEX faults_one_per_inbox ON sandbox.faults (scope) WHERE target = 'inbox';

INSERT INTO sandbox.faults (target, scope, exact, action, status, retry_after, delay_ms, remaining)
SELECT 'inbox', inbox, true, CASE WHEN status >= 400 THEN 'error' ELSE 'respond' END, status,
       retry_after, delay_ms, remaining
FROM sandbox.inbox_behaviors;

DROP TABLE sandbox.inbox_behaviors;
