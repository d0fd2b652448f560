-- LiteAPI deduplicates a book by its clientReference ("only one booking is
-- accepted" under one reference), as Hotelbeds and Rapid do by theirs; the
-- sandbox's SUPPLIER_A did so by prebook only. A reference already held
-- by two SUPPLIER_A bookings (made before this rule) keeps the oldest; the
-- others get their id appended so the index can hold.
UPDATE sandbox.hotel_bookings b SET client_reference = b.client_reference || '#' || b.id
 WHERE b.supplier = 'A' AND b.client_reference IS NOT NULL
   AND EXISTS (SELECT 1 FROM sandbox.hotel_bookings o
                WHERE o.supplier = 'A' AND o.client_reference = b.client_reference
                  AND (o.created_at, o.id) < (b.created_at, b.id));
CREATE UNIQUE INDEX hotel_bookings_reference_a ON sandbox.hotel_bookings (client_reference)
    WHERE supplier = 'A' AND client_reference IS NOT NULL;
