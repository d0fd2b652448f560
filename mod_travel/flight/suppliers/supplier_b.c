/* SUPPLIER_B's adapter: a client of a checkout-style API (search with
 * carrier dictionaries, fares' ancillaries, checkouts that may hold the
 * itinerary, complete, orders, refund quotes, cancel, carriers; bare JSON
 * objects, amounts as decimal strings, local times "YYYY-MM-DD HH:MM").
 *
 * Ids: B's fare keys (fk_...) are the offer_reference; B's ancillary ids
 * (anc_X) are the service's bag ids bag_X. B is the merchant of record:
 * completing the checkout charges the traveler's card, so book takes no
 * payment and the order reports what B collected. B cannot quote the
 * refund of a Basic fare (the caller estimates from the fare terms). */
#include "wire.h"
#include "core/json.h"
#include "core/url.h"

#include <apr_strings.h>
#include <string.h>
#include <strings.h>

#define NAME "travel-air" /* its protocol: the wire name is ctx->up->name */

static const char cabin_letters[4] = {'Y', 'W', 'C', 'F'};
static const char *const cabin_names[4] = {"ECONOMY", "PREMIUM_ECONOMY", "BUSINESS", "FIRST"};

static trv_up_status call(trv_flight_ctx *ctx, const char *method, const char *path,
                          const json_t *body, const char *key, trv_up_result *res,
                          trv_sup_err *err)
{
    return trv_fwire_call(ctx, NAME, method, path, body, key, res, err);
}

static trv_up_status bad(trv_flight_ctx *ctx, trv_sup_err *err, const char *what)
{
    err->code = "bad_response";
    err->message = apr_psprintf(ctx->pool, "%s answered without %s", ctx->up->name, what);
    trv_log_msg(&ctx->env->log, TRV_LOG_WARNING, ctx->request_id, TRVLOGNO(1103) "%s",
                err->message);
    return TRV_UP_BAD_RESPONSE;
}

static const char *cabin_name(const char *letter)
{
    int i;
    for (i = 0; letter && i < 4; i++) {
        if (letter[0] == cabin_letters[i]) {
            return cabin_names[i];
        }
    }
    return "ECONOMY";
}

static const char *cabin_letter(apr_pool_t *p, const char *name)
{
    int i;
    for (i = 0; name && i < 4; i++) {
        if (strcasecmp(name, cabin_names[i]) == 0) {
            return apr_pstrndup(p, &cabin_letters[i], 1);
        }
    }
    return "Y";
}

static const char *bag_id(apr_pool_t *p, const char *anc)
{
    return anc && strncmp(anc, "anc_", 4) == 0 ? apr_pstrcat(p, "bag_", anc + 4, NULL) : anc;
}

static const char *anc_id(apr_pool_t *p, const char *bag)
{
    return bag && strncmp(bag, "bag_", 4) == 0 ? apr_pstrcat(p, "anc_", bag + 4, NULL) : bag;
}

static json_t *fee_money(const json_t *rule, const char *cur)
{
    json_t *m = json_is_true(json_object_get(rule, "permitted"))
        ? trv_fwire_money(json_object_get(rule, "fee"), cur) : NULL;
    return m ? m : json_null();
}

static json_t *fare_conditions(const json_t *fare)
{
    const json_t *rules = json_object_get(fare, "rules");
    const json_t *r = json_object_get(rules, "refund"), *x = json_object_get(rules, "exchange");
    const char *cur = trv_json_str(json_object_get(fare, "price"), "currency");
    return json_pack("{s:{s:b,s:o},s:{s:b,s:o}}",
                     "refund", "allowed", json_is_true(json_object_get(r, "permitted")),
                     "penalty", fee_money(r, cur),
                     "change", "allowed", json_is_true(json_object_get(x, "permitted")),
                     "penalty", fee_money(x, cur));
}

