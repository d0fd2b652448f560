-- Every httpd child keeps who sells each hotel (hotel/hotel_store.c's
-- trv_hhotel_sellers) while it LISTENs here; any change to
-- hotel_supplier_ids makes all of them forget it. A search that maps new
-- supplier ids notifies only when its insert added a row (hotel_map_page
-- inserts with ON CONFLICT DO NOTHING for every group it is given); an
-- update, a delete or a truncate (an operator's repair) always does.
CREATE FUNCTION hotel_sellers_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM added) THEN
        PERFORM pg_notify('trv_hotel_sellers', '');
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER hotel_sellers_added AFTER INSERT ON hotel_supplier_ids
    REFERENCING NEW TABLE AS added
    FOR EACH STATEMENT EXECUTE FUNCTION hotel_sellers_added();

CREATE FUNCTION hotel_sellers_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('trv_hotel_sellers', '');
    RETURN NULL;
END $$;
CREATE TRIGGER hotel_sellers_changed AFTER UPDATE OR DELETE OR TRUNCATE ON hotel_supplier_ids
    FOR EACH STATEMENT EXECUTE FUNCTION hotel_sellers_changed();
