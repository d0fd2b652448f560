/* Hotel adapter of Expedia Group's Rapid API v3 (protocol expedia-rapid,
 * formerly travel-hotel-c): docs/suppliers.md, "Hotel SUPPLIER_C".
 *
 * Every call: Authorization: EAN APIKey=..,Signature=<SHA-512 hex of key +
 * secret + Unix seconds>,timestamp=..; Customer-Ip, Customer-Session-Id,
 * Accept-Encoding: gzip. Paths are /v3/... under the line's base URL (the
 * host, https://api.ean.com); Rapid's links (price_check, book, retrieve,
 * cancel) are followed as given. Money: {value (decimal string), currency},
 * read into minor units exactly.
 *
 * Search: a city is a region (GET /v3/regions, type city, with its
 * property_ids), a point a polygon (POST /v3/properties/geography); then
 * the properties' content (GET /v3/properties/content) and availability
 * (GET /v3/properties/availability). Book: POST the price check's book
 * link with a customer_card payment, through the payment provider's vault
 * and forward. The booking id kept is the itinerary's retrieve link
 * ("<itinerary_id>?token=..."): retrieve, cancellation preview (each
 * room's rate.cancel_refund) and cancel (each room's links.cancel) follow
 * it. */
#include "hotel/supplier.h"
#include "rapid_language.h"
#include "core/clock.h"
#include "core/crypt.h"
#include "core/json.h"
#include "core/jval.h"
#include "core/money.h"
#include "core/url.h"

#include <apr_hash.h>
#include <apr_strings.h>
#include <apr_time.h>
#include <apr_uri.h>
#include <math.h>
#include <string.h>
#include <strings.h>

#define MAX_PROPERTIES 250
/* Rates asked per property in a search, of which the cheapest is kept:
 * the API answers its cheapest rate plans first, and every rate of a
 * property for two rooms is about 25 kB of JSON. */
#define SEARCH_RATE_PLANS 3
/* What every shopping call states (Rapid requires them): the supply, the
 * sales channel and environment; the language is the traveller's
 * (language()). */
#define SUPPLY "supply_source=expedia"
#define SALES "sales_channel=website&sales_environment=hotel_only"
/* Rapid requires the traveller's IP on booking calls. The client states it
 * (or its connection is the traveller's); prebook keeps it with the
 * booking and a watch's creation with the watch (its checks and
 * auto-purchase); a call with no traveller at all (a watch or a booking
 * from before the gateway kept one) sends this documented stand-in
 * (docs/suppliers.md). */
#define CUSTOMER_IP_UNKNOWN "127.0.0.1"
#define ITINERARIES "/v3/itineraries/"

static apr_table_t *auth(trv_hotel_ctx *ctx)
{
    apr_table_t *h = apr_table_make(ctx->pool, 4);
    const char *key = ctx->up->api_key ? ctx->up->api_key : "";
    const char *secret = ctx->up->api_secret ? ctx->up->api_secret : "";
    const char *ts = apr_psprintf(ctx->pool, "%" APR_TIME_T_FMT, apr_time_sec(apr_time_now()));
    apr_table_setn(h, "Authorization",
                   apr_psprintf(ctx->pool, "EAN APIKey=%s,Signature=%s,timestamp=%s", key,
                                trv_crypt_sha_hex(ctx->pool,
                                                  apr_pstrcat(ctx->pool, key, secret, ts, NULL),
                                                  512),
                                ts));
    /* The traveller's shopping session as the client states it (the same
     * from the first search to the booking's last call); without one, the
     * booking, else the request. */
    apr_table_setn(h, "Customer-Session-Id", ctx->customer_session ? ctx->customer_session
                                             : ctx->booking_id ? ctx->booking_id
                                             : ctx->request_id ? ctx->request_id : "none");
    apr_table_setn(h, "Customer-Ip", ctx->customer_ip ? ctx->customer_ip
                                                      : CUSTOMER_IP_UNKNOWN);
    apr_table_setn(h, "Accept-Encoding", "gzip");
    return h;
}

/* The language of Rapid's answers: the traveller's (Accept-Language)
 * among Rapid's, en-US by default. */