static const char *traveler_type(const char *t)
{
    if (t && strcasecmp(t, "CHILD") == 0) {
        return "CHD";
    }
    if (t && strcasecmp(t, "INFANT") == 0) {
        return "INF";
    }
    return "ADT";
}

/* "fl_<tag>-<j>-<k>" -> "leg_<tag>-<j>": B names flights, not legs. */
static const char *leg_id(apr_pool_t *p, const json_t *leg)
{
    const char *f = trv_json_str(json_array_get(json_object_get(leg, "flights"), 0), "id");
    const char *dash = f ? strrchr(f, '-') : NULL;
    if (!f || strncmp(f, "fl_", 3) != 0 || !dash) {
        return apr_psprintf(p, "leg_%d", (int)json_integer_value(json_object_get(leg, "ref")));
    }
    return apr_pstrcat(p, "leg_", apr_pstrndup(p, f + 3, (apr_size_t)(dash - f - 3)), NULL);
}

/* B's legs as API journeys; carriers: the answer's dictionary of carrier
 * names and logos. booking: ids, fare brand and per-passenger data. */
static json_t *journeys(trv_flight_ctx *ctx, const json_t *fare, const json_t *carriers,
                        const json_t *passengers, int booking)
{
    const json_t *legs = json_object_get(fare, "legs");
    const json_t *bag = json_object_get(fare, "baggage");
    const char *first_origin = trv_json_str(json_array_get(legs, 0), "from");
    json_t *out = json_array();
    size_t j, k, n = json_array_size(legs);
    int i;
    for (j = 0; j < n; j++) {
        const json_t *leg = json_array_get(legs, j), *fl = json_object_get(leg, "flights");
        json_t *segs = json_array(), *jn;
        const char *dest = trv_json_str(leg, "to");
        for (k = 0; k < json_array_size(fl); k++) {
            const json_t *f = json_array_get(fl, k);
            const char *mc = trv_json_str(f, "carrier"), *oc = trv_json_str(f, "operated_by");
            const json_t *md = json_object_get(carriers, mc ? mc : "");
            const json_t *od = json_object_get(carriers, oc ? oc : "");
            json_t *seg = json_pack(
                "{s:s?,s:s?,s:s?,s:s?,s:s,s:s?,s:s?,s:s?,s:s?,s:s?,s:s?,s:I}",
                "origin", trv_json_str(f, "from"), "destination", trv_json_str(f, "to"),
                "departure_time", trv_fwire_local_time(ctx->pool, trv_json_str(f, "depart_local")),
                "arrival_time", trv_fwire_local_time(ctx->pool, trv_json_str(f, "arrive_local")),
                "marketing_flight", apr_pstrcat(ctx->pool, mc ? mc : "",
                                                trv_json_str(f, "number"), NULL),
                "marketing_carrier", md ? trv_json_str(md, "name") : mc,
                "marketing_carrier_code", mc,
                "marketing_carrier_logo_url", trv_json_str(md, "logo"),
                "operating_carrier", od ? trv_json_str(od, "name") : oc,
                "operating_carrier_code", oc,
                "operating_carrier_logo_url", trv_json_str(od, "logo"),
                "duration_minutes", json_integer_value(json_object_get(f, "block_min")));
            if (booking) {
                json_t *pax = json_array();
                json_object_set_new(seg, "id", json_string(trv_json_str(f, "id")));
                for (i = 0; i < (int)json_array_size(passengers); i++) {
                    /* An infant on a lap has no bag allowance of its own. */
                    int lap = strcmp(traveler_type(trv_json_str(json_array_get(
                                  passengers, (size_t)i), "type")), "INF") == 0;
                    json_array_append_new(pax, json_pack("{s:i,s:s,s:s?,s:I,s:I}",
                        "passenger_id", i, "cabin_class", cabin_name(trv_json_str(f, "cabin")),
                        "cabin_name", trv_json_str(fare, "cabin_name"),
                        "checked_bags", lap ? 0 : json_integer_value(json_object_get(bag,
                                                                         "checked_pieces")),
                        "carry_on_bags", lap ? 0 : json_integer_value(json_object_get(bag,
                                                                          "cabin_pieces"))));
                }
                json_object_set_new(seg, "passengers", pax);
            }
            else {
                json_object_set_new(seg, "cabin_class",
                                    json_string(cabin_name(trv_json_str(f, "cabin"))));
            }
            json_array_append_new(segs, seg);
        }
        jn = json_pack("{s:s?,s:s?,s:s,s:s?,s:s?,s:I,s:I,s:o}",
            "origin", trv_json_str(leg, "from"), "destination", dest,
            "direction", trv_fwire_direction(first_origin, dest, j, n),
            "departure_time", trv_fwire_local_time(ctx->pool, trv_json_str(leg, "depart_local")),
            "arrival_time", trv_fwire_local_time(ctx->pool, trv_json_str(leg, "arrive_local")),
            "duration_minutes", json_integer_value(json_object_get(leg, "elapsed_min")),
            "stops", json_integer_value(json_object_get(leg, "stops")), "segments", segs);
        if (booking) {
            json_object_set_new(jn, "id", json_string(leg_id(ctx->pool, leg)));
            json_object_set_new(jn, "fare_brand", json_string(trv_json_str(fare, "brand")));
        }
        json_array_append_new(out, jn);
    }
    return out;
}

