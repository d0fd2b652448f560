/* SUPPLIER_C's hotel adapter: a client of an Expedia Rapid-style API
 * (Authorization: EAN APIKey=..,Signature=<SHA-512 hex of key + secret +
 * timestamp>,timestamp=..; bare JSON; money as {value (decimal string),
 * currency}). Its content carries no shared code: mapping joins its
 * properties to the others' hotels by name, postal code and distance.
 * Search: the content of a city or around a point (up to 250 properties,
 * one page), then availability for those properties; a rate's price per
 * room is its occupancy's totals.inclusive. */
#include "hotel/supplier.h"
#include "core/clock.h"
#include "core/crypt.h"
#include "core/json.h"
#include "core/url.h"

#include <apr_hash.h>
#include <apr_strings.h>
#include <apr_time.h>
#include <apr_uri.h>
#include <string.h>

#define MAX_PROPERTIES 250
/* Rates asked per property in a search, of which the cheapest is kept:
 * the API answers its cheapest rate plans first, and every rate of a
 * property for two rooms is about 25 kB of JSON. */
#define SEARCH_RATE_PLANS 3

static apr_table_t *auth(trv_hotel_ctx *ctx)
{
    apr_table_t *h = apr_table_make(ctx->pool, 1);
    const char *key = ctx->up->api_key ? ctx->up->api_key : "";
    const char *secret = ctx->up->api_secret ? ctx->up->api_secret : "";
    const char *ts = apr_psprintf(ctx->pool, "%" APR_TIME_T_FMT, apr_time_sec(apr_time_now()));
    apr_table_setn(h, "Authorization",
                   apr_psprintf(ctx->pool, "EAN APIKey=%s,Signature=%s,timestamp=%s", key,
                                trv_crypt_sha_hex(ctx->pool,
                                                  apr_pstrcat(ctx->pool, key, secret, ts, NULL),
                                                  512),
                                ts));
    return h;
}

/* "2-5,7": adults, then the children's ages. */
static const char *occupancy(apr_pool_t *p, const trv_hotel_occ *o)
{
    char *s = apr_itoa(p, o->adults);
    int i;
    for (i = 0; i < o->n_children; i++) {
        s = apr_psprintf(p, "%s%c%d", s, i ? ',' : '-', o->ages[i]);
    }
    return s;
}

/* A rate's total for the stay: every requested room's occupancy price. */
static int rate_total(apr_pool_t *p, const json_t *rate, const trv_hotel_stay *stay,
                      apr_int64_t *total)
{
    const json_t *pricing = json_object_get(rate, "occupancy_pricing");
    int i;
    *total = 0;
    for (i = 0; i < stay->n_rooms; i++) {
        const json_t *inc = json_object_get(
            json_object_get(json_object_get(json_object_get(pricing,
                                                            occupancy(p, &stay->rooms[i])),
                                            "totals"), "inclusive"),
            "request_currency");
        apr_int64_t m;
        /* Each room's price is in range; their sum must be too (found by
         * fuzz_hotel_supplier: three rooms at the largest amount). */
        if (!trv_json_str(inc, "currency") || strcmp(trv_json_str(inc, "currency"), stay->currency)
            || trv_money_minor_of(json_object_get(inc, "value"), stay->currency, &m)
            || trv_hwire_sum(total, m) != 0) {
            return -1;
        }
    }
    return 0;
}

