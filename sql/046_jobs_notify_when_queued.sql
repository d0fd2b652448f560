-- jobs_queued (042) notified the workers after every INSERT INTO jobs
-- statement, also one that queued nothing: the webhook sender's record of a
-- delivered attempt inserts its next attempt's job only when there is one
-- (webhook/send.c), so every delivery woke every listening httpd child for
-- nothing (a wake-up in PostgreSQL and in each child; a profile of a burst
-- showed the senders' time mostly in waking threads). Now only a statement
-- that queued at least one job notifies; still one notification per
-- statement, delivered at commit.
CREATE OR REPLACE FUNCTION jobs_queued() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM queued) THEN
        PERFORM pg_notify('trv_jobs', '');
    END IF;
    RETURN NULL;
END $$;
DROP TRIGGER jobs_queued ON jobs;
CREATE TRIGGER jobs_queued AFTER INSERT ON jobs REFERENCING NEW TABLE AS queued
    FOR EACH STATEMENT EXECUTE FUNCTION jobs_queued();
