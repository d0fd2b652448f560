-- The service's hotels: one htl_ id per hotel, whichever suppliers sell it
-- (hotel/mapping.h says how search results are grouped). Hotels are public
-- content, not an organization's data: every organization sees the same id.
CREATE TABLE hotels (
    id            text PRIMARY KEY,                 -- htl_...
    country_code  text NOT NULL,
    name_key      text NOT NULL,                    -- name folded (lower case, single spaces)
    postal_code   text NOT NULL DEFAULT '',
    giata         text UNIQUE,                      -- shared content code, when a supplier gave one
    name          text NOT NULL,
    city          text,
    latitude      double precision,
    longitude     double precision,
    created_at    timestamptz NOT NULL DEFAULT trv_now(),
    UNIQUE (country_code, name_key, postal_code)
);

-- Each supplier's id of a hotel (the same supplier id always names the
-- same hotel).
CREATE TABLE hotel_supplier_ids (
    supplier           text NOT NULL,
    supplier_hotel_id  text NOT NULL,
    hotel_id           text NOT NULL REFERENCES hotels (id),
    PRIMARY KEY (supplier, supplier_hotel_id)
);
CREATE INDEX hotel_supplier_ids_hotel ON hotel_supplier_ids (hotel_id);

-- The ids of one page of search results in one round trip. p: a JSON array
-- of {id (a fresh htl_ id, used when the hotel is new), country_code,
-- name_key, postal_code, giata, name, city, latitude, longitude, members:
-- [{supplier, id}]}; answers (i, id) per element, i from 0. A hotel is
-- found by any member's supplier id, then by its code, then by country,
-- folded name and postal code; otherwise it is added. Concurrent searches
-- meet on the unique keys.
CREATE FUNCTION hotel_map_page(p jsonb) RETURNS TABLE (i integer, id text)
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
