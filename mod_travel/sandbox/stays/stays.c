/* Duffel Stays under SUPPLIER_A's Duffel base (/suppliers/a/stays), with
 * Duffel's token, version header, errors and rate-limit headers
 * (air/duffel.c): the fourth hotel supplier's wire (docs/suppliers.md).
 *
 *   POST /stays/search                                 by location or accommodation ids
 *   POST /stays/search_results/{id}/actions/fetch_all_rates
 *   POST /stays/quotes  {rate_id}                      the rate priced now
 *   GET  /stays/quotes/{id}
 *   POST /stays/bookings {quote_id, guests, email, phone_number, metadata?}
 *                                                      a quote books once; no
 *                                                      Idempotency-Key (Duffel has none)
 *   GET  /stays/bookings?limit&after&before          newest first, Duffel's cursors
 *   GET  /stays/bookings/{id}
 *   POST /stays/bookings/{id}/actions/cancel            again: 422 booking_already_cancelled
 *
 * The accommodation is the sandbox's hotel catalogue (hotel/catalog.h),
 * the hotels SUPPLIER_A sells, priced as SUPPLIER_A prices them
 * (hotel/rates.h) in the currency of the hotel's country. Search results,
 * rates and quotes are signed tokens (no storage); bookings are kept in
 * sandbox.duffel_stays_bookings, one per quote. */
#include "sandbox/air/duffel.h"
#include "sandbox/hotel/hotel.h"
#include "sandbox/money.h"
#include "core/ids.h"
#include "core/clock.h"

#include <apr_hash.h>
#include <apr_strings.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#define STAYS_SUPPLIER 0            /* the catalogue's SUPPLIER_A hotels */
#define STAYS_TTL 1800              /* search results, rates and quotes: 30 min */
#define STAYS_MAX_RESULTS 50
#define STAYS_MAX_RATES 20

static const trv_stmt st_insert = {"sbx_stays_insert",
    "INSERT INTO sandbox.duffel_stays_bookings (id, quote_id, reference, currency, "
    "total_minor, doc) VALUES (%s, %s, %s, %s, %s::bigint, %s::jsonb) "
    "ON CONFLICT (quote_id) DO NOTHING RETURNING id"};
static const trv_stmt st_get = {"sbx_stays_get",
    "SELECT id, reference, status, doc::text AS doc, trv_ts(created_at) AS confirmed_at, "
    "trv_ts(cancelled_at) AS cancelled_at FROM sandbox.duffel_stays_bookings WHERE id = %s"};
static const trv_stmt st_list = {"sbx_stays_list",
    "SELECT id, reference, status, doc::text AS doc, trv_ts(created_at) AS confirmed_at, "
    "trv_ts(cancelled_at) AS cancelled_at, count(*) OVER () AS total "
    "FROM sandbox.duffel_stays_bookings ORDER BY created_at DESC, id DESC "
    "LIMIT %s::int OFFSET %s::int"};
static const trv_stmt st_cancel = {"sbx_stays_cancel",
    "UPDATE sandbox.duffel_stays_bookings SET status = 'cancelled', "
    "cancelled_at = clock_timestamp() WHERE id = %s AND status = 'confirmed'"};

static const char *key_of(trv_req *req)
{
    return SBX(req)->set->key_a;
}

static const char *amount(apr_pool_t *p, apr_int64_t minor, const char *cur)
{
    return sbx_amount(p, minor, cur);
}

/* Guests of the whole stay spread over the rooms: adults in turn, then
 * children. 0, or -1 with the 422 answered. */
