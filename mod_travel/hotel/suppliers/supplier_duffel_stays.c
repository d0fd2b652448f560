/* The duffel-stays protocol's hotel adapter: a client of Duffel's Stays API
 * (Authorization: Bearer <token>, Duffel-Version: v2; bodies wrapped in
 * {"data": ...}; amounts as decimal strings beside their currency; errors
 * as {errors: [{type, code, title, message}], meta}, read by core/upstream).
 *
 *   search          POST /stays/search {location: {radius (km),
 *                   geographic_coordinates}}: Duffel searches around a point
 *                   only, so a city is the point and radius of the gateway's
 *                   own place catalogue (hotel_place_catalog)
 *   offers          POST /stays/search {accommodation: {ids}}, then
 *                   POST /stays/search_results/{id}/actions/fetch_all_rates
 *                   for each result: every rate of every room
 *   prebook         fetch_all_rates again (the rate's terms now), then
 *                   POST /stays/quotes {rate_id}: the price now
 *   book            POST /stays/bookings {quote_id, guests, email,
 *                   phone_number, metadata}, paid from the Duffel balance
 *   retrieve        GET /stays/bookings/{id}; by client reference, the pages
 *                   of GET /stays/bookings, matched on metadata
 *   cancel          POST /stays/bookings/{id}/actions/cancel
 *   check           GET /stays/bookings?limit=1
 *
 * Duffel prices a stay in the accommodation's currency and takes none in
 * the request: a rate in another currency than the stay's is left out (the
 * hotel is found without a price, so a search does not show it, and it has
 * no offers). Duffel's booking carries no
 * amounts, so book writes what was agreed (total, and the refund of the
 * rate's cancellation timeline) into the booking's metadata, which is the
 * partner's own; a booking read rebuilds the policy from it, and cancel the
 * fee, with the time of the cancellation.
 *
 * Adapter-private references: an offer's ref is "<search result id> <rate
 * id>" (prebook needs both), a prebook id "<quote id>" followed, for a
 * refundable rate, by " <refund amount> <refund deadline>". */
#include "hotel/supplier.h"
#include "core/url.h"
#include "core/clock.h"
#include "core/db.h"
#include "core/fanout.h"
#include "core/json.h"
#include "core/log.h"

#include <apr_strings.h>
#include <stdlib.h>
#include <string.h>

#define MAX_IDS 50          /* accommodation ids in one search */
#define LIST_LIMIT 200      /* bookings on one page of the list */
#define LIST_PAGES 25       /* pages read when looking for a client reference */
#define MAX_RADIUS_KM 100

/* The city's point and radius in the gateway's catalogue (sql/051). */
static const trv_stmt city_stmt = {"trv_hotel_stays_city",
    "SELECT latitude::text AS latitude, longitude::text AS longitude, radius_m "
    "FROM hotel_place_catalog WHERE type = 'city' AND country_code = %s "
    "AND lower(name) = lower(%s) ORDER BY routes DESC, key LIMIT 1"};

static apr_table_t *auth(trv_hotel_ctx *ctx)
{
    apr_table_t *h = apr_table_make(ctx->pool, 2);
    apr_table_setn(h, "Authorization",
                   apr_pstrcat(ctx->pool, "Bearer ", ctx->up->api_key ? ctx->up->api_key : "",
                               NULL));
    apr_table_setn(h, "Duffel-Version", "v2");
    return h;
}

static const char *id_path(trv_hotel_ctx *ctx, const char *fmt, const char *id)
{
    return apr_psprintf(ctx->pool, fmt, trv_url_escape(ctx->pool, id));
}

/* Duffel takes the party as one list for every room: adults, then each
 * child with its age; it spreads them over the rooms itself. */
static json_t *guests_of(const trv_hotel_stay *stay)
{
    json_t *g = json_array();
    int r, k;
    for (r = 0; r < stay->n_rooms; r++) {
        for (k = 0; k < stay->rooms[r].adults; k++) {
            json_array_append_new(g, json_pack("{s:s}", "type", "adult"));
        }
    }
    for (r = 0; r < stay->n_rooms; r++) {
        for (k = 0; k < stay->rooms[r].n_children; k++) {
            json_array_append_new(g, json_pack("{s:s,s:i}", "type", "child", "age",
                                               stay->rooms[r].ages[k]));
        }
    }
    return g;
}

