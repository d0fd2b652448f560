/* Reading a watch request: the stay (as hotel offers read it, with
 * guest_residence defaulting to guest_nationality and, for a trip watch,
 * occupancy to two adults in one room), the trigger and, for a price
 * watch, the optional auto_purchase. Pure functions of the JSON and
 * today's date. */
#include "input.h"
#include "hotel/input.h"
#include "hotel/prebook_input.h"
#include "core/json.h"
#include "core/money.h"
#include "core/validate.h"

#include <apr_strings.h>
#include <string.h>

static void read_trigger(apr_pool_t *p, const json_t *body, const char *currency,
                         trv_watch_input *in, trv_errs *errs)
{
    static const char *const known[] = {"type", "amount", NULL};
    const json_t *t = json_object_get(body, "trigger"), *type, *amount;
    trv_money m;
    if (!json_is_object(t)) {
        trv_errs_add(errs, "trigger", "is required: {type: \"below_total\", amount}");
        return;
    }
    trv_json_known(t, "trigger", known, errs);
    type = json_object_get(t, "type");
    amount = json_object_get(t, "amount");
    if (!json_is_string(type) || strcmp(json_string_value(type), "below_total") != 0) {
        trv_errs_add(errs, "trigger.type", "must be below_total (the only trigger type)");
    }
    if (!json_is_number(amount)) {
        trv_errs_add(errs, "trigger.amount", "must be a number in the watch's currency");
    }
    else if (currency && (trv_money_from_request(p, amount, currency, &m) != APR_SUCCESS
                          || m.minor <= 0)) {
        trv_errs_add(errs, "trigger.amount", "must be a positive amount of %s with at most "
                     "its minor-unit digits", currency);
    }
    else if (currency) {
        in->trigger_minor = m.minor;
    }
}

static const char *req_name(const json_t *o, const char *key, const char *at, trv_errs *errs)
{
    return trv_json_req_str(o, key, at, 1, 1, 100, errs);
}

static void read_auto_purchase(apr_pool_t *p, const json_t *ap, const char *currency,
                               const trv_hotel_stay *stay, trv_watch_input *in,
                               trv_errs *errs)
{
    static const char *const known[] = {"max_total", "payment_instrument_id", "contact",
                                        "rooms", NULL};
    static const char *const contact_known[] = {"first_name", "last_name", "email", "phone",
                                                NULL};
    const json_t *max = json_object_get(ap, "max_total");
    const json_t *contact = json_object_get(ap, "contact");
    const json_t *rooms = json_object_get(ap, "rooms");
    trv_money m;

    if (!json_is_object(ap)) {
        trv_errs_add(errs, "auto_purchase", "must be an object {max_total, "
                     "payment_instrument_id, contact, rooms}");
        return;
    }
    in->auto_purchase = 1;
    trv_json_known(ap, "auto_purchase", known, errs);
    if (!json_is_number(max)) {
        trv_errs_add(errs, "auto_purchase.max_total", "must be a number in the watch's "
                     "currency");
    }
    else if (currency && (trv_money_from_request(p, max, currency, &m) != APR_SUCCESS
                          || m.minor <= 0)) {
        trv_errs_add(errs, "auto_purchase.max_total", "must be a positive amount of %s with "
                     "at most its minor-unit digits", currency);
    }
    else if (currency) {
        in->max_total_minor = m.minor;
    }
    in->instrument = trv_json_req_str(ap, "payment_instrument_id",
                                      "auto_purchase.payment_instrument_id", 1, 1, 200, errs);
    if (!json_is_object(contact)) {
        trv_errs_add(errs, "auto_purchase.contact", "must be {first_name, last_name, email, "
                     "phone}");
    }
    else {
        trv_json_known(contact, "auto_purchase.contact", contact_known, errs);
        req_name(contact, "first_name", "auto_purchase.contact.first_name", errs);
        req_name(contact, "last_name", "auto_purchase.contact.last_name", errs);
        const char *email = trv_json_req_str(contact, "email", "auto_purchase.contact.email",
                                             1, 3, 200, errs);
        if (email && !strchr(email, '@')) {
            trv_errs_add(errs, "auto_purchase.contact.email", "must be an email address");
        }
        trv_json_req_str(contact, "phone", "auto_purchase.contact.phone", 1, 3, 40, errs);
    }
    /* The rooms are prebooked when the watch buys: read now with prebook's
     * own rules (one ADULT lead per room, the rooms of the occupancy), so a
     * mandate that could never buy is refused here, not at purchase time. */
    {
        trv_hotel_prebook_in party;
        size_t before = errs->count;
        memset(&party, 0, sizeof(party));
        trv_hotel_rooms_read(p, rooms, "auto_purchase.rooms", &party, errs);
        if (errs->count == before && stay->n_rooms) {
            trv_hotel_rooms_match(&party, stay, "auto_purchase.rooms", errs);
        }
    }
    in->contact = contact;
    in->rooms = rooms;
}

void trv_watch_read(apr_pool_t *p, const json_t *body, const char *kind, long today,
                    trv_watch_input *in, trv_errs *errs)
{
    static const char *const price_known[] = {"hotel_id", "check_in", "check_out",
                                              "occupancy", "currency", "guest_nationality",
                                              "guest_residence", "trigger", "auto_purchase",
                                              NULL};
    static const char *const trip_known[] = {"destination", "check_in", "check_out",
                                             "occupancy", "currency", "guest_nationality",
                                             "guest_residence", "trigger", NULL};
    int trip = strcmp(kind, "trip") == 0;
    json_t *copy = trv_json_bind(p, json_deep_copy(body));
    const json_t *nat = json_object_get(body, "guest_nationality");
    const json_t *ap = json_object_get(body, "auto_purchase");

    memset(in, 0, sizeof(*in));
    in->kind = kind;
    trv_json_known(body, NULL, trip ? trip_known : price_known, errs);
    if (trip) {
        in->destination = trv_json_req_str(body, "destination", "destination", 1, 2, 100,
                                           errs);
        if (!json_object_get(copy, "occupancy")) {
            json_object_set_new(copy, "occupancy", json_pack("[{s:i}]", "adults", 2));
        }
    }
    else {
        in->hotel_id = trv_json_req_str(body, "hotel_id", "hotel_id", 1, 5, 128, errs);
    }
    if (!json_object_get(copy, "guest_residence") && json_is_string(nat)) {
        json_object_set(copy, "guest_residence", (json_t *)nat);
    }
    trv_hotel_read_stay(p, copy, today, &in->stay, errs);
    if (in->stay.check_in && trv_hotel_day(in->stay.check_in) == today) {
        trv_errs_add(errs, "check_in", "must be after today: a watch stops at check_in");
    }
    in->occupancy = json_object_get(copy, "occupancy");
    read_trigger(p, body, in->stay.currency[0] ? in->stay.currency : NULL, in, errs);
    if (ap && !trip) {
        read_auto_purchase(p, ap, in->stay.currency[0] ? in->stay.currency : NULL, &in->stay,
                           in, errs);
    }
}
