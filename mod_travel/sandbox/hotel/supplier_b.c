/* Hotel SUPPLIER_B: Hotelbeds APItude's Hotel Booking API 1.0 and Hotel
 * Content API 1.0 (developer.hotelbeds.com), under /hotels/b with the
 * headers Api-key and X-Signature (SHA-256 hex of key + secret + Unix
 * seconds); auditData and the error shape are added by hotelbeds.c:
 *
 *   GET    /hotel-content-api/1.0/locations/destinations?countryCodes=GB
 *   GET    /hotel-content-api/1.0/hotels?destinationCode=LON[&from=1&to=100]
 *   POST   /hotel-api/1.0/hotels              availability
 *   POST   /hotel-api/1.0/checkrates          re-prices a rateKey
 *   POST   /hotel-api/1.0/bookings            books
 *   GET    /hotel-api/1.0/bookings?start=&end=&filterType=&from=&to=&clientReference=
 *   GET    /hotel-api/1.0/bookings/{reference}
 *   DELETE /hotel-api/1.0/bookings/{reference}?cancellationFlag=CANCELLATION
 *          (again: 409 BOOKING_ALREADY_CANCELLED; no Idempotency-Key replay)
 *   DELETE /hotel-api/1.0/bookings/{reference}?cancellationFlag=SIMULATION
 *          (what cancelling would cost now; nothing changes)
 *
 * Bare JSON objects; amounts are decimal strings in the answer's currency
 * (the request's "currency", a sandbox extension; EUR by default). As at
 * Hotelbeds, each room type answers a rate per occupancy group (an entry
 * of the request's occupancies: its rooms identical), each with its own
 * rateKey and net; checkrates and bookings take one rateKey per group.
 * Payment AT_WEB: SUPPLIER_B
 * invoices the partner (pendingAmount 0); taxes with "included": false
 * are paid at the property. Some hotels bind the seller to a minimum
 * price (hotelMandatory, sellingRate: b_mandatory). Destination codes are the IATA code of the
 * city's busiest airport (LON is not an airport: London's is LHR). */
#include "hotel.h"
#include "hotelbeds.h"
#include "sandbox/money.h"
#include "core/money.h"
#include "core/validate.h"

#include <apr_strings.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define B 1
#define B_MAX_HOTELS 100
#define B_RATE_TTL (30 * 60)
#define B_RATE_COMMENTS "Check-in from 14:00. City tax, where charged, is paid at the hotel."

static char *amt(trv_req *req, apr_int64_t v, const char *cur)
{
    return sbx_amount(req->pool, v, cur);
}

/* Hotelbeds' net pricing model: a hotel may bind the seller to a minimum
 * price, the rate's sellingRate with hotelMandatory: true (its public
 * price, which a reseller must not undercut). In the sandbox every fourth
 * hotel does (catalogue index 1, 5, 9, ...), for all its rates. */
static int b_mandatory(int hotel)
{
    return hotel % 4 == 1;
}

/* A room's mandatory selling price: its net plus 15 %, rounded up to the
 * minor unit (integers only); a rate's is the sum over its rooms, so a
 * booking's rooms (one rate each) add up to the rate that booked them. */
static apr_int64_t b_selling(apr_int64_t net)
{
    return net + (net * 15 + 99) / 100;
}

/* The hotel's binding price on a rate (or a booked room's rate) whose
 * rooms sell at least at selling. */
static void b_set_selling(trv_req *req, json_t *rate, apr_int64_t selling, const char *cur)
{
    json_object_set_new(rate, "sellingRate", json_string(amt(req, selling, cur)));
    json_object_set_new(rate, "hotelMandatory", json_true());
}

static const char *dest_code(trv_req *req, int city)
{
    return SBX(req)->world->airports[SBX_HOTELS(req)->cities[city].airport].iata;
}

static json_t *b_hotel(trv_req *req, int i)
{
    const sbx_hotels *h = SBX_HOTELS(req);
    const sbx_hotel *x = &h->hotels[i];
    const sbx_hcity *c = &h->cities[x->city];
    double lat, lon;
    json_t *rooms = json_array(), *boards = json_array();
    int r;
    sbx_hotel_position(x, B, &lat, &lon);
    for (r = 0; r < SBX_ROOM_TYPES; r++) {
        if (x->rooms & (1u << r)) {
            json_array_append_new(rooms, json_pack("{s:s,s:s,s:i,s:i}", "roomCode",
                                                   sbx_room_type_get(r)->code, "description",
                                                   sbx_room_type_get(r)->name, "maxAdults",
                                                   sbx_room_type_get(r)->max_adults, "maxPax",
                                                   sbx_room_type_get(r)->max_occupancy));
        }
    }
    for (r = 0; r < SBX_BOARDS; r++) {
        if (x->boards & (1u << r)) {
            json_array_append_new(boards, json_string(sbx_board_get(r)->code));
        }
    }
    return json_pack("{s:I,s:{s:s},s:s,s:s,s:{s:f,s:f},s:s,s:{s:s},s:s,s:{s:s},s:I,s:s?,"
                     "s:o,s:o}",
                     "code", (json_int_t)apr_atoi64(sbx_hotel_sid(req->pool, B, i)),
                     "name", "content", x->name, "countryCode", c->country_code,
                     "destinationCode", dest_code(req, x->city),
                     "coordinates", "longitude", lon, "latitude", lat,
                     "categoryCode", apr_psprintf(req->pool, "%dEST", x->stars),
                     "address", "content", apr_psprintf(req->pool, "%s, %d", x->street,
                                                        x->street_no),
                     "postalCode", x->postal_code, "city", "content", c->name,
                     "giataCode", (json_int_t)x->giata, "chainCode", x->chain,
                     "rooms", rooms, "boardCodes", boards);
}

