/* The hotel adapter of protocol hotelbeds: a client of Hotelbeds APItude,
 * Hotel Booking API 1.0 and Hotel Content API 1.0 (developer.hotelbeds.com;
 * docs/suppliers.md). Every call is signed: Api-key, and X-Signature =
 * SHA-256 hex of key + secret + Unix seconds; answers are bare JSON with an
 * auditData, amounts decimal strings (or numbers) in the answer's
 * currency, errors {auditData, error: {code, message}}. Destinations are
 * codes: a city is found in the destination list of its country. Search:
 * availability of the destination (or around the point), whose hotels
 * carry their cheapest rate (minRate), then the content of their
 * destinations for what mapping needs (giataCode, postal code), which
 * availability does not carry. */
#include "hotel/supplier.h"
#include "core/crypt.h"
#include "core/json.h"
#include "core/json_text.h"
#include "core/jval.h"
#include "core/money.h"
#include "core/log.h"
#include "core/url.h"

#include <apr_hash.h>
#include <apr_strings.h>
#include <apr_time.h>
#include <string.h>
#include <strings.h>

#define CONTENT "/hotel-content-api/1.0"
#define BOOKING "/hotel-api/1.0"
/* The content API's widest page (from..to). */
#define CONTENT_PAGE 1000
/* How far back a booking whose answer was lost is looked for. */
#define RECOVERY_DAYS 30

static apr_table_t *auth(trv_hotel_ctx *ctx)
{
    apr_table_t *h = apr_table_make(ctx->pool, 2);
    const char *key = ctx->up->api_key ? ctx->up->api_key : "";
    const char *secret = ctx->up->api_secret ? ctx->up->api_secret : "";
    apr_table_setn(h, "Api-key", key);
    /* Hotelbeds asks for compressed answers (libcurl decodes them). */
    apr_table_setn(h, "Accept-Encoding", "gzip");
    apr_table_setn(h, "X-Signature",
                   trv_crypt_sha_hex(ctx->pool,
                                     apr_psprintf(ctx->pool, "%s%s%" APR_TIME_T_FMT, key, secret,
                                                  apr_time_sec(apr_time_now())),
                                     256));
    return h;
}

/* Hotelbeds' gateway throttles with HTTP 403 "Developer Over Qps" (per
 * second) or "Developer Over Rate" (the daily quota), not 429: either is
 * "try again later", never a refusal of the request. */
static trv_up_status hb(trv_up_status st, const trv_up_result *res, trv_hotel_err *err)
{
    const char *m = res->message ? res->message : "";
    if (st == TRV_UP_REJECTED && res->http_status == 403
        && (strstr(m, "Over Qps") || strstr(m, "Over Rate"))) {
        err->code = "rate_limited";
        return TRV_UP_UNAVAILABLE;
    }
    return st;
}

static int same_occupancy(const trv_hotel_stay *stay, int a, int b)
{
    return stay->rooms[a].adults == stay->rooms[b].adults
           && stay->rooms[a].n_children == stay->rooms[b].n_children
           && memcmp(stay->rooms[a].ages, stay->rooms[b].ages,
                     sizeof(int) * (size_t)stay->rooms[a].n_children) == 0;
}

/* Hotelbeds prices in the currency of the partner's account, whatever the
 * search asks: a hotel priced in another one has no offer in the search's
 * currency (mod_travel converts nothing) and is left out, said once a call
 * (a site selling in several currencies binds one line per account). */
static int other_currency(trv_hotel_ctx *ctx, const char *cur, const trv_hotel_stay *stay,
                          int *said)
{
    if (strcmp(cur, stay->currency) == 0) {
        return 0;
    }
    if (!*said) {
        *said = 1;
        trv_log_msg(&ctx->env->log, TRV_LOG_INFO, ctx->request_id,
                    "TRV3150: hotel %s prices in %s, not %s: its hotels are left out",
                    ctx->up->name, cur, stay->currency);
    }
    return 1;
}

/* The stay's occupancy groups: rooms of equal occupancy, each group's
 * positions in the stay's room order. Hotelbeds prices a group at a time:
 * one rate (rateKey, net) covers its `rooms` identical rooms. */
typedef struct b_groups {
    int n;
    int count[TRV_HOTEL_MAX_ROOMS];
    int pos[TRV_HOTEL_MAX_ROOMS][TRV_HOTEL_MAX_ROOMS];
} b_groups;

static void groups_of(const trv_hotel_stay *stay, b_groups *g)
{
    int i, k;
    memset(g, 0, sizeof(*g));
    for (i = 0; i < stay->n_rooms; i++) {
        for (k = 0; k < g->n && !same_occupancy(stay, g->pos[k][0], i); k++) {
        }
        if (k == g->n) {
            g->n++;
        }
        g->pos[k][g->count[k]++] = i;
    }
}

/* Hotelbeds' occupancies: {rooms, adults, children, paxes} with rooms the
 * number of identical rooms, one entry per group. */
static json_t *occupancies(const trv_hotel_stay *stay)
{
    json_t *out = json_array();
    b_groups g;
    int i, k;
    groups_of(stay, &g);
    for (i = 0; i < g.n; i++) {
        const trv_hotel_occ *o = &stay->rooms[g.pos[i][0]];
        json_t *paxes = json_array();
        for (k = 0; k < o->n_children; k++) {
            json_array_append_new(paxes, json_pack("{s:s,s:i}", "type", "CH", "age",
                                                   o->ages[k]));
        }
        json_array_append_new(out, json_pack("{s:i,s:i,s:i,s:o}", "rooms", g.count[i],
                                             "adults", o->adults, "children", o->n_children,
                                             "paxes", paxes));
    }
    return out;
}

/* Which group a rate prices: its rooms, adults and children (per room)
 * and, when stated, its childrenAges ("5,7"); -1 for none. */
