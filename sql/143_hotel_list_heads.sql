-- The hotel bookings list's usual page, kept whole, as 047 keeps the
-- flight list's: GET /v1/hotel/bookings with no filter, newest first, 20
-- from the start, for one organization. Hotel renderings are kept by the
-- change's own transaction (hotel/render.c), and the page with them, in
-- the same transaction; gen, page_gen and valid_until (the first
-- offer_expires_at of a READY_FOR_COMPLETE booking on the page) as in 047.
CREATE TABLE hotel_list_heads (
    org_id       text PRIMARY KEY,
    gen          bigint NOT NULL DEFAULT 1,
    page_gen     bigint,
    total        bigint,
    n            integer,
    valid_until  timestamptz,
    page         text
);
DO $$
BEGIN
    ALTER TABLE hotel_list_heads ALTER COLUMN page SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
    NULL;
END $$;

CREATE FUNCTION hotel_list_heads_raise() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO hotel_list_heads AS h (org_id)
    SELECT DISTINCT org_id FROM changed ORDER BY 1
    ON CONFLICT (org_id) DO UPDATE SET gen = h.gen + 1;
    RETURN NULL;
END $$;
-- An update counts when it made a new revision: a read at the supplier
-- that changed nothing (synced_at alone) makes none (100) and leaves the
-- page as it was.
CREATE FUNCTION hotel_list_heads_raise_revised() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO hotel_list_heads AS h (org_id)
    SELECT DISTINCT n.org_id FROM changed n JOIN prior o ON o.id = n.id
     WHERE n.revision IS DISTINCT FROM o.revision ORDER BY 1
    ON CONFLICT (org_id) DO UPDATE SET gen = h.gen + 1;
    RETURN NULL;
END $$;
CREATE TRIGGER hotel_list_heads_insert AFTER INSERT ON hotel_bookings
    REFERENCING NEW TABLE AS changed
    FOR EACH STATEMENT EXECUTE FUNCTION hotel_list_heads_raise();
CREATE TRIGGER hotel_list_heads_update AFTER UPDATE ON hotel_bookings
    REFERENCING OLD TABLE AS prior NEW TABLE AS changed
    FOR EACH STATEMENT EXECUTE FUNCTION hotel_list_heads_raise_revised();
CREATE TRIGGER hotel_list_heads_delete AFTER DELETE ON hotel_bookings
    REFERENCING OLD TABLE AS changed
    FOR EACH STATEMENT EXECUTE FUNCTION hotel_list_heads_raise();

CREATE FUNCTION hotel_list_head_keep(p_org text) RETURNS void
    LANGUAGE sql AS $$
    WITH h AS (
        SELECT gen FROM hotel_list_heads WHERE org_id = p_org
    ), k AS (
        SELECT b.id, b.revision, b.created_at, b.status, b.offer_expires_at
          FROM hotel_bookings b
         WHERE b.org_id = p_org
         ORDER BY b.created_at DESC, b.id DESC LIMIT 20
    ), pg AS (
        SELECT count(*) AS n,
               count(*) FILTER (WHERE d.revision IS DISTINCT FROM k.revision
                                   OR (k.status = 'READY_FOR_COMPLETE'
                                       AND k.offer_expires_at <= trv_now())) AS misses,
               min(k.offer_expires_at) FILTER (WHERE k.status = 'READY_FOR_COMPLETE')
                   AS valid_until,
               coalesce(string_agg(d.list_doc, ',' ORDER BY k.created_at DESC, k.id DESC), '')
                   AS docs
          FROM k LEFT JOIN hotel_booking_docs d ON d.booking_id = k.id
    )
    UPDATE hotel_list_heads t
       SET page = pg.docs, n = pg.n, page_gen = h.gen, valid_until = pg.valid_until,
           total = (SELECT coalesce(sum(c.n), 0) FROM hotel_booking_totals c
                     WHERE c.org_id = p_org)
      FROM h, pg
     WHERE t.org_id = p_org AND t.gen = h.gen AND pg.misses = 0
$$;

-- Every organization with hotel bookings has a head, its page built here
-- from the stored renderings (an organization with one behind gets it with
-- that booking's next change).
INSERT INTO hotel_list_heads (org_id)
SELECT DISTINCT org_id FROM hotel_bookings ORDER BY 1;
SELECT hotel_list_head_keep(h.org_id) FROM (SELECT org_id FROM hotel_list_heads ORDER BY 1) h;
