-- Every supplier call of a booking's lifecycle (prebook, book and its
-- reads while confirming, cancel): one row each, written after the call
-- (core/call_log.c), so the dashboard's booking page can show them in its
-- timeline with their request ids and durations, and the organization's
-- supplier latency and error rate can be drawn. Searches and the periodic
-- sync of a booking are not recorded (they would dwarf the rest). The
-- booking is flight_bookings' or hotel_bookings' (family), not a foreign
-- key: a prebook the supplier refused leaves calls of a booking that was
-- never stored.
CREATE TABLE supplier_calls (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    org_id       text NOT NULL,
    booking_id   text NOT NULL,
    family       text NOT NULL CHECK (family IN ('flight', 'hotel')),
    supplier     text NOT NULL,                      -- the upstream's name
    operation    text NOT NULL,                      -- "POST /air/orders" (no query)
    outcome      text NOT NULL,                      -- ok, rejected, unavailable, timeout...
    http_status  integer NOT NULL,                   -- 0: no HTTP answer
    duration_ms  integer NOT NULL,
    request_id   text,
    created_at   timestamptz NOT NULL DEFAULT trv_now()
);
CREATE INDEX supplier_calls_booking ON supplier_calls (booking_id, created_at);
CREATE INDEX supplier_calls_org ON supplier_calls (org_id, created_at);
