/* Hotel SUPPLIER_A: LiteAPI v3.0 (protocol liteapi), with an X-API-Key
 * header, on its two hosts: api.liteapi.travel/v3.0 is /hotels/a/v3.0 here
 * and book.liteapi.travel/v3.0 is /hotels/a/book/v3.0.
 *
 *   api:  GET  /data/hotels?countryCode=&cityName=  | latitude=&longitude=&radius=
 *              [&limit=&offset=]                    hotel list (content)
 *         GET  /data/hotel?hotelId=                 one hotel with its rooms
 *         POST /hotels/rates                        rates of up to 50 hotels
 *   book: POST /rates/prebook   {offerId, usePaymentSdk?}: prebookId (and, with
 *                               the payment SDK, transactionId and secretKey)
 *         POST /rates/book      {prebookId, holder, guests, payment {method:
 *                               ACC_CREDIT_CARD | TRANSACTION_ID, transactionId?},
 *                               clientReference?}: books a prebook (once);
 *                               a second book of the prebook answers its
 *                               booking, one under a clientReference booked
 *                               from another prebook is 409
 *                               duplicate_booking (LiteAPI deduplicates by
 *                               clientReference); Idempotency-Key, which
 *                               LiteAPI does not document, is ignored
 *         GET  /bookings/{bookingId}
 *         GET  /bookings?clientReference=           bookings of a reference
 *         PUT  /bookings/{bookingId}                cancels: status CANCELLED or
 *                               CANCELLED_WITH_CHARGES, cancellation_fee, refund_amount;
 *                               again: 409 booking_already_cancelled (no
 *                               Idempotency-Key replays it)
 *
 * Answers are {"data": ...}; money is a JSON number in the currency's major
 * unit beside its currency, as LiteAPI writes it (made from integer minor
 * units, never computed in floating point). Payment: SUPPLIER_A charges the
 * partner's account (ACC_CREDIT_CARD) at book, or the traveller through
 * LiteAPI's payment SDK (TRANSACTION_ID); taxes marked "included": false are
 * paid at the property. */
#include "hotel.h"
#include "sandbox/jtext.h"
#include "sandbox/money.h"
#include "core/money.h"
#include "core/validate.h"

#include <apr_strings.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define A 0
#define A_MAX_HOTELS 50
#define A_OFFER_TTL (30 * 60)
#define A_PREBOOK_TTL (20 * 60)

/* LiteAPI writes money as JSON numbers in the currency's major unit
 * (123.45), never as strings; a new reference. */
static json_t *a_amount(trv_req *req, apr_int64_t v, const char *cur)
{
    (void)req;
    return trv_money_amount_json(v, trv_currency_exponent(cur));
}

static json_t *a_hotel(trv_req *req, int i)
{
    const sbx_hotels *h = SBX_HOTELS(req);
    const sbx_hotel *x = &h->hotels[i];
    const sbx_hcity *c = &h->cities[x->city];
    double lat, lon;
    sbx_hotel_position(x, A, &lat, &lon);
    return json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:f,s:f,s:i,s:f,s:i,s:s?,s:I,s:s}",
                     "id", sbx_hotel_sid(req->pool, A, i), "name", x->name,
                     "country", c->country_code, "city", c->name,
                     "address", apr_psprintf(req->pool, "%d %s", x->street_no, x->street),
                     "zip", x->postal_code,
                     "hotelDescription", apr_psprintf(req->pool, "A %d-star hotel in %s.",
                                                      x->stars, c->name),
                     "latitude", lat, "longitude", lon, "stars", x->stars,
                     "rating", x->rating10 / 10.0, "reviewCount", x->reviews,
                     "chain", x->chain, "giataId", (json_int_t)x->giata,
                     "main_photo", apr_psprintf(req->pool, "https://static.example.invalid/"
                                                "hotels/%s.jpg",
                                                sbx_hotel_sid(req->pool, A, i)));
}

/* A query parameter as a number (double), or a 422; 1 when present. */
static int q_double(trv_req *req, trv_resp *resp, const char *name, double lo, double hi,
                    double *out, int *answered)
{
    const char *v = apr_table_get(req->query, name);
    char *end;
    if (!v) {
        return 0;
    }
    *out = strtod(v, &end);
    if (!*v || *end || *out < lo || *out > hi) {
        sbx_invalid(req, resp, name, apr_psprintf(req->pool, "must be a number from %g to %g",
                                                  lo, hi));
        *answered = 1;
        return 0;
    }
    return 1;
}

