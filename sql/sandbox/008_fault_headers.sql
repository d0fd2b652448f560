-- Response headers a fault adds to the answer it shapes (a supplier's
-- rate-limit headers on demand: ratelimit-remaining, ratelimit-reset):
-- a JSON object of header name -> value; NULL: none.
ALTER TABLE sandbox.faults ADD COLUMN headers jsonb
    CHECK (headers IS NULL OR jsonb_typeof(headers) = 'object');
