/* SUPPLIER_B: LiteAPI Flights (v3.0) under /suppliers/b/v3.0, the
 * liteapi-flights protocol (docs/suppliers.md "Flight SUPPLIER_B"):
 *
 *   POST /flights/rates                         journeys and their offers
 *   POST /flights/verify                        the offer now (its fare's
 *                                               baggage; bags are sold in
 *                                               the checkout only)
 *   POST /flights/prebooks                      a checkout: the offer held
 *                                               when it can be, a payment
 *                                               intent, servicesAttachable
 *   GET  /flights/prebooks/{prebookId}
 *   POST /flights/prebooks/{prebookId}/services bags attached (new intent)
 *   POST /flights/bookings                      book, paid by the intent's
 *                                               transactionId; once per
 *                                               prebook (a repeat: 200, the
 *                                               same booking)
 *   GET  /flights/bookings/{bookingId}
 *   GET  /flights/bookings/{bookingId}/cancellations   the refund quote
 *   POST /flights/bookings/{bookingId}/cancellations   cancel
 *   GET  /data/flights/airlines/iatas/{iataCode}
 *   POST /suppliers/b/payment/v1/payment_intents/{id}/confirm
 *                                               the traveller's device (no
 *                                               key): the payment SDK
 *                                               confirming an intent
 *
 * X-API-Key; answers {"data": [...]}; money as JSON numbers in the major
 * unit beside a currency; errors {"error": {code (a number), message,
 * description, key}}. LiteAPI collects payment: the traveller confirms the
 * prebook's payment intent (Stripe, secretKey) with LiteAPI's payment SDK;
 * in test mode every intent counts as confirmed, unless a passenger is
 * named Sdkpay (then book waits for the confirmation: 402 before, the
 * sandbox's guess: LiteAPI publishes no answer for an unpaid intent).
 * Prices are not converted: they are in the origin market's currency
 * whatever `currency` asks (`converted` false). */
#include "air.h"
#include "core/clock.h"
#include "core/ids.h"
#include "core/money.h"

#include <apr_strings.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define B_MAX_RESULTS 200
#define B_HOLD_MIN_AHEAD (72 * 3600)   /* no holds for flights this close */
#define B_CHECKOUT_TTL (20 * 60)       /* an unheld checkout's price guarantee */
/* A passenger of this last name makes the checkout's payment intents wait
 * for the traveller's confirmation, as LiteAPI's do; without it the sandbox
 * counts every intent as confirmed (test mode). */
#define B_CONFIRM_TRIGGER "Sdkpay"

static const trv_stmt b_checkout_insert = {"sbx_b_checkout_insert",
    "INSERT INTO sandbox.checkouts (id, fare_key, status, held, expires_at, currency, "
    "total_minor, doc) VALUES (%s, %s, %s, %s::boolean, to_timestamp(%s::bigint), %s, "
    "%s::bigint, %s::jsonb)"};
static const trv_stmt b_checkout_get = {"sbx_b_checkout_get",
    "SELECT id, fare_key, status, held, trv_ts(expires_at) AS expires_at, "
    "expires_at < clock_timestamp() AS expired, currency, total_minor, doc::text AS doc, "
    "order_id, trv_ts(created_at) AS created_at FROM sandbox.checkouts WHERE id = %s"};
static const trv_stmt b_checkout_lock = {"sbx_b_checkout_lock",
    "SELECT id FROM sandbox.checkouts WHERE id = %s FOR UPDATE"};
static const trv_stmt b_checkout_update = {"sbx_b_checkout_update",
    "UPDATE sandbox.checkouts SET doc = %s::jsonb, total_minor = %s::bigint WHERE id = %s"};
static const trv_stmt b_checkout_of_secret = {"sbx_b_checkout_of_secret",
    "SELECT id, total_minor, doc::text AS doc FROM sandbox.checkouts "
    "WHERE doc->'wire'->>'secretKey' = %s FOR UPDATE"};
static const trv_stmt b_checkout_complete = {"sbx_b_checkout_complete",
    "UPDATE sandbox.checkouts SET status = 'completed', order_id = %s WHERE id = %s"};
static const trv_stmt b_order_cancel = {"sbx_b_order_cancel",
    "UPDATE sandbox.flight_orders SET status = 'cancelled', cancelled_at = clock_timestamp(), "
    "updated_at = clock_timestamp(), cancellation = %s::jsonb "
    "WHERE id = %s AND status = 'ticketed' RETURNING trv_ts(cancelled_at) AS cancelled_at"};

static const char *const pax_codes[3] = {"ADT", "CHD", "INF"};

/* ---- the wire: errors and money ---- */

/* LiteAPI's error: a numeric code, a short message, a description and the
 * request field at fault ("bodyRequest.legs"), when there is one. */
static void lf_error(trv_req *req, trv_resp *resp, int status, int code, const char *message,
                     const char *description, const char *key)
{
    sbx_send(req, resp, status, json_pack("{s:{s:i,s:s,s:s,s:s?}}", "error", "code", code,
                                          "message", message, "description", description,
                                          "key", key));
}

static json_t *lf_num(apr_int64_t minor, const char *cur)
{
    return trv_money_amount_json(minor, trv_currency_exponent(cur));
}

static json_t *lf_money(apr_int64_t minor, const char *cur)
{
    return json_pack("{s:{s:o,s:s},s:b}", "display", "amount", lf_num(minor, cur),
                     "currency", cur, "converted", 0);
}

static json_t *lf_display(apr_int64_t base, apr_int64_t tax, const char *cur)
{
    return json_pack("{s:o,s:s,s:o,s:o,s:o}", "base", lf_num(base, cur), "currency", cur,
                     "fees", lf_num(0, cur), "taxes", lf_num(tax, cur),
                     "total", lf_num(base + tax, cur));
}

static json_t *lf_duration(int minutes)
{
    char buf[32];
    snprintf(buf, sizeof(buf), "PT%dH%dM", minutes / 60, minutes % 60);
    return json_pack("{s:s,s:i}", "iso8601", buf, "minutes", minutes);
}

static char *lf_local(apr_pool_t *p, apr_int64_t local)
{
    char buf[20];
    sbx_local_format(local, buf);
    return apr_pstrdup(p, buf); /* "YYYY-MM-DDTHH:MM:SS", the airport's wall clock */
}

/* LiteAPI knows two directions; a multi-city trip's later legs are INBOUND. */
static const char *direction_of(int j)
{
    return j == 0 ? "OUTBOUND" : "INBOUND";
}

static const char *segment_key(apr_pool_t *p, const sbx_offer *o, int j, int k)
{
    return apr_psprintf(p, "fl_%s-%d-%d", o->tag, j + 1, k + 1);
}

/* ---- journeys and offers ---- */

static json_t *lf_segments(apr_pool_t *p, const sbx_world *w, const sbx_offer *o,
                           json_t **connections)
{
    json_t *segs = json_array();
    int j, k;
    *connections = json_array();
    for (j = 0; j < o->q.nj; j++) {
        const sbx_itin *it = &o->it[j];
        for (k = 0; k < it->n; k++) {
            const sbx_leg *l = &it->legs[k];
            const sbx_airline *m = &w->airlines[l->mkt], *op = &w->airlines[l->op];
            json_array_append_new(segs, json_pack(
                "{s:s,s:s,s:s,s:{s:s,s:s,s:s,s:s,s:s,s:s},s:s,s:s,s:s,s:s,s:s,s:o,"
                "s:{s:s,s:s}}",
                "segmentKey", segment_key(p, o, j, k),
                "departureTime", lf_local(p, l->dep_local),
                "arrivalTime", lf_local(p, l->arr_local),
                "carrier", "marketingCode", m->iata, "marketingName", m->name,
                "marketingLogo", sbx_logo_url(p, m->iata), "operatingCode", op->iata,
                "operatingName", op->name, "operatingLogo", sbx_logo_url(p, op->iata),
                "originCode", w->airports[l->from].iata,
                "originName", w->airports[l->from].name,
                "destinationCode", w->airports[l->to].iata,
                "destinationName", w->airports[l->to].name,
                "direction", direction_of(j), "duration", lf_duration(l->block_min),
                "flight", "marketingNumber", apr_psprintf(p, "%s%d", m->iata, l->flight_no),
                "operatingNumber", apr_psprintf(p, "%s%d", op->iata, l->op_flight_no)));
            if (k > 0) {
                const sbx_leg *prev = &it->legs[k - 1];
                json_array_append_new(*connections, json_pack(
                    "{s:s,s:s,s:s,s:s,s:s,s:s,s:b,s:s,s:o,s:b}",
                    "arrivalAirportCode", w->airports[prev->to].iata,
                    "arrivalAirportName", w->airports[prev->to].name,
                    "arrivalTime", sbx_instant(p, prev->arr_utc),
                    "departureAirportCode", w->airports[l->from].iata,
                    "departureAirportName", w->airports[l->from].name,
                    "departureTime", sbx_instant(p, l->dep_utc),
                    "changeAirport", prev->to != l->from, "direction", direction_of(j),
                    "duration", lf_duration((int)((l->dep_utc - prev->arr_utc) / 60)),
                    "overnight", (prev->arr_local / 86400) != (l->dep_local / 86400)));
            }
        }
    }
    return segs;
}

