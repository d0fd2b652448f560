-- Hotel cancellations: POST /v1/hotel/bookings/{id}/cancel records an
-- attempt (IN_PROGRESS) and a job asks the supplier. SUCCEEDED: the
-- supplier canceled every remaining room; fee, the refund intended and the
-- payments it returns to are recorded (refund NULL: the amount could not be
-- established and needs review). FAILED: the supplier refused or could not
-- be reached; error_code says why and the booking is CONFIRMED again. A
-- repeated cancel reuses the IN_PROGRESS attempt and resumes a FAILED one
-- (the same can_ id, attempt + 1): a booking has at most one unfinished
-- attempt.
CREATE TABLE hotel_cancellations (
    id             text PRIMARY KEY,                                 -- can_...
    booking_id     text NOT NULL REFERENCES hotel_bookings (id),
    status         text NOT NULL CHECK (status IN ('IN_PROGRESS', 'SUCCEEDED', 'FAILED')),
    -- The booking's cancel_attempt of the run working on it: a run's
    -- updates are guarded by it, so a stale run changes nothing.
    attempt        integer NOT NULL,
    currency       text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    fee_amount     numeric CHECK (fee_amount >= 0),                  -- the supplier's fee
    refund_amount  numeric CHECK (refund_amount >= 0),               -- intent, not settlement
    refund_to      jsonb,                                            -- [{payment_id}]
    error_code     text,
    error_message  text,
    created_at     timestamptz NOT NULL DEFAULT trv_now(),
    updated_at     timestamptz NOT NULL DEFAULT trv_now(),
    canceled_at    timestamptz
);
CREATE UNIQUE INDEX hotel_cancellations_unfinished ON hotel_cancellations (booking_id)
    WHERE status IN ('IN_PROGRESS', 'FAILED');
CREATE INDEX hotel_cancellations_booking ON hotel_cancellations (booking_id, created_at, id);
-- Part of the booking as shown (cancellations[]): a change raises its revision.
CREATE TRIGGER hotel_cancellations_revise AFTER INSERT OR UPDATE OR DELETE
    ON hotel_cancellations FOR EACH ROW EXECUTE FUNCTION hotel_booking_part_revises();

-- Refund requests to the payment provider after a cancellation, one per
-- payment the service collected (as flight_refunds). PENDING: to submit;
-- SUBMITTED: accepted by the provider; FAILED: refused or given up (a
-- repeated cancel restarts it). The booking stays CANCELED throughout.
CREATE TABLE hotel_refunds (
    id               text PRIMARY KEY,                               -- rfd_...
    booking_id       text NOT NULL REFERENCES hotel_bookings (id),
    cancellation_id  text NOT NULL REFERENCES hotel_cancellations (id),
    payment_id       text NOT NULL REFERENCES hotel_payments (id),
    currency         text NOT NULL,
    amount           numeric NOT NULL CHECK (amount >= 0),
    status           text NOT NULL CHECK (status IN ('PENDING', 'SUBMITTED', 'FAILED')),
    provider_ref     text,
    attempts         integer NOT NULL DEFAULT 0,
    last_error       text,
    created_at       timestamptz NOT NULL DEFAULT trv_now(),
    updated_at       timestamptz NOT NULL DEFAULT trv_now(),
    UNIQUE (cancellation_id, payment_id)
);
CREATE INDEX hotel_refunds_booking ON hotel_refunds (booking_id);

-- Cancellation restrictions a supplier told us of (SUPPLIER_C's stored
-- restrictions: a cancel refused as cancellation_restricted). Active while
-- lifted_at is NULL; the cancellation estimate answers 422 for them.
CREATE TABLE hotel_booking_restrictions (
    booking_id   text NOT NULL REFERENCES hotel_bookings (id),
    code         text NOT NULL,
    description  text,
    created_at   timestamptz NOT NULL DEFAULT trv_now(),
    lifted_at    timestamptz,
    PRIMARY KEY (booking_id, code)
);