static void destinations(trv_req *req, trv_resp *resp)
{
    const char *cc = apr_table_get(req->query, "countryCodes");
    const sbx_hotels *h;
    json_t *list;
    int i;
    if (!sbx_need_hotels(req, resp)) {
        return;
    }
    h = SBX_HOTELS(req);
    list = json_array();
    for (i = 0; i < h->n_cities; i++) {
        if (cc && !strstr(cc, h->cities[i].country_code)) {
            continue;
        }
        json_array_append_new(list, json_pack("{s:s,s:{s:s},s:s,s:i}", "code",
                                              dest_code(req, i), "name", "content",
                                              h->cities[i].name, "countryCode",
                                              h->cities[i].country_code, "hotels",
                                              h->cities[i].n));
    }
    sbx_send(req, resp, 200, json_pack("{s:i,s:i,s:i,s:o}", "from", 1, "to",
                                       (int)json_array_size(list), "total",
                                       (int)json_array_size(list), "destinations", list));
}

static void content_hotels(trv_req *req, trv_resp *resp)
{
    const char *code = apr_table_get(req->query, "destinationCode");
    const char *from_s = apr_table_get(req->query, "from"), *to_s = apr_table_get(req->query, "to");
    const sbx_hotels *h;
    int city, from = from_s ? atoi(from_s) : 1, to = to_s ? atoi(to_s) : 100, k, n = 0, total = 0;
    json_t *list;
    if (!sbx_need_hotels(req, resp)) {
        return;
    }
    h = SBX_HOTELS(req);
    city = sbx_hcity_by_code(h, SBX(req)->world, code);
    if (city < 0) {
        sbx_invalid(req, resp, "destinationCode", "is not a destination of this API");
        return;
    }
    if (from < 1 || to < from || to - from >= 1000) {
        sbx_invalid(req, resp, "from", "from and to are 1-based, at most 1000 apart");
        return;
    }
    list = json_array();
    for (k = 0; k < h->cities[city].n; k++) {
        int i = h->cities[city].first + k;
        if (!(h->hotels[i].suppliers & (1u << B))) {
            continue;
        }
        total++;
        if (total >= from && total <= to) {
            json_array_append_new(list, b_hotel(req, i));
            n++;
        }
    }
    sbx_send(req, resp, 200, json_pack("{s:i,s:i,s:i,s:o}", "from", from, "to",
                                       n ? from + n - 1 : from, "total", total,
                                       "hotels", list));
}

/* ---- availability ---- */

/* A rate of q's rooms priced as pr (sbx_hquote_price of q) under key;
 * Hotelbeds' amounts are decimal strings. */
static void b_rate(trv_jtext *t, const sbx_hquote *q, const sbx_hprice *pr, const char *key)
{
    const char *cur = q->currency;
    apr_int64_t total = 0, due = 0, discount = 0, selling = 0;
    apr_int64_t pen_sum[2] = {0, 0};
    char ages[SBX_MAX_CHILDREN * 12 + 1];
    int k, n, len = 0;
    for (k = 0; k < q->n_rooms; k++) {
        for (n = 0; n < pr[k].n_penalties; n++) {
            pen_sum[n] += pr[k].penalties[n].amount;
        }
        total += pr[k].total;
        due += pr[k].due_at_property;
        discount += pr[k].discount;
        selling += b_selling(pr[k].total);
    }
    /* One occupancy group: its rooms are alike (b_occupancies). */
    ages[0] = '\0';
    for (n = 0; n < q->occ[0].n_children; n++) {
        len += snprintf(ages + len, sizeof(ages) - (size_t)len, "%s%d", n ? "," : "",
                        q->occ[0].ages[n]);
    }
    trv_jtext_obj(t);
    trv_jtext_kstr(t, "rateKey", key);
    trv_jtext_kstr(t, "rateClass", q->plan ? "NRF" : "NOR");
    trv_jtext_kstr(t, "rateType", "BOOKABLE");
    sbx_jt_kamount(t, "net", total, cur);
    trv_jtext_kint(t, "allotment", 5);
    trv_jtext_kstr(t, "paymentType", "AT_WEB");
    trv_jtext_kbool(t, "packaging", 0);
    trv_jtext_kstr(t, "boardCode", sbx_board_get(q->board)->code);
    trv_jtext_kstr(t, "boardName", sbx_board_get(q->board)->name);
    trv_jtext_karr(t, "cancellationPolicies");
    for (n = 0; n < pr[0].n_penalties; n++) {
        trv_jtext_obj(t);
        sbx_jt_kamount(t, "amount", pen_sum[n], cur);
        trv_jtext_key(t, "from");
        sbx_jt_instant(t, pr[0].penalties[n].from);
        trv_jtext_end(t);
    }
    trv_jtext_end(t);
    trv_jtext_kobj(t, "taxes");
    trv_jtext_kbool(t, "allIncluded", due == 0);
    trv_jtext_karr(t, "taxes");
    if (due) {
        trv_jtext_obj(t);
        trv_jtext_kbool(t, "included", 0);
        sbx_jt_kamount(t, "amount", due, cur);
        trv_jtext_kstr(t, "currency", cur);
        sbx_jt_kamount(t, "clientAmount", due, cur);
        trv_jtext_kstr(t, "clientCurrency", cur);
        trv_jtext_kstr(t, "type", "TAXESANDFEES");
        trv_jtext_end(t);
    }
    trv_jtext_end(t);
    trv_jtext_end(t);
    trv_jtext_kint(t, "rooms", q->n_rooms);
    trv_jtext_kint(t, "adults", q->occ[0].adults);
    trv_jtext_kint(t, "children", q->occ[0].n_children);
    trv_jtext_kstr(t, "childrenAges", q->occ[0].n_children ? ages : NULL);
    trv_jtext_karr(t, "offers");
    if (pr[0].promo_code) {
        trv_jtext_obj(t);
        trv_jtext_kstr(t, "code", pr[0].promo_code);
        trv_jtext_kstr(t, "name", pr[0].promo_name);
        sbx_jt_kamount(t, "amount", -discount, cur);
        trv_jtext_end(t);
    }
    trv_jtext_end(t);
    trv_jtext_karr(t, "promotions");
    if (pr[0].promo_code) {
        trv_jtext_obj(t);
        trv_jtext_kstr(t, "code", pr[0].promo_code);
        trv_jtext_kstr(t, "name", pr[0].promo_name);
        trv_jtext_end(t);
    }
    trv_jtext_end(t);
    trv_jtext_karr(t, "dailyRates");
    for (n = 0; n < q->nights; n++) {
        apr_int64_t night = 0;
        for (k = 0; k < q->n_rooms; k++) {
            night += pr[k].nightly[n];
        }
        trv_jtext_obj(t);
        trv_jtext_kint(t, "offset", n + 1);
        sbx_jt_kamount(t, "dailyNet", night, cur);
        trv_jtext_end(t);
    }
    trv_jtext_end(t);
    trv_jtext_kstr(t, "rateComments", B_RATE_COMMENTS);
    if (b_mandatory(q->hotel)) {
        /* The hotel's binding price (b_set_selling's members). */
        sbx_jt_kamount(t, "sellingRate", selling, cur);
        trv_jtext_kbool(t, "hotelMandatory", 1);
    }
    trv_jtext_end(t);
}

