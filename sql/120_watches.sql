-- Price watches and trip watches, their auto-purchase mandates, and the
-- watcher events' family. A watch belongs to one organization and user.
-- Amounts are integer minor units of the watch's currency.
CREATE TABLE watches (
    id               text PRIMARY KEY,                  -- wtc_<uuidv7>
    org_id           text NOT NULL REFERENCES organizations (id),
    user_id          text NOT NULL,
    kind             text NOT NULL CHECK (kind IN ('price', 'trip')),
    status           text NOT NULL CHECK (status IN ('active', 'armed', 'triggered', 'purchased',
                                                     'purchase_failed', 'expired', 'canceled')),
    hotel_id         text,                              -- price watches
    destination      text,                              -- trip watches: as given
    place_id         text,                              -- trip watches: the resolved place
    check_in         date NOT NULL,
    check_out        date NOT NULL,
    occupancy        jsonb NOT NULL,
    currency         text NOT NULL,
    guest_nationality text NOT NULL,
    guest_residence  text NOT NULL,
    -- The stay as one text (dates, rooms, market): watches of one hotel
    -- with equal stay_key share one supplier call.
    stay_key         text NOT NULL,
    trigger_type     text NOT NULL,
    trigger_minor    bigint NOT NULL,
    auto_purchase    jsonb,                             -- without payment details
    max_total_minor  bigint,
    mandate_id       text,
    -- Auto-purchase: the prebook request chosen by the fresh price check,
    -- kept so that every run of the purchase repeats exactly it (its
    -- idempotency key is the watch's).
    purchase_body    jsonb,
    last_checked_at  timestamptz,
    last_price_minor bigint,
    triggered_at     timestamptz,
    -- When the next check is due, and until when one is running: a watch
    -- is never in two checks at once (the schedule claims it).
    next_check_at    timestamptz NOT NULL DEFAULT trv_now(),
    checking_until   timestamptz,
    created_at       timestamptz NOT NULL DEFAULT trv_now(),
    updated_at       timestamptz NOT NULL DEFAULT trv_now()
);
CREATE INDEX watches_owner ON watches (org_id, user_id, kind, created_at DESC, id DESC);
CREATE INDEX watches_due ON watches (next_check_at) WHERE status IN ('active', 'armed');
CREATE INDEX watches_stay ON watches (hotel_id, stay_key) WHERE status IN ('active', 'armed');

CREATE TABLE watch_mandates (
    id                    text PRIMARY KEY,             -- mdt_<uuidv7>
    org_id                text NOT NULL REFERENCES organizations (id),
    user_id               text NOT NULL,
    watch_id              text NOT NULL UNIQUE REFERENCES watches (id),
    status                text NOT NULL CHECK (status IN ('pending_confirmation', 'confirmed',
                                                          'canceled')),
    payment_instrument_id text NOT NULL,
    contact               jsonb NOT NULL,
    rooms                 jsonb NOT NULL,
    max_total_minor       bigint NOT NULL,
    confirmed_at          timestamptz,
    created_at            timestamptz NOT NULL DEFAULT trv_now(),
    updated_at            timestamptz NOT NULL DEFAULT trv_now()
);

-- Watcher events are outbox events of the family 'travel' (their types
-- are travel.hotel.…); the organization's watcher endpoint is a webhook
-- subscription of that family, so the webhook engine sends them.
-- One watcher endpoint per organization.
CREATE UNIQUE INDEX webhook_subscriptions_travel_one ON webhook_subscriptions (org_id)
    WHERE family = 'travel' AND deleted_at IS NULL;
-- The event log: an organization's watcher events in id (time) order.
CREATE INDEX events_travel_log ON events (org_id, id) WHERE family = 'travel';