/* POST /stays/search with `where` (stolen) under `key`: the results. */
static trv_up_status stays_search(trv_hotel_ctx *ctx, const trv_hotel_stay *stay,
                                  const char *key, json_t *where, const json_t **results,
                                  trv_hotel_err *err)
{
    trv_up_result res;
    trv_up_status st;
    json_t *body = trv_json_bind(ctx->pool, json_pack(
        "{s:{s:s,s:s,s:i,s:o,s:o}}", "data", "check_in_date", stay->check_in,
        "check_out_date", stay->check_out, "rooms", stay->n_rooms, "guests", guests_of(stay),
        key, where));
    st = trv_hwire_call(ctx, "POST", "/stays/search", auth(ctx), body, &res, err);
    if (st != TRV_UP_OK) {
        return st;
    }
    *results = json_object_get(json_object_get(res.body, "data"), "results");
    return json_is_array(*results) ? TRV_UP_OK : trv_hwire_bad(ctx, err, "data.results");
}

/* A city's point and radius from the catalogue; *known 0 when the
 * catalogue has no such city. */
static trv_up_status city_point(trv_hotel_ctx *ctx, const trv_hotel_area *area, double *lat,
                                double *lon, int *radius_m, int *known, trv_hotel_err *err)
{
    trv_dbc *c = NULL;
    trv_rows *rows = NULL;
    *known = 0;
    if (!ctx->env->db || trv_db_open(ctx->env->db, ctx->pool, &c) != APR_SUCCESS
        || trv_db_select(c, ctx->pool, &city_stmt, &rows,
                         TRV_DB_ARGS(area->country_code, area->city)) != APR_SUCCESS) {
        if (c) {
            trv_db_close(ctx->env->db, c);
        }
        trv_log_msg(&ctx->env->log, TRV_LOG_ERR, ctx->request_id,
                    TRVLOGNO(3100) "hotel %s: the city %s, %s could not be read from the place "
                    "catalogue", ctx->up->name, area->city, area->country_code);
        err->code = "unavailable";
        err->message = "the city's position could not be read";
        return TRV_UP_UNAVAILABLE;
    }
    trv_db_close(ctx->env->db, c);
    if (rows->n == 1) {
        *lat = atof(trv_rows_get(rows, 0, "latitude"));
        *lon = atof(trv_rows_get(rows, 0, "longitude"));
        *radius_m = trv_rows_int(rows, 0, "radius_m", 15000);
        *known = 1;
    }
    return TRV_UP_OK;
}

/* The currency's amount of `amount` when `currency` is the stay's. */
static int in_stay_currency(const trv_hotel_stay *stay, const json_t *amount,
                            const char *currency, apr_int64_t *minor)
{
    return currency && strcmp(currency, stay->currency) == 0
           && trv_money_minor_of(amount, stay->currency, minor) == 0;
}

/* A search result's accommodation as a found hotel; -1 without an id,
 * name or country. */
static int found_of(trv_hotel_ctx *ctx, const trv_hotel_stay *stay, const json_t *r,
                    trv_hotel_found *f)
{
    const json_t *acc = json_object_get(r, "accommodation");
    const json_t *loc = json_object_get(acc, "location");
    const json_t *addr = json_object_get(loc, "address");
    const json_t *gc = json_object_get(loc, "geographic_coordinates");
    memset(f, 0, sizeof(*f));
    f->supplier = ctx->up->name;
    f->sid = trv_json_str(acc, "id");
    f->name = trv_json_str(acc, "name");
    f->city = trv_json_str(addr, "city_name");
    f->country_code = trv_json_str(addr, "country_code");
    f->postal_code = trv_json_str(addr, "postal_code");
    f->latitude = json_number_value(json_object_get(gc, "latitude"));
    f->longitude = json_number_value(json_object_get(gc, "longitude"));
    f->priced = in_stay_currency(stay, json_object_get(r, "cheapest_rate_total_amount"),
                                 trv_json_str(r, "cheapest_rate_currency"), &f->total_minor);
    return f->sid && f->name && f->country_code ? 0 : -1;
}

