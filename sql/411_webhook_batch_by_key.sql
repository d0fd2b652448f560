-- The batch claim and record (sql/310) find their jobs by key whatever the
-- planner thinks of the queue's size.
--
-- Its h joined jobs with x (the due sends it took, at most 15) as a nested
-- loop; with the statistics of a queue that was nearly empty when analyzed
-- (one row, as after the breaker bench's VACUUM ANALYZE between runs, or
-- a quiet site's autovacuum) the planner put jobs on the outside, read
-- through its primary key from the first row to the last (sequential scans
-- are off for the function, sql/310), and compared each job with every
-- row of x: every claim read the whole queue. A queue that holds jobs due
-- later made each claim cost as many rows: in the breaker bench's "with"
-- run, the hanging receiver's sends queued behind its open circuit (sql/400)
-- and its line, about 250 rows, read by each of the run's 5,250 claims
-- (auto_explain: "Index Scan using jobs_pkey on jobs j (actual rows=250)"
-- under a Join Filter, in 166 of 184 sampled claims; 2 rows a claim in the
-- run without it), and the claim's buffers per call went from 32 to 71.
-- Now the ids of x are an array and jobs is read with id = ANY (that
-- array): by key, at most 15 lookups, whatever the plan's estimates.
--
-- The record had the same plan twice, in g (the end of the sent jobs) and
-- l (the jobs put back): jobs outside, read whole through its key with
-- locked_by as a filter ("Rows Removed by Filter: 249" in 147 of 165
-- sampled records of the same run), 29 and 36 buffers against 4 and 3.
-- Both now name their jobs with id = ANY (the batch's ids) as well.
CREATE OR REPLACE FUNCTION trv_webhook_batch_claim(hold_us bigint, own_job bigint, own_worker text,
                                        own_attempt int, lim int)
RETURNS TABLE (job_id bigint, job_attempt int, payload text, delivery_id text,
               subscription_id text, url text, secrets text, event_id text, family text,
               body text, max_per_second int, failing_us bigint)
LANGUAGE plpgsql ROWS 16
SET enable_seqscan = off SET enable_hashjoin = off SET enable_mergejoin = off AS $$
#variable_conflict use_column
BEGIN
    RETURN QUERY
    WITH h0 AS (UPDATE jobs SET available_at = clock_timestamp() + hold_us * interval '1 microsecond'
                 WHERE id = own_job AND locked_by = own_worker AND attempts = own_attempt
                 RETURNING id, attempts, payload),
    x AS (SELECT t.job_id AS id, t.due AS available_at
            FROM trv_webhook_due_sends(lim, own_job) t WHERE EXISTS (SELECT 1 FROM h0)),
    h AS (UPDATE jobs j SET status = 'running', attempts = j.attempts + 1, locked_by = own_worker,
                 available_at = clock_timestamp() + hold_us * interval '1 microsecond',
                 updated_at = clock_timestamp()
           WHERE j.id = ANY (ARRAY(SELECT x.id FROM x))
          RETURNING j.id, j.attempts, j.payload,
                    (SELECT x.available_at FROM x WHERE x.id = j.id) AS due),
    b AS (SELECT h0.id, h0.attempts, h0.payload, NULL::timestamptz AS due, 0 AS pos FROM h0
          UNION ALL SELECT h.id, h.attempts, h.payload, h.due, 1 FROM h),
    d AS (UPDATE webhook_deliveries d SET status = 'PUBLISHED',
                 published_at = coalesce(d.published_at, trv_now()), updated_at = trv_now()
            FROM b
           WHERE d.id = b.payload->>'delivery_id' AND d.replay_count = (b.payload->>'replay')::int
             AND d.attempt_count = (b.payload->>'attempt')::int - 1
             AND d.status IN ('PENDING', 'PUBLISHED')
          RETURNING b.id AS job_id, d.id, d.subscription_id, d.url,
                    array_to_json(d.secrets_enc)::text AS secrets, d.event_id)
    SELECT b.id, b.attempts, b.payload::text, d.id, d.subscription_id, d.url, d.secrets, e.id,
           e.family,
           jsonb_build_object('id', e.id, 'type', e.type, 'created_at', trv_ts(e.created_at),
                              'data', e.data)::text,
           s.max_per_second, (extract(epoch FROM s.failing_since) * 1000000)::bigint
      FROM b LEFT JOIN d ON d.job_id = b.id LEFT JOIN events e ON e.id = d.event_id
      LEFT JOIN webhook_subscriptions s ON s.id = d.subscription_id
     ORDER BY b.pos, b.due, b.id;
END $$;

-- The record of sql/310, its jobs found by key (above).
CREATE OR REPLACE FUNCTION trv_webhook_batch_record(items jsonb, own_worker text, send_kind text,
                                         send_max_attempts int)
RETURNS TABLE (delivery_id text)
LANGUAGE plpgsql ROWS 16
SET enable_seqscan = off SET enable_hashjoin = off SET enable_mergejoin = off AS $$
#variable_conflict use_column
BEGIN
    RETURN QUERY
    WITH r AS (SELECT * FROM jsonb_to_recordset(items) AS r(job_id bigint, job_attempt int,
                 action text, delivery_id text, replay int, attempt int, status text,
                 response_status int, response_body text, error text, duration_ms int,
                 next_us bigint)),
    o AS (UPDATE webhook_deliveries d SET attempt_count = r.attempt, status = r.status,
                 delivered_at = CASE WHEN r.status = 'DELIVERED' THEN trv_now() END,
                 failed_at = CASE WHEN r.status = 'FAILED' THEN trv_now() END,
                 failure_reason = CASE WHEN r.status = 'FAILED' THEN 'retries_exhausted' END,
                 updated_at = trv_now()
            FROM r
           WHERE r.action = 'sent' AND d.id = r.delivery_id AND d.replay_count = r.replay
             AND d.attempt_count = r.attempt - 1 AND d.status = 'PUBLISHED'
          RETURNING d.id, d.status, d.replay_count, d.attempt_count, r.response_status,
                    r.response_body, r.error, r.duration_ms, r.next_us),
    a AS (INSERT INTO webhook_attempts (delivery_id, replay, attempt_number, response_status,
                                        response_body, error, duration_ms, sender)
          SELECT o.id, o.replay_count, o.attempt_count, o.response_status, o.response_body,
                 o.error, o.duration_ms, own_worker FROM o),
    j AS (INSERT INTO jobs (kind, payload, available_at, max_attempts)
          SELECT send_kind, jsonb_build_object('delivery_id', o.id, 'replay', o.replay_count,
                                               'attempt', o.attempt_count + 1),
                 clock_timestamp() + o.next_us * interval '1 microsecond', send_max_attempts
            FROM o WHERE o.status = 'PUBLISHED'),
    g AS (DELETE FROM jobs jb
           WHERE jb.id = ANY (ARRAY(SELECT r.job_id FROM r WHERE r.action IN ('sent', 'done')))
             AND jb.locked_by = own_worker
             AND EXISTS (SELECT 1 FROM r WHERE r.job_id = jb.id AND r.job_attempt = jb.attempts
                            AND r.action IN ('sent', 'done'))),
    l AS (UPDATE jobs jb SET status = CASE WHEN r.action = 'retry'
                                             AND jb.attempts >= jb.max_attempts
                                           THEN 'dead' ELSE 'queued' END,
                 attempts = CASE WHEN r.action IN ('release', 'wait') THEN jb.attempts - 1
                                 ELSE jb.attempts END,
                 available_at = clock_timestamp() + coalesce(r.next_us, 0) * interval '1 microsecond',
                 last_error = CASE WHEN r.action = 'retry' THEN r.error ELSE jb.last_error END,
                 locked_by = NULL, updated_at = clock_timestamp()
            FROM r
           WHERE r.action IN ('release', 'retry', 'wait') AND jb.id = r.job_id
             AND jb.id = ANY (ARRAY(SELECT r2.job_id FROM r r2
                                     WHERE r2.action IN ('release', 'retry', 'wait')))
             AND jb.locked_by = own_worker AND jb.attempts = r.job_attempt)
    SELECT o.id FROM o;
END $$;