static trv_up_status price(trv_hotel_ctx *ctx, const trv_hotel_stay *stay,
                           apr_array_header_t *found, trv_hotel_err *err)
{
    apr_hash_t *by_id = apr_hash_make(ctx->pool);
    const char *path = apr_psprintf(ctx->pool,
                                    "/properties/availability?checkin=%s&checkout=%s&currency=%s"
                                    "&rate_plan_count=%d",
                                    stay->check_in, stay->check_out, stay->currency,
                                    SEARCH_RATE_PLANS);
    trv_up_result res;
    trv_up_status st;
    json_t *h;
    size_t i;
    int k;
    if (!found->nelts) {
        return TRV_UP_OK;
    }
    for (k = 0; k < stay->n_rooms; k++) {
        path = apr_pstrcat(ctx->pool, path, "&occupancy=",
                           trv_url_escape(ctx->pool, occupancy(ctx->pool, &stay->rooms[k])), NULL);
    }
    for (k = 0; k < found->nelts; k++) {
        trv_hotel_found *f = &APR_ARRAY_IDX(found, k, trv_hotel_found);
        path = apr_pstrcat(ctx->pool, path, "&property_id=", trv_url_escape(ctx->pool, f->sid),
                           NULL);
        apr_hash_set(by_id, f->sid, APR_HASH_KEY_STRING, f);
    }
    st = trv_hwire_call(ctx, "GET", path, auth(ctx), NULL, &res, err);
    if (st != TRV_UP_OK) {
        return st;
    }
    if (!json_is_array(res.body)) {
        return trv_hwire_bad(ctx, err, "a list of properties");
    }
    json_array_foreach(res.body, i, h) {
        const char *pid = trv_json_str(h, "property_id");
        trv_hotel_found *f = pid ? apr_hash_get(by_id, pid, APR_HASH_KEY_STRING) : NULL;
        json_t *room, *rate;
        size_t r, q;
        if (!f) {
            continue;
        }
        json_array_foreach(json_object_get(h, "rooms"), r, room) {
            json_array_foreach(json_object_get(room, "rates"), q, rate) {
                apr_int64_t t;
                if (rate_total(ctx->pool, rate, stay, &t) != 0) {
                    return trv_hwire_bad(ctx, err, "a rate's price for every room");
                }
                if (!f->priced || t < f->total_minor) {
                    f->total_minor = t;
                    f->priced = 1;
                }
            }
        }
    }
    return TRV_UP_OK;
}

static trv_up_status search(trv_hotel_ctx *ctx, const trv_hotel_area *area,
                            const trv_hotel_stay *stay, apr_array_header_t **found,
                            trv_hotel_err *err)
{
    const char *path;
    trv_up_result res;
    trv_up_status st;
    const char *pid;
    json_t *p;
    if (area->by_point) {
        path = apr_psprintf(ctx->pool, "/properties/content?latitude=%s&longitude=%s"
                            "&radius_km=%.3f&limit=%d",
                            trv_hwire_num(ctx->pool, area->latitude),
                            trv_hwire_num(ctx->pool, area->longitude), area->radius_m / 1000.0,
                            MAX_PROPERTIES);
    }
    else {
        path = apr_psprintf(ctx->pool, "/properties/content?country_code=%s&city=%s&limit=%d",
                            trv_url_escape(ctx->pool, area->country_code),
                            trv_url_escape(ctx->pool, area->city), MAX_PROPERTIES);
    }
    st = trv_hwire_call_content(ctx, path, auth(ctx), &res, err);
    if (st != TRV_UP_OK) {
        return st;
    }
    if (!json_is_object(res.body)) {
        return trv_hwire_bad(ctx, err, "properties");
    }
    *found = apr_array_make(ctx->pool, (int)json_object_size(res.body) + 1,
                            sizeof(trv_hotel_found));
    json_object_foreach(res.body, pid, p) {
        trv_hotel_found *f = apr_array_push(*found);
        json_t *addr = json_object_get(p, "address");
        json_t *co = json_object_get(json_object_get(p, "location"), "coordinates");
        memset(f, 0, sizeof(*f));
        f->supplier = ctx->up->name; /* the site's wire name */
        f->sid = trv_json_str(p, "property_id");
        f->name = trv_json_str(p, "name");
        f->city = trv_json_str(addr, "city");
        f->country_code = trv_json_str(addr, "country_code");
        f->postal_code = trv_json_str(addr, "postal_code");
        f->latitude = json_number_value(json_object_get(co, "latitude"));
        f->longitude = json_number_value(json_object_get(co, "longitude"));
        if (!f->sid || !f->name || !f->country_code) {
            return trv_hwire_bad(ctx, err, "a property's id, name or country");
        }
    }
    return price(ctx, stay, *found, err);
}

