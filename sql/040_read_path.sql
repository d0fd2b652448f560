-- The read path: a GET answers from stored text in one query and writes
-- nothing.

-- trv_ts was IMMUTABLE over a STABLE body (to_char), which PostgreSQL will
-- not inline: every call ran the SQL function machinery, parsing its body
-- again (a profile of GET showed a tenth of the database's time there).
-- Declared STABLE it is inlined into the calling query.
CREATE OR REPLACE FUNCTION trv_ts(t timestamptz) RETURNS text
    LANGUAGE sql STABLE STRICT AS
    $$ SELECT to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') $$;

-- The booking as GET /v1/flight/bookings/{id} shows it, beside the list's
-- rendering and under the same revision rule (014): a document is served
-- only for the revision it was rendered from.
ALTER TABLE flight_booking_docs ADD COLUMN doc text;

-- Every httpd child caches the keys it has authenticated while it LISTENs
-- here; any change to any key makes all of them forget everything.
CREATE FUNCTION api_keys_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('trv_api_keys', '');
    RETURN NULL;
END $$;
CREATE TRIGGER api_keys_changed AFTER UPDATE OR DELETE OR TRUNCATE ON api_keys
    FOR EACH STATEMENT EXECUTE FUNCTION api_keys_changed();

-- Airline-initiated changes are found by a scheduled read of each confirmed
-- order, not by readers of the booking: confirming a booking queues its
-- first read a few seconds later; each read queues the next one, sooner as
-- departure comes closer (flight/jobs.c). Generation 0 of the chain:
CREATE FUNCTION flight_booking_sync_chain() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO jobs (kind, payload, available_at, max_attempts, dedupe_key)
    VALUES ('flight.order.sync',
            jsonb_build_object('id', NEW.id, 'request_id', '-', 'attempt', 0),
            clock_timestamp() + interval '5 seconds', 3,
            'flight.order.sync:' || NEW.id || ':0')
    ON CONFLICT (dedupe_key) WHERE dedupe_key IS NOT NULL
        AND status IN ('queued', 'running') DO NOTHING;
    RETURN NULL;
END $$;
CREATE TRIGGER flight_bookings_sync_chain AFTER UPDATE OF status ON flight_bookings
    FOR EACH ROW WHEN (NEW.status = 'CONFIRMED'
                       AND OLD.status NOT IN ('CONFIRMED', 'CANCEL_IN_PROGRESS'))
    EXECUTE FUNCTION flight_booking_sync_chain();

-- Orders confirmed before this migration and not flown yet start their
-- chain now, spread over the longest interval (six hours) rather than all
-- at once towards the suppliers.
INSERT INTO jobs (kind, payload, available_at, max_attempts, dedupe_key)
SELECT 'flight.order.sync', jsonb_build_object('id', b.id, 'request_id', '-', 'attempt', 0),
       clock_timestamp() + interval '5 seconds' + random() * interval '6 hours', 3,
       'flight.order.sync:' || b.id || ':0'
  FROM flight_bookings b
 WHERE b.status IN ('CONFIRMED', 'CANCEL_IN_PROGRESS')
   AND EXISTS (SELECT 1 FROM jsonb_array_elements(CASE WHEN jsonb_typeof(b.journeys) = 'array'
                                                       THEN b.journeys ELSE '[]' END) j
                WHERE j->>'departure_time' > to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI'))
ON CONFLICT (dedupe_key) WHERE dedupe_key IS NOT NULL
    AND status IN ('queued', 'running') DO NOTHING;
