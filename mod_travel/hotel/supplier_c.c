/* SUPPLIER_C's hotel adapter: a client of an Expedia Rapid-style API
 * (Authorization: EAN APIKey=..,Signature=<SHA-512 hex of key + secret +
 * timestamp>,timestamp=..; bare JSON; money as {value (decimal string),
 * currency}). Its content carries no shared code: mapping joins its
 * properties to the others' hotels by name, postal code and distance.
 * Search: the content of a city or around a point (up to 250 properties,
 * one page), then availability for those properties; a rate's price per
 * room is its occupancy's totals.inclusive. */
#include "supplier.h"
#include "core/json.h"

#include <apr_hash.h>
#include <apr_strings.h>
#include <apr_time.h>
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
                                trv_hotel_sha_hex(ctx->pool,
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
            || trv_hotel_sum(total, m) != 0) {
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
                           trv_hotel_qs(ctx->pool, occupancy(ctx->pool, &stay->rooms[k])), NULL);
    }
    for (k = 0; k < found->nelts; k++) {
        trv_hotel_found *f = &APR_ARRAY_IDX(found, k, trv_hotel_found);
        path = apr_pstrcat(ctx->pool, path, "&property_id=", trv_hotel_qs(ctx->pool, f->sid), NULL);
        apr_hash_set(by_id, f->sid, APR_HASH_KEY_STRING, f);
    }
    st = trv_hotel_call(ctx, "GET", path, auth(ctx), NULL, &res, err);
    if (st != TRV_UP_OK) {
        return st;
    }
    if (!json_is_array(res.body)) {
        return trv_hotel_bad(ctx, err, "a list of properties");
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
                    return trv_hotel_bad(ctx, err, "a rate's price for every room");
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
                            trv_hotel_num(ctx->pool, area->latitude),
                            trv_hotel_num(ctx->pool, area->longitude), area->radius_m / 1000.0,
                            MAX_PROPERTIES);
    }
    else {
        path = apr_psprintf(ctx->pool, "/properties/content?country_code=%s&city=%s&limit=%d",
                            trv_hotel_qs(ctx->pool, area->country_code),
                            trv_hotel_qs(ctx->pool, area->city), MAX_PROPERTIES);
    }
    st = trv_hotel_call(ctx, "GET", path, auth(ctx), NULL, &res, err);
    if (st != TRV_UP_OK) {
        return st;
    }
    if (!json_is_object(res.body)) {
        return trv_hotel_bad(ctx, err, "properties");
    }
    *found = apr_array_make(ctx->pool, (int)json_object_size(res.body) + 1,
                            sizeof(trv_hotel_found));
    json_object_foreach(res.body, pid, p) {
        trv_hotel_found *f = apr_array_push(*found);
        json_t *addr = json_object_get(p, "address");
        json_t *co = json_object_get(json_object_get(p, "location"), "coordinates");
        memset(f, 0, sizeof(*f));
        f->supplier = "SUPPLIER_C";
        f->sid = trv_json_str(p, "property_id");
        f->name = trv_json_str(p, "name");
        f->city = trv_json_str(addr, "city");
        f->country_code = trv_json_str(addr, "country_code");
        f->postal_code = trv_json_str(addr, "postal_code");
        f->latitude = json_number_value(json_object_get(co, "latitude"));
        f->longitude = json_number_value(json_object_get(co, "longitude"));
        if (!f->sid || !f->name || !f->country_code) {
            return trv_hotel_bad(ctx, err, "a property's id, name or country");
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
            "name", trv_json_str(room, "room_name"), "board", trv_hotel_board(ctx->pool, board),
            "board_name", "adults", stay->rooms[i].adults, "children", ages,
            "total", trv_hotel_money(total, cur),
            "due_at_property", fees && !trv_money_minor_of(json_object_get(fees, "value"), cur, &due)
                                   ? trv_hotel_money(due, cur) : json_null()));
        json_array_foreach(json_object_get(pr, "stay"), k, e) {
            apr_int64_t m;
            if (strcmp(trv_json_str(e, "type") ? trv_json_str(e, "type") : "", "promotion") == 0
                && !trv_money_minor_of(json_object_get(e, "value"), cur, &m)
                && trv_hotel_promo_add(promos, promo_name ? promo_name : "Promotion",
                                       m < 0 ? -m : m, cur, i) != 0) {
                return -1;
            }
        }
    }
    json_array_foreach(json_object_get(rate, "cancel_penalties"), k, e) {
        if (trv_hotel_penalty_add(ctx->pool, policy, trv_json_str(e, "start"),
                                  json_object_get(e, "amount"), cur) != 0) {
            return -1;
        }
    }
    out->doc = json_pack("{s:{s:s?,s:s?},s:s,s:n,s:o,s:O,s:O,s:O}",
        "room_type", "code", trv_json_str(room, "id"), "name", trv_json_str(room, "room_name"),
        "board", trv_hotel_board(ctx->pool, board), "board_name",
        "total", trv_hotel_money(out->total_minor, cur),
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
                           trv_hotel_qs(ctx->pool, occupancy(ctx->pool, &stay->rooms[q])), NULL);
    }
    for (q = 0; q < n; q++) {
        path = apr_pstrcat(ctx->pool, path, "&property_id=", trv_hotel_qs(ctx->pool, sids[q]),
                           NULL);
    }
    st = trv_hotel_call(ctx, "GET", path, auth(ctx), NULL, &res, err);
    if (st != TRV_UP_OK) {
        return st;
    }
    if (!json_is_array(res.body)) {
        return trv_hotel_bad(ctx, err, "a list of properties");
    }
    *out = apr_array_make(ctx->pool, 16, sizeof(trv_hotel_offer));
    json_array_foreach(res.body, i, h) {
        const char *sid = trv_json_str(h, "property_id");
        json_array_foreach(json_object_get(h, "rooms"), k, room) {
            json_array_foreach(json_object_get(room, "rates"), j, rate) {
                if (!sid || offer_of(ctx, stay, sid, room, rate, now, apr_array_push(*out)) != 0) {
                    return trv_hotel_bad(ctx, err, "a rate's link and prices");
                }
            }
        }
    }
    trv_hotel_offers_trim(*out, max_per_hotel);
    return TRV_UP_OK;
}

const trv_hotel_supplier trv_hotel_supplier_c = {
    "SUPPLIER_C",
    search,
    offers,
};