static json_t *lf_fee(const char *cur, int allowed, apr_int64_t fee, const char *what)
{
    if (!allowed) {
        return json_null();
    }
    return json_pack("{s:o,s:s,s:s}", "pricing", lf_money(fee, cur),
                     "applicability", "beforeDeparture", "label", what);
}

static json_t *lf_terms(apr_pool_t *p, const sbx_offer *o)
{
    const sbx_brand *b = sbx_offer_brand(o);
    json_t *summary = json_array();
    (void)p;
    json_array_append_new(summary, json_pack("{s:s,s:s}", "level",
        b->refund_allowed ? "info" : "danger", "message",
        b->refund_allowed ? "Refundable with a fee" : "Non-refundable"));
    json_array_append_new(summary, json_pack("{s:s,s:s}", "level",
        b->change_allowed ? "info" : "warning", "message",
        b->change_allowed ? "Changes allowed with a fee" : "No changes"));
    return json_pack("{s:b,s:b,s:o,s:o,s:o,s:b,s:b}",
        "changeable", b->change_allowed, "refundable", b->refund_allowed, "summary", summary,
        "changeFee", lf_fee(o->currency, b->change_allowed, sbx_offer_change_penalty(o),
                            "Change fee (before departure)"),
        "refundFee", lf_fee(o->currency, b->refund_allowed, sbx_offer_refund_penalty(o),
                            "Refund fee (before departure)"),
        "hasChangeFee", b->change_allowed, "hasRefundFee", b->refund_allowed);
}

static int first_km(const sbx_offer *o)
{
    int k, km = 0;
    for (k = 0; k < o->it[0].n; k++) {
        km += o->it[0].legs[k].km;
    }
    return km;
}

static json_t *lf_included(const sbx_offer *o)
{
    const sbx_brand *b = sbx_offer_brand(o);
    json_t *inc = json_array();
    int carry = sbx_brand_carry_on(b, first_km(o));
    if (b->checked_bags > 0) {
        json_array_append_new(inc, json_pack("{s:s,s:s,s:s,s:i,s:i,s:s}", "bagType", "checked",
            "description", "Checked bag", "passengerType", "ADT", "pieces", b->checked_bags,
            "weightKg", 23, "unit", "kg"));
    }
    if (carry > 0) {
        json_array_append_new(inc, json_pack("{s:s,s:s,s:s,s:i,s:s}", "bagType", "cabin",
            "description", "Cabin bag", "passengerType", "ADT", "pieces", carry,
            "unit", "kg"));
    }
    return json_pack("{s:b,s:b,s:o}", "hasCarryOnBag", carry > 0,
                     "hasCheckedBag", b->checked_bags > 0, "included", inc);
}

/* The bags of the offer as LiteAPI's attachable services: one per journey
 * and bag type, for any passenger but infants (quantity: up to pieces). */
static json_t *lf_services(apr_pool_t *p, const sbx_offer *o, json_t **internal)
{
    sbx_bag bags[SBX_MAX_PAX * SBX_MAX_JOURNEYS * 2];
    int n = sbx_offer_bags(o, bags, (int)(sizeof(bags) / sizeof(bags[0]))), i;
    json_t *out = json_array();
    if (internal) {
        *internal = json_array();
    }
    for (i = 0; i < n; i++) {
        const char *sid;
        int checked = bags[i].type == SBX_BAG_CHECKED;
        if (bags[i].pax != 0) {
            continue; /* the same service serves every passenger */
        }
        sid = apr_psprintf(p, "svc_%s-j%d%c", o->tag, bags[i].journey, checked ? 'c' : 'h');
        json_array_append_new(out, json_pack("{s:s,s:s,s:s,s:s,s:o,s:s,s:i,s:i}",
            "serviceId", sid, "name", checked ? "Checked bag" : "Cabin bag",
            "passengerType", "ALL", "segmentKey", segment_key(p, o, bags[i].journey, 0),
            "pricing", lf_money(bags[i].unit, o->currency),
            "bagType", checked ? "checked" : "cabin", "pieces", bags[i].max_qty,
            "weightKg", bags[i].weight_kg));
        if (internal) {
            json_array_append_new(*internal, json_pack("{s:s,s:i,s:i,s:i,s:I}", "serviceId",
                sid, "journey", bags[i].journey, "max", bags[i].max_qty, "weight",
                bags[i].weight_kg, "unit", (json_int_t)bags[i].unit));
        }
    }
    return out;
}

static json_t *lf_offer(apr_pool_t *p, const sbx_offer *o)
{
    const sbx_brand *b = sbx_offer_brand(o);
    json_t *fares = json_array();
    int j, k;
    for (j = 0; j < o->q.nj; j++) {
        for (k = 0; k < o->it[j].n; k++) {
            json_array_append_new(fares, json_pack("{s:s,s:s,s:s,s:s,s:i,s:s}",
                "bookingCode", o->q.cabin >= SBX_BUSINESS ? "J" : "Y",
                "cabin", sbx_cabin_display(o->q.cabin),
                "fareBasisCode", apr_psprintf(p, "%c%sSBX", o->q.cabin >= SBX_BUSINESS ? 'J' : 'Y',
                                              b->name),
                "fareFamily", b->name, "seatsRemaining", 9,
                "segmentKey", segment_key(p, o, j, k)));
        }
    }
    return json_pack("{s:s,s:s,s:{s:o,s:b},s:{s:s,s:b,s:i},s:o,s:{s:s,s:s},s:o,s:o,s:[]}",
        "offerId", o->ref, "expiration", sbx_instant(p, o->expires),
        "pricing", "display", lf_display(o->base, o->tax, o->currency), "converted", 0,
        "fare", "family", b->name, "mixedCabin", 0, "seatsRemaining", 9,
        "terms", lf_terms(p, o),
        "provider", "code", "SANDBOX", "logo", sbx_logo_url(p, "1T"),
        "baggage", lf_included(o), "segmentFares", fares, "segmentAmenities");
}

static json_t *lf_journey(apr_pool_t *p, const sbx_world *w, const sbx_offer *o, int cheapest)
{
    json_t *conns, *segs = lf_segments(p, w, o, &conns), *durs = json_array(), *offer;
    int j, total = 0;
    for (j = 0; j < o->q.nj; j++) {
        const sbx_itin *it = &o->it[j];
        int m = sbx_itin_minutes(it);
        total += m;
        json_array_append_new(durs, json_pack("{s:s,s:o,s:i,s:b}", "direction",
            direction_of(j), "duration", lf_duration(m), "dayChange",
            (int)(it->legs[it->n - 1].arr_local / 86400 - it->legs[0].dep_local / 86400),
            "overnightFlight", it->legs[it->n - 1].arr_local / 86400
                                   != it->legs[0].dep_local / 86400));
    }
    offer = lf_offer(p, o);
    return json_pack("{s:s,s:b,s:O,s:[o],s:o,s:{s:i,s:i,s:i},s:s,s:o,s:o,s:o}",
        "journeyKey", o->tag, "isCheapest", cheapest, "cheapestOffer", offer,
        "offers", offer, "segments", segs,
        "parameters", "adults", o->q.adults, "children", o->q.children,
        "infants", o->q.infants, "timestamp", sbx_instant(p, sbx_now()),
        "legDurations", durs, "totalDuration", lf_duration(total), "connections", conns);
}

/* ---- search ---- */