static int occupancy(trv_req *req, trv_resp *resp, const json_t *d, sbx_hquote *q)
{
    const json_t *guests = json_object_get(d, "guests"), *rooms = json_object_get(d, "rooms");
    const json_t *g;
    const char *reason;
    int adults = 0, children = 0, r;
    size_t i;
    if (!json_is_integer(rooms) || json_integer_value(rooms) < 1
        || json_integer_value(rooms) > SBX_MAX_HROOMS) {
        sbx_invalid(req, resp, "data.rooms", "must be 1 to 8");
        return -1;
    }
    q->n_rooms = (int)json_integer_value(rooms);
    if (!json_is_array(guests) || json_array_size(guests) < 1) {
        sbx_invalid(req, resp, "data.guests", "must list the guests");
        return -1;
    }
    memset(q->occ, 0, sizeof(q->occ));
    json_array_foreach(guests, i, g) {
        const char *t = trv_json_str(g, "type");
        const json_t *age = json_object_get(g, "age");
        if (t && strcmp(t, "adult") == 0) {
            q->occ[adults++ % q->n_rooms].adults++;
        }
        else if (t && strcmp(t, "child") == 0 && json_is_integer(age)) {
            sbx_occ *o = &q->occ[children++ % q->n_rooms];
            if (o->n_children == SBX_MAX_CHILDREN) {
                sbx_invalid(req, resp, "data.guests", "at most 4 children a room");
                return -1;
            }
            o->ages[o->n_children++] = (int)json_integer_value(age);
        }
        else {
            sbx_invalid(req, resp, apr_psprintf(req->pool, "data.guests[%d]", (int)i),
                        "must be {type: adult} or {type: child, age}");
            return -1;
        }
    }
    for (r = 0; r < q->n_rooms; r++) {
        if (sbx_occ_check(&q->occ[r], &reason) != 0) {
            sbx_invalid(req, resp, "data.guests", apr_psprintf(req->pool,
                        "%s (the guests share %d rooms)", reason, q->n_rooms));
            return -1;
        }
    }
    return 0;
}

static json_t *guests_json(const sbx_hquote *q)
{
    json_t *g = json_array();
    int r, i;
    for (r = 0; r < q->n_rooms; r++) {
        for (i = 0; i < q->occ[r].adults; i++) {
            json_array_append_new(g, json_pack("{s:s}", "type", "adult"));
        }
    }
    for (r = 0; r < q->n_rooms; r++) {
        for (i = 0; i < q->occ[r].n_children; i++) {
            json_array_append_new(g, json_pack("{s:s,s:i}", "type", "child", "age",
                                               q->occ[r].ages[i]));
        }
    }
    return g;
}

static json_t *accommodation(apr_pool_t *p, const sbx_hotels *h, int i, json_t *rooms)
{
    const sbx_hotel *x = &h->hotels[i];
    const sbx_hcity *c = &h->cities[x->city];
    return json_pack("{s:s,s:s,s:n,s:o,s:n,s:{s:s,s:s},s:n,s:n,s:n,"
                     "s:{s:{s:s,s:s,s:s,s:s},s:{s:f,s:f}},s:[],s:[{s:s,s:i}],s:i,s:i,s:f,"
                     "s:o,s:n}",
        "id", apr_psprintf(p, "acc_%07d", i), "name", x->name, "amenities",
        "chain", x->chain ? json_pack("{s:s,s:s}", "id", apr_psprintf(p, "chn_%08lx",
                  (unsigned long)apr_hashfunc_default(x->chain, &(apr_ssize_t){APR_HASH_KEY_STRING})),
                  "name", x->chain) : json_null(),
        "brand",
        "check_in_information", "check_in_after_time", "15:00", "check_out_before_time", "11:00",
        "key_collection", "email", "phone_number",
        "location", "address", "city_name", c->name, "country_code", c->country_code,
        "line_one", apr_psprintf(p, "%d %s", x->street_no, x->street),
        "postal_code", x->postal_code,
        "geographic_coordinates", "latitude", x->lat, "longitude", x->lon,
        "photos",
        "ratings", "source", "priceline", "value", x->stars,
        "rating", x->stars, "review_count", x->reviews,
        "review_score", (double)x->rating10 / 10.0,
        "rooms", rooms ? rooms : json_array(),
        "supported_loyalty_programme");
}

static const char *board_type(int b)
{
    static const char *const types[SBX_BOARDS] = {"room_only", "breakfast", "half_board",
                                                  "all_inclusive"};
    return b >= 0 && b < SBX_BOARDS ? types[b] : "room_only";
}

/* Totals of q priced now: all rooms; *refund_until 0 when not refundable. */
typedef struct stays_price {
    apr_int64_t total, vat, due;
    apr_int64_t refund_until;
} stays_price;