static const json_t *request_currency(const json_t *pricing, const char *what)
{
    return json_object_get(json_object_get(json_object_get(pricing, "totals"), what),
                           "request_currency");
}

/* One rate of a room: its reference is the price-check link (what Rapid
 * books through); each room is priced by its occupancy's pricing. */
static int offer_of(trv_hotel_ctx *ctx, const trv_hotel_stay *stay, const char *sid,
                    const json_t *room, const json_t *rate, apr_time_t now,
                    trv_hotel_offer *out)
{
    const char *cur = stay->currency, *rid = trv_json_str(rate, "id"), *board, *bk;
    const char *promo_name = trv_json_str(json_object_get(json_object_get(rate, "promotions"),
                                                          "deal"), "description");
    const json_t *bg, *e;
    json_t *rooms = json_array(), *promos = json_array(), *policy;
    size_t k;
    int i;
    memset(out, 0, sizeof(*out));
    out->sid = sid;
    out->expires_at = now + TRV_HOTEL_OFFER_TTL;
    json_object_foreach(json_object_get(rate, "bed_groups"), bk, bg) {
        out->ref = trv_json_str(json_object_get(json_object_get(bg, "links"), "price_check"),
                                "href");
        break;
    }
    board = rid && strchr(rid, '-') ? strchr(rid, '-') + 1 : "RO";
    policy = json_pack("{s:b,s:[]}", "refundable",
                       json_is_true(json_object_get(rate, "refundable")), "penalties");
    trv_json_bind(ctx->pool, rooms);
    trv_json_bind(ctx->pool, promos);
    trv_json_bind(ctx->pool, policy);
    if (!out->ref || rate_total(ctx->pool, rate, stay, &out->total_minor) != 0) {
        return -1;
    }
    for (i = 0; i < stay->n_rooms; i++) {
        const json_t *pr = json_object_get(json_object_get(rate, "occupancy_pricing"),
                                           occupancy(ctx->pool, &stay->rooms[i]));
        const json_t *fees = request_currency(pr, "property_fees");
        json_t *ages = json_array();
        apr_int64_t total, due;
        int k2;
        if (trv_money_minor_of(json_object_get(request_currency(pr, "inclusive"), "value"),
                               cur, &total)) {
            json_decref(ages);
            return -1;
        }
        for (k2 = 0; k2 < stay->rooms[i].n_children; k2++) {
            json_array_append_new(ages, json_integer(stay->rooms[i].ages[k2]));
        }
        json_array_append_new(rooms, json_pack(
            "{s:i,s:s?,s:s,s:n,s:i,s:o,s:o,s:o}", "position", i,
            "name", trv_json_str(room, "room_name"), "board", trv_hwire_board(ctx->pool, board),
            "board_name", "adults", stay->rooms[i].adults, "children", ages,
            "total", trv_hwire_money(total, cur),
            "due_at_property", fees && !trv_money_minor_of(json_object_get(fees, "value"), cur, &due)
                                   ? trv_hwire_money(due, cur) : json_null()));
        json_array_foreach(json_object_get(pr, "stay"), k, e) {
            apr_int64_t m;
            if (strcmp(trv_json_str(e, "type") ? trv_json_str(e, "type") : "", "promotion") == 0
                && !trv_money_minor_of(json_object_get(e, "value"), cur, &m)
                && trv_hwire_promo_add(promos, promo_name ? promo_name : "Promotion",
                                       m < 0 ? -m : m, cur, i) != 0) {
                return -1;
            }
        }
    }
    json_array_foreach(json_object_get(rate, "cancel_penalties"), k, e) {
        if (trv_hwire_penalty_add(ctx->pool, policy, trv_json_str(e, "start"),
                                  json_object_get(e, "amount"), cur) != 0) {
            return -1;
        }
    }
    out->doc = json_pack("{s:{s:s?,s:s?},s:s,s:n,s:o,s:O,s:O,s:O}",
        "room_type", "code", trv_json_str(room, "id"), "name", trv_json_str(room, "room_name"),
        "board", trv_hwire_board(ctx->pool, board), "board_name",
        "total", trv_hwire_money(out->total_minor, cur),
        "cancellation_policy", policy, "promotions", promos, "rooms", rooms);
    trv_json_bind(ctx->pool, out->doc);
    return 0;
}

