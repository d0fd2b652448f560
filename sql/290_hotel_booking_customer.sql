-- The traveller behind a hotel booking, as the API client stated it at
-- prebook (x-travel-customer-ip, else the connection's address;
-- x-travel-customer-session; Accept-Language): {ip, session, language},
-- each optional. The booking's later supplier calls (book, reads,
-- cancellation), which may run in a background job, send the same
-- (Expedia Rapid requires the traveller's IP on every booking call).
-- NULL: a booking from before this column, or one no traveller made.
ALTER TABLE hotel_bookings ADD COLUMN customer jsonb;
