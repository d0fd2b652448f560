-- Duffel Stays bookings (docs/suppliers.md): one per quote; the doc is the
-- booking as answered, less its id, reference, status and times.
CREATE TABLE sandbox.duffel_stays_bookings (
    id           text PRIMARY KEY,          -- bok_
    quote_id     text NOT NULL UNIQUE,      -- a quote is booked once
    reference    text NOT NULL,
    status       text NOT NULL DEFAULT 'confirmed' CHECK (status IN ('confirmed', 'cancelled')),
    currency     text NOT NULL,
    total_minor  bigint NOT NULL,
    doc          jsonb NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
    cancelled_at timestamptz
);
