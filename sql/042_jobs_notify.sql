-- Work committed by any process (another instance, travelctl, a trigger)
-- wakes the background workers of every listening httpd child at once,
-- instead of at their next poll: a webhook goes out milliseconds after its
-- event commits. One notification per statement, delivered at commit.
CREATE FUNCTION jobs_queued() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('trv_jobs', '');
    RETURN NULL;
END $$;
CREATE TRIGGER jobs_queued AFTER INSERT ON jobs
    FOR EACH STATEMENT EXECUTE FUNCTION jobs_queued();