/* b_rate as a tree, for an answer built as one (checkrates). */
static json_t *b_rate_tree(trv_req *req, const sbx_hquote *q, const char *key)
{
    sbx_hprice *pr = apr_palloc(req->pool, sizeof(sbx_hprice) * (apr_size_t)q->n_rooms);
    trv_jtext t;
    sbx_hquote_price(SBX_HOTELS(req), SBX(req)->world, q, sbx_now(), pr);
    trv_jtext_init(&t, req->pool, 2048);
    b_rate(&t, q, pr, key);
    return sbx_jt_tree(&t);
}

/* Hotelbeds' occupancies: [{rooms, adults, children, paxes: [{type: CH,
 * age}]}], adults and children per room; groups[] gets each entry's rooms
 * (its occupancy group), *n_groups how many. */
/* The rate of q's rooms first..first+n-1 (one occupancy group) under a
 * rateKey of its own: a room's price depends on its own occupancy only,
 * so the groups' nets add up to q's total. */
static void b_group_rate(trv_req *req, trv_jtext *t, const sbx_hquote *q, int first, int n)
{
    sbx_hquote g = *q;
    sbx_hprice *pr = apr_palloc(req->pool, sizeof(sbx_hprice) * (apr_size_t)n);
    g.n_rooms = n;
    memmove(g.occ, q->occ + first, sizeof(sbx_occ) * (size_t)n);
    g.total = sbx_hquote_price(SBX_HOTELS(req), SBX(req)->world, &g, sbx_now(), pr);
    b_rate(t, &g, pr, sbx_hquote_encode(req->pool, &g, "br", SBX(req)->set->key_hb));
}

static int b_occupancies(trv_req *req, trv_resp *resp, const json_t *v, sbx_hquote *q,
                         int *groups, int *n_groups)
{
    size_t k, i;
    const json_t *o;
    q->n_rooms = 0;
    *n_groups = 0;
    if (!json_is_array(v) || json_array_size(v) < 1) {
        sbx_invalid(req, resp, "occupancies", "is required");
        return -1;
    }
    json_array_foreach(v, k, o) {
        int rooms = (int)json_integer_value(json_object_get(o, "rooms")), r;
        sbx_occ oc;
        const json_t *pax;
        const char *reason = "rooms and adults are required";
        memset(&oc, 0, sizeof(oc));
        oc.adults = (int)json_integer_value(json_object_get(o, "adults"));
        json_array_foreach(json_object_get(o, "paxes"), i, pax) {
            if (strcmp(trv_json_str(pax, "type") ? trv_json_str(pax, "type") : "", "CH") == 0
                && oc.n_children < SBX_MAX_CHILDREN) {
                oc.ages[oc.n_children++] = json_is_integer(json_object_get(pax, "age"))
                    ? (int)json_integer_value(json_object_get(pax, "age")) : -1;
            }
        }
        if (json_integer_value(json_object_get(o, "children")) != oc.n_children) {
            sbx_invalid(req, resp, apr_psprintf(req->pool, "occupancies[%d]", (int)k),
                        "children must match the CH paxes with their ages");
            return -1;
        }
        if (rooms < 1 || q->n_rooms + rooms > SBX_MAX_HROOMS || sbx_occ_check(&oc, &reason)) {
            sbx_invalid(req, resp, apr_psprintf(req->pool, "occupancies[%d]", (int)k),
                        rooms < 1 || q->n_rooms + rooms > SBX_MAX_HROOMS
                            ? "1 to 8 rooms in all" : reason);
            return -1;
        }
        for (r = 0; r < rooms; r++) {
            q->occ[q->n_rooms++] = oc;
        }
        groups[(*n_groups)++] = rooms;
    }
    return 0;
}

