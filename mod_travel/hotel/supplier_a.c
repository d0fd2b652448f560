/* SUPPLIER_A's hotel adapter: a client of a LiteAPI-style API (X-API-Key;
 * answers in {"data": ...}; amounts as decimal strings beside their
 * currency). Its hotels carry a GIATA-like code (giataId) that mapping
 * uses. Search: the hotel list of a city or around a point, then rates for
 * those hotels (50 a call), the cheapest offer of each. */
#include "supplier.h"
#include "core/json.h"

#include <apr_strings.h>
#include <string.h>

#define BATCH 50

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
            || trv_hotel_minor(json_object_get(rate, "amount"), stay->currency, &f->total_minor)) {
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

const trv_hotel_supplier trv_hotel_supplier_a = {
    "SUPPLIER_A",
    search,
};