static json_t *api_offer(trv_flight_ctx *ctx, const json_t *f, const json_t *carriers)
{
    const json_t *price = json_object_get(f, "price"), *bag = json_object_get(f, "baggage");
    json_t *total = trv_fwire_money(json_object_get(price, "total"), trv_json_str(price, "currency"));
    json_t *js;
    size_t j;
    int minutes = 0;
    if (!total || !json_is_array(json_object_get(f, "legs"))) {
        json_decref(total);
        return NULL;
    }
    js = journeys(ctx, f, carriers, NULL, 0);
    for (j = 0; j < json_array_size(js); j++) {
        minutes += (int)json_integer_value(json_object_get(json_array_get(js, j),
                                                           "duration_minutes"));
    }
    return json_pack("{s:s?,s:o,s:s?,s:s?,s:b,s:o,s:b,s:{s:b,s:b},s:o,s:i}",
        "offer_reference", trv_json_str(f, "fare_key"), "total_amount", total,
        "expires_at", trv_json_str(f, "valid_until"), "fare_family", trv_json_str(f, "brand"),
        "refundable", json_is_true(json_object_get(f, "refundable")),
        "fare_conditions", fare_conditions(f),
        "documents_required", json_is_true(json_object_get(f, "docs_required")),
        "included_baggage",
        "checked", json_integer_value(json_object_get(bag, "checked_pieces")) > 0,
        "carry_on", json_integer_value(json_object_get(bag, "cabin_pieces")) > 0,
        "journeys", js, "total_duration_minutes", minutes);
}

/* ---- search and bags ---- */

