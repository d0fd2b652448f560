-- What the service asked (or will ask) the payment provider to authorize for
-- a booking, written BEFORE the call: the idempotency key, the instrument and
-- the amount. A call that gets no answer (a timeout, a dropped connection, a
-- killed child) may still have made an authorization at the provider; this
-- row is how the service finds it again, with the same key, instead of
-- leaving the customer's funds held until they lapse:
--   * the booking's next attempt with the same instrument and amount
--     authorizes with the same key (the provider answers the authorization
--     it made, or makes it now): the customer is authorized once;
--   * otherwise the flight.payment.release job repeats the call with its key
--     (so the provider reveals the authorization, if any) and voids it.
-- An SDK payment (the customer's device authorized a session) has one row per
-- booking without key or instrument once it must be released: the job finds
-- the authorization through the booking's session.
--
-- status:
--   PENDING     a book attempt holds it (its authorize call may be in flight)
--   UNRESOLVED  nobody holds it and its outcome is unknown (no answer), or its
--               authorization could not be voided: released from release_at
--   RELEASING   the release job is voiding it
--   AUTHORIZED  its authorization is the booking's payment (flight_payments)
--   RESOLVED    settled for good: outcome says how
CREATE TABLE flight_authorization_intents (
    id               text PRIMARY KEY,                  -- pai_...
    booking_id       text NOT NULL REFERENCES flight_bookings (id),
    idempotency_key  text UNIQUE,                       -- <booking>:authorize:<attempt>; NULL: SDK
    instrument       text,                              -- payment_instrument_id; NULL: SDK
    currency         text NOT NULL,
    amount           numeric NOT NULL,
    status           text NOT NULL CHECK (status IN
                         ('PENDING', 'UNRESOLVED', 'RELEASING', 'AUTHORIZED', 'RESOLVED')),
    book_attempt     integer NOT NULL,                  -- the attempt that last held it
    provider_ref     text,                              -- the authorization id, once known
    outcome          text,                              -- RESOLVED: voided, declined, rejected,
                                                        -- not_found, unavailable, captured
    release_at       timestamptz,                       -- UNRESOLVED: the job releases it from then
    release_gen      integer NOT NULL DEFAULT 0,        -- +1 per release scheduled (job dedupe)
    created_at       timestamptz NOT NULL DEFAULT trv_now(),
    updated_at       timestamptz NOT NULL DEFAULT trv_now(),
    resolved_at      timestamptz,
    CHECK ((idempotency_key IS NULL) = (instrument IS NULL))
);
CREATE INDEX flight_authorization_intents_booking
    ON flight_authorization_intents (booking_id, created_at);
-- A booking's SDK session is one authorization: one row for it.
CREATE UNIQUE INDEX flight_authorization_intents_sdk
    ON flight_authorization_intents (booking_id) WHERE idempotency_key IS NULL;