static int group_of_rate(apr_pool_t *p, const trv_hotel_stay *stay, const b_groups *g,
                         const trv_jval *rate)
{
    const char *ages = trv_jval_strget(rate, "childrenAges");
    int i, k;
    for (i = 0; i < g->n; i++) {
        const trv_hotel_occ *o = &stay->rooms[g->pos[i][0]];
        char *want = apr_pstrdup(p, "");
        for (k = 0; k < o->n_children; k++) {
            want = apr_psprintf(p, "%s%s%d", want, k ? "," : "", o->ages[k]);
        }
        if (trv_jval_int(trv_jval_get(rate, "rooms")) == g->count[i]
            && trv_jval_int(trv_jval_get(rate, "adults")) == o->adults
            && trv_jval_int(trv_jval_get(rate, "children")) == o->n_children
            && (!ages || strcmp(ages, want) == 0)) {
            return i;
        }
    }
    return -1;
}

/* A rate's price to the traveller, in minor units: its net, or, when the
 * hotel binds the seller (hotelMandatory: true, Hotelbeds' net pricing
 * model), never less than its sellingRate, which *floor then holds (-1
 * when nothing binds). -1 when a binding rate states no readable
 * sellingRate: selling it at net could undercut the hotel. */
static int rate_price(apr_int64_t net, int mandatory, int selling_read, apr_int64_t selling,
                      apr_int64_t *price, apr_int64_t *floor)
{
    *floor = -1;
    *price = net;
    if (!mandatory) {
        return 0;
    }
    if (!selling_read || selling < 0) {
        return -1;
    }
    *floor = selling;
    *price = selling > net ? selling : net;
    return 0;
}

/* rate_price of a rate of an offers or checkrates answer (core/jval). */
static int rate_price_of(const trv_jval *rate, const char *cur, apr_int64_t net,
                         apr_int64_t *price, apr_int64_t *floor)
{
    apr_int64_t selling = -1;
    int read = !trv_money_minor_of_jval(trv_jval_get(rate, "sellingRate"), cur, &selling);
    return rate_price(net, trv_jval_is_true(trv_jval_get(rate, "hotelMandatory")), read,
                      selling, price, floor);
}

/* An offered or checked rate's price (rate_price_of) and floor, with what
 * every such rate must state: a rateKey and a net. priced() orders and
 * trims offers by this price, offer_of builds the kept ones with it. */
static int offered_price(const trv_jval *rate, const char *cur, apr_int64_t *price,
                         apr_int64_t *floor)
{
    apr_int64_t net;
    return !trv_jval_strget(rate, "rateKey")
                   || trv_money_minor_of_jval(trv_jval_get(rate, "net"), cur, &net) || net < 0
                   || rate_price_of(rate, cur, net, price, floor) != 0
               ? -1
               : 0;
}

/* The cheapest price of a searched hotel from its rates (each room type's
 * rate of every occupancy group, at its rate_price): 1 with *out, 0 when
 * its rooms do not price every group, -1 on a binding rate without a
 * readable sellingRate.
 * Availability's minRate is not taken alone: it is the cheapest net, which
 * a hotel's binding sellingRate may forbid. */
static int hotel_cheapest(apr_pool_t *p, const trv_hotel_stay *stay, const b_groups *g,
                          const trv_jval *hotel, const char *cur, apr_int64_t *out)
{
    const trv_jval *room, *rate;
    apr_size_t i, k;
    int found = 0, gi;
    trv_jval_foreach(trv_jval_get(hotel, "rooms"), i, room) {
        apr_int64_t best[TRV_HOTEL_MAX_ROOMS], sum = 0;
        int all = 1;
        for (gi = 0; gi < g->n; gi++) {
            best[gi] = -1;
        }
        trv_jval_foreach(trv_jval_get(room, "rates"), k, rate) {
            apr_int64_t net, price, floor;
            gi = group_of_rate(p, stay, g, rate);
            /* A rate the stay cannot book is no price here (offers, which
             * read every rate, refuse such an answer). */
            if (gi < 0 || trv_money_minor_of_jval(trv_jval_get(rate, "net"), cur, &net)
                || net < 0) {
                continue;
            }
            if (rate_price_of(rate, cur, net, &price, &floor) != 0) {
                return -1;
            }
            if (best[gi] < 0 || price < best[gi]) {
                best[gi] = price;
            }
        }
        for (gi = 0; gi < g->n && all; gi++) {
            all = best[gi] >= 0 && trv_hwire_sum(&sum, best[gi]) == 0;
        }
        if (all && (!found || sum < *out)) {
            *out = sum;
            found = 1;
        }
    }
    return found;
}

/* An offer's reference: every group's rateKey, in group order, as a JSON
 * array (a rateKey holds '|' and other punctuation). */
static const char *keys_ref(apr_pool_t *p, const trv_jval *const *rates, int n)
{
    trv_jtext t;
    int i;
    trv_jtext_init(&t, p, 256);
    trv_jtext_arr(&t);
    for (i = 0; i < n; i++) {
        trv_jtext_str(&t, trv_jval_strget(rates[i], "rateKey"));
    }
    trv_jtext_end(&t);
    return trv_jtext_done(&t, NULL);
}

/* The rateKeys of a reference made by keys_ref, or NULL when malformed or
 * not one per group. */
static json_t *keys_of(trv_hotel_ctx *ctx, const char *ref, int n_groups)
{
    json_t *a = ref ? trv_json_parse(ctx->pool, ref, strlen(ref), NULL) : NULL;
    const json_t *k;
    size_t i;
    if (!json_is_array(a) || (int)json_array_size(a) != n_groups) {
        return NULL;
    }
    json_array_foreach(a, i, k) {
        if (!json_is_string(k)) {
            return NULL;
        }
    }
    return a;
}

