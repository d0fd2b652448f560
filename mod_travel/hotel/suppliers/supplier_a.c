/* The liteapi protocol's hotel adapter: a client of LiteAPI v3.0 (X-API-Key;
 * answers in {"data": ...}; money as JSON numbers beside their currency,
 * read into integer minor units; hotel data and rates on the line's base
 * URL, prebook, book and bookings on its book_url). Its hotels carry a GIATA-like code (giataId) that mapping
 * uses. Search: the hotel list of a city or around a point, then rates for
 * those hotels (50 a call), the cheapest offer of each. */
#include "hotel/supplier.h"
#include "core/clock.h"
#include "core/json.h"
#include "core/jval.h"
#include "core/money.h"
#include "core/url.h"

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
    json_t *ids = json_array(), *body;
    const trv_jval *data, *h;
    apr_hash_t *by_id = apr_hash_make(ctx->pool);
    trv_up_result res;
    trv_up_status st;
    apr_size_t i;
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
    st = trv_hwire_search(ctx, "POST", "/hotels/rates", auth(ctx), body, &res, err);
    if (st != TRV_UP_OK) {
        return st;
    }
    data = trv_jval_get(res.doc, "data");
    if (!trv_jval_is_array(data)) {
        return trv_hwire_bad(ctx, err, "data");
    }
    trv_jval_foreach(data, i, h) {
        const char *hid = trv_jval_strget(h, "hotelId");
        trv_hotel_found *f = apr_hash_get(by_id, hid ? hid : "", APR_HASH_KEY_STRING);
        const trv_jval *offer = trv_jval_at(trv_jval_get(h, "roomTypes"), 0);
        const trv_jval *rate = trv_jval_get(offer, "offerRetailRate");
        const char *cur = trv_jval_strget(rate, "currency");
        if (!f || !rate) {
            continue;
        }
        if (!cur || strcmp(cur, stay->currency)
            || trv_money_minor_of_jval(trv_jval_get(rate, "amount"), stay->currency,
                                       &f->total_minor)) {
            return trv_hwire_bad(ctx, err, "a price in the requested currency");
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
                            trv_hwire_num(ctx->pool, area->latitude),
                            trv_hwire_num(ctx->pool, area->longitude), area->radius_m);
    }
    else {
        path = apr_psprintf(ctx->pool, "/data/hotels?countryCode=%s&cityName=%s&limit=500",
                            trv_url_escape(ctx->pool, area->country_code),
                            trv_url_escape(ctx->pool, area->city));
    }
    st = trv_hwire_call_content(ctx, path, auth(ctx), &res, err);
    if (st != TRV_UP_OK) {
        return st;
    }
    data = json_object_get(res.body, "data");
    if (!json_is_array(data)) {
        return trv_hwire_bad(ctx, err, "data");
    }
    *found = apr_array_make(ctx->pool, (int)json_array_size(data) + 1, sizeof(trv_hotel_found));
    json_array_foreach(data, i, h) {
        trv_hotel_found *f = apr_array_push(*found);
        json_t *g = json_object_get(h, "giataId");
        memset(f, 0, sizeof(*f));
        f->supplier = ctx->up->name; /* the site's wire name */
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
            return trv_hwire_bad(ctx, err, "a hotel's id, name or country");
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
 * per occupancy, in request order), priced in offerRetailRate. Read from
 * an answer parsed with core/jval.h (offers' and prebook's). */