static trv_up_status search(trv_hotel_ctx *ctx, const trv_hotel_area *area,
                            const trv_hotel_stay *stay, apr_array_header_t **found,
                            trv_hotel_err *err)
{
    double lat = area->latitude, lon = area->longitude;
    int radius_m = area->radius_m, known = 1, km;
    const json_t *results, *r;
    trv_up_status st;
    size_t i;
    *found = apr_array_make(ctx->pool, 16, sizeof(trv_hotel_found));
    if (!area->by_point
        && (st = city_point(ctx, area, &lat, &lon, &radius_m, &known, err)) != TRV_UP_OK) {
        return st;
    }
    if (!known) {
        return TRV_UP_OK; /* a city no catalogue entry places: nothing around it */
    }
    km = (radius_m + 999) / 1000;
    km = km < 1 ? 1 : km > MAX_RADIUS_KM ? MAX_RADIUS_KM : km;
    st = stays_search(ctx, stay, "location",
                      json_pack("{s:i,s:{s:f,s:f}}", "radius", km, "geographic_coordinates",
                                "latitude", lat, "longitude", lon),
                      &results, err);
    if (st != TRV_UP_OK) {
        return st;
    }
    json_array_foreach(results, i, r) {
        if (found_of(ctx, stay, r, apr_array_push(*found)) != 0) {
            return trv_hwire_bad(ctx, err, "an accommodation's id, name or country");
        }
    }
    return TRV_UP_OK;
}

/* ---- rates as offers ---- */

/* A Duffel board type: the API's code and its words. */
static void board_of(const char *t, const char **code, const char **words)
{
    static const char *const map[][3] = {
        {"room_only", "ROOM_ONLY", "Room only"}, {"breakfast", "BED_AND_BREAKFAST", "Breakfast"},
        {"half_board", "HALF_BOARD", "Half board"}, {"full_board", "FULL_BOARD", "Full board"},
        {"all_inclusive", "ALL_INCLUSIVE", "All inclusive"},
    };
    size_t i;
    *code = map[0][1];
    *words = map[0][2];
    for (i = 0; t && i < sizeof(map) / sizeof(map[0]); i++) {
        if (strcmp(t, map[i][0]) == 0) {
            *code = map[i][1];
            *words = map[i][2];
        }
    }
}

/* The neutral policy of a refund before a deadline (refund NULL: none,
 * non-refundable): before the deadline the fee is the total less the
 * refund, from it the whole total; without a refund the whole total from
 * `from` on. -1 when the refund or the deadline is unreadable. */
static int refund_policy(trv_hotel_ctx *ctx, const char *cur, apr_int64_t total,
                         const json_t *refund, const char *refund_cur, const char *before,
                         apr_time_t from, json_t **policy)
{
    apr_int64_t back;
    apr_time_t until;
    *policy = trv_json_bind(ctx->pool, trv_hwire_policy_new(refund != NULL));
    if (!refund) {
        trv_hwire_penalty_put(*policy, trv_time_format(ctx->pool, from), total, cur);
        return 0;
    }
    if (!refund_cur || strcmp(refund_cur, cur) != 0
        || trv_money_minor_of(refund, cur, &back) != 0 || back < 0 || back > total
        || !before || trv_time_parse(before, &until) != APR_SUCCESS) {
        return -1;
    }
    if (back < total) {
        trv_hwire_penalty_put(*policy, trv_time_format(ctx->pool, from), total - back, cur);
    }
    trv_hwire_penalty_put(*policy, trv_time_format(ctx->pool, until), total, cur);
    return 0;
}

/* A rate's policy from its cancellation_timeline (its first entry), from
 * now; *refund and *before (what book keeps in the metadata) NULL for a
 * non-refundable rate. */
static int policy_of(trv_hotel_ctx *ctx, const trv_hotel_stay *stay, const json_t *rate,
                     apr_int64_t total, apr_time_t now, json_t **policy, const char **refund,
                     const char **before)
{
    const json_t *tl = json_array_get(json_object_get(rate, "cancellation_timeline"), 0);
    apr_time_t until;
    *refund = *before = NULL;
    if (refund_policy(ctx, stay->currency, total, json_object_get(tl, "refund_amount"),
                      trv_json_str(tl, "currency"), trv_json_str(tl, "before"), now, policy)
        != 0) {
        return -1;
    }
    if (tl && trv_time_parse(trv_json_str(tl, "before"), &until) == APR_SUCCESS) {
        *refund = trv_json_str(tl, "refund_amount");
        *before = trv_time_format(ctx->pool, until);
    }
    return 0;
}

/* One Duffel rate (of room `room`) as an offer; 1 when it is priced in
 * another currency than the stay's (left out), -1 when unreadable. The
 * rate prices every room of the stay at once: the rooms' own prices are
 * unknown unless there is one room, and the amount due at the
 * accommodation, stated for the stay, is carried by the first room so
 * that the rooms' sum is Duffel's. */