static void price(trv_req *req, sbx_hquote *q, stays_price *out)
{
    sbx_hprice pr[SBX_MAX_HROOMS];
    int r;
    q->total = sbx_hquote_price(SBX_HOTELS(req), SBX(req)->world, q, sbx_now(), pr);
    memset(out, 0, sizeof(*out));
    out->total = q->total;
    out->refund_until = pr[0].refundable ? pr[0].deadline : 0;
    for (r = 0; r < q->n_rooms; r++) {
        out->vat += pr[r].vat;
        out->due += pr[r].due_at_property;
        if (!pr[r].refundable || pr[r].deadline < out->refund_until) {
            out->refund_until = pr[r].refundable ? pr[r].deadline : 0;
        }
    }
}

/* The amounts a rate and a quote both state: total, base (total less
 * VAT), tax, fee (none) and what is due at the accommodation. */
static json_t *amounts_json(apr_pool_t *p, const stays_price *sp, const char *cur)
{
    return json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s}",
        "total_amount", amount(p, sp->total, cur), "total_currency", cur,
        "base_amount", amount(p, sp->total - sp->vat, cur), "base_currency", cur,
        "tax_amount", amount(p, sp->vat, cur), "tax_currency", cur,
        "fee_amount", amount(p, 0, cur), "fee_currency", cur,
        "due_at_accommodation_amount", amount(p, sp->due, cur),
        "due_at_accommodation_currency", cur);
}

static json_t *rate_json(trv_req *req, sbx_hquote *q)
{
    apr_pool_t *p = req->pool;
    const char *cur = q->currency;
    stays_price sp;
    json_t *out;
    price(req, q, &sp);
    out = json_pack("{s:s,s:s,s:o,s:[],s:s,"
                    "s:[s],s:n,s:b,s:n,s:n,s:s,s:s,s:n,s:n,s:s,s:i}",
        "id", apr_pstrcat(p, "rat_", sbx_hquote_encode(p, q, "dr", key_of(req)), NULL),
        "board_type", board_type(q->board),
        "cancellation_timeline", sp.refund_until
            ? json_pack("[{s:s,s:s,s:s}]", "refund_amount", amount(p, sp.total, cur),
                        "currency", cur, "before", sbx_instant(p, sp.refund_until))
            : json_array(),
        "conditions",
        "payment_type", "pay_now",
        "available_payment_methods", "balance",
        "supported_loyalty_programme", "loyalty_programme_required", 0,
        "estimated_commission_amount", "estimated_commission_currency",
        "source", "duffel", "expires_at", sbx_instant(p, q->expires),
        "code", "description",
        "name", apr_pstrcat(p, sbx_room_type_get(q->room)->name, ", ",
                            sbx_board_get(q->board)->name, NULL),
        "quantity_available", 3);
    json_object_update_new(out, amounts_json(p, &sp, cur));
    return out;
}

/* The search result of hotel i for the stay: its cheapest rate. */
static json_t *result_json(trv_req *req, sbx_hquote *q, json_t *rooms, int *any)
{
    apr_pool_t *p = req->pool;
    sbx_hquote best;
    stays_price sp;
    json_t *out;
    *any = sbx_hotel_rates(SBX_HOTELS(req), SBX(req)->world, q, sbx_now(), &best, 1) == 1;
    if (!*any) {
        json_decref(rooms);
        return NULL;
    }
    best.expires = q->expires;
    price(req, &best, &sp);
    out = json_pack("{s:s,s:s,s:s,s:o,s:i,s:o,s:s,s:s,s:s,s:s,s:n,s:s,s:s,s:s,s:s}",
        "id", apr_pstrcat(p, "srr_", sbx_hquote_encode(p, q, "ds", key_of(req)), NULL),
        "check_in_date", sbx_day_format(p, q->checkin),
        "check_out_date", sbx_day_format(p, q->checkin + q->nights),
        "accommodation", accommodation(p, SBX_HOTELS(req), q->hotel, rooms),
        "rooms", q->n_rooms, "guests", guests_json(q),
        "cheapest_rate_total_amount", amount(p, sp.total, q->currency),
        "cheapest_rate_currency", q->currency,
        "cheapest_rate_base_amount", amount(p, sp.total - sp.vat, q->currency),
        "cheapest_rate_base_currency", q->currency,
        "cheapest_rate_public_amount", "cheapest_rate_public_currency", q->currency,
        "cheapest_rate_due_at_accommodation_amount", amount(p, sp.due, q->currency),
        "cheapest_rate_due_at_accommodation_currency", q->currency,
        "expires_at", sbx_instant(p, q->expires));
    return out;
}

