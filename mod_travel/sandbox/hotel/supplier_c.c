/* Hotel SUPPLIER_C, modelled on Expedia Rapid v3, under /hotels/c/v3 with
 * Authorization: EAN APIKey=<key>,Signature=<SHA-512 hex of key + secret
 * + timestamp>,timestamp=<Unix seconds>:
 *
 *   GET    /properties/content?country_code=&city= | latitude=&longitude=
 *          &radius_km= | property_id=...  [&limit=&token=]   content
 *   GET    /properties/availability?checkin=&checkout=&currency=
 *          &occupancy=2-5,7&occupancy=1&property_id=...&rate_plan_count=
 *   GET    /properties/{property_id}/rooms/{room_id}/rates/{rate_id}?token=
 *                                                           price check
 *   POST   /itineraries?token=                              book
 *   GET    /itineraries?affiliate_reference_id=             find by reference
 *   GET    /itineraries/{itinerary_id}                      retrieve
 *   GET    /itineraries/{itinerary_id}/cancellation-preview fee and refund now
 *   GET    /itineraries/{itinerary_id}/restrictions         stored restrictions
 *   DELETE /itineraries/{itinerary_id}                      cancel every room
 *
 * Bare JSON; amounts are {"value": "123.45", "currency": "EUR"}. SUPPLIER_C
 * is the merchant of record: it charges the traveller's card given at
 * book (payments type customer_card; 4000000000000002 is declined with 402
 * card_declined), in the request currency; mandatory
 * taxes and fees (fees.mandatory_tax) are paid at the property. Content
 * pages carry a Link header (rel="next") while more remain. */
#include "hotel.h"
#include "sandbox/money.h"
#include "sandbox/token.h"
#include "core/validate.h"

#include <apr_escape.h>
#include <apr_strings.h>
#include <stdlib.h>
#include <string.h>

#define C 2
#define C_MAX_PROPERTIES 250
#define C_RATE_TTL (30 * 60)
#define C_CONTENT_LIMIT 250

static json_t *money(trv_req *req, apr_int64_t v, const char *cur)
{
    return json_pack("{s:s,s:s}", "value", sbx_amount(req->pool, v, cur), "currency", cur);
}

/* Both currencies are the request's in the sandbox. */
static json_t *billable(trv_req *req, apr_int64_t v, const char *cur)
{
    return json_pack("{s:o,s:o}", "billable_currency", money(req, v, cur),
                     "request_currency", money(req, v, cur));
}

static json_t *c_property(trv_req *req, int i)
{
    const sbx_hotels *h = SBX_HOTELS(req);
    const sbx_hotel *x = &h->hotels[i];
    const sbx_hcity *c = &h->cities[x->city];
    json_t *rooms = json_object();
    double lat, lon;
    int r;
    sbx_hotel_position(x, C, &lat, &lon);
    for (r = 0; r < SBX_ROOM_TYPES; r++) {
        if (x->rooms & (1u << r)) {
            const sbx_room_type *t = sbx_room_type_get(r);
            json_object_set_new(rooms, t->code, json_pack("{s:s,s:s,s:{s:{s:i}}}", "id",
                                                          t->code, "name", t->name,
                                                          "occupancy", "max_allowed", "total",
                                                          t->max_occupancy));
        }
    }
    /* No GIATA-like code: Rapid's content does not carry one, so an
     * aggregator maps these by name, coordinates and address. */
    return json_pack("{s:s,s:s,s:{s:s,s:s,s:s,s:s},s:{s:{s:s},s:{s:s,s:i}},"
                     "s:{s:{s:f,s:f}},s:{s:s},s:o,s:{s:s},s:{s:s}}",
                     "property_id", sbx_hotel_sid(req->pool, C, i), "name", x->name,
                     "address", "line_1", apr_psprintf(req->pool, "%d %s", x->street_no,
                                                       x->street),
                     "city", c->name, "postal_code", x->postal_code,
                     "country_code", c->country_code,
                     "ratings", "property", "rating", apr_psprintf(req->pool, "%d.0", x->stars),
                     "guest", "overall", apr_psprintf(req->pool, "%d.%d", x->rating10 / 10,
                                                      x->rating10 % 10),
                     "count", x->reviews,
                     "location", "coordinates", "latitude", lat, "longitude", lon,
                     "category", "name", "Hotel", "rooms", rooms,
                     "checkin", "begin_time", "3:00 PM", "checkout", "time", "11:00 AM");
}

typedef struct collect {
    apr_array_header_t *vals;
} collect;

static int collect_one(void *baton, const char *key, const char *value)
{
    (void)key;
    *(const char **)apr_array_push(((collect *)baton)->vals) = value;
    return 1;
}

static apr_array_header_t *all_of(trv_req *req, const char *name)
{
    collect c;
    c.vals = apr_array_make(req->pool, 4, sizeof(const char *));
    apr_table_do(collect_one, &c, req->query, name, NULL);
    return c.vals;
}

