/* SUPPLIER_A's adapter: a client of Duffel Air API v2 (docs/suppliers.md):
 * Authorization: Bearer <api_key> and Duffel-Version: v2 on every call;
 * bodies wrapped in {"data": ...}; amounts as decimal strings beside their
 * currency; errors as {errors: [{type, code, title, message}], meta}.
 *
 *   search              POST /air/offer_requests?return_offers=true
 *   bags                GET  /air/offers/{id}?return_available_services=true
 *   prebook             PATCH /air/offers/{id}/passengers/{id} (loyalty accounts,
 *                       only when a passenger has one), then GET the offer: its
 *                       price now, and the bags' prices from its services
 *   book                POST /air/orders, type instant, one balance payment,
 *                       metadata {booking_id, authorization_id}
 *   find_order          GET  /air/orders?passenger_name[]=<family name>
 *                       &created_at[after]=<the booking's creation - 5 min>
 *                       (pages of 200): the order whose metadata.booking_id is ours
 *   read_order          GET  /air/orders/{id}
 *   cancellation_quote  GET the order (its total), POST /air/order_cancellations
 *   cancel              GET the order: already cancelled, its confirmed
 *                       cancellation is the result; else the quote, then
 *                       POST .../{id}/actions/confirm
 *   airline             GET  /air/airlines (pages of 200) until the IATA code
 *
 * Duffel documents no Idempotency-Key (its API reference, v2, and
 * @duffel/api send none): the "duffel" row lacks TRV_SUP_IDEMPOTENCY_KEY,
 * so no call carries one and no POST is resent by the HTTP client. A book
 * whose answer was lost is never sent again: the order it made is found
 * by its metadata (find_order). A cancellation whose confirm answer was
 * lost is found on the order (its cancellation) when the cancel runs again.
 *
 * Ids: Duffel's offer ids (off_...) are the offer_reference; its service
 * ids (ase_X) are the service's bag ids bag_X. Duffel reserves nothing
 * before the order, and the order is paid from the service's balance with
 * Duffel, the card being charged by the service's own payment provider. */
#include "wire.h"
#include "core/clock.h"
#include "core/json.h"
#include "core/jval.h"
#include "core/url.h"

#include <apr_lib.h>
#include <apr_strings.h>
#include <string.h>

#define NAME "SUPPLIER_A"

/* Duffel's API version, sent beside the bearer key with every call. */
static const apr_table_t *version(trv_flight_ctx *ctx)
{
    apr_table_t *h = apr_table_make(ctx->pool, 1);
    apr_table_setn(h, "Duffel-Version", "v2");
    return h;
}

static trv_up_status call(trv_flight_ctx *ctx, const char *method, const char *path,
                          const json_t *body, const char *key, trv_up_result *res,
                          trv_sup_err *err)
{
    trv_supplier_call_opts o = {0};
    o.headers = version(ctx);
    o.beside_key = 1;
    o.idempotency_key = key;
    return trv_fwire_call(ctx, &trv_flight_supplier_a, &o, method, path, body, res, err);
}

static trv_up_status bad(trv_flight_ctx *ctx, trv_sup_err *err, const char *what)
{
    return trv_supplier_call_bad(&ctx->call, 1102, NAME, what, err);
}

static const char *upper(apr_pool_t *p, const char *s)
{
    char *o = apr_pstrdup(p, s ? s : ""), *c;
    for (c = o; *c; c++) {
        *c = (char)apr_toupper(*c);
    }
    return o;
}

static const char *lower(apr_pool_t *p, const char *s)
{
    char *o = apr_pstrdup(p, s ? s : ""), *c;
    for (c = o; *c; c++) {
        *c = (char)apr_tolower(*c);
    }
    return o;
}

/* "ase_X" <-> "bag_X": the same bag under the service's prefix. */
static const char *bag_id(apr_pool_t *p, const char *ase)
{
    return ase && strncmp(ase, "ase_", 4) == 0 ? apr_pstrcat(p, "bag_", ase + 4, NULL) : ase;
}

static const char *ase_id(apr_pool_t *p, const char *bag)
{
    return bag && strncmp(bag, "bag_", 4) == 0 ? apr_pstrcat(p, "ase_", bag + 4, NULL) : bag;
}

static json_t *penalty_money(const json_t *cond)
{
    json_t *m = json_is_true(json_object_get(cond, "allowed"))
        ? trv_fwire_money(json_object_get(cond, "penalty_amount"),
                          trv_json_str(cond, "penalty_currency"))
        : NULL;
    return m ? m : json_null();
}

static json_t *fare_conditions(const json_t *offer)
{
    const json_t *c = json_object_get(offer, "conditions");
    const json_t *r = json_object_get(c, "refund_before_departure");
    const json_t *ch = json_object_get(c, "change_before_departure");
    return json_pack("{s:{s:b,s:o},s:{s:b,s:o}}",
                     "refund", "allowed", json_is_true(json_object_get(r, "allowed")),
                     "penalty", penalty_money(r),
                     "change", "allowed", json_is_true(json_object_get(ch, "allowed")),
                     "penalty", penalty_money(ch));
}

static int baggage_qty(const json_t *seg_pax, const char *type)
{
    const json_t *bags = json_object_get(seg_pax, "baggages");
    size_t i;
    for (i = 0; i < json_array_size(bags); i++) {
        const json_t *b = json_array_get(bags, i);
        const char *t = trv_json_str(b, "type");
        if (t && strcmp(t, type) == 0) {
            return (int)json_integer_value(json_object_get(b, "quantity"));
        }
    }
    return 0;
}

static int pax_index(const json_t *offer, const char *pax_id)
{
    const json_t *pax = json_object_get(offer, "passengers");
    size_t i;
    for (i = 0; pax_id && i < json_array_size(pax); i++) {
        const char *id = trv_json_str(json_array_get(pax, i), "id");
        if (id && strcmp(id, pax_id) == 0) {
            return (int)i;
        }
    }
    return -1;
}

/* A's slices as API journeys. booking: the booking's shape (ids, fare
 * brand, passengers per segment) rather than the offer's. */
