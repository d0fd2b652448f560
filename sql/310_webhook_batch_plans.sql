-- The webhook sender's two statements (webhook/send_batch.c) as functions
-- whose plans cannot scan a whole table.
--
-- As prepared statements their plans were made while jobs and
-- webhook_deliveries were new and small (never analyzed: the planner
-- assumes a few hundred rows) and kept: the claim hash-joined its batch
-- with a sequential scan of every PENDING/PUBLISHED delivery and of jobs,
-- the record looked its jobs up by sequential scans too. Each batch then
-- read every page of both tables, dead rows included, and the longer a
-- sender ran the more each batch cost: in tests/bench/breaker.sh the
-- second run (the one with the hanging receiver) cost PostgreSQL 6-9 s
-- more than the first for the same work, its healthy p99 1.3-2x, with
-- no cause in the hanging receiver at all (perf: HeapTupleSatisfiesVisibility
-- under MultiExecHash in the senders' backends; auto_explain: "Seq Scan on
-- webhook_deliveries" in trv_dlv_batch_claim).
--
-- A batch is at most 16 rows (TRV_WEBHOOK_BATCH) and every row is found by
-- its primary key, so nested loops over index lookups are right whatever
-- the tables hold: hash and merge joins and sequential scans are off for
-- these two functions only (as trv_webhook_due_sends, sql/142, does for
-- its own query). 'webhook.send' is TRV_WEBHOOK_SEND_JOB (webhook/send.h).

-- The claim: h0 keeps the worker's own job (its lease pushed past the
-- receiver's timeout, as trv_job_hold does); x takes more due sends,
-- oldest first (trv_webhook_due_sends); h claims them as the queue's claim
-- does (attempts + 1, locked_by, the lease); d takes each job's delivery
-- only while it is still on that send and that attempt is the next one.
-- The body is built here so the event's numbers go out exactly as stored.
CREATE FUNCTION trv_webhook_batch_claim(hold_us bigint, own_job bigint, own_worker text,
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
            FROM x WHERE j.id = x.id
          RETURNING j.id, j.attempts, j.payload, x.available_at AS due),
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

-- The record, one row of r per item. wait (a throttled or held request)
-- is a release after next_us. o: each sent attempt's outcome (DELIVERED,
-- FAILED when retries are exhausted, or PUBLISHED: retrying), only while
-- the delivery is still on that send and attempt; a: its attempt row; j:
-- for PUBLISHED the next attempt's job; g: the end of the sent and stale
-- jobs (what the queue's "done" would do); l: the jobs not sent go back to
-- the queue (what its "release" and "retry" do). Returns the deliveries
-- whose outcome it wrote.
CREATE FUNCTION trv_webhook_batch_record(items jsonb, own_worker text, send_kind text,
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
    g AS (DELETE FROM jobs jb USING r
           WHERE r.action IN ('sent', 'done') AND jb.id = r.job_id AND jb.locked_by = own_worker
             AND jb.attempts = r.job_attempt),
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
             AND jb.locked_by = own_worker AND jb.attempts = r.job_attempt)
    SELECT o.id FROM o;
END $$;