static trv_up_status destination(trv_hotel_ctx *ctx, const trv_hotel_area *area,
                                 const char **code, trv_hotel_err *err)
{
    trv_up_result res;
    trv_up_status st;
    json_t *list, *d;
    size_t i;
    apr_int64_t from = 1, total;
    *code = NULL;
    do {
        st = hb(trv_hwire_call_content(ctx, apr_psprintf(ctx->pool,
                    CONTENT "/locations/destinations?fields=all&language=ENG&countryCodes=%s"
                    "&from=%" APR_INT64_T_FMT "&to=%" APR_INT64_T_FMT,
                    trv_url_escape(ctx->pool, area->country_code), from, from + CONTENT_PAGE - 1),
                    auth(ctx), &res, err), &res, err);
        if (st != TRV_UP_OK) {
            return st;
        }
        list = json_object_get(res.body, "destinations");
        if (!json_is_array(list)) {
            return trv_hwire_bad(ctx, err, "destinations");
        }
        json_array_foreach(list, i, d) {
            const char *name = trv_json_str(json_object_get(d, "name"), "content");
            const char *cc = trv_json_str(d, "countryCode");
            if (name && cc && strcasecmp(name, area->city) == 0
                && strcasecmp(cc, area->country_code) == 0) {
                *code = trv_json_str(d, "code");
                return TRV_UP_OK;
            }
        }
        total = json_integer_value(json_object_get(res.body, "total"));
        from += CONTENT_PAGE;
    } while (json_array_size(list) > 0 && from <= total);
    return TRV_UP_OK;
}

/* Content of one destination's hotels, keyed by code. */
static trv_up_status content(trv_hotel_ctx *ctx, const char *code, apr_hash_t *by_code,
                             trv_hotel_err *err)
{
    trv_up_result res;
    trv_up_status st;
    json_t *list, *h;
    size_t i;
    apr_int64_t from = 1, total;
    /* Page by page (from..to, 1-based, at most CONTENT_PAGE a call) until
     * the answer's total. */
    do {
        st = hb(trv_hwire_call_content(ctx, apr_psprintf(ctx->pool,
                    CONTENT "/hotels?fields=all&language=ENG&destinationCode=%s"
                    "&from=%" APR_INT64_T_FMT "&to=%" APR_INT64_T_FMT,
                    trv_url_escape(ctx->pool, code), from, from + CONTENT_PAGE - 1),
                    auth(ctx), &res, err), &res, err);
        if (st != TRV_UP_OK) {
            return st;
        }
        list = json_object_get(res.body, "hotels");
        if (!json_is_array(list)) {
            return trv_hwire_bad(ctx, err, "hotels");
        }
        json_array_foreach(list, i, h) {
            json_t *c = json_object_get(h, "code");
            if (json_is_integer(c)) {
                apr_hash_set(by_code, apr_psprintf(ctx->pool, "%" APR_INT64_T_FMT,
                                                   (apr_int64_t)json_integer_value(c)),
                             APR_HASH_KEY_STRING, h);
            }
        }
        total = json_integer_value(json_object_get(res.body, "total"));
        from += CONTENT_PAGE;
    } while (json_array_size(list) > 0 && from <= total);
    return TRV_UP_OK;
}

static trv_up_status search(trv_hotel_ctx *ctx, const trv_hotel_area *area,
                            const trv_hotel_stay *stay, apr_array_header_t **found,
                            trv_hotel_err *err)
{
    trv_up_result res;
    trv_up_status st;
    json_t *body;
    const trv_jval *list, *h;
    apr_hash_t *by_code = apr_hash_make(ctx->pool), *dests = apr_hash_make(ctx->pool);
    apr_size_t i;
    apr_int64_t cheapest = 0;
    int k, said = 0;
    b_groups g;

    groups_of(stay, &g);
    *found = apr_array_make(ctx->pool, 64, sizeof(trv_hotel_found));
    /* No currency: Hotelbeds prices in the account's (other_currency). */
    body = json_pack("{s:{s:s,s:s},s:o,s:{s:i}}",
                     "stay", "checkIn", stay->check_in, "checkOut", stay->check_out,
                     "occupancies", occupancies(stay), "filter", "maxRatesPerRoom", 1);
    if (area->by_point) {
        /* The radius in km, to the metre. */
        json_object_set_new(body, "geolocation",
                            json_pack("{s:f,s:f,s:f,s:s}", "latitude", area->latitude,
                                      "longitude", area->longitude, "radius",
                                      area->radius_m / 1000.0, "unit", "km"));
    }
    else {
        const char *code;
        if ((st = destination(ctx, area, &code, err)) != TRV_UP_OK) {
            json_decref(body);
            return st;
        }
        if (!code) {
            json_decref(body);
            return TRV_UP_OK; /* the supplier has no hotels there */
        }
        json_object_set_new(body, "destination", json_pack("{s:s}", "code", code));
    }
    trv_json_bind(ctx->pool, body);
    /* The largest answer of a search (every hotel's rooms, rates, taxes
     * and policies): read, not built into a tree. */
    st = hb(trv_hwire_search(ctx, "POST", BOOKING "/hotels", auth(ctx), body, &res, err), &res,
            err);
    if (st != TRV_UP_OK) {
        return st;
    }
    list = trv_jval_get(trv_jval_get(res.doc, "hotels"), "hotels");
    if (!trv_jval_is_array(list)) {
        return trv_hwire_bad(ctx, err, "hotels.hotels");
    }
    trv_jval_foreach(list, i, h) {
        const char *dc = trv_jval_strget(h, "destinationCode");
        if (dc && !apr_hash_get(dests, dc, APR_HASH_KEY_STRING)) {
            apr_hash_set(dests, dc, APR_HASH_KEY_STRING, dc);
            if ((st = content(ctx, dc, by_code, err)) != TRV_UP_OK) {
                return st;
            }
        }
    }
    trv_jval_foreach(list, i, h) {
        const trv_jval *c = trv_jval_get(h, "code");
        json_t *info;
        trv_hotel_found *f;
        const char *cur = trv_jval_strget(h, "currency");
        if (!trv_jval_is_int(c)) {
            return trv_hwire_bad(ctx, err, "a hotel's code");
        }
        if (cur && other_currency(ctx, cur, stay, &said)) {
            continue;
        }
        f = apr_array_push(*found);
        memset(f, 0, sizeof(*f));
        f->supplier = ctx->up->name; /* the site's wire name */
        f->sid = apr_psprintf(ctx->pool, "%" APR_INT64_T_FMT, trv_jval_int(c));
        info = apr_hash_get(by_code, f->sid, APR_HASH_KEY_STRING);
        f->name = trv_jval_strget(h, "name");
        f->city = trv_jval_strget(h, "destinationName");
        f->latitude = trv_jval_num(trv_jval_get(h, "latitude"));
        f->longitude = trv_jval_num(trv_jval_get(h, "longitude"));
        if (info) {
            json_t *g = json_object_get(info, "giataCode");
            f->country_code = trv_json_str(info, "countryCode");
            f->postal_code = trv_json_str(info, "postalCode");
            f->giata = json_is_integer(g) ? apr_psprintf(ctx->pool, "%" APR_INT64_T_FMT,
                                                         (apr_int64_t)json_integer_value(g))
                                          : NULL;
            if (trv_json_str(json_object_get(info, "city"), "content")) {
                f->city = trv_json_str(json_object_get(info, "city"), "content");
            }
        }
        if (!f->name || !f->country_code || !cur || strcmp(cur, stay->currency)
            || trv_money_minor_of_jval(trv_jval_get(h, "minRate"), cur, &f->total_minor)
            || (k = hotel_cheapest(ctx->pool, stay, &g, h, cur, &cheapest)) < 0) {
            return trv_hwire_bad(ctx, err, "a hotel's name, country or price");
        }
        /* Never below what the hotel binds the seller to. */
        if (k && cheapest > f->total_minor) {
            f->total_minor = cheapest;
        }
        f->priced = 1;
    }
    return TRV_UP_OK;
}