/* The offset a content page token carries: 0..max (the catalogue's size),
 * else -1. Signed by the sandbox, but read as if it were not: an offset
 * outside the hotels indexed outside them, and one near INT_MAX overflowed
 * offset + limit (found by fuzz_sandbox_hotel with tokens it signed). */
static int page_offset(trv_req *req, const char *tok, int max, int *offset)
{
    char *pl = sbx_token_open(req->pool, SBX(req)->set->key_hc, tok), *end;
    long v;
    if (!pl || strncmp(pl, "content|", 8) != 0 || pl[8] < '0' || pl[8] > '9') {
        return -1;
    }
    v = strtol(pl + 8, &end, 10);
    if (*end || v > max) {
        return -1;
    }
    *offset = (int)v;
    return 0;
}

static void content(trv_req *req, trv_resp *resp)
{
    const sbx_hotels *h;
    apr_array_header_t *pids = all_of(req, "property_id");
    const char *cc = apr_table_get(req->query, "country_code");
    const char *city = apr_table_get(req->query, "city");
    const char *lat_s = apr_table_get(req->query, "latitude");
    const char *lon_s = apr_table_get(req->query, "longitude");
    const char *tok = apr_table_get(req->query, "token");
    const char *lim_s = apr_table_get(req->query, "limit");
    int *idx, n = 0, i, limit = lim_s ? atoi(lim_s) : 100, offset = 0;
    json_t *out;

    if (!sbx_need_hotels(req, resp)) {
        return;
    }
    h = SBX_HOTELS(req);
    if (limit < 1 || limit > C_CONTENT_LIMIT) {
        sbx_invalid(req, resp, "limit", "must be 1 to 250");
        return;
    }
    if (tok && page_offset(req, tok, h->n_hotels, &offset) != 0) {
        sbx_invalid(req, resp, "token", "is not a page token of this API");
        return;
    }
    idx = apr_palloc(req->pool, sizeof(int) * (apr_size_t)h->n_hotels);
    if (pids->nelts) {
        for (i = 0; i < pids->nelts && n < C_MAX_PROPERTIES; i++) {
            int k = sbx_hotel_by_sid(h, C, APR_ARRAY_IDX(pids, i, const char *));
            if (k >= 0) {
                idx[n++] = k;
            }
        }
    }
    else if (lat_s && lon_s) {
        const char *r_s = apr_table_get(req->query, "radius_km");
        double radius = r_s ? atof(r_s) : 5;
        if (radius <= 0 || radius > 50) {
            sbx_invalid(req, resp, "radius_km", "must be more than 0 and at most 50");
            return;
        }
        n = sbx_hotels_near(h, C, atof(lat_s), atof(lon_s), radius * 1000.0, idx, h->n_hotels);
    }
    else if (cc && city) {
        int ci = sbx_hcity_find(h, city, cc), k;
        for (k = 0; ci >= 0 && k < h->cities[ci].n; k++) {
            if (h->hotels[h->cities[ci].first + k].suppliers & (1u << C)) {
                idx[n++] = h->cities[ci].first + k;
            }
        }
    }
    else {
        sbx_invalid(req, resp, "property_id", "give property_id, country_code and city, or "
                    "latitude, longitude and radius_km");
        return;
    }
    out = json_object();
    for (i = offset; i < n && i < offset + limit; i++) {
        json_object_set_new(out, sbx_hotel_sid(req->pool, C, idx[i]), c_property(req, idx[i]));
    }
    if (offset + limit < n) {
        /* Rapid pages with a Link header; its token carries the place. */
        const char *next = sbx_token_seal(req->pool, SBX(req)->set->key_hc,
                                          apr_psprintf(req->pool, "content|%d", offset + limit));
        char *args = apr_pstrdup(req->pool, "");
        const apr_array_header_t *arr = apr_table_elts(req->query);
        const apr_table_entry_t *e = (const apr_table_entry_t *)arr->elts;
        for (i = 0; i < arr->nelts; i++) {
            if (strcmp(e[i].key, "token") != 0) {
                args = apr_pstrcat(req->pool, args, e[i].key, "=",
                                   apr_pescape_urlencoded(req->pool, e[i].val), "&", NULL);
            }
        }
        apr_table_setn(resp->headers, "Link", apr_psprintf(req->pool,
                       "</hotels/c/v3/properties/content?%stoken=%s>; rel=\"next\"", args,
                       next));
    }
    sbx_send(req, resp, 200, out);
}

/* ---- availability ---- */

static json_t *c_penalties(trv_req *req, const sbx_hprice *pr, int n_rooms, const char *cur,
                           apr_int64_t end)
{
    json_t *out = json_array();
    int i, k;
    for (i = 0; i < pr[0].n_penalties; i++) {
        apr_int64_t sum = 0;
        for (k = 0; k < n_rooms; k++) {
            sum += pr[k].penalties[i].amount;
        }
        json_array_append_new(out, json_pack("{s:s,s:s,s:s,s:s}", "currency", cur,
            "start", sbx_instant(req->pool, pr[0].penalties[i].from),
            "end", sbx_instant(req->pool, i + 1 < pr[0].n_penalties
                                          ? pr[0].penalties[i + 1].from : end),
            "amount", sbx_amount(req->pool, sum, cur)));
    }
    return out;
}

