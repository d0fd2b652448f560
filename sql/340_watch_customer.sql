-- The traveller behind a watch, as the API client stated it when creating
-- it (x-travel-customer-ip, else the connection's address;
-- x-travel-customer-session; Accept-Language): {ip, session, language},
-- each optional, the shape of hotel_bookings.customer (sql/290). The
-- watch's checks and its auto-purchase run with no traveller's request
-- and send this one to the suppliers that ask (Expedia Rapid's
-- Customer-Ip). NULL: a watch from before this column.
ALTER TABLE watches ADD COLUMN customer jsonb;
