-- The list's usual page, kept whole: GET /v1/flight/bookings with no
-- filter, newest first, 20 from the start, for one owner. Reads stay reads:
-- the page is written by the render job (flight/render_job.c, after it
-- keeps a booking's renderings), never by a reader.
--
-- gen is raised in the transaction of every change to one of the owner's
-- bookings (the triggers below), so a page kept at an older gen is never
-- served (page_gen = gen). The job builds and writes the page in one
-- statement that writes only while gen is the gen its snapshot read: a
-- change committed after that snapshot raised gen (or holds the row until
-- it commits, and then has), so the page it missed is not written.
-- valid_until: the first expires_at of a READY_FOR_COMPLETE booking on the
-- page, when that booking starts to read as EXPIRED with no change made.
CREATE TABLE flight_list_heads (
    org_id       text NOT NULL,
    user_id      text NOT NULL,
    gen          bigint NOT NULL DEFAULT 1,
    page_gen     bigint,
    total        bigint,
    n            integer,
    valid_until  timestamptz,
    page         text,
    PRIMARY KEY (org_id, user_id)
);
-- A page is about 40 kB of JSON text read whole by every such list:
-- compressed, with lz4 where the server has it (several times faster to
-- decompress than the default pglz).
DO $$
BEGIN
    ALTER TABLE flight_list_heads ALTER COLUMN page SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
    NULL;
END $$;

-- Owners in key order, so two changes never take heads in opposite orders.
-- Every update of a flight booking counts: each one makes a new revision
-- (014), unlike hotels' reads at the supplier that find nothing (143).
CREATE FUNCTION flight_list_heads_raise() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO flight_list_heads AS h (org_id, user_id)
    SELECT DISTINCT org_id, user_id FROM changed ORDER BY 1, 2
    ON CONFLICT (org_id, user_id) DO UPDATE SET gen = h.gen + 1;
    RETURN NULL;
END $$;
CREATE TRIGGER flight_list_heads_insert AFTER INSERT ON flight_bookings
    REFERENCING NEW TABLE AS changed
    FOR EACH STATEMENT EXECUTE FUNCTION flight_list_heads_raise();
CREATE TRIGGER flight_list_heads_update AFTER UPDATE ON flight_bookings
    REFERENCING NEW TABLE AS changed
    FOR EACH STATEMENT EXECUTE FUNCTION flight_list_heads_raise();
CREATE TRIGGER flight_list_heads_delete AFTER DELETE ON flight_bookings
    REFERENCING OLD TABLE AS changed
    FOR EACH STATEMENT EXECUTE FUNCTION flight_list_heads_raise();

-- Builds the owner's page from the stored renderings and writes it, unless
-- a booking of the page has no rendering of its revision (its own render
-- job will build the page) or gen moved on.
CREATE FUNCTION flight_list_head_keep(p_org text, p_user text) RETURNS void
    LANGUAGE sql AS $$
    WITH h AS (
        SELECT gen FROM flight_list_heads WHERE org_id = p_org AND user_id = p_user
    ), k AS (
        SELECT b.id, b.revision, b.created_at, b.status, b.expires_at
          FROM flight_bookings b
         WHERE b.org_id = p_org AND b.user_id = p_user
         ORDER BY b.created_at DESC, b.id DESC LIMIT 20
    ), pg AS (
        SELECT count(*) AS n,
               count(*) FILTER (WHERE d.revision IS DISTINCT FROM k.revision
                                   OR (k.status = 'READY_FOR_COMPLETE'
                                       AND k.expires_at <= trv_now())) AS misses,
               min(k.expires_at) FILTER (WHERE k.status = 'READY_FOR_COMPLETE') AS valid_until,
               coalesce(string_agg(d.list_doc, ',' ORDER BY k.created_at DESC, k.id DESC), '')
                   AS docs
          FROM k LEFT JOIN flight_booking_docs d ON d.booking_id = k.id
    )
    UPDATE flight_list_heads t
       SET page = pg.docs, n = pg.n, page_gen = h.gen, valid_until = pg.valid_until,
           total = (SELECT coalesce(sum(c.n), 0) FROM flight_booking_totals c
                     WHERE c.org_id = p_org AND c.user_id = p_user)
      FROM h, pg
     WHERE t.org_id = p_org AND t.user_id = p_user AND t.gen = h.gen AND pg.misses = 0
$$;

-- Every owner has a head from now on, its page built here from the stored
-- renderings (an owner with one behind gets it from that booking's render
-- job, queued by 045 or by the change).
INSERT INTO flight_list_heads (org_id, user_id)
SELECT DISTINCT org_id, user_id FROM flight_bookings ORDER BY 1, 2;
SELECT flight_list_head_keep(h.org_id, h.user_id)
  FROM (SELECT org_id, user_id FROM flight_list_heads ORDER BY 1, 2) h;