static trv_up_status b_search(trv_flight_ctx *ctx, const json_t *query, json_t **offers,
                              int *truncated, trv_sup_err *err)
{
    const json_t *js = json_object_get(query, "journeys");
    const json_t *pax = json_object_get(query, "passengers");
    json_t *legs = json_array(), *body, *list, *out;
    trv_up_result res;
    trv_up_status st;
    size_t k;

    for (k = 0; k < json_array_size(js); k++) {
        const json_t *j = json_array_get(js, k);
        json_array_append_new(legs, json_pack("{s:s?,s:s?,s:s?}", "from",
                                              trv_json_str(j, "origin"), "to",
                                              trv_json_str(j, "destination"), "date",
                                              trv_json_str(j, "date")));
    }
    body = trv_json_bind(ctx->pool, json_pack("{s:o,s:{s:I,s:I,s:I},s:s}", "legs", legs,
        "pax", "adt", json_integer_value(json_object_get(pax, "adults")),
        "chd", json_integer_value(json_object_get(pax, "children")),
        "inf", json_integer_value(json_object_get(pax, "infants")),
        "cabin", cabin_letter(ctx->pool, trv_json_str(query, "cabin_class"))));
    if (json_is_integer(json_object_get(query, "limit"))) {
        json_object_set(body, "max_results", json_object_get(query, "limit"));
    }
    st = call(ctx, "POST", "/v2/search", body, NULL, &res, err);
    if (st != TRV_UP_OK) {
        return st;
    }
    list = json_object_get(res.body, "results");
    if (!json_is_array(list)) {
        return bad(ctx, err, "results");
    }
    out = trv_json_bind(ctx->pool, json_array());
    for (k = 0; k < json_array_size(list); k++) {
        json_t *o = api_offer(ctx, json_array_get(list, k),
                              json_object_get(json_object_get(res.body, "dictionaries"),
                                              "carriers"));
        if (!o) {
            return bad(ctx, err, "a readable fare");
        }
        json_array_append_new(out, o);
    }
    *offers = out;
    *truncated = json_is_true(json_object_get(res.body, "more_results"));
    return TRV_UP_OK;
}

static int is_fare_key(const char *ref, trv_sup_err *err)
{
    if (ref && strncmp(ref, "fk_", 3) == 0) {
        return 1;
    }
    err->code = "offer_not_found";
    err->message = "not a travel-air offer reference";
    return 0;
}

static trv_up_status expired_is_gone(trv_up_status st, trv_sup_err *err)
{
    if ((st == TRV_UP_REJECTED && err->code && strcmp(err->code, "fare_expired") == 0)) {
        return TRV_UP_NOT_FOUND;
    }
    return st;
}

/* A bag for sale (priced = 0) or bought in a checkout (priced = 1). */
static json_t *bag_entry(apr_pool_t *p, const json_t *a, const char *cur, int priced)
{
    const char *kind = trv_json_str(a, "kind");
    json_t *unit = trv_fwire_money(json_object_get(a, priced ? "unit_price" : "price"), cur);
    json_t *e;
    if (!unit) {
        return NULL;
    }
    e = json_pack("{s:s?,s:I,s:I,s:o,s:{s:s,s:O}}",
        priced ? "bag_id" : "id", bag_id(p, trv_json_str(a, "ancillary_id")),
        "passenger_index", json_integer_value(json_object_get(a, "traveler_ref")) - 1,
        "journey_index", json_integer_value(json_object_get(a, "leg_ref")) - 1,
        "unit_amount", unit,
        "baggage", "type", kind && strcmp(kind, "cabin_bag") == 0 ? "CARRY_ON" : "CHECKED",
        "max_weight_kg", json_object_get(a, "weight_kg"));
    if (!e) {
        return NULL;
    }
    if (priced) {
        json_t *total = trv_fwire_money(json_object_get(a, "total"), cur);
        json_object_set_new(e, "quantity", json_integer(json_integer_value(
                                               json_object_get(a, "qty"))));
        json_object_set_new(e, "total_amount", total ? total : json_null());
    }
    else {
        json_object_set_new(e, "max_quantity", json_integer(json_integer_value(
                                                   json_object_get(a, "max_qty"))));
    }
    return e;
}

