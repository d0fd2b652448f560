-- The sandbox's hotel suppliers (SUPPLIER_A LiteAPI-like, SUPPLIER_B
-- Hotelbeds-like, SUPPLIER_C Expedia Rapid-like). The hotels themselves are
-- not stored: the catalogue is computed from the OpenFlights airports when
-- the module starts, and rates are signed into their keys. Stored: the
-- bookings, and the price control's factors.

CREATE TABLE sandbox.hotel_bookings (
    id                text PRIMARY KEY,      -- A: bk_..., B: 1-NNNNNNN, C: itinerary id
    supplier          text NOT NULL CHECK (supplier IN ('A', 'B', 'C')),
    client_reference  text,                  -- the caller's reference
    prebook_id        text,                  -- A: the prebook booked
    status            text NOT NULL CHECK (status IN ('pending', 'confirmed', 'cancelled')),
    trigger           text,                  -- test-mode triggers, for the record
    restricted        boolean NOT NULL DEFAULT false,  -- C: cancellation restricted
    cancel_fails      boolean NOT NULL DEFAULT false,  -- cancellation will fail
    currency          text NOT NULL,
    total_minor       bigint NOT NULL,
    doc               jsonb NOT NULL,        -- the neutral booking (hotel/hotel.h)
    confirm_due_at    timestamptz,           -- Async: pending until then
    created_at        timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at        timestamptz NOT NULL DEFAULT clock_timestamp(),
    cancelled_at      timestamptz,
    cancellation      jsonb
);
-- A prebook is booked once; B and C refuse a second booking under one
-- client reference (Rapid's affiliate_reference_id), so a caller that
-- lost an answer finds its booking instead of buying twice.
CREATE UNIQUE INDEX hotel_bookings_prebook ON sandbox.hotel_bookings (prebook_id)
    WHERE supplier = 'A';
CREATE UNIQUE INDEX hotel_bookings_reference ON sandbox.hotel_bookings (supplier, client_reference)
    WHERE supplier IN ('B', 'C') AND client_reference IS NOT NULL;

-- POST /sandbox/hotel-prices: every price of a hotel at a supplier times
-- factor_permille / 1000, from the next supplier call on.
CREATE TABLE sandbox.hotel_price_factors (
    supplier           text NOT NULL CHECK (supplier IN ('A', 'B', 'C')),
    supplier_hotel_id  text NOT NULL,
    factor_permille    integer NOT NULL CHECK (factor_permille BETWEEN 100 AND 10000),
    created_at         timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (supplier, supplier_hotel_id)
);

-- Faults on demand reach the hotel APIs too.
ALTER TABLE sandbox.faults DROP CONSTRAINT faults_target_check;
ALTER TABLE sandbox.faults ADD CONSTRAINT faults_target_check
    CHECK (target IN ('supplier_a', 'supplier_b', 'payments', 'inbox',
                      'hotel_a', 'hotel_b', 'hotel_c'));