static void list_hotels(trv_req *req, trv_resp *resp)
{
    const sbx_hotels *h;
    const char *cc = apr_table_get(req->query, "countryCode");
    const char *city = apr_table_get(req->query, "cityName");
    double lat = 0, lon = 0, radius = 0, lim = 200, off = 0;
    int answered = 0, has_lat, has_lon, has_r, *idx, n, i, total;
    json_t *data;

    if (!sbx_need_hotels(req, resp)) {
        return;
    }
    h = SBX_HOTELS(req);
    has_lat = q_double(req, resp, "latitude", -90, 90, &lat, &answered);
    has_lon = !answered && q_double(req, resp, "longitude", -180, 180, &lon, &answered);
    has_r = !answered && q_double(req, resp, "radius", 100, 50000, &radius, &answered);
    if (!answered) {
        q_double(req, resp, "limit", 1, 1000, &lim, &answered);
    }
    if (!answered) {
        q_double(req, resp, "offset", 0, 100000, &off, &answered);
    }
    if (answered) {
        return;
    }
    idx = apr_palloc(req->pool, sizeof(int) * (apr_size_t)h->n_hotels);
    if (has_lat && has_lon) {
        total = sbx_hotels_near(h, A, lat, lon, has_r ? radius : 5000, idx, h->n_hotels);
    }
    else if (cc && city) {
        int ci = sbx_hcity_find(h, city, cc), k;
        total = 0;
        for (k = 0; ci >= 0 && k < h->cities[ci].n; k++) {
            if (h->hotels[h->cities[ci].first + k].suppliers & 1u) {
                idx[total++] = h->cities[ci].first + k;
            }
        }
    }
    else {
        sbx_invalid(req, resp, "cityName", "give countryCode and cityName, or latitude, "
                    "longitude and radius (metres)");
        return;
    }
    data = json_array();
    n = 0;
    for (i = (int)off; i < total && n < (int)lim; i++, n++) {
        json_array_append_new(data, a_hotel(req, idx[i]));
    }
    sbx_send(req, resp, 200, json_pack("{s:o,s:i}", "data", data, "total", total));
}

static void get_hotel(trv_req *req, trv_resp *resp)
{
    const char *sid = apr_table_get(req->query, "hotelId");
    int i, r;
    json_t *d, *rooms;
    const sbx_hotel *x;
    if (!sbx_need_hotels(req, resp)) {
        return;
    }
    i = sbx_hotel_by_sid(SBX_HOTELS(req), A, sid);
    if (i < 0) {
        sbx_error(req, resp, 404, "not_found", "No hotel %s", sid ? sid : "(hotelId missing)");
        return;
    }
    x = &SBX_HOTELS(req)->hotels[i];
    d = a_hotel(req, i);
    rooms = json_array();
    for (r = 0; r < SBX_ROOM_TYPES; r++) {
        if (x->rooms & (1u << r)) {
            const sbx_room_type *t = sbx_room_type_get(r);
            json_array_append_new(rooms, json_pack("{s:s,s:s,s:i,s:i,s:s}", "id", t->code,
                                                   "roomName", t->name, "maxAdults",
                                                   t->max_adults, "maxOccupancy",
                                                   t->max_occupancy, "bedTypes", t->bed));
        }
    }
    json_object_set_new(d, "rooms", rooms);
    json_object_set_new(d, "checkinCheckoutTimes",
                        json_pack("{s:s,s:s}", "checkin_start", "15:00", "checkout", "11:00"));
    sbx_send(req, resp, 200, json_pack("{s:o}", "data", d));
}

/* ---- rates ---- */

/* A rate's money as LiteAPI writes it: [{amount, currency}]. */
static void a_price(trv_jtext *t, const char *key, apr_int64_t v, const char *cur)
{
    trv_jtext_karr(t, key);
    trv_jtext_obj(t);
    trv_jtext_key(t, "amount");
    sbx_jt_money_number(t, v, cur);
    trv_jtext_kstr(t, "currency", cur);
    trv_jtext_end(t);
    trv_jtext_end(t);
}

/* {amount, currency} under key. */
static void a_money(trv_jtext *t, const char *key, apr_int64_t v, const char *cur)
{
    trv_jtext_kobj(t, key);
    trv_jtext_key(t, "amount");
    sbx_jt_money_number(t, v, cur);
    trv_jtext_kstr(t, "currency", cur);
    trv_jtext_end(t);
}

static void a_tax(trv_jtext *t, int included, const char *what, apr_int64_t v, const char *cur)
{
    trv_jtext_obj(t);
    trv_jtext_kbool(t, "included", included);
    trv_jtext_kstr(t, "description", what);
    trv_jtext_key(t, "amount");
    sbx_jt_money_number(t, v, cur);
    trv_jtext_kstr(t, "currency", cur);
    trv_jtext_end(t);
}