static trv_up_status b_bags(trv_flight_ctx *ctx, const char *offer_reference, json_t **bags,
                            trv_sup_err *err)
{
    trv_up_result res;
    trv_up_status st;
    const json_t *list;
    const char *cur;
    json_t *out;
    size_t i;
    if (!is_fare_key(offer_reference, err)) {
        return TRV_UP_NOT_FOUND;
    }
    st = call(ctx, "GET", apr_pstrcat(ctx->pool, "/v2/fares/",
                                      trv_url_escape(ctx->pool, offer_reference),
                                      "/ancillaries", NULL), NULL, NULL, &res, err);
    if ((st = expired_is_gone(st, err)) != TRV_UP_OK) {
        return st;
    }
    list = json_object_get(res.body, "ancillaries");
    cur = trv_json_str(res.body, "currency");
    if (!json_is_array(list) || !cur) {
        return bad(ctx, err, "ancillaries");
    }
    out = trv_json_bind(ctx->pool, json_array());
    for (i = 0; i < json_array_size(list); i++) {
        json_t *e = bag_entry(ctx->pool, json_array_get(list, i), cur, 0);
        if (!e) {
            return bad(ctx, err, "a readable ancillary");
        }
        json_object_set_new(e, "type", json_string("BAGGAGE"));
        json_array_append_new(out, e);
    }
    *bags = out;
    return TRV_UP_OK;
}

/* ---- prebook: a checkout ---- */

static const char *phone_of(apr_pool_t *p, const json_t *contact)
{
    const char *cc = trv_json_str(contact, "phone_country_code");
    const char *n = trv_json_str(contact, "phone_number");
    if (!n) {
        return NULL;
    }
    return cc ? apr_pstrcat(p, "+", cc, " ", n, NULL) : n;
}