static int offer_of(trv_hotel_ctx *ctx, const trv_hotel_stay *stay, const char *sid,
                    const char *result_id, const json_t *room, const json_t *rate,
                    apr_time_t now, trv_hotel_offer *out, const char **refund,
                    const char **before)
{
    const char *cur = stay->currency, *name = trv_json_str(room, "name"), *board, *words;
    const char *due_cur;
    apr_int64_t due = 0;
    apr_time_t exp;
    json_t *rooms, *policy;
    int i;
    memset(out, 0, sizeof(*out));
    board_of(trv_json_str(rate, "board_type"), &board, &words);
    if (!name) {
        return -1;
    }
    if (!trv_json_str(rate, "total_currency")
        || strcmp(trv_json_str(rate, "total_currency"), cur) != 0) {
        return 1;
    }
    if (!trv_json_str(rate, "id")
        || trv_money_minor_of(json_object_get(rate, "total_amount"), cur, &out->total_minor) != 0
        || policy_of(ctx, stay, rate, out->total_minor, now, &policy, refund, before) != 0) {
        return -1;
    }
    /* Due at the accommodation: in its own currency (often the
     * property's), which need not be the stay's. */
    due_cur = trv_json_str(rate, "due_at_accommodation_currency");
    if (json_is_string(json_object_get(rate, "due_at_accommodation_amount"))
        && (!due_cur || trv_money_minor_of(json_object_get(rate, "due_at_accommodation_amount"),
                                           due_cur, &due) != 0)) {
        return -1;
    }
    out->sid = sid;
    out->ref = apr_pstrcat(ctx->pool, result_id, " ", trv_json_str(rate, "id"), NULL);
    out->expires_at = trv_json_str(rate, "expires_at")
                              && trv_time_parse(trv_json_str(rate, "expires_at"), &exp)
                                     == APR_SUCCESS
                          ? exp : now + TRV_HOTEL_OFFER_TTL;
    rooms = trv_json_bind(ctx->pool, json_array());
    for (i = 0; i < stay->n_rooms; i++) {
        trv_hwire_room r = {
            i, stay->rooms[i].adults, name, board, words, trv_hwire_ages(&stay->rooms[i]),
            stay->n_rooms == 1 ? trv_hwire_money(out->total_minor, cur) : NULL, NULL,
            i == 0 && due > 0 ? trv_hwire_money(due, due_cur) : NULL,
            stay->n_rooms == 1 ? policy : json_null()};
        json_array_append_new(rooms, trv_hwire_room_doc(&r));
    }
    out->doc = trv_json_bind(ctx->pool, trv_hwire_offer_doc(
        trv_json_str(rate, "code") ? trv_json_str(rate, "code") : name, name, board, words,
        trv_hwire_money(out->total_minor, cur), policy, NULL, rooms));
    return 0;
}

/* Every rate of a search result (fetch_all_rates) as offers appended to
 * out; with want_rate set, only that rate, and its refund terms. */
static trv_up_status rates_of(trv_hotel_ctx *ctx, const trv_hotel_stay *stay,
                              const char *result_id, const char *want_rate,
                              apr_array_header_t *out, const char **refund, const char **before,
                              trv_hotel_err *err)
{
    trv_up_result res;
    trv_up_status st;
    const json_t *acc, *room, *rate;
    const char *sid, *rf, *bf;
    apr_time_t now = apr_time_now();
    size_t i, k;
    st = trv_hwire_call(ctx, "POST",
                        id_path(ctx, "/stays/search_results/%s/actions/fetch_all_rates",
                                result_id),
                        auth(ctx), NULL, &res, err);
    if (st != TRV_UP_OK) {
        return st;
    }
    acc = json_object_get(json_object_get(res.body, "data"), "accommodation");
    if (!(sid = trv_json_str(acc, "id"))) {
        return trv_hwire_bad(ctx, err, "the accommodation of a search result");
    }
    json_array_foreach(json_object_get(acc, "rooms"), i, room) {
        json_array_foreach(json_object_get(room, "rates"), k, rate) {
            trv_hotel_offer o;
            int r;
            if (want_rate && strcmp(trv_json_str(rate, "id") ? trv_json_str(rate, "id") : "",
                                    want_rate) != 0) {
                continue;
            }
            r = offer_of(ctx, stay, sid, result_id, room, rate, now, &o, &rf, &bf);
            if (r < 0) {
                return trv_hwire_bad(ctx, err, "a rate's id, prices and cancellation timeline");
            }
            if (r == 0) {
                *(trv_hotel_offer *)apr_array_push(out) = o;
                if (refund) {
                    *refund = rf;
                    *before = bf;
                }
            }
        }
    }
    return TRV_UP_OK;
}

/* One search result's rates, fetched on a thread of its own (fanout.h):
 * Duffel's rates call is the slow one, and a request asks up to ten. */