static void a_policy(trv_jtext *t, const sbx_hprice *r, const char *cur)
{
    int i;
    trv_jtext_kobj(t, "cancellationPolicies");
    trv_jtext_karr(t, "cancelPolicyInfos");
    for (i = 0; i < r->n_penalties; i++) {
        trv_jtext_obj(t);
        trv_jtext_key(t, "cancelTime");
        sbx_jt_instant(t, r->penalties[i].from);
        trv_jtext_key(t, "amount");
        sbx_jt_money_number(t, r->penalties[i].amount, cur);
        trv_jtext_kstr(t, "currency", cur);
        trv_jtext_kstr(t, "type", "amount");
        trv_jtext_kstr(t, "timezone", "UTC");
        trv_jtext_end(t);
    }
    trv_jtext_end(t);
    trv_jtext_karr(t, "hotelRemarks");
    trv_jtext_end(t);
    trv_jtext_kstr(t, "refundableTag", r->refundable ? "RFN" : "NRFN");
    trv_jtext_end(t);
}

static void a_rate(trv_jtext *t, const sbx_hquote *q, const sbx_hprice *r, int k)
{
    const sbx_room_type *rt = sbx_room_type_get(q->room);
    const sbx_board *b = sbx_board_get(q->board);
    const char *cur = q->currency;
    char id[64];
    int i;
    snprintf(id, sizeof(id), "%s-%s-%s-%d", rt->code, b->code, q->plan ? "NRF" : "RFN", k + 1);
    trv_jtext_obj(t);
    trv_jtext_kstr(t, "rateId", id);
    trv_jtext_kint(t, "occupancyNumber", k + 1);
    trv_jtext_kstr(t, "name", rt->name);
    trv_jtext_kint(t, "maxOccupancy", rt->max_occupancy);
    trv_jtext_kint(t, "adultCount", q->occ[k].adults);
    trv_jtext_kint(t, "childCount", q->occ[k].n_children);
    trv_jtext_karr(t, "childrenAges");
    for (i = 0; i < q->occ[k].n_children; i++) {
        trv_jtext_int(t, q->occ[k].ages[i]);
    }
    trv_jtext_end(t);
    trv_jtext_kstr(t, "boardType", b->code);
    trv_jtext_kstr(t, "boardName", b->name);
    trv_jtext_kstr(t, "remarks", "Check-in from 15:00. Photo ID and a card for incidentals are "
                "required.");
    trv_jtext_kstr(t, "priceType", "commission");
    trv_jtext_kobj(t, "retailRate");
    a_price(t, "total", r->total, cur);
    a_price(t, "suggestedSellingPrice", r->total + r->total / 10, cur);
    a_price(t, "initialPrice", r->gross, cur);
    trv_jtext_karr(t, "taxesAndFees");
    a_tax(t, 1, "VAT", r->vat, cur);
    if (r->due_at_property) {
        a_tax(t, 0, "City tax (paid at the property)", r->due_at_property, cur);
    }
    trv_jtext_end(t);
    trv_jtext_end(t);
    a_policy(t, r, cur);
    trv_jtext_karr(t, "promotions");
    if (r->promo_code) {
        trv_jtext_obj(t);
        trv_jtext_kstr(t, "code", r->promo_code);
        trv_jtext_kstr(t, "name", r->promo_name);
        trv_jtext_key(t, "amount");
        sbx_jt_money_number(t, r->discount, cur);
        trv_jtext_kstr(t, "currency", cur);
        trv_jtext_end(t);
    }
    trv_jtext_end(t);
    trv_jtext_end(t);
}

/* The rooms of q, priced: one rate per occupancy (a roomTypes entry). */
static void a_room_type(trv_req *req, trv_jtext *t, const sbx_hquote *q, const char *offer_id)
{
    sbx_hprice *prices = apr_palloc(req->pool, sizeof(sbx_hprice) * (apr_size_t)q->n_rooms);
    apr_int64_t total = sbx_hquote_price(SBX_HOTELS(req), SBX(req)->world, q, sbx_now(),
                                         prices), due = 0;
    int k;
    trv_jtext_obj(t);
    trv_jtext_kstr(t, "offerId", offer_id);
    trv_jtext_kstr(t, "roomTypeId", sbx_room_type_get(q->room)->code);
    trv_jtext_kstr(t, "supplier", "SANDBOX");
    trv_jtext_karr(t, "rates");
    for (k = 0; k < q->n_rooms; k++) {
        a_rate(t, q, &prices[k], k);
        due += prices[k].due_at_property;
    }
    trv_jtext_end(t);
    a_money(t, "offerRetailRate", total, q->currency);
    a_money(t, "dueAtProperty", due, q->currency);
    trv_jtext_kstr(t, "rateType", q->plan ? "NRFN" : "RFN");
    trv_jtext_end(t);
}

