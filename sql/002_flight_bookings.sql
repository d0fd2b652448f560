-- Flight bookings: scalar columns for what is filtered, sorted and changed by
-- the state machine; the itinerary and party as stored JSON documents.
CREATE TABLE flight_bookings (
    id                  text PRIMARY KEY,
    org_id              text NOT NULL REFERENCES organizations (id),
    user_id             text NOT NULL REFERENCES users (id),
    supplier            text NOT NULL CHECK (supplier IN ('SUPPLIER_A', 'SUPPLIER_B')),
    status              text NOT NULL CHECK (status IN ('CREATED', 'PREBOOK_IN_PROGRESS',
                            'READY_FOR_COMPLETE', 'COMPLETE_IN_PROGRESS', 'CONFIRMED',
                            'CANCEL_IN_PROGRESS', 'CANCELED', 'FAILED', 'EXPIRED')),
    currency            text,
    total_amount        numeric,        -- major units, exact; NULL until priced
    supplier_reference  text,
    airline_pnr         text,
    created_at          timestamptz NOT NULL DEFAULT trv_now(),
    updated_at          timestamptz NOT NULL DEFAULT trv_now()
);
CREATE INDEX flight_bookings_owner_created ON flight_bookings (org_id, user_id, created_at DESC, id DESC);
CREATE INDEX flight_bookings_owner_total ON flight_bookings (org_id, user_id, total_amount);
CREATE UNIQUE INDEX flight_bookings_supplier_ref ON flight_bookings (org_id, supplier, supplier_reference)
    WHERE supplier_reference IS NOT NULL;
