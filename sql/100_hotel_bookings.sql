-- Hotel bookings: prebook binds an offer (stay, rooms, price, terms), the
-- contact and the guests of each room; book pays and confirms it. Scalar
-- columns for what is filtered, sorted and moved by the state machine;
-- rooms and guests are rows of their own (each has an id the API shows and
-- a cancellation marks rooms one by one); supplier terms as JSON documents.
-- Hotel bookings belong to an organization (user_id records who made it).
CREATE TABLE hotel_bookings (
    id                      text PRIMARY KEY,                  -- bkg_...
    org_id                  text NOT NULL REFERENCES organizations (id),
    user_id                 text NOT NULL REFERENCES users (id),
    supplier                text NOT NULL CHECK (supplier ~ '^SUPPLIER_[A-Z0-9_]+$'),
    status                  text NOT NULL CHECK (status IN ('CREATED', 'PREBOOK_IN_PROGRESS',
                                'READY_FOR_COMPLETE', 'COMPLETE_IN_PROGRESS', 'CONFIRMED',
                                'CANCEL_IN_PROGRESS', 'CANCELED', 'FAILED', 'EXPIRED')),
    reference_id            text NOT NULL CHECK (length(reference_id) BETWEEN 1 AND 200),
    idempotency_key         text NOT NULL CHECK (length(idempotency_key) BETWEEN 1 AND 200),
    request_hash            text NOT NULL,     -- SHA-256 of the canonical prebook body
    -- The offer as sold: the service's hotel and the supplier's ids.
    hotel_id                text,              -- htl_...; NULL: no search has seen the hotel
    supplier_hotel_id       text NOT NULL,
    hotel                   jsonb NOT NULL,    -- {id, name, address}
    offer_reference         text NOT NULL,     -- the supplier's own reference of the offer
    check_in                date NOT NULL,
    check_out               date NOT NULL CHECK (check_out > check_in),
    currency                text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    total_amount            numeric,           -- major units, exact; NULL until priced
    due_at_property         jsonb,             -- null | Money | [Money]: see docs/hotels.md
    cancellation_policy     jsonb,             -- booking-level policy, when the supplier gives one
    promotions              jsonb,             -- [{name, amount, room_positions}] | null
    contact                 jsonb NOT NULL,    -- {first_name, last_name, email, phone}
    loyalty                 jsonb,
    offer_expires_at        timestamptz,       -- completable until then
    use_payment_sdk         boolean NOT NULL DEFAULT false,
    sdk_token               text,              -- shown once by prebook, then cleared
    -- What the supplier answered.
    supplier_prebook_id     text,              -- the supplier's prebook/rate key bound at prebook
    supplier_data           jsonb,             -- opaque; the adapter needs it at book
    supplier_booking_id     text,              -- the supplier's booking (itinerary) id, once booked
    hotel_confirmation_code text,
    hotel_remarks           text,
    failure                 jsonb,             -- {code, description}
    -- Where book stands while COMPLETE_IN_PROGRESS (as flight_bookings):
    -- authorizing (payment), ordering (supplier book sent), confirming
    -- (supplier still confirming), unknown (no answer: read, never re-bought).
    book_phase              text CHECK (book_phase IN
                                ('authorizing', 'ordering', 'confirming', 'unknown')),
    phase_owner             text,              -- host/boot/ns:pid of the request doing the step
    phase_deadline          timestamptz,       -- the step's calls have timed out by then
    book_attempt            integer NOT NULL DEFAULT 0,
    payment_instrument_id   text,
    cancel_attempt          integer NOT NULL DEFAULT 0,
    synced_at               timestamptz,       -- last read of the booking at the supplier
    confirmed_at            timestamptz,
    canceled_at             timestamptz,
    created_at              timestamptz NOT NULL DEFAULT trv_now(),
    updated_at              timestamptz NOT NULL DEFAULT trv_now(),
    -- Raised by every change to the booking, its rooms, guests or payments
    -- (triggers below): a stored rendering is served only for its revision.
    revision                bigint NOT NULL DEFAULT 1
);
-- One booking per prebook key of an organization; concurrent prebooks with
-- one key meet here (INSERT ... ON CONFLICT), not in a check-then-insert.
CREATE UNIQUE INDEX hotel_bookings_idempotency ON hotel_bookings (org_id, idempotency_key);
CREATE UNIQUE INDEX hotel_bookings_supplier_booking ON hotel_bookings (supplier, supplier_booking_id)
    WHERE supplier_booking_id IS NOT NULL;
