-- The dashboard lists an organization's latest flight bookings, every
-- user's: read in index order, 50 rows, whatever the organization's size.
CREATE INDEX flight_bookings_org_created ON flight_bookings (org_id, created_at DESC, id DESC);
