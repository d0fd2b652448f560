-- Every stored passenger has its psg_ id whatever the prebook's outcome.
-- Prebooks the supplier refused (or the watchdog failed) before this
-- stored their passengers as given, without ids: give them theirs now.
-- The id is a UUIDv7 like trv_id_new's, timed at the booking's creation.
CREATE FUNCTION pg_temp.trv_uuidv7(t timestamptz) RETURNS text LANGUAGE sql AS $$
    SELECT encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid())
               PLACING substring(int8send((extract(epoch FROM t) * 1000)::bigint) FROM 3)
               FROM 1 FOR 6), 52, 1), 53, 1), 'hex')
$$;

UPDATE flight_bookings b
   SET passengers = (
       SELECT jsonb_agg(CASE WHEN p ? 'id' AND jsonb_typeof(p->'id') = 'string' THEN p
                             ELSE p || jsonb_build_object('id', 'psg_' || regexp_replace(
                                 pg_temp.trv_uuidv7(b.created_at),
                                 '^(.{8})(.{4})(.{4})(.{4})(.{12})$', '\1-\2-\3-\4-\5'))
                        END ORDER BY n)
         FROM jsonb_array_elements(b.passengers) WITH ORDINALITY AS e(p, n))
 WHERE jsonb_typeof(b.passengers) = 'array'
   AND EXISTS (SELECT 1 FROM jsonb_array_elements(b.passengers) AS e(p)
                WHERE NOT (p ? 'id') OR jsonb_typeof(p->'id') <> 'string');