CREATE INDEX hotel_bookings_org_created ON hotel_bookings (org_id, created_at DESC, id DESC);
CREATE INDEX hotel_bookings_org_status_created
    ON hotel_bookings (org_id, status, created_at DESC, id DESC);
CREATE INDEX hotel_bookings_org_supplier_created
    ON hotel_bookings (org_id, supplier, created_at DESC, id DESC);
CREATE INDEX hotel_bookings_org_total ON hotel_bookings (org_id, total_amount, id);
-- Bookings whose time ran out (they read as EXPIRED): few at any moment.
CREATE INDEX hotel_bookings_org_ready_expiry ON hotel_bookings (org_id, offer_expires_at)
    WHERE status = 'READY_FOR_COMPLETE';
-- Books a killed request left in progress, for the recovery job.
CREATE INDEX hotel_bookings_in_progress ON hotel_bookings (phase_deadline)
    WHERE status = 'COMPLETE_IN_PROGRESS';

-- The rooms of a booking in offer order, with their own price and terms.
CREATE TABLE hotel_booking_rooms (
    id                        text PRIMARY KEY,                -- room_...
    booking_id                text NOT NULL REFERENCES hotel_bookings (id) ON DELETE CASCADE,
    position                  integer NOT NULL CHECK (position >= 0),
    name                      text,
    board                     text,
    board_name                text,
    adults                    integer NOT NULL CHECK (adults >= 1),
    children                  jsonb NOT NULL DEFAULT '[]',     -- ages
    currency                  text,
    total_amount              numeric,                         -- the room's price; NULL unknown
    due_at_property           jsonb,                           -- Money | null
    cancellation_policy       jsonb,
    promotions                jsonb,
    supplier_reference_number text,
    hotel_confirmation_code   text,
    canceled_at               timestamptz,
    UNIQUE (booking_id, position)
);

-- The guests of a room, in the order given; one adult lead per room.
CREATE TABLE hotel_booking_guests (
    id          text PRIMARY KEY,                                -- guest_...
    booking_id  text NOT NULL REFERENCES hotel_bookings (id) ON DELETE CASCADE,
    room_id     text NOT NULL REFERENCES hotel_booking_rooms (id) ON DELETE CASCADE,
    position    integer NOT NULL CHECK (position >= 0),
    first_name  text NOT NULL,
    last_name   text NOT NULL,
    type        text NOT NULL CHECK (type IN ('ADULT', 'CHILD')),
    is_lead     boolean NOT NULL DEFAULT false,
    UNIQUE (room_id, position)
);
CREATE UNIQUE INDEX hotel_booking_guests_lead ON hotel_booking_guests (room_id) WHERE is_lead;
CREATE INDEX hotel_booking_guests_booking ON hotel_booking_guests (booking_id);

-- A booking's payments, oldest first. The booking's charge (kind BOOK) is
-- one row: a booking is charged once however many requests and jobs race
-- to book it. collected_by SERVICE: the service's payment provider holds
-- it; SUPPLIER: the supplier charged the traveller (its merchant of record).
CREATE TABLE hotel_payments (
    id            text PRIMARY KEY,                              -- pay_...
    booking_id    text NOT NULL REFERENCES hotel_bookings (id),
    kind          text NOT NULL DEFAULT 'BOOK' CHECK (kind IN ('BOOK')),
    status        text NOT NULL CHECK (status IN ('AUTHORIZED', 'CAPTURED', 'VOIDED')),
    currency      text NOT NULL,
    amount        numeric NOT NULL CHECK (amount >= 0),
    collected_by  text NOT NULL CHECK (collected_by IN ('SERVICE', 'SUPPLIER')),
    provider_ref  text,                                          -- the authorization id
    card          jsonb,               -- {brand, last4, funding, wallet}; NULL until readable
    created_at    timestamptz NOT NULL DEFAULT trv_now(),
    updated_at    timestamptz NOT NULL DEFAULT trv_now(),
    captured_at   timestamptz
);
CREATE UNIQUE INDEX hotel_payments_book ON hotel_payments (booking_id) WHERE kind = 'BOOK';
CREATE INDEX hotel_payments_booking ON hotel_payments (booking_id, created_at, id);

