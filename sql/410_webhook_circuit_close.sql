-- A 2xx closes an open circuit (sql/400) and lets out what it held back.
-- The note cleared open_until and failing_since, but the sends the fan-out
-- had queued due at open_until, and the requests a sender had put back in
-- the hanging receiver's line, stayed due where they were, up to 60 s
-- ahead: a receiver that answered again got its events only as its old
-- line came due. Now the note that closes a circuit (ok, open_until still
-- ahead) makes those sends due at once: the subscription's queued
-- webhook.send jobs due after now and no later than the circuit's end.
-- A retry due later than that keeps its schedule.
--
-- They are found through jobs_due (available_at, the range of at most the
-- next 60 s of the queue) and each job's delivery by its key: this runs
-- once per closing circuit, never on the healthy path (a note is written
-- only when a subscription's state changes). The workers are woken for
-- them as for new jobs (sql/046's channel).
CREATE OR REPLACE FUNCTION trv_webhook_breaker_note(changes jsonb) RETURNS void
LANGUAGE plpgsql
SET enable_seqscan = off SET enable_hashjoin = off SET enable_mergejoin = off AS $$
DECLARE
    closing jsonb;
    released integer;
BEGIN
    -- The circuits this note closes, and where each one's line ended
    -- (locked: a sender's note that opens it again waits for this one).
    SELECT jsonb_agg(jsonb_build_object('sub', x.id, 'until', x.open_until)) INTO closing
      FROM (SELECT s.id, s.open_until
              FROM jsonb_to_recordset(changes) AS r(sub text, ok boolean, open_us bigint)
              JOIN webhook_subscriptions s ON s.id = r.sub
             WHERE r.ok AND s.open_until > clock_timestamp()
               FOR UPDATE OF s) x;

    UPDATE webhook_subscriptions s
       SET failing_since = CASE WHEN r.ok THEN NULL ELSE coalesce(s.failing_since, trv_now()) END,
           open_until = CASE WHEN r.ok THEN NULL WHEN r.open_us IS NULL THEN s.open_until
                             ELSE greatest(s.open_until,
                                           clock_timestamp() + r.open_us * interval '1 microsecond')
                        END
      FROM jsonb_to_recordset(changes) AS r(sub text, ok boolean, open_us bigint)
     WHERE s.id = r.sub AND (r.ok = (s.failing_since IS NOT NULL) OR r.open_us IS NOT NULL);

    IF closing IS NULL THEN
        RETURN;
    END IF;
    UPDATE jobs j SET available_at = clock_timestamp(), updated_at = clock_timestamp()
      FROM jsonb_to_recordset(closing) AS c(sub text, until timestamptz), webhook_deliveries d
     WHERE j.status = 'queued' AND j.kind = 'webhook.send'
       AND j.available_at > clock_timestamp() AND j.available_at <= c.until
       AND d.id = j.payload->>'delivery_id' AND d.subscription_id = c.sub
       AND d.status IN ('PENDING', 'PUBLISHED');
    GET DIAGNOSTICS released = ROW_COUNT;
    IF released > 0 THEN
        PERFORM pg_notify('trv_jobs', '');
    END IF;
END $$;