/* The rate's refundability (rateClass NRF is not) as an empty policy. */
static json_t *rate_policy(const trv_jval *rate)
{
    const char *rc = trv_jval_strget(rate, "rateClass");
    return trv_hwire_policy_new(strcmp(rc ? rc : "", "NRF") != 0);
}

/* Shares a group's amount among its n rooms in minor units: each room
 * amount / n, the remainder to the first room (i == 0). */
static apr_int64_t share(apr_int64_t amount, int n, int i)
{
    return amount / n + (i == 0 ? amount % n : 0);
}

/* One offer: rates[g] the rate of occupancy group g (same room, board
 * and rateClass). Its total is the sum of the groups' prices (rate_price:
 * the net, or the hotel's binding sellingRate), each room's price and
 * penalties its group's shared among the group's rooms (a binding
 * sellingRate shared the same way is the room's minimum_selling_price,
 * never above its price); the offer's policy is the rooms' summed at each
 * instant. */
static int offer_of(trv_hotel_ctx *ctx, const trv_hotel_stay *stay, const b_groups *g,
                    const char *sid, const trv_jval *room, const trv_jval *const *rates,
                    apr_time_t now, trv_hotel_offer *out)
{
    const char *cur = stay->currency;
    json_t *rooms = trv_json_bind(ctx->pool, json_array());
    json_t *promos = trv_json_bind(ctx->pool, json_array());
    json_t *by_pos[TRV_HOTEL_MAX_ROOMS], *policy;
    const trv_jval *e;
    size_t k;
    int gi, i;
    memset(out, 0, sizeof(*out));
    memset(by_pos, 0, sizeof(by_pos));
    out->sid = sid;
    out->expires_at = now + TRV_HOTEL_OFFER_TTL;
    if (!(out->ref = keys_ref(ctx->pool, rates, g->n))) {
        return -1;
    }
    for (gi = 0; gi < g->n; gi++) {
        const trv_jval *rate = rates[gi];
        const trv_jval *pens = trv_jval_get(rate, "cancellationPolicies");
        apr_int64_t price, floor, due = 0;
        int has_due = 0;
        if (offered_price(rate, cur, &price, &floor) != 0
            || trv_hwire_sum(&out->total_minor, price) != 0) {
            return -1;
        }
        trv_jval_foreach(trv_jval_get(trv_jval_get(rate, "taxes"), "taxes"), k, e) {
            apr_int64_t m;
            if (!trv_jval_is_true(trv_jval_get(e, "included"))
                && !trv_money_minor_of_jval(trv_jval_get(e, "amount"), cur, &m)) {
                if (m < 0 || trv_hwire_sum(&due, m) != 0) {
                    return -1;
                }
                has_due = 1;
            }
        }
        /* A group's promotion is named on its first room. */
        trv_jval_foreach(trv_jval_get(rate, "offers"), k, e) {
            apr_int64_t m;
            if (trv_jval_strget(e, "name")
                && !trv_money_minor_of_jval(trv_jval_get(e, "amount"), cur, &m)
                && trv_hwire_promo_add(promos, trv_jval_strget(e, "name"), m < 0 ? -m : m, cur,
                                       g->pos[gi][0]) != 0) {
                return -1;
            }
        }
        for (i = 0; i < g->count[gi]; i++) {
            int p = g->pos[gi][i];
            json_t *ages = trv_hwire_ages(&stay->rooms[p]);
            json_t *rp = trv_json_bind(ctx->pool, rate_policy(rate));
            apr_int64_t room_price;
            /* The group's penalties shared among its rooms like its net. */
            trv_jval_foreach(pens, k, e) {
                apr_int64_t m;
                json_t *mj;
                if (trv_money_minor_of_jval(trv_jval_get(e, "amount"), cur, &m) || m < 0) {
                    json_decref(ages);
                    return -1;
                }
                mj = trv_json_bind(ctx->pool,
                                           trv_hwire_money(share(m, g->count[gi], i), cur));
                if (trv_hwire_penalty_add(ctx->pool, rp, trv_jval_strget(e, "from"),
                                          json_object_get(mj, "amount"), cur) != 0) {
                    json_decref(ages);
                    return -1;
                }
            }
            /* With a floor, the room's price is its share of the floor
             * plus its share of the rest, so it is never below the
             * floor's share (shares of two amounts alone may cross). */
            room_price = floor < 0 ? share(price, g->count[gi], i)
                                   : share(floor, g->count[gi], i)
                                         + share(price - floor, g->count[gi], i);
            {
                trv_hwire_room r = {
                    p, stay->rooms[p].adults, trv_jval_strget(room, "name"),
                    trv_hwire_board(ctx->pool, trv_jval_strget(rate, "boardCode")),
                    trv_jval_strget(rate, "boardName"), ages, trv_hwire_money(room_price, cur),
                    floor < 0 ? json_null() : trv_hwire_money(share(floor, g->count[gi], i), cur),
                    has_due ? trv_hwire_money(share(due, g->count[gi], i), cur) : NULL, rp};
                by_pos[p] = trv_json_bind(ctx->pool, trv_hwire_room_doc(&r));
            }
        }
    }
    for (i = 0; i < stay->n_rooms; i++) {
        if (!by_pos[i]) {
            return -1;
        }
        json_array_append(rooms, by_pos[i]);
    }
    if (!(policy = trv_hwire_policy_sum(ctx->pool, rooms, cur))) {
        return -1;
    }
    trv_json_bind(ctx->pool, policy);
    out->doc = trv_hwire_offer_doc(trv_jval_strget(room, "code"), trv_jval_strget(room, "name"),
                                   trv_hwire_board(ctx->pool, trv_jval_strget(rates[0], "boardCode")),
                                   trv_jval_strget(rates[0], "boardName"),
                                   trv_hwire_money(out->total_minor, cur), policy, promos, rooms);
    trv_json_bind(ctx->pool, out->doc);
    return 0;
}