static void search(trv_req *req, trv_resp *resp)
{
    const sbx_hotels *h;
    const json_t *b, *d, *loc, *acc;
    const char *field, *reason;
    sbx_hquote q;
    json_t *results;
    apr_int64_t now = sbx_now();
    long checkout;
    int *idx, n = 0, k;
    if (!sbx_need_hotels(req, resp) || !(b = sbx_body(req, resp))) {
        return;
    }
    h = SBX_HOTELS(req);
    d = json_object_get(b, "data");
    memset(&q, 0, sizeof(q));
    q.supplier = STAYS_SUPPLIER;
    q.today = (long)(now / 86400);
    q.factor_permille = 1000;
    q.expires = now + STAYS_TTL;
    q.checkin = sbx_day_of(trv_json_str(d, "check_in_date"));
    checkout = sbx_day_of(trv_json_str(d, "check_out_date"));
    if (sbx_stay_check(q.checkin, checkout, q.today, &field, &reason) != 0) {
        sbx_invalid(req, resp, strcmp(field, "checkin") == 0 ? "data.check_in_date"
                                                              : "data.check_out_date", reason);
        return;
    }
    q.nights = (int)(checkout - q.checkin);
    if (occupancy(req, resp, d, &q) != 0) {
        return;
    }
    idx = apr_palloc(req->pool, sizeof(int) * (apr_size_t)h->n_hotels);
    loc = json_object_get(d, "location");
    acc = json_object_get(d, "accommodation");
    if (json_is_object(loc) == json_is_object(acc)) {
        sbx_invalid(req, resp, "data.location", "give location or accommodation, one of them");
        return;
    }
    if (loc) {
        const json_t *gc = json_object_get(loc, "geographic_coordinates");
        const json_t *radius = json_object_get(loc, "radius");
        double lat = json_number_value(json_object_get(gc, "latitude"));
        double lon = json_number_value(json_object_get(gc, "longitude"));
        if (!json_is_number(json_object_get(gc, "latitude"))
            || !json_is_number(json_object_get(gc, "longitude")) || fabs(lat) > 90
            || fabs(lon) > 180) {
            sbx_invalid(req, resp, "data.location.geographic_coordinates",
                        "latitude and longitude are required");
            return;
        }
        if (!json_is_number(radius) || json_number_value(radius) <= 0
            || json_number_value(radius) > 100) {
            sbx_invalid(req, resp, "data.location.radius", "must be 1 to 100 (km)");
            return;
        }
        n = sbx_hotels_near(h, STAYS_SUPPLIER, lat, lon, json_number_value(radius) * 1000, idx,
                            h->n_hotels);
    }
    else {
        const json_t *ids = json_object_get(acc, "ids"), *v;
        size_t i;
        if (!json_is_array(ids) || json_array_size(ids) < 1
            || json_array_size(ids) > STAYS_MAX_RESULTS) {
            sbx_invalid(req, resp, "data.accommodation.ids", "must list 1 to 50 ids");
            return;
        }
        json_array_foreach(ids, i, v) {
            const char *id = json_string_value(v);
            char *end;
            long x = id && strncmp(id, "acc_", 4) == 0 ? strtol(id + 4, &end, 10) : -1;
            if (x >= 0 && x < h->n_hotels && !*end
                && (h->hotels[x].suppliers & (1u << STAYS_SUPPLIER))) {
                idx[n++] = (int)x;
            }
        }
    }
    results = json_array();
    for (k = 0; k < n && json_array_size(results) < STAYS_MAX_RESULTS; k++) {
        int any;
        json_t *r;
        q.hotel = idx[k];
        snprintf(q.currency, sizeof(q.currency), "%s",
                 sbx_market_currency(h->cities[h->hotels[q.hotel].city].country_code));
        if ((r = result_json(req, &q, NULL, &any))) {
            json_array_append_new(results, r);
        }
    }
    sbx_send(req, resp, 200, json_pack("{s:{s:o,s:s}}", "data", "results", results,
                                       "created_at", sbx_instant(req->pool, now)));
}