/* Rapid's pricing of one room: nightly base rates (taxes included in the
 * sandbox), the promotion as a stay adjustment, totals and the fees the
 * property collects. */
static json_t *c_pricing(trv_req *req, const sbx_hprice *r, int nights, const char *cur)
{
    json_t *nightly = json_array(), *stay = json_array(), *totals;
    int n;
    for (n = 0; n < nights; n++) {
        json_array_append_new(nightly, json_pack("[{s:s,s:s,s:s}]", "type", "base_rate",
                                                 "value", sbx_amount(req->pool, r->nightly[n],
                                                                     cur), "currency", cur));
    }
    if (r->discount) {
        json_array_append_new(stay, json_pack("{s:s,s:s,s:s}", "type", "promotion", "value",
                                              sbx_amount(req->pool, -r->discount, cur),
                                              "currency", cur));
    }
    totals = json_pack("{s:o,s:o}", "inclusive", billable(req, r->total, cur),
                       "exclusive", billable(req, r->total - r->vat, cur));
    if (r->discount) {
        json_object_set_new(totals, "strikethrough", billable(req, r->gross, cur));
    }
    if (r->due_at_property) {
        json_object_set_new(totals, "property_fees", billable(req, r->due_at_property, cur));
    }
    return json_pack("{s:o,s:o,s:o,s:o}", "nightly", nightly, "stay", stay, "totals", totals,
                     "fees", r->due_at_property
                         ? json_pack("{s:o}", "mandatory_tax",
                                     billable(req, r->due_at_property, cur))
                         : json_object());
}

static const char *c_rate_id(trv_req *req, const sbx_hquote *q)
{
    return apr_psprintf(req->pool, "%s-%s", q->plan ? "NRF" : "RFN",
                        sbx_board_get(q->board)->code);
}

/* Per occupancy (rooms of one occupancy price alike): Rapid's pricing,
 * and, a sandbox extension, that room's own cancel_penalties (the rate's
 * cancel_penalties cover every room). */
static json_t *c_occupancy_pricing(trv_req *req, const sbx_hquote *q, const sbx_hprice *pr)
{
    json_t *op = json_object();
    apr_int64_t end = sbx_hotel_utc(SBX_HOTELS(req), SBX(req)->world, q->hotel,
                                    (apr_int64_t)(q->checkin + q->nights) * 86400 + 11 * 3600);
    int k;
    for (k = 0; k < q->n_rooms; k++) {
        json_t *one = c_pricing(req, &pr[k], q->nights, q->currency);
        json_object_set_new(one, "cancel_penalties", c_penalties(req, &pr[k], 1, q->currency,
                                                                 end));
        json_object_set_new(op, sbx_occ_format(req->pool, &q->occ[k]), one);
    }
    return op;
}

static json_t *c_rate(trv_req *req, const sbx_hquote *q)
{
    sbx_hprice *pr = apr_palloc(req->pool, sizeof(sbx_hprice) * (apr_size_t)q->n_rooms);
    const sbx_room_type *t = sbx_room_type_get(q->room);
    const char *tok = sbx_hquote_encode(req->pool, q, "cr", SBX(req)->set->key_hc);
    const char *pid = sbx_hotel_sid(req->pool, C, q->hotel);
    apr_int64_t end;
    json_t *amen = json_object();
    sbx_hquote_price(SBX_HOTELS(req), SBX(req)->world, q, sbx_now(), pr);
    end = sbx_hotel_utc(SBX_HOTELS(req), SBX(req)->world, q->hotel,
                        (apr_int64_t)(q->checkin + q->nights) * 86400 + 11 * 3600);
    if (q->board > 0) {
        json_object_set_new(amen, "2192", json_pack("{s:s,s:s}", "id", "2192", "name",
                                                    sbx_board_get(q->board)->name));
    }
    return json_pack("{s:s,s:s,s:i,s:b,s:b,s:s,s:o,s:{s:{s:s,s:s,s:{s:{s:s,s:s}},"
                     "s:s}},s:o,s:[],s:o,s:o}",
        "id", c_rate_id(req, q), "status", "available", "available_rooms", 5,
        "refundable", pr[0].refundable, "member_deal_available",
        pr[0].promo_code && strcmp(pr[0].promo_code, "MEMBERDEAL7") == 0,
        "merchant_of_record", "expedia", "amenities", amen,
        "bed_groups", t->code, "id", t->code, "description", t->bed, "links", "price_check",
        "method", "GET", "href",
        apr_psprintf(req->pool, "/hotels/c/v3/properties/%s/rooms/%s/rates/%s?token=%s", pid,
                     t->code, c_rate_id(req, q), tok),
        "configuration_text", t->bed,
        "cancel_penalties", c_penalties(req, pr, q->n_rooms, q->currency, end),
        "nonrefundable_date_ranges",
        "occupancy_pricing", c_occupancy_pricing(req, q, pr),
        "promotions", pr[0].promo_code
            ? json_pack("{s:{s:s,s:s}}", "deal", "id", pr[0].promo_code, "description",
                        pr[0].promo_name)
            : json_object());
}