static trv_up_status offers(trv_hotel_ctx *ctx, const trv_hotel_stay *stay,
                            const char *const *sids, int n, int max_per_hotel,
                            apr_array_header_t **out, trv_hotel_err *err)
{
    const char *path = apr_psprintf(ctx->pool,
                                    "/properties/availability?checkin=%s&checkout=%s&currency=%s"
                                    "&rate_plan_count=%d",
                                    stay->check_in, stay->check_out, stay->currency,
                                    max_per_hotel);
    trv_up_result res;
    trv_up_status st;
    apr_time_t now = apr_time_now();
    json_t *h, *room, *rate;
    size_t i, k, j;
    int q;
    for (q = 0; q < stay->n_rooms; q++) {
        path = apr_pstrcat(ctx->pool, path, "&occupancy=",
                           trv_url_escape(ctx->pool, occupancy(ctx->pool, &stay->rooms[q])), NULL);
    }
    for (q = 0; q < n; q++) {
        path = apr_pstrcat(ctx->pool, path, "&property_id=", trv_url_escape(ctx->pool, sids[q]),
                           NULL);
    }
    st = trv_hwire_call(ctx, "GET", path, auth(ctx), NULL, &res, err);
    if (st != TRV_UP_OK) {
        return st;
    }
    if (!json_is_array(res.body)) {
        return trv_hwire_bad(ctx, err, "a list of properties");
    }
    *out = apr_array_make(ctx->pool, 16, sizeof(trv_hotel_offer));
    json_array_foreach(res.body, i, h) {
        const char *sid = trv_json_str(h, "property_id");
        json_array_foreach(json_object_get(h, "rooms"), k, room) {
            json_array_foreach(json_object_get(room, "rates"), j, rate) {
                if (!sid || offer_of(ctx, stay, sid, room, rate, now, apr_array_push(*out)) != 0) {
                    return trv_hwire_bad(ctx, err, "a rate's link and prices");
                }
            }
        }
    }
    trv_hwire_offers_trim(*out, max_per_hotel);
    return TRV_UP_OK;
}

/* ---- prebook, book, retrieve ---- */

/* Rapid's links are paths from its host ("/v3/itineraries?token=.."): the
 * path under this supplier's base URL. */
static const char *link_path(trv_hotel_ctx *ctx, const char *href)
{
    apr_uri_t u;
    const char *base = "";
    size_t n;
    if (apr_uri_parse(ctx->pool, ctx->up->base_url, &u) == APR_SUCCESS && u.path) {
        base = u.path;
    }
    n = strlen(base);
    while (n > 0 && base[n - 1] == '/') {
        n--;
    }
    return n && strncmp(href, base, n) == 0 ? href + n : href;
}

/* A room's total and its fees due at the property from an occupancy's
 * pricing; its policy from its own cancel_penalties. */
static json_t *room_of(trv_hotel_ctx *ctx, const json_t *pr, const char *cur, int refundable,
                       const char *board, int position, const trv_hotel_occ *occ)
{
    const json_t *fees = request_currency(pr, "property_fees"), *e;
    json_t *policy = json_pack("{s:b,s:[]}", "refundable", refundable, "penalties");
    json_t *ages = json_array();
    apr_int64_t total, due;
    size_t k;
    int i;
    trv_json_bind(ctx->pool, policy);
    if (trv_money_minor_of(json_object_get(request_currency(pr, "inclusive"), "value"), cur,
                           &total)) {
        json_decref(ages);
        return NULL;
    }
    json_array_foreach(json_object_get(pr, "cancel_penalties"), k, e) {
        if (trv_hwire_penalty_add(ctx->pool, policy, trv_json_str(e, "start"),
                                  json_object_get(e, "amount"), cur) != 0) {
            json_decref(ages);
            return NULL;
        }
    }
    for (i = 0; occ && i < occ->n_children; i++) {
        json_array_append_new(ages, json_integer(occ->ages[i]));
    }
    return json_pack("{s:i,s:n,s:s,s:n,s:i,s:o,s:o,s:o,s:O}", "position", position, "name",
                     "board", trv_hwire_board(ctx->pool, board), "board_name",
                     "adults", occ ? occ->adults : 0, "children", ages,
                     "total", trv_hwire_money(total, cur),
                     "due_at_property", fees && !trv_money_minor_of(json_object_get(fees, "value"),
                                                                    cur, &due)
                                            ? trv_hwire_money(due, cur) : json_null(),
                     "cancellation_policy", policy);
}