/* occupancies [{adults, children: [ages]}] into q; 0, or answered. */
static int a_occupancies(trv_req *req, trv_resp *resp, const json_t *v, sbx_hquote *q)
{
    size_t k, i;
    const json_t *o;
    if (!json_is_array(v) || json_array_size(v) < 1 || json_array_size(v) > SBX_MAX_HROOMS) {
        sbx_invalid(req, resp, "occupancies", "must list 1 to 8 rooms");
        return -1;
    }
    q->n_rooms = (int)json_array_size(v);
    json_array_foreach(v, k, o) {
        const json_t *ch = json_object_get(o, "children"), *a;
        const char *reason = "adults is required";
        sbx_occ *oc = &q->occ[k];
        memset(oc, 0, sizeof(*oc));
        oc->adults = json_is_integer(json_object_get(o, "adults"))
                   ? (int)json_integer_value(json_object_get(o, "adults")) : 0;
        if (ch && (!json_is_array(ch) || json_array_size(ch) > SBX_MAX_CHILDREN)) {
            oc->n_children = -1;
        }
        json_array_foreach(ch, i, a) {
            if (oc->n_children >= 0 && i < SBX_MAX_CHILDREN) {
                oc->ages[i] = json_is_integer(a) ? (int)json_integer_value(a) : -1;
                oc->n_children = (int)i + 1;
            }
        }
        if (!json_is_integer(json_object_get(o, "adults")) || sbx_occ_check(oc, &reason) != 0) {
            sbx_invalid(req, resp, apr_psprintf(req->pool, "occupancies[%d]", (int)k), reason);
            return -1;
        }
    }
    return 0;
}

static int a_currency(trv_req *req, trv_resp *resp, const json_t *b, sbx_hquote *q)
{
    const char *cur = trv_json_str(b, "currency");
    if (!sbx_currency_known(cur)) {
        sbx_invalid(req, resp, "currency", "must be an ISO 4217 code the sandbox sells in");
        return -1;
    }
    memcpy(q->currency, cur, 4);
    return 0;
}

static void rates(trv_req *req, trv_resp *resp)
{
    sbx_hotel_set *seen;
    const sbx_hotels *h;
    const json_t *b, *ids, *v;
    const char *field, *reason;
    sbx_hquote q, *found;
    apr_hash_t *factors;
    trv_jtext t;
    size_t i;
    long checkout;
    int max_rates = 10, n, k;
    apr_int64_t now = sbx_now();

    if (!sbx_need_hotels(req, resp) || !(b = sbx_body(req, resp))) {
        return;
    }
    h = SBX_HOTELS(req);
    memset(&q, 0, sizeof(q));
    q.supplier = A;
    q.today = (long)(now / 86400);
    q.checkin = sbx_day_of(trv_json_str(b, "checkin"));
    checkout = sbx_day_of(trv_json_str(b, "checkout"));
    ids = json_object_get(b, "hotelIds");
    if (!json_is_array(ids) || json_array_size(ids) < 1 || json_array_size(ids) > A_MAX_HOTELS) {
        sbx_invalid(req, resp, "hotelIds", "must list 1 to 50 hotel ids");
        return;
    }
    if (sbx_stay_check(q.checkin, checkout, q.today, &field, &reason) != 0) {
        sbx_invalid(req, resp, field, reason);
        return;
    }
    q.nights = (int)(checkout - q.checkin);
    if (a_occupancies(req, resp, json_object_get(b, "occupancies"), &q) != 0
        || a_currency(req, resp, b, &q) != 0) {
        return;
    }
    if ((v = json_object_get(b, "maxRatesPerHotel"))) {
        if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > 50) {
            sbx_invalid(req, resp, "maxRatesPerHotel", "must be 1 to 50");
            return;
        }
        max_rates = (int)json_integer_value(v);
    }
    if (sbx_hfactors(req, resp, A, &factors) != 0) {
        return;
    }
    q.expires = now + A_OFFER_TTL;
    found = apr_palloc(req->pool, sizeof(sbx_hquote) * (apr_size_t)max_rates);
    seen = sbx_hotel_set_make(req->pool, h);
    trv_jtext_init(&t, req->pool, 16384);
    trv_jtext_obj(&t);
    trv_jtext_karr(&t, "data");
    json_array_foreach(ids, i, v) {
        const char *sid = json_string_value(v);
        q.hotel = sbx_hotel_by_sid(h, A, sid);
        if (!sbx_hotel_set_add(seen, q.hotel)) {
            continue;   /* LiteAPI leaves unknown or unavailable hotels out */
        }
        q.factor_permille = sbx_hfactor_of(factors, sid);
        n = sbx_hotel_rates(h, SBX(req)->world, &q, now, found, max_rates);
        if (!n) {
            continue;
        }
        trv_jtext_obj(&t);
        trv_jtext_kstr(&t, "hotelId", sid);
        trv_jtext_karr(&t, "roomTypes");
        for (k = 0; k < n; k++) {
            a_room_type(req, &t, &found[k],
                        sbx_hquote_encode(req->pool, &found[k], "ao", SBX(req)->set->key_ha));
        }
        trv_jtext_end(&t);
        trv_jtext_end(&t);
    }
    trv_jtext_end(&t);
    trv_jtext_end(&t);
    sbx_jt_send(req, resp, 200, &t);
}