/* Whether two groups' rates are one offer's: same board and rateClass. */
static int same_terms(const trv_jval *a, const trv_jval *b)
{
    const char *ba = trv_jval_strget(a, "boardCode"), *bb = trv_jval_strget(b, "boardCode");
    const char *ca = trv_jval_strget(a, "rateClass"), *cb = trv_jval_strget(b, "rateClass");
    return ba && bb && strcmp(ba, bb) == 0 && strcmp(ca ? ca : "", cb ? cb : "") == 0;
}

/* An offer priced but not built: its room and each group's rate. */
typedef struct b_pick {
    const trv_jval *room;
    const trv_jval *rates[TRV_HOTEL_MAX_ROOMS];
} b_pick;

/* What orders and trims offers (total, reference) without building the
 * offer's document: the total offer_of states (each group's rate at its
 * offered_price, a binding sellingRate included), so the trim keeps the
 * offers cheapest at the price shown, with the same refusals. */
static int priced(apr_pool_t *p, const trv_hotel_stay *stay, const b_groups *g,
                  const char *sid, const b_pick *k, apr_time_t now, trv_hotel_offer *out)
{
    int gi;
    memset(out, 0, sizeof(*out));
    out->sid = sid;
    out->expires_at = now + TRV_HOTEL_OFFER_TTL;
    out->unbuilt = k;
    if (!(out->ref = keys_ref(p, k->rates, g->n))) {
        return -1;
    }
    for (gi = 0; gi < g->n; gi++) {
        apr_int64_t price, floor;
        if (offered_price(k->rates[gi], stay->currency, &price, &floor) != 0
            || trv_hwire_sum(&out->total_minor, price) != 0) {
            return -1;
        }
    }
    return 0;
}

/* The offers of one room type: for each rate of the first group, the
 * first rate of every other group with the same board and rateClass (a
 * combination some group lacks is no offer), priced (priced()) and left
 * to build. Returns -1 on a rate that prices no group or cannot be
 * read. */
static int room_offers(trv_hotel_ctx *ctx, const trv_hotel_stay *stay, const b_groups *g,
                       const char *sid, const trv_jval *room, apr_time_t now,
                       apr_array_header_t *out)
{
    const trv_jval *rate;
    const trv_jval *list = trv_jval_get(room, "rates");
    size_t j, m;
    int gi;
    trv_jval_foreach(list, j, rate) {
        if ((gi = group_of_rate(ctx->pool, stay, g, rate)) < 0) {
            return -1;
        }
    }
    trv_jval_foreach(list, j, rate) {
        b_pick *k;
        int found = 1;
        if (group_of_rate(ctx->pool, stay, g, rate) != 0) {
            continue;
        }
        k = apr_pcalloc(ctx->pool, sizeof(*k));
        k->room = room;
        k->rates[0] = rate;
        for (gi = 1; gi < g->n && found; gi++) {
            const trv_jval *other;
            trv_jval_foreach(list, m, other) {
                if (group_of_rate(ctx->pool, stay, g, other) == gi && same_terms(rate, other)) {
                    k->rates[gi] = other;
                    break;
                }
            }
            found = k->rates[gi] != NULL;
        }
        if (found && priced(ctx->pool, stay, g, sid, k, now, apr_array_push(out)) != 0) {
            return -1;
        }
    }
    return 0;
}