/* The price check: the rate at today's price and the link that books it. */
static trv_up_status prebook(trv_hotel_ctx *ctx, const trv_hotel_stay *stay, const char *sid,
                             const char *ref, trv_hotel_prebooked *out, trv_hotel_err *err)
{
    trv_up_result res;
    trv_up_status st;
    const char *status, *book, *rate_id, *board, *q;
    const json_t *pricing;
    json_t *rooms, *policy;
    int i, refundable;
    (void)sid;
    memset(out, 0, sizeof(*out));
    st = trv_hwire_call(ctx, "GET", link_path(ctx, ref), auth(ctx), NULL, &res, err);
    if (st != TRV_UP_OK) {
        return st;
    }
    status = trv_json_str(res.body, "status");
    if (status && strcmp(status, "sold_out") == 0) {
        err->code = "offer_expired";
        err->message = "the rate is no longer available";
        return TRV_UP_REJECTED;
    }
    book = trv_json_str(json_object_get(json_object_get(res.body, "links"), "book"), "href");
    pricing = json_object_get(res.body, "occupancy_pricing");
    /* The rate's id (RFN-BB, NRF-RO) is the link's last path segment. */
    q = strchr(ref, '?');
    rate_id = apr_pstrndup(ctx->pool, ref, q ? (apr_size_t)(q - ref) : strlen(ref));
    rate_id = strrchr(rate_id, '/') ? strrchr(rate_id, '/') + 1 : rate_id;
    board = strchr(rate_id, '-') ? strchr(rate_id, '-') + 1 : "RO";
    refundable = strncmp(rate_id, "NRF", 3) != 0;
    if (!status || !book || rate_total(ctx->pool, res.body, stay, &out->total_minor) != 0) {
        return trv_hwire_bad(ctx, err, "a price check's status, link and prices");
    }
    rooms = trv_json_bind(ctx->pool, json_array());
    for (i = 0; i < stay->n_rooms; i++) {
        json_t *r = room_of(ctx, json_object_get(pricing, occupancy(ctx->pool, &stay->rooms[i])),
                            stay->currency, refundable, board, i, &stay->rooms[i]);
        if (!r) {
            return trv_hwire_bad(ctx, err, "a room's price and policy");
        }
        json_array_append_new(rooms, r);
    }
    policy = trv_json_bind(ctx->pool, trv_hwire_policy_sum(ctx->pool, rooms, stay->currency));
    out->prebook_id = book;
    out->expires_at = apr_time_now() + TRV_HOTEL_OFFER_TTL;
    out->price_changed = strcmp(status, "price_changed") == 0;
    out->doc = trv_json_bind(ctx->pool, json_pack(
        "{s:s,s:o,s:O?,s:[],s:O}", "board", trv_hwire_board(ctx->pool, board),
        "total", trv_hwire_money(out->total_minor, stay->currency),
        "cancellation_policy", policy, "promotions", "rooms", rooms));
    return TRV_UP_OK;
}