static json_t *journeys(trv_flight_ctx *ctx, const json_t *offer, int booking)
{
    const json_t *slices = json_object_get(offer, "slices");
    const char *first_origin = trv_json_str(json_object_get(json_array_get(slices, 0), "origin"),
                                            "iata_code");
    json_t *out = json_array();
    size_t j, k, i, n = json_array_size(slices);
    for (j = 0; j < n; j++) {
        const json_t *sl = json_array_get(slices, j), *segs = json_object_get(sl, "segments");
        json_t *jsegs = json_array(), *jn;
        size_t ns = json_array_size(segs);
        const char *dest = trv_json_str(json_object_get(sl, "destination"), "iata_code");
        for (k = 0; k < ns; k++) {
            const json_t *s = json_array_get(segs, k);
            const json_t *mc = json_object_get(s, "marketing_carrier");
            const json_t *oc = json_object_get(s, "operating_carrier");
            const json_t *spax = json_object_get(s, "passengers");
            const json_t *p0 = json_array_get(spax, 0);
            json_t *seg = json_pack(
                "{s:s?,s:s?,s:s?,s:s?,s:s,s:s?,s:s?,s:s?,s:s?,s:s?,s:s?,s:i}",
                "origin", trv_json_str(json_object_get(s, "origin"), "iata_code"),
                "destination", trv_json_str(json_object_get(s, "destination"), "iata_code"),
                "departure_time", trv_json_str(s, "departing_at"),
                "arrival_time", trv_json_str(s, "arriving_at"),
                "marketing_flight", apr_pstrcat(ctx->pool, trv_json_str(mc, "iata_code"),
                    trv_json_str(s, "marketing_carrier_flight_number"), NULL),
                "marketing_carrier", trv_json_str(mc, "name"),
                "marketing_carrier_code", trv_json_str(mc, "iata_code"),
                "marketing_carrier_logo_url", trv_json_str(mc, "logo_symbol_url"),
                "operating_carrier", trv_json_str(oc, "name"),
                "operating_carrier_code", trv_json_str(oc, "iata_code"),
                "operating_carrier_logo_url", trv_json_str(oc, "logo_symbol_url"),
                "duration_minutes", trv_fwire_iso_minutes(trv_json_str(s, "duration")));
            if (booking) {
                json_t *pax = json_array();
                json_object_set_new(seg, "id", json_string(trv_json_str(s, "id")));
                for (i = 0; i < json_array_size(spax); i++) {
                    const json_t *sp = json_array_get(spax, i);
                    int idx = pax_index(offer, trv_json_str(sp, "passenger_id"));
                    json_array_append_new(pax, json_pack("{s:i,s:s,s:s?,s:i,s:i}",
                        "passenger_id", idx < 0 ? (int)i : idx,
                        "cabin_class", upper(ctx->pool, trv_json_str(sp, "cabin_class")),
                        "cabin_name", trv_json_str(sp, "cabin_class_marketing_name"),
                        "checked_bags", baggage_qty(sp, "checked"),
                        "carry_on_bags", baggage_qty(sp, "carry_on")));
                }
                json_object_set_new(seg, "passengers", pax);
            }
            else {
                json_object_set_new(seg, "cabin_class",
                                    json_string(upper(ctx->pool, trv_json_str(p0, "cabin_class"))));
            }
            json_array_append_new(jsegs, seg);
        }
        jn = json_pack("{s:s?,s:s?,s:s,s:s?,s:s?,s:i,s:i,s:o}",
            "origin", trv_json_str(json_object_get(sl, "origin"), "iata_code"),
            "destination", dest,
            "direction", trv_fwire_direction(first_origin, dest, j, n),
            "departure_time", trv_json_str(json_array_get(segs, 0), "departing_at"),
            "arrival_time", trv_json_str(json_array_get(segs, ns ? ns - 1 : 0), "arriving_at"),
            "duration_minutes", trv_fwire_iso_minutes(trv_json_str(sl, "duration")),
            "stops", ns ? (int)ns - 1 : 0, "segments", jsegs);
        if (booking) {
            json_object_set_new(jn, "id", json_string(trv_json_str(sl, "id")));
            json_object_set_new(jn, "fare_brand", json_string(trv_json_str(sl, "fare_brand_name")));
        }
        json_array_append_new(out, jn);
    }
    return out;
}

/* ---- the search's answer, read with core/jval.h ----
 * The API's offers (flight/supplier.h) from the search's answer, the
 * largest A gives, read without a Jansson tree; journeys() below is the
 * booking's shape of the same slices. */

/* The search's offers are written as text (flight/offer_text.h) straight
 * from the reader's values: no tree per offer. The members and their order
 * are those of the API offer (flight/supplier.h). */
static void condition_w(trv_jtext *t, const char *key, const trv_jval *c)
{
    int allowed = trv_jval_is_true(trv_jval_get(c, "allowed"));
    trv_jtext_kobj(t, key);
    trv_jtext_kbool(t, "allowed", allowed);
    trv_jtext_key(t, "penalty");
    if (allowed) {
        trv_fwire_money_text(t, trv_jval_get(c, "penalty_amount"),
                             trv_jval_strget(c, "penalty_currency"));
    }
    else {
        trv_jtext_null(t);
    }
    trv_jtext_end(t);
}

static int baggage_qty_r(const trv_jval *seg_pax, const char *type)
{
    const trv_jval *b;
    apr_size_t i;
    trv_jval_foreach(trv_jval_get(seg_pax, "baggages"), i, b) {
        const char *t = trv_jval_strget(b, "type");
        if (t && strcmp(t, type) == 0) {
            return (int)trv_jval_int(trv_jval_get(b, "quantity"));
        }
    }
    return 0;
}

static const char *iata_r(const trv_jval *v, const char *key)
{
    return trv_jval_strget(trv_jval_get(v, key), "iata_code");
}

static void segment_w(trv_flight_ctx *ctx, trv_jtext *t, trv_foffer_text *fo,
                      const trv_jval *s)
{
    const trv_jval *mc = trv_jval_get(s, "marketing_carrier");
    const trv_jval *oc = trv_jval_get(s, "operating_carrier");
    const trv_jval *p0 = trv_jval_at(trv_jval_get(s, "passengers"), 0);
    trv_fwire_segment w;
    w.origin = iata_r(s, "origin");
    w.destination = iata_r(s, "destination");
    w.departure_time = trv_jval_strget(s, "departing_at");
    w.arrival_time = trv_jval_strget(s, "arriving_at");
    w.marketing_carrier_code = trv_jval_strget(mc, "iata_code");
    w.marketing_flight = apr_pstrcat(ctx->pool, w.marketing_carrier_code,
                                     trv_jval_strget(s, "marketing_carrier_flight_number"), NULL);
    w.marketing_carrier = trv_jval_strget(mc, "name");
    w.marketing_carrier_logo_url = trv_jval_strget(mc, "logo_symbol_url");
    w.operating_carrier = trv_jval_strget(oc, "name");
    w.operating_carrier_code = trv_jval_strget(oc, "iata_code");
    w.operating_carrier_logo_url = trv_jval_strget(oc, "logo_symbol_url");
    w.duration_minutes = trv_fwire_iso_minutes(trv_jval_strget(s, "duration"));
    w.cabin_class = upper(ctx->pool, trv_jval_strget(p0, "cabin_class"));
    trv_fwire_segment_write(t, fo, &w);
}

