-- Test mode (mod_travel_sandbox): what the sandbox suppliers and payment
-- provider keep, so every httpd child and every restart sees the same
-- orders, checkouts and payments. Offers are not stored: their references
-- are signed and carry what is needed to price them again.

-- Idempotency keys of the sandbox APIs (Stripe's model): the same key on
-- the same endpoint answers the stored response; a different request
-- under a used key is refused.
CREATE TABLE sandbox.idempotency (
    scope         text NOT NULL,             -- api and endpoint, e.g. a:orders
    key           text NOT NULL,
    request_hash  text NOT NULL,
    status        integer NOT NULL,
    response      jsonb NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (scope, key)
);

-- Flight orders of both suppliers. doc is the order as sold, in the
-- supplier's own wire format; segments is a neutral list used by the
-- schedule-change control endpoint.
CREATE TABLE sandbox.flight_orders (
    id                text PRIMARY KEY,       -- ord_ (A) or bo_ (B)
    supplier          text NOT NULL CHECK (supplier IN ('A', 'B')),
    offer_ref         text NOT NULL,          -- the offer (A) or fare key (B)
    checkout_id       text,
    status            text NOT NULL
                      CHECK (status IN ('pending', 'ticketed', 'failed', 'cancelled')),
    pnr               text NOT NULL,
    trigger           text,                   -- test-mode trigger of the passengers
    brand             text NOT NULL,
    currency          text NOT NULL,
    total_minor       bigint NOT NULL,
    tax_minor         bigint NOT NULL,
    services_minor    bigint NOT NULL,
    refund_allowed    boolean NOT NULL,
    refund_penalty    bigint NOT NULL,        -- whole party, minor units
    doc               jsonb NOT NULL,
    segments          jsonb NOT NULL,
    payment           jsonb,                  -- what the supplier charged (B)
    failure           jsonb,
    ticketing_due_at  timestamptz,
    created_at        timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at        timestamptz NOT NULL DEFAULT clock_timestamp(),
    cancelled_at      timestamptz,
    cancellation      jsonb
);
-- SUPPLIER_A sells an offer once: a second order of it is refused while
-- the first one stands.
CREATE UNIQUE INDEX flight_orders_a_offer ON sandbox.flight_orders (offer_ref)
    WHERE supplier = 'A' AND status <> 'failed';

-- SUPPLIER_A's order cancellations (Duffel's model): created as a quote,
-- confirmed to cancel.
CREATE TABLE sandbox.order_cancellations (
    id             text PRIMARY KEY,          -- ore_
    order_id       text NOT NULL REFERENCES sandbox.flight_orders (id),
    currency       text NOT NULL,
    penalty_minor  bigint NOT NULL,
    refund_minor   bigint NOT NULL,
    refund_to      text NOT NULL,
    expires_at     timestamptz NOT NULL,
    confirmed_at   timestamptz,
    created_at     timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX order_cancellations_order ON sandbox.order_cancellations (order_id);

-- SUPPLIER_B's checkouts: the itinerary and party bound, held until
-- expires_at when held.
CREATE TABLE sandbox.checkouts (
    id            text PRIMARY KEY,           -- chk_
    fare_key      text NOT NULL,
    status        text NOT NULL CHECK (status IN ('open', 'held', 'completed')),
    held          boolean NOT NULL,
    expires_at    timestamptz NOT NULL,
    currency      text NOT NULL,
    total_minor   bigint NOT NULL,
    doc           jsonb NOT NULL,
    order_id      text,
    created_at    timestamptz NOT NULL DEFAULT clock_timestamp()
);

-- Airline-initiated changes recorded through the sandbox control API.
CREATE TABLE sandbox.airline_changes (
    id          text PRIMARY KEY,             -- aic_
    order_id    text NOT NULL REFERENCES sandbox.flight_orders (id),
    doc         jsonb NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX airline_changes_order ON sandbox.airline_changes (order_id, created_at);

-- The payment provider (Stripe's model): authorizations, captures,
-- refunds, and client-side SDK sessions.
CREATE TABLE sandbox.pay_authorizations (
    id               text PRIMARY KEY,        -- auth_
    payment_method   text NOT NULL,
    currency         text NOT NULL,
    amount           bigint NOT NULL CHECK (amount > 0),
    amount_captured  bigint NOT NULL DEFAULT 0,
    amount_refunded  bigint NOT NULL DEFAULT 0,
    status           text NOT NULL CHECK (status IN ('requires_capture', 'captured', 'canceled')),
    card             jsonb NOT NULL,
    card_ready_at    timestamptz NOT NULL,    -- pi_test_slowcard: readable later
    session_id       text,
    metadata         jsonb NOT NULL DEFAULT '{}',
    created_at       timestamptz NOT NULL DEFAULT clock_timestamp(),
    captured_at      timestamptz,
    canceled_at      timestamptz,
    CHECK (amount_captured <= amount AND amount_refunded <= amount_captured)
);

CREATE TABLE sandbox.pay_refunds (
    id                text PRIMARY KEY,       -- re_
    authorization_id  text NOT NULL REFERENCES sandbox.pay_authorizations (id),
    currency          text NOT NULL,
    amount            bigint NOT NULL CHECK (amount > 0),
    status            text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
    created_at        timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX pay_refunds_authorization ON sandbox.pay_refunds (authorization_id);

CREATE TABLE sandbox.pay_sdk_sessions (
    id                text PRIMARY KEY,       -- cs_
    client_secret     text NOT NULL UNIQUE,
    currency          text NOT NULL,
    amount            bigint NOT NULL CHECK (amount > 0),
    status            text NOT NULL CHECK (status IN ('open', 'complete')),
    authorization_id  text REFERENCES sandbox.pay_authorizations (id),
    expires_at        timestamptz NOT NULL,
    created_at        timestamptz NOT NULL DEFAULT clock_timestamp()
);