-- What the service asked (or will ask) the payment provider to authorize,
-- written BEFORE the call, as flight_authorization_intents (012): a call
-- without an answer may still have authorized; the next attempt repeats the
-- same key (the provider answers what it made) or a release job voids it.
CREATE TABLE hotel_authorization_intents (
    id               text PRIMARY KEY,                  -- pai_...
    booking_id       text NOT NULL REFERENCES hotel_bookings (id),
    idempotency_key  text UNIQUE,                       -- <booking>:authorize:<attempt>; NULL: SDK
    instrument       text,                              -- payment_instrument_id; NULL: SDK
    currency         text NOT NULL,
    amount           numeric NOT NULL,
    status           text NOT NULL CHECK (status IN
                         ('PENDING', 'UNRESOLVED', 'RELEASING', 'AUTHORIZED', 'RESOLVED')),
    book_attempt     integer NOT NULL,
    provider_ref     text,
    outcome          text,
    release_at       timestamptz,
    release_gen      integer NOT NULL DEFAULT 0,
    created_at       timestamptz NOT NULL DEFAULT trv_now(),
    updated_at       timestamptz NOT NULL DEFAULT trv_now(),
    resolved_at      timestamptz,
    CHECK ((idempotency_key IS NULL) = (instrument IS NULL))
);
CREATE INDEX hotel_authorization_intents_booking
    ON hotel_authorization_intents (booking_id, created_at);
CREATE UNIQUE INDEX hotel_authorization_intents_sdk
    ON hotel_authorization_intents (booking_id) WHERE idempotency_key IS NULL;

-- ---- revisions and stored renderings (the read path, as 014/040) ----

CREATE FUNCTION hotel_booking_revise() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- A read at the supplier that changed nothing (synced_at alone) is
    -- bookkeeping, not a change to the booking as shown.
    IF NEW.revision = OLD.revision
       AND (to_jsonb(NEW) - 'synced_at') = (to_jsonb(OLD) - 'synced_at') THEN
        RETURN NEW;
    END IF;
    NEW.revision := OLD.revision + 1;
    NEW.updated_at := trv_now();
    RETURN NEW;
END $$;
CREATE TRIGGER hotel_bookings_revise BEFORE UPDATE ON hotel_bookings
    FOR EACH ROW EXECUTE FUNCTION hotel_booking_revise();

-- A row of any table with a booking_id that is part of the booking as
-- shown (rooms, guests, payments, and later tables such as cancellation
-- attempts: give them this trigger too) raises the booking's revision.
CREATE FUNCTION hotel_booking_part_revises() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE hotel_bookings SET revision = revision + 1
     WHERE id = CASE WHEN TG_OP = 'DELETE' THEN OLD.booking_id ELSE NEW.booking_id END;
    RETURN NULL;
END $$;
CREATE TRIGGER hotel_booking_rooms_revise AFTER UPDATE OR DELETE ON hotel_booking_rooms
    FOR EACH ROW EXECUTE FUNCTION hotel_booking_part_revises();
CREATE TRIGGER hotel_booking_guests_revise AFTER UPDATE OR DELETE ON hotel_booking_guests
    FOR EACH ROW EXECUTE FUNCTION hotel_booking_part_revises();
CREATE TRIGGER hotel_payments_revise AFTER INSERT OR UPDATE OR DELETE ON hotel_payments
    FOR EACH ROW EXECUTE FUNCTION hotel_booking_part_revises();
-- (Rooms and guests are inserted with their booking, in its transaction,
-- before any rendering exists: an insert needs no new revision.)

-- The booking as GET /v1/hotel/bookings/{id} shows it (doc) and as the list
-- shows it (list_doc: payments without payment_method), for one revision.
CREATE TABLE hotel_booking_docs (
    booking_id  text PRIMARY KEY REFERENCES hotel_bookings (id) ON DELETE CASCADE,
    revision    bigint NOT NULL,
    doc         text NOT NULL,
    list_doc    text NOT NULL
);
ALTER TABLE hotel_booking_docs SET (toast_tuple_target = 8160);