/* The journeys (one per slice); answers the sum of their minutes. */
static int journeys_w(trv_flight_ctx *ctx, trv_jtext *t, trv_foffer_text *fo,
                      const trv_jval *offer)
{
    const trv_jval *slices = trv_jval_get(offer, "slices"), *sl;
    const char *first_origin = iata_r(trv_jval_at(slices, 0), "origin");
    apr_size_t j, k, n = trv_jval_len(slices);
    int minutes = 0;
    trv_jtext_karr(t, "journeys");
    trv_jval_foreach(slices, j, sl) {
        const trv_jval *segs = trv_jval_get(sl, "segments"), *s;
        apr_size_t ns = trv_jval_len(segs);
        trv_fwire_journey w;
        w.origin = iata_r(sl, "origin");
        w.destination = iata_r(sl, "destination");
        w.direction = trv_fwire_direction(first_origin, w.destination, j, n);
        w.departure_time = trv_jval_strget(trv_jval_at(segs, 0), "departing_at");
        w.arrival_time = ns ? trv_jval_strget(trv_jval_at(segs, ns - 1), "arriving_at") : NULL;
        w.duration_minutes = trv_fwire_iso_minutes(trv_jval_strget(sl, "duration"));
        w.stops = ns ? (int)ns - 1 : 0;
        trv_fwire_journey_begin(t, fo, &w);
        trv_jval_foreach(segs, k, s) {
            segment_w(ctx, t, fo, s);
        }
        trv_fwire_journey_end(t);
        minutes += w.duration_minutes;
    }
    trv_jtext_end(t);
    return minutes;
}

/* One offer written into the list; -1 (nothing written) when it lacks
 * its id, price or first slice. */
static int api_offer_w(trv_flight_ctx *ctx, trv_foffer_list *l, const trv_jval *o)
{
    const trv_jval *sl0 = trv_jval_at(trv_jval_get(o, "slices"), 0);
    const trv_jval *p0 = trv_jval_at(trv_jval_get(trv_jval_at(
        trv_jval_get(sl0, "segments"), 0), "passengers"), 0);
    const trv_jval *conds = trv_jval_get(o, "conditions");
    const trv_jval *refund = trv_jval_get(conds, "refund_before_departure");
    const char *ref = trv_jval_strget(o, "id");
    trv_jtext *t = &l->text;
    trv_foffer_text *fo;
    trv_money total;
    int minutes;
    if (trv_fwire_money_read(trv_jval_get(o, "total_amount"),
                             trv_jval_strget(o, "total_currency"), &total) != 0
        || !sl0 || !ref) {
        return -1;
    }
    fo = trv_foffer_list_open(l, ref, trv_jval_strget(o, "expires_at"));
    trv_jtext_key(t, "total_amount");
    trv_money_write(t, &total);
    trv_jtext_kstr(t, "expires_at", fo->expires_at);
    trv_jtext_kstr(t, "fare_family", trv_jval_strget(sl0, "fare_brand_name"));
    trv_jtext_kbool(t, "refundable", trv_jval_is_true(trv_jval_get(refund, "allowed")));
    trv_jtext_kobj(t, "fare_conditions");
    condition_w(t, "refund", refund);
    condition_w(t, "change", trv_jval_get(conds, "change_before_departure"));
    trv_jtext_end(t);
    trv_jtext_kbool(t, "documents_required",
                    trv_jval_is_true(trv_jval_get(o, "passenger_identity_documents_required")));
    trv_jtext_kobj(t, "included_baggage");
    trv_jtext_kbool(t, "checked", baggage_qty_r(p0, "checked") > 0);
    trv_jtext_kbool(t, "carry_on", baggage_qty_r(p0, "carry_on") > 0);
    trv_jtext_end(t);
    minutes = journeys_w(ctx, t, fo, o);
    trv_jtext_kint(t, "total_duration_minutes", minutes);
    trv_foffer_list_close(l);
    return 0;
}

/* ---- search and bags ---- */

static trv_up_status a_search(trv_flight_ctx *ctx, const json_t *query,
                              apr_array_header_t **offers, int *truncated, trv_sup_err *err)
{
    const json_t *js = json_object_get(query, "journeys");
    const json_t *pax = json_object_get(query, "passengers");
    json_t *slices = json_array(), *plist = json_array(), *body;
    trv_foffer_list out;
    const trv_jval *list, *item;
    trv_up_result res;
    trv_up_status st;
    json_int_t i, limit;
    size_t k;
    const char *cabin = trv_json_str(query, "cabin_class");

    for (k = 0; k < json_array_size(js); k++) {
        const json_t *j = json_array_get(js, k);
        json_array_append_new(slices, json_pack("{s:s?,s:s?,s:s?}",
            "origin", trv_json_str(j, "origin"), "destination", trv_json_str(j, "destination"),
            "departure_date", trv_json_str(j, "date")));
    }
    {
        /* Duffel takes an adult by type and a child or infant by age; the
         * search knows only counts, so children are searched as 10 years
         * old and infants (on a lap) as 1. */
        json_int_t na = json_integer_value(json_object_get(pax, "adults"));
        json_int_t nc = json_integer_value(json_object_get(pax, "children"));
        json_int_t ni = json_integer_value(json_object_get(pax, "infants"));
        for (i = 0; i < na && i < 9; i++) {
            json_array_append_new(plist, json_pack("{s:s}", "type", "adult"));
        }
        for (i = 0; i < nc && i < 9; i++) {
            json_array_append_new(plist, json_pack("{s:i}", "age", 10));
        }
        for (i = 0; i < ni && i < 9; i++) {
            json_array_append_new(plist, json_pack("{s:i}", "age", 1));
        }
    }
    body = trv_json_bind(ctx->pool, json_pack("{s:{s:o,s:o,s:s}}", "data", "slices", slices,
                                              "passengers", plist, "cabin_class",
                                              lower(ctx->pool, cabin ? cabin : "economy")));
    limit = json_is_integer(json_object_get(query, "limit"))
            ? json_integer_value(json_object_get(query, "limit")) : 50;
    {
        trv_supplier_call_opts o = {0};
        o.headers = version(ctx);
        o.beside_key = 1;
        o.read = o.search = 1;
        st = trv_fwire_call(ctx, &trv_flight_supplier_a, &o, "POST",
                            "/air/offer_requests?return_offers=true", body, &res, err);
    }
    if (st != TRV_UP_OK) {
        return st;
    }
    list = trv_jval_get(trv_jval_get(res.doc, "data"), "offers");
    if (!trv_jval_is_array(list)) {
        return bad(ctx, err, "offers");
    }
    /* Duffel answers every offer; the search keeps the first `limit`. */
    trv_foffer_list_init(&out, ctx->pool);
    trv_jval_foreach(list, k, item) {
        if ((json_int_t)k >= limit) {
            break;
        }
        if (api_offer_w(ctx, &out, item) != 0) {
            return bad(ctx, err, "a readable offer");
        }
    }
    if (!(*offers = trv_foffer_list_done(&out))) {
        return bad(ctx, err, "offers writable as JSON");
    }
    *truncated = (json_int_t)trv_jval_len(list) > limit;
    return TRV_UP_OK;
}