static trv_up_status offers(trv_hotel_ctx *ctx, const trv_hotel_stay *stay,
                            const char *const *sids, int n, int max_per_hotel,
                            apr_array_header_t **out, trv_hotel_err *err)
{
    json_t *codes = json_array(), *body;
    const trv_jval *list, *h, *room;
    trv_up_result res;
    trv_up_status st;
    apr_time_t now = apr_time_now();
    size_t i, k;
    int q, said = 0;
    b_groups g;
    groups_of(stay, &g);
    for (q = 0; q < n; q++) {
        json_array_append_new(codes, json_integer(apr_atoi64(sids[q])));
    }
    body = json_pack("{s:{s:s,s:s},s:o,s:{s:o},s:{s:i}}",
                     "stay", "checkIn", stay->check_in, "checkOut", stay->check_out,
                     "occupancies", occupancies(stay), "hotels", "hotel", codes,
                     "filter", "maxRatesPerRoom", max_per_hotel);
    trv_json_bind(ctx->pool, body);
    st = hb(trv_hwire_search(ctx, "POST", BOOKING "/hotels", auth(ctx), body, &res, err), &res,
            err);
    if (st != TRV_UP_OK) {
        return st;
    }
    list = trv_jval_get(trv_jval_get(res.doc, "hotels"), "hotels");
    if (!trv_jval_is_array(list)) {
        return trv_hwire_bad(ctx, err, "hotels.hotels");
    }
    *out = apr_array_make(ctx->pool, 16, sizeof(trv_hotel_offer));
    trv_jval_foreach(list, i, h) {
        const trv_jval *c = trv_jval_get(h, "code");
        const char *sid = trv_jval_is_int(c)
            ? apr_psprintf(ctx->pool, "%" APR_INT64_T_FMT, trv_jval_int(c))
            : NULL;
        if (!sid || !trv_jval_strget(h, "currency")) {
            return trv_hwire_bad(ctx, err, "a hotel's code and currency");
        }
        if (other_currency(ctx, trv_jval_strget(h, "currency"), stay, &said)) {
            continue;
        }
        trv_jval_foreach(trv_jval_get(h, "rooms"), k, room) {
            if (room_offers(ctx, stay, &g, sid, room, now, *out) != 0) {
                return trv_hwire_bad(ctx, err, "a rate's key, occupancy and price");
            }
        }
    }
    /* Documents only for the offers kept (most of an answer's rates are
     * not: up to maxRatesPerRoom a room type, max_per_hotel a hotel). */
    trv_hwire_offers_trim(*out, max_per_hotel);
    for (q = 0; q < (*out)->nelts; q++) {
        trv_hotel_offer *o = &APR_ARRAY_IDX(*out, q, trv_hotel_offer);
        const b_pick *k = o->unbuilt;
        if (offer_of(ctx, stay, &g, o->sid, k->room, k->rates, now, o) != 0) {
            return trv_hwire_bad(ctx, err, "a rate's key, occupancy and price");
        }
    }
    return TRV_UP_OK;
}

/* ---- prebook, book, retrieve ---- */

/* checkrates with every group's rateKey: the rates again at today's
 * price, each under a new rateKey; the new keys are what book takes. */
static trv_up_status prebook(trv_hotel_ctx *ctx, const trv_hotel_stay *stay, const char *sid,
                             const char *ref, trv_hotel_prebooked *out, trv_hotel_err *err)
{
    trv_up_result res;
    trv_up_status st;
    trv_hotel_offer o;
    const trv_jval *h, *room, *rate, *pick[TRV_HOTEL_MAX_ROOMS], *first_room = NULL;
    const json_t *keys, *key;
    apr_time_t now = apr_time_now();
    json_t *rooms = json_array(), *body;
    b_groups g;
    size_t i, j;
    int gi;
    groups_of(stay, &g);
    memset(out, 0, sizeof(*out));
    memset(pick, 0, sizeof(pick));
    if (!(keys = keys_of(ctx, ref, g.n))) {
        json_decref(rooms);
        err->code = "invalid_offer";
        err->message = "the offer's reference does not hold one rateKey per occupancy group";
        return TRV_UP_REJECTED;
    }
    json_array_foreach(keys, i, key) {
        json_array_append_new(rooms, json_pack("{s:O}", "rateKey", key));
    }
    body = trv_json_bind(ctx->pool, json_pack("{s:o}", "rooms", rooms));
    st = hb(trv_hwire_read(ctx, "POST", BOOKING "/checkrates", auth(ctx), body, &res, err),
            &res, err);
    if (st != TRV_UP_OK) {
        return st;
    }
    h = trv_jval_get(res.doc, "hotel");
    trv_jval_foreach(trv_jval_get(h, "rooms"), i, room) {
        trv_jval_foreach(trv_jval_get(room, "rates"), j, rate) {
            gi = group_of_rate(ctx->pool, stay, &g, rate);
            if (gi < 0 || pick[gi]) {
                return trv_hwire_bad(ctx, err, "a checked rate of each occupancy group");
            }
            pick[gi] = rate;
            first_room = first_room ? first_room : room;
        }
    }
    for (gi = 0; gi < g.n; gi++) {
        if (!pick[gi]) {
            return trv_hwire_bad(ctx, err, "a checked rate of each occupancy group");
        }
    }
    if (strcmp(trv_jval_strget(h, "currency") ? trv_jval_strget(h, "currency") : "", stay->currency)
        || offer_of(ctx, stay, &g, sid, first_room, pick, now, &o) != 0) {
        return trv_hwire_bad(ctx, err, "a checked rate's key and prices");
    }
    out->prebook_id = o.ref;
    out->total_minor = o.total_minor;
    out->expires_at = o.expires_at;
    /* Hotelbeds states no "changed" flag: the caller compares totals. */
    out->hotel_name = trv_jval_strget(h, "name");
    out->doc = o.doc;
    return TRV_UP_OK;
}

static const char *b_status(const char *s)
{
    if (!s) {
        return NULL;
    }
    /* PRECONFIRMED: made, the hotel's confirmation still to come. */
    return strcmp(s, "CONFIRMED") == 0 ? "CONFIRMED" : strcmp(s, "PRECONFIRMED") == 0 ? "PENDING"
         : strcmp(s, "CANCELLED") == 0 ? "CANCELED" : NULL;
}

/* A Hotelbeds booking: each room's rate carries that room's policy and its
 * supplierReference (the hotel's confirmation number). */
