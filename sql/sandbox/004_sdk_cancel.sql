-- The sandbox payment provider cancels SDK sessions, as Stripe cancels a
-- PaymentIntent: a canceled session can no longer be paid by the customer's
-- device. The merchant cancels a session it will not use (a booking that
-- failed or expired); when the device had already paid it, the session
-- keeps its authorization (authorization_id) and the merchant voids it.
-- Cancel and confirm both lock the session row first, so of the two the
-- one that locks first wins and the other sees its result.
ALTER TABLE sandbox.pay_sdk_sessions DROP CONSTRAINT pay_sdk_sessions_status_check;
ALTER TABLE sandbox.pay_sdk_sessions ADD CONSTRAINT pay_sdk_sessions_status_check
    CHECK (status IN ('open', 'complete', 'canceled'));
ALTER TABLE sandbox.pay_sdk_sessions ADD COLUMN canceled_at timestamptz;