static int count_of(const json_t *body, const char *name, int dflt, int *out)
{
    const json_t *v = json_object_get(body, name);
    if (!v) {
        *out = dflt;
        return 1;
    }
    *out = json_is_integer(v) ? (int)json_integer_value(v) : -1;
    return json_is_integer(v) && *out >= 0;
}

static int currency_ok(const char *c)
{
    return c && strlen(c) == 3 && c[0] >= 'A' && c[0] <= 'Z' && c[1] >= 'A' && c[1] <= 'Z'
           && c[2] >= 'A' && c[2] <= 'Z';
}

static void rates(trv_req *req, trv_resp *resp)
{
    const sbx_ctx *x = SBX(req);
    const json_t *body, *legs;
    const char *reason, *field, *cabin;
    sbx_search q;
    sbx_offer *offers;
    json_t *journeys, *sort;
    int n, truncated, i, bad;
    apr_int64_t now = sbx_now();

    if (!sbx_need_world(req, resp) || !(body = sbx_body(req, resp))) {
        return;
    }
    memset(&q, 0, sizeof(q));
    legs = json_object_get(body, "legs");
    if (!json_is_array(legs) || json_array_size(legs) < 1) {
        lf_error(req, resp, 400, 41002, "required search field is missing",
                 "field 'Legs' failed validation 'min'", "bodyRequest.legs");
        return;
    }
    if (json_array_size(legs) > SBX_MAX_JOURNEYS) {
        lf_error(req, resp, 400, 41012, "search input validation error",
                 "at most 4 legs", "bodyRequest.legs");
        return;
    }
    q.nj = (int)json_array_size(legs);
    for (i = 0; i < q.nj; i++) {
        const json_t *l = json_array_get(legs, (size_t)i);
        q.j[i].origin = sbx_airport_find(x->world, trv_json_str(l, "origin"));
        q.j[i].dest = sbx_airport_find(x->world, trv_json_str(l, "destination"));
        q.j[i].day = sbx_day_parse(trv_json_str(l, "date"));
        if (q.j[i].origin < 0 || q.j[i].dest < 0 || q.j[i].day < 0) {
            lf_error(req, resp, 400, 41012, "search input validation error",
                     "origin and destination must be IATA airport codes and date a date "
                     "YYYY-MM-DD", apr_psprintf(req->pool, "bodyRequest.legs[%d]", i));
            return;
        }
    }
    if (!json_is_integer(json_object_get(body, "adults"))) {
        lf_error(req, resp, 400, 41002, "required search field is missing",
                 "field 'Adults' is required", "bodyRequest.adults");
        return;
    }
    q.adults = (int)json_integer_value(json_object_get(body, "adults"));
    if (q.adults < 1 || !count_of(body, "children", 0, &q.children)
        || !count_of(body, "infants", 0, &q.infants)) {
        lf_error(req, resp, 400, 41012, "search input validation error",
                 "adults must be at least 1; children and infants at least 0",
                 "bodyRequest.adults");
        return;
    }
    if (q.infants > q.adults) {
        lf_error(req, resp, 400, 41012, "search input validation error",
                 "number of infants cannot exceed number of adults, each infant must be "
                 "accompanied by an adult", "bodyRequest.infants");
        return;
    }
    if (!currency_ok(trv_json_str(body, "currency"))) {
        lf_error(req, resp, 400, 41002, "required search field is missing",
                 "field 'Currency' is required (ISO 4217)", "bodyRequest.currency");
        return;
    }
    cabin = trv_json_str(body, "cabinClass");
    q.cabin = cabin ? sbx_cabin_parse(cabin) : SBX_ECONOMY;
    if (q.cabin < 0 || (cabin && strchr(cabin, ' '))) {
        lf_error(req, resp, 400, 41012, "search input validation error",
                 "cabinClass must be ECONOMY, PREMIUM_ECONOMY, BUSINESS or FIRST",
                 "bodyRequest.cabinClass");
        return;
    }
    if ((reason = sbx_search_check(x->world, &q, (long)(now / 86400), &field, &bad))) {
        lf_error(req, resp, 400, 41012, "search input validation error", reason,
                 strcmp(field, "passengers") == 0 ? "bodyRequest.adults"
                 : bad < 0 ? "bodyRequest.legs"
                           : apr_psprintf(req->pool, "bodyRequest.legs[%d]", bad));
        return;
    }
    n = sbx_search_run(req->pool, x->world, &q, 'B', x->set->key_b, now,
                       apr_time_sec(x->set->offer_ttl_b), B_MAX_RESULTS, sbx_nonce(), &offers,
                       &truncated);
    journeys = json_array();
    for (i = 0; i < n; i++) {
        json_array_append_new(journeys, lf_journey(req->pool, x->world, &offers[i], i == 0));
    }
    sort = json_object();
    if (n) {
        json_t *best = json_pack("{s:s,s:s,s:o,s:s}", "journeyKey", offers[0].tag,
                                 "offerId", offers[0].ref,
                                 "price", lf_num(offers[0].base + offers[0].tax,
                                                 offers[0].currency),
                                 "currency", offers[0].currency);
        json_object_set(sort, "best", best);
        json_object_set_new(sort, "price", best);
    }
    sbx_send(req, resp, 200, json_pack("{s:[{s:o,s:o}]}", "data", "journeys", journeys,
                                       "sortMetadata", sort));
}

static int load_offer(trv_req *req, trv_resp *resp, const char *id, sbx_offer *o)
{
    const sbx_ctx *x = SBX(req);
    apr_int64_t now = sbx_now();
    if (!id || !*id) {
        lf_error(req, resp, 400, 43001, "required prebook field is missing",
                 "field 'OfferID' is required", "bodyRequest.offerId");
        return 0;
    }
    if (sbx_offer_decode(req->pool, x->world, id, 'B', x->set->key_b, now, o) != 0) {
        lf_error(req, resp, 400, 43007, "invalid parameters: invalid ID format",
                 "Invalid prebook parameters: the ID format is invalid", "bodyRequest.offerId");
        return 0;
    }
    if (o->expires <= now) {
        lf_error(req, resp, 404, 43004, "offer expired",
                 "The offer has expired. Please search for new flights", "bodyRequest.offerId");
        return 0;
    }
    return 1;
}

/* POST /flights/verify: the offer as it is now. Its baggage is what the
 * fare includes (hasCarryOnBag, hasCheckedBag, included), as LiteAPI's:
 * the bags for sale are the checkout's (the prebook's servicesAttachable),
 * never the offer's. */
static void verify(trv_req *req, trv_resp *resp)
{
    const json_t *body;
    sbx_offer o;
    json_t *j, *bag;
    if (!sbx_need_world(req, resp) || !(body = sbx_body(req, resp))
        || !load_offer(req, resp, trv_json_str(body, "offerId"), &o)) {
        return;
    }
    j = lf_journey(req->pool, SBX(req)->world, &o, 1);
    bag = lf_included(&o);
    sbx_send(req, resp, 200, json_pack(
        "{s:[{s:{s:O,s:s,s:s,s:O,s:O,s:o,s:O,s:{s:i,s:i,s:i},s:O,s:O,s:O},s:n}]}",
        "data", "journey", "journeyKey", json_object_get(j, "journeyKey"),
        "expiration", sbx_instant(req->pool, o.expires),
        "timestamp", sbx_instant(req->pool, sbx_now()),
        "provider", json_object_get(json_object_get(j, "cheapestOffer"), "provider"),
        "pricing", json_object_get(json_object_get(j, "cheapestOffer"), "pricing"),
        "baggage", bag, "fare", json_object_get(json_object_get(j, "cheapestOffer"), "fare"),
        "passengers", "adults", o.q.adults, "children", o.q.children, "infants", o.q.infants,
        "segments", json_object_get(j, "segments"),
        "segmentFares", json_object_get(json_object_get(j, "cheapestOffer"), "segmentFares"),
        "terms", json_object_get(json_object_get(j, "cheapestOffer"), "terms"),
        "changes"));
    json_decref(j);
}

/* ---- prebooks: the checkout ---- */

static int pax_type_of(const json_t *p)
{
    const json_t *t = json_object_get(p, "passengerType");
    return json_is_integer(t) ? (int)json_integer_value(t) : 0;
}

/* The prebook answer from its row: the stored wire document with what the
 * row knows now (hold, expiry). */