typedef struct fetch {
    trv_hotel_ctx ctx;                   /* with a pool of its own */
    const trv_hotel_stay *stay;
    const char *result_id;
    apr_array_header_t *offers;
    trv_hotel_err err;
    trv_up_status st;
} fetch;

static void fetch_one(void *baton)
{
    fetch *f = baton;
    f->offers = apr_array_make(f->ctx.pool, 8, sizeof(trv_hotel_offer));
    f->st = rates_of(&f->ctx, f->stay, f->result_id, NULL, f->offers, NULL, NULL, &f->err);
}

static trv_up_status offers(trv_hotel_ctx *ctx, const trv_hotel_stay *stay,
                            const char *const *sids, int n, int max_per_hotel,
                            apr_array_header_t **out, trv_hotel_err *err)
{
    trv_up_status st;
    int from, j;
    *out = apr_array_make(ctx->pool, 16, sizeof(trv_hotel_offer));
    for (from = 0; from < n; from += MAX_IDS) {
        json_t *ids = json_array();
        const json_t *results, *r;
        void **batons;
        size_t i;
        for (j = from; j < n && j < from + MAX_IDS; j++) {
            json_array_append_new(ids, json_string(sids[j]));
        }
        st = stays_search(ctx, stay, "accommodation", json_pack("{s:o}", "ids", ids), &results,
                          err);
        if (st != TRV_UP_OK) {
            return st;
        }
        batons = apr_pcalloc(ctx->pool, sizeof(void *) * (json_array_size(results) + 1));
        json_array_foreach(results, i, r) {
            fetch *f = apr_pcalloc(ctx->pool, sizeof(*f));
            if (!trv_json_str(r, "id")) {
                return trv_hwire_bad(ctx, err, "a search result's id");
            }
            f->ctx = *ctx;
            if (!(f->ctx.pool = trv_call_pool(ctx->pool))) {
                err->code = "unavailable";
                err->message = "out of memory";
                return TRV_UP_UNAVAILABLE;
            }
            f->stay = stay;
            f->result_id = trv_json_str(r, "id");
            batons[i] = f;
        }
        trv_fanout(ctx->pool, (int)json_array_size(results), fetch_one, batons);
        /* In the results' order; the first failure fails the request. */
        for (i = 0; i < json_array_size(results); i++) {
            fetch *f = batons[i];
            if (f->st != TRV_UP_OK) {
                *err = f->err;
                return f->st;
            }
            for (j = 0; j < f->offers->nelts; j++) {
                *(trv_hotel_offer *)apr_array_push(*out) =
                    APR_ARRAY_IDX(f->offers, j, trv_hotel_offer);
            }
        }
    }
    trv_hwire_offers_trim(*out, max_per_hotel);
    return TRV_UP_OK;
}

/* ---- prebook, book, retrieve ---- */

/* The nth space-separated word of an adapter-private reference, or NULL. */
static const char *word(apr_pool_t *p, const char *ref, int nth)
{
    char *copy = apr_pstrdup(p, ref ? ref : ""), *last = NULL;
    char *w = apr_strtok(copy, " ", &last);
    while (w && nth-- > 0) {
        w = apr_strtok(NULL, " ", &last);
    }
    return w;
}