static const char *language(const trv_hotel_ctx *ctx)
{
    return trv_rapid_language(ctx->accept_language);
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

/* GET /v3/properties/availability for the stay: what Rapid requires
 * (checkin, checkout, currency, country_code of the point of sale,
 * language, occupancy per room, rate_plan_count, sales_channel,
 * sales_environment) and the properties. */
static const char *avail_path(trv_hotel_ctx *ctx, const trv_hotel_stay *stay, int rate_plans,
                              const char *const *sids, int n)
{
    const char *pos = stay->residence ? stay->residence
                      : stay->nationality ? stay->nationality : "US";
    const char *path = apr_psprintf(ctx->pool,
                                    "/v3/properties/availability?checkin=%s&checkout=%s"
                                    "&currency=%s&country_code=%s&language=%s"
                                    "&rate_plan_count=%d&" SALES,
                                    stay->check_in, stay->check_out, stay->currency,
                                    trv_url_escape(ctx->pool, pos), language(ctx), rate_plans);
    int k;
    for (k = 0; k < stay->n_rooms; k++) {
        path = apr_pstrcat(ctx->pool, path, "&occupancy=",
                           trv_url_escape(ctx->pool, occupancy(ctx->pool, &stay->rooms[k])), NULL);
    }
    for (k = 0; k < n; k++) {
        path = apr_pstrcat(ctx->pool, path, "&property_id=", trv_url_escape(ctx->pool, sids[k]),
                           NULL);
    }
    return path;
}

/* rate_total for a rate of an answer read with core/jval.h (the search's
 * availability, the largest answer Rapid gives a search). */
static int rate_total_jval(apr_pool_t *p, const trv_jval *rate, const trv_hotel_stay *stay,
                           apr_int64_t *total)
{
    const trv_jval *pricing = trv_jval_get(rate, "occupancy_pricing");
    int i;
    *total = 0;
    for (i = 0; i < stay->n_rooms; i++) {
        const trv_jval *inc = trv_jval_get(
            trv_jval_get(trv_jval_get(trv_jval_get(pricing, occupancy(p, &stay->rooms[i])),
                                      "totals"), "inclusive"),
            "request_currency");
        const char *cur = trv_jval_strget(inc, "currency");
        apr_int64_t m;
        if (!cur || strcmp(cur, stay->currency)
            || trv_money_minor_of_jval(trv_jval_get(inc, "value"), stay->currency, &m)
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
    const char **sids;
    const char *path;
    trv_up_result res;
    trv_up_status st;
    const trv_jval *h;
    apr_size_t i;
    int k;
    if (!found->nelts) {
        return TRV_UP_OK;
    }
    sids = apr_palloc(ctx->pool, sizeof(char *) * (apr_size_t)found->nelts);
    for (k = 0; k < found->nelts; k++) {
        trv_hotel_found *f = &APR_ARRAY_IDX(found, k, trv_hotel_found);
        sids[k] = f->sid;
        apr_hash_set(by_id, f->sid, APR_HASH_KEY_STRING, f);
    }
    path = avail_path(ctx, stay, SEARCH_RATE_PLANS, sids, found->nelts);
    st = trv_hwire_read(ctx, "GET", path, auth(ctx), NULL, &res, err);
    if (st != TRV_UP_OK) {
        return st;
    }
    if (!trv_jval_is_array(res.doc)) {
        return trv_hwire_bad(ctx, err, "a list of properties");
    }
    trv_jval_foreach(res.doc, i, h) {
        const char *pid = trv_jval_strget(h, "property_id");
        trv_hotel_found *f = pid ? apr_hash_get(by_id, pid, APR_HASH_KEY_STRING) : NULL;
        const trv_jval *room, *rate;
        apr_size_t r, q;
        if (!f) {
            continue;
        }
        trv_jval_foreach(trv_jval_get(h, "rooms"), r, room) {
            trv_jval_foreach(trv_jval_get(room, "rates"), q, rate) {
                apr_int64_t t;
                if (rate_total_jval(ctx->pool, rate, stay, &t) != 0) {
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

/* A polygon of 24 points on the circle (GeoJSON: [longitude, latitude],
 * the first point repeated last): what Rapid's geography search takes. */
static json_t *circle(double lat, double lon, int radius_m)
{
    json_t *ring = json_array();
    double dlat = radius_m / 111320.0, dlon = dlat / cos(lat * M_PI / 180.0);
    int i;
    for (i = 0; i <= 24; i++) {
        double a = (i % 24) * 2.0 * M_PI / 24.0;
        json_array_append_new(ring, json_pack("[f,f]", lon + dlon * cos(a),
                                              lat + dlat * sin(a)));
    }
    return json_pack("{s:s,s:[o]}", "type", "Polygon", "coordinates", ring);
}

/* The property ids of the area: a city is the region of type city of that
 * name in its country (GET /v3/regions with property_ids); a point is a
 * polygon around it (POST /v3/properties/geography). */
static trv_up_status area_ids(trv_hotel_ctx *ctx, const trv_hotel_area *area,
                              apr_array_header_t *ids, trv_hotel_err *err)
{
    trv_up_result res;
    trv_up_status st;
    const char *pid;
    const json_t *r, *v;
    size_t i, k;
    if (area->by_point) {
        json_t *body = trv_json_bind(ctx->pool, circle(area->latitude, area->longitude,
                                                       area->radius_m));
        const trv_jval *pv;
        /* Read with jval (only the keys are used), not as a Jansson tree. */
        st = trv_hwire_search(ctx, "POST",
                              "/v3/properties/geography?include=property_ids&" SUPPLY,
                              auth(ctx), body, &res, err);
        if (st != TRV_UP_OK) {
            return st;
        }
        if (!trv_jval_is_object(res.doc)) {
            return trv_hwire_bad(ctx, err, "a map of properties");
        }
        trv_jval_foreach_member(res.doc, i, pid, pv) {
            APR_ARRAY_PUSH(ids, const char *) = pid;
        }
        return TRV_UP_OK;
    }
    st = trv_hwire_call_content(ctx, apr_psprintf(ctx->pool,
                                "/v3/regions?include=details&include=property_ids&language="
                                "%s&country_code=%s&type=city&" SUPPLY, language(ctx),
                                trv_url_escape(ctx->pool, area->country_code)),
                                auth(ctx), &res, err);
    if (st != TRV_UP_OK) {
        return st;
    }
    if (!json_is_array(res.body)) {
        return trv_hwire_bad(ctx, err, "a list of regions");
    }
    json_array_foreach(res.body, i, r) {
        if (trv_json_str(r, "name") && strcasecmp(trv_json_str(r, "name"), area->city) == 0) {
            json_array_foreach(json_object_get(r, "property_ids"), k, v) {
                if (json_is_string(v)) {
                    APR_ARRAY_PUSH(ids, const char *) = json_string_value(v);
                }
            }
            break;
        }
    }
    return TRV_UP_OK;
}

static trv_up_status search(trv_hotel_ctx *ctx, const trv_hotel_area *area,
                            const trv_hotel_stay *stay, apr_array_header_t **found,
                            trv_hotel_err *err)
{
    apr_array_header_t *ids = apr_array_make(ctx->pool, 64, sizeof(const char *));
    const char *path = apr_pstrcat(ctx->pool, "/v3/properties/content?language=",
                                   language(ctx), "&" SUPPLY, NULL);
    trv_up_result res;
    trv_up_status st;
    const char *pid;
    json_t *p;
    int k;
    *found = apr_array_make(ctx->pool, 16, sizeof(trv_hotel_found));
    if ((st = area_ids(ctx, area, ids, err)) != TRV_UP_OK || ids->nelts == 0) {
        return st;
    }
    /* The content of up to 250 properties: one call. */
    for (k = 0; k < ids->nelts && k < MAX_PROPERTIES; k++) {
        path = apr_pstrcat(ctx->pool, path, "&property_id=",
                           trv_url_escape(ctx->pool, APR_ARRAY_IDX(ids, k, const char *)), NULL);
    }
    st = trv_hwire_call_content(ctx, path, auth(ctx), &res, err);
    if (st != TRV_UP_OK) {
        return st;
    }
    if (!json_is_object(res.body)) {
        return trv_hwire_bad(ctx, err, "properties");
    }
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

/* request_currency on the reader. */
static const trv_jval *request_currency_jval(const trv_jval *pricing, const char *what)
{
    return trv_jval_get(trv_jval_get(trv_jval_get(pricing, "totals"), what), "request_currency");
}

/* The board of a rate from its amenities (Rapid names meals there). */
static const char *rate_board(const trv_jval *rate)
{
    static const char *const words[][2] = {{"all inclusive", "AI"}, {"half board", "HB"},
                                           {"full board", "FB"}, {"breakfast", "BB"}};
    const char *k, *name;
    const trv_jval *a;
    size_t i, m;
    trv_jval_foreach_member(trv_jval_get(rate, "amenities"), m, k, a) {
        name = trv_jval_strget(a, "name");
        for (i = 0; name && i < sizeof(words) / sizeof(words[0]); i++) {
            if (strcasestr(name, words[i][0])) {
                return words[i][1];
            }
        }
    }
    (void)k;
    return "RO";
}

/* An offer priced but not built: its room and rate, and its board. */
typedef struct c_pick {
    const trv_jval *room, *rate;
    const char *board;
} c_pick;

/* One rate of a room, priced for the trim without its document: its
 * reference is the price-check link (what Rapid books through), its total
 * every requested room's occupancy price (rate_total_jval). */
static int priced(trv_hotel_ctx *ctx, const trv_hotel_stay *stay, const char *sid,
                  const trv_jval *room, const trv_jval *rate, apr_time_t now,
                  trv_hotel_offer *out)
{
    c_pick *k = apr_palloc(ctx->pool, sizeof(*k));
    const char *href = NULL, *bk;
    const trv_jval *bg;
    size_t i;
    memset(out, 0, sizeof(*out));
    out->sid = sid;
    out->expires_at = now + TRV_HOTEL_OFFER_TTL;
    k->room = room;
    k->rate = rate;
    k->board = rate_board(rate);
    out->unbuilt = k;
    trv_jval_foreach_member(trv_jval_get(rate, "bed_groups"), i, bk, bg) {
        href = trv_jval_strget(trv_jval_get(trv_jval_get(bg, "links"), "price_check"), "href");
        break;
    }
    (void)bk;
    /* Rapid's price check states neither: they travel with the link
     * (after '#', never sent) to prebook. */
    if (!href) {
        return -1;
    }
    out->ref = apr_psprintf(ctx->pool, "%s#%s,%s", href, k->board,
                            trv_jval_is_true(trv_jval_get(rate, "refundable")) ? "RFN" : "NRF");
    return rate_total_jval(ctx->pool, rate, stay, &out->total_minor);
}

/* The document of an offer the trim kept: each room priced by its
 * occupancy's pricing, the rate's promotions and cancel penalties. */
static int offer_of(trv_hotel_ctx *ctx, const trv_hotel_stay *stay, trv_hotel_offer *out)
{
    const c_pick *pk = out->unbuilt;
    const trv_jval *rate = pk->rate, *e;
    const char *cur = stay->currency;
    const char *promo_name = trv_jval_strget(trv_jval_get(trv_jval_get(rate, "promotions"),
                                                          "deal"), "description");
    json_t *rooms = trv_json_bind(ctx->pool, json_array());
    json_t *promos = trv_json_bind(ctx->pool, json_array());
    json_t *policy = trv_json_bind(
        ctx->pool, trv_hwire_policy_new(trv_jval_is_true(trv_jval_get(rate, "refundable"))));
    size_t k;
    int i;
    for (i = 0; i < stay->n_rooms; i++) {
        const trv_jval *pr = trv_jval_get(trv_jval_get(rate, "occupancy_pricing"),
                                          occupancy(ctx->pool, &stay->rooms[i]));
        const trv_jval *fees = request_currency_jval(pr, "property_fees");
        apr_int64_t total, due;
        if (trv_money_minor_of_jval(trv_jval_get(request_currency_jval(pr, "inclusive"),
                                                 "value"), cur, &total)) {
            return -1;
        }
        {
            trv_hwire_room r = {
                i, stay->rooms[i].adults, trv_jval_strget(pk->room, "room_name"),
                trv_hwire_board(ctx->pool, pk->board), NULL, trv_hwire_ages(&stay->rooms[i]),
                trv_hwire_money(total, cur), NULL,
                fees && !trv_money_minor_of_jval(trv_jval_get(fees, "value"), cur, &due)
                    ? trv_hwire_money(due, cur) : NULL,
                NULL};
            json_array_append_new(rooms, trv_hwire_room_doc(&r));
        }
        trv_jval_foreach(trv_jval_get(pr, "stay"), k, e) {
            const char *type = trv_jval_strget(e, "type");
            apr_int64_t m;
            if (strcmp(type ? type : "", "promotion") == 0
                && !trv_money_minor_of_jval(trv_jval_get(e, "value"), cur, &m)
                && trv_hwire_promo_add(promos, promo_name ? promo_name : "Promotion",
                                       m < 0 ? -m : m, cur, i) != 0) {
                return -1;
            }
        }
    }
    trv_jval_foreach(trv_jval_get(rate, "cancel_penalties"), k, e) {
        apr_int64_t m;
        if (trv_money_minor_of_jval(trv_jval_get(e, "amount"), cur, &m) != 0
            || trv_hwire_penalty_add_minor(ctx->pool, policy, trv_jval_strget(e, "start"), m,
                                           cur) != 0) {
            return -1;
        }
    }
    out->doc = trv_json_bind(ctx->pool, trv_hwire_offer_doc(
        trv_jval_strget(pk->room, "id"), trv_jval_strget(pk->room, "room_name"),
        trv_hwire_board(ctx->pool, pk->board), NULL, trv_hwire_money(out->total_minor, cur),
        policy, promos, rooms));
    return 0;
}

static trv_up_status offers(trv_hotel_ctx *ctx, const trv_hotel_stay *stay,
                            const char *const *sids, int n, int max_per_hotel,
                            apr_array_header_t **out, trv_hotel_err *err)
{
    const char *path = avail_path(ctx, stay, max_per_hotel, sids, n);
    trv_up_result res;
    trv_up_status st;
    apr_time_t now = apr_time_now();
    const trv_jval *h, *room, *rate;
    size_t i, k, j;
    int q;
    st = trv_hwire_search(ctx, "GET", path, auth(ctx), NULL, &res, err);
    if (st != TRV_UP_OK) {
        return st;
    }
    if (!trv_jval_is_array(res.doc)) {
        return trv_hwire_bad(ctx, err, "a list of properties");
    }
    *out = apr_array_make(ctx->pool, 16, sizeof(trv_hotel_offer));
    trv_jval_foreach(res.doc, i, h) {
        const char *sid = trv_jval_strget(h, "property_id");
        trv_jval_foreach(trv_jval_get(h, "rooms"), k, room) {
            trv_jval_foreach(trv_jval_get(room, "rates"), j, rate) {
                if (!sid || priced(ctx, stay, sid, room, rate, now, apr_array_push(*out)) != 0) {
                    return trv_hwire_bad(ctx, err, "a rate's link and prices");
                }
            }
        }
    }
    /* Documents only for the offers kept (max_per_hotel a hotel). */
    trv_hwire_offers_trim(*out, max_per_hotel);
    for (q = 0; q < (*out)->nelts; q++) {
        if (offer_of(ctx, stay, &APR_ARRAY_IDX(*out, q, trv_hotel_offer)) != 0) {
            return trv_hwire_bad(ctx, err, "a rate's link and prices");
        }
    }
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
    json_t *policy = trv_json_bind(ctx->pool, trv_hwire_policy_new(refundable));
    apr_int64_t total, due;
    size_t k;
    if (trv_money_minor_of(json_object_get(request_currency(pr, "inclusive"), "value"), cur,
                           &total)) {
        return NULL;
    }
    json_array_foreach(json_object_get(pr, "cancel_penalties"), k, e) {
        if (trv_hwire_penalty_add(ctx->pool, policy, trv_json_str(e, "start"),
                                  json_object_get(e, "amount"), cur) != 0) {
            return NULL;
        }
    }
    {
        trv_hwire_room r = {
            position, occ ? occ->adults : 0, NULL, trv_hwire_board(ctx->pool, board), NULL,
            trv_hwire_ages(occ), trv_hwire_money(total, cur), NULL,
            fees && !trv_money_minor_of(json_object_get(fees, "value"), cur, &due)
                ? trv_hwire_money(due, cur) : NULL,
            policy};
        return trv_hwire_room_doc(&r);
    }
}

/* The price check: the rate at today's price and the link that books it.
 * ref is the price check link with the offer's board and refundability
 * after '#'. */
static trv_up_status prebook(trv_hotel_ctx *ctx, const trv_hotel_stay *stay, const char *sid,
                             const char *ref, trv_hotel_prebooked *out, trv_hotel_err *err)
{
    trv_up_result res;
    trv_up_status st;
    const char *status, *book, *board = "RO", *frag = strchr(ref, '#'), *link = ref;
    const json_t *pricing;
    json_t *rooms, *policy;
    int i, refundable = 1;
    (void)sid;
    memset(out, 0, sizeof(*out));
    if (frag) {
        link = apr_pstrndup(ctx->pool, ref, (apr_size_t)(frag - ref));
        board = apr_pstrndup(ctx->pool, frag + 1, strcspn(frag + 1, ","));
        refundable = strstr(frag, ",NRF") == NULL;
    }
    st = trv_hwire_call(ctx, "GET", link_path(ctx, link), auth(ctx), NULL, &res, err);
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

/* Rapid money {value, currency} (a cancel_refund says amount): minor
 * units in *minor; currency set from the first amount read and then
 * required to match. */
static int rapid_money(const json_t *m, const char *value, const char **currency,
                       apr_int64_t *minor)
{
    const char *cur = trv_json_str(m, "currency");
    if (!cur || (*currency && strcmp(*currency, cur) != 0)) {
        return -1;
    }
    *currency = cur;
    return trv_money_minor_of(json_object_get(m, value), cur, minor);
}

/* A room's price: its rate's pricing.totals.inclusive in the request
 * currency. */
static int room_total(const json_t *room, const char **cur, apr_int64_t *minor)
{
    return rapid_money(request_currency(json_object_get(json_object_get(room, "rate"),
                                                        "pricing"), "inclusive"),
                       "value", cur, minor);
}

/* An itinerary: pending while any room is, canceled when every room is;
 * its total the sum of its rooms' (Rapid states no itinerary total). */
static trv_up_status booked_of(trv_hotel_ctx *ctx, const json_t *it, const char *booking_id,
                               trv_hotel_booked *out, trv_hotel_err *err)
{
    const json_t *r;
    const char *cur = NULL;
    size_t i;
    int pending = 0, canceled = 0, n = 0;
    memset(out, 0, sizeof(*out));
    out->booking_id = booking_id;
    /* Rapid keeps 28 characters of reference: the gateway's whole client
     * reference travels in affiliate_metadata. */
    out->client_reference = trv_json_str(it, "affiliate_metadata");
    if (!trv_json_str(it, "itinerary_id")) {
        return trv_hwire_bad(ctx, err, "an itinerary id");
    }
    out->rooms = trv_json_bind(ctx->pool, json_array());
    json_array_foreach(json_object_get(it, "rooms"), i, r) {
        const json_t *rate = json_object_get(r, "rate"), *conf = json_object_get(r, "confirmation_id");
        const char *st = trv_json_str(r, "status") ? trv_json_str(r, "status") : "";
        json_t *pr = json_pack("{s:O?,s:O?}", "totals",
                               json_object_get(json_object_get(rate, "pricing"), "totals"),
                               "cancel_penalties", json_object_get(rate, "cancel_penalties"));
        json_t *room;
        apr_int64_t m;
        if (room_total(r, &cur, &m) != 0 || trv_hwire_sum(&out->total_minor, m) != 0) {
            json_decref(pr);
            return trv_hwire_bad(ctx, err, "a room's total in the request currency");
        }
        room = room_of(ctx, pr, cur, json_is_true(json_object_get(rate, "refundable")), "RO",
                       (int)i, NULL);
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
    /* Merchant of record: Expedia charged the traveller's card the total
     * (Rapid's itinerary names no card). */
    out->payment = trv_json_bind(ctx->pool, json_pack(
        "{s:s,s:o}", "collected_by", ctx->up->name, "amount",
        trv_hwire_money(out->total_minor, cur)));
    return TRV_UP_OK;
}

/* The booking id kept for an itinerary: its retrieve link after
 * /v3/itineraries/ ("<itinerary_id>?token=..."), else its id. */
static const char *booking_id_of(trv_hotel_ctx *ctx, const char *itinerary_id,
                                 const char *retrieve_href)
{
    const char *at = retrieve_href ? strstr(retrieve_href, ITINERARIES) : NULL;
    return at ? apr_pstrdup(ctx->pool, at + strlen(ITINERARIES)) : itinerary_id;
}

/* GET the itinerary the booking id names: its retrieve link, or (an id
 * alone, not one this adapter kept) the id with the booking's email. */
static trv_up_status read_itinerary(trv_hotel_ctx *ctx, const char *booking_id,
                                    trv_up_result *res, trv_hotel_err *err)
{
    const char *path = strchr(booking_id, '?') || !ctx->contact_email
        ? apr_pstrcat(ctx->pool, ITINERARIES, booking_id, NULL)
        : apr_pstrcat(ctx->pool, ITINERARIES, trv_url_escape(ctx->pool, booking_id), "?email=",
                      trv_url_escape(ctx->pool, ctx->contact_email), NULL);
    trv_up_status st = trv_hwire_call(ctx, "GET", path, auth(ctx), NULL, res, err);
    if (st == TRV_UP_OK && !json_is_object(res->body)) {
        return trv_hwire_bad(ctx, err, "an itinerary");
    }
    return st;
}

/* Rapid finds an itinerary by reference only with the traveller's email:
 * the booking's contact, which the gateway puts in ctx. */
static const char *affiliate_ref(trv_hotel_ctx *ctx, const char *client_reference)
{
    /* 3 to 28 characters, unique per booking: the booking id (the client
     * reference's part before '/'), cut to 28. */
    size_t n = strcspn(client_reference, "/");
    return apr_pstrndup(ctx->pool, client_reference, n < 28 ? n : 28);
}

static trv_up_status retrieve(trv_hotel_ctx *ctx, const char *booking_id,
                              const char *client_reference, trv_hotel_booked *out,
                              trv_hotel_err *err)
{
    trv_up_result res;
    trv_up_status st;
    const json_t *it;
    if (!booking_id) {
        if (!ctx->contact_email) {
            err->code = "not_found";
            err->message = "Rapid finds an itinerary by reference only with its email";
            return TRV_UP_NOT_FOUND;
        }
        st = trv_hwire_call(ctx, "GET", apr_psprintf(ctx->pool,
                                                     "/v3/itineraries?affiliate_reference_id=%s"
                                                     "&email=%s",
                                                     trv_url_escape(ctx->pool,
                                                                    affiliate_ref(ctx,
                                                                                  client_reference)),
                                                     trv_url_escape(ctx->pool, ctx->contact_email)),
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
        it = json_array_get(res.body, 0);
        return booked_of(ctx, it, booking_id_of(ctx, trv_json_str(it, "itinerary_id"),
                                                trv_json_str(json_object_get(
                                                    json_object_get(it, "links"), "retrieve"),
                                                    "href")),
                         out, err);
    }
    if ((st = read_itinerary(ctx, booking_id, &res, err)) != TRV_UP_OK) {
        return st;
    }
    return booked_of(ctx, res.body, booking_id, out, err);
}

/* The book link of the price check, paid by the traveller's card: Expedia,
 * the merchant of record, charges it. The request goes through the
 * payment provider's vault and forward with the number left empty: the
 * provider fills it from the saved instrument. */
static trv_up_status book(trv_hotel_ctx *ctx, const trv_hotel_book_req *rq,
                          trv_hotel_booked *out, trv_hotel_err *err)
{
    const trv_hotel_party *pt = rq->party;
    json_t *rooms = json_array(), *body;
    trv_up_result res;
    trv_up_status st;
    const char *id, *phone = pt->phone ? pt->phone : "", *last4 = NULL;
    int i;
    if (!rq->payment_instrument_id) {
        err->code = "payment_instrument_invalid";
        err->message = "the supplier charges the traveller's card: a saved instrument is "
                       "required";
        json_decref(rooms);
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
    /* E.164 "+44 20..." or "+4420...": Rapid wants the country code apart;
     * the digits after '+' go in number whole when they cannot be split. */
    phone += *phone == '+';
    body = trv_json_bind(ctx->pool, json_pack(
        "{s:s,s:s,s:b,s:s,s:{s:s#,s:s},s:o,s:[{s:s,s:s,s:{s:s,s:s,s:{s:s}}}]}",
        "affiliate_reference_id", affiliate_ref(ctx, rq->client_reference),
        "affiliate_metadata", rq->client_reference, "hold", 0, "email", pt->email,
        "phone", "country_code", phone, strlen(phone) > 2 ? 2 : strlen(phone),
        "number", strlen(phone) > 2 ? phone + 2 : "0",
        "rooms", rooms,
        "payments", "type", "customer_card", "number", "",
        "billing_contact", "given_name", pt->first_name, "family_name", pt->last_name,
        "address", "country_code", rq->stay && rq->stay->residence ? rq->stay->residence : "US"));
    st = trv_hwire_call_forwarded(ctx, &trv_hotel_supplier_c, "POST",
                                  link_path(ctx, rq->prebook_id), auth(ctx), body,
                                  rq->idempotency_key, rq->payment_instrument_id, &last4, &res,
                                  err);
    if (st == TRV_UP_REJECTED && res.code) {
        if (strcmp(res.code, "duplicate_itinerary") == 0) {
            /* Booked before (an answer lost): that itinerary, never a second. */
            return retrieve(ctx, NULL, rq->client_reference, out, err);
        }
        if (strcmp(res.code, "payment.declined") == 0) {
            /* Expedia, the merchant of record, declined the card. */
            err->code = "payment_declined";
            return TRV_UP_DECLINED;
        }
        err->code = strcmp(res.code, "rooms_unavailable") == 0 ? "book_failed"
                  : strcmp(res.code, "price_mismatch") == 0 ? "price_changed" : err->code;
    }
    if (st != TRV_UP_OK) {
        return st;
    }
    if (!(id = trv_json_str(res.body, "itinerary_id"))) {
        return trv_hwire_bad(ctx, err, "an itinerary id");
    }
    id = booking_id_of(ctx, id, trv_json_str(json_object_get(json_object_get(res.body, "links"),
                                                             "retrieve"), "href"));
    if (retrieve(ctx, id, NULL, out, err) != TRV_UP_OK) {
        /* Booked, whatever the read says: the itinerary, its state to be
         * read again. */
        memset(out, 0, sizeof(*out));
        out->booking_id = id;
        out->client_reference = rq->client_reference;
        out->status = "PENDING";
        out->total_minor = -1;
    }
    if (out->payment && last4) {
        /* Rapid's itinerary names no card: the provider's record of what
         * it forwarded does. */
        json_object_set_new(out->payment, "last4", json_string(last4));
    }
    return TRV_UP_OK;
}

/* ---- cancellation ---- */

/* The terms of an itinerary from a fresh read: each room's
 * rate.cancel_refund (Rapid's refund if cancelled now; of a cancelled
 * room, what its cancellation refunded) against its total; a booked room
 * without links.cancel cannot be cancelled online (a stored restriction);
 * the deadline is the earliest room's first penalty. *canceled: every
 * room is. */
static trv_up_status terms_of(trv_hotel_ctx *ctx, const json_t *it, trv_hotel_preview *out,
                              int *canceled, trv_hotel_err *err)
{
    const json_t *r, *pen;
    size_t i, k;
    int rooms = 0, pending = 0, gone = 0;
    memset(out, 0, sizeof(*out));
    out->checked_at = apr_time_now();
    out->cancelable = 1;
    json_array_foreach(json_object_get(it, "rooms"), i, r) {
        const json_t *rate = json_object_get(r, "rate");
        const char *st = trv_json_str(r, "status") ? trv_json_str(r, "status") : "";
        apr_int64_t total, refund;
        rooms++;
        pending += strcmp(st, "pending") == 0;
        gone += strcmp(st, "canceled") == 0;
        if (room_total(r, &out->currency, &total) != 0
            || rapid_money(json_object_get(rate, "cancel_refund"), "amount", &out->currency,
                           &refund) != 0
            || refund > total || trv_hwire_sum(&out->refund_minor, refund) != 0
            || trv_hwire_sum(&out->fee_minor, total - refund) != 0) {
            return trv_hwire_bad(ctx, err, "a room's total and cancel_refund");
        }
        if (strcmp(st, "booked") == 0 && !json_object_get(json_object_get(r, "links"), "cancel")) {
            out->cancelable = 0;
            out->restricted = 1;
        }
        /* Free until the first penalty of a refundable rate; a
         * non-refundable one is never free. */
        json_array_foreach(json_is_true(json_object_get(rate, "refundable"))
                               ? json_object_get(rate, "cancel_penalties") : NULL, k, pen) {
            apr_time_t t;
            if (trv_json_str(pen, "start")
                && trv_time_parse(trv_json_str(pen, "start"), &t) == APR_SUCCESS
                && (!out->deadline || t < out->deadline)) {
                out->deadline = t;
            }
        }
    }
    if (!rooms) {
        return trv_hwire_bad(ctx, err, "an itinerary's rooms");
    }
    *canceled = gone == rooms;
    if (pending) {
        out->cancelable = 0;
        err->code = "booking_pending";
        err->message = "the itinerary is not confirmed yet; retry when it is";
        return TRV_UP_REJECTED;
    }
    out->currency = apr_pstrdup(ctx->pool, out->currency);
    return TRV_UP_OK;
}

static trv_up_status cancel_preview(trv_hotel_ctx *ctx, const char *ref,
                                    trv_hotel_preview *out, trv_hotel_err *err)
{
    trv_up_result res;
    int canceled = 0;
    trv_up_status st = read_itinerary(ctx, ref, &res, err);
    if (st != TRV_UP_OK) {
        return st;
    }
    st = terms_of(ctx, res.body, out, &canceled, err);
    if (st == TRV_UP_OK && canceled) {
        err->code = "itinerary_canceled";
        err->message = "every room of the itinerary is cancelled";
        return TRV_UP_REJECTED;
    }
    return st;
}

/* DELETE each booked room's cancel link (Rapid cancels room by room and
 * answers 202 or 204 with no body); the fee and refund are the rooms'
 * terms read just before. An itinerary already cancelled (a cancel whose
 * answer was lost) answers what its cancellation refunded. */
static trv_up_status cancel(trv_hotel_ctx *ctx, const char *ref, trv_hotel_canceled *out,
                            trv_hotel_err *err)
{
    trv_up_result res, del;
    trv_hotel_preview pv;
    int canceled = 0;
    trv_up_status st = read_itinerary(ctx, ref, &res, err);
    const json_t *r;
    size_t i;
    if (st != TRV_UP_OK || (st = terms_of(ctx, res.body, &pv, &canceled, err)) != TRV_UP_OK) {
        return st;
    }
    if (pv.restricted) {
        err->code = "cancellation_restricted";
        err->message = "a room of the itinerary cannot be cancelled online (no cancel link)";
        return TRV_UP_REJECTED;
    }
    json_array_foreach(json_object_get(res.body, "rooms"), i, r) {
        const char *href = trv_json_str(json_object_get(json_object_get(r, "links"), "cancel"),
                                        "href");
        if (!href || strcmp(trv_json_str(r, "status") ? trv_json_str(r, "status") : "",
                            "booked") != 0) {
            continue;
        }
        if ((st = trv_hwire_call(ctx, "DELETE", link_path(ctx, href), auth(ctx), NULL, &del,
                                 err)) != TRV_UP_OK) {
            return st;
        }
    }
    out->currency = pv.currency;
    out->fee_minor = pv.fee_minor;
    out->refund_minor = pv.refund_minor;
    return TRV_UP_OK;
}

/* travelctl supplier check: one property's content, one signed call,
 * nothing changed. */
static trv_up_status check(trv_hotel_ctx *ctx, trv_up_result *res)
{
    return trv_upstream_call_h(ctx->env, ctx->pool, ctx->up, "GET",
                               "/v3/properties/content?language=" TRV_RAPID_LANGUAGE_DEFAULT
                               "&" SUPPLY
                               "&country_code=FR&property_id=1",
                               auth(ctx), NULL, ctx->request_id, NULL, res);
}

const trv_hotel_supplier trv_hotel_supplier_c = {
    "expedia-rapid",
    search,
    offers,
    prebook,
    book,
    retrieve,
    .cancel = cancel,
    .cancel_preview = cancel_preview,
    .check = check,
};