-- ---- the list's exact total (as 041, per organization) ----

CREATE TABLE hotel_booking_counts (
    org_id    text NOT NULL,
    day       date NOT NULL,           -- UTC day of created_at
    status    text NOT NULL,
    supplier  text NOT NULL,
    n         bigint NOT NULL,
    PRIMARY KEY (org_id, day, status, supplier)
);
CREATE TABLE hotel_booking_totals (
    org_id    text NOT NULL,
    status    text NOT NULL,
    supplier  text NOT NULL,
    n         bigint NOT NULL,
    PRIMARY KEY (org_id, status, supplier)
);

CREATE FUNCTION hotel_booking_counts_apply(changes jsonb) RETURNS void
    LANGUAGE sql AS $$
    WITH x AS (
        SELECT * FROM jsonb_to_recordset(changes)
            AS x(org_id text, day date, status text, supplier text, n bigint)
    ), by_day AS (
        INSERT INTO hotel_booking_counts AS c (org_id, day, status, supplier, n)
        SELECT org_id, day, status, supplier, sum(n) FROM x
         GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0 ORDER BY 1, 2, 3, 4
        ON CONFLICT (org_id, day, status, supplier) DO UPDATE SET n = c.n + EXCLUDED.n
    )
    INSERT INTO hotel_booking_totals AS t (org_id, status, supplier, n)
    SELECT org_id, status, supplier, sum(n) FROM x
     GROUP BY 1, 2, 3 HAVING sum(n) <> 0 ORDER BY 1, 2, 3
    ON CONFLICT (org_id, status, supplier) DO UPDATE SET n = t.n + EXCLUDED.n
$$;

CREATE FUNCTION hotel_booking_counts_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM hotel_booking_counts_apply((
        SELECT jsonb_agg(jsonb_build_object('org_id', org_id, 'day', day, 'status', status,
                                            'supplier', supplier, 'n', n))
          FROM (SELECT org_id, flight_booking_day(created_at) AS day, status, supplier,
                       count(*) AS n
                  FROM new_rows GROUP BY 1, 2, 3, 4) g));
    RETURN NULL;
END $$;

CREATE FUNCTION hotel_booking_counts_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM hotel_booking_counts_apply((
        SELECT jsonb_agg(jsonb_build_object('org_id', org_id, 'day', day, 'status', status,
                                            'supplier', supplier, 'n', -n))
          FROM (SELECT org_id, flight_booking_day(created_at) AS day, status, supplier,
                       count(*) AS n
                  FROM old_rows GROUP BY 1, 2, 3, 4) g));
    RETURN NULL;
END $$;

CREATE FUNCTION hotel_booking_counts_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM old_rows o JOIN new_rows w ON w.id = o.id
                    WHERE (o.org_id, o.created_at, o.status, o.supplier)
                          IS DISTINCT FROM (w.org_id, w.created_at, w.status, w.supplier)) THEN
        RETURN NULL;
    END IF;
    PERFORM hotel_booking_counts_apply((
        SELECT jsonb_agg(jsonb_build_object('org_id', org_id, 'day', day, 'status', status,
                                            'supplier', supplier, 'n', d))
          FROM (SELECT o.org_id, flight_booking_day(o.created_at) AS day, o.status,
                       o.supplier, -1 AS d
                  FROM old_rows o JOIN new_rows w ON w.id = o.id
                 WHERE (o.org_id, o.created_at, o.status, o.supplier)
                       IS DISTINCT FROM (w.org_id, w.created_at, w.status, w.supplier)
                UNION ALL
                SELECT w.org_id, flight_booking_day(w.created_at), w.status, w.supplier, 1
                  FROM old_rows o JOIN new_rows w ON w.id = o.id
                 WHERE (o.org_id, o.created_at, o.status, o.supplier)
                       IS DISTINCT FROM (w.org_id, w.created_at, w.status, w.supplier)
               ) g));
    RETURN NULL;
END $$;

CREATE TRIGGER hotel_booking_counts_insert AFTER INSERT ON hotel_bookings
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION hotel_booking_counts_insert();
CREATE TRIGGER hotel_booking_counts_delete AFTER DELETE ON hotel_bookings
    REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION hotel_booking_counts_delete();