static json_t *prebook_json(apr_pool_t *p, const trv_rows *r)
{
    json_t *doc = json_loads(trv_rows_get(r, 0, "doc"), 0, NULL), *pb, *bk;
    const char *cur = trv_rows_get(r, 0, "currency");
    int held = trv_rows_bool(r, 0, "held");
    (void)p;
    if (!doc) {
        return NULL;
    }
    pb = json_incref(json_object_get(doc, "wire"));
    json_decref(doc);
    if (!pb) {
        return NULL;
    }
    bk = json_object_get(pb, "booking");
    json_object_set_new(pb, "prebookId", json_string(trv_rows_get(r, 0, "id")));
    json_object_set_new(pb, "price", lf_num(apr_atoi64(trv_rows_get(r, 0, "total_minor")),
                                            cur));
    json_object_set_new(pb, "currency", json_string(cur));
    json_object_set_new(bk, "ticketLimitTime", held
                            ? json_string(trv_rows_get(r, 0, "expires_at")) : json_null());
    json_object_set_new(bk, "status", json_string(trv_rows_get(r, 0, "order_id")
                                                      ? "CONFIRMED" : "PENDING_CONFIRMATION"));
    json_object_set_new(json_object_get(pb, "servicesAttachable"), "expiresAt",
                        json_string(trv_rows_get(r, 0, "expires_at")));
    return pb;
}

static char *random_hex(apr_pool_t *p, int n)
{
    const char *id = trv_id_new(p, "x");
    char *out = apr_pcalloc(p, (apr_size_t)n + 1);
    int i, k = 0;
    for (i = 0; id[i] && k < n; i++) {
        if ((id[i] >= '0' && id[i] <= '9') || (id[i] >= 'a' && id[i] <= 'f')) {
            out[k++] = id[i];
        }
    }
    return out;
}

/* A fresh Stripe-like payment intent on the prebook: transactionId and the
 * client secret the payment SDK confirms it with. */
static void new_intent(apr_pool_t *p, json_t *wire)
{
    const char *pi = apr_pstrcat(p, "pi_", random_hex(p, 24), NULL);
    json_object_set_new(wire, "transactionId", json_string(apr_pstrcat(p, "tr_", pi + 3, NULL)));
    json_object_set_new(wire, "secretKey", json_string(apr_pstrcat(p, pi, "_secret_",
                                                                   random_hex(p, 16), NULL)));
    json_object_set_new(wire, "publishableKey", json_string("pk_test_sandbox"));
}

static void create_prebook(trv_req *req, trv_resp *resp)
{
    const sbx_ctx *x = SBX(req);
    const json_t *body, *pax, *contact;
    sbx_offer o;
    int count, held;
    json_t *passengers, *doc, *wire, *out, *services, *internal, *journey, *segs;
    apr_int64_t now = sbx_now(), expires, dep;
    const char *id = trv_id_new(req->pool, "pb"), *trigger = NULL;
    trv_dbc *c;
    trv_rows *rows;
    size_t i;
    int confirm = 0;

    if (!sbx_need_world(req, resp) || !(body = sbx_body(req, resp))
        || !load_offer(req, resp, trv_json_str(body, "offerId"), &o)) {
        return;
    }
    if (!json_is_true(json_object_get(body, "usePaymentSdk"))) {
        lf_error(req, resp, 400, 43012, "invalid parameters: payment",
                 "usePaymentSdk must be true: this account has no credit line with payment "
                 "bypass", "bodyRequest.usePaymentSdk");
        return;
    }
    contact = json_object_get(body, "contact");
    if (!json_is_object(contact) || !trv_json_str(contact, "email")
        || !trv_json_str(contact, "firstName") || !trv_json_str(contact, "lastName")
        || !trv_json_str(contact, "phoneNumber")) {
        lf_error(req, resp, 400, 43001, "required prebook field is missing",
                 "contact needs email, firstName, lastName and phoneNumber",
                 "bodyRequest.contact");
        return;
    }
    count = sbx_pax_count(&o);
    pax = json_object_get(body, "passengers");
    if (!json_is_array(pax) || (int)json_array_size(pax) != count) {
        lf_error(req, resp, 400, 43001, "required prebook field is missing",
                 apr_psprintf(req->pool, "passengers must list the offer's %d passengers",
                              count), "bodyRequest.passengers");
        return;
    }
    passengers = trv_json_bind(req->pool, json_array());
    for (i = 0; i < json_array_size(pax); i++) {
        const json_t *t = json_array_get(pax, i);
        const char *first = trv_json_str(t, "firstName"), *last = trv_json_str(t, "lastName");
        const char *birth = trv_json_str(t, "birthday");
        int want = sbx_pax_type(&o, (int)i);
        apr_time_t bt;
        const json_t *lp = json_object_get(t, "loyaltyPrograms");
        if (pax_type_of(t) != want) {
            lf_error(req, resp, 400, 43010, "invalid parameters: passenger type",
                     apr_psprintf(req->pool, "passenger %d must be passengerType %d (adults, "
                                  "then children, then infants)", (int)i, want),
                     apr_psprintf(req->pool, "bodyRequest.passengers[%d].passengerType",
                                  (int)i));
            return;
        }
        if (!first || !*first || !last || !*last || !birth
            || trv_date_parse(birth, &bt) != APR_SUCCESS || (lp && !json_is_array(lp))) {
            lf_error(req, resp, 400, 43010, "invalid parameters: passenger",
                     "firstName, lastName and birthday (YYYY-MM-DD) are required; "
                     "loyaltyPrograms is a list",
                     apr_psprintf(req->pool, "bodyRequest.passengers[%d]", (int)i));
            return;
        }
        if (!trigger) {
            trigger = sbx_trigger_of(last);
        }
        /* Its own switch (it combines with the other triggers). */
        confirm = confirm || strcasecmp(last, B_CONFIRM_TRIGGER) == 0;
        json_array_append_new(passengers, json_pack(
            "{s:s,s:s,s:s,s:s,s:s,s:O*,s:O*,s:i,s:O*}",
            "type", pax_codes[want], "firstName", first, "lastName", last,
            "dateOfBirth", birth, "birthday", birth, "gender", json_object_get(t, "gender"),
            "nationality", json_object_get(t, "nationality"), "passengerType", want,
            "loyaltyPrograms", lp));
    }
    /* The airline holds seats unless the flight is too close. */
    dep = o.it[0].legs[0].dep_utc;
    held = dep - now >= B_HOLD_MIN_AHEAD;
    expires = held ? now + apr_time_sec(x->set->hold_ttl) : now + B_CHECKOUT_TTL;
    if (held && expires > dep - 24 * 3600) {
        expires = dep - 24 * 3600;
    }
    services = lf_services(req->pool, &o, &internal);
    journey = lf_journey(req->pool, x->world, &o, 1);
    segs = json_array();
    {
        int j, k;
        for (j = 0; j < o.q.nj; j++) {
            for (k = 0; k < o.it[j].n; k++) {
                json_array_append_new(segs, sbx_segment_entry(req->pool, x->world, j, k,
                                                              segment_key(req->pool, &o, j, k),
                                                              &o.it[j].legs[k]));
            }
        }
    }
    {
        /* The booking's baggage is the fare's; the bags for sale are
         * servicesAttachable's. */
        json_t *bag = lf_included(&o), *offer = json_object_get(journey, "cheapestOffer");
        /* passengers is the pool's (bound above, for the early answers):
         * "O", never "o", or the pool frees it a second time. */
        wire = json_pack(
            "{s:{s:s,s:s,s:s,s:s,s:s,s:{s:O,s:O,s:O,s:O,s:o,s:O},s:O,s:O,"
            "s:{s:o,s:o,s:o,s:o,s:o,s:s},s:[],s:[]},s:{s:[{s:s,s:o}]},s:s,s:[s]}",
            "booking", "bookingId", id, "offerId", trv_json_str(body, "offerId"),
            "paymentStatus", "pending", "providerEnvironment", "sandbox",
            "timestamp", sbx_instant(req->pool, now),
            "journey", "journeyKey", json_object_get(journey, "journeyKey"),
            "segments", json_object_get(journey, "segments"),
            "price", json_object_get(json_object_get(offer, "pricing"), "display"),
            "pricing", json_object_get(offer, "pricing"), "baggage", bag,
            "terms", json_object_get(offer, "terms"),
            "passengers", passengers, "contact", contact,
            "pricing", "subtotal", lf_num(o.base + o.tax, o.currency),
            "servicesAmount", lf_num(0, o.currency), "seatsAmount", lf_num(0, o.currency),
            "baggageAmount", lf_num(0, o.currency),
            "totalAmount", lf_num(o.base + o.tax, o.currency), "currency", o.currency,
            "selectedServices", "bookedServices",
            "servicesAttachable", "groups", "label", "Baggage", "services", services,
            "offerId", trv_json_str(body, "offerId"), "paymentTypes", "TRANSACTION_ID");
    }
    json_decref(journey);
    new_intent(req->pool, wire);
    doc = trv_json_bind(req->pool, json_pack(
        "{s:o,s:s?,s:{s:b,s:b,s:I,s:I,s:I,s:b,s:I,s:s,s:o,s:o}}",
        "wire", wire, "test_trigger", trigger,
        "_sbx", "confirm_intent", confirm, "intent_confirmed", 0,
        "base", (json_int_t)(o.base + o.tax), "tax", (json_int_t)o.tax,
        "services", (json_int_t)0, "refund_allowed", sbx_offer_brand(&o)->refund_allowed,
        "refund_penalty", (json_int_t)sbx_offer_refund_penalty(&o),
        "brand", sbx_offer_brand(&o)->name, "bags", internal, "segments", segs));

    if (!sbx_idem_begin(req, resp, &c, 942, "creating a prebook")) {
        return;
    }
    if (trv_db_exec(c, req->pool, &b_checkout_insert, NULL, TRV_DB_ARGS(
            id, trv_json_str(body, "offerId"), held ? "held" : "open", held ? "t" : "f",
            apr_psprintf(req->pool, "%" APR_INT64_T_FMT, expires), o.currency,
            apr_psprintf(req->pool, "%" APR_INT64_T_FMT, o.base + o.tax),
            trv_json_dump(req->pool, doc))) != APR_SUCCESS
        || trv_db_select(c, req->pool, &b_checkout_get, &rows, TRV_DB_ARGS(id)) != APR_SUCCESS
        || rows->n != 1 || !(out = prebook_json(req->pool, rows))) {
        sbx_db_fail(req, resp, c, 944, "creating a prebook");
        return;
    }
    sbx_idem_finish(req, resp, c, 200, trv_json_bind(req->pool, json_pack("{s:[o]}", "data",
                                                                          out)),
                    945, "creating a prebook");
}