static trv_up_status prebook(trv_hotel_ctx *ctx, const trv_hotel_stay *stay, const char *sid,
                             const char *ref, trv_hotel_prebooked *out, trv_hotel_err *err)
{
    const char *result_id = word(ctx->pool, ref, 0), *rate_id = word(ctx->pool, ref, 1);
    const char *refund = NULL, *before = NULL, *qid;
    apr_array_header_t *found = apr_array_make(ctx->pool, 1, sizeof(trv_hotel_offer));
    const trv_hotel_offer *o;
    trv_up_result res;
    trv_up_status st;
    const json_t *q, *addr;
    json_t *body;
    memset(out, 0, sizeof(*out));
    if (!result_id || !rate_id) {
        err->code = "offer_expired";
        err->message = "not an offer of this supplier";
        return TRV_UP_NOT_FOUND;
    }
    st = rates_of(ctx, stay, result_id, rate_id, found, &refund, &before, err);
    if (st != TRV_UP_OK) {
        return st;
    }
    if (found->nelts != 1) {
        err->code = "offer_expired";
        err->message = "the accommodation no longer offers this rate";
        return TRV_UP_NOT_FOUND;
    }
    o = &APR_ARRAY_IDX(found, 0, trv_hotel_offer);
    if (strcmp(o->sid, sid) != 0) {
        return trv_hwire_bad(ctx, err, "the offer's accommodation");
    }
    body = trv_json_bind(ctx->pool, json_pack("{s:{s:s}}", "data", "rate_id", rate_id));
    st = trv_hwire_call(ctx, "POST", "/stays/quotes", auth(ctx), body, &res, err);
    if (st != TRV_UP_OK) {
        return st;
    }
    q = json_object_get(res.body, "data");
    addr = json_object_get(json_object_get(json_object_get(q, "accommodation"), "location"),
                           "address");
    if (!(qid = trv_json_str(q, "id")) || strchr(qid, ' ')
        || !in_stay_currency(stay, json_object_get(q, "total_amount"),
                             trv_json_str(q, "total_currency"), &out->total_minor)) {
        return trv_hwire_bad(ctx, err, "a quote's id and total in the stay's currency");
    }
    out->prebook_id = refund ? apr_pstrcat(ctx->pool, qid, " ", refund, " ", before, NULL) : qid;
    /* Duffel states no expiry of a quote: the rate's. */
    out->expires_at = o->expires_at;
    out->price_changed = out->total_minor != o->total_minor;
    out->hotel_name = trv_json_str(json_object_get(q, "accommodation"), "name");
    out->hotel_address = addr && trv_json_str(addr, "line_one")
        ? apr_pstrcat(ctx->pool, trv_json_str(addr, "line_one"), ", ",
                      trv_json_str(addr, "postal_code") ? trv_json_str(addr, "postal_code") : "",
                      " ", trv_json_str(addr, "city_name") ? trv_json_str(addr, "city_name") : "",
                      NULL)
        : NULL;
    out->doc = o->doc;
    return TRV_UP_OK;
}

/* A Duffel booking as the gateway holds it: status, ids, and what was
 * agreed from its metadata (total_amount, total_currency, refund_amount,
 * refund_before). */
static trv_up_status booked_of(trv_hotel_ctx *ctx, const json_t *d, trv_hotel_booked *out,
                               trv_hotel_err *err)
{
    const json_t *meta = json_object_get(d, "metadata");
    const char *status = trv_json_str(d, "status"), *cur = trv_json_str(meta, "total_currency");
    json_int_t n = json_integer_value(json_object_get(d, "rooms")), i;
    json_t *policy = NULL;
    apr_time_t at;
    memset(out, 0, sizeof(*out));
    out->status = !status ? NULL : strcmp(status, "confirmed") == 0 ? "CONFIRMED"
                : strcmp(status, "cancelled") == 0 ? "CANCELED" : NULL;
    out->booking_id = trv_json_str(d, "id");
    if (!out->status || !out->booking_id || n < 1 || n > TRV_HOTEL_MAX_ROOMS) {
        return trv_hwire_bad(ctx, err, "a booking's id, status and rooms");
    }
    out->client_reference = trv_json_str(meta, "client_reference");
    out->hotel_confirmation_code = trv_json_str(d, "reference");
    out->total_minor = -1;
    if (cur && trv_money_minor_of(json_object_get(meta, "total_amount"), cur, &out->total_minor)) {
        out->total_minor = -1;
    }
    /* Duffel states no policy on a booking: the one agreed, from the
     * metadata book wrote, from the booking's confirmation on. The rooms
     * share one price, so a room carries it only when it is the only one
     * (else the booking keeps prebook's, book.c). */
    if (out->total_minor >= 0
        && (trv_time_parse(trv_json_str(d, "confirmed_at"), &at) != APR_SUCCESS
            || refund_policy(ctx, cur, out->total_minor, json_object_get(meta, "refund_amount"),
                             cur, trv_json_str(meta, "refund_before"), at, &policy) != 0)) {
        return trv_hwire_bad(ctx, err, "a readable agreement in the booking's metadata");
    }
    out->cancellation_policy = policy;
    out->rooms = trv_json_bind(ctx->pool, json_array());
    for (i = 0; i < n; i++) {
        json_array_append_new(out->rooms, json_pack("{s:i,s:n,s:s?,s:O?}", "position", (int)i,
                                                     "supplier_reference_number",
                                                     "hotel_confirmation_code",
                                                     out->hotel_confirmation_code,
                                                     "cancellation_policy",
                                                     n == 1 ? policy : NULL));
    }
    return TRV_UP_OK;
}