static void availability(trv_req *req, trv_resp *resp)
{
    sbx_hotel_set *seen;
    const sbx_hotels *h;
    apr_array_header_t *occs = all_of(req, "occupancy"), *pids = all_of(req, "property_id");
    const char *cur = apr_table_get(req->query, "currency"), *field, *reason;
    const char *rpc = apr_table_get(req->query, "rate_plan_count");
    sbx_hquote q, *found;
    apr_hash_t *factors;
    apr_int64_t now = sbx_now();
    long checkout;
    int i, k, n, max_rates = rpc ? atoi(rpc) : 10;
    json_t *out;

    if (!sbx_need_hotels(req, resp)) {
        return;
    }
    h = SBX_HOTELS(req);
    memset(&q, 0, sizeof(q));
    q.supplier = C;
    q.today = (long)(now / 86400);
    q.checkin = sbx_day_of(apr_table_get(req->query, "checkin"));
    checkout = sbx_day_of(apr_table_get(req->query, "checkout"));
    if (sbx_stay_check(q.checkin, checkout, q.today, &field, &reason) != 0) {
        sbx_invalid(req, resp, field, reason);
        return;
    }
    q.nights = (int)(checkout - q.checkin);
    if (!sbx_currency_known(cur)) {
        sbx_invalid(req, resp, "currency", "must be an ISO 4217 code the sandbox sells in");
        return;
    }
    memcpy(q.currency, cur, 4);
    if (occs->nelts < 1 || occs->nelts > SBX_MAX_HROOMS) {
        sbx_invalid(req, resp, "occupancy", "one per room, 1 to 8: adults[-age,age...]");
        return;
    }
    for (i = 0; i < occs->nelts; i++) {
        reason = "must be adults[-age,age...], e.g. 2-5,7";
        if (sbx_occ_parse(APR_ARRAY_IDX(occs, i, const char *), &q.occ[i]) != 0
            || sbx_occ_check(&q.occ[i], &reason) != 0) {
            sbx_invalid(req, resp, "occupancy", reason);
            return;
        }
    }
    q.n_rooms = occs->nelts;
    if (pids->nelts < 1 || pids->nelts > C_MAX_PROPERTIES) {
        sbx_invalid(req, resp, "property_id", "1 to 250 property ids");
        return;
    }
    if (max_rates < 1 || max_rates > 50) {
        sbx_invalid(req, resp, "rate_plan_count", "must be 1 to 50");
        return;
    }
    if (sbx_hfactors(req, resp, C, &factors) != 0) {
        return;
    }
    q.expires = now + C_RATE_TTL;
    found = apr_palloc(req->pool, sizeof(sbx_hquote) * (apr_size_t)max_rates);
    seen = sbx_hotel_set_make(req->pool, h);
    out = json_array();
    for (i = 0; i < pids->nelts; i++) {
        const char *pid = APR_ARRAY_IDX(pids, i, const char *);
        json_t *rooms = json_object(), *list = json_array(), *rv;
        const char *rk;
        q.hotel = sbx_hotel_by_sid(h, C, pid);
        if (!sbx_hotel_set_add(seen, q.hotel)) {
            json_decref(rooms);
            json_decref(list);
            continue;
        }
        q.factor_permille = sbx_hfactor_of(factors, pid);
        n = sbx_hotel_rates(h, SBX(req)->world, &q, now, found, max_rates);
        for (k = 0; k < n; k++) {
            const sbx_room_type *t = sbx_room_type_get(found[k].room);
            json_t *room = json_object_get(rooms, t->code);
            if (!room) {
                room = json_pack("{s:s,s:s,s:[]}", "id", t->code, "room_name", t->name, "rates");
                json_object_set_new(rooms, t->code, room);
            }
            json_array_append_new(json_object_get(room, "rates"), c_rate(req, &found[k]));
        }
        json_object_foreach(rooms, rk, rv) {
            json_array_append(list, rv);
        }
        json_decref(rooms);
        if (n) {
            json_array_append_new(out, json_pack("{s:s,s:s,s:o,s:i}", "property_id", pid,
                                                 "status", "available", "rooms", list,
                                                 "score", 1000 - h->hotels[q.hotel].rating10));
        }
        else {
            json_decref(list);
        }
    }
    sbx_send(req, resp, 200, out);
}

static int c_token(trv_req *req, trv_resp *resp, const char *kind, sbx_hquote *q)
{
    if (sbx_hquote_decode(req->pool, apr_table_get(req->query, "token"), kind,
                          SBX(req)->set->key_hc, SBX_HOTELS(req), q) != 0) {
        sbx_invalid(req, resp, "token", "is not a token of this API for this link");
        return -1;
    }
    return 0;
}

