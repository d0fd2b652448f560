-- The due webhook sends a sender's batch claim takes besides its own job
-- (webhook/send_batch.c): the oldest first, locked FOR UPDATE SKIP LOCKED
-- as the queue's own claim locks, so no two senders take one job. Read in
-- jobs_due order, this stops after `lim` rows. As a plain subquery of the
-- claim the planner, whose estimate for "available_at <= now()" lags a
-- queue that fills by thousands a second, chose a bitmap scan of every due
-- job and a sort instead (a batch's claim took 8 ms in
-- tests/bench/webhooks.sh, the queue's claim of one job 0.2 ms); here the
-- bitmap scan and the sort are off for this one query, and the planner of
-- the claim is told it returns at most a batch (ROWS 16, TRV_WEBHOOK_BATCH)
-- so it joins by index, not by hashing every job and delivery.
-- 'webhook.send' is TRV_WEBHOOK_SEND_JOB (webhook/send.h).
CREATE FUNCTION trv_webhook_due_sends(lim int, mine bigint)
RETURNS TABLE (job_id bigint, due timestamptz)
LANGUAGE plpgsql ROWS 16 SET enable_bitmapscan = off SET enable_sort = off AS $$
BEGIN
    RETURN QUERY
    SELECT j.id, j.available_at FROM jobs j
     WHERE j.status IN ('queued', 'running') AND j.available_at <= now()
       AND j.attempts < j.max_attempts AND j.kind = 'webhook.send' AND j.id <> mine
     ORDER BY j.available_at LIMIT lim FOR UPDATE OF j SKIP LOCKED;
END $$;