/* ---- prebook, book ---- */

/* The payment-SDK transaction of a prebook: derived from its id, so book
 * can check it without storing anything. */
static const char *a_transaction(trv_req *req, const char *prebook_id)
{
    size_t n = strlen(prebook_id);
    return apr_pstrcat(req->pool, "tr_", prebook_id + (n > 16 ? n - 16 : 0), NULL);
}

static void prebook(trv_req *req, trv_resp *resp)
{
    static const char *const known[] = {"offerId", "usePaymentSdk", NULL};
    const json_t *b, *sdk;
    sbx_hquote q;
    apr_hash_t *factors;
    apr_int64_t now = sbx_now(), before;
    json_t *rt, *out;
    trv_jtext rtt;
    const char *pid;
    trv_errs *errs = trv_errs_new(req->pool);

    if (!sbx_need_hotels(req, resp) || !(b = sbx_body(req, resp))) {
        return;
    }
    trv_json_known(b, NULL, known, errs);
    sdk = json_object_get(b, "usePaymentSdk");
    if (sdk && !json_is_boolean(sdk)) {
        trv_errs_add(errs, "usePaymentSdk", "must be true or false");
    }
    if (trv_errs_any(errs)) {
        const json_t *first = json_array_get(errs->details, 0);
        sbx_invalid(req, resp, trv_json_str(first, "field"), trv_json_str(first, "reason"));
        return;
    }
    if (sbx_hquote_decode(req->pool, trv_json_str(b, "offerId"), "ao", SBX(req)->set->key_ha,
                          SBX_HOTELS(req), &q) != 0) {
        sbx_invalid(req, resp, "offerId", "is not an offer of this API");
        return;
    }
    if (q.expires < now) {
        sbx_error(req, resp, 409, "offer_expired", "The offer expired; search rates again");
        return;
    }
    if (sbx_hfactors(req, resp, A, &factors) != 0) {
        return;
    }
    before = q.total;
    q.factor_permille = sbx_hfactor_of(factors, sbx_hotel_sid(req->pool, A, q.hotel));
    {
        sbx_hprice *pr = apr_palloc(req->pool, sizeof(sbx_hprice) * (apr_size_t)q.n_rooms);
        q.total = sbx_hquote_price(SBX_HOTELS(req), SBX(req)->world, &q, now, pr);
    }
    q.expires = now + A_PREBOOK_TTL;
    /* A new id per prebook: the id is the signed quote, and without a
     * number of its own two prebooks of one offer within a second would be
     * the same prebook (book answers a booked prebook with its booking). */
    do {
        q.serial = sbx_nonce();
    } while (q.serial == 0);
    pid = sbx_hquote_encode(req->pool, &q, "ap", SBX(req)->set->key_ha);
    trv_jtext_init(&rtt, req->pool, 2048);
    a_room_type(req, &rtt, &q, trv_json_str(b, "offerId"));
    if (!(rt = sbx_jt_tree(&rtt))) {
        sbx_error(req, resp, 500, "internal_error", "The sandbox could not write its answer");
        return;
    }
    /* priceDifferencePercent is a display figure (LiteAPI's own), not money. */
    out = json_pack(
        "{s:s,s:s,s:s,s:s,s:o,s:f,s:b,s:s,s:s,s:s,s:[o],s:[s,s]}",
        "prebookId", pid, "offerId", trv_json_str(b, "offerId"),
        "hotelId", sbx_hotel_sid(req->pool, A, q.hotel), "currency", q.currency,
        "price", a_amount(req, q.total, q.currency),
        "priceDifferencePercent", before
            ? (double)((q.total - before) * 10000 / before) / 100.0 : 0.0,
        "priceChanged", q.total != before,
        "checkin", sbx_day_format(req->pool, q.checkin),
        "checkout", sbx_day_format(req->pool, q.checkin + q.nights),
        "expiresAt", sbx_instant(req->pool, q.expires), "roomTypes", rt,
        "paymentTypes", "ACC_CREDIT_CARD", "TRANSACTION_ID");
    if (json_is_true(sdk)) {
        /* LiteAPI's payment SDK: the page is opened with secretKey and the
         * booking then names the transaction. */
        json_object_set_new(out, "transactionId", json_string(a_transaction(req, pid)));
        json_object_set_new(out, "secretKey",
                            json_string(apr_pstrcat(req->pool, "sk_sandbox_",
                                                    a_transaction(req, pid) + 3, NULL)));
    }
    sbx_send(req, resp, 200, json_pack("{s:o}", "data", out));
}

