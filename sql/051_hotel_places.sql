-- Hotel places. The catalogue is the gateway's own (cities and airports of
-- the OpenFlights data, seeded by 052); a search saves each place it
-- returns for the caller's organization under a plc_ id, so a destination
-- can be named by that id later (search, trip watches) and reads back the
-- same even if the catalogue changes.
CREATE TABLE hotel_place_catalog (
    key           text PRIMARY KEY,                 -- city:GB:London, point:LHR
    type          text NOT NULL CHECK (type IN ('city', 'point')),
    name          text NOT NULL,
    city          text NOT NULL,
    country_code  text NOT NULL CHECK (country_code ~ '^[A-Z]{2}$'),
    latitude      numeric(9, 6) NOT NULL,
    longitude     numeric(9, 6) NOT NULL,
    radius_m      integer NOT NULL CHECK (radius_m > 0),
    routes        integer NOT NULL,                 -- rank: routes leaving its airports
    search        text NOT NULL                     -- folded name (lower case, no accents)
);

CREATE TABLE hotel_places (
    id            text PRIMARY KEY,                 -- plc_...
    org_id        text NOT NULL REFERENCES organizations (id),
    place_key     text NOT NULL,
    type          text NOT NULL CHECK (type IN ('city', 'point')),
    name          text NOT NULL,
    city          text NOT NULL,
    country_code  text NOT NULL,
    latitude      numeric(9, 6) NOT NULL,
    longitude     numeric(9, 6) NOT NULL,
    radius_m      integer NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT trv_now(),
    UNIQUE (org_id, place_key)
);