static void get_prebook(trv_req *req, trv_resp *resp)
{
    const char *id = apr_table_get(req->params, "id");
    trv_dbc *c;
    trv_rows *rows;
    json_t *out;
    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS) {
        sbx_db_fail(req, resp, NULL, 946, "reading a prebook");
        return;
    }
    if (trv_db_select(c, req->pool, &b_checkout_get, &rows, TRV_DB_ARGS(id)) != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 947, "reading a prebook");
        return;
    }
    trv_db_close(req->env->db, c);
    if (rows->n == 0 || !(out = prebook_json(req->pool, rows))) {
        lf_error(req, resp, 404, 45033, "booking not found", "the prebook was not found",
                 "pathParam.prebookId");
        return;
    }
    sbx_send(req, resp, 200, json_pack("{s:[o]}", "data", out));
}

/* The prebook of a path, locked in c's transaction; 0 (answered) when it
 * is unknown, booked or expired. */
static int open_prebook(trv_req *req, trv_resp *resp, trv_dbc *c, const char *id,
                        trv_rows **rows, int booked_ok)
{
    if (trv_db_select(c, req->pool, &b_checkout_lock, rows, TRV_DB_ARGS(id)) != APR_SUCCESS
        || trv_db_select(c, req->pool, &b_checkout_get, rows, TRV_DB_ARGS(id)) != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 951, "reading a prebook");
        return 0;
    }
    if ((*rows)->n == 0) {
        trv_db_rollback(c);
        trv_db_close(req->env->db, c);
        lf_error(req, resp, 404, 45033, "booking not found", "the prebook was not found",
                 "bodyRequest.prebookId");
        return 0;
    }
    if (trv_rows_get(*rows, 0, "order_id")) {
        if (booked_ok) {
            return 1;
        }
        trv_db_rollback(c);
        trv_db_close(req->env->db, c);
        lf_error(req, resp, 409, 45087, "conflict: already ticketed",
                 "The booking has already been ticketed", "pathParam.prebookId");
        return 0;
    }
    if (trv_rows_bool(*rows, 0, "expired")) {
        trv_db_rollback(c);
        trv_db_close(req->env->db, c);
        lf_error(req, resp, 404, 45084, "expired: booking expired", "The booking has expired",
                 "bodyRequest.prebookId");
        return 0;
    }
    return 1;
}

static void attach_services(trv_req *req, trv_resp *resp)
{
    const char *id = apr_table_get(req->params, "id");
    const json_t *body, *sel;
    json_t *doc, *wire, *meta, *bags, *selected, *bookedsvc, *out, *price;
    trv_dbc *c;
    trv_rows *rows;
    apr_int64_t added = 0, services;
    const char *cur;
    int npax;
    size_t i, k;

    if (!(body = sbx_body(req, resp))) {
        return;
    }
    sel = json_object_get(body, "selectedServices");
    if (!json_is_array(sel) || json_array_size(sel) == 0) {
        lf_error(req, resp, 400, 44001, "required field is missing",
                 "selectedServices must list at least one service",
                 "bodyRequest.selectedServices");
        return;
    }
    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS
        || trv_db_begin(c, req->pool) != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 949, "attaching services");
        return;
    }
    if (!open_prebook(req, resp, c, id, &rows, 0)) {
        return;
    }
    cur = trv_rows_get(rows, 0, "currency");
    doc = trv_json_parse(req->pool, trv_rows_get(rows, 0, "doc"),
                         strlen(trv_rows_get(rows, 0, "doc")), NULL);
    wire = json_object_get(doc, "wire");
    meta = json_object_get(doc, "_sbx");
    bags = json_object_get(meta, "bags");
    selected = json_object_get(json_object_get(wire, "booking"), "selectedServices");
    bookedsvc = json_object_get(json_object_get(wire, "booking"), "bookedServices");
    npax = (int)json_array_size(json_object_get(json_object_get(wire, "booking"),
                                                "passengers"));
    for (i = 0; i < json_array_size(sel); i++) {
        const json_t *s = json_array_get(sel, i), *bag = NULL, *pt;
        const char *sid = trv_json_str(s, "serviceId");
        json_int_t pax = json_integer_value(json_object_get(s, "passengerIndex"));
        json_int_t qty = json_is_integer(json_object_get(s, "quantity"))
                       ? json_integer_value(json_object_get(s, "quantity")) : 1;
        const char *key = apr_psprintf(req->pool, "bodyRequest.selectedServices[%d]", (int)i);
        for (k = 0; sid && k < json_array_size(bags); k++) {
            if (strcmp(trv_json_str(json_array_get(bags, k), "serviceId"), sid) == 0) {
                bag = json_array_get(bags, k);
            }
        }
        pt = json_object_get(json_array_get(json_object_get(json_object_get(wire, "booking"),
                                                            "passengers"), (size_t)pax),
                             "passengerType");
        if (!bag || pax < 0 || pax >= npax || json_integer_value(pt) == 2) {
            trv_db_rollback(c);
            trv_db_close(req->env->db, c);
            lf_error(req, resp, 400, 44002, "invalid parameters: service",
                     "serviceId must be one of servicesAttachable and passengerIndex a "
                     "passenger (not an infant) of the prebook", key);
            return;
        }
        for (k = 0; k < json_array_size(selected); k++) {
            const json_t *e = json_array_get(selected, k);
            if (strcmp(trv_json_str(e, "serviceId"), sid) == 0
                && json_integer_value(json_object_get(e, "passengerIndex")) == pax) {
                bag = NULL;
            }
        }
        if (!bag || qty < 1 || qty > json_integer_value(json_object_get(bag, "max"))) {
            trv_db_rollback(c);
            trv_db_close(req->env->db, c);
            lf_error(req, resp, 400, 44002, "invalid parameters: service",
                     "a service is attached once per passenger, quantity 1 to its pieces", key);
            return;
        }
        added += (apr_int64_t)json_integer_value(json_object_get(bag, "unit")) * qty;
        json_array_append_new(selected, json_pack("{s:I,s:s,s:I}", "passengerIndex", pax,
                                                  "serviceId", sid, "quantity", qty));
        {
            int checked = sid[strlen(sid) - 1] == 'c';
            const char *jkey = trv_json_str(json_object_get(json_object_get(wire, "booking"),
                                                            "journey"), "journeyKey");
            json_array_append_new(bookedsvc, json_pack(
                "{s:s,s:s,s:s,s:I,s:s,s:I,s:s,s:s,s:s,s:o,s:s,s:I,s:O}",
                "serviceId", sid, "name", checked ? "Checked bag" : "Cabin bag",
                "passengerType", "ALL", "passengerIndex", pax,
                "segmentKey", apr_psprintf(req->pool, "fl_%s-%d-1", jkey ? jkey : "",
                                           (int)json_integer_value(json_object_get(bag,
                                                                                   "journey"))
                                               + 1),
                "quantity", qty, "createdAt", sbx_instant(req->pool, sbx_now()),
                "phase", "pre_booking", "status", "pending",
                "pricing", lf_money((apr_int64_t)json_integer_value(json_object_get(bag, "unit"))
                                        * qty, cur),
                "bagType", checked ? "checked" : "cabin", "pieces", qty,
                "weightKg", json_object_get(bag, "weight")));
        }
    }
    services = (apr_int64_t)json_integer_value(json_object_get(meta, "services")) + added;
    json_object_set_new(meta, "services", json_integer((json_int_t)services));
    price = json_object_get(json_object_get(wire, "booking"), "pricing");
    json_object_set_new(price, "servicesAmount", lf_num(services, cur));
    json_object_set_new(price, "baggageAmount", lf_num(services, cur));
    json_object_set_new(price, "totalAmount",
                        lf_num(json_integer_value(json_object_get(meta, "base")) + services, cur));
    new_intent(req->pool, wire);
    json_object_set_new(meta, "intent_confirmed", json_false()); /* a new intent: unpaid */
    if (trv_db_exec(c, req->pool, &b_checkout_update, NULL, TRV_DB_ARGS(
            trv_json_dump(req->pool, doc),
            apr_psprintf(req->pool, "%" APR_INT64_T_FMT,
                         (apr_int64_t)json_integer_value(json_object_get(meta, "base"))
                             + services), id))
            != APR_SUCCESS
        || trv_db_select(c, req->pool, &b_checkout_get, &rows, TRV_DB_ARGS(id)) != APR_SUCCESS
        || rows->n != 1 || !(out = prebook_json(req->pool, rows))
        || trv_db_commit(c) != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 952, "attaching services");
        return;
    }
    trv_db_close(req->env->db, c);
    sbx_send(req, resp, 200, json_pack("{s:[o]}", "data", out));
}

