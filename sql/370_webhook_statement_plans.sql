-- Three more statements of the webhook path as functions whose plans
-- cannot scan a whole table (the cause sql/310 found for the sender's
-- batch claim and record; the same audit of the path's other statements).
--
-- A prepared statement's plan is planned again for its first five runs
-- and then, when a generic plan costs about as much, that plan is kept
-- for the connection's life. Made while the tables were new (never
-- analyzed: the planner assumes a few pages), these three kept plans that
-- read whole tables on every run once they had grown:
--   - the retention job's removal (webhook/retention.c) hash-joined its
--     500 events with a sequential scan of every delivery, twice (the
--     deliveries to remove, and the "no send still needs it" check), and
--     of every event: 134 ms a batch at 40,000 deliveries, growing with
--     the tables it exists to keep small, while the senders wait for the
--     same pages;
--   - the throttle's admission (webhook/throttle.c) and the circuit
--     breaker's failure state (webhook/breaker.c) hash-joined their few
--     subscriptions (jsonb_to_recordset, estimated at 100 rows) with a
--     sequential scan of every subscription of every organization: 10 ms
--     at 5,000 subscriptions, on a sender's batch. Those two do so even
--     with a fresh plan, whatever the tables' statistics.
-- Each row they touch is found by a key (events_created, the
-- webhook_deliveries_event index, the primary keys), so nested loops over
-- index lookups are right whatever the tables hold: sequential scans and
-- hash and merge joins are off for these functions only, as for sql/142
-- and sql/310. tests/db/test_webhook_statement_plans.c checks it.

-- The throttle (sql/171): u lets a subscription's request go when its
-- last one went a spacing ago or more (the row's lock orders concurrent
-- senders: the second sees the first's time and waits); the answer also
-- says, for the others, how long until the subscription's next free
-- moment. reqs: [{"sub": id, "spacing_us": n}].
CREATE FUNCTION trv_webhook_throttle_admit(reqs jsonb)
RETURNS TABLE (sub text, admitted boolean, wait_us bigint)
LANGUAGE plpgsql ROWS 16
SET enable_seqscan = off SET enable_hashjoin = off SET enable_mergejoin = off AS $$
#variable_conflict use_column
BEGIN
    RETURN QUERY
    WITH r AS (SELECT * FROM jsonb_to_recordset(reqs) AS r(sub text, spacing_us bigint)),
    u AS (UPDATE webhook_subscriptions s SET throttle_last = clock_timestamp() FROM r
           WHERE s.id = r.sub AND (s.throttle_last IS NULL OR s.throttle_last <= clock_timestamp()
                 - r.spacing_us * interval '1 microsecond')
          RETURNING s.id)
    SELECT r.sub, u.id IS NOT NULL,
           greatest(0, r.spacing_us
                       + (extract(epoch FROM (s.throttle_last - clock_timestamp())) * 1000000)::bigint)
      FROM r LEFT JOIN u ON u.id = r.sub JOIN webhook_subscriptions s ON s.id = r.sub;
END $$;

-- The circuit breaker's failure state (sql/181), written only when it
-- changes: a failure of a subscription that had none, a 2xx of one that
-- had one (checked again here, so two senders that both saw a change
-- write it once). changes: [{"sub": id, "ok": bool}].
CREATE FUNCTION trv_webhook_breaker_note(changes jsonb) RETURNS void
LANGUAGE plpgsql
SET enable_seqscan = off SET enable_hashjoin = off SET enable_mergejoin = off AS $$
BEGIN
    UPDATE webhook_subscriptions s SET failing_since = CASE WHEN r.ok THEN NULL ELSE trv_now() END
      FROM jsonb_to_recordset(changes) AS r(sub text, ok boolean)
     WHERE s.id = r.sub AND r.ok = (s.failing_since IS NOT NULL);
END $$;

-- One retention batch (sql/182): the oldest events past the period
-- (events_created) that no transaction holds and no send still needs,
-- with their deliveries and those deliveries' attempts. The foreign keys
-- are checked at the end of the statement, when all three are gone.
CREATE FUNCTION trv_webhook_retention_remove(period_us bigint, lim int)
RETURNS TABLE (events bigint, deliveries bigint, attempts bigint)
LANGUAGE plpgsql ROWS 1
SET enable_seqscan = off SET enable_hashjoin = off SET enable_mergejoin = off AS $$
BEGIN
    RETURN QUERY
    WITH ev AS (SELECT e.id FROM events e
                 WHERE e.created_at < now() - period_us * interval '1 microsecond'
                   AND NOT EXISTS (SELECT 1 FROM webhook_deliveries q WHERE q.event_id = e.id
                                      AND q.status IN ('PENDING', 'PUBLISHED'))
                 ORDER BY e.created_at LIMIT lim FOR UPDATE SKIP LOCKED),
    d AS (DELETE FROM webhook_deliveries d USING ev WHERE d.event_id = ev.id RETURNING d.id),
    a AS (DELETE FROM webhook_attempts a USING d WHERE a.delivery_id = d.id RETURNING 1),
    x AS (DELETE FROM events e USING ev WHERE e.id = ev.id RETURNING 1)
    SELECT (SELECT count(*) FROM x), (SELECT count(*) FROM d), (SELECT count(*) FROM a);
END $$;