static const char *a_status(const char *s)
{
    return strcmp(s, "pending") == 0 ? "PENDING" : strcmp(s, "cancelled") == 0 ? "CANCELLED"
                                                                                 : "CONFIRMED";
}

static json_t *a_holder(const json_t *h)
{
    return json_pack("{s:s?,s:s?,s:s?,s:s?}", "firstName", trv_json_str(h, "first_name"),
                     "lastName", trv_json_str(h, "last_name"), "email", trv_json_str(h, "email"),
                     "phone", trv_json_str(h, "phone"));
}

static json_t *a_booking(trv_req *req, const trv_rows *row, const json_t *doc)
{
    const char *cur = json_string_value(json_object_get(doc, "currency"));
    const char *status = trv_rows_get(row, 0, "status");
    const json_t *r, *canc = NULL;
    json_t *rooms = json_array();
    size_t k;
    if (trv_rows_get(row, 0, "cancellation")) {
        canc = trv_json_parse(req->pool, trv_rows_get(row, 0, "cancellation"),
                              strlen(trv_rows_get(row, 0, "cancellation")), NULL);
    }
    json_array_foreach(json_object_get(doc, "rooms"), k, r) {
        const json_t *g = json_array_get(json_object_get(r, "guests"), 0), *pen;
        json_t *infos = json_array();
        size_t i;
        json_array_foreach(json_object_get(r, "penalties"), i, pen) {
            json_array_append_new(infos, json_pack("{s:s,s:o,s:s,s:s,s:s}", "cancelTime",
                sbx_instant(req->pool, json_integer_value(json_object_get(pen, "from"))),
                "amount", a_amount(req, json_integer_value(json_object_get(pen, "amount")), cur),
                "currency", cur, "type", "amount", "timezone", "UTC"));
        }
        json_array_append_new(rooms, json_pack(
            "{s:{s:s},s:s,s:s,s:O,s:i,s:O,s:s?,s:s?,s:o,s:s,s:o,s:s?,s:{s:o,s:s}}",
            "roomType", "name", json_string_value(json_object_get(doc, "room_name")),
            "boardType", json_string_value(json_object_get(doc, "board")),
            "boardName", json_string_value(json_object_get(doc, "board_name")),
            "adults", json_object_get(r, "adults"), "occupancyNumber", (int)k + 1,
            "childrenAges", json_object_get(r, "child_ages"),
            "firstName", trv_json_str(g, "first_name"), "lastName", trv_json_str(g, "last_name"),
            "amount", a_amount(req, json_integer_value(json_object_get(r, "total")), cur),
            "currency", cur,
            "dueAtProperty", a_amount(req, json_integer_value(json_object_get(r, "due_at_property")),
                                      cur),
            "promotion", trv_json_str(json_object_get(r, "promotion"), "name"),
            "cancellationPolicies", "cancelPolicyInfos", infos, "refundableTag",
            json_is_true(json_object_get(r, "refundable")) ? "RFN" : "NRFN"));
    }
    return json_pack(
        "{s:{s:s,s:s?,s:s,s:s,s:s?,s:s,s:s,s:{s:s,s:s},s:o,s:o,s:o,s:s,s:s,s:s,s:s?,"
        "s:{s:s,s:s,s:s},s:o}}", "data",
        "bookingId", trv_rows_get(row, 0, "id"),
        "clientReference", trv_rows_get(row, 0, "client_reference"),
        "supplierBookingName", "SANDBOX",
        "status", a_status(status),
        "hotelConfirmationCode", strcmp(status, "pending") == 0 ? NULL
            : trv_json_str(doc, "hotel_confirmation_code"),
        "checkin", trv_json_str(doc, "checkin"), "checkout", trv_json_str(doc, "checkout"),
        "hotel", "hotelId", trv_json_str(doc, "supplier_hotel_id"),
        "name", trv_json_str(doc, "hotel_name"),
        "bookedRooms", rooms, "holder", a_holder(json_object_get(doc, "holder")),
        "price", a_amount(req, json_integer_value(json_object_get(doc, "total")), cur),
        "currency", cur,
        "createdAt", trv_rows_get(row, 0, "created_at"),
        "updatedAt", trv_rows_get(row, 0, "updated_at"),
        "cancelledAt", trv_rows_get(row, 0, "cancelled_at"),
        "payment", "method", "ACC_CREDIT_CARD", "status", "CHARGED",
        "collectedBy", "SUPPLIER_A",
        "cancellation", canc ? json_pack("{s:o,s:o,s:s}",
            "cancellationFee", a_amount(req, json_integer_value(json_object_get(canc, "fee")), cur),
            "refundAmount", a_amount(req, json_integer_value(json_object_get(canc, "refund")), cur),
            "currency", cur) : json_null());
}