/* An itinerary: pending while any room is, canceled when every room is. */
static trv_up_status booked_of(trv_hotel_ctx *ctx, const json_t *it, trv_hotel_booked *out,
                               trv_hotel_err *err)
{
    const json_t *r, *pay = json_array_get(json_object_get(it, "payments"), 0);
    const json_t *total = json_object_get(json_object_get(it, "totals"), "inclusive");
    const char *cur;
    size_t i;
    int pending = 0, canceled = 0, n = 0;
    memset(out, 0, sizeof(*out));
    total = json_object_get(total, "request_currency");
    cur = trv_json_str(total, "currency");
    out->booking_id = trv_json_str(it, "itinerary_id");
    out->client_reference = trv_json_str(it, "affiliate_reference_id");
    if (!out->booking_id || !cur
        || trv_money_minor_of(json_object_get(total, "value"), cur, &out->total_minor)) {
        return trv_hwire_bad(ctx, err, "an itinerary's id and total");
    }
    out->rooms = trv_json_bind(ctx->pool, json_array());
    json_array_foreach(json_object_get(it, "rooms"), i, r) {
        const json_t *rate = json_object_get(r, "rate"), *conf = json_object_get(r, "confirmation_id");
        const char *st = trv_json_str(r, "status") ? trv_json_str(r, "status") : "";
        json_t *pr = json_pack("{s:O?,s:O?}", "totals",
                               json_object_get(json_object_get(rate, "pricing"), "totals"),
                               "cancel_penalties", json_object_get(rate, "cancel_penalties"));
        json_t *room = room_of(ctx, pr, cur, json_is_true(json_object_get(rate, "refundable")),
                               "RO", (int)i, NULL);
        json_decref(pr);
        if (!room) {
            return trv_hwire_bad(ctx, err, "a room's pricing and policy");
        }
        pending += strcmp(st, "pending") == 0;
        canceled += strcmp(st, "canceled") == 0;
        n++;
        if (!out->hotel_confirmation_code) {
            out->hotel_confirmation_code = trv_json_str(conf, "property");
        }
        /* A rate with neither cancel_penalties nor refundable states no
         * policy (NULL): the booking keeps the one of prebook (book.c). */
        json_array_append_new(out->rooms, json_pack("{s:i,s:s?,s:s?,s:O?}", "position", (int)i,
                                                    "supplier_reference_number",
                                                    trv_json_str(conf, "expedia"),
                                                    "hotel_confirmation_code",
                                                    trv_json_str(conf, "property"),
                                                    "cancellation_policy",
                                                    json_is_array(json_object_get(
                                                        rate, "cancel_penalties"))
                                                    || json_is_boolean(json_object_get(
                                                        rate, "refundable"))
                                                        ? json_object_get(room,
                                                                          "cancellation_policy")
                                                        : NULL));
        json_decref(room);
    }
    if (n == 0) {
        return trv_hwire_bad(ctx, err, "an itinerary's rooms");
    }
    out->status = pending ? "PENDING" : canceled == n ? "CANCELED" : "CONFIRMED";
    out->cancellation_policy = trv_json_bind(ctx->pool,
                                             trv_hwire_policy_sum(ctx->pool, out->rooms, cur));
    if (pay) {
        apr_int64_t m;
        /* Merchant of record: what it charged the traveller's card. */
        out->payment = trv_json_bind(ctx->pool, json_pack(
            "{s:s,s:o,s:s?}", "collected_by", trv_json_str(pay, "collected_by")
                                                  ? trv_json_str(pay, "collected_by")
                                                  : ctx->up->name,
            "amount", trv_money_minor_of(json_object_get(pay, "amount"), cur, &m) == 0
                          ? trv_hwire_money(m, cur) : trv_hwire_money(out->total_minor, cur),
            "last4", trv_json_str(pay, "last4")));
    }
    return TRV_UP_OK;
}

static trv_up_status retrieve(trv_hotel_ctx *ctx, const char *booking_id,
                              const char *client_reference, trv_hotel_booked *out,
                              trv_hotel_err *err)
{
    trv_up_result res;
    trv_up_status st;
    if (!booking_id) {
        st = trv_hwire_call(ctx, "GET", apr_psprintf(ctx->pool,
                                                     "/itineraries?affiliate_reference_id=%s",
                                                     trv_url_escape(ctx->pool, client_reference)),
                            auth(ctx), NULL, &res, err);
        if (st != TRV_UP_OK) {
            return st;
        }
        if (!json_is_array(res.body)) {
            return trv_hwire_bad(ctx, err, "a list of itineraries");
        }
        if (json_array_size(res.body) == 0) {
            err->code = "not_found";
            err->message = "no itinerary under this affiliate reference";
            return TRV_UP_NOT_FOUND;
        }
        return booked_of(ctx, json_array_get(res.body, 0), out, err);
    }
    st = trv_hwire_call(ctx, "GET", apr_psprintf(ctx->pool, "/itineraries/%s",
                                                 trv_url_escape(ctx->pool, booking_id)),
                        auth(ctx), NULL, &res, err);
    if (st != TRV_UP_OK) {
        return st;
    }
    return booked_of(ctx, res.body, out, err);
}