static void price_check(trv_req *req, trv_resp *resp)
{
    sbx_hquote q;
    apr_hash_t *f;
    sbx_hprice *pr;
    apr_int64_t before;
    const char *status;
    if (!sbx_need_hotels(req, resp) || c_token(req, resp, "cr", &q) != 0) {
        return;
    }
    if (strcmp(apr_table_get(req->params, "property_id"), sbx_hotel_sid(req->pool, C, q.hotel))
        != 0) {
        sbx_error(req, resp, 404, "not_found", "The token is for another property");
        return;
    }
    if (q.expires < sbx_now()) {
        sbx_send(req, resp, 200, json_pack("{s:s}", "status", "sold_out"));
        return;
    }
    if (sbx_hfactors(req, resp, C, &f) != 0) {
        return;
    }
    before = q.total;
    q.factor_permille = sbx_hfactor_of(f, sbx_hotel_sid(req->pool, C, q.hotel));
    pr = apr_palloc(req->pool, sizeof(sbx_hprice) * (apr_size_t)q.n_rooms);
    q.total = sbx_hquote_price(SBX_HOTELS(req), SBX(req)->world, &q, sbx_now(), pr);
    status = q.total == before ? "available" : "price_changed";
    q.expires = sbx_now() + C_RATE_TTL;
    sbx_send(req, resp, 200, json_pack(
        "{s:s,s:o,s:{s:o},s:{s:{s:s,s:s}}}", "status", status,
        "occupancy_pricing", c_occupancy_pricing(req, &q, pr),
        "totals", "inclusive", billable(req, q.total, q.currency),
        "links", "book", "method", "POST", "href",
        apr_psprintf(req->pool, "/hotels/c/v3/itineraries?token=%s",
                     sbx_hquote_encode(req->pool, &q, "cb", SBX(req)->set->key_hc))));
}

/* ---- itineraries ---- */

static const char *c_room_status(const char *s)
{
    return strcmp(s, "pending") == 0 ? "pending" : strcmp(s, "cancelled") == 0 ? "canceled"
                                                                                : "booked";
}

static json_t *c_itinerary(trv_req *req, const trv_rows *row, const json_t *doc)
{
    const char *cur = trv_json_str(doc, "currency"), *id = trv_rows_get(row, 0, "id");
    const char *status = c_room_status(trv_rows_get(row, 0, "status"));
    apr_int64_t end_t = apr_atoi64(trv_json_str(doc, "checkout_utc")
                                   ? trv_json_str(doc, "checkout_utc") : "0");
    const json_t *r;
    json_t *rooms = json_array(), *out;
    size_t k;
    json_array_foreach(json_object_get(doc, "rooms"), k, r) {
        const json_t *g = json_array_get(json_object_get(r, "guests"), 0), *pen;
        json_t *pens = json_array();
        const json_t *nv;
        sbx_hprice one;
        size_t i, np = json_array_size(json_object_get(r, "penalties"));
        memset(&one, 0, sizeof(one));
        json_array_foreach(json_object_get(r, "penalties"), i, pen) {
            const json_t *next = json_array_get(json_object_get(r, "penalties"), i + 1);
            json_array_append_new(pens, json_pack("{s:s,s:s,s:s,s:s}", "currency", cur,
                "start", sbx_instant(req->pool, json_integer_value(json_object_get(pen, "from"))),
                "end", sbx_instant(req->pool, i + 1 < np
                                                  ? json_integer_value(json_object_get(next, "from"))
                                                  : end_t),
                "amount", sbx_amount(req->pool, json_integer_value(json_object_get(pen, "amount")),
                                     cur)));
        }
        json_array_foreach(json_object_get(r, "nightly"), i, nv) {
            if (i < SBX_MAX_NIGHTS) {
                one.nightly[i] = json_integer_value(nv);
            }
        }
        one.gross = json_integer_value(json_object_get(r, "gross"));
        one.discount = json_integer_value(json_object_get(r, "discount"));
        one.total = json_integer_value(json_object_get(r, "total"));
        one.vat = json_integer_value(json_object_get(r, "vat"));
        one.due_at_property = json_integer_value(json_object_get(r, "due_at_property"));
        json_array_append_new(rooms, json_pack(
            "{s:s,s:{s:s,s:s?},s:s,s:s,s:s,s:O,s:O,s:s?,s:s?,s:s,s:{s:s,s:s,s:b,s:o,s:o,s:O},"
            "s:{s:{s:s,s:s}}}",
            "id", apr_psprintf(req->pool, "%s-%d", id, (int)k + 1),
            "confirmation_id", "expedia", apr_psprintf(req->pool, "%s%d", id + 3, (int)k + 1),
            "property", strcmp(status, "pending") == 0 ? NULL
                : trv_json_str(doc, "hotel_confirmation_code"),
            "bed_group_id", trv_json_str(doc, "room_code"),
            "checkin", trv_json_str(doc, "checkin"), "checkout", trv_json_str(doc, "checkout"),
            "number_of_adults", json_object_get(r, "adults"),
            "child_ages", json_object_get(r, "child_ages"),
            "given_name", trv_json_str(g, "first_name"), "family_name", trv_json_str(g, "last_name"),
            "status", status,
            "rate", "id", apr_psprintf(req->pool, "%s-%s", trv_json_str(doc, "plan"),
                                       trv_json_str(doc, "board")),
            "merchant_of_record", "expedia",
            "refundable", json_is_true(json_object_get(r, "refundable")),
            "cancel_penalties", pens,
            "pricing", c_pricing(req, &one, (int)json_integer_value(json_object_get(doc, "nights")),
                                 cur),
            "promotions", json_object_get(r, "promotion"),
            "links", "cancel", "method", "DELETE", "href",
            apr_psprintf(req->pool, "/hotels/c/v3/itineraries/%s", id)));
    }
    out = json_pack("{s:s,s:s,s:s?,s:s,s:s,s:s?,s:o,s:{s:{s:s,s:s},s:{s:s,s:s},s:{s:s,s:s}},"
                    "s:O,s:{s:o}}",
        "itinerary_id", id, "property_id", trv_json_str(doc, "supplier_hotel_id"),
        "property_name", trv_json_str(doc, "hotel_name"),
        "creation_date_time", trv_rows_get(row, 0, "created_at"),
        "email", trv_json_str(json_object_get(doc, "holder"), "email"),
        "affiliate_reference_id", trv_rows_get(row, 0, "client_reference"),
        "rooms", rooms,
        "links", "retrieve", "method", "GET", "href",
        apr_psprintf(req->pool, "/hotels/c/v3/itineraries/%s", id),
        "cancel_preview", "method", "GET", "href",
        apr_psprintf(req->pool, "/hotels/c/v3/itineraries/%s/cancellation-preview", id),
        "restrictions", "method", "GET", "href",
        apr_psprintf(req->pool, "/hotels/c/v3/itineraries/%s/restrictions", id),
        "payments", json_object_get(doc, "payment"),
        "totals", "inclusive", billable(req, json_integer_value(json_object_get(doc, "total")), cur));
    if (trv_rows_get(row, 0, "cancellation")) {
        json_t *canc = trv_json_parse(req->pool, trv_rows_get(row, 0, "cancellation"),
                                      strlen(trv_rows_get(row, 0, "cancellation")), NULL);
        json_object_set_new(out, "cancellation", json_pack("{s:o,s:o,s:s}",
            "penalty", money(req, json_integer_value(json_object_get(canc, "fee")), cur),
            "refund", money(req, json_integer_value(json_object_get(canc, "refund")), cur),
            "canceled_at", trv_json_str(canc, "cancelled_at")));
    }
    return out;
}