/* ---- bookings ---- */

static const char *booking_status(const char *order_status)
{
    if (strcmp(order_status, "ticketed") == 0) {
        return "TICKETED";
    }
    if (strcmp(order_status, "pending") == 0) {
        return "PENDING";
    }
    return "CANCELLED"; /* cancelled, or failed: never issued */
}

static json_t *booking_json(apr_pool_t *p, const trv_rows *r)
{
    const char *status = trv_rows_get(r, 0, "status"), *cur = trv_rows_get(r, 0, "currency");
    const char *canc = trv_rows_get(r, 0, "cancellation");
    json_t *doc = json_loads(trv_rows_get(r, 0, "doc"), 0, NULL), *bk, *wire, *airlines;
    const json_t *segs;
    apr_int64_t total = apr_atoi64(trv_rows_get(r, 0, "total_minor"));
    const char *pnr = trv_rows_get(r, 0, "pnr");
    int failed = strcmp(status, "failed") == 0;
    size_t i;
    if (!doc || !(wire = json_object_get(doc, "wire"))) {
        json_decref(doc);
        return NULL;
    }
    bk = json_deep_copy(json_object_get(wire, "booking"));
    json_decref(doc);
    json_object_set_new(bk, "bookingId", json_string(trv_rows_get(r, 0, "id")));
    json_object_set_new(bk, "bookingRef", json_string(apr_psprintf(p, "FH-SBX-%s", pnr)));
    json_object_set_new(bk, "status", json_string(booking_status(status)));
    json_object_set_new(bk, "timestamp", json_string(trv_rows_get(r, 0, "created_at")));
    json_object_set_new(bk, "paymentStatus", json_string(failed ? "failed" : "completed"));
    json_object_set_new(bk, "lastRefreshedAt", json_string(sbx_instant(p, sbx_now())));
    airlines = json_array();
    segs = json_object_get(json_object_get(bk, "journey"), "segments");
    for (i = 0; !failed && i < json_array_size(segs); i++) {
        const json_t *c = json_object_get(json_array_get(segs, i), "carrier");
        const char *code = trv_json_str(c, "marketingCode");
        size_t k, seen = 0;
        for (k = 0; k < json_array_size(airlines); k++) {
            seen |= code && strcmp(trv_json_str(json_array_get(airlines, k), "airlineCode"),
                                   code) == 0;
        }
        if (code && !seen) {
            json_array_append_new(airlines, json_pack("{s:s,s:s?,s:s,s:s}", "airlineCode", code,
                "airlineName", trv_json_str(c, "marketingName"), "airlinePnr", pnr, "pnr", pnr));
        }
    }
    json_object_set_new(bk, "order", json_pack(
        "{s:{s:s,s:{s:s,s:s?},s:O},s:s,s:s,s:{s:s,s:o},s:s}",
        "reference", "orderId", trv_rows_get(r, 0, "id"), "provider", "code", "SANDBOX",
        "pnr", failed ? NULL : pnr, "airlineBookings", airlines, "currency", cur,
        "status", failed ? "failed" : strcmp(status, "pending") == 0 ? "created" : status,
        "price", "currency", cur, "total", lf_num(total, cur),
        "timestamp", trv_rows_get(r, 0, "created_at")));
    json_object_set_new(bk, "airlineLocators", json_array());
    for (i = 0; i < json_array_size(airlines); i++) {
        json_array_append_new(json_object_get(bk, "airlineLocators"), json_pack("{s:O,s:O}",
            "airlineCode", json_object_get(json_array_get(airlines, i), "airlineCode"),
            "airlinePnr", json_object_get(json_array_get(airlines, i), "airlinePnr")));
    }
    json_object_set_new(bk, "payment", failed ? json_null()
                        : json_pack("{s:o,s:s}", "amount", lf_num(total, cur), "currency", cur));
    json_object_set_new(bk, "paymentInput", json_loads(trv_rows_get(r, 0, "payment")
                                                           ? trv_rows_get(r, 0, "payment")
                                                           : "null", JSON_DECODE_ANY, NULL));
    json_object_set_new(bk, "ticketData", strcmp(status, "ticketed") == 0 || canc
        ? json_pack("{s:s,s:s,s:s,s:s}", "confirmationId", pnr, "ticketedAt",
                    trv_rows_get(r, 0, "created_at"), "provider", "SANDBOX", "source", "sandbox")
        : json_null());
    if (failed) {
        json_object_set_new(bk, "remarks", json_pack("[{s:s}]", "value",
            "The airline could not issue the tickets (test trigger Failticket)"));
    }
    return bk;
}

static int booking_answer(trv_req *req, trv_resp *resp, trv_dbc *c, const char *order_id,
                          json_t **out)
{
    trv_rows *rows;
    json_t *b;
    if (sbx_order_get(c, req->pool, order_id, 'B', &rows) != APR_SUCCESS || rows->n != 1
        || !(b = booking_json(req->pool, rows))) {
        sbx_db_fail(req, resp, c, 948, "reading a booking");
        return 0;
    }
    *out = trv_json_bind(req->pool, json_pack("{s:[{s:o}]}", "data", "booking", b));
    return 1;
}