static void availability(trv_req *req, trv_resp *resp)
{
    const sbx_hotels *h;
    const json_t *b, *stay, *hl, *geo, *dest, *v;
    const char *field, *reason, *cur;
    sbx_hquote q, *found;
    apr_hash_t *factors;
    int *idx, n_idx = 0, i, k, n, max_rates = 10, groups[SBX_MAX_HROOMS], n_groups, g, first;
    int r, n_hotels = 0;
    long checkout;
    apr_int64_t now = sbx_now();
    trv_jtext t;

    if (!sbx_need_hotels(req, resp) || !(b = sbx_body(req, resp))) {
        return;
    }
    h = SBX_HOTELS(req);
    memset(&q, 0, sizeof(q));
    q.supplier = B;
    q.today = (long)(now / 86400);
    stay = json_object_get(b, "stay");
    q.checkin = sbx_day_of(trv_json_str(stay, "checkIn"));
    checkout = sbx_day_of(trv_json_str(stay, "checkOut"));
    if (sbx_stay_check(q.checkin, checkout, q.today, &field, &reason) != 0) {
        sbx_invalid(req, resp, strcmp(field, "checkin") == 0 ? "stay.checkIn" : "stay.checkOut",
                    reason);
        return;
    }
    q.nights = (int)(checkout - q.checkin);
    if (b_occupancies(req, resp, json_object_get(b, "occupancies"), &q, groups, &n_groups) != 0) {
        return;
    }
    cur = trv_json_str(b, "currency") ? trv_json_str(b, "currency") : "EUR";
    if (!sbx_currency_known(cur)) {
        sbx_invalid(req, resp, "currency", "must be an ISO 4217 code the sandbox sells in");
        return;
    }
    memcpy(q.currency, cur, 4);
    if ((v = json_object_get(json_object_get(b, "filter"), "maxRatesPerRoom"))) {
        max_rates = (int)json_integer_value(v);
        if (max_rates < 1 || max_rates > 50) {
            sbx_invalid(req, resp, "filter.maxRatesPerRoom", "must be 1 to 50");
            return;
        }
    }
    idx = apr_palloc(req->pool, sizeof(int) * (apr_size_t)h->n_hotels);
    hl = json_object_get(json_object_get(b, "hotels"), "hotel");
    geo = json_object_get(b, "geolocation");
    dest = json_object_get(b, "destination");
    if (json_is_array(hl)) {
        sbx_hotel_set *seen = sbx_hotel_set_make(req->pool, h);
        size_t j;
        if (json_array_size(hl) < 1 || json_array_size(hl) > B_MAX_HOTELS) {
            sbx_invalid(req, resp, "hotels.hotel", "must list 1 to 100 hotel codes");
            return;
        }
        json_array_foreach(hl, j, v) {
            const char *sid = json_is_integer(v)
                ? apr_psprintf(req->pool, "%" APR_INT64_T_FMT, (apr_int64_t)json_integer_value(v))
                : json_string_value(v);
            i = sbx_hotel_by_sid(h, B, sid);
            if (sbx_hotel_set_add(seen, i)) {
                idx[n_idx++] = i;
            }
        }
    }
    else if (json_is_object(geo)) {
        double lat = json_number_value(json_object_get(geo, "latitude"));
        double lon = json_number_value(json_object_get(geo, "longitude"));
        double radius = json_number_value(json_object_get(geo, "radius"));
        if (radius <= 0 || radius > 50) {
            sbx_invalid(req, resp, "geolocation.radius", "must be more than 0 and at most 50 (km)");
            return;
        }
        n_idx = sbx_hotels_near(h, B, lat, lon, radius * 1000.0, idx, B_MAX_HOTELS);
        n_idx = n_idx > B_MAX_HOTELS ? B_MAX_HOTELS : n_idx;
    }
    else if (json_is_object(dest)) {
        int city = sbx_hcity_by_code(h, SBX(req)->world, trv_json_str(dest, "code"));
        if (city < 0) {
            sbx_invalid(req, resp, "destination.code", "is not a destination of this API");
            return;
        }
        for (k = 0; k < h->cities[city].n && n_idx < B_MAX_HOTELS; k++) {
            if (h->hotels[h->cities[city].first + k].suppliers & (1u << B)) {
                idx[n_idx++] = h->cities[city].first + k;
            }
        }
    }
    else {
        sbx_invalid(req, resp, "hotels", "give hotels.hotel, geolocation or destination");
        return;
    }
    if (sbx_hfactors(req, resp, B, &factors) != 0) {
        return;
    }
    q.expires = now + B_RATE_TTL;
    found = apr_palloc(req->pool, sizeof(sbx_hquote) * SBX_ROOM_TYPES * SBX_BOARDS * 2);
    trv_jtext_init(&t, req->pool, 65536);
    trv_jtext_obj(&t);
    trv_jtext_kobj(&t, "hotels");
    trv_jtext_karr(&t, "hotels");
    for (i = 0; i < n_idx; i++) {
        const sbx_hotel *x = &h->hotels[idx[i]];
        apr_int64_t min = -1, max = 0;
        /* A room type's rates in the order the rates come (cheapest
         * first), the room types in the order of their first rate, each
         * with up to maxRatesPerRoom rates (of one occupancy group). */
        int order[SBX_ROOM_TYPES], n_order = 0, count[SBX_ROOM_TYPES] = {0};
        char kept[SBX_ROOM_TYPES * SBX_BOARDS * 2];
        double lat, lon;
        char sid[32];
        q.hotel = idx[i];
        apr_cpystrn(sid, sbx_hotel_sid(req->pool, B, q.hotel), sizeof(sid));
        q.factor_permille = sbx_hfactor_of(factors, sid);
        n = sbx_hotel_rates(h, SBX(req)->world, &q, now, found, SBX_ROOM_TYPES * SBX_BOARDS * 2);
        if (!n) {
            continue;
        }
        for (k = 0; k < n; k++) {
            int r = found[k].room;
            if (!count[r]) {
                order[n_order++] = r;
            }
            kept[k] = count[r] < max_rates;
            if (!kept[k]) {
                continue;
            }
            count[r]++;
            if (min < 0 || found[k].total < min) {
                min = found[k].total;
            }
            if (found[k].total > max) {
                max = found[k].total;
            }
        }
        trv_jtext_obj(&t);
        trv_jtext_kint(&t, "code", apr_atoi64(sid));
        trv_jtext_kstr(&t, "name", x->name);
        trv_jtext_kstr(&t, "categoryCode", apr_psprintf(req->pool, "%dEST", x->stars));
        trv_jtext_kstr(&t, "destinationCode", dest_code(req, x->city));
        trv_jtext_kstr(&t, "destinationName", h->cities[x->city].name);
        sbx_hotel_position(x, B, &lat, &lon);
        trv_jtext_kreal(&t, "latitude", lat);
        trv_jtext_kreal(&t, "longitude", lon);
        trv_jtext_karr(&t, "rooms");
        for (r = 0; r < n_order; r++) {
            const sbx_room_type *rt = sbx_room_type_get(order[r]);
            trv_jtext_obj(&t);
            trv_jtext_kstr(&t, "code", rt->code);
            trv_jtext_kstr(&t, "name", rt->name);
            trv_jtext_karr(&t, "rates");
            for (k = 0; k < n; k++) {
                if (found[k].room != order[r] || !kept[k]) {
                    continue;
                }
                for (g = 0, first = 0; g < n_groups; first += groups[g++]) {
                    b_group_rate(req, &t, &found[k], first, groups[g]);
                }
            }
            trv_jtext_end(&t);
            trv_jtext_end(&t);
        }
        trv_jtext_end(&t);
        sbx_jt_kamount(&t, "minRate", min, q.currency);
        sbx_jt_kamount(&t, "maxRate", max, q.currency);
        trv_jtext_kstr(&t, "currency", q.currency);
        trv_jtext_end(&t);
        n_hotels++;
    }
    trv_jtext_end(&t);
    trv_jtext_key(&t, "checkIn");
    trv_jtext_str(&t, sbx_day_format(req->pool, q.checkin));
    trv_jtext_key(&t, "checkOut");
    trv_jtext_str(&t, sbx_day_format(req->pool, checkout));
    trv_jtext_kint(&t, "total", n_hotels);
    trv_jtext_end(&t);
    sbx_hotelbeds_send(req, resp, 200, &t);
}

