-- Test mode: what each call to the Expedia Rapid sandbox (hotel SUPPLIER_C)
-- carried of the traveller: the Customer-Ip and Customer-Session-Id
-- headers and the language parameter, by the call's x-request-id, so a
-- test sees what the gateway's client stated reach the supplier.
CREATE TABLE sandbox.rapid_travellers (
    id                  bigserial PRIMARY KEY,
    request_id          text,
    method              text NOT NULL,
    path                text NOT NULL,
    customer_ip         text,
    customer_session_id text,
    language            text,
    status              integer NOT NULL,
    received_at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX rapid_travellers_request ON sandbox.rapid_travellers (request_id, id);
