-- The bookings list at any size: its page comes from an index in the order
-- asked for, and its exact `total` from per-day counts kept by triggers, so
-- neither grows with the number of bookings a user has.

-- A status filter with the newest first (the default order).
CREATE INDEX flight_bookings_owner_status_created
    ON flight_bookings (org_id, user_id, status, created_at DESC, id DESC);
-- supplier_reference filter within an owner.
CREATE INDEX flight_bookings_owner_ref ON flight_bookings (org_id, user_id, supplier_reference)
    WHERE supplier_reference IS NOT NULL;
-- Bookings whose time ran out and that the expiry job has not stored yet
-- (they list as EXPIRED): few at any moment.
CREATE INDEX flight_bookings_owner_ready_expiry ON flight_bookings (org_id, user_id, expires_at)
    WHERE status = 'READY_FOR_COMPLETE';

-- Bookings per owner, UTC day of created_at, stored status and supplier.
CREATE TABLE flight_booking_counts (
    org_id    text NOT NULL,
    user_id   text NOT NULL,
    day       date NOT NULL,
    status    text NOT NULL,
    supplier  text NOT NULL,
    n         bigint NOT NULL,
    PRIMARY KEY (org_id, user_id, day, status, supplier)
);

-- The same without the day: the total of a list without a date filter
-- (the usual one) reads a handful of rows however old the account is.
CREATE TABLE flight_booking_totals (
    org_id    text NOT NULL,
    user_id   text NOT NULL,
    status    text NOT NULL,
    supplier  text NOT NULL,
    n         bigint NOT NULL,
    PRIMARY KEY (org_id, user_id, status, supplier)
);