/* The offer with its services, as A has it now. */
static trv_up_status get_offer(trv_flight_ctx *ctx, const char *ref, json_t **offer,
                               trv_sup_err *err)
{
    trv_up_result res;
    trv_up_status st;
    if (!ref || strncmp(ref, "off_", 4) != 0) {
        err->code = "offer_not_found";
        err->message = "not a SUPPLIER_A offer reference";
        return TRV_UP_NOT_FOUND;
    }
    st = call(ctx, "GET", apr_pstrcat(ctx->pool, "/air/offers/",
                                      trv_url_escape(ctx->pool, ref),
                                      "?return_available_services=true", NULL),
              NULL, NULL, &res, err);
    if (st == TRV_UP_REJECTED && err->code && strcmp(err->code, "offer_no_longer_available") == 0) {
        return TRV_UP_NOT_FOUND; /* expired */
    }
    if (st != TRV_UP_OK) {
        return st;
    }
    *offer = json_object_get(res.body, "data");
    return json_is_object(*offer) ? TRV_UP_OK : bad(ctx, err, "the offer");
}

static int slice_of_segment(const json_t *offer, const char *seg_id)
{
    const json_t *slices = json_object_get(offer, "slices");
    size_t j, k;
    for (j = 0; seg_id && j < json_array_size(slices); j++) {
        const json_t *segs = json_object_get(json_array_get(slices, j), "segments");
        for (k = 0; k < json_array_size(segs); k++) {
            const char *id = trv_json_str(json_array_get(segs, k), "id");
            if (id && strcmp(id, seg_id) == 0) {
                return (int)j;
            }
        }
    }
    return -1;
}

static trv_up_status a_bags(trv_flight_ctx *ctx, const char *offer_reference, json_t **bags,
                            trv_sup_err *err)
{
    json_t *offer, *out, *svcs;
    trv_up_status st = get_offer(ctx, offer_reference, &offer, err);
    size_t i;
    if (st != TRV_UP_OK) {
        return st;
    }
    svcs = json_object_get(offer, "available_services");
    out = trv_json_bind(ctx->pool, json_array());
    for (i = 0; i < json_array_size(svcs); i++) {
        const json_t *s = json_array_get(svcs, i), *md = json_object_get(s, "metadata");
        const char *type = trv_json_str(s, "type"), *btype = trv_json_str(md, "type");
        json_t *unit;
        if (!type || strcmp(type, "baggage") != 0) {
            continue; /* seats and meals are not sold here */
        }
        unit = trv_fwire_money(json_object_get(s, "total_amount"),
                               trv_json_str(s, "total_currency"));
        if (!unit) {
            return bad(ctx, err, "a bag price");
        }
        json_array_append_new(out, json_pack("{s:s,s:s,s:{s:s,s:O},s:i,s:i,s:o,s:O}",
            "id", bag_id(ctx->pool, trv_json_str(s, "id")), "type", "BAGGAGE",
            "baggage", "type", btype && strcmp(btype, "carry_on") == 0 ? "CARRY_ON" : "CHECKED",
            "max_weight_kg", json_object_get(md, "maximum_weight_kg"),
            "passenger_index", pax_index(offer, json_string_value(
                json_array_get(json_object_get(s, "passenger_ids"), 0))),
            "journey_index", slice_of_segment(offer, json_string_value(
                json_array_get(json_object_get(s, "segment_ids"), 0))),
            "unit_amount", unit, "max_quantity", json_object_get(s, "maximum_quantity")));
    }
    *bags = out;
    return TRV_UP_OK;
}

/* ---- prebook ---- */

static json_t *services_req(apr_pool_t *p, const json_t *services)
{
    json_t *out = json_array();
    size_t i;
    for (i = 0; i < json_array_size(services); i++) {
        const json_t *s = json_array_get(services, i);
        const char *id = json_is_string(s) ? json_string_value(s) : trv_json_str(s, "id");
        const json_t *q = json_object_get(s, "quantity");
        if (!id) {
            id = trv_json_str(s, "bag_id");
        }
        json_array_append_new(out, json_pack("{s:s?,s:I}", "id", ase_id(p, id), "quantity",
                                             json_is_integer(q) ? json_integer_value(q) : 1));
    }
    return out;
}

/* The offer's passengers given loyalty accounts, by PATCH: Duffel then
 * prices the offer for them (a member price). *any: one was sent. */
static trv_up_status send_loyalty(trv_flight_ctx *ctx, const char *ref, const json_t *offer,
                                  const json_t *passengers, int *any, trv_sup_err *err)
{
    const json_t *opax = json_object_get(offer, "passengers");
    size_t i, k;
    *any = 0;
    for (i = 0; i < json_array_size(passengers); i++) {
        const json_t *p = json_array_get(passengers, i);
        const json_t *acc = json_object_get(p, "loyalty_accounts");
        const char *id = trv_json_str(json_array_get(opax, i), "id");
        json_t *accounts, *body;
        trv_up_result res;
        trv_up_status st;
        if (json_array_size(acc) == 0 || !id) {
            continue;
        }
        accounts = json_array();
        for (k = 0; k < json_array_size(acc); k++) {
            const json_t *a = json_array_get(acc, k);
            json_array_append_new(accounts, json_pack("{s:s?,s:s?}",
                "airline_iata_code", trv_json_str(a, "airline_iata_code"),
                "account_number", trv_json_str(a, "membership_number")));
        }
        body = trv_json_bind(ctx->pool, json_pack("{s:{s:s?,s:s?,s:o}}", "data",
            "given_name", trv_json_str(p, "first_name"),
            "family_name", trv_json_str(p, "last_name"),
            "loyalty_programme_accounts", accounts));
        st = call(ctx, "PATCH", apr_pstrcat(ctx->pool, "/air/offers/",
                                            trv_url_escape(ctx->pool, ref), "/passengers/",
                                            trv_url_escape(ctx->pool, id), NULL),
                  body, NULL, &res, err);
        if (st != TRV_UP_OK) {
            return st;
        }
        *any = 1;
    }
    return TRV_UP_OK;
}

static const json_t *service_named(const json_t *offer, const char *ase)
{
    const json_t *svcs = json_object_get(offer, "available_services");
    size_t i;
    for (i = 0; ase && i < json_array_size(svcs); i++) {
        const char *id = trv_json_str(json_array_get(svcs, i), "id");
        if (id && strcmp(id, ase) == 0) {
            return json_array_get(svcs, i);
        }
    }
    return NULL;
}

