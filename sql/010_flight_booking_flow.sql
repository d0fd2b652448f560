-- The flight booking flow: what prebook binds (itinerary, party, prices,
-- fare terms), the idempotency of prebook, the progress of book (so a
-- background job can finish what a killed request started), payments,
-- refunds and the airline directory.

ALTER TABLE flight_bookings
    ADD COLUMN idempotency_key          text CHECK (length(idempotency_key) BETWEEN 1 AND 256),
    ADD COLUMN request_hash             text,          -- SHA-256 of the canonical prebook body
    ADD COLUMN offer_reference          text,          -- the supplier's own offer reference
    ADD COLUMN fare_amount              numeric,
    ADD COLUMN fare_tax_amount          numeric,
    ADD COLUMN services_amount          numeric,
    ADD COLUMN expires_at               timestamptz,   -- completable until then
    ADD COLUMN use_payment_sdk          boolean NOT NULL DEFAULT false,
    ADD COLUMN sdk_token                text,          -- never shown again after prebook
    ADD COLUMN member_price             boolean,
    ADD COLUMN hold                     jsonb,         -- {held, expires_at} (SUPPLIER_B)
    ADD COLUMN contact                  jsonb,
    ADD COLUMN passengers               jsonb,         -- as given, with psg_ ids; numbers in full
    ADD COLUMN journeys                 jsonb,         -- API journeys with psg_ ids
    ADD COLUMN services                 jsonb,         -- API services (svc_ ids)
    ADD COLUMN fare_conditions          jsonb,
    ADD COLUMN cancellation_policy      jsonb,
    ADD COLUMN supplier_data            jsonb,         -- opaque; the adapter needs it at book
    ADD COLUMN failure                  jsonb,         -- {code, description}
    ADD COLUMN cancellation             jsonb,         -- {fee, refunded_by, refund_amount, refund_to}
    ADD COLUMN airline_initiated_changes jsonb NOT NULL DEFAULT '[]',
    ADD COLUMN confirmed_at             timestamptz,
    ADD COLUMN canceled_at              timestamptz,
    -- Where book stands while COMPLETE_IN_PROGRESS: authorizing (payment),
    -- ordering (supplier book sent), ticketing (supplier still ticketing),
    -- unknown (the supplier did not answer: never retried by the service).
    ADD COLUMN book_phase               text CHECK (book_phase IN
                                            ('authorizing', 'ordering', 'ticketing', 'unknown')),
    ADD COLUMN phase_owner              text,          -- host:pid of the request doing the step
    ADD COLUMN phase_deadline           timestamptz,   -- the step's calls have timed out by then
    ADD COLUMN book_attempt             integer NOT NULL DEFAULT 0, -- keys towards payment and supplier
    ADD COLUMN payment_instrument_id    text,
    ADD COLUMN cancel_attempt           integer NOT NULL DEFAULT 0,
    ADD COLUMN synced_at                timestamptz;   -- last read of the order at the supplier

-- One booking per prebook key of a user; concurrent prebooks with one key
-- meet here (INSERT ... ON CONFLICT), not in a check-then-insert.
CREATE UNIQUE INDEX flight_bookings_idempotency
    ON flight_bookings (org_id, user_id, idempotency_key);

-- SUPPLIER_A sells an offer once at a time: one unfinished booking per offer.
CREATE UNIQUE INDEX flight_bookings_active_offer
    ON flight_bookings (supplier, offer_reference)
    WHERE supplier = 'SUPPLIER_A'
      AND status IN ('CREATED', 'PREBOOK_IN_PROGRESS', 'READY_FOR_COMPLETE', 'COMPLETE_IN_PROGRESS');

CREATE INDEX flight_bookings_expiring ON flight_bookings (expires_at)
    WHERE status = 'READY_FOR_COMPLETE';

-- A booking's payment. One per booking: a booking is charged once however
-- many requests and jobs race to book it.
CREATE TABLE flight_payments (
    id            text PRIMARY KEY,                -- pay_...
    booking_id    text NOT NULL UNIQUE REFERENCES flight_bookings (id),
    status        text NOT NULL CHECK (status IN ('AUTHORIZED', 'CAPTURED', 'VOIDED')),
    currency      text NOT NULL,
    amount        numeric NOT NULL,
    collected_by  text NOT NULL,                   -- SERVICE or SUPPLIER
    provider_ref  text,                            -- the provider's authorization id
    card          jsonb,                           -- {brand, last4, funding, wallet}; NULL until readable
    created_at    timestamptz NOT NULL DEFAULT trv_now(),
    updated_at    timestamptz NOT NULL DEFAULT trv_now(),
    captured_at   timestamptz
);

-- Refund requests to the payment provider after a cancellation, one per
-- payment. PENDING: to submit; SUBMITTED: accepted by the provider;
-- FAILED: submission failed for good (a repeated cancel restarts it).
CREATE TABLE flight_refunds (
    id            text PRIMARY KEY,                -- rfd_...
    booking_id    text NOT NULL REFERENCES flight_bookings (id),
    payment_id    text NOT NULL UNIQUE REFERENCES flight_payments (id),
    currency      text NOT NULL,
    amount        numeric NOT NULL CHECK (amount >= 0),
    status        text NOT NULL CHECK (status IN ('PENDING', 'SUBMITTED', 'FAILED')),
    provider_ref  text,
    attempts      integer NOT NULL DEFAULT 0,
    last_error    text,
    created_at    timestamptz NOT NULL DEFAULT trv_now(),
    updated_at    timestamptz NOT NULL DEFAULT trv_now()
);
CREATE INDEX flight_refunds_booking ON flight_refunds (booking_id);

-- The airline directory: seeded from OpenFlights airlines.dat (ODbL, see
-- docs/data-licenses.md); carriers missing from it are imported from a
-- supplier on first lookup.
CREATE TABLE flight_airlines (
    id          text PRIMARY KEY,
    iata_code   text NOT NULL UNIQUE CHECK (iata_code ~ '^[A-Z0-9]{2}$'),
    icao_code   text,
    name        text NOT NULL,
    country     text,
    alliance    text,
    logo_url    text,
    is_active   boolean NOT NULL,
    source      text NOT NULL CHECK (source IN ('openflights', 'supplier')),
    created_at  timestamptz NOT NULL DEFAULT trv_now(),
    updated_at  timestamptz NOT NULL DEFAULT trv_now()
);
CREATE INDEX flight_airlines_alliance ON flight_airlines (lower(alliance));
