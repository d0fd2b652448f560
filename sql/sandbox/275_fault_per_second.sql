-- A fault that applies only past a rate: with per_second = N, the first N
-- requests of each second of the clock that match it go on as usual and
-- the later ones get the fault (a supplier answering 429 past N calls a
-- second). win is the second being counted, win_calls the requests it has
-- seen; hits counts the requests the fault was applied to.
ALTER TABLE sandbox.faults ADD COLUMN per_second integer
    CHECK (per_second IS NULL OR per_second BETWEEN 1 AND 100000);
ALTER TABLE sandbox.faults ADD COLUMN win bigint;
ALTER TABLE sandbox.faults ADD COLUMN win_calls integer NOT NULL DEFAULT 0;