static int b_key(trv_req *req, trv_resp *resp, const char *key, const char *field,
                 sbx_hquote *q)
{
    if (sbx_hquote_decode(req->pool, key, "br", SBX(req)->set->key_hb, SBX_HOTELS(req), q)
        != 0) {
        sbx_invalid(req, resp, field, "is not a rateKey of this API");
        return -1;
    }
    if (q->expires < sbx_now()) {
        sbx_error(req, resp, 409, "RATE_EXPIRED", "The rateKey expired; search again");
        return -1;
    }
    return 0;
}

/* The rateKeys of rooms[] (one per occupancy group) into keys[] and, in
 * *all, one quote of all their rooms in order (total: the sum quoted).
 * The sandbox books one rate (hotel, stay, room type, board, plan) at a
 * time, so every group's key must name the same one. Returns the number of
 * keys, or -1 having answered. */
static int b_keys(trv_req *req, trv_resp *resp, const json_t *rooms, sbx_hquote *keys,
                  sbx_hquote *all)
{
    const json_t *room;
    size_t k;
    int n = 0;
    if (!json_is_array(rooms) || json_array_size(rooms) < 1
        || json_array_size(rooms) > SBX_MAX_HROOMS) {
        sbx_invalid(req, resp, "rooms", "is required: 1 to 8 entries, one per rateKey");
        return -1;
    }
    json_array_foreach(rooms, k, room) {
        sbx_hquote *q = &keys[n];
        const char *field = apr_psprintf(req->pool, "rooms[%d].rateKey", (int)k);
        if (b_key(req, resp, trv_json_str(room, "rateKey"), field, q) != 0) {
            return -1;
        }
        if (n == 0) {
            *all = *q;
            all->n_rooms = 0;
            all->total = 0;
        }
        else if (q->hotel != all->hotel || q->room != all->room || q->board != all->board
                 || q->plan != all->plan || q->checkin != all->checkin
                 || q->nights != all->nights || strcmp(q->currency, all->currency) != 0) {
            sbx_invalid(req, resp, field, "every rateKey must be of the same hotel, stay, "
                        "room and board (a sandbox limit)");
            return -1;
        }
        if (all->n_rooms + q->n_rooms > SBX_MAX_HROOMS) {
            sbx_invalid(req, resp, "rooms", "1 to 8 rooms in all");
            return -1;
        }
        memcpy(all->occ + all->n_rooms, q->occ, sizeof(sbx_occ) * (size_t)q->n_rooms);
        all->n_rooms += q->n_rooms;
        all->total += q->total;
        all->expires = q->expires < all->expires ? q->expires : all->expires;
        n++;
    }
    return n;
}

/* The rate of key re-priced with the current price factor. */
static int b_reprice(trv_req *req, trv_resp *resp, sbx_hquote *q)
{
    apr_hash_t *f;
    sbx_hprice *pr = apr_palloc(req->pool, sizeof(sbx_hprice) * (apr_size_t)q->n_rooms);
    if (sbx_hfactors(req, resp, B, &f) != 0) {
        return -1;
    }
    q->factor_permille = sbx_hfactor_of(f, sbx_hotel_sid(req->pool, B, q->hotel));
    q->total = sbx_hquote_price(SBX_HOTELS(req), SBX(req)->world, q, sbx_now(), pr);
    return 0;
}

/* Every rateKey of rooms[] at today's price, each under a new rateKey:
 * Hotelbeds states no "changed" flag, the client compares each net with
 * what availability said. */
static void checkrates(trv_req *req, trv_resp *resp)
{
    const json_t *b;
    sbx_hquote keys[SBX_MAX_HROOMS], all;
    const sbx_hotel *x;
    json_t *rates;
    apr_int64_t total = 0;
    int n, k;
    if (!sbx_need_hotels(req, resp) || !(b = sbx_body(req, resp))) {
        return;
    }
    if ((n = b_keys(req, resp, json_object_get(b, "rooms"), keys, &all)) < 0) {
        return;
    }
    rates = json_array();
    for (k = 0; k < n; k++) {
        if (b_reprice(req, resp, &keys[k]) != 0) {
            json_decref(rates);
            return;
        }
        keys[k].expires = sbx_now() + B_RATE_TTL;
        total += keys[k].total;
        json_array_append_new(rates, b_rate_tree(req, &keys[k],
                                                 sbx_hquote_encode(req->pool, &keys[k], "br",
                                                                   SBX(req)->set->key_hb)));
    }
    x = &SBX_HOTELS(req)->hotels[all.hotel];
    sbx_send(req, resp, 200, json_pack(
        "{s:{s:s,s:s,s:I,s:s,s:s,s:[{s:s,s:s,s:o}],s:s,s:s,s:b,s:{s:b,s:b}}}", "hotel",
        "checkIn", sbx_day_format(req->pool, all.checkin),
        "checkOut", sbx_day_format(req->pool, all.checkin + all.nights),
        "code", (json_int_t)apr_atoi64(sbx_hotel_sid(req->pool, B, all.hotel)), "name", x->name,
        "categoryCode", apr_psprintf(req->pool, "%dEST", x->stars),
        "rooms", "code", sbx_room_type_get(all.room)->code, "name",
        sbx_room_type_get(all.room)->name, "rates", rates,
        "totalNet", amt(req, total, all.currency), "currency", all.currency,
        "paymentDataRequired", 0, "modificationPolicies", "cancellation", 1, "modification", 0));
}

/* ---- bookings ---- */