static void book(trv_req *req, trv_resp *resp)
{
    static const char *const known[] = {"prebookId", "holder", "guests", "payment",
                                        "clientReference", NULL};
    const json_t *b, *holder, *guests, *g;
    const char *pid, *ref;
    sbx_hquote q;
    sbx_hprice *pr;
    sbx_htrigger trig;
    sbx_hbooking_new nb;
    json_t *rooms_guests, *doc, *h;
    trv_errs *errs = trv_errs_new(req->pool);
    size_t i;
    char code[9];

    if (!sbx_need_hotels(req, resp) || !(b = sbx_body(req, resp))) {
        return;
    }
    trv_json_known(b, NULL, known, errs);
    if (trv_errs_any(errs)) {
        const json_t *first = json_array_get(errs->details, 0);
        sbx_invalid(req, resp, trv_json_str(first, "field"), trv_json_str(first, "reason"));
        return;
    }
    pid = trv_json_str(b, "prebookId");
    if (sbx_hquote_decode(req->pool, pid, "ap", SBX(req)->set->key_ha, SBX_HOTELS(req), &q)
        != 0) {
        sbx_invalid(req, resp, "prebookId", "is not a prebook of this API");
        return;
    }
    {
        const json_t *pay = json_object_get(b, "payment");
        const char *method = trv_json_str(pay, "method");
        if (!method || (strcmp(method, "ACC_CREDIT_CARD") != 0
                        && strcmp(method, "TRANSACTION_ID") != 0)) {
            sbx_invalid(req, resp, "payment.method", "must be ACC_CREDIT_CARD or "
                        "TRANSACTION_ID");
            return;
        }
        if (strcmp(method, "TRANSACTION_ID") == 0
            && (!trv_json_str(pay, "transactionId")
                || strcmp(trv_json_str(pay, "transactionId"), a_transaction(req, pid)) != 0)) {
            sbx_invalid(req, resp, "payment.transactionId", "is not this prebook's payment "
                        "SDK transaction");
            return;
        }
    }
    holder = json_object_get(b, "holder");
    if (!trv_json_str(holder, "firstName") || !trv_json_str(holder, "lastName")
        || !trv_json_str(holder, "email")) {
        sbx_invalid(req, resp, "holder", "firstName, lastName and email are required");
        return;
    }
    guests = json_object_get(b, "guests");
    if (!json_is_array(guests) || json_array_size(guests) < (size_t)q.n_rooms) {
        sbx_invalid(req, resp, "guests", "one guest per occupancy (occupancyNumber 1..n)");
        return;
    }
    ref = trv_json_str(b, "clientReference");
    memset(&trig, 0, sizeof(trig));
    sbx_htrigger_reference(&trig, ref);
    sbx_htrigger_guest(&trig, trv_json_str(holder, "lastName"));
    rooms_guests = trv_json_bind(req->pool, json_array());
    for (i = 0; i < (size_t)q.n_rooms; i++) {
        json_array_append_new(rooms_guests, json_array());
    }
    json_array_foreach(guests, i, g) {
        json_int_t occ = json_integer_value(json_object_get(g, "occupancyNumber"));
        if (occ < 1 || occ > q.n_rooms || !trv_json_str(g, "firstName")
            || !trv_json_str(g, "lastName")) {
            sbx_invalid(req, resp, apr_psprintf(req->pool, "guests[%d]", (int)i),
                        "occupancyNumber (1..rooms), firstName and lastName are required");
            return;
        }
        sbx_htrigger_guest(&trig, trv_json_str(g, "lastName"));
        json_array_append_new(json_array_get(rooms_guests, (size_t)occ - 1),
                              json_pack("{s:s,s:s}", "first_name", trv_json_str(g, "firstName"),
                                        "last_name", trv_json_str(g, "lastName")));
    }
    for (i = 0; i < (size_t)q.n_rooms; i++) {
        if (json_array_size(json_array_get(rooms_guests, i)) == 0) {
            sbx_invalid(req, resp, "guests", apr_psprintf(req->pool,
                        "occupancy %d has no guest", (int)i + 1));
            return;
        }
    }
    if (q.expires < sbx_now()) {
        sbx_error(req, resp, 409, "prebook_expired", "The prebook expired; prebook again");
        return;
    }
    pr = apr_palloc(req->pool, sizeof(sbx_hprice) * (apr_size_t)q.n_rooms);
    sbx_hquote_price(SBX_HOTELS(req), SBX(req)->world, &q, sbx_now(), pr);
    h = json_pack("{s:s,s:s,s:s,s:s?}", "first_name", trv_json_str(holder, "firstName"),
                  "last_name", trv_json_str(holder, "lastName"), "email",
                  trv_json_str(holder, "email"), "phone", trv_json_str(holder, "phone"));
    doc = trv_json_bind(req->pool, sbx_hbooking_doc(req->pool, SBX_HOTELS(req), &q, pr,
                                                    rooms_guests, h));
    json_decref(h);
    sbx_random_chars(code, 8, "0123456789");
    json_object_set_new(doc, "hotel_confirmation_code", json_string(code));
    memset(&nb, 0, sizeof(nb));
    nb.id = sbx_hid(req->pool, "bk_");
    nb.supplier = A;
    nb.client_reference = ref;
    nb.prebook_id = pid;
    /* LiteAPI documents no Idempotency-Key: its guard is clientReference
     * (and a prebook is booked once). */
    nb.ignores_idempotency_key = 1;
    nb.trigger = &trig;
    nb.currency = q.currency;
    nb.total = json_integer_value(json_object_get(doc, "total"));
    if (trig.tightened) {
        sbx_hdoc_tighten(doc, sbx_now());
    }
    nb.doc = doc;
    nb.confirm_in = trig.async ? SBX(req)->set->async_ticketing : 0;
    sbx_hbook_run(req, resp, &nb, "booking_failed", "duplicate_booking", 200, a_booking);
}