CREATE TRIGGER hotel_booking_counts_update AFTER UPDATE ON hotel_bookings
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION hotel_booking_counts_update();

-- The list's exact total for an organization and filters (NULL: none), by
-- the status a reader sees: READY_FOR_COMPLETE past offer_expires_at is
-- EXPIRED. Whole UTC days come from the counts, the partial days at either
-- end row by row (as flight_bookings_total, 041).
CREATE FUNCTION hotel_bookings_total(p_org text, p_status text, p_supplier text,
                                     p_from timestamptz, p_to timestamptz)
    RETURNS bigint LANGUAGE plpgsql STABLE AS $$
DECLARE
    lo date := '-infinity';
    hi date := 'infinity';
    lo_at timestamptz;
    hi_at timestamptz;
    n bigint := 0;
    m bigint;
BEGIN
    IF p_from IS NOT NULL THEN
        lo := flight_booking_day(p_from);
        IF (lo::timestamp AT TIME ZONE 'UTC') < p_from THEN
            lo := lo + 1;
        END IF;
        lo_at := lo::timestamp AT TIME ZONE 'UTC';
    END IF;
    IF p_to IS NOT NULL THEN
        hi := flight_booking_day(p_to + interval '1 millisecond') - 1;
        hi_at := (hi + 1)::timestamp AT TIME ZONE 'UTC';
    END IF;
    IF lo > hi THEN
        SELECT count(*) INTO n FROM hotel_bookings b
         WHERE b.org_id = p_org AND b.created_at >= p_from AND b.created_at <= p_to
           AND (p_status IS NULL OR CASE WHEN b.status = 'READY_FOR_COMPLETE'
                AND b.offer_expires_at <= trv_now() THEN 'EXPIRED' ELSE b.status END = p_status)
           AND (p_supplier IS NULL OR b.supplier = p_supplier);
        RETURN n;
    END IF;
    IF p_from IS NULL AND p_to IS NULL THEN
        SELECT coalesce(sum(t.n), 0) INTO n FROM hotel_booking_totals t
         WHERE t.org_id = p_org
           AND (p_status IS NULL OR t.status = p_status)
           AND (p_supplier IS NULL OR t.supplier = p_supplier);
    ELSE
        SELECT coalesce(sum(c.n), 0) INTO n FROM hotel_booking_counts c
         WHERE c.org_id = p_org AND c.day BETWEEN lo AND hi
           AND (p_status IS NULL OR c.status = p_status)
           AND (p_supplier IS NULL OR c.supplier = p_supplier);
    END IF;
    IF p_status IN ('EXPIRED', 'READY_FOR_COMPLETE') THEN
        SELECT count(*) INTO m FROM hotel_bookings b
         WHERE b.org_id = p_org AND b.status = 'READY_FOR_COMPLETE'
           AND b.offer_expires_at <= trv_now()
           AND (lo_at IS NULL OR b.created_at >= lo_at)
           AND (hi_at IS NULL OR b.created_at < hi_at)
           AND (p_supplier IS NULL OR b.supplier = p_supplier);
        n := n + CASE WHEN p_status = 'EXPIRED' THEN m ELSE -m END;
    END IF;
    IF lo_at IS NOT NULL AND p_from < lo_at THEN
        SELECT n + count(*) INTO n FROM hotel_bookings b
         WHERE b.org_id = p_org AND b.created_at >= p_from AND b.created_at < lo_at
           AND (p_status IS NULL OR CASE WHEN b.status = 'READY_FOR_COMPLETE'
                AND b.offer_expires_at <= trv_now() THEN 'EXPIRED' ELSE b.status END = p_status)
           AND (p_supplier IS NULL OR b.supplier = p_supplier);
    END IF;
    IF hi_at IS NOT NULL AND p_to >= hi_at THEN
        SELECT n + count(*) INTO n FROM hotel_bookings b
         WHERE b.org_id = p_org AND b.created_at >= hi_at AND b.created_at <= p_to
           AND (p_status IS NULL OR CASE WHEN b.status = 'READY_FOR_COMPLETE'
                AND b.offer_expires_at <= trv_now() THEN 'EXPIRED' ELSE b.status END = p_status)
           AND (p_supplier IS NULL OR b.supplier = p_supplier);
    END IF;
    RETURN n;
END $$;