static int offer_of(trv_hotel_ctx *ctx, const trv_hotel_stay *stay, const char *sid,
                    const trv_jval *o, apr_time_t now, trv_hotel_offer *out)
{
    const char *cur = stay->currency;
    const trv_jval *total = trv_jval_get(o, "offerRetailRate"), *rates = trv_jval_get(o, "rates");
    const trv_jval *rate, *rate0 = trv_jval_at(rates, 0);
    json_t *rooms = json_array(), *promos = json_array();
    json_t *policy = trv_hwire_policy_new(
        strcmp(trv_jval_strget(o, "rateType") ? trv_jval_strget(o, "rateType") : "", "RFN") == 0);
    apr_hash_t *merged = apr_hash_make(ctx->pool);
    apr_size_t i, k;
    memset(out, 0, sizeof(*out));
    out->sid = sid;
    out->ref = trv_jval_strget(o, "offerId");
    out->expires_at = now + TRV_HOTEL_OFFER_TTL;
    trv_json_bind(ctx->pool, rooms);
    trv_json_bind(ctx->pool, promos);
    trv_json_bind(ctx->pool, policy);
    if (!out->ref || strcmp(trv_jval_strget(total, "currency")
                                ? trv_jval_strget(total, "currency") : "", cur)
        || trv_money_minor_of_jval(trv_jval_get(total, "amount"), cur, &out->total_minor)
        || !trv_jval_is_array(rates) || (int)trv_jval_len(rates) != stay->n_rooms) {
        return -1;
    }
    trv_jval_foreach(rates, i, rate) {
        const trv_jval *rt = trv_jval_at(trv_jval_get(trv_jval_get(rate, "retailRate"), "total"),
                                         0);
        const trv_jval *cp = trv_jval_get(rate, "cancellationPolicies");
        const trv_jval *info, *promo;
        apr_int64_t room_total;
        json_t *ages, *rp;
        if (trv_money_minor_of_jval(trv_jval_get(rt, "amount"), cur, &room_total)) {
            return -1;
        }
        ages = trv_hwire_ages(&stay->rooms[i]);
        /* The room's own policy, as LiteAPI gives it per rate. */
        rp = trv_hwire_policy_new(strcmp(trv_jval_strget(cp, "refundableTag")
                                         ? trv_jval_strget(cp, "refundableTag") : "", "RFN") == 0);
        trv_json_bind(ctx->pool, rp);
        trv_jval_foreach(trv_jval_get(cp, "cancelPolicyInfos"), k, info) {
            apr_int64_t m;
            if (trv_money_minor_of_jval(trv_jval_get(info, "amount"), cur, &m) != 0
                || trv_hwire_penalty_add_minor(ctx->pool, rp, trv_jval_strget(info, "cancelTime"),
                                               m, cur) != 0) {
                json_decref(ages);
                return -1;
            }
        }
        {
            trv_hwire_room r = {(int)i, stay->rooms[i].adults, trv_jval_strget(rate, "name"),
                                trv_hwire_board(ctx->pool, trv_jval_strget(rate, "boardType")),
                                trv_jval_strget(rate, "boardName"), ages,
                                trv_hwire_money(room_total, cur), NULL, NULL, rp};
            json_array_append_new(rooms, trv_hwire_room_doc(&r));
        }
        /* The offer's penalty at an instant is the rooms' penalties summed:
         * the rooms of one offer share their policy's instants. */
        trv_jval_foreach(trv_jval_get(cp, "cancelPolicyInfos"), k, info) {
            const char *at = trv_jval_strget(info, "cancelTime");
            apr_int64_t m, *sum;
            if (!at || trv_money_minor_of_jval(trv_jval_get(info, "amount"), cur, &m)) {
                return -1;
            }
            if (!(sum = apr_hash_get(merged, at, APR_HASH_KEY_STRING))) {
                sum = apr_pcalloc(ctx->pool, sizeof(*sum));
                apr_hash_set(merged, at, APR_HASH_KEY_STRING, sum);
            }
            if (trv_hwire_sum(sum, m) != 0) {
                return -1;
            }
        }
        trv_jval_foreach(trv_jval_get(rate, "promotions"), k, promo) {
            apr_int64_t m;
            const char *name = trv_jval_strget(promo, "name");
            if (name && !trv_money_minor_of_jval(trv_jval_get(promo, "amount"), cur, &m)
                && trv_hwire_promo_add(promos, name, m < 0 ? -m : m, cur, (int)i) != 0) {
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
        for (k = 0; k < (apr_size_t)ats->nelts; k++) {
            const char *at = APR_ARRAY_IDX(ats, k, const char *);
            apr_int64_t *sum = apr_hash_get(merged, at, APR_HASH_KEY_STRING);
            trv_hwire_penalty_put(policy, at_iso(ctx->pool, at), *sum, cur);
        }
    }
    out->doc = trv_hwire_offer_doc(trv_jval_strget(o, "roomTypeId"),
                                   trv_jval_strget(rate0, "name"),
                                   trv_hwire_board(ctx->pool, trv_jval_strget(rate0, "boardType")),
                                   trv_jval_strget(rate0, "boardName"),
                                   trv_hwire_money(out->total_minor, cur), policy, promos, rooms);
    trv_json_bind(ctx->pool, out->doc);
    return 0;
}

static trv_up_status offers(trv_hotel_ctx *ctx, const trv_hotel_stay *stay,
                            const char *const *sids, int n, int max_per_hotel,
                            apr_array_header_t **out, trv_hotel_err *err)
{
    json_t *ids = json_array(), *body;
    const trv_jval *data, *h, *o;
    trv_up_result res;
    trv_up_status st;
    apr_time_t now = apr_time_now();
    apr_size_t i, k;
    int j;
    for (j = 0; j < n; j++) {
        json_array_append_new(ids, json_string(sids[j]));
    }
    body = json_pack("{s:o,s:s,s:s,s:o,s:s,s:s,s:i}", "hotelIds", ids,
                     "checkin", stay->check_in, "checkout", stay->check_out,
                     "occupancies", occupancies(stay), "currency", stay->currency,
                     "guestNationality", stay->nationality, "maxRatesPerHotel", max_per_hotel);
    trv_json_bind(ctx->pool, body);
    st = trv_hwire_search(ctx, "POST", "/hotels/rates", auth(ctx), body, &res, err);
    if (st != TRV_UP_OK) {
        return st;
    }
    data = trv_jval_get(res.doc, "data");
    if (!trv_jval_is_array(data)) {
        return trv_hwire_bad(ctx, err, "data");
    }
    *out = apr_array_make(ctx->pool, 16, sizeof(trv_hotel_offer));
    trv_jval_foreach(data, i, h) {
        const char *sid = trv_jval_strget(h, "hotelId");
        trv_jval_foreach(trv_jval_get(h, "roomTypes"), k, o) {
            if (!sid || offer_of(ctx, stay, sid, o, now, apr_array_push(*out)) != 0) {
                return trv_hwire_bad(ctx, err, "an offer's id, rooms and prices");
            }
        }
    }
    trv_hwire_offers_trim(*out, max_per_hotel);
    return TRV_UP_OK;
}

/* ---- prebook, book, retrieve ---- */

/* LiteAPI serves prebook, book and the bookings on its booking host
 * (book.liteapi.travel/v3.0, the line's book_url): the same context with
 * that base. */
static trv_hotel_ctx *book_host(trv_hotel_ctx *ctx)
{
    trv_hotel_ctx *c = apr_pmemdup(ctx->pool, ctx, sizeof(*c));
    trv_upstream *up = apr_pmemdup(ctx->pool, ctx->up, sizeof(*up));
    if (up->second_base_url) {
        up->base_url = up->second_base_url;
    }
    c->up = up;
    return c;
}

static trv_up_status prebook(trv_hotel_ctx *ctx, const trv_hotel_stay *stay, const char *sid,
                             const char *ref, trv_hotel_prebooked *out, trv_hotel_err *err)
{
    trv_up_result res;
    trv_up_status st;
    trv_hotel_offer o;
    const trv_jval *d;
    apr_time_t exp;
    json_t *body = trv_json_bind(ctx->pool, json_pack("{s:s}", "offerId", ref));
    memset(out, 0, sizeof(*out));
    st = trv_hwire_read(book_host(ctx), "POST", "/rates/prebook", auth(ctx), body, &res, err);
    if (st != TRV_UP_OK) {
        return st;
    }
    d = trv_jval_get(res.doc, "data");
    if (!trv_jval_strget(d, "prebookId") || !trv_jval_strget(d, "expiresAt")
        || trv_time_parse(trv_jval_strget(d, "expiresAt"), &exp) != APR_SUCCESS
        || strcmp(trv_jval_strget(d, "currency") ? trv_jval_strget(d, "currency") : "",
                  stay->currency)
        || offer_of(ctx, stay, sid, trv_jval_at(trv_jval_get(d, "roomTypes"), 0),
                    apr_time_now(), &o) != 0
        || trv_money_minor_of_jval(trv_jval_get(d, "price"), stay->currency,
                                   &out->total_minor)) {
        return trv_hwire_bad(ctx, err, "a prebook's id, expiry and prices");
    }
    out->prebook_id = trv_jval_strget(d, "prebookId");
    out->expires_at = exp;
    out->price_changed = trv_jval_is_true(trv_jval_get(d, "priceChanged"));
    out->doc = o.doc;
    return TRV_UP_OK;
}

static const char *a_status(const char *s)
{
    if (!s) {
        return NULL;
    }
    return strcmp(s, "CONFIRMED") == 0 ? "CONFIRMED" : strcmp(s, "PENDING") == 0 ? "PENDING"
         : strcmp(s, "CANCELLED") == 0 ? "CANCELED" : NULL;
}

/* A LiteAPI booking: its rooms carry their own policies. */
static trv_up_status booked_of(trv_hotel_ctx *ctx, const json_t *d, trv_hotel_booked *out,
                               trv_hotel_err *err)
{
    const char *cur = trv_json_str(d, "currency");
    const json_t *r, *info;
    size_t i, k;
    memset(out, 0, sizeof(*out));
    out->status = a_status(trv_json_str(d, "status"));
    out->booking_id = trv_json_str(d, "bookingId");
    out->client_reference = trv_json_str(d, "clientReference");
    out->hotel_confirmation_code = trv_json_str(d, "hotelConfirmationCode");
    if (!out->status || !out->booking_id || !cur
        || trv_money_minor_of(json_object_get(d, "price"), cur, &out->total_minor)) {
        return trv_hwire_bad(ctx, err, "a booking's id, status and price");
    }
    out->rooms = trv_json_bind(ctx->pool, json_array());
    json_array_foreach(json_object_get(d, "bookedRooms"), i, r) {
        const json_t *cp = json_object_get(r, "cancellationPolicies");
        /* A room without cancellationPolicies states no policy (NULL):
         * the booking keeps the one of prebook (book.c). */
        json_t *policy = !json_is_object(cp) ? NULL
            : json_pack("{s:b,s:[]}", "refundable",
                        strcmp(trv_json_str(cp, "refundableTag")
                               ? trv_json_str(cp, "refundableTag") : "", "RFN") == 0,
                        "penalties");
        json_array_foreach(policy ? json_object_get(cp, "cancelPolicyInfos") : NULL, k, info) {
            if (trv_hwire_penalty_add(ctx->pool, policy, trv_json_str(info, "cancelTime"),
                                      json_object_get(info, "amount"), cur) != 0) {
                json_decref(policy);
                return trv_hwire_bad(ctx, err, "a room's cancellation policy");
            }
        }
        json_array_append_new(out->rooms, json_pack("{s:i,s:n,s:s?,s:o?}", "position", (int)i,
                                                    "supplier_reference_number",
                                                    "hotel_confirmation_code",
                                                    out->hotel_confirmation_code,
                                                    "cancellation_policy", policy));
    }
    out->cancellation_policy = trv_json_bind(ctx->pool,
                                             trv_hwire_policy_sum(ctx->pool, out->rooms, cur));
    /* A charges the partner's account: the traveller pays the service. */
    return TRV_UP_OK;
}

static trv_up_status retrieve(trv_hotel_ctx *ctx, const char *booking_id,
                              const char *client_reference, trv_hotel_booked *out,
                              trv_hotel_err *err);

static trv_up_status book(trv_hotel_ctx *ctx, const trv_hotel_book_req *rq,
                          trv_hotel_booked *out, trv_hotel_err *err)
{
    const trv_hotel_party *pt = rq->party;
    json_t *guests = json_array(), *body;
    trv_up_result res;
    trv_up_status st;
    int i, k;
    for (i = 0; i < pt->n_rooms; i++) {
        for (k = 0; k < pt->n_guests[i]; k++) {
            json_array_append_new(guests, json_pack("{s:i,s:s,s:s}", "occupancyNumber", i + 1,
                                                    "firstName", pt->guests[i][k].first_name,
                                                    "lastName", pt->guests[i][k].last_name));
        }
    }
    body = trv_json_bind(ctx->pool, json_pack(
        "{s:s,s:{s:s,s:s,s:s,s:s?},s:o,s:{s:s},s:s}", "prebookId", rq->prebook_id,
        "holder", "firstName", pt->first_name, "lastName", pt->last_name, "email", pt->email,
        "phone", pt->phone, "guests", guests, "payment", "method", "ACC_CREDIT_CARD",
        "clientReference", rq->client_reference));
    /* LiteAPI documents no Idempotency-Key: the row says so, and the book
     * goes out unkeyed, never resent by the HTTP client. LiteAPI
     * deduplicates by clientReference (a book under a reference already
     * booked is not a second booking), and a lost answer is found by it
     * (retrieve). */
    st = trv_hwire_call_idem(book_host(ctx), &trv_hotel_supplier_a, "POST", "/rates/book",
                             auth(ctx), body, rq->idempotency_key, &res, err);
    if (st == TRV_UP_REJECTED && res.code && strcmp(res.code, "duplicate_booking") == 0) {
        /* The reference was booked before (an answer lost): that booking,
         * never a second. */
        return retrieve(ctx, NULL, rq->client_reference, out, err);
    }
    if (st == TRV_UP_REJECTED && res.code && strcmp(res.code, "booking_failed") == 0) {
        err->code = "book_failed";
    }
    if (st != TRV_UP_OK) {
        return st;
    }
    return booked_of(ctx, json_object_get(res.body, "data"), out, err);
}

static trv_up_status retrieve(trv_hotel_ctx *ctx, const char *booking_id,
                              const char *client_reference, trv_hotel_booked *out,
                              trv_hotel_err *err)
{
    trv_up_result res;
    trv_up_status st;
    if (!booking_id) {
        const json_t *list;
        st = trv_hwire_call(book_host(ctx), "GET",
                            apr_psprintf(ctx->pool, "/bookings?clientReference=%s",
                                                     trv_url_escape(ctx->pool, client_reference)),
                            auth(ctx), NULL, &res, err);
        if (st != TRV_UP_OK) {
            return st;
        }
        list = json_object_get(res.body, "data");
        if (!json_is_array(list)) {
            return trv_hwire_bad(ctx, err, "a list of bookings");
        }
        if (json_array_size(list) == 0) {
            err->code = "not_found";
            err->message = "no booking under this client reference";
            return TRV_UP_NOT_FOUND;
        }
        if (!(booking_id = trv_json_str(json_array_get(list, 0), "bookingId"))) {
            return trv_hwire_bad(ctx, err, "a booking's id");
        }
    }
    st = trv_hwire_call(book_host(ctx), "GET", apr_psprintf(ctx->pool, "/bookings/%s",
                                                 trv_url_escape(ctx->pool, booking_id)),
                        auth(ctx), NULL, &res, err);
    if (st != TRV_UP_OK) {
        return st;
    }
    return booked_of(ctx, json_object_get(res.body, "data"), out, err);
}

/* ---- cancellation ---- */

/* A booking read (GET /bookings/{id}): cancelled (status CANCELLED or
 * CANCELLED_WITH_CHARGES) with its cancellation block's fee and refund. */
static trv_up_status cancelled_of(trv_hotel_ctx *ctx, const json_t *body,
                                  trv_hotel_canceled *out, trv_hotel_err *err)
{
    const json_t *d = json_object_get(body, "data");
    const json_t *canc = json_object_get(d, "cancellation");
    const char *status = trv_json_str(d, "status");
    if (!status) {
        return trv_hwire_bad(ctx, err, "a booking's status");
    }
    if (strncmp(status, "CANCELLED", 9) != 0) {
        return TRV_UP_REJECTED;
    }
    out->currency = trv_json_str(canc, "currency");
    if (!out->currency
        || trv_money_minor_of(json_object_get(canc, "cancellationFee"), out->currency,
                              &out->fee_minor) != 0
        || trv_money_minor_of(json_object_get(canc, "refundAmount"), out->currency,
                              &out->refund_minor) != 0) {
        return trv_hwire_bad(ctx, err, "a cancelled booking's cancellation fee and refund");
    }
    out->currency = apr_pstrdup(ctx->pool, out->currency);
    return TRV_UP_OK;
}

/* PUT /bookings/{id} cancels every room; LiteAPI answers the status
 * (CANCELLED, or CANCELLED_WITH_CHARGES when a fee is kept), the
 * cancellation_fee and refund_amount, and their currency. It cancels only
 * a confirmed booking: a cancel sent again after its answer was lost is
 * refused, and the booking read gives the cancellation it made. */
static trv_up_status cancel(trv_hotel_ctx *ctx, const char *ref, trv_hotel_canceled *out,
                            trv_hotel_err *err)
{
    trv_up_result res;
    const char *path = apr_pstrcat(ctx->pool, "/bookings/", trv_url_escape(ctx->pool, ref),
                                   NULL);
    trv_up_status st = trv_hwire_call(book_host(ctx), "PUT", path, auth(ctx), NULL, &res, err);
    const json_t *d;
    const char *status;
    if (st == TRV_UP_REJECTED) {
        return trv_hwire_cancel_refused(book_host(ctx), path, auth(ctx), cancelled_of, out,
                                        err);
    }
    if (st != TRV_UP_OK) {
        return st;
    }
    d = json_object_get(res.body, "data");
    status = trv_json_str(d, "status");
    out->currency = trv_json_str(d, "currency");
    if (!status || (strcmp(status, "CANCELLED") != 0
                    && strcmp(status, "CANCELLED_WITH_CHARGES") != 0)
        || !out->currency
        || trv_money_minor_of(json_object_get(d, "cancellation_fee"), out->currency,
                              &out->fee_minor) != 0
        || trv_money_minor_of(json_object_get(d, "refund_amount"), out->currency,
                              &out->refund_minor) != 0) {
        return trv_hwire_bad(ctx, err, "a cancelled booking with its fee and refund");
    }
    out->currency = apr_pstrdup(ctx->pool, out->currency);
    return TRV_UP_OK;
}

/* travelctl supplier check: the first hotel of Paris, one call on the data
 * host with the key, nothing changed. */
static trv_up_status check(trv_hotel_ctx *ctx, trv_up_result *res)
{
    return trv_upstream_call_h(ctx->env, ctx->pool, ctx->up, "GET",
                               "/data/hotels?countryCode=FR&cityName=Paris&limit=1", auth(ctx),
                               NULL, ctx->request_id, NULL, res);
}

const trv_hotel_supplier trv_hotel_supplier_a = {
    "liteapi",
    search,
    offers,
    prebook,
    book,
    retrieve,
    .cancel = cancel,
    .cancel_preview = NULL,              /* no previews: estimates come from the policy */
    .check = check,
};