/* A token of ours after its prefix: 0, or -1 with 404 answered. */
static int decode(trv_req *req, trv_resp *resp, const char *id, const char *prefix,
                  const char *kind, sbx_hquote *q)
{
    size_t n = strlen(prefix);
    if (!id || strncmp(id, prefix, n) != 0
        || sbx_hquote_decode(req->pool, id + n, kind, key_of(req), SBX_HOTELS(req), q) != 0) {
        sbx_error(req, resp, 404, "not_found", "No %s %s", kind[1] == 's' ? "search result"
                  : kind[1] == 'r' ? "rate" : "quote", id ? id : "");
        return -1;
    }
    if (q->expires < sbx_now()) {
        sbx_error(req, resp, 422, kind[1] == 'q' ? "quote_expired" : "rate_expired",
                  "It expired at %s; search again", sbx_instant(req->pool, q->expires));
        return -1;
    }
    return 0;
}

static void fetch_all_rates(trv_req *req, trv_resp *resp)
{
    sbx_hquote q, rates[STAYS_MAX_RATES];
    json_t *rooms, *out;
    int n, k, any;
    if (!sbx_need_hotels(req, resp)
        || decode(req, resp, apr_table_get(req->params, "id"), "srr_", "ds", &q) != 0) {
        return;
    }
    n = sbx_hotel_rates(SBX_HOTELS(req), SBX(req)->world, &q, sbx_now(), rates,
                        STAYS_MAX_RATES);
    rooms = json_array();
    for (k = 0; k < n; k++) {
        /* One room entry per room type, its rates in the order found. */
        const sbx_room_type *rt = sbx_room_type_get(rates[k].room);
        json_t *room = NULL, *e;
        size_t i;
        json_array_foreach(rooms, i, e) {
            if (strcmp(trv_json_str(e, "name"), rt->name) == 0) {
                room = e;
            }
        }
        if (!room) {
            room = json_pack("{s:s,s:[],s:[]}", "name", rt->name, "photos", "rates");
            json_array_append_new(rooms, room);
        }
        rates[k].expires = q.expires;
        json_array_append_new(json_object_get(room, "rates"), rate_json(req, &rates[k]));
    }
    out = result_json(req, &q, rooms, &any);
    if (!out) {
        sbx_error(req, resp, 422, "no_availability", "The accommodation has no rates any more");
        return;
    }
    sbx_send(req, resp, 200, json_pack("{s:o}", "data", out));
}

static json_t *quote_json(trv_req *req, sbx_hquote *q, const char *id)
{
    apr_pool_t *p = req->pool;
    const char *cur = q->currency;
    stays_price sp;
    json_t *out;
    price(req, q, &sp);
    out = json_pack("{s:s,s:s,s:s,s:o,s:n,s:s,s:n,s:i,s:o}",
        "id", id, "check_in_date", sbx_day_format(p, q->checkin),
        "check_out_date", sbx_day_format(p, q->checkin + q->nights),
        "accommodation", accommodation(p, SBX_HOTELS(req), q->hotel, NULL),
        "deposit_amount", "deposit_currency", cur,
        "supported_loyalty_programme", "rooms", q->n_rooms, "guests", guests_json(q));
    json_object_update_new(out, amounts_json(p, &sp, cur));
    return out;
}

static void create_quote(trv_req *req, trv_resp *resp)
{
    const json_t *b;
    sbx_hquote q;
    apr_uint32_t serial;
    if (!sbx_need_hotels(req, resp) || !(b = sbx_body(req, resp))
        || decode(req, resp, trv_json_str(json_object_get(b, "data"), "rate_id"), "rat_", "dr",
                  &q) != 0) {
        return;
    }
    /* Every quote of a rate is its own (a booking takes one quote once). */
    trv_random_bytes((unsigned char *)&serial, sizeof(serial));
    q.serial = serial | 1u;
    q.expires = sbx_now() + STAYS_TTL;
    sbx_send(req, resp, 201, json_pack("{s:o}", "data", quote_json(req, &q,
        apr_pstrcat(req->pool, "quo_", sbx_hquote_encode(req->pool, &q, "dq", key_of(req)),
                    NULL))));
}

static void get_quote(trv_req *req, trv_resp *resp)
{
    const char *id = apr_table_get(req->params, "id");
    sbx_hquote q;
    if (!sbx_need_hotels(req, resp) || decode(req, resp, id, "quo_", "dq", &q) != 0) {
        return;
    }
    sbx_send(req, resp, 200, json_pack("{s:o}", "data", quote_json(req, &q, id)));
}

/* ---- bookings ---- */

