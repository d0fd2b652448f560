-- A page whose hotels are all known already (every member's supplier id
-- mapped: nearly every search once an area has been searched) is answered
-- by one read-only statement instead of 320's loop of two statements per
-- hotel (a SELECT and an INSERT ... ON CONFLICT DO NOTHING that found its
-- rows there): 1.0-1.2 ms of backend CPU per page of 20 hotels before,
-- 0.4-0.6 after (docs/performance.md, "The id mapping in PostgreSQL").
-- The answer is the same: a hotel whose members are all
-- mapped writes nothing in the loop and its members' rows never change, so
-- its id (the oldest hotel they map to) is what the loop would find; the
-- others (a member not yet mapped, no members) go through the loop as
-- before, in page order. Each member is looked up by itself (LATERAL ...
-- LIMIT 1, an index probe of the primary key): the planner's estimate for
-- a jsonb array is 100 rows whatever its size, which must not turn the
-- lookups into a scan of the whole table.
-- hotel_map_known(pages of members): per element (a JSON array of
-- {"supplier","id"}), from 0, the id every member maps to already, NULL
-- when one is not mapped. The gateway asks it first, with the members only
-- (hotel/hotel_store.c), and hotel_map_page below begins with it.
CREATE OR REPLACE FUNCTION hotel_map_known(p jsonb) RETURNS TABLE (i integer, id text)
LANGUAGE sql STABLE AS $$
    SELECT (el.ord - 1)::integer,
           CASE WHEN count(x.hotel_id) = count(*)
                THEN (array_agg(x.hotel_id ORDER BY x.created_at, x.hotel_id))[1] END
      FROM jsonb_array_elements(p) WITH ORDINALITY AS el(value, ord)
      LEFT JOIN LATERAL jsonb_to_recordset(el.value) AS m(supplier text, id text) ON true
      LEFT JOIN LATERAL (
            SELECT s.hotel_id, h.created_at
              FROM hotel_supplier_ids s JOIN hotels h ON h.id = s.hotel_id
             WHERE s.supplier = m.supplier AND s.supplier_hotel_id = m.id
             LIMIT 1) x ON true
     GROUP BY el.ord
     ORDER BY el.ord
$$;

CREATE OR REPLACE FUNCTION hotel_map_page(p jsonb) RETURNS TABLE (i integer, id text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    e jsonb;
    n integer := 0;
    v text;
    known text[];
BEGIN
    SELECT array_agg(k.id ORDER BY k.i) INTO known
      FROM hotel_map_known((SELECT jsonb_agg(el.value->'members' ORDER BY el.ord)
                              FROM jsonb_array_elements(p) WITH ORDINALITY AS el(value, ord))) k;
    -- (An empty page: known is NULL, and no rows.)
    IF array_position(known, NULL) IS NULL THEN
        RETURN QUERY SELECT g - 1, known[g] FROM generate_subscripts(known, 1) g;
        RETURN;
    END IF;
    FOR e IN SELECT value FROM jsonb_array_elements(p) LOOP
        v := known[n + 1];
        IF v IS NULL THEN
            SELECT s.hotel_id INTO v
              FROM hotel_supplier_ids s
              JOIN jsonb_to_recordset(e->'members') AS m(supplier text, id text)
                ON s.supplier = m.supplier AND s.supplier_hotel_id = m.id
              JOIN hotels h ON h.id = s.hotel_id
             ORDER BY h.created_at, h.id
             LIMIT 1;
            IF v IS NULL AND e->>'giata' IS NOT NULL THEN
                SELECT h.id INTO v FROM hotels h WHERE h.giata = e->>'giata';
            END IF;
            IF v IS NULL THEN
                BEGIN
                    INSERT INTO hotels AS h (id, country_code, name_key, postal_code, giata, name,
                                             city, latitude, longitude)
                    VALUES (e->>'id', e->>'country_code', e->>'name_key',
                            coalesce(e->>'postal_code', ''), e->>'giata', e->>'name', e->>'city',
                            (e->>'latitude')::double precision, (e->>'longitude')::double precision)
                    ON CONFLICT (country_code, name_key, postal_code)
                    DO UPDATE SET giata = coalesce(h.giata, EXCLUDED.giata)
                    RETURNING h.id INTO v;
                EXCEPTION WHEN unique_violation THEN
                    -- A concurrent search added this code under another name:
                    -- that hotel is this one.
                    SELECT h.id INTO v FROM hotels h WHERE h.giata = e->>'giata';
                    IF v IS NULL THEN
                        RAISE;
                    END IF;
                END;
            END IF;
            INSERT INTO hotel_supplier_ids (supplier, supplier_hotel_id, hotel_id)
            SELECT m.supplier, m.id, v FROM jsonb_to_recordset(e->'members') AS m(supplier text, id text)
            ON CONFLICT DO NOTHING;
        END IF;
        i := n;
        id := v;
        RETURN NEXT;
        n := n + 1;
    END LOOP;
END
$$;
