/* SUPPLIER_A's hotel adapter: a client of a LiteAPI-style API (X-API-Key;
 * answers in {"data": ...}; amounts as decimal strings beside their
 * currency). Its hotels carry a GIATA-like code (giataId) that mapping
 * uses. Search: the hotel list of a city or around a point, then rates for
 * those hotels (50 a call), the cheapest offer of each. */
#include "supplier.h"
#include "core/clock.h"
#include "core/json.h"

#include <apr_hash.h>
#include <apr_strings.h>
#include <stdlib.h>
#include <string.h>

#define BATCH 50

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A supplier instant as the API prints instants, or as given. */
static const char *at_iso(apr_pool_t *p, const char *at)
{
    apr_time_t t;
    return trv_time_parse(at, &t) == APR_SUCCESS ? trv_time_format(p, t) : at;
}

static apr_table_t *auth(trv_hotel_ctx *ctx)
{
    apr_table_t *h = apr_table_make(ctx->pool, 1);
    apr_table_setn(h, "X-API-Key", ctx->up->api_key ? ctx->up->api_key : "");
    return h;
}

static json_t *occupancies(const trv_hotel_stay *stay)
{
    json_t *out = json_array();
    int i, k;
    for (i = 0; i < stay->n_rooms; i++) {
        json_t *ages = json_array();
        for (k = 0; k < stay->rooms[i].n_children; k++) {
            json_array_append_new(ages, json_integer(stay->rooms[i].ages[k]));
        }
        json_array_append_new(out, json_pack("{s:i,s:o}", "adults", stay->rooms[i].adults,
                                             "children", ages));
    }
    return out;
}