static const char *b_status(const char *s)
{
    /* Hotelbeds' statuses: a booking the hotel has yet to confirm is
     * PRECONFIRMED. */
    return strcmp(s, "pending") == 0 ? "PRECONFIRMED"
         : strcmp(s, "cancelled") == 0 ? "CANCELLED" : "CONFIRMED";
}

/* Hotelbeds' booking: the booking-level totals, the hotel with its rooms
 * (each room's rate with its policies and taxes) and, once cancelled, the
 * cancellation reference and the hotel's cancellationAmount. A simulated
 * cancellation (fee >= 0) renders the booking as cancelling it now would
 * leave it, with nothing stored. */
static json_t *b_booking_as(trv_req *req, const trv_rows *row, const json_t *doc,
                            apr_int64_t simulated_fee)
{
    const char *cur = trv_json_str(doc, "currency");
    const char *status = simulated_fee >= 0 ? "CANCELLED"
                                            : b_status(trv_rows_get(row, 0, "status"));
    const char *created = trv_rows_get(row, 0, "created_at");
    const json_t *r, *canc = NULL;
    json_t *rooms = json_array(), *hotel, *out, *room;
    size_t k;
    if (trv_rows_get(row, 0, "cancellation")) {
        canc = trv_json_parse(req->pool, trv_rows_get(row, 0, "cancellation"),
                              strlen(trv_rows_get(row, 0, "cancellation")), NULL);
    }
    json_array_foreach(json_object_get(doc, "rooms"), k, r) {
        json_t *paxes = json_array(), *pens = json_array(), *taxes = json_array();
        const json_t *g, *pen;
        size_t i;
        apr_int64_t due = json_integer_value(json_object_get(r, "due_at_property"));
        json_array_foreach(json_object_get(r, "guests"), i, g) {
            json_array_append_new(paxes, json_pack("{s:i,s:s,s:s,s:s}", "roomId", (int)k + 1,
                                                   "type", "AD", "name",
                                                   trv_json_str(g, "first_name"), "surname",
                                                   trv_json_str(g, "last_name")));
        }
        json_array_foreach(json_object_get(r, "penalties"), i, pen) {
            json_array_append_new(pens, json_pack("{s:s,s:s}", "amount",
                amt(req, json_integer_value(json_object_get(pen, "amount")), cur), "from",
                sbx_instant(req->pool, json_integer_value(json_object_get(pen, "from")))));
        }
        if (due) {
            json_array_append_new(taxes, json_pack("{s:b,s:s,s:s,s:s}", "included", 0,
                "amount", amt(req, due, cur), "currency", cur, "type", "TAXESANDFEES"));
        }
        json_array_append_new(rooms, room = json_pack(
            "{s:s,s:i,s:s,s:s,s:s?,s:o,s:[{s:s,s:s,s:s,s:b,s:s,s:s,s:o,s:{s:b,s:o},s:i,s:O,"
            "s:i,s:s}]}",
            "status", status, "id", (int)k + 1, "code", trv_json_str(doc, "room_code"),
            "name", trv_json_str(doc, "room_name"),
            "supplierReference", strcmp(status, "PRECONFIRMED") == 0 ? NULL
                : trv_json_str(doc, "hotel_confirmation_code"),
            "paxes", paxes, "rates",
            "rateClass", strcmp(trv_json_str(doc, "plan"), "NRF") == 0 ? "NRF" : "NOR",
            "net", amt(req, json_integer_value(json_object_get(r, "total")), cur),
            "paymentType", "AT_WEB", "packaging", 0,
            "boardCode", trv_json_str(doc, "board"), "boardName", trv_json_str(doc, "board_name"),
            "cancellationPolicies", pens, "taxes", "allIncluded", due == 0, "taxes", taxes,
            "rooms", 1, "adults", json_object_get(r, "adults"),
            "children", (int)json_array_size(json_object_get(r, "child_ages")),
            "rateComments", B_RATE_COMMENTS));
        if (b_mandatory((int)json_integer_value(json_object_get(doc, "hotel")))) {
            b_set_selling(req, json_array_get(json_object_get(room, "rates"), 0),
                          b_selling(json_integer_value(json_object_get(r, "total"))), cur);
        }
    }
    hotel = json_pack("{s:s,s:s,s:I,s:s,s:o,s:s,s:s,s:{s:s,s:s}}",
        "checkIn", trv_json_str(doc, "checkin"), "checkOut", trv_json_str(doc, "checkout"),
        "code", (json_int_t)apr_atoi64(trv_json_str(doc, "supplier_hotel_id")),
        "name", trv_json_str(doc, "hotel_name"), "rooms", rooms,
        "totalNet", amt(req, json_integer_value(json_object_get(doc, "total")), cur),
        "currency", cur, "supplier", "name", "SANDBOX HOTELS S.L.", "vatNumber", "ESB00000000");
    if (simulated_fee >= 0 || canc) {
        json_object_set_new(hotel, "cancellationAmount",
            json_string(amt(req, simulated_fee >= 0 ? simulated_fee
                                 : json_integer_value(json_object_get(canc, "fee")), cur)));
    }
    out = json_pack("{s:s,s:s?,s:s,s:s,s:{s:b,s:b},s:s,s:{s:s,s:s},s:o,s:{s:s,s:s,s:s},"
                    "s:s,s:s,s:s}",
        "reference", trv_rows_get(row, 0, "id"),
        "clientReference", trv_rows_get(row, 0, "client_reference"),
        /* A date: Hotelbeds writes "2024-02-25". */
        "creationDate", apr_pstrndup(req->pool, created ? created : "", 10), "status", status,
        "modificationPolicies", "cancellation", strcmp(status, "CANCELLED") != 0,
        "modification", 0, "creationUser", SBX(req)->set->key_hb,
        "holder", "name", trv_json_str(json_object_get(doc, "holder"), "first_name"),
        "surname", trv_json_str(json_object_get(doc, "holder"), "last_name"),
        "hotel", hotel,
        "invoiceCompany", "code", "SBX", "company", "SANDBOX HOTELS S.L.",
        "registrationNumber", "ESB00000000",
        "totalNet", amt(req, json_integer_value(json_object_get(doc, "total")), cur),
        "pendingAmount", amt(req, 0, cur), "currency", cur);
    if (trv_json_str(doc, "remark")) {
        json_object_set_new(out, "remark", json_string(trv_json_str(doc, "remark")));
    }
    if (strcmp(status, "CANCELLED") == 0) {
        /* Hotelbeds names a cancellation by a reference of its own. */
        json_object_set_new(out, "cancellationReference",
                            json_string(apr_pstrcat(req->pool, "C-", trv_rows_get(row, 0, "id"),
                                                    NULL)));
    }
    return json_pack("{s:o}", "booking", out);
}