static trv_up_status booked_of(trv_hotel_ctx *ctx, const json_t *bk, trv_hotel_booked *out,
                               trv_hotel_err *err)
{
    const char *cur = trv_json_str(bk, "currency");
    const json_t *r, *pen;
    size_t i, k;
    memset(out, 0, sizeof(*out));
    out->status = b_status(trv_json_str(bk, "status"));
    out->booking_id = trv_json_str(bk, "reference");
    out->client_reference = trv_json_str(bk, "clientReference");
    if (!out->status || !out->booking_id || !cur
        || trv_money_minor_of(json_object_get(bk, "totalNet"), cur, &out->total_minor)) {
        return trv_hwire_bad(ctx, err, "a booking's reference, status and price");
    }
    out->rooms = trv_json_bind(ctx->pool, json_array());
    json_array_foreach(json_object_get(json_object_get(bk, "hotel"), "rooms"), i, r) {
        const json_t *rate = json_array_get(json_object_get(r, "rates"), 0);
        const json_t *cps = json_object_get(rate, "cancellationPolicies");
        apr_int64_t net, selling, price, floor;
        /* totalNet is what Hotelbeds invoices; the booking's price is what
         * the traveller was asked: a rate the hotel binds adds what its
         * sellingRate is above its net (as the offer did). A booking is
         * never refused for it: the price agreed at prebook is the
         * service's, this total only informs. */
        if (json_is_true(json_object_get(rate, "hotelMandatory"))
            && !trv_money_minor_of(json_object_get(rate, "net"), cur, &net)
            && !trv_money_minor_of(json_object_get(rate, "sellingRate"), cur, &selling)
            && rate_price(net, 1, 1, selling, &price, &floor) == 0) {
            trv_hwire_sum(&out->total_minor, price - net);
        }
        /* A rate without cancellationPolicies states no policy (NULL): the
         * booking keeps the one of prebook (book.c). */
        json_t *policy = !json_is_array(cps) ? NULL
            : json_pack("{s:b,s:[]}", "refundable",
                        strcmp(trv_json_str(rate, "rateClass")
                               ? trv_json_str(rate, "rateClass") : "", "NRF") != 0,
                        "penalties");
        json_array_foreach(policy ? cps : NULL, k, pen) {
            if (trv_hwire_penalty_add(ctx->pool, policy, trv_json_str(pen, "from"),
                                      json_object_get(pen, "amount"), cur) != 0) {
                json_decref(policy);
                return trv_hwire_bad(ctx, err, "a room's cancellation policy");
            }
        }
        if (!out->hotel_confirmation_code) {
            out->hotel_confirmation_code = trv_json_str(r, "supplierReference");
        }
        json_array_append_new(out->rooms, json_pack("{s:i,s:s?,s:s?,s:o?}", "position", (int)i,
                                                    "supplier_reference_number",
                                                    trv_json_str(r, "supplierReference"),
                                                    "hotel_confirmation_code",
                                                    trv_json_str(r, "supplierReference"),
                                                    "cancellation_policy", policy));
    }
    out->cancellation_policy = trv_json_bind(ctx->pool,
                                             trv_hwire_policy_sum(ctx->pool, out->rooms, cur));
    /* B invoices the partner: the traveller pays the service. */
    return TRV_UP_OK;
}

static trv_up_status retrieve(trv_hotel_ctx *ctx, const char *booking_id,
                              const char *client_reference, trv_hotel_booked *out,
                              trv_hotel_err *err)
{
    trv_up_result res;
    trv_up_status st;
    if (!booking_id) {
        const json_t *list;
        char start[16], end[16];
        apr_size_t n;
        apr_time_exp_t t;
        apr_time_t now = apr_time_now();
        /* Hotelbeds lists bookings made between two days: a lost answer is
         * looked for among the last RECOVERY_DAYS days' bookings. */
        apr_time_exp_gmt(&t, now - apr_time_from_sec(RECOVERY_DAYS * 86400));
        apr_strftime(start, &n, sizeof(start), "%Y-%m-%d", &t);
        apr_time_exp_gmt(&t, now + apr_time_from_sec(86400));
        apr_strftime(end, &n, sizeof(end), "%Y-%m-%d", &t);
        st = hb(trv_hwire_call(ctx, "GET", apr_psprintf(ctx->pool,
                    BOOKING "/bookings?start=%s&end=%s&filterType=CREATION&from=1&to=25"
                    "&clientReference=%s", start, end,
                    trv_url_escape(ctx->pool, client_reference)),
                    auth(ctx), NULL, &res, err), &res, err);
        if (st != TRV_UP_OK) {
            return st;
        }
        list = json_object_get(json_object_get(res.body, "bookings"), "bookings");
        if (!json_is_array(list)) {
            return trv_hwire_bad(ctx, err, "a list of bookings");
        }
        if (json_array_size(list) == 0) {
            err->code = "not_found";
            err->message = "no booking under this client reference";
            return TRV_UP_NOT_FOUND;
        }
        if (!(booking_id = trv_json_str(json_array_get(list, 0), "reference"))) {
            return trv_hwire_bad(ctx, err, "a booking's reference");
        }
    }
    st = hb(trv_hwire_call(ctx, "GET", apr_psprintf(ctx->pool, BOOKING "/bookings/%s",
                                                    trv_url_escape(ctx->pool, booking_id)),
                           auth(ctx), NULL, &res, err), &res, err);
    if (st != TRV_UP_OK) {
        return st;
    }
    return booked_of(ctx, json_object_get(res.body, "booking"), out, err);
}