/* Row i of a bookings select as Duffel's booking. */
static json_t *booking_json(trv_req *req, const trv_rows *r, int i)
{
    json_t *doc = trv_json_parse(req->pool, trv_rows_get(r, i, "doc"),
                                 strlen(trv_rows_get(r, i, "doc")), NULL);
    const char *cancelled = trv_rows_get(r, i, "cancelled_at");
    json_t *out = doc ? json_deep_copy(doc) : json_object();
    json_object_set_new(out, "id", json_string(trv_rows_get(r, i, "id")));
    json_object_set_new(out, "reference", json_string(trv_rows_get(r, i, "reference")));
    json_object_set_new(out, "status", json_string(trv_rows_get(r, i, "status")));
    json_object_set_new(out, "confirmed_at", json_string(trv_rows_get(r, i, "confirmed_at")));
    json_object_set_new(out, "cancelled_at", cancelled ? json_string(cancelled) : json_null());
    return out;
}

static void create_booking(trv_req *req, trv_resp *resp)
{
    const json_t *b, *d, *guests, *g, *meta;
    const char *id = trv_id_new(req->pool, "bok"), *qid;
    sbx_hquote q;
    stays_price sp;
    json_t *doc, *names, *out;
    trv_dbc *c = NULL;
    trv_rows *rows;
    size_t i;
    char ref[9];
    if (!sbx_need_hotels(req, resp) || !(b = sbx_body(req, resp))) {
        return;
    }
    d = json_object_get(b, "data");
    qid = trv_json_str(d, "quote_id");
    if (decode(req, resp, qid, "quo_", "dq", &q) != 0) {
        return;
    }
    guests = json_object_get(d, "guests");
    if (!json_is_array(guests) || json_array_size(guests) < 1) {
        sbx_invalid(req, resp, "data.guests", "must name the guests");
        return;
    }
    names = trv_json_bind(req->pool, json_array());
    json_array_foreach(guests, i, g) {
        const char *given = trv_json_str(g, "given_name"), *family = trv_json_str(g, "family_name");
        if (!given || !*given || !family || !*family) {
            sbx_invalid(req, resp, apr_psprintf(req->pool, "data.guests[%d]", (int)i),
                        "given_name and family_name are required");
            return;
        }
        json_array_append_new(names, json_pack("{s:s,s:s}", "given_name", given,
                                               "family_name", family));
    }
    if (!trv_json_str(d, "email") || !strchr(trv_json_str(d, "email"), '@')) {
        sbx_invalid(req, resp, "data.email", "must be an email address");
        return;
    }
    if (!trv_json_str(d, "phone_number") || trv_json_str(d, "phone_number")[0] != '+') {
        sbx_invalid(req, resp, "data.phone_number", "must be in E.164 form (+44...)");
        return;
    }
    meta = json_object_get(d, "metadata");
    if (meta && !json_is_object(meta) && !json_is_null(meta)) {
        sbx_invalid(req, resp, "data.metadata", "must be an object of strings");
        return;
    }
    price(req, &q, &sp);
    doc = trv_json_bind(req->pool, json_pack("{s:s,s:s,s:o,s:s,s:s,s:O,s:n,s:n,s:i,s:o,s:n,"
                                             "s:n,s:n}",
        "email", trv_json_str(d, "email"), "phone_number", trv_json_str(d, "phone_number"),
        "accommodation", accommodation(req->pool, SBX_HOTELS(req), q.hotel, NULL),
        "check_in_date", sbx_day_format(req->pool, q.checkin),
        "check_out_date", sbx_day_format(req->pool, q.checkin + q.nights),
        "guests", names, "supported_loyalty_programme", "loyalty_programme_account_number",
        "rooms", q.n_rooms, "metadata", meta && json_is_object(meta) ? json_deep_copy(meta)
                                                                     : json_null(),
        "key_collection", "estimated_commission_amount", "estimated_commission_currency"));
    sbx_random_chars(ref, 8, "ABCDEFGHJKLMNPQRSTUVWXYZ23456789");
    if (!sbx_idem_begin(req, resp, &c, 1811, "booking a stay")) {
        return;
    }
    if (trv_db_select(c, req->pool, &st_insert, &rows, TRV_DB_ARGS(id, qid, ref, q.currency,
            apr_psprintf(req->pool, "%" APR_INT64_T_FMT, sp.total),
            trv_json_dump(req->pool, doc))) != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 1812, "booking a stay");
        return;
    }
    if (rows->n == 0) {
        json_t *err = trv_json_bind(req->pool, sbx_error_doc(req, "quote_already_booked",
            "This quote has been booked already; quote the rate again"));
        sbx_idem_finish(req, resp, c, 422, err, 1813, "booking a stay");
        return;
    }
    if (trv_db_select(c, req->pool, &st_get, &rows, TRV_DB_ARGS(id)) != APR_SUCCESS
        || rows->n != 1) {
        sbx_db_fail(req, resp, c, 1814, "booking a stay");
        return;
    }
    out = trv_json_bind(req->pool, json_pack("{s:o}", "data", booking_json(req, rows, 0)));
    sbx_idem_finish(req, resp, c, 201, out, 1815, "booking a stay");
}

