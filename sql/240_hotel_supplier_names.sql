-- Hotel suppliers are named by the site (TravelHotelSupplier NAME ...), not
-- only SUPPLIER_A.. as on the development stack: a booking of a supplier
-- named DUFFEL_STAYS or LITEAPI must be recordable. The same rule as
-- flight bookings' (050): a wire name, no fixed list.
ALTER TABLE hotel_bookings DROP CONSTRAINT hotel_bookings_supplier_check;
ALTER TABLE hotel_bookings ADD CONSTRAINT hotel_bookings_supplier_name
    CHECK (supplier ~ '^[A-Za-z0-9_]{1,64}$');