/* Rapid books the checked price through its book link; Expedia, the
 * merchant of record, charges the traveller's card. The request goes
 * through the payment provider's vault and forward with the card number
 * left empty: the provider fills it from the saved instrument. */
static trv_up_status book(trv_hotel_ctx *ctx, const trv_hotel_book_req *rq,
                          trv_hotel_booked *out, trv_hotel_err *err)
{
    const trv_hotel_party *pt = rq->party;
    json_t *rooms = json_array(), *body;
    trv_up_result res;
    trv_up_status st;
    int i;
    if (!rq->payment_instrument_id) {
        err->code = "payment_instrument_invalid";
        err->message = "the supplier charges the traveller's card: a saved instrument is "
                       "required";
        return TRV_UP_REJECTED;
    }
    for (i = 0; i < pt->n_rooms; i++) {
        /* One name per room: the room's lead guest. */
        const trv_hotel_guest *g = &pt->guests[i][0];
        int k;
        for (k = 0; k < pt->n_guests[i]; k++) {
            if (pt->guests[i][k].is_lead) {
                g = &pt->guests[i][k];
            }
        }
        json_array_append_new(rooms, json_pack("{s:s,s:s,s:b}", "given_name", g->first_name,
                                               "family_name", g->last_name, "smoking", 0));
    }
    body = trv_json_bind(ctx->pool, json_pack(
        "{s:s,s:b,s:s,s:{s:s,s:s},s:o,s:[{s:s,s:s}]}",
        "affiliate_reference_id", rq->client_reference, "hold", 0, "email", pt->email,
        "phone", "country_code", "", "number", pt->phone ? pt->phone : "",
        "rooms", rooms, "payments", "type", "customer_card", "number", ""));
    st = trv_hwire_call_forwarded(ctx, "POST", link_path(ctx, rq->prebook_id), auth(ctx), body,
                                  rq->idempotency_key, rq->payment_instrument_id, &res, err);
    if (st == TRV_UP_REJECTED && res.code) {
        if (strcmp(res.code, "duplicate_itinerary") == 0) {
            return retrieve(ctx, NULL, rq->client_reference, out, err);
        }
        err->code = strcmp(res.code, "booking_refused") == 0 ? "book_failed"
                  : strcmp(res.code, "price_mismatch") == 0 ? "price_changed" : err->code;
    }
    if (st != TRV_UP_OK) {
        return st;
    }
    if (!trv_json_str(res.body, "itinerary_id")) {
        return trv_hwire_bad(ctx, err, "an itinerary id");
    }
    if (retrieve(ctx, trv_json_str(res.body, "itinerary_id"), NULL, out, err) != TRV_UP_OK) {
        /* Booked, whatever the read says: what the create answered. */
        memset(out, 0, sizeof(*out));
        out->booking_id = trv_json_str(res.body, "itinerary_id");
        out->client_reference = rq->client_reference;
        out->status = strcmp(trv_json_str(res.body, "status") ? trv_json_str(res.body, "status")
                                                              : "", "pending") == 0
                          ? "PENDING" : "CONFIRMED";
        out->total_minor = -1;
    }
    return TRV_UP_OK;
}

/* ---- cancellation ---- */

/* Rapid money {value, currency}: minor units in *minor; currency set from
 * the first amount read and then required to match. */
static int rapid_money(const json_t *m, const char **currency, apr_int64_t *minor)
{
    const char *cur = trv_json_str(m, "currency");
    if (!cur || (*currency && strcmp(*currency, cur) != 0)) {
        return -1;
    }
    *currency = cur;
    return trv_money_minor_of(json_object_get(m, "value"), cur, minor);
}