static void read_booking(trv_req *req, trv_resp *resp, int cancel)
{
    const char *id = apr_table_get(req->params, "id");
    trv_dbc *c = NULL;
    trv_rows *rows;
    int changed = 0;
    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS
        || (cancel && trv_db_exec(c, req->pool, &st_cancel, &changed, TRV_DB_ARGS(id))
                      != APR_SUCCESS)
        || trv_db_select(c, req->pool, &st_get, &rows, TRV_DB_ARGS(id)) != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 1816, cancel ? "cancelling a stay" : "reading a stay");
        return;
    }
    trv_db_close(req->env->db, c);
    if (rows->n == 0) {
        sbx_error(req, resp, 404, "not_found", "No booking %s", id);
        return;
    }
    if (cancel && !changed) {
        /* Cancelled before: Duffel states no answer for a repeat; the
         * sandbox refuses it (as it refuses a cancellation of a cancelled
         * Air order), the strict reading, and the caller reads the
         * booking. */
        sbx_error(req, resp, 422, "booking_already_cancelled",
                  "Booking %s is already cancelled", id);
        return;
    }
    sbx_send(req, resp, 200, json_pack("{s:o}", "data", booking_json(req, rows, 0)));
}

static void get_booking(trv_req *req, trv_resp *resp)
{
    read_booking(req, resp, 0);
}

/* The bookings, a page at a time (air/duffel.c's cursors). */
static void list_bookings(trv_req *req, trv_resp *resp)
{
    sbx_duffel_page_t pg;
    trv_dbc *c = NULL;
    trv_rows *rows;
    json_t *list;
    int i;
    if (!sbx_duffel_page(req, resp, &pg)) {
        return;
    }
    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS
        || trv_db_select(c, req->pool, &st_list, &rows,
                         TRV_DB_ARGS(apr_itoa(req->pool, pg.limit), apr_itoa(req->pool, pg.offset)))
           != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 3101, "listing stays");
        return;
    }
    trv_db_close(req->env->db, c);
    list = json_array();
    for (i = 0; i < rows->n; i++) {
        json_array_append_new(list, booking_json(req, rows, i));
    }
    sbx_send(req, resp, 200, json_pack("{s:o,s:o}", "data", list, "meta",
        sbx_duffel_page_meta(req->pool, &pg, rows->n ? trv_rows_int(rows, 0, "total", 0)
                                                     : pg.offset)));
}

/* Cancels a confirmed booking; again: 422 booking_already_cancelled. */
static void cancel_booking(trv_req *req, trv_resp *resp)
{
    read_booking(req, resp, 1);
}

const trv_route sbx_stays_routes[] = {
    {"POST", SBX_DUFFEL_BASE "/stays/search", search, 0},
    {"POST", SBX_DUFFEL_BASE "/stays/search_results/{id}/actions/fetch_all_rates",
     fetch_all_rates, 0},
    {"POST", SBX_DUFFEL_BASE "/stays/quotes", create_quote, 0},
    {"GET", SBX_DUFFEL_BASE "/stays/quotes/{id}", get_quote, 0},
    {"POST", SBX_DUFFEL_BASE "/stays/bookings", create_booking, 0},
    {"GET", SBX_DUFFEL_BASE "/stays/bookings", list_bookings, TRV_ROUTE_OWN_QUERY},
    {"GET", SBX_DUFFEL_BASE "/stays/bookings/{id}", get_booking, 0},
    {"POST", SBX_DUFFEL_BASE "/stays/bookings/{id}/actions/cancel", cancel_booking, 0},
    {NULL, NULL, NULL, 0},
};
