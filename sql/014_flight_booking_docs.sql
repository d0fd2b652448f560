-- Rendered list documents of flight bookings. Every change to a booking or
-- its payments raises the booking's revision; a document is served only for
-- the revision it was rendered from, so a stale one is never seen. The list
-- endpoint renders what is missing (one renderer, in C) and keeps it, so a
-- page is mostly stored text joined together instead of JSON parsed and
-- printed again on every read.
ALTER TABLE flight_bookings ADD COLUMN revision bigint NOT NULL DEFAULT 1;

CREATE FUNCTION flight_booking_revise() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.revision := OLD.revision + 1;
    RETURN NEW;
END $$;
CREATE TRIGGER flight_bookings_revise BEFORE UPDATE ON flight_bookings
    FOR EACH ROW EXECUTE FUNCTION flight_booking_revise();

-- A payment is part of the booking as shown.
CREATE FUNCTION flight_payment_revises_booking() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE flight_bookings SET revision = revision + 1
     WHERE id = CASE WHEN TG_OP = 'DELETE' THEN OLD.booking_id ELSE NEW.booking_id END;
    RETURN NULL;
END $$;
CREATE TRIGGER flight_payments_revise AFTER INSERT OR UPDATE OR DELETE ON flight_payments
    FOR EACH ROW EXECUTE FUNCTION flight_payment_revises_booking();

CREATE TABLE flight_booking_docs (
    booking_id  text PRIMARY KEY REFERENCES flight_bookings (id) ON DELETE CASCADE,
    revision    bigint NOT NULL,
    list_doc    text NOT NULL     -- the booking as GET /v1/flight/bookings shows it
);