static json_t *b_booking(trv_req *req, const trv_rows *row, const json_t *doc)
{
    return b_booking_as(req, row, doc, -1);
}

static json_t *b_simulated(trv_req *req, const trv_rows *row, const json_t *doc)
{
    apr_int64_t fee = 0, refund = 0;
    if (strcmp(trv_rows_get(row, 0, "status"), "confirmed") != 0) {
        return b_booking(req, row, doc); /* as it stands: nothing to simulate */
    }
    sbx_hdoc_cancel_terms(doc, sbx_now(), &fee, &refund);
    return b_booking_as(req, row, doc, fee);
}

static void book(trv_req *req, trv_resp *resp)
{
    const json_t *b, *holder, *rooms, *room, *pax;
    const char *ref;
    sbx_hquote q, keys[SBX_MAX_HROOMS];
    sbx_hprice *pr;
    sbx_htrigger trig;
    int n_keys, first;
    sbx_hbooking_new nb;
    json_t *rooms_guests, *doc, *h, *keys_made;
    const json_t *v;
    apr_int64_t quoted, tolerance_bp = 0;
    size_t i, k;
    char code[9];

    if (!sbx_need_hotels(req, resp) || !(b = sbx_body(req, resp))) {
        return;
    }
    holder = json_object_get(b, "holder");
    if (!trv_json_str(holder, "name") || !trv_json_str(holder, "surname")) {
        sbx_invalid(req, resp, "holder", "name and surname are required");
        return;
    }
    ref = trv_json_str(b, "clientReference");
    if (!ref || !trv_printable(ref, 1, 64)) {
        sbx_invalid(req, resp, "clientReference", "is required: 1 to 64 printable characters");
        return;
    }
    rooms = json_object_get(b, "rooms");
    if ((n_keys = b_keys(req, resp, rooms, keys, &q)) < 0) {
        return;
    }
    memset(&trig, 0, sizeof(trig));
    sbx_htrigger_reference(&trig, ref);
    sbx_htrigger_guest(&trig, trv_json_str(holder, "surname"));
    rooms_guests = trv_json_bind(req->pool, json_array());
    for (i = 0; i < (size_t)q.n_rooms; i++) {
        json_array_append_new(rooms_guests, json_array());
    }
    /* One entry per rateKey; its paxes name the rooms of that key's group
     * (roomId 1..rooms), which follow the previous groups' rooms. */
    first = 0;
    json_array_foreach(rooms, k, room) {
        json_array_foreach(json_object_get(room, "paxes"), i, pax) {
            json_int_t rid = json_integer_value(json_object_get(pax, "roomId"));
            if (rid < 1 || rid > keys[k].n_rooms || !trv_json_str(pax, "name")
                || !trv_json_str(pax, "surname")) {
                sbx_invalid(req, resp, apr_psprintf(req->pool, "rooms[%d].paxes[%d]", (int)k,
                                                    (int)i),
                            "roomId (1..rooms of its rateKey), name and surname are required");
                return;
            }
            sbx_htrigger_guest(&trig, trv_json_str(pax, "surname"));
            json_array_append_new(json_array_get(rooms_guests, (size_t)(first + rid - 1)),
                                  json_pack("{s:s,s:s}", "first_name", trv_json_str(pax, "name"),
                                            "last_name", trv_json_str(pax, "surname")));
        }
        first += keys[k].n_rooms;
    }
    for (i = 0; i < (size_t)q.n_rooms; i++) {
        if (json_array_size(json_array_get(rooms_guests, i)) == 0) {
            sbx_invalid(req, resp, "rooms", apr_psprintf(req->pool, "room %d has no pax",
                                                         (int)i + 1));
            return;
        }
    }
    if ((v = json_object_get(b, "remark")) && (!json_is_string(v)
                                                || !trv_printable(json_string_value(v), 0, 2000))) {
        sbx_invalid(req, resp, "remark", "is free text of at most 2000 characters");
        return;
    }
    /* tolerance: the percentage by which the price may have risen since
     * the rateKey was quoted and still be booked ("2.00" is 2 %). */
    if ((v = json_object_get(b, "tolerance"))
        && (trv_money_minor_of(v, "EUR", &tolerance_bp) != 0 || tolerance_bp < 0
            || tolerance_bp > 10000)) {
        sbx_invalid(req, resp, "tolerance", "is a percentage from 0 to 100, as 2.00");
        return;
    }
    quoted = q.total;
    if (b_reprice(req, resp, &q) != 0) {
        return;
    }
    if (q.total != quoted
        && !(q.total > quoted && q.total * 10000 <= quoted * (10000 + tolerance_bp))) {
        sbx_error(req, resp, 409, "PRICE_CHANGED", "The price changed from %s to %s; "
                  "check rates again", amt(req, quoted, q.currency),
                  amt(req, q.total, q.currency));
        return;
    }
    pr = apr_palloc(req->pool, sizeof(sbx_hprice) * (apr_size_t)q.n_rooms);
    sbx_hquote_price(SBX_HOTELS(req), SBX(req)->world, &q, sbx_now(), pr);
    h = json_pack("{s:s,s:s}", "first_name", trv_json_str(holder, "name"), "last_name",
                  trv_json_str(holder, "surname"));
    doc = trv_json_bind(req->pool, sbx_hbooking_doc(req->pool, SBX_HOTELS(req), &q, pr,
                                                    rooms_guests, h));
    json_decref(h);
    sbx_random_chars(code, 8, "0123456789");
    json_object_set_new(doc, "hotel_confirmation_code", json_string(code));
    if (trv_json_str(b, "remark")) {
        json_object_set_new(doc, "remark", json_string(trv_json_str(b, "remark")));
    }
    /* For the record (tests read it): the occupancy group of each rateKey
     * the booking was made with, in the request's order. */
    keys_made = json_array();
    for (k = 0; k < (size_t)n_keys; k++) {
        json_array_append_new(keys_made, json_pack("{s:i,s:i,s:i}", "rooms", keys[k].n_rooms,
                                                   "adults", keys[k].occ[0].adults,
                                                   "children", keys[k].occ[0].n_children));
    }
    json_object_set_new(doc, "rate_keys", keys_made);
    memset(&nb, 0, sizeof(nb));
    sbx_random_chars(code, 7, "0123456789");
    nb.id = apr_pstrcat(req->pool, "1-", code, NULL);
    nb.supplier = B;
    nb.ignores_idempotency_key = 1; /* Hotelbeds documents none */
    nb.client_reference = ref;
    nb.trigger = &trig;
    nb.currency = q.currency;
    nb.total = json_integer_value(json_object_get(doc, "total"));
    if (trig.tightened) {
        sbx_hdoc_tighten(doc, sbx_now());
    }
    nb.doc = doc;
    nb.confirm_in = trig.async ? SBX(req)->set->async_ticketing : 0;
    sbx_hbook_run(req, resp, &nb, "BOOKING_REFUSED", "DUPLICATE_CLIENT_REFERENCE", 200,
                  b_booking);
}