/* The answer of a create: Rapid's is short, with the links to follow. */
static json_t *c_created(trv_req *req, const trv_rows *row, const json_t *doc)
{
    json_t *it = c_itinerary(req, row, doc);
    json_t *out = json_pack("{s:s,s:s,s:O}", "itinerary_id", trv_rows_get(row, 0, "id"),
                            "status", c_room_status(trv_rows_get(row, 0, "status")),
                            "links", json_object_get(it, "links"));
    json_decref(it);
    return out;
}

static int digits(const char *s, size_t lo, size_t hi)
{
    size_t n = s ? strlen(s) : 0, i;
    for (i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') {
            return 0;
        }
    }
    return n >= lo && n <= hi;
}

static void book(trv_req *req, trv_resp *resp)
{
    const json_t *b, *rooms, *room, *pay;
    const char *ref, *email, *card;
    sbx_hquote q;
    apr_hash_t *f;
    sbx_hprice *pr;
    sbx_htrigger trig;
    sbx_hbooking_new nb;
    json_t *rooms_guests, *doc, *h;
    apr_int64_t quoted;
    size_t k;
    char code[9];

    if (!sbx_need_hotels(req, resp) || !(b = sbx_body(req, resp))
        || c_token(req, resp, "cb", &q) != 0) {
        return;
    }
    ref = trv_json_str(b, "affiliate_reference_id");
    if (!ref || !trv_printable(ref, 1, 64)) {
        sbx_invalid(req, resp, "affiliate_reference_id", "is required: 1 to 64 characters");
        return;
    }
    email = trv_json_str(b, "email");
    if (!email || !strchr(email, '@')) {
        sbx_invalid(req, resp, "email", "is required");
        return;
    }
    rooms = json_object_get(b, "rooms");
    if (!json_is_array(rooms) || json_array_size(rooms) != (size_t)q.n_rooms) {
        sbx_invalid(req, resp, "rooms", "one entry per occupancy priced");
        return;
    }
    pay = json_array_get(json_object_get(b, "payments"), 0);
    card = trv_json_str(pay, "number");
    if (!pay || strcmp(trv_json_str(pay, "type") ? trv_json_str(pay, "type") : "",
                       "customer_card") != 0 || !digits(card, 12, 19)) {
        sbx_invalid(req, resp, "payments", "one customer_card payment with the card number "
                    "(Expedia collects: test cards of any number)");
        return;
    }
    /* The published test number an issuer declines. */
    if (strcmp(card, "4000000000000002") == 0) {
        sbx_error(req, resp, 402, "card_declined", "The traveller's card was declined");
        return;
    }
    memset(&trig, 0, sizeof(trig));
    sbx_htrigger_reference(&trig, ref);
    rooms_guests = trv_json_bind(req->pool, json_array());
    json_array_foreach(rooms, k, room) {
        if (!trv_json_str(room, "given_name") || !trv_json_str(room, "family_name")) {
            sbx_invalid(req, resp, apr_psprintf(req->pool, "rooms[%d]", (int)k),
                        "given_name and family_name are required");
            return;
        }
        sbx_htrigger_guest(&trig, trv_json_str(room, "family_name"));
        json_array_append_new(rooms_guests, json_pack("[{s:s,s:s}]", "first_name",
                                                      trv_json_str(room, "given_name"),
                                                      "last_name",
                                                      trv_json_str(room, "family_name")));
    }
    if (q.expires < sbx_now()) {
        sbx_error(req, resp, 410, "link_expired", "The book link expired; check the price "
                  "again");
        return;
    }
    if (sbx_hfactors(req, resp, C, &f) != 0) {
        return;
    }
    quoted = q.total;
    q.factor_permille = sbx_hfactor_of(f, sbx_hotel_sid(req->pool, C, q.hotel));
    pr = apr_palloc(req->pool, sizeof(sbx_hprice) * (apr_size_t)q.n_rooms);
    if (sbx_hquote_price(SBX_HOTELS(req), SBX(req)->world, &q, sbx_now(), pr) != quoted) {
        sbx_error(req, resp, 409, "price_mismatch", "The price changed; check the price again");
        return;
    }
    h = json_pack("{s:s,s:s,s:s,s:O?}", "first_name",
                  trv_json_str(json_array_get(rooms, 0), "given_name"), "last_name",
                  trv_json_str(json_array_get(rooms, 0), "family_name"), "email", email,
                  "phone", json_object_get(b, "phone"));
    doc = trv_json_bind(req->pool, sbx_hbooking_doc(req->pool, SBX_HOTELS(req), &q, pr,
                                                    rooms_guests, h));
    json_decref(h);
    sbx_random_chars(code, 8, "0123456789");
    json_object_set_new(doc, "hotel_confirmation_code", json_string(code));
    json_object_set_new(doc, "checkout_utc", json_string(apr_psprintf(req->pool,
        "%" APR_INT64_T_FMT, sbx_hotel_utc(SBX_HOTELS(req), SBX(req)->world, q.hotel,
                                           (apr_int64_t)(q.checkin + q.nights) * 86400
                                               + 11 * 3600))));
    json_object_set_new(doc, "payment", json_pack("[{s:s,s:s,s:s,s:s,s:s}]", "type",
                                                  "customer_card", "last4",
                                                  card + strlen(card) - 4, "status", "captured",
                                                  "collected_by", "SUPPLIER_C", "amount",
                                                  sbx_amount(req->pool, q.total, q.currency)));
    memset(&nb, 0, sizeof(nb));
    sbx_random_chars(code, 8, "0123456789");
    nb.id = apr_pstrcat(req->pool, "721", code, NULL);
    nb.supplier = C;
    nb.ignores_idempotency_key = 1; /* Expedia Rapid documents none */
    nb.client_reference = ref;
    nb.trigger = &trig;
    nb.currency = q.currency;
    nb.total = q.total;
    if (trig.tightened) {
        sbx_hdoc_tighten(doc, sbx_now());
    }
    nb.doc = doc;
    nb.confirm_in = trig.async ? SBX(req)->set->async_ticketing : 0;
    sbx_hbook_run(req, resp, &nb, "booking_refused", "duplicate_itinerary", 201, c_created);
}