static trv_up_status book(trv_hotel_ctx *ctx, const trv_hotel_book_req *rq,
                          trv_hotel_booked *out, trv_hotel_err *err)
{
    const trv_hotel_party *pt = rq->party;
    const char *refund = word(ctx->pool, rq->prebook_id, 1);
    const char *before = word(ctx->pool, rq->prebook_id, 2);
    json_t *guests = json_array(), *meta, *body;
    trv_up_result res;
    trv_up_status st;
    int i, k;
    /* Each room's guests, its lead first: Duffel books under the first. */
    for (i = 0; i < pt->n_rooms; i++) {
        for (k = 0; k < pt->n_guests[i]; k++) {
            json_array_append_new(guests, json_pack("{s:s,s:s}",
                                                    "given_name", pt->guests[i][k].first_name,
                                                    "family_name", pt->guests[i][k].last_name));
        }
    }
    meta = json_pack("{s:s,s:s,s:s}", "client_reference", rq->client_reference,
                     "total_amount", trv_money_decimal(ctx->pool, rq->total_minor,
                                                       trv_currency_exponent(rq->stay->currency)),
                     "total_currency", rq->stay->currency);
    if (refund && before) {
        json_object_set_new(meta, "refund_amount", json_string(refund));
        json_object_set_new(meta, "refund_before", json_string(before));
    }
    body = trv_json_bind(ctx->pool, json_pack(
        "{s:{s:s,s:o,s:s,s:s?,s:o}}", "data", "quote_id", word(ctx->pool, rq->prebook_id, 0),
        "guests", guests, "email", pt->email, "phone_number", pt->phone, "metadata", meta));
    /* Paid from the Duffel balance: no payment field, no card. Sent without
     * an Idempotency-Key: Duffel documents none for Stays bookings, so the
     * request must never be sent twice (the HTTP client resends only keyed
     * requests); a lost answer is settled by reading the list for the
     * client reference in the metadata. */
    st = trv_hwire_call(ctx, "POST", "/stays/bookings", auth(ctx), body, &res, err);
    if (st == TRV_UP_REJECTED && res.code && strcmp(res.code, "quote_already_booked") == 0) {
        /* The quote was booked: by an earlier attempt of ours whose answer
         * was lost, most likely. Unknown: the booking is read by its
         * client reference, never booked again. */
        return TRV_UP_TIMEOUT;
    }
    if (st == TRV_UP_REJECTED) {
        err->code = "book_failed";
    }
    if (st != TRV_UP_OK) {
        return st;
    }
    return booked_of(ctx, json_object_get(res.body, "data"), out, err);
}

/* The id of the booking whose metadata carries client_reference, looked
 * for page after page of the list; NULL when the whole list has none.
 * Unavailable when the pages read (LIST_PAGES) did not reach its end. */
static trv_up_status find_by_reference(trv_hotel_ctx *ctx, const char *client_reference,
                                       const char **id, trv_hotel_err *err)
{
    const char *after = NULL;
    int page;
    *id = NULL;
    for (page = 0; page < LIST_PAGES; page++) {
        trv_up_result res;
        const json_t *b;
        size_t i;
        trv_up_status st = trv_hwire_call(
            ctx, "GET", apr_psprintf(ctx->pool, "/stays/bookings?limit=%d%s%s", LIST_LIMIT,
                                     after ? "&after=" : "",
                                     after ? trv_url_escape(ctx->pool, after) : ""),
            auth(ctx), NULL, &res, err);
        if (st != TRV_UP_OK) {
            return st;
        }
        if (!json_is_array(json_object_get(res.body, "data"))) {
            return trv_hwire_bad(ctx, err, "a list of bookings");
        }
        json_array_foreach(json_object_get(res.body, "data"), i, b) {
            const char *ref = trv_json_str(json_object_get(b, "metadata"), "client_reference");
            if (ref && strcmp(ref, client_reference) == 0) {
                *id = trv_json_str(b, "id");
                return TRV_UP_OK;
            }
        }
        if (!(after = trv_json_str(json_object_get(res.body, "meta"), "after"))) {
            return TRV_UP_OK;
        }
    }
    /* More pages than we read: "not found" would say nothing was bought,
     * which we do not know. Later, or an operator, finds it. */
    trv_log_msg(&ctx->env->log, TRV_LOG_ERR, ctx->request_id,
                TRVLOGNO(3102) "hotel %s: no booking under client reference %s in the first %d "
                "pages of the list; more remain unread", ctx->up->name, client_reference,
                LIST_PAGES);
    err->code = "unavailable";
    err->message = "the booking list is longer than the pages read";
    return TRV_UP_UNAVAILABLE;
}