static trv_up_status book(trv_hotel_ctx *ctx, const trv_hotel_book_req *rq,
                          trv_hotel_booked *out, trv_hotel_err *err)
{
    const trv_hotel_party *pt = rq->party;
    const json_t *keys;
    json_t *rooms, *body;
    trv_up_result res;
    trv_up_status st;
    b_groups g;
    int gi, i, k;
    if (!rq->stay) {
        err->code = "invalid_request";
        err->message = "a Hotelbeds booking needs the stay's occupancies";
        return TRV_UP_REJECTED;
    }
    groups_of(rq->stay, &g);
    if (!(keys = keys_of(ctx, rq->prebook_id, g.n))) {
        err->code = "invalid_request";
        err->message = "the prebook does not hold one rateKey per occupancy group";
        return TRV_UP_REJECTED;
    }
    /* One entry per rateKey (occupancy group), each pax naming its room
     * within the group (roomId 1..rooms). */
    rooms = trv_json_bind(ctx->pool, json_array());
    for (gi = 0; gi < g.n; gi++) {
        json_t *paxes = json_array();
        for (i = 0; i < g.count[gi]; i++) {
            int p = g.pos[gi][i], child = 0;
            for (k = 0; p < pt->n_rooms && k < pt->n_guests[p]; k++) {
                json_t *pax = json_pack("{s:i,s:s,s:s,s:s}", "roomId", i + 1,
                                        "type", pt->guests[p][k].child ? "CH" : "AD",
                                        "name", pt->guests[p][k].first_name,
                                        "surname", pt->guests[p][k].last_name);
                /* A child's age, as the occupancy searched gave it. */
                if (pt->guests[p][k].child && child < rq->stay->rooms[p].n_children) {
                    json_object_set_new(pax, "age",
                                        json_integer(rq->stay->rooms[p].ages[child++]));
                }
                json_array_append_new(paxes, pax);
            }
        }
        json_array_append_new(rooms, json_pack("{s:O,s:o}", "rateKey",
                                               json_array_get(keys, (size_t)gi), "paxes", paxes));
    }
    body = trv_json_bind(ctx->pool, json_pack("{s:{s:s,s:s},s:O,s:s}", "holder",
                                              "name", pt->first_name, "surname", pt->last_name,
                                              "rooms", rooms,
                                              "clientReference", rq->client_reference));
    /* Hotelbeds documents no Idempotency-Key: its row says so, and the
     * booking goes out unkeyed, never resent by the HTTP client; a lost
     * answer is found by its clientReference. */
    st = hb(trv_hwire_call_idem(ctx, &trv_hotel_supplier_b, "POST", BOOKING "/bookings", auth(ctx), body,
                                rq->idempotency_key, &res, err), &res, err);
    if (st == TRV_UP_REJECTED && res.code) {
        if (strcmp(res.code, "DUPLICATE_CLIENT_REFERENCE") == 0) {
            /* Booked before (an answer lost): that booking, never a second. */
            return retrieve(ctx, NULL, rq->client_reference, out, err);
        }
        err->code = strcmp(res.code, "BOOKING_REFUSED") == 0 ? "book_failed"
                  : strcmp(res.code, "PRICE_CHANGED") == 0 ? "price_changed" : err->code;
    }
    if (st != TRV_UP_OK) {
        return st;
    }
    return booked_of(ctx, json_object_get(res.body, "booking"), out, err);
}

/* ---- cancellation ---- */

/* A booking as Hotelbeds answers it (a cancellation's answer or a read):
 * CANCELLED, its hotel's cancellationAmount the fee beside its totalNet. */
static trv_up_status cancelled_of(trv_hotel_ctx *ctx, const json_t *body,
                                  trv_hotel_canceled *out, trv_hotel_err *err)
{
    const json_t *b = json_object_get(body, "booking");
    apr_int64_t total;
    if (!trv_json_str(b, "status")) {
        return trv_hwire_bad(ctx, err, "a booking's status");
    }
    if (strcmp(trv_json_str(b, "status"), "CANCELLED") != 0) {
        return TRV_UP_REJECTED;
    }
    out->currency = trv_json_str(b, "currency");
    if (!out->currency
        || trv_money_minor_of(json_object_get(json_object_get(b, "hotel"),
                                              "cancellationAmount"), out->currency,
                              &out->fee_minor) != 0
        || trv_money_minor_of(json_object_get(b, "totalNet"), out->currency, &total) != 0) {
        return trv_hwire_bad(ctx, err, "a cancelled booking with its cancellation amount");
    }
    out->currency = apr_pstrdup(ctx->pool, out->currency);
    out->refund_minor = total > out->fee_minor ? total - out->fee_minor : 0;
    return TRV_UP_OK;
}

/* DELETE .../bookings/{reference}?cancellationFlag=CANCELLATION; the
 * booking comes back CANCELLED. (SIMULATION, Hotelbeds' preview of the
 * same answer, is not used: the service document gives this slot
 * estimates from the booking's policy; docs/suppliers.md.) Hotelbeds
 * cancels a confirmed booking: a cancel sent again after its answer was
 * lost is refused, and the booking read gives the cancellation it made. */
static trv_up_status cancel(trv_hotel_ctx *ctx, const char *ref, trv_hotel_canceled *out,
                            trv_hotel_err *err)
{
    trv_up_result res;
    const char *path = apr_pstrcat(ctx->pool, BOOKING "/bookings/",
                                   trv_url_escape(ctx->pool, ref), NULL);
    trv_up_status st = hb(trv_hwire_call(ctx, "DELETE",
                                         apr_pstrcat(ctx->pool, path,
                                                     "?cancellationFlag=CANCELLATION", NULL),
                                         auth(ctx), NULL, &res, err), &res, err);
    if (st == TRV_UP_REJECTED) {
        return trv_hwire_cancel_refused(ctx, path, auth(ctx), cancelled_of, out, err);
    }
    if (st != TRV_UP_OK) {
        return st;
    }
    if ((st = cancelled_of(ctx, res.body, out, err)) == TRV_UP_REJECTED) {
        return trv_hwire_bad(ctx, err, "a cancelled booking");
    }
    return st;
}

/* travelctl supplier check: the destinations of one country, one signed
 * call on the content API, nothing changed. */
static trv_up_status check(trv_hotel_ctx *ctx, trv_up_result *res)
{
    return trv_upstream_call_h(ctx->env, ctx->pool, ctx->up, "GET",
                               CONTENT "/locations/destinations?fields=all&language=ENG"
                               "&countryCodes=FR&from=1&to=1", auth(ctx),
                               NULL, ctx->request_id, NULL, res);
}

const trv_hotel_supplier trv_hotel_supplier_b = {
    "hotelbeds",
    search,
    offers,
    prebook,
    book,
    retrieve,
    .cancel = cancel,
    .cancel_preview = NULL,              /* no previews: estimates come from the policy */
    .check = check,
};