static trv_up_status a_prebook(trv_flight_ctx *ctx, const char *offer_reference,
                               const json_t *passengers, const json_t *contact,
                               const json_t *services, json_t **priced, trv_sup_err *err)
{
    json_t *o, *first, *ids = json_array(), *js, *svc_out, *conds, *req_svcs;
    const json_t *opax;
    const char *cur;
    apr_int64_t total, fare, tax, first_total, svc_total = 0;
    trv_up_status st;
    size_t i;
    int member;
    (void)contact;

    trv_json_bind(ctx->pool, ids);
    st = get_offer(ctx, offer_reference, &first, err);
    if (st == TRV_UP_OK) {
        st = send_loyalty(ctx, offer_reference, first, passengers, &member, err);
    }
    if (st != TRV_UP_OK) {
        return st;
    }
    o = first;
    if (member && (st = get_offer(ctx, offer_reference, &o, err)) != TRV_UP_OK) {
        return st;
    }
    cur = trv_json_str(o, "total_currency");
    if (!cur || trv_money_minor_of(json_object_get(o, "total_amount"), cur, &total) != 0
        || trv_money_minor_of(json_object_get(o, "base_amount"), cur, &fare) != 0
        || trv_money_minor_of(json_object_get(o, "tax_amount"), cur, &tax) != 0
        || trv_money_minor_of(json_object_get(first, "total_amount"), cur, &first_total) != 0) {
        return bad(ctx, err, "a priced offer");
    }
    member = total < first_total;
    opax = json_object_get(o, "passengers");
    for (i = 0; i < json_array_size(passengers); i++) {
        const char *id = trv_json_str(json_array_get(opax, i), "id");
        json_array_append_new(ids, id ? json_string(id) : json_null());
    }
    /* Bound at once: a refused bag below returns without them. */
    js = trv_json_bind(ctx->pool, journeys(ctx, o, 1));
    svc_out = trv_json_bind(ctx->pool, json_array());
    req_svcs = services_req(ctx->pool, services);
    trv_json_bind(ctx->pool, req_svcs);
    for (i = 0; i < json_array_size(req_svcs); i++) {
        /* A bag's price is its unit price times the quantity, in minor units. */
        const json_t *want = json_array_get(req_svcs, i);
        const json_t *s = service_named(o, trv_json_str(want, "id"));
        const json_t *md = json_object_get(s, "metadata");
        const char *bt = trv_json_str(md, "type");
        const char *type = bt && strcmp(bt, "carry_on") == 0 ? "CARRY_ON" : "CHECKED";
        json_int_t q = json_integer_value(json_object_get(want, "quantity"));
        json_int_t jn, pi;
        apr_int64_t unit;
        trv_money m;
        json_t *segids;
        if (!s) {
            err->code = "validation_failed";
            err->message = apr_psprintf(ctx->pool, "%s is not a bag of this offer",
                                        bag_id(ctx->pool, trv_json_str(want, "id")));
            return TRV_UP_REJECTED;
        }
        if (trv_money_minor_of(json_object_get(s, "total_amount"), cur, &unit) != 0
            || q < 1 || q > json_integer_value(json_object_get(s, "maximum_quantity"))) {
            err->code = "validation_failed";
            err->message = apr_psprintf(ctx->pool, "%s: quantity must be 1 to %" JSON_INTEGER_FORMAT,
                                        bag_id(ctx->pool, trv_json_str(want, "id")),
                                        json_integer_value(json_object_get(s, "maximum_quantity")));
            return TRV_UP_REJECTED;
        }
        svc_total += unit * q;
        jn = slice_of_segment(o, json_string_value(json_array_get(json_object_get(s, "segment_ids"), 0)));
        pi = pax_index(o, json_string_value(json_array_get(json_object_get(s, "passenger_ids"), 0)));
        segids = json_deep_copy(json_object_get(s, "segment_ids"));
        json_array_append_new(svc_out, json_pack("{s:s,s:I,s:I,s:I,s:o*,s:o*,s:{s:s,s:O},s:o}",
            "bag_id", bag_id(ctx->pool, trv_json_str(s, "id")), "passenger_index", pi,
            "journey_index", jn, "quantity", q,
            "unit_amount", trv_fwire_money(json_object_get(s, "total_amount"), cur),
            "total_amount", trv_money_make(&m, unit * q, cur) == APR_SUCCESS
                            ? trv_money_json(&m) : NULL,
            "baggage", "type", type, "max_weight_kg", json_object_get(md, "maximum_weight_kg"),
            "segment_ids", segids ? segids : json_array()));
        trv_fwire_count_bag(js, jn, pi, type, q);
    }
    conds = trv_json_bind(ctx->pool, fare_conditions(o));
    {
        trv_money mt, mf, mx, ms;
        if (trv_money_make(&mt, total + svc_total, cur) != APR_SUCCESS
            || trv_money_make(&mf, fare, cur) != APR_SUCCESS
            || trv_money_make(&mx, tax, cur) != APR_SUCCESS
            || trv_money_make(&ms, svc_total, cur) != APR_SUCCESS) {
            return bad(ctx, err, "the amounts of a priced offer");
        }
        *priced = trv_json_bind(ctx->pool, json_pack(
            "{s:o,s:o,s:o,s:o,s:s,s:s?,s:s?,s:O,s:{s:O,s:O},s:O,s:O,s:b,s:{s:b,s:s?},"
            "s:{s:s?,s:O,s:s,s:s}}",
            "total_amount", trv_money_json(&mt), "fare_amount", trv_money_json(&mf),
            "fare_tax_amount", trv_money_json(&mx), "services_amount", trv_money_json(&ms),
            "currency", cur, "expires_at", trv_json_str(o, "expires_at"),
            "fare_brand", trv_json_str(json_array_get(json_object_get(o, "slices"), 0),
                                       "fare_brand_name"),
            "fare_conditions", conds,
            "cancellation_policy", "refundable",
            json_object_get(json_object_get(conds, "refund"), "allowed"),
            "penalty", json_object_get(json_object_get(conds, "refund"), "penalty"),
            "journeys", js, "services", svc_out, "member_price", member,
            "hold", "held", 0, "expires_at", trv_json_str(o, "expires_at"),
            "supplier_data", "offer_id", offer_reference, "passenger_ids", ids,
            "total", trv_money_decimal(ctx->pool, total + svc_total, trv_currency_exponent(cur)),
            "currency", cur));
    }
    if (!*priced) {
        return bad(ctx, err, "the amounts of a priced offer");
    }
    return TRV_UP_OK;
}

/* ---- orders ---- */

