-- When one group of search results names hotels that already have different
-- ids (two suppliers' ids mapped apart earlier), the page takes the oldest of
-- them, so the same search always answers the same id whatever order the
-- suppliers answered in. 080's version took whichever row the plan met first.
CREATE OR REPLACE FUNCTION hotel_map_page(p jsonb) RETURNS TABLE (i integer, id text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    e jsonb;
    n integer := 0;
    v text;
BEGIN
    FOR e IN SELECT value FROM jsonb_array_elements(p) LOOP
        v := NULL;
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
        i := n;
        id := v;
        RETURN NEXT;
        n := n + 1;
    END LOOP;
END
$$;