static trv_up_status b_prebook(trv_flight_ctx *ctx, const char *offer_reference,
                               const json_t *passengers, const json_t *contact,
                               const json_t *services, json_t **priced, trv_sup_err *err)
{
    json_t *trav = json_array(), *anc = json_array(), *body, *js, *svc_out, *conds;
    const json_t *co, *fare, *price, *hold, *list;
    const char *cur;
    apr_int64_t minor; /* checked only: a trv_fwire_money here was never freed */
    trv_up_result res;
    trv_up_status st;
    size_t i, k;

    if (!is_fare_key(offer_reference, err)) {
        json_decref(trav);
        json_decref(anc);
        return TRV_UP_NOT_FOUND;
    }
    for (i = 0; i < json_array_size(passengers); i++) {
        const json_t *p = json_array_get(passengers, i), *acc = json_object_get(p, "loyalty_accounts");
        json_t *ff = json_array();
        for (k = 0; k < json_array_size(acc); k++) {
            const json_t *a = json_array_get(acc, k);
            json_array_append_new(ff, json_pack("{s:s?,s:s?}", "carrier",
                                                trv_json_str(a, "airline_iata_code"), "number",
                                                trv_json_str(a, "membership_number")));
        }
        json_array_append_new(trav, json_pack("{s:s,s:s?,s:s?,s:s?,s:s?,s:s?,s:o}",
            "type", traveler_type(trv_json_str(p, "type")),
            "first_name", trv_json_str(p, "first_name"), "last_name", trv_json_str(p, "last_name"),
            "birth_date", trv_json_str(p, "birthday"), "gender", trv_json_str(p, "gender"),
            "nationality", trv_json_str(p, "nationality"), "frequent_flyer", ff));
    }
    for (i = 0; i < json_array_size(services); i++) {
        const json_t *s = json_array_get(services, i);
        const char *id = json_is_string(s) ? json_string_value(s) : trv_json_str(s, "id");
        const json_t *q = json_object_get(s, "quantity");
        json_array_append_new(anc, json_pack("{s:s?,s:I}", "ancillary_id", anc_id(ctx->pool, id),
                                             "qty", json_is_integer(q) ? json_integer_value(q) : 1));
    }
    body = trv_json_bind(ctx->pool, json_pack("{s:s,s:o,s:{s:s?,s:s?},s:o}",
        "fare_key", offer_reference, "travelers", trav,
        "contact", "email", trv_json_str(contact, "email"),
        "phone", phone_of(ctx->pool, contact), "ancillaries", anc));
    st = call(ctx, "POST", "/v2/checkouts", body, NULL, &res, err);
    if ((st = expired_is_gone(st, err)) != TRV_UP_OK) {
        return st;
    }
    co = res.body;
    fare = json_object_get(co, "fare");
    price = json_object_get(co, "price");
    hold = json_object_get(co, "hold");
    cur = trv_json_str(price, "currency");
    if (!trv_json_str(co, "checkout_id") || !json_is_object(fare) || !cur
        || trv_money_minor_of(json_object_get(price, "total"), cur, &minor) != 0) {
        return bad(ctx, err, "a readable checkout");
    }
    js = journeys(ctx, fare, json_object_get(json_object_get(co, "dictionaries"), "carriers"),
                  passengers, 1);
    svc_out = json_array();
    list = json_object_get(co, "ancillaries");
    for (i = 0; i < json_array_size(list); i++) {
        const json_t *a = json_array_get(list, i);
        json_t *e = bag_entry(ctx->pool, a, cur, 1), *segids;
        json_int_t jn = json_integer_value(json_object_get(a, "leg_ref")) - 1;
        const json_t *fl = json_object_get(json_array_get(json_object_get(fare, "legs"),
                                                          (size_t)jn), "flights");
        if (!e) {
            /* A bag bought but unreadable (no price, no weight): the
             * checkout cannot be shown as it is, and the bag has no type
             * to count. */
            json_decref(js);
            json_decref(svc_out);
            return bad(ctx, err, "a readable ancillary of a checkout");
        }
        segids = json_array();
        for (k = 0; k < json_array_size(fl); k++) {
            json_array_append_new(segids, json_string(trv_json_str(json_array_get(fl, k), "id")));
        }
        json_object_set_new(e, "segment_ids", segids);
        trv_fwire_count_bag(js, jn, json_integer_value(json_object_get(a, "traveler_ref")) - 1,
                            trv_json_str(json_object_get(e, "baggage"), "type"),
                            json_integer_value(json_object_get(a, "qty")));
        json_array_append_new(svc_out, e);
    }
    conds = fare_conditions(fare);
    *priced = trv_json_bind(ctx->pool, json_pack(
        "{s:o,s:o,s:o,s:o,s:s,s:s?,s:s?,s:o,s:{s:O,s:O},s:o,s:o,s:b,s:{s:b,s:s?},"
        "s:{s:s,s:s}}",
        "total_amount", trv_fwire_money(json_object_get(price, "total"), cur),
        "fare_amount", trv_fwire_money(json_object_get(price, "base"), cur),
        "fare_tax_amount", trv_fwire_money(json_object_get(price, "taxes"), cur),
        "services_amount", trv_fwire_money(json_object_get(price, "ancillaries"), cur),
        "currency", cur, "expires_at", trv_json_str(co, "expires_at"),
        "fare_brand", trv_json_str(fare, "brand"), "fare_conditions", conds,
        "cancellation_policy", "refundable",
        json_object_get(json_object_get(conds, "refund"), "allowed"),
        "penalty", json_object_get(json_object_get(conds, "refund"), "penalty"),
        "journeys", js, "services", svc_out, "member_price", 0,
        "hold", "held", json_is_true(json_object_get(hold, "held")),
        "expires_at", trv_json_str(hold, "expires_at"),
        "supplier_data", "checkout_id", trv_json_str(co, "checkout_id"),
        "fare_key", offer_reference));
    if (!*priced) {
        return bad(ctx, err, "the amounts of a checkout");
    }
    return TRV_UP_OK;
}

/* ---- orders ---- */

static const char *status_of(const char *b)
{
    if (!b) {
        return NULL;
    }
    if (strcmp(b, "ticketed") == 0) {
        return "TICKETED";
    }
    if (strcmp(b, "processing") == 0) {
        return "PENDING";
    }
    if (strcmp(b, "failed") == 0) {
        return "FAILED";
    }
    if (strcmp(b, "cancelled") == 0) {
        return "CANCELED";
    }
    return NULL;
}