/* Duffel's order has no status field: it is cancelled once cancelled_at
 * is set, ticketed once it holds e-tickets, awaiting ticketing (or
 * payment) before. */
static const char *status_of(const json_t *o)
{
    const json_t *docs = json_object_get(o, "documents");
    size_t i;
    if (json_is_string(json_object_get(o, "cancelled_at"))) {
        return "CANCELED";
    }
    for (i = 0; i < json_array_size(docs); i++) {
        const char *t = trv_json_str(json_array_get(docs, i), "type");
        if (t && strcmp(t, "electronic_ticket") == 0) {
            return "TICKETED";
        }
    }
    return "PENDING";
}

static int slice_index(const json_t *order, const char *slice_id)
{
    const json_t *slices = json_object_get(order, "slices");
    size_t j;
    for (j = 0; slice_id && j < json_array_size(slices); j++) {
        const char *id = trv_json_str(json_array_get(slices, j), "id");
        if (id && strcmp(id, slice_id) == 0) {
            return (int)j;
        }
    }
    return -1;
}

static const json_t *segment_named(const json_t *slices, const char *seg_id)
{
    size_t j, k;
    for (j = 0; seg_id && j < json_array_size(slices); j++) {
        const json_t *segs = json_object_get(json_array_get(slices, j), "segments");
        for (k = 0; k < json_array_size(segs); k++) {
            const char *id = trv_json_str(json_array_get(segs, k), "id");
            if (id && strcmp(id, seg_id) == 0) {
                return json_array_get(segs, k);
            }
        }
    }
    return NULL;
}

/* Duffel shows a change as the slices it removed and those it added; a
 * schedule change is a segment of an added slice whose times differ from
 * the removed one's. One entry per retimed segment. */
static json_t *changes_of(apr_pool_t *p, const json_t *order)
{
    const json_t *aic = json_object_get(order, "airline_initiated_changes");
    json_t *out = json_array();
    size_t i, j, k;
    for (i = 0; i < json_array_size(aic); i++) {
        const json_t *c = json_array_get(aic, i), *added = json_object_get(c, "added");
        for (j = 0; j < json_array_size(added); j++) {
            const json_t *sl = json_array_get(added, j), *segs = json_object_get(sl, "segments");
            for (k = 0; k < json_array_size(segs); k++) {
                const json_t *ad = json_array_get(segs, k);
                const json_t *rm = segment_named(json_object_get(c, "removed"),
                                                 trv_json_str(ad, "id"));
                const json_t *mc = json_object_get(ad, "marketing_carrier");
                if (rm && json_equal(json_object_get(rm, "departing_at"),
                                     json_object_get(ad, "departing_at"))
                    && json_equal(json_object_get(rm, "arriving_at"),
                                  json_object_get(ad, "arriving_at"))) {
                    continue; /* unchanged */
                }
                json_array_append_new(out, json_pack(
                    "{s:O?,s:s,s:O?,s:i,s:O?,s:s?,s:s?,s:s?,s:O?,s:O?,s:O?,s:O?}",
                    "id", json_object_get(c, "id"), "type", "SCHEDULE_CHANGE",
                    "created_at", json_object_get(c, "created_at"),
                    "journey_index", slice_index(order, trv_json_str(sl, "id")),
                    "segment_id", json_object_get(ad, "id"),
                    "marketing_flight", mc ? apr_pstrcat(p, trv_json_str(mc, "iata_code"),
                        trv_json_str(ad, "marketing_carrier_flight_number"), NULL) : NULL,
                    "origin", trv_json_str(json_object_get(ad, "origin"), "iata_code"),
                    "destination", trv_json_str(json_object_get(ad, "destination"), "iata_code"),
                    "previous_departure_time", json_object_get(rm, "departing_at"),
                    "previous_arrival_time", json_object_get(rm, "arriving_at"),
                    "departure_time", json_object_get(ad, "departing_at"),
                    "arrival_time", json_object_get(ad, "arriving_at")));
            }
        }
    }
    return out;
}

static trv_up_status order_of(trv_flight_ctx *ctx, const json_t *o, json_t **order,
                              trv_sup_err *err)
{
    if (!json_is_object(o) || !trv_json_str(o, "id")) {
        return bad(ctx, err, "a readable order");
    }
    *order = trv_json_bind(ctx->pool, json_pack("{s:s,s:s,s:s?,s:o}",
        "order_id", trv_json_str(o, "id"), "status", status_of(o),
        "airline_pnr", trv_json_str(o, "booking_reference"),
        "airline_initiated_changes", changes_of(ctx->pool, o)));
    return TRV_UP_OK;
}

static const char *phone_of(apr_pool_t *p, const json_t *contact)
{
    const char *cc = trv_json_str(contact, "phone_country_code");
    const char *n = trv_json_str(contact, "phone_number");
    if (!n) {
        return NULL;
    }
    return cc ? apr_pstrcat(p, "+", cc, n, NULL) : n;
}