static void get_itinerary(trv_req *req, trv_resp *resp)
{
    sbx_hread_run(req, resp, C, apr_table_get(req->params, "id"), c_itinerary);
}

static void find_itineraries(trv_req *req, trv_resp *resp)
{
    const char *ref = apr_table_get(req->query, "affiliate_reference_id");
    trv_dbc *c;
    trv_rows *rows, *one;
    json_t *out, *doc;
    int i;
    if (!ref || !*ref) {
        sbx_invalid(req, resp, "affiliate_reference_id", "is required");
        return;
    }
    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS) {
        sbx_db_fail(req, resp, NULL, 1729, "finding itineraries");
        return;
    }
    if (sbx_hbooking_by_reference(c, req->pool, C, ref, &rows) != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 1730, "finding itineraries");
        return;
    }
    out = trv_json_bind(req->pool, json_array());
    for (i = 0; i < rows->n; i++) {
        if (!sbx_hbooking_load(req, resp, c, C, trv_rows_get(rows, i, "id"), &one, &doc)) {
            return;
        }
        json_array_append_new(out, c_itinerary(req, one, doc));
    }
    trv_db_close(req->env->db, c);
    sbx_send(req, resp, 200, json_incref(out));
}

static void preview(trv_req *req, trv_resp *resp)
{
    const char *id = apr_table_get(req->params, "id"), *cur, *status;
    trv_dbc *c;
    trv_rows *rows;
    json_t *doc, *rooms;
    const json_t *r;
    apr_int64_t fee, refund, now = sbx_now();
    size_t k;
    int restricted;
    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS) {
        sbx_db_fail(req, resp, NULL, 1731, "previewing a cancellation");
        return;
    }
    if (!sbx_hbooking_load(req, resp, c, C, id, &rows, &doc)) {
        return;
    }
    trv_db_close(req->env->db, c);
    cur = trv_rows_get(rows, 0, "currency");
    status = trv_rows_get(rows, 0, "status");
    if (strcmp(status, "confirmed") != 0) {
        sbx_error(req, resp, 409, strcmp(status, "pending") == 0 ? "itinerary_pending"
                                                                 : "itinerary_canceled",
                  "The itinerary is %s", c_room_status(status));
        return;
    }
    restricted = trv_rows_bool(rows, 0, "restricted");
    sbx_hdoc_cancel_terms(doc, now, &fee, &refund);
    rooms = json_array();
    json_array_foreach(json_object_get(doc, "rooms"), k, r) {
        json_t *one = json_pack("{s:[O]}", "rooms", r);
        apr_int64_t f1, r1;
        sbx_hdoc_cancel_terms(one, now, &f1, &r1);
        json_decref(one);
        json_array_append_new(rooms, json_pack("{s:s,s:b,s:s?,s:o,s:o}",
            "room_id", apr_psprintf(req->pool, "%s-%d", id, (int)k + 1),
            "refundable", json_is_true(json_object_get(r, "refundable")),
            "free_cancellation_until", json_is_integer(json_object_get(r, "deadline"))
                ? sbx_instant(req->pool, json_integer_value(json_object_get(r, "deadline")))
                : NULL,
            "penalty", money(req, f1, cur), "refund", money(req, r1, cur)));
    }
    sbx_send(req, resp, 200, json_pack("{s:s,s:s,s:b,s:b,s:o,s:o,s:o}",
        "itinerary_id", id, "checked_at", sbx_instant(req->pool, now),
        "cancelable", !restricted, "restricted", restricted,
        "penalty", money(req, fee, cur), "refund", money(req, refund, cur), "rooms", rooms));
}

