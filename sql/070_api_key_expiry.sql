-- An API key may carry an expiry (travelctl key create --expires-at): from
-- that instant on it authenticates no more (401), as if revoked.
ALTER TABLE api_keys ADD COLUMN expires_at timestamptz;