static void get_booking(trv_req *req, trv_resp *resp)
{
    sbx_hread_run(req, resp, B, apr_table_get(req->params, "ref"), b_booking);
}

static void list_bookings(trv_req *req, trv_resp *resp)
{
    const char *ref = apr_table_get(req->query, "clientReference");
    const char *start = apr_table_get(req->query, "start"), *end = apr_table_get(req->query, "end");
    const char *type = apr_table_get(req->query, "filterType");
    const char *from_s = apr_table_get(req->query, "from"), *to_s = apr_table_get(req->query, "to");
    int from = from_s ? atoi(from_s) : 1, to = to_s ? atoi(to_s) : 25, n = 0;
    trv_dbc *c;
    trv_rows *rows;
    json_t *list;
    int i;
    if (!ref || !*ref) {
        /* Hotelbeds lists by dates too; the sandbox only by reference. */
        sbx_invalid(req, resp, "clientReference", "is required");
        return;
    }
    /* Hotelbeds' list: start and end days (yyyy-MM-dd) of the filterType
     * (CREATION or CHECKIN), and a 1-based range from..to. */
    if ((start && sbx_day_of(start) < 0) || (end && sbx_day_of(end) < 0)
        || (start && end && sbx_day_of(end) < sbx_day_of(start))) {
        sbx_invalid(req, resp, "start", "start and end are days yyyy-MM-dd, start first");
        return;
    }
    if (type && strcmp(type, "CREATION") != 0 && strcmp(type, "CHECKIN") != 0) {
        sbx_invalid(req, resp, "filterType", "must be CREATION or CHECKIN");
        return;
    }
    if (from < 1 || to < from || to - from >= 1000) {
        sbx_invalid(req, resp, "from", "from and to are 1-based, at most 1000 apart");
        return;
    }
    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS) {
        sbx_db_fail(req, resp, NULL, 1727, "finding hotel bookings");
        return;
    }
    if (sbx_hbooking_by_reference(c, req->pool, B, ref, &rows) != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 1728, "finding hotel bookings");
        return;
    }
    trv_db_close(req->env->db, c);
    list = json_array();
    for (i = from - 1; i < rows->n && i < to; i++, n++) {
        json_array_append_new(list, json_pack("{s:s,s:s}", "reference",
                                              trv_rows_get(rows, i, "id"), "clientReference",
                                              ref));
    }
    sbx_send(req, resp, 200, json_pack("{s:{s:i,s:i,s:i,s:o}}", "bookings", "from", from,
                                       "to", n ? from + n - 1 : from, "total", rows->n,
                                       "bookings", list));
}

static void cancel_booking(trv_req *req, trv_resp *resp)
{
    const char *flag = apr_table_get(req->query, "cancellationFlag");
    if (flag && strcmp(flag, "SIMULATION") == 0) {
        /* What cancelling would cost now; the booking stays as it is. */
        sbx_hread_run(req, resp, B, apr_table_get(req->params, "ref"), b_simulated);
        return;
    }
    if (flag && strcmp(flag, "CANCELLATION") != 0) {
        sbx_invalid(req, resp, "cancellationFlag", "must be CANCELLATION or SIMULATION");
        return;
    }
    /* Hotelbeds cancels "a booking previously confirmed" and states no
     * answer for one cancelled already: refused (409); the caller reads the
     * booking (CANCELLED, with its cancellationAmount). */
    sbx_hcancel_run(req, resp, B, apr_table_get(req->params, "ref"), "CANCELLATION_FAILED",
                    "BOOKING_ALREADY_CANCELLED", b_booking);
}

const trv_route sbx_hotel_b_routes[] = {
    {"GET", "/hotels/b/hotel-content-api/1.0/locations/destinations", destinations,
     TRV_ROUTE_OWN_QUERY},
    {"GET", "/hotels/b/hotel-content-api/1.0/hotels", content_hotels, TRV_ROUTE_OWN_QUERY},
    {"POST", "/hotels/b/hotel-api/1.0/hotels", availability, TRV_ROUTE_JSON_ARENA},
    {"POST", "/hotels/b/hotel-api/1.0/checkrates", checkrates, 0},
    {"POST", "/hotels/b/hotel-api/1.0/bookings", book, 0},
    {"GET", "/hotels/b/hotel-api/1.0/bookings", list_bookings, TRV_ROUTE_OWN_QUERY},
    {"GET", "/hotels/b/hotel-api/1.0/bookings/{ref}", get_booking, 0},
    {"DELETE", "/hotels/b/hotel-api/1.0/bookings/{ref}", cancel_booking, TRV_ROUTE_OWN_QUERY},
    {NULL, NULL, NULL, 0},
};