static void book(trv_req *req, trv_resp *resp)
{
    const sbx_ctx *x = SBX(req);
    const json_t *body, *pay;
    const char *id, *order_id = trv_id_new(req->pool, "bo"), *trigger, *method, *tx;
    trv_dbc *c;
    trv_rows *rows;
    json_t *doc, *meta, *wire, *out;
    sbx_order_new ord;
    int dup;

    if (!(body = sbx_body(req, resp))) {
        return;
    }
    id = trv_json_str(body, "prebookId");
    pay = json_object_get(body, "payment");
    method = trv_json_str(pay, "method");
    tx = trv_json_str(pay, "transactionId");
    if (!id || !*id) {
        lf_error(req, resp, 400, 45001, "required booking field is missing",
                 "field 'PrebookID' is required", "bodyRequest.prebookId");
        return;
    }
    if (!method || (strcmp(method, "TRANSACTION_ID") != 0 && strcmp(method, "CREDIT") != 0)) {
        lf_error(req, resp, 400, 45001, "required booking field is missing",
                 "payment.method must be TRANSACTION_ID or CREDIT", "bodyRequest.payment.method");
        return;
    }
    if (strcmp(method, "CREDIT") == 0) {
        /* The reference publishes no code for this refusal (its 45040 is
         * a rejected card): 45090 is the sandbox's own. */
        lf_error(req, resp, 403, 45090, "forbidden: credit line",
                 "This account has no enabled credit line", "bodyRequest.payment.method");
        return;
    }
    if (!sbx_idem_begin(req, resp, &c, 949, "booking a prebook")) {
        return;
    }
    if (!open_prebook(req, resp, c, id, &rows, 1)) {
        return;
    }
    if (trv_rows_get(rows, 0, "order_id")) {
        /* Booked before: LiteAPI answers the existing booking. */
        if (!booking_answer(req, resp, c, trv_rows_get(rows, 0, "order_id"), &out)) {
            return;
        }
        trv_db_rollback(c);
        trv_db_close(req->env->db, c);
        json_object_set_new(json_array_get(json_object_get(out, "data"), 0), "message",
                            json_string("A booking already exists for this prebookId"));
        sbx_send(req, resp, 200, json_incref(out));
        return;
    }
    doc = trv_json_parse(req->pool, trv_rows_get(rows, 0, "doc"),
                         strlen(trv_rows_get(rows, 0, "doc")), NULL);
    wire = json_object_get(doc, "wire");
    meta = json_object_get(doc, "_sbx");
    if (!tx || strcmp(tx, trv_json_str(wire, "transactionId")) != 0) {
        trv_db_rollback(c);
        trv_db_close(req->env->db, c);
        lf_error(req, resp, 400, 45030, "invalid parameters: transaction",
                 "payment.transactionId is not the prebook's current payment intent",
                 "bodyRequest.payment.transactionId");
        return;
    }
    if (json_is_true(json_object_get(meta, "confirm_intent"))
        && !json_is_true(json_object_get(meta, "intent_confirmed"))) {
        /* Nothing is booked: the traveller can still pay and book again. */
        trv_db_rollback(c);
        trv_db_close(req->env->db, c);
        lf_error(req, resp, 402, 45031, "payment required: transaction not confirmed",
                 "the payment intent of payment.transactionId has not been confirmed with "
                 "the payment SDK", "bodyRequest.payment.transactionId");
        return;
    }
    trigger = trv_json_str(doc, "test_trigger");
    trigger = trigger ? apr_pstrdup(req->pool, trigger) : NULL;
    memset(&ord, 0, sizeof(ord));
    ord.id = order_id;
    ord.supplier = 'B';
    ord.offer_ref = trv_rows_get(rows, 0, "fare_key");
    ord.checkout_id = id;
    ord.pnr = sbx_pnr(req->pool);
    ord.trigger = trigger;
    ord.brand = apr_pstrdup(req->pool, trv_json_str(meta, "brand"));
    ord.currency = trv_rows_get(rows, 0, "currency");
    ord.total = apr_atoi64(trv_rows_get(rows, 0, "total_minor"));
    ord.tax = (apr_int64_t)json_integer_value(json_object_get(meta, "tax"));
    ord.services = (apr_int64_t)json_integer_value(json_object_get(meta, "services"));
    ord.refund_allowed = json_is_true(json_object_get(meta, "refund_allowed"));
    ord.refund_penalty = (apr_int64_t)json_integer_value(json_object_get(meta, "refund_penalty"));
    ord.segments = json_object_get(meta, "segments");
    json_object_del(doc, "test_trigger");
    ord.doc = doc;
    ord.payment = trv_json_bind(req->pool, json_pack("{s:s,s:s}", "method", method,
                                                     "transactionId", tx));
    if (trigger && strcmp(trigger, "failticket") == 0) {
        /* Ticketing failed: the payment intent is cancelled, no charge. */
        ord.status = "failed";
        ord.failure = trv_json_bind(req->pool, json_pack("{s:s,s:s}", "code", "ticketing_failed",
            "message", "The airline could not issue the tickets (test trigger Failticket)"));
    }
    else if (trigger && strcmp(trigger, "async") == 0) {
        ord.status = "pending";
        ord.ticketing_in = x->set->async_ticketing;
    }
    else {
        ord.status = "ticketed";
    }
    if (sbx_order_insert(c, req->pool, &ord, &dup) != APR_SUCCESS || dup
        || trv_db_exec(c, req->pool, &b_checkout_complete, NULL, TRV_DB_ARGS(order_id, id))
               != APR_SUCCESS
        || !booking_answer(req, resp, c, order_id, &out)) {
        if (!resp->status) {
            sbx_db_fail(req, resp, c, 952, "booking a prebook");
        }
        return;
    }
    if (sbx_idem_save(req, c, 201, out) != APR_SUCCESS || trv_db_commit(c) != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 953, "booking a prebook");
        return;
    }
    trv_db_close(req->env->db, c);
    if (trigger && strcmp(trigger, "unknown") == 0) {
        trv_log_msg(&req->log, TRV_LOG_INFO, req->request_id,
                    TRVLOGNO(954) "sandbox B: booking %s made, hanging (test trigger Unknown)",
                    order_id);
        sbx_sleep(req, x->set->hang);
    }
    sbx_send(req, resp, 201, json_incref(out));
}

static void get_booking(trv_req *req, trv_resp *resp)
{
    const char *id = apr_table_get(req->params, "id");
    trv_dbc *c;
    trv_rows *rows;
    json_t *out;
    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS) {
        sbx_db_fail(req, resp, NULL, 955, "reading a booking");
        return;
    }
    if (sbx_order_get(c, req->pool, id, 'B', &rows) != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 956, "reading a booking");
        return;
    }
    if (rows->n == 0) {
        trv_db_close(req->env->db, c);
        lf_error(req, resp, 404, 47002, "booking not found", "The booking was not found",
                 "pathParam.bookingId");
        return;
    }
    if (!(out = booking_json(req->pool, rows))) {
        sbx_db_fail(req, resp, c, 957, "reading a booking");
        return;
    }
    trv_db_close(req->env->db, c);
    sbx_send(req, resp, 200, json_pack("{s:[{s:o}]}", "data", "booking", out));
}

/* The booking of a path for quoting or cancelling: ticketed, or answered. */
static int ticketed_booking(trv_req *req, trv_resp *resp, trv_dbc *c, trv_rows **rows)
{
    const char *id = apr_table_get(req->params, "id"), *status;
    if (sbx_order_get(c, req->pool, id, 'B', rows) != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 958, "reading a booking");
        return 0;
    }
    if ((*rows)->n == 0) {
        trv_db_rollback(c);
        trv_db_close(req->env->db, c);
        lf_error(req, resp, 404, 47002, "booking not found", "The booking was not found",
                 "pathParam.bookingId");
        return 0;
    }
    status = trv_rows_get(*rows, 0, "status");
    if (strcmp(status, "ticketed") != 0) {
        trv_db_rollback(c);
        trv_db_close(req->env->db, c);
        lf_error(req, resp, 409, 46009, "conflict: invalid state",
                 apr_psprintf(req->pool, "The booking is %s", booking_status(status)),
                 "pathParam.bookingId");
        return 0;
    }
    return 1;
}

static void cancel_terms(const trv_rows *rows, apr_int64_t *fee, apr_int64_t *refund)
{
    sbx_cancel_terms(trv_rows_bool(rows, 0, "refund_allowed"),
                     apr_atoi64(trv_rows_get(rows, 0, "refund_penalty")),
                     apr_atoi64(trv_rows_get(rows, 0, "total_minor")),
                     apr_atoi64(trv_rows_get(rows, 0, "tax_minor")), fee, refund);
}

/* GET .../cancellations: the quote. Basic fares' rules are filed with the
 * airline only: their quote is `unknown`, with no amounts. */