/* DELETE /itineraries/{id} cancels every room; the sandbox answers 200
 * with the itinerary and its cancellation {penalty, refund} (Rapid's
 * room DELETE answers 204 and the itinerary is read after). */
static trv_up_status cancel(trv_hotel_ctx *ctx, const char *ref, trv_hotel_canceled *out,
                            trv_hotel_err *err)
{
    trv_up_result res;
    trv_up_status st = trv_hwire_call(ctx, "DELETE",
                                      apr_pstrcat(ctx->pool, "/itineraries/",
                                                  trv_url_escape(ctx->pool, ref), NULL),
                                      auth(ctx), NULL, &res, err);
    const json_t *c;
    if (st != TRV_UP_OK) {
        return st;
    }
    c = json_object_get(res.body, "cancellation");
    out->currency = NULL;
    if (!c || rapid_money(json_object_get(c, "penalty"), &out->currency, &out->fee_minor) != 0
        || rapid_money(json_object_get(c, "refund"), &out->currency, &out->refund_minor) != 0) {
        return trv_hwire_bad(ctx, err, "a cancelled itinerary with its penalty and refund");
    }
    out->currency = apr_pstrdup(ctx->pool, out->currency);
    return TRV_UP_OK;
}

/* GET /itineraries/{id}/cancellation-preview: the fee and refund if it
 * were cancelled now, whether a restriction forbids it, and each room's
 * free_cancellation_until (the estimate's deadline is the earliest). */
static trv_up_status cancel_preview(trv_hotel_ctx *ctx, const char *ref,
                                    trv_hotel_preview *out, trv_hotel_err *err)
{
    trv_up_result res;
    trv_up_status st = trv_hwire_call(ctx, "GET",
                                      apr_pstrcat(ctx->pool, "/itineraries/",
                                                  trv_url_escape(ctx->pool, ref),
                                                  "/cancellation-preview", NULL),
                                      auth(ctx), NULL, &res, err);
    const json_t *b, *room, *cancelable, *restricted;
    size_t i;
    if (st != TRV_UP_OK) {
        return st;
    }
    b = res.body;
    cancelable = json_object_get(b, "cancelable");
    restricted = json_object_get(b, "restricted");
    out->currency = NULL;
    out->deadline = 0;
    if (!json_is_boolean(cancelable) || !json_is_boolean(restricted)
        || !trv_json_str(b, "checked_at")
        || trv_time_parse(trv_json_str(b, "checked_at"), &out->checked_at) != APR_SUCCESS
        || rapid_money(json_object_get(b, "penalty"), &out->currency, &out->fee_minor) != 0
        || rapid_money(json_object_get(b, "refund"), &out->currency, &out->refund_minor) != 0) {
        return trv_hwire_bad(ctx, err, "a preview with its penalty, refund and checked_at");
    }
    out->cancelable = json_is_true(cancelable);
    out->restricted = json_is_true(restricted);
    json_array_foreach(json_object_get(b, "rooms"), i, room) {
        const char *until = trv_json_str(room, "free_cancellation_until");
        apr_time_t t;
        if (until && trv_time_parse(until, &t) == APR_SUCCESS
            && (!out->deadline || t < out->deadline)) {
            out->deadline = t;
        }
    }
    out->currency = apr_pstrdup(ctx->pool, out->currency);
    return TRV_UP_OK;
}

/* travelctl supplier check: one property of a city's content, one signed
 * call, nothing changed. */
static trv_up_status check(trv_hotel_ctx *ctx, trv_up_result *res)
{
    return trv_upstream_call_h(ctx->env, ctx->pool, ctx->up, "GET",
                               "/properties/content?country_code=FR&city=Paris&limit=1",
                               auth(ctx), NULL, ctx->request_id, NULL, res);
}

const trv_hotel_supplier trv_hotel_supplier_c = {
    "travel-hotel-c",
    search,
    offers,
    prebook,
    book,
    retrieve,
    .cancel = cancel,
    .cancel_preview = cancel_preview,
    .check = check,
};