static json_t *changes_of(const json_t *order)
{
    const json_t *sc = json_object_get(order, "schedule_changes");
    json_t *out = json_array();
    size_t i;
    for (i = 0; i < json_array_size(sc); i++) {
        const json_t *c = json_array_get(sc, i);
        json_array_append_new(out, json_pack(
            "{s:O?,s:s,s:O?,s:I,s:O?,s:O?,s:O?,s:O?,s:O?,s:O?,s:O?,s:O?}",
            "id", json_object_get(c, "change_id"), "type", "SCHEDULE_CHANGE",
            "created_at", json_object_get(c, "notified_at"),
            "journey_index", json_integer_value(json_object_get(c, "leg_ref")) - 1,
            "segment_id", json_object_get(c, "flight_id"),
            "marketing_flight", json_object_get(c, "flight"),
            "origin", json_object_get(c, "from"), "destination", json_object_get(c, "to"),
            "previous_departure_time", json_object_get(c, "old_depart_local"),
            "previous_arrival_time", json_object_get(c, "old_arrive_local"),
            "departure_time", json_object_get(c, "new_depart_local"),
            "arrival_time", json_object_get(c, "new_arrive_local")));
    }
    return out;
}

static trv_up_status order_of(trv_flight_ctx *ctx, const json_t *o, json_t **order,
                              trv_sup_err *err)
{
    const char *status = status_of(trv_json_str(o, "status"));
    const json_t *pay = json_object_get(o, "payment"), *fail = json_object_get(o, "failure");
    json_t *out;
    if (!json_is_object(o) || !trv_json_str(o, "order_id") || !status) {
        return bad(ctx, err, "a readable order");
    }
    out = json_pack("{s:s,s:s,s:s?,s:o}", "order_id", trv_json_str(o, "order_id"),
                    "status", status, "airline_pnr", trv_json_str(o, "pnr"),
                    "airline_initiated_changes", changes_of(o));
    if (json_is_object(pay)) {
        const json_t *card = json_object_get(pay, "card");
        json_t *amount = trv_fwire_money(json_object_get(pay, "amount"),
                                         trv_json_str(pay, "currency"));
        json_object_set_new(out, "payment", json_pack("{s:s?,s:o?,s:O?}",
            "collected_by", trv_json_str(pay, "collected_by"),
            "amount", amount, "card", json_is_object(card) ? card : NULL));
    }
    if (strcmp(status, "FAILED") == 0) {
        json_object_set_new(out, "failure", json_pack("{s:s,s:s}", "code", "book_failed",
            "description", trv_json_str(fail, "message") ? trv_json_str(fail, "message")
                                                         : "The airline could not issue the tickets"));
    }
    *order = trv_json_bind(ctx->pool, out);
    return TRV_UP_OK;
}

static trv_up_status b_book(trv_flight_ctx *ctx, const json_t *booking, const json_t *payment,
                            const char *idempotency_key, json_t **order, trv_sup_err *err)
{
    const char *cid = trv_json_str(json_object_get(booking, "supplier_data"), "checkout_id");
    json_t *body;
    trv_up_result res;
    trv_up_status st;
    (void)payment; /* B collects the payment itself */
    if (!cid) {
        err->code = "invalid_booking";
        err->message = "the booking has no travel-air checkout";
        return TRV_UP_REJECTED;
    }
    body = trv_json_bind(ctx->pool, json_object());
    st = call(ctx, "POST", apr_pstrcat(ctx->pool, "/v2/checkouts/",
                                       trv_url_escape(ctx->pool, cid), "/complete", NULL),
              body, idempotency_key, &res, err);
    if (st != TRV_UP_OK) {
        return st;
    }
    return order_of(ctx, json_object_get(res.body, "order"), order, err);
}