static void cancellation_quote(trv_req *req, trv_resp *resp)
{
    trv_dbc *c;
    trv_rows *rows;
    apr_int64_t fee, refund;
    const char *cur;
    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS) {
        sbx_db_fail(req, resp, NULL, 959, "quoting a cancellation");
        return;
    }
    if (!ticketed_booking(req, resp, c, &rows)) {
        return;
    }
    trv_db_close(req->env->db, c);
    cur = trv_rows_get(rows, 0, "currency");
    if (strcmp(trv_rows_get(rows, 0, "brand"), "Basic") == 0) {
        sbx_send(req, resp, 200, json_pack("{s:[{s:s,s:s,s:b,s:b,s:n,s:n,s:s}]}", "data",
            "bookingId", trv_rows_get(rows, 0, "id"), "confidence", "unknown",
            "isRefundable", 0, "isVoidable", 0, "refund", "penalty",
            "destination", "original_payment"));
        return;
    }
    cancel_terms(rows, &fee, &refund);
    sbx_send(req, resp, 200, json_pack("{s:[{s:s,s:s,s:b,s:b,s:o,s:o,s:s}]}", "data",
        "bookingId", trv_rows_get(rows, 0, "id"), "confidence", "confirmed",
        "isRefundable", refund > 0, "isVoidable", 0, "refund", lf_money(refund, cur),
        "penalty", lf_money(fee, cur), "destination", "original_payment"));
}

static void cancel_booking(trv_req *req, trv_resp *resp)
{
    const char *id = apr_table_get(req->params, "id"), *cur, *trig;
    trv_dbc *c;
    trv_rows *rows, *done;
    apr_int64_t fee, refund;
    json_t *block;

    if (!sbx_idem_begin(req, resp, &c, 960, "cancelling a booking")) {
        return;
    }
    if (sbx_order_get(c, req->pool, id, 'B', &rows) != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 962, "cancelling a booking");
        return;
    }
    if (rows->n == 1 && trv_rows_get(rows, 0, "cancellation")) {
        /* Already cancelled: the same answer. */
        json_t *b = json_loads(trv_rows_get(rows, 0, "cancellation"), 0, NULL);
        trv_db_rollback(c);
        trv_db_close(req->env->db, c);
        sbx_send(req, resp, 200, b);
        return;
    }
    if (!ticketed_booking(req, resp, c, &rows)) {
        return;
    }
    trig = trv_rows_get(rows, 0, "trigger");
    if (trig && strcmp(trig, "nocancel") == 0) {
        trv_db_rollback(c);
        trv_db_close(req->env->db, c);
        lf_error(req, resp, 400, 46010, "cancellation rejected",
                 "The airline rejected the cancellation (test trigger Nocancel)",
                 "pathParam.bookingId");
        return;
    }
    cur = trv_rows_get(rows, 0, "currency");
    cancel_terms(rows, &fee, &refund);
    block = trv_json_bind(req->pool, json_pack("{s:{s:s,s:s,s:o,s:o,s:s,s:s}}", "data",
        "bookingId", id, "status", fee > 0 ? "CANCELLED_WITH_CHARGES" : "CANCELLED",
        "cancellation_fee", lf_num(fee, cur), "refund_amount", lf_num(refund, cur),
        "currency", cur, "destination", "original_payment"));
    if (trv_db_select(c, req->pool, &b_order_cancel, &done,
                      TRV_DB_ARGS(trv_json_dump(req->pool, block), id)) != APR_SUCCESS
        || done->n != 1 || sbx_idem_save(req, c, 200, block) != APR_SUCCESS
        || trv_db_commit(c) != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 964, "cancelling a booking");
        return;
    }
    trv_db_close(req->env->db, c);
    sbx_send(req, resp, 200, json_incref(block));
}

/* ---- the traveller's device: the payment SDK ---- */

/* What LiteAPI's payment SDK does on the traveller's device with the
 * prebook's secretKey (it confirms the Stripe payment intent): the intent
 * id is the secret's part before "_secret_", and the client secret must be
 * the checkout's current one. */
static void confirm_intent(trv_req *req, trv_resp *resp)
{
    const char *pi = apr_table_get(req->params, "id"), *secret, *cut;
    const json_t *body;
    trv_dbc *c;
    trv_rows *rows;
    json_t *doc;

    if (!(body = sbx_body(req, resp))) {
        return;
    }
    secret = trv_json_str(body, "client_secret");
    cut = secret ? strstr(secret, "_secret_") : NULL;
    if (!cut || strlen(pi) != (size_t)(cut - secret) || strncmp(secret, pi, strlen(pi)) != 0) {
        sbx_send(req, resp, 404, json_pack("{s:{s:s,s:s,s:s}}", "error", "type",
                                           "invalid_request_error", "code", "resource_missing",
                                           "message", "No such payment_intent for this "
                                           "client_secret"));
        return;
    }
    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS) {
        sbx_db_fail(req, resp, NULL, 3187, "confirming a payment intent");
        return;
    }
    if (trv_db_begin(c, req->pool) != APR_SUCCESS
        || trv_db_select(c, req->pool, &b_checkout_of_secret, &rows, TRV_DB_ARGS(secret))
           != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 3185, "confirming a payment intent");
        return;
    }
    if (rows->n != 1) {
        trv_db_rollback(c);
        trv_db_close(req->env->db, c);
        sbx_send(req, resp, 404, json_pack("{s:{s:s,s:s,s:s}}", "error", "type",
                                           "invalid_request_error", "code", "resource_missing",
                                           "message", "No such payment_intent (or no longer "
                                           "the prebook's current one)"));
        return;
    }
    doc = trv_json_parse(req->pool, trv_rows_get(rows, 0, "doc"),
                         strlen(trv_rows_get(rows, 0, "doc")), NULL);
    json_object_set_new(json_object_get(doc, "_sbx"), "intent_confirmed", json_true());
    if (trv_db_exec(c, req->pool, &b_checkout_update, NULL,
                    TRV_DB_ARGS(trv_json_dump(req->pool, doc),
                                trv_rows_get(rows, 0, "total_minor"),
                                trv_rows_get(rows, 0, "id"))) != APR_SUCCESS
        || trv_db_commit(c) != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 3186, "confirming a payment intent");
        return;
    }
    trv_db_close(req->env->db, c);
    sbx_send(req, resp, 200, json_pack("{s:s,s:s,s:s}", "id", pi, "object", "payment_intent",
                                       "status", "succeeded"));
}

static void get_airline(trv_req *req, trv_resp *resp)
{
    const char *code = apr_table_get(req->params, "code");
    const sbx_airline *a;
    int i;
    if (!sbx_need_world(req, resp)) {
        return;
    }
    i = sbx_airline_find(SBX(req)->world, code);
    if (i < 0) {
        lf_error(req, resp, 404, 48002, "airline not found", "No airline with this IATA code",
                 "pathParam.iataCode");
        return;
    }
    a = &SBX(req)->world->airlines[i];
    sbx_send(req, resp, 200, json_pack("{s:[{s:{s:s,s:s,s:s,s:s,s:s?,s:s?,s:s,s:b}}]}",
        "data", "airline", "iata", a->iata, "icao", a->icao, "name", a->name,
        "country", a->country, "callsign", a->callsign, "alliance", a->alliance,
        "logo", sbx_logo_url(req->pool, a->iata), "active", a->active));
}

const trv_route sbx_air_b_routes[] = {
    {"POST", "/suppliers/b/v3.0/flights/rates", rates, TRV_ROUTE_JSON_ARENA},
    {"POST", "/suppliers/b/v3.0/flights/verify", verify, 0},
    {"POST", "/suppliers/b/v3.0/flights/prebooks", create_prebook, 0},
    {"GET", "/suppliers/b/v3.0/flights/prebooks/{id}", get_prebook, 0},
    {"POST", "/suppliers/b/v3.0/flights/prebooks/{id}/services", attach_services, 0},
    {"POST", "/suppliers/b/v3.0/flights/bookings", book, 0},
    {"GET", "/suppliers/b/v3.0/flights/bookings/{id}", get_booking, 0},
    {"GET", "/suppliers/b/v3.0/flights/bookings/{id}/cancellations", cancellation_quote, 0},
    {"POST", "/suppliers/b/v3.0/flights/bookings/{id}/cancellations", cancel_booking, 0},
    {"GET", "/suppliers/b/v3.0/data/flights/airlines/iatas/{code:iata}", get_airline, 0},
    /* The traveller's device, which holds no API key. */
    {"POST", "/suppliers/b/payment/v1/payment_intents/{id}/confirm", confirm_intent,
     TRV_ROUTE_PUBLIC},
    {NULL, NULL, NULL, 0},
};
