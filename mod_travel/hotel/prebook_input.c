/* The prebook request (prebook_input.h). */
#include "prebook_input.h"
#include "seal.h"
#include "core/json.h"
#include "core/validate.h"

#include <apr_strings.h>
#include <stdlib.h>
#include <string.h>

/* "2;1-7,5": each room's adults, then its children's ages. */
static int occupancy_read(const char *s, trv_hotel_stay *stay)
{
    int n = 0;
    while (*s && n < TRV_HOTEL_MAX_ROOMS) {
        trv_hotel_occ *o = &stay->rooms[n++];
        char *end;
        memset(o, 0, sizeof(*o));
        o->adults = (int)strtol(s, &end, 10);
        if (end == s || o->adults < 1) {
            return -1;
        }
        s = end;
        if (*s == '-') {
            do {
                s++;
                if (o->n_children == TRV_HOTEL_MAX_CHILDREN) {
                    return -1;
                }
                o->ages[o->n_children++] = (int)strtol(s, &end, 10);
                if (end == s) {
                    return -1;
                }
                s = end;
            } while (*s == ',');
        }
        if (*s == ';') {
            s++;
        }
        else if (*s) {
            return -1;
        }
    }
    stay->n_rooms = n;
    return *s || n == 0 ? -1 : 0;
}

apr_status_t trv_hotel_offer_open(apr_pool_t *p, const unsigned char *key, const char *org_id,
                                  const char *text, trv_hotel_sealed *out)
{
    char *payload, *f[13], *at;
    long total, exp;
    int i;
    memset(out, 0, sizeof(*out));
    if (trv_hotel_unseal(p, key, org_id, "hotel-offer", text, &payload) != APR_SUCCESS) {
        return APR_EINVAL;
    }
    /* 1|supplier|sid|hotel_id|in|out|occupancy|nat|res|cur|total|expiry|ref:
     * fields may be empty (a hotel no search has seen has no hotel_id);
     * the supplier's reference comes last, whatever it holds. */
    at = payload;
    for (i = 0; i < 12; i++) {
        char *bar = strchr(at, '|');
        if (!bar) {
            return APR_EINVAL;
        }
        *bar = '\0';
        f[i] = at;
        at = bar + 1;
    }
    f[12] = at;
    if (strcmp(f[0], "1") != 0 || !*f[1] || !*f[2] || !*f[12] || strlen(f[9]) != 3) {
        return APR_EINVAL;
    }
    out->supplier = f[1];
    out->sid = f[2];
    out->hotel_id = *f[3] ? f[3] : NULL;
    out->stay.check_in = f[4];
    out->stay.check_out = f[5];
    if (occupancy_read(f[6], &out->stay) != 0) {
        return APR_EINVAL;
    }
    out->stay.nationality = f[7];
    out->stay.residence = f[8];
    memcpy(out->stay.currency, f[9], 4);
    total = strtol(f[10], NULL, 10);
    exp = strtol(f[11], NULL, 10);
    out->total_minor = total;
    out->expires_at = apr_time_from_sec(exp);
    out->ref = f[12];
    return APR_SUCCESS;
}

static const char *name_field(const json_t *o, const char *key, const char *field,
                              trv_errs *errs)
{
    return trv_json_req_str(o, key, field, 1, 1, 100, errs);
}

void trv_hotel_prebook_read(apr_pool_t *p, const json_t *body, trv_hotel_prebook_in *in,
                            trv_errs *errs)
{
    static const char *const known[] = {"offer_reference", "reference_id", "use_payment_sdk",
                                        "contact", "rooms", NULL};
    static const char *const contact_known[] = {"first_name", "last_name", "email", "phone",
                                                NULL};
    const json_t *c, *sdk;
    memset(in, 0, sizeof(*in));
    if (!json_is_object(body)) {
        trv_errs_add(errs, "body", "must be a JSON object");
        return;
    }
    trv_json_known(body, NULL, known, errs);
    in->offer_reference = trv_json_req_str(body, "offer_reference", "offer_reference", 1, 1,
                                           4096, errs);
    in->reference_id = trv_json_req_str(body, "reference_id", "reference_id", 1, 1, 200, errs);
    sdk = json_object_get(body, "use_payment_sdk");
    if (sdk && !json_is_boolean(sdk)) {
        trv_errs_add(errs, "use_payment_sdk", "must be true or false");
    }
    in->use_payment_sdk = json_is_true(sdk);
    c = json_object_get(body, "contact");
    if (!json_is_object(c)) {
        trv_errs_add(errs, "contact", "is required: {first_name, last_name, email, phone}");
    }
    else {
        trv_json_known(c, "contact", contact_known, errs);
        in->first_name = name_field(c, "first_name", "contact.first_name", errs);
        in->last_name = name_field(c, "last_name", "contact.last_name", errs);
        in->email = trv_json_req_str(c, "email", "contact.email", 1, 3, 254, errs);
        if (in->email && (!strchr(in->email, '@') || strchr(in->email, ' '))) {
            trv_errs_add(errs, "contact.email", "must be an email address");
        }
        in->phone = trv_json_req_str(c, "phone", "contact.phone", 1, 4, 30, errs);
    }
    trv_hotel_rooms_read(p, json_object_get(body, "rooms"), "rooms", in, errs);
}