-- Rendered documents (migration 014, 040) are read whole on every list and
-- GET: kept inline and uncompressed up to a page's size, not compressed
-- past 2 kB (decompressing them was a twentieth of the list's time).
ALTER TABLE flight_booking_docs SET (toast_tuple_target = 8160);

CREATE FUNCTION flight_booking_day(t timestamptz) RETURNS date
    LANGUAGE sql IMMUTABLE STRICT AS $$ SELECT (t AT TIME ZONE 'UTC')::date $$;

-- Statement-level, from the transition tables: a bulk insert costs one
-- upsert per counter, not per row. Rows are upserted in key order so two
-- statements never take the same counters in opposite orders.
-- Applies changes (org, user, day, status, supplier, +/-n) to both tables.
CREATE FUNCTION flight_booking_counts_apply(changes jsonb) RETURNS void
    LANGUAGE sql AS $$
    WITH x AS (
        SELECT * FROM jsonb_to_recordset(changes)
            AS x(org_id text, user_id text, day date, status text, supplier text, n bigint)
    ), by_day AS (
        INSERT INTO flight_booking_counts AS c (org_id, user_id, day, status, supplier, n)
        SELECT org_id, user_id, day, status, supplier, sum(n) FROM x
         GROUP BY 1, 2, 3, 4, 5 HAVING sum(n) <> 0 ORDER BY 1, 2, 3, 4, 5
        ON CONFLICT (org_id, user_id, day, status, supplier) DO UPDATE SET n = c.n + EXCLUDED.n
    )
    INSERT INTO flight_booking_totals AS t (org_id, user_id, status, supplier, n)
    SELECT org_id, user_id, status, supplier, sum(n) FROM x
     GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0 ORDER BY 1, 2, 3, 4
    ON CONFLICT (org_id, user_id, status, supplier) DO UPDATE SET n = t.n + EXCLUDED.n
$$;

CREATE FUNCTION flight_booking_counts_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM flight_booking_counts_apply((
        SELECT jsonb_agg(jsonb_build_object('org_id', org_id, 'user_id', user_id,
               'day', day, 'status', status, 'supplier', supplier, 'n', n))
          FROM (SELECT org_id, user_id, flight_booking_day(created_at) AS day, status,
                       supplier, count(*) AS n
                  FROM new_rows GROUP BY 1, 2, 3, 4, 5) g));
    RETURN NULL;
END $$;

CREATE FUNCTION flight_booking_counts_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM flight_booking_counts_apply((
        SELECT jsonb_agg(jsonb_build_object('org_id', org_id, 'user_id', user_id,
               'day', day, 'status', status, 'supplier', supplier, 'n', -n))
          FROM (SELECT org_id, user_id, flight_booking_day(created_at) AS day, status,
                       supplier, count(*) AS n
                  FROM old_rows GROUP BY 1, 2, 3, 4, 5) g));
    RETURN NULL;
END $$;

CREATE FUNCTION flight_booking_counts_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- Most updates move no count (a payment, a sync): nothing to write.
    IF NOT EXISTS (SELECT 1 FROM old_rows o JOIN new_rows w ON w.id = o.id
                    WHERE (o.org_id, o.user_id, o.created_at, o.status, o.supplier)
                          IS DISTINCT FROM
                          (w.org_id, w.user_id, w.created_at, w.status, w.supplier)) THEN
        RETURN NULL;
    END IF;
    PERFORM flight_booking_counts_apply((
        SELECT jsonb_agg(jsonb_build_object('org_id', org_id, 'user_id', user_id,
               'day', day, 'status', status, 'supplier', supplier, 'n', d))
          FROM (SELECT o.org_id, o.user_id, flight_booking_day(o.created_at) AS day,
                       o.status, o.supplier, -1 AS d
                  FROM old_rows o JOIN new_rows w ON w.id = o.id
                 WHERE (o.org_id, o.user_id, o.created_at, o.status, o.supplier)
                       IS DISTINCT FROM (w.org_id, w.user_id, w.created_at, w.status, w.supplier)
                UNION ALL
                SELECT w.org_id, w.user_id, flight_booking_day(w.created_at), w.status,
                       w.supplier, 1
                  FROM old_rows o JOIN new_rows w ON w.id = o.id
                 WHERE (o.org_id, o.user_id, o.created_at, o.status, o.supplier)
                       IS DISTINCT FROM (w.org_id, w.user_id, w.created_at, w.status, w.supplier)
               ) g));
    RETURN NULL;
END $$;

CREATE TRIGGER flight_booking_counts_insert AFTER INSERT ON flight_bookings
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION flight_booking_counts_insert();
CREATE TRIGGER flight_booking_counts_delete AFTER DELETE ON flight_bookings
    REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION flight_booking_counts_delete();
CREATE TRIGGER flight_booking_counts_update AFTER UPDATE ON flight_bookings
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION flight_booking_counts_update();

INSERT INTO flight_booking_counts (org_id, user_id, day, status, supplier, n)
SELECT org_id, user_id, flight_booking_day(created_at), status, supplier, count(*)
  FROM flight_bookings GROUP BY 1, 2, 3, 4, 5;
INSERT INTO flight_booking_totals (org_id, user_id, status, supplier, n)
SELECT org_id, user_id, status, supplier, count(*) FROM flight_bookings GROUP BY 1, 2, 3, 4;

-- The list's exact total for one owner and filters (NULL: no filter), by
-- the status a reader sees: READY_FOR_COMPLETE past expires_at is EXPIRED.
-- Whole UTC days inside [p_from, p_to] come from the counts; the parts of
-- days at either end (a filter given to the millisecond) are counted row
-- by row, as is a supplier_reference filter (a few rows at most).
CREATE FUNCTION flight_bookings_total(p_org text, p_user text, p_status text,
                                      p_supplier text, p_ref text,
                                      p_from timestamptz, p_to timestamptz)
    RETURNS bigint LANGUAGE plpgsql STABLE AS $$
DECLARE
    lo date := '-infinity';  -- whole days counted from the counts: lo .. hi
    hi date := 'infinity';
    lo_at timestamptz;       -- lo's first instant
    hi_at timestamptz;       -- the instant after hi
    n bigint := 0;
    m bigint;
BEGIN
    IF p_ref IS NOT NULL THEN
        SELECT count(*) INTO n FROM flight_bookings b
         WHERE b.org_id = p_org AND b.user_id = p_user AND b.supplier_reference = p_ref
           AND (p_status IS NULL OR CASE WHEN b.status = 'READY_FOR_COMPLETE'
                AND b.expires_at <= trv_now() THEN 'EXPIRED' ELSE b.status END = p_status)
           AND (p_supplier IS NULL OR b.supplier = p_supplier)
           AND (p_from IS NULL OR b.created_at >= p_from)
           AND (p_to IS NULL OR b.created_at <= p_to);
        RETURN n;
    END IF;
    IF p_from IS NOT NULL THEN
        lo := flight_booking_day(p_from);
        IF (lo::timestamp AT TIME ZONE 'UTC') < p_from THEN
            lo := lo + 1;
        END IF;
        lo_at := lo::timestamp AT TIME ZONE 'UTC';
    END IF;
    IF p_to IS NOT NULL THEN
        -- Instants are kept to the millisecond: a day is whole when p_to
        -- reaches its last millisecond.
        hi := flight_booking_day(p_to + interval '1 millisecond') - 1;
        hi_at := (hi + 1)::timestamp AT TIME ZONE 'UTC';
    END IF;
    IF lo > hi THEN
        -- Inside one day: no whole day to take from the counts.
        SELECT count(*) INTO n FROM flight_bookings b
         WHERE b.org_id = p_org AND b.user_id = p_user
           AND b.created_at >= p_from AND b.created_at <= p_to
           AND (p_status IS NULL OR CASE WHEN b.status = 'READY_FOR_COMPLETE'
                AND b.expires_at <= trv_now() THEN 'EXPIRED' ELSE b.status END = p_status)
           AND (p_supplier IS NULL OR b.supplier = p_supplier);
        RETURN n;
    END IF;
    IF p_from IS NULL AND p_to IS NULL THEN
        SELECT coalesce(sum(t.n), 0) INTO n FROM flight_booking_totals t
         WHERE t.org_id = p_org AND t.user_id = p_user
           AND (p_status IS NULL OR t.status = p_status)
           AND (p_supplier IS NULL OR t.supplier = p_supplier);
    ELSE
        SELECT coalesce(sum(c.n), 0) INTO n FROM flight_booking_counts c
         WHERE c.org_id = p_org AND c.user_id = p_user AND c.day BETWEEN lo AND hi
           AND (p_status IS NULL OR c.status = p_status)
           AND (p_supplier IS NULL OR c.supplier = p_supplier);
    END IF;
    IF p_status IN ('EXPIRED', 'READY_FOR_COMPLETE') THEN
        -- Counted as READY_FOR_COMPLETE, read as EXPIRED.
        SELECT count(*) INTO m FROM flight_bookings b
         WHERE b.org_id = p_org AND b.user_id = p_user AND b.status = 'READY_FOR_COMPLETE'
           AND b.expires_at <= trv_now()
           AND (lo_at IS NULL OR b.created_at >= lo_at)
           AND (hi_at IS NULL OR b.created_at < hi_at)
           AND (p_supplier IS NULL OR b.supplier = p_supplier);
        n := n + CASE WHEN p_status = 'EXPIRED' THEN m ELSE -m END;
    END IF;
    -- The partial days at either end, row by row.
    IF lo_at IS NOT NULL AND p_from < lo_at THEN
        SELECT n + count(*) INTO n FROM flight_bookings b
         WHERE b.org_id = p_org AND b.user_id = p_user
           AND b.created_at >= p_from AND b.created_at < lo_at
           AND (p_status IS NULL OR CASE WHEN b.status = 'READY_FOR_COMPLETE'
                AND b.expires_at <= trv_now() THEN 'EXPIRED' ELSE b.status END = p_status)
           AND (p_supplier IS NULL OR b.supplier = p_supplier);
    END IF;
    IF hi_at IS NOT NULL AND p_to >= hi_at THEN
        SELECT n + count(*) INTO n FROM flight_bookings b
         WHERE b.org_id = p_org AND b.user_id = p_user
           AND b.created_at >= hi_at AND b.created_at <= p_to
           AND (p_status IS NULL OR CASE WHEN b.status = 'READY_FOR_COMPLETE'
                AND b.expires_at <= trv_now() THEN 'EXPIRED' ELSE b.status END = p_status)
           AND (p_supplier IS NULL OR b.supplier = p_supplier);
    END IF;
    RETURN n;
END $$;