static trv_up_status a_book(trv_flight_ctx *ctx, const json_t *booking, const json_t *payment,
                            const char *idempotency_key, json_t **order, trv_sup_err *err)
{
    const json_t *sd = json_object_get(booking, "supplier_data");
    const json_t *pax = json_object_get(booking, "passengers");
    const json_t *contact = json_object_get(booking, "contact");
    const json_t *ids = json_object_get(sd, "passenger_ids");
    const char *offer_id = trv_json_str(sd, "offer_id"), *cur = NULL, *amount;
    json_t *plist = json_array(), *body, *meta;
    trv_up_result res;
    trv_up_status st;
    size_t i, k;

    amount = trv_fwire_decimal(ctx->pool, json_object_get(booking, "total_amount"), &cur);
    if (!offer_id || !amount || json_array_size(ids) != json_array_size(pax)) {
        json_decref(plist);
        err->code = "invalid_booking";
        err->message = "the booking lacks SUPPLIER_A's offer, passengers or total";
        return TRV_UP_REJECTED;
    }
    for (i = 0; i < json_array_size(pax); i++) {
        const json_t *p = json_array_get(pax, i), *acc = json_object_get(p, "loyalty_accounts");
        json_t *accounts = json_array();
        const char *g = trv_json_str(p, "gender");
        for (k = 0; k < json_array_size(acc); k++) {
            const json_t *a = json_array_get(acc, k);
            json_array_append_new(accounts, json_pack("{s:s?,s:s?}",
                "airline_iata_code", trv_json_str(a, "airline_iata_code"),
                "account_number", trv_json_str(a, "membership_number")));
        }
        /* Duffel: gender m or f, and a title (mr or ms: nothing in the
         * booking says more). */
        g = g ? (apr_tolower(*g) == 'm' ? "m" : apr_tolower(*g) == 'f' ? "f" : NULL) : NULL;
        json_array_append_new(plist, json_pack("{s:O,s:s?,s:s?,s:s?,s:s?,s:s?,s:s?,s:s?,s:o}",
            "id", json_array_get(ids, i),
            "given_name", trv_json_str(p, "first_name"),
            "family_name", trv_json_str(p, "last_name"),
            "born_on", trv_json_str(p, "birthday"),
            "gender", g,
            "title", g ? (*g == 'm' ? "mr" : "ms") : NULL,
            "email", trv_json_str(contact, "email"),
            "phone_number", phone_of(ctx->pool, contact),
            "loyalty_programme_accounts", accounts));
    }
    meta = json_pack("{s:s?}", "booking_id", trv_json_str(booking, "id"));
    if (payment && trv_json_str(payment, "authorization_id")) {
        json_object_set_new(meta, "authorization_id",
                            json_string(trv_json_str(payment, "authorization_id")));
    }
    body = trv_json_bind(ctx->pool, json_pack(
        "{s:{s:s,s:[s],s:o,s:o,s:[{s:s,s:s,s:s}],s:o}}", "data", "type", "instant",
        "selected_offers", offer_id, "passengers", plist,
        "services", services_req(ctx->pool, json_object_get(booking, "services")),
        "payments", "type", "balance", "amount", amount, "currency", cur, "metadata", meta));
    st = call(ctx, "POST", "/air/orders", body, idempotency_key, &res, err);
    if (st == TRV_UP_REJECTED && err->code && strcmp(err->code, "ticketing_failed") == 0) {
        /* The airline refused to issue: a definite failure, no order. */
        *order = trv_json_bind(ctx->pool, json_pack("{s:n,s:s,s:{s:s,s:s}}", "order_id",
            "status", "FAILED", "failure", "code", "book_failed", "description",
            err->message ? err->message : "The airline could not issue the tickets"));
        return TRV_UP_OK;
    }
    if (st != TRV_UP_OK) {
        return st;
    }
    return order_of(ctx, json_object_get(res.body, "data"), order, err);
}

static trv_up_status a_read_order(trv_flight_ctx *ctx, const char *order_id, json_t **order,
                                  trv_sup_err *err)
{
    trv_up_result res;
    trv_up_status st = call(ctx, "GET", apr_pstrcat(ctx->pool, "/air/orders/",
                                                    trv_url_escape(ctx->pool, order_id),
                                                    NULL), NULL, NULL, &res, err);
    if (st != TRV_UP_OK) {
        return st;
    }
    return order_of(ctx, json_object_get(res.body, "data"), order, err);
}

/* The order a book whose answer was lost made: Duffel offers no lookup by
 * metadata, so the orders are listed with the filters its reference
 * documents (List orders): passenger_name[] (matching given and family
 * names) by the first passenger's family name, and created_at[after] the
 * booking's creation less A_FIND_SKEW (an order of ours is made after its
 * booking; the margin covers the clocks of the two systems), so a common
 * name's older orders are never read; the one whose metadata.booking_id
 * is the booking's (a_book sends it) is the booking's order. At most
 * A_FIND_PAGES pages of 200 are read a time (the caller looks again
 * later), so the calls stay bounded; a lookup that stopped with pages left
 * is not an answer that no order exists. */
#define A_FIND_PAGES 10
#define A_FIND_SKEW apr_time_from_sec(300)
static trv_up_status a_find_order(trv_flight_ctx *ctx, const json_t *booking, json_t **order,
                                  trv_sup_err *err)
{
    const char *id = trv_json_str(booking, "id");
    const char *family = trv_json_str(json_array_get(json_object_get(booking, "passengers"), 0),
                                      "last_name");
    const char *created = trv_json_str(booking, "created_at"), *since = "";
    const char *after = NULL;
    apr_time_t t;
    int page;
    if (!id || !family) {
        err->code = "invalid_booking";
        err->message = "the booking lacks its id or a passenger's last name";
        return TRV_UP_REJECTED;
    }
    if (created && trv_time_parse(created, &t) == APR_SUCCESS) {
        since = apr_pstrcat(ctx->pool, "&created_at%5Bafter%5D=",
                            trv_url_escape(ctx->pool, trv_time_format(ctx->pool,
                                                                      t - A_FIND_SKEW)), NULL);
    }
    for (page = 0; page < A_FIND_PAGES; page++) {
        trv_up_result res;
        const json_t *list, *o;
        size_t i;
        trv_up_status st = call(ctx, "GET", apr_pstrcat(ctx->pool,
            "/air/orders?limit=200&passenger_name%5B%5D=", trv_url_escape(ctx->pool, family),
            since, after ? "&after=" : "", after ? trv_url_escape(ctx->pool, after) : "", NULL),
            NULL, NULL, &res, err);
        if (st != TRV_UP_OK) {
            return st;
        }
        list = json_object_get(res.body, "data");
        if (!json_is_array(list)) {
            return bad(ctx, err, "a list of orders");
        }
        json_array_foreach(list, i, o) {
            const char *mine = trv_json_str(json_object_get(o, "metadata"), "booking_id");
            if (mine && strcmp(mine, id) == 0) {
                return order_of(ctx, o, order, err);
            }
        }
        if (!(after = trv_json_str(json_object_get(res.body, "meta"), "after"))) {
            break;
        }
    }
    if (after) {
        /* Pages left unread: not a "none" (the booking fails on a none
         * once its offer is gone), only "not among these". */
        err->code = "lookup_incomplete";
        err->message = apr_psprintf(ctx->pool, "the first %d pages of Duffel's orders for "
                                    "this name do not hold booking %s", A_FIND_PAGES, id);
        return TRV_UP_UNAVAILABLE;
    }
    err->code = "not_found";
    err->message = apr_psprintf(ctx->pool, "Duffel lists no order for booking %s", id);
    return TRV_UP_NOT_FOUND;
}

/* ---- cancellations ---- */

/* The order as Duffel has it now, and its total: Duffel's cancellation
 * states the refund only, and the fee is what the order cost less that
 * refund. */
static trv_up_status order_total(trv_flight_ctx *ctx, const char *order_id, trv_money *total,
                                 const json_t **order, trv_sup_err *err)
{
    trv_up_result res;
    const json_t *o;
    const char *cur;
    trv_up_status st = call(ctx, "GET", apr_pstrcat(ctx->pool, "/air/orders/",
                                                    trv_url_escape(ctx->pool, order_id),
                                                    NULL), NULL, NULL, &res, err);
    if (st != TRV_UP_OK) {
        return st;
    }
    o = json_object_get(res.body, "data");
    cur = trv_json_str(o, "total_currency");
    if (!cur || trv_money_minor_of(json_object_get(o, "total_amount"), cur, &total->minor) != 0
        || trv_money_make(total, total->minor, cur) != APR_SUCCESS) {
        return bad(ctx, err, "an order total");
    }
    if (order) {
        *order = o;
    }
    return TRV_UP_OK;
}