static trv_up_status retrieve(trv_hotel_ctx *ctx, const char *booking_id,
                              const char *client_reference, trv_hotel_booked *out,
                              trv_hotel_err *err)
{
    trv_up_result res;
    trv_up_status st;
    if (!booking_id) {
        if ((st = find_by_reference(ctx, client_reference, &booking_id, err)) != TRV_UP_OK) {
            return st;
        }
        if (!booking_id) {
            err->code = "not_found";
            err->message = "no booking under this client reference";
            return TRV_UP_NOT_FOUND;
        }
    }
    st = trv_hwire_call(ctx, "GET", id_path(ctx, "/stays/bookings/%s", booking_id), auth(ctx),
                        NULL, &res, err);
    if (st != TRV_UP_OK) {
        return st;
    }
    return booked_of(ctx, json_object_get(res.body, "data"), out, err);
}

/* ---- cancellation ---- */

/* A booking (cancel's answer or a read) cancelled, with cancelled_at and
 * no amounts. The fee is what the agreed total (metadata) keeps: the total
 * less the timeline's refund when cancelled before its deadline, else the
 * whole. A booking without that metadata (not made here) is cancelled
 * with its fee unknown (currency NULL: the gateway asks for a review). */
static trv_up_status cancelled_of(trv_hotel_ctx *ctx, const json_t *body,
                                  trv_hotel_canceled *out, trv_hotel_err *err)
{
    const json_t *d = json_object_get(body, "data"), *meta = json_object_get(d, "metadata");
    const char *cur, *refund, *before;
    apr_int64_t total, back = 0;
    apr_time_t at, until = 0;
    memset(out, 0, sizeof(*out));
    if (!trv_json_str(d, "status")) {
        return trv_hwire_bad(ctx, err, "a booking's status");
    }
    if (strcmp(trv_json_str(d, "status"), "cancelled") != 0) {
        return TRV_UP_REJECTED;
    }
    if (!trv_json_str(d, "cancelled_at")
        || trv_time_parse(trv_json_str(d, "cancelled_at"), &at) != APR_SUCCESS) {
        return trv_hwire_bad(ctx, err, "a cancelled booking with its cancellation time");
    }
    cur = trv_json_str(meta, "total_currency");
    refund = trv_json_str(meta, "refund_amount");
    before = trv_json_str(meta, "refund_before");
    if (!cur || trv_money_minor_of(json_object_get(meta, "total_amount"), cur, &total) != 0) {
        return TRV_UP_OK;
    }
    /* The refund applies when the cancellation came before its deadline. */
    if (refund && before && trv_time_parse(before, &until) == APR_SUCCESS && at < until
        && (trv_money_minor_of(json_object_get(meta, "refund_amount"), cur, &back) != 0
            || back < 0 || back > total)) {
        return trv_hwire_bad(ctx, err, "a readable refund in the booking's metadata");
    }
    out->currency = apr_pstrdup(ctx->pool, cur);
    out->fee_minor = total - back;
    out->refund_minor = back;
    return TRV_UP_OK;
}

/* Cancels the booking; Duffel answers it cancelled. Duffel states no
 * answer for a cancel of a booking cancelled already (one sent again
 * after its answer was lost): a refusal is checked against the booking
 * read, whose cancellation is then the outcome. */
static trv_up_status cancel(trv_hotel_ctx *ctx, const char *ref, trv_hotel_canceled *out,
                            trv_hotel_err *err)
{
    trv_up_result res;
    trv_up_status st = trv_hwire_call(ctx, "POST",
                                      id_path(ctx, "/stays/bookings/%s/actions/cancel", ref),
                                      auth(ctx), NULL, &res, err);
    if (st == TRV_UP_REJECTED) {
        return trv_hwire_cancel_refused(ctx, id_path(ctx, "/stays/bookings/%s", ref), auth(ctx),
                                        cancelled_of, out, err);
    }
    if (st != TRV_UP_OK) {
        return st;
    }
    if ((st = cancelled_of(ctx, res.body, out, err)) == TRV_UP_REJECTED) {
        return trv_hwire_bad(ctx, err, "a cancelled booking");
    }
    return st;
}

/* travelctl supplier check: the first page of one booking, nothing changed. */
static trv_up_status check(trv_hotel_ctx *ctx, trv_up_result *res)
{
    return trv_upstream_call_h(ctx->env, ctx->pool, ctx->up, "GET", "/stays/bookings?limit=1",
                               auth(ctx), NULL, ctx->request_id, NULL, res);
}

const trv_hotel_supplier trv_hotel_supplier_duffel_stays = {
    "duffel-stays",
    search,
    offers,
    prebook,
    book,
    retrieve,
    .cancel = cancel,
    .cancel_preview = NULL,              /* Duffel previews no cancellation */
    .check = check,
};
