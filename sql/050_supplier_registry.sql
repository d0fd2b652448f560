-- Suppliers are rows of the gateway's registry (C), with their capabilities,
-- and event families are the domains that register event types: the schema
-- no longer lists flight suppliers or event families by name. A booking records at prebook
-- whether its supplier sells an offer to one unfinished booking at a time
-- (the registry's offer-once capability), and the one-unfinished-booking
-- rule reads that column instead of a supplier name.
ALTER TABLE flight_bookings DROP CONSTRAINT flight_bookings_supplier_check;
ALTER TABLE flight_bookings ADD CONSTRAINT flight_bookings_supplier_name
    CHECK (supplier ~ '^[A-Za-z0-9_]{1,64}$');

ALTER TABLE flight_bookings ADD COLUMN offer_once boolean NOT NULL DEFAULT false;
-- Bookings made before the registry: SUPPLIER_A was the one that sells an
-- offer once. Not a change to the bookings as shown: no new revision.
ALTER TABLE flight_bookings DISABLE TRIGGER flight_bookings_revise;
UPDATE flight_bookings SET offer_once = true WHERE supplier = 'SUPPLIER_A';
ALTER TABLE flight_bookings ENABLE TRIGGER flight_bookings_revise;

DROP INDEX flight_bookings_active_offer;
CREATE UNIQUE INDEX flight_bookings_active_offer
    ON flight_bookings (supplier, offer_reference)
    WHERE offer_once
      AND status IN ('CREATED', 'PREBOOK_IN_PROGRESS', 'READY_FOR_COMPLETE', 'COMPLETE_IN_PROGRESS');

-- Event families: any domain name the registry takes (lower-case letters,
-- digits and _, starting with a letter, at most 32).
ALTER TABLE events DROP CONSTRAINT events_family_check;
ALTER TABLE events ADD CONSTRAINT events_family_name CHECK (family ~ '^[a-z][a-z0-9_]{0,31}$');
ALTER TABLE webhook_subscriptions DROP CONSTRAINT webhook_subscriptions_family_check;
ALTER TABLE webhook_subscriptions ADD CONSTRAINT webhook_subscriptions_family_name
    CHECK (family ~ '^[a-z][a-z0-9_]{0,31}$');