/* An order cancellation is Duffel's quote: it states the refund and
 * cancels nothing until confirmed. */
static trv_up_status quote(trv_flight_ctx *ctx, const char *order_id, json_t **cancellation,
                           trv_sup_err *err)
{
    trv_up_result res;
    apr_int64_t minor;
    json_t *body = trv_json_bind(ctx->pool, json_pack("{s:{s:s}}", "data", "order_id", order_id));
    trv_up_status st = call(ctx, "POST", "/air/order_cancellations", body, NULL, &res, err);
    if (st != TRV_UP_OK) {
        return st;
    }
    *cancellation = json_object_get(res.body, "data");
    if (!trv_json_str(*cancellation, "id")
        || trv_money_minor_of(json_object_get(*cancellation, "refund_amount"),
                              trv_json_str(*cancellation, "refund_currency"), &minor) != 0) {
        return bad(ctx, err, "a readable order cancellation");
    }
    return TRV_UP_OK;
}

/* {fee, <refund_key>}: the refund as Duffel states it, the fee the rest
 * of the order's total (integer minor units), NULL when the currencies
 * differ. */
static json_t *terms(const json_t *k, const trv_money *total, const char *refund_key)
{
    const char *cur = trv_json_str(k, "refund_currency");
    trv_money fee, refund;
    if (!cur || strcmp(cur, total->currency) != 0
        || trv_money_minor_of(json_object_get(k, "refund_amount"), cur, &refund.minor) != 0
        || refund.minor > total->minor
        || trv_money_make(&refund, refund.minor, cur) != APR_SUCCESS
        || trv_money_make(&fee, total->minor - refund.minor, cur) != APR_SUCCESS) {
        return NULL;
    }
    return json_pack("{s:o,s:o}", "fee", trv_money_json(&fee), refund_key,
                     trv_money_json(&refund));
}

static trv_up_status a_cancellation_quote(trv_flight_ctx *ctx, const char *order_id,
                                          json_t **out, trv_sup_err *err)
{
    json_t *k;
    trv_money total;
    trv_up_status st = order_total(ctx, order_id, &total, NULL, err);
    if (st == TRV_UP_OK) {
        st = quote(ctx, order_id, &k, err);
    }
    if (st != TRV_UP_OK) {
        return st;
    }
    *out = trv_json_bind(ctx->pool, terms(k, &total, "refundable_amount"));
    return *out ? TRV_UP_OK : bad(ctx, err, "a refund in the order's currency");
}

static trv_up_status a_cancel(trv_flight_ctx *ctx, const char *order_id,
                              const char *idempotency_key, json_t **result, trv_sup_err *err)
{
    json_t *k;
    const json_t *order = NULL, *done;
    trv_up_result res;
    trv_money total;
    trv_up_status st = order_total(ctx, order_id, &total, &order, err);
    if (st != TRV_UP_OK) {
        return st;
    }
    /* Cancelled already (an earlier run's confirm went unanswered): the
     * order holds its confirmed cancellation, which is the result. Nothing
     * is quoted or confirmed again. */
    done = json_object_get(order, "cancellation");
    if (trv_json_str(order, "cancelled_at") && trv_json_str(done, "confirmed_at")) {
        *result = trv_json_bind(ctx->pool, terms(done, &total, "refund_amount"));
        return *result ? TRV_UP_OK : bad(ctx, err, "a refund in the order's currency");
    }
    /* A quote cancels nothing: one made by a run whose answer was lost is
     * simply superseded by this one (Duffel confirms the newest). */
    st = quote(ctx, order_id, &k, err);
    if (st != TRV_UP_OK) {
        return st;
    }
    st = call(ctx, "POST", apr_pstrcat(ctx->pool, "/air/order_cancellations/",
                                       trv_url_escape(ctx->pool, trv_json_str(k, "id")),
                                       "/actions/confirm", NULL),
              NULL, idempotency_key, &res, err);
    if (st != TRV_UP_OK) {
        return st;
    }
    k = json_object_get(res.body, "data");
    if (!trv_json_str(k, "confirmed_at")) {
        return bad(ctx, err, "a confirmed cancellation");
    }
    *result = trv_json_bind(ctx->pool, terms(k, &total, "refund_amount"));
    return *result ? TRV_UP_OK : bad(ctx, err, "a refund in the order's currency");
}

/* Duffel names airlines by its own ids; the IATA code is found by paging
 * through GET /air/airlines (a rare call: only a carrier missing from the
 * directory is imported). Duffel publishes no ICAO code, country or
 * alliance: those stay null. */
static trv_up_status a_airline(trv_flight_ctx *ctx, const char *iata_code, json_t **airline,
                               trv_sup_err *err)
{
    const char *after = NULL;
    int page;
    for (page = 0; page < 100; page++) {
        trv_up_result res;
        const json_t *list, *a;
        size_t i;
        trv_up_status st = call(ctx, "GET", after
            ? apr_pstrcat(ctx->pool, "/air/airlines?limit=200&after=",
                          trv_url_escape(ctx->pool, after), NULL)
            : "/air/airlines?limit=200", NULL, NULL, &res, err);
        if (st != TRV_UP_OK) {
            return st;
        }
        list = json_object_get(res.body, "data");
        if (!json_is_array(list)) {
            return bad(ctx, err, "a list of airlines");
        }
        json_array_foreach(list, i, a) {
            const char *code = trv_json_str(a, "iata_code");
            if (code && strcmp(code, iata_code) == 0) {
                if (!trv_json_str(a, "name")) {
                    return bad(ctx, err, "a readable airline");
                }
                *airline = trv_json_bind(ctx->pool, json_pack(
                    "{s:s,s:n,s:s,s:n,s:n,s:s?,s:b}", "iata_code", code, "icao_code",
                    "name", trv_json_str(a, "name"), "country", "alliance",
                    "logo_url", trv_json_str(a, "logo_symbol_url"), "is_active", 1));
                return TRV_UP_OK;
            }
        }
        after = trv_json_str(json_object_get(res.body, "meta"), "after");
        if (!after) {
            break;
        }
    }
    err->code = "not_found";
    err->message = apr_psprintf(ctx->pool, "Duffel lists no airline %s", iata_code);
    return TRV_UP_NOT_FOUND;
}

const trv_flight_supplier trv_flight_supplier_a = {
    NAME,
    "off_",
    a_search,
    a_bags,
    a_prebook,
    a_book,
    a_read_order,
    a_cancellation_quote,
    a_cancel,
    a_airline,
    a_find_order,
};