static trv_up_status b_read_order(trv_flight_ctx *ctx, const char *order_id, json_t **order,
                                  trv_sup_err *err)
{
    trv_up_result res;
    trv_up_status st = call(ctx, "GET", apr_pstrcat(ctx->pool, "/v2/orders/",
                                                    trv_url_escape(ctx->pool, order_id),
                                                    NULL), NULL, NULL, &res, err);
    if (st != TRV_UP_OK) {
        return st;
    }
    return order_of(ctx, res.body, order, err);
}

static json_t *terms(const json_t *b, const char *refund_key)
{
    const char *cur = trv_json_str(b, "currency");
    json_t *fee = trv_fwire_money(json_object_get(b, "penalty"), cur);
    json_t *refund = trv_fwire_money(json_object_get(b, "refund_total"), cur);
    return json_pack("{s:o,s:o}", "fee", fee ? fee : json_null(), refund_key,
                     refund ? refund : json_null());
}

static trv_up_status b_cancellation_quote(trv_flight_ctx *ctx, const char *order_id,
                                          json_t **quote, trv_sup_err *err)
{
    trv_up_result res;
    apr_int64_t minor;
    trv_up_status st = call(ctx, "POST", apr_pstrcat(ctx->pool, "/v2/orders/",
                                                     trv_url_escape(ctx->pool, order_id),
                                                     "/refund-quote", NULL),
                            NULL, NULL, &res, err);
    if (st != TRV_UP_OK) {
        return st;
    }
    if (trv_money_minor_of(json_object_get(res.body, "refund_total"),
                           trv_json_str(res.body, "currency"), &minor) != 0) {
        return bad(ctx, err, "a readable refund quote");
    }
    *quote = trv_json_bind(ctx->pool, terms(res.body, "refundable_amount"));
    return TRV_UP_OK;
}

static trv_up_status b_cancel(trv_flight_ctx *ctx, const char *order_id,
                              const char *idempotency_key, json_t **result, trv_sup_err *err)
{
    trv_up_result res;
    trv_up_status st = call(ctx, "POST", apr_pstrcat(ctx->pool, "/v2/orders/",
                                                     trv_url_escape(ctx->pool, order_id),
                                                     "/cancel", NULL),
                            NULL, idempotency_key, &res, err);
    if (st != TRV_UP_OK) {
        return st;
    }
    if (!trv_json_str(res.body, "status") || strcmp(trv_json_str(res.body, "status"), "cancelled") != 0) {
        return bad(ctx, err, "a cancelled order");
    }
    *result = trv_json_bind(ctx->pool, terms(res.body, "refund_amount"));
    return TRV_UP_OK;
}

static trv_up_status b_airline(trv_flight_ctx *ctx, const char *iata_code, json_t **airline,
                               trv_sup_err *err)
{
    trv_up_result res;
    const json_t *c;
    trv_up_status st = call(ctx, "GET", apr_pstrcat(ctx->pool, "/v2/carriers/",
                                                    trv_url_escape(ctx->pool, iata_code),
                                                    NULL), NULL, NULL, &res, err);
    if (st != TRV_UP_OK) {
        return st;
    }
    c = json_object_get(res.body, "carrier");
    if (!trv_json_str(c, "code") || !trv_json_str(c, "name")) {
        return bad(ctx, err, "a readable carrier");
    }
    *airline = trv_json_bind(ctx->pool, json_pack("{s:s,s:s?,s:s,s:s?,s:s?,s:s?,s:b}",
        "iata_code", trv_json_str(c, "code"), "icao_code", trv_json_str(c, "icao"),
        "name", trv_json_str(c, "name"), "country", trv_json_str(c, "country"),
        "alliance", trv_json_str(c, "alliance"), "logo_url", trv_json_str(c, "logo"),
        "is_active", !json_is_false(json_object_get(c, "active"))));
    return TRV_UP_OK;
}

const trv_flight_supplier trv_flight_supplier_b = {
    NAME,
    "fk_",
    b_search,
    b_bags,
    b_prebook,
    b_book,
    b_read_order,
    b_cancellation_quote,
    b_cancel,
    b_airline,
};
