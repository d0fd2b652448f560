-- SUPPLIER_A speaks Duffel Air API v2 (docs/suppliers.md).
--
-- Offer requests are kept so that GET /air/offers?offer_request_id= can page
-- through the same offers again: a search is a pure function of its query,
-- its instant and its nonce (sandbox/air/offers.h), so the row holds those
-- three and no offer.
CREATE TABLE sandbox.duffel_offer_requests (
    id          text PRIMARY KEY,          -- orq_
    query       jsonb NOT NULL,            -- slices, passengers, cabin (the sandbox's own form)
    doc         jsonb NOT NULL,            -- the offer request as answered, without offers
    searched_at bigint NOT NULL,           -- unix seconds the offers were priced at
    nonce       bigint NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT clock_timestamp()
);

-- What PATCH /air/offers/{id}/passengers/{id} set on an offer's passenger:
-- names and loyalty programme accounts; the offer is priced with them from
-- then on (a member price).
CREATE TABLE sandbox.duffel_offer_passengers (
    offer_id     text NOT NULL,
    passenger_id text NOT NULL,
    given_name   text NOT NULL,
    family_name  text NOT NULL,
    accounts     jsonb NOT NULL,
    updated_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (offer_id, passenger_id)
);

-- Hold orders: made without payment, paid later by POST /air/payments.
ALTER TABLE sandbox.flight_orders DROP CONSTRAINT flight_orders_status_check;
ALTER TABLE sandbox.flight_orders ADD CONSTRAINT flight_orders_status_check
    CHECK (status IN ('held', 'pending', 'ticketed', 'failed', 'cancelled'));
ALTER TABLE sandbox.flight_orders ADD COLUMN payment_required_by timestamptz;
ALTER TABLE sandbox.flight_orders ADD COLUMN paid_at timestamptz;
UPDATE sandbox.flight_orders SET paid_at = created_at WHERE supplier = 'A';

CREATE TABLE sandbox.duffel_payments (
    id           text PRIMARY KEY,         -- pay_
    order_id     text NOT NULL REFERENCES sandbox.flight_orders (id),
    type         text NOT NULL,
    amount_minor bigint NOT NULL,
    currency     text NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX duffel_payments_order ON sandbox.duffel_payments (order_id);