void trv_hotel_rooms_read(apr_pool_t *p, const json_t *rooms, const char *field,
                          trv_hotel_prebook_in *in, trv_errs *errs)
{
    static const char *const guest_known[] = {"first_name", "last_name", "type", "is_lead",
                                              NULL};
    const json_t *r, *g;
    size_t i, k;
    if (!json_is_array(rooms) || json_array_size(rooms) < 1
        || json_array_size(rooms) > TRV_HOTEL_MAX_ROOMS) {
        trv_errs_add(errs, field, "is required: 1 to %d rooms, in the offer's order, each "
                     "{guests: [...]}", TRV_HOTEL_MAX_ROOMS);
        return;
    }
    in->n_rooms = (int)json_array_size(rooms);
    json_array_foreach(rooms, i, r) {
        const char *rf = apr_psprintf(p, "%s[%d]", field, (int)i);
        static const char *const room_known[] = {"guests", NULL};
        const json_t *guests = json_object_get(r, "guests");
        int leads = 0;
        if (!json_is_object(r)) {
            trv_errs_add(errs, rf, "must be an object {guests: [...]}");
            continue;
        }
        trv_json_known(r, rf, room_known, errs);
        if (!json_is_array(guests) || json_array_size(guests) < 1
            || json_array_size(guests) > TRV_HOTEL_MAX_GUESTS) {
            trv_errs_add(errs, apr_pstrcat(p, rf, ".guests", NULL),
                         "is required: 1 to %d guests, one of them the adult lead",
                         TRV_HOTEL_MAX_GUESTS);
            continue;
        }
        in->n_guests[i] = (int)json_array_size(guests);
        in->guests[i] = apr_pcalloc(p, sizeof(trv_hotel_guest) * json_array_size(guests));
        json_array_foreach(guests, k, g) {
            const char *gf = apr_psprintf(p, "%s.guests[%d]", rf, (int)k);
            trv_hotel_guest *out = (trv_hotel_guest *)&in->guests[i][k];
            const char *type;
            const json_t *lead;
            if (!json_is_object(g)) {
                trv_errs_add(errs, gf, "must be an object {first_name, last_name, type, "
                             "is_lead}");
                continue;
            }
            trv_json_known(g, gf, guest_known, errs);
            out->first_name = name_field(g, "first_name", apr_pstrcat(p, gf, ".first_name",
                                                                      NULL), errs);
            out->last_name = name_field(g, "last_name", apr_pstrcat(p, gf, ".last_name", NULL),
                                        errs);
            type = trv_json_req_str(g, "type", apr_pstrcat(p, gf, ".type", NULL), 0, 1, 10,
                                    errs);
            if (type && strcmp(type, "ADULT") != 0 && strcmp(type, "CHILD") != 0) {
                trv_errs_add(errs, apr_pstrcat(p, gf, ".type", NULL), "must be ADULT or CHILD");
            }
            out->child = type && strcmp(type, "CHILD") == 0;
            lead = json_object_get(g, "is_lead");
            if (lead && !json_is_boolean(lead)) {
                trv_errs_add(errs, apr_pstrcat(p, gf, ".is_lead", NULL), "must be true or false");
            }
            out->is_lead = json_is_true(lead);
            if (out->is_lead) {
                leads++;
                if (out->child) {
                    trv_errs_add(errs, apr_pstrcat(p, gf, ".is_lead", NULL),
                                 "the lead guest must be an ADULT");
                }
            }
        }
        if (leads != 1) {
            trv_errs_add(errs, apr_pstrcat(p, rf, ".guests", NULL),
                         "must have exactly one lead guest (is_lead: true), an ADULT");
        }
    }
}

void trv_hotel_prebook_match(const trv_hotel_prebook_in *in, const trv_hotel_stay *stay,
                             trv_errs *errs)
{
    trv_hotel_rooms_match(in, stay, "rooms", errs);
}

void trv_hotel_rooms_match(const trv_hotel_prebook_in *in, const trv_hotel_stay *stay,
                           const char *field, trv_errs *errs)
{
    int i, k;
    if (in->n_rooms != stay->n_rooms) {
        trv_errs_add(errs, field, "must be the %d room(s) the offer was priced for, in its "
                     "order", stay->n_rooms);
        return;
    }
    for (i = 0; i < in->n_rooms; i++) {
        int adults = 0, children = 0;
        for (k = 0; k < in->n_guests[i]; k++) {
            if (in->guests[i][k].child) {
                children++;
            }
            else {
                adults++;
            }
        }
        if (adults > stay->rooms[i].adults || children > stay->rooms[i].n_children) {
            trv_errs_add(errs, apr_psprintf(errs->pool, "%s[%d].guests", field, i),
                         "the room was priced for %d adult(s) and %d child(ren)",
                         stay->rooms[i].adults, stay->rooms[i].n_children);
        }
    }
}