/* Cheapest first, so the first offer of a hotel is its cheapest. */
static trv_up_status price(trv_hotel_ctx *ctx, const trv_hotel_stay *stay,
                           apr_array_header_t *found, int from, int to, trv_hotel_err *err)
{
    json_t *ids = json_array(), *body, *data, *h;
    apr_hash_t *by_id = apr_hash_make(ctx->pool);
    trv_up_result res;
    trv_up_status st;
    size_t i;
    int k;
    for (k = from; k < to; k++) {
        trv_hotel_found *f = &APR_ARRAY_IDX(found, k, trv_hotel_found);
        json_array_append_new(ids, json_string(f->sid));
        apr_hash_set(by_id, f->sid, APR_HASH_KEY_STRING, f);
    }
    body = json_pack("{s:o,s:s,s:s,s:o,s:s,s:s,s:i}", "hotelIds", ids,
                     "checkin", stay->check_in, "checkout", stay->check_out,
                     "occupancies", occupancies(stay), "currency", stay->currency,
                     "guestNationality", stay->nationality, "maxRatesPerHotel", 1);
    trv_json_bind(ctx->pool, body);
    st = trv_hotel_call(ctx, "POST", "/hotels/rates", auth(ctx), body, &res, err);
    if (st != TRV_UP_OK) {
        return st;
    }
    data = json_object_get(res.body, "data");
    if (!json_is_array(data)) {
        return trv_hotel_bad(ctx, err, "data");
    }
    json_array_foreach(data, i, h) {
        trv_hotel_found *f = apr_hash_get(by_id, trv_json_str(h, "hotelId") ? trv_json_str(h, "hotelId") : "",
                                          APR_HASH_KEY_STRING);
        json_t *offer = json_array_get(json_object_get(h, "roomTypes"), 0);
        json_t *rate = json_object_get(offer, "offerRetailRate");
        if (!f || !rate) {
            continue;
        }
        if (!trv_json_str(rate, "currency") || strcmp(trv_json_str(rate, "currency"), stay->currency)
            || trv_money_minor_of(json_object_get(rate, "amount"), stay->currency, &f->total_minor)) {
            return trv_hotel_bad(ctx, err, "a price in the requested currency");
        }
        f->priced = 1;
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
    json_t *data, *h;
    size_t i;
    int k;

    if (area->by_point) {
        path = apr_psprintf(ctx->pool, "/data/hotels?latitude=%s&longitude=%s&radius=%d&limit=500",
                            trv_hotel_num(ctx->pool, area->latitude),
                            trv_hotel_num(ctx->pool, area->longitude), area->radius_m);
    }
    else {
        path = apr_psprintf(ctx->pool, "/data/hotels?countryCode=%s&cityName=%s&limit=500",
                            trv_hotel_qs(ctx->pool, area->country_code),
                            trv_hotel_qs(ctx->pool, area->city));
    }
    st = trv_hotel_call(ctx, "GET", path, auth(ctx), NULL, &res, err);
    if (st != TRV_UP_OK) {
        return st;
    }
    data = json_object_get(res.body, "data");
    if (!json_is_array(data)) {
        return trv_hotel_bad(ctx, err, "data");
    }
    *found = apr_array_make(ctx->pool, (int)json_array_size(data) + 1, sizeof(trv_hotel_found));
    json_array_foreach(data, i, h) {
        trv_hotel_found *f = apr_array_push(*found);
        json_t *g = json_object_get(h, "giataId");
        memset(f, 0, sizeof(*f));
        f->supplier = "SUPPLIER_A";
        f->sid = trv_json_str(h, "id");
        f->name = trv_json_str(h, "name");
        f->city = trv_json_str(h, "city");
        f->country_code = trv_json_str(h, "country");
        f->postal_code = trv_json_str(h, "zip");
        f->giata = json_is_integer(g) ? apr_psprintf(ctx->pool, "%" APR_INT64_T_FMT,
                                                     (apr_int64_t)json_integer_value(g))
                                      : NULL;
        f->latitude = json_number_value(json_object_get(h, "latitude"));
        f->longitude = json_number_value(json_object_get(h, "longitude"));
        if (!f->sid || !f->name || !f->country_code) {
            return trv_hotel_bad(ctx, err, "a hotel's id, name or country");
        }
    }
    for (k = 0; k < (*found)->nelts; k += BATCH) {
        int to = k + BATCH < (*found)->nelts ? k + BATCH : (*found)->nelts;
        if ((st = price(ctx, stay, *found, k, to, err)) != TRV_UP_OK) {
            return st;
        }
    }
    return TRV_UP_OK;
}

/* One LiteAPI offer: a room type for every requested room (rates[], one
 * per occupancy, in request order), priced in offerRetailRate. */
static int offer_of(trv_hotel_ctx *ctx, const trv_hotel_stay *stay, const char *sid,
                    const json_t *o, apr_time_t now, trv_hotel_offer *out)
{
    const char *cur = stay->currency;
    const json_t *total = json_object_get(o, "offerRetailRate"), *rates = json_object_get(o, "rates");
    const json_t *rate;
    json_t *rooms = json_array(), *promos = json_array();
    json_t *policy = json_pack("{s:b,s:[]}", "refundable",
                               strcmp(trv_json_str(o, "rateType") ? trv_json_str(o, "rateType")
                                                                  : "", "RFN") == 0,
                               "penalties");
    apr_hash_t *merged = apr_hash_make(ctx->pool);
    size_t i, k;
    memset(out, 0, sizeof(*out));
    out->sid = sid;
    out->ref = trv_json_str(o, "offerId");
    out->expires_at = now + TRV_HOTEL_OFFER_TTL;
    trv_json_bind(ctx->pool, rooms);
    trv_json_bind(ctx->pool, promos);
    trv_json_bind(ctx->pool, policy);
    if (!out->ref || strcmp(trv_json_str(total, "currency") ? trv_json_str(total, "currency") : "",
                            cur)
        || trv_money_minor_of(json_object_get(total, "amount"), cur, &out->total_minor)
        || !json_is_array(rates) || (int)json_array_size(rates) != stay->n_rooms) {
        return -1;
    }
    json_array_foreach(rates, i, rate) {
        const json_t *rt = json_array_get(json_object_get(json_object_get(rate, "retailRate"),
                                                          "total"), 0);
        const json_t *info, *promo;
        apr_int64_t room_total;
        json_t *ages = json_array();
        if (trv_money_minor_of(json_object_get(rt, "amount"), cur, &room_total)) {
            json_decref(ages);
            return -1;
        }
        for (k = 0; k < (size_t)stay->rooms[i].n_children; k++) {
            json_array_append_new(ages, json_integer(stay->rooms[i].ages[k]));
        }
        json_array_append_new(rooms, json_pack(
            "{s:i,s:s?,s:s,s:s?,s:i,s:o,s:o,s:n}", "position", (int)i,
            "name", trv_json_str(rate, "name"),
            "board", trv_hotel_board(ctx->pool, trv_json_str(rate, "boardType")),
            "board_name", trv_json_str(rate, "boardName"), "adults", stay->rooms[i].adults,
            "children", ages, "total", trv_hotel_money(room_total, cur), "due_at_property"));
        /* The offer's penalty at an instant is the rooms' penalties summed:
         * the rooms of one offer share their policy's instants. */
        json_array_foreach(json_object_get(json_object_get(rate, "cancellationPolicies"),
                                           "cancelPolicyInfos"), k, info) {
            const char *at = trv_json_str(info, "cancelTime");
            apr_int64_t m, *sum;
            if (!at || trv_money_minor_of(json_object_get(info, "amount"), cur, &m)) {
                return -1;
            }
            if (!(sum = apr_hash_get(merged, at, APR_HASH_KEY_STRING))) {
                sum = apr_pcalloc(ctx->pool, sizeof(*sum));
                apr_hash_set(merged, at, APR_HASH_KEY_STRING, sum);
            }
            if (trv_hotel_sum(sum, m) != 0) {
                return -1;
            }
        }
        json_array_foreach(json_object_get(rate, "promotions"), k, promo) {
            apr_int64_t m;
            if (trv_json_str(promo, "name")
                && !trv_money_minor_of(json_object_get(promo, "amount"), cur, &m)
                && trv_hotel_promo_add(promos, trv_json_str(promo, "name"), m < 0 ? -m : m, cur,
                                       (int)i) != 0) {
                return -1;
            }
        }
    }
    {
        apr_hash_index_t *hi;
        apr_array_header_t *ats = apr_array_make(ctx->pool, 4, sizeof(const char *));
        for (hi = apr_hash_first(ctx->pool, merged); hi; hi = apr_hash_next(hi)) {
            APR_ARRAY_PUSH(ats, const char *) = apr_hash_this_key(hi);
        }
        qsort(ats->elts, (size_t)ats->nelts, sizeof(const char *), cmp_str);
        for (k = 0; k < (size_t)ats->nelts; k++) {
            const char *at = APR_ARRAY_IDX(ats, k, const char *);
            apr_int64_t *sum = apr_hash_get(merged, at, APR_HASH_KEY_STRING);
            json_array_append_new(json_object_get(policy, "penalties"),
                                  json_pack("{s:s,s:o}", "from", at_iso(ctx->pool, at), "amount",
                                            trv_hotel_money(*sum, cur)));
        }
    }
    out->doc = json_pack("{s:{s:s?,s:s?},s:s,s:s?,s:o,s:O,s:O,s:O}",
        "room_type", "code", trv_json_str(o, "roomTypeId"),
        "name", trv_json_str(json_array_get(rates, 0), "name"),
        "board", trv_hotel_board(ctx->pool, trv_json_str(json_array_get(rates, 0), "boardType")),
        "board_name", trv_json_str(json_array_get(rates, 0), "boardName"),
        "total", trv_hotel_money(out->total_minor, cur),
        "cancellation_policy", policy, "promotions", promos, "rooms", rooms);
    trv_json_bind(ctx->pool, out->doc);
    return 0;
}

static trv_up_status offers(trv_hotel_ctx *ctx, const trv_hotel_stay *stay,
                            const char *const *sids, int n, int max_per_hotel,
                            apr_array_header_t **out, trv_hotel_err *err)
{
    json_t *ids = json_array(), *body, *data, *h, *o;
    trv_up_result res;
    trv_up_status st;
    apr_time_t now = apr_time_now();
    size_t i, k;
    int j;
    for (j = 0; j < n; j++) {
        json_array_append_new(ids, json_string(sids[j]));
    }
    body = json_pack("{s:o,s:s,s:s,s:o,s:s,s:s,s:i}", "hotelIds", ids,
                     "checkin", stay->check_in, "checkout", stay->check_out,
                     "occupancies", occupancies(stay), "currency", stay->currency,
                     "guestNationality", stay->nationality, "maxRatesPerHotel", max_per_hotel);
    trv_json_bind(ctx->pool, body);
    st = trv_hotel_call(ctx, "POST", "/hotels/rates", auth(ctx), body, &res, err);
    if (st != TRV_UP_OK) {
        return st;
    }
    data = json_object_get(res.body, "data");
    if (!json_is_array(data)) {
        return trv_hotel_bad(ctx, err, "data");
    }
    *out = apr_array_make(ctx->pool, 16, sizeof(trv_hotel_offer));
    json_array_foreach(data, i, h) {
        const char *sid = trv_json_str(h, "hotelId");
        json_array_foreach(json_object_get(h, "roomTypes"), k, o) {
            if (!sid || offer_of(ctx, stay, sid, o, now, apr_array_push(*out)) != 0) {
                return trv_hotel_bad(ctx, err, "an offer's id, rooms and prices");
            }
        }
    }
    trv_hotel_offers_trim(*out, max_per_hotel);
    return TRV_UP_OK;
}

const trv_hotel_supplier trv_hotel_supplier_a = {
    "SUPPLIER_A",
    search,
    offers,
};