static void restrictions(trv_req *req, trv_resp *resp)
{
    const char *id = apr_table_get(req->params, "id");
    trv_dbc *c;
    trv_rows *rows;
    json_t *doc, *list = json_array();
    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS) {
        json_decref(list);
        sbx_db_fail(req, resp, NULL, 1732, "reading restrictions");
        return;
    }
    if (!sbx_hbooking_load(req, resp, c, C, id, &rows, &doc)) {
        json_decref(list);
        return;
    }
    trv_db_close(req->env->db, c);
    if (trv_rows_bool(rows, 0, "restricted")) {
        json_array_append_new(list, json_pack("{s:s,s:s,s:s,s:s,s:s}",
            "id", apr_psprintf(req->pool, "rst_%s", id), "type", "cancellation",
            "code", "CANCEL_RESTRICTED",
            "description", "The property must approve any cancellation of this itinerary; "
                           "it cannot be cancelled online",
            "created_at", trv_rows_get(rows, 0, "created_at")));
    }
    sbx_send(req, resp, 200, json_pack("{s:s,s:o}", "itinerary_id", id, "restrictions", list));
}

static void cancel(trv_req *req, trv_resp *resp)
{
    sbx_hcancel_run(req, resp, C, apr_table_get(req->params, "id"), "cancellation_failed",
                    c_itinerary);
}

const trv_route sbx_hotel_c_routes[] = {
    {"GET", "/hotels/c/v3/properties/content", content, TRV_ROUTE_OWN_QUERY},
    {"GET", "/hotels/c/v3/properties/availability", availability, TRV_ROUTE_OWN_QUERY},
    {"GET", "/hotels/c/v3/properties/{property_id}/rooms/{room_id}/rates/{rate_id}", price_check,
     TRV_ROUTE_OWN_QUERY},
    {"POST", "/hotels/c/v3/itineraries", book, TRV_ROUTE_OWN_QUERY},
    {"GET", "/hotels/c/v3/itineraries", find_itineraries, TRV_ROUTE_OWN_QUERY},
    {"GET", "/hotels/c/v3/itineraries/{id}", get_itinerary, TRV_ROUTE_OWN_QUERY},
    {"GET", "/hotels/c/v3/itineraries/{id}/cancellation-preview", preview, TRV_ROUTE_OWN_QUERY},
    {"GET", "/hotels/c/v3/itineraries/{id}/restrictions", restrictions, TRV_ROUTE_OWN_QUERY},
    {"DELETE", "/hotels/c/v3/itineraries/{id}", cancel, TRV_ROUTE_OWN_QUERY},
    {NULL, NULL, NULL, 0},
};