static void get_booking(trv_req *req, trv_resp *resp)
{
    sbx_hread_run(req, resp, A, apr_table_get(req->params, "id"), a_booking);
}

static void find_bookings(trv_req *req, trv_resp *resp)
{
    const char *ref = apr_table_get(req->query, "clientReference");
    trv_dbc *c;
    trv_rows *rows;
    json_t *data;
    int i;
    if (!ref || !*ref) {
        sbx_invalid(req, resp, "clientReference", "is required");
        return;
    }
    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS) {
        sbx_db_fail(req, resp, NULL, 1725, "finding hotel bookings");
        return;
    }
    if (sbx_hbooking_by_reference(c, req->pool, A, ref, &rows) != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 1726, "finding hotel bookings");
        return;
    }
    trv_db_close(req->env->db, c);
    data = json_array();
    for (i = 0; i < rows->n; i++) {
        json_array_append_new(data, json_pack("{s:s,s:s}", "bookingId",
                                              trv_rows_get(rows, i, "id"),
                                              "clientReference", ref));
    }
    sbx_send(req, resp, 200, json_pack("{s:o}", "data", data));
}

/* PUT /bookings/{id}'s answer, as LiteAPI gives it: the status (with
 * charges when a fee is kept), the fee and the refund. */
static json_t *a_cancelled(trv_req *req, const trv_rows *row, const json_t *doc)
{
    const char *text = trv_rows_get(row, 0, "cancellation");
    const json_t *canc = text ? trv_json_parse(req->pool, text, strlen(text), NULL) : NULL;
    const char *cur = json_string_value(json_object_get(doc, "currency"));
    apr_int64_t fee = json_integer_value(json_object_get(canc, "fee"));
    return json_pack("{s:{s:s,s:s,s:o,s:o,s:s}}", "data",
                     "bookingId", trv_rows_get(row, 0, "id"),
                     "status", fee > 0 ? "CANCELLED_WITH_CHARGES" : "CANCELLED",
                     "cancellation_fee", a_amount(req, fee, cur),
                     "refund_amount", a_amount(req, json_integer_value(json_object_get(canc,
                                                                                   "refund")),
                                               cur),
                     "currency", cur);
}

static void cancel_booking(trv_req *req, trv_resp *resp)
{
    /* LiteAPI cancels "an existing confirmed booking" and states no answer
     * for one cancelled already: the sandbox refuses it (409), and a
     * caller whose first answer was lost reads the booking's cancellation. */
    sbx_hcancel_run(req, resp, A, apr_table_get(req->params, "id"), "cancellation_failed",
                    "booking_already_cancelled", a_cancelled);
}

const trv_route sbx_hotel_a_routes[] = {
    {"GET", "/hotels/a/v3.0/data/hotels", list_hotels, TRV_ROUTE_OWN_QUERY},
    {"GET", "/hotels/a/v3.0/data/hotel", get_hotel, TRV_ROUTE_OWN_QUERY},
    {"POST", "/hotels/a/v3.0/hotels/rates", rates, TRV_ROUTE_JSON_ARENA},
    /* LiteAPI's booking host (book.liteapi.travel/v3.0): prebook, book and
     * the bookings live there, not on the data and rates host. */
    {"POST", "/hotels/a/book/v3.0/rates/prebook", prebook, 0},
    {"POST", "/hotels/a/book/v3.0/rates/book", book, 0},
    {"GET", "/hotels/a/book/v3.0/bookings", find_bookings, TRV_ROUTE_OWN_QUERY},
    {"GET", "/hotels/a/book/v3.0/bookings/{id}", get_booking, 0},
    {"PUT", "/hotels/a/book/v3.0/bookings/{id}", cancel_booking, 0},
    {NULL, NULL, NULL, 0},
};
