-- Reads are reads: GET /v1/flight/bookings/{id} and the list never write.
-- A booking's two renderings (flight_booking_docs, 014 and 040) are written
-- by a render job queued in the transaction that changes the booking, for
-- the revision that change made (every insert and update raises or sets
-- it, 014). Until the job has run, a reader renders the booking for itself
-- and keeps nothing. One job per revision (its dedupe key), so a change
-- committed while an earlier revision's job runs still gets its own job; a
-- job whose revision is no longer the booking's does nothing (flight/
-- render_job.c). Statement-level: a bulk insert queues its jobs in one
-- statement, and jobs_queued (042) wakes the workers once at commit.
CREATE FUNCTION flight_booking_render_queue() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO jobs (kind, payload, available_at, max_attempts, dedupe_key)
    SELECT 'flight.booking.render',
           jsonb_build_object('id', n.id, 'request_id', '-', 'revision', n.revision),
           clock_timestamp(), 5, 'flight.booking.render:' || n.id || ':' || n.revision
      FROM new_rows n ORDER BY n.id
    ON CONFLICT (dedupe_key) WHERE dedupe_key IS NOT NULL
        AND status IN ('queued', 'running') DO NOTHING;
    RETURN NULL;
END $$;
CREATE TRIGGER flight_bookings_render_insert AFTER INSERT ON flight_bookings
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION flight_booking_render_queue();
CREATE TRIGGER flight_bookings_render_update AFTER UPDATE ON flight_bookings
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION flight_booking_render_queue();

-- Bookings whose renderings are missing or behind: rendered once now.
INSERT INTO jobs (kind, payload, available_at, max_attempts, dedupe_key)
SELECT 'flight.booking.render',
       jsonb_build_object('id', b.id, 'request_id', '-', 'revision', b.revision),
       clock_timestamp(), 5, 'flight.booking.render:' || b.id || ':' || b.revision
  FROM flight_bookings b LEFT JOIN flight_booking_docs d ON d.booking_id = b.id
 WHERE d.revision IS DISTINCT FROM b.revision OR d.doc IS NULL
ON CONFLICT (dedupe_key) WHERE dedupe_key IS NOT NULL
    AND status IN ('queued', 'running') DO NOTHING;
