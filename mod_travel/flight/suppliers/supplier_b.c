/* The liteapi-flights protocol's adapter: a client of LiteAPI Flights
 * (v3.0; docs/suppliers.md "Flight SUPPLIER_B"). X-API-Key; answers in
 * {"data": [...]}; money as JSON numbers beside a currency, read into
 * integer minor units (never through a double); errors {"error": {code (a
 * number), message, description, key}}.
 *
 *   search    POST /flights/rates: every offer of every journey
 *   bags      POST /flights/verify (the offer lives): none. LiteAPI sells
 *             paid services only inside a checkout (the prebook's
 *             servicesAttachable, bought with POST
 *             /flights/prebooks/{id}/services), which needs the passengers:
 *             an offer has no bags before it (docs/suppliers.md)
 *   prebook   POST /flights/verify, POST /flights/prebooks (the checkout:
 *             LiteAPI reserves the offer with the airline, ticketLimitTime
 *             says until when, and creates a payment intent)
 *   book      POST /flights/bookings {prebookId, payment: {TRANSACTION_ID,
 *             the intent's transactionId}}: LiteAPI collects the payment;
 *             its secretKey reaches the traveller only with use_payment_sdk
 *             (prebook's meta.payment_sdk), and a 402 (the intent not paid)
 *             leaves the booking to be booked again once it is
 *   reads     GET /flights/bookings/{id}
 *   cancel    GET (quote) and POST /flights/bookings/{id}/cancellations
 *   airline   GET /data/flights/airlines/iatas/{code}
 *
 * Ids: the offer_reference is "lfo_" + LiteAPI's offerId; a booked
 * service's bag id is "bag_<passenger index>.<serviceId>"; segment ids are
 * segmentKeys; the order id is the bookingId. */
#include "wire.h"
#include "flight/order_status.h"
#include "core/json.h"
#include "core/jval.h"
#include "core/url.h"

#include <apr_strings.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define NAME "liteapi-flights" /* its protocol: the wire name is ctx->up->name */
#define PREFIX "lfo_"
/* LiteAPI prices in the currency asked (converting when it must); mod_travel
 * reads the currency of every answer and assumes none. */
#define SEARCH_CURRENCY "USD"
/* meta.payment_sdk.provider: whose SDK takes the secret (LiteAPI's payment
 * SDK, liteAPIPayment.js, which confirms LiteAPI's Stripe intent). */
#define SDK_PROVIDER "liteapi"

static const char *const cabins[4] = {"ECONOMY", "PREMIUM_ECONOMY", "BUSINESS", "FIRST"};

/* A call that changes something passes its key; the protocol row decides
 * whether it is sent (flight/suppliers/wire.h): LiteAPI documents no
 * Idempotency-Key, so the liteapi-flights row sends none and the request is
 * never resent by the HTTP client. read: a 2xx answer read with core/jval.h
 * into res->doc (the search). */
static trv_up_status call_as(trv_flight_ctx *ctx, const char *method, const char *path,
                             const json_t *body, const char *key, int read,
                             trv_up_result *res, trv_sup_err *err)
{
    apr_table_t *h = apr_table_make(ctx->pool, 1);
    trv_supplier_call_opts o = {0};
    trv_up_status st;
    const json_t *e;
    apr_table_setn(h, "X-API-Key", ctx->up->api_key ? ctx->up->api_key : "");
    o.headers = h;
    o.idempotency_key = key;
    /* Only the search is read with jval: it is also the one call that
     * only reads (a pooled connection). */
    o.read = o.search = read;
    st = trv_fwire_call(ctx, &trv_flight_supplier_b, &o, method, path, body, res, err);
    e = json_object_get(res->body, "error");
    if (st != TRV_UP_OK && res->http_status) {
        /* LiteAPI's codes are numbers: "41012"; the message says the HTTP
         * status (travelctl supplier check reads it). */
        if (json_is_integer(json_object_get(e, "code"))) {
            err->code = apr_psprintf(ctx->pool, "%" APR_INT64_T_FMT,
                                     (apr_int64_t)json_integer_value(json_object_get(e,
                                                                                     "code")));
        }
        err->message = apr_psprintf(ctx->pool, "%s answered %d: %s%s%s", ctx->up->name,
                                    res->http_status,
                                    trv_json_str(e, "message") ? trv_json_str(e, "message")
                                                               : "an error",
                                    trv_json_str(e, "description") ? ": " : "",
                                    trv_json_str(e, "description") ? trv_json_str(e, "description")
                                                                   : "");
    }
    return st;
}

static trv_up_status call(trv_flight_ctx *ctx, const char *method, const char *path,
                          const json_t *body, trv_up_result *res, trv_sup_err *err)
{
    return call_as(ctx, method, path, body, NULL, 0, res, err);
}

static trv_up_status bad(trv_flight_ctx *ctx, trv_sup_err *err, const char *what)
{
    return trv_supplier_call_bad(&ctx->call, 1103, ctx->up->name, what, err);
}

/* The first item of LiteAPI's data (a list of one), or data itself. */
static const json_t *first_data(const json_t *body)
{
    const json_t *d = json_object_get(body, "data");
    return json_is_array(d) ? json_array_get(d, 0) : d;
}

static const char *offer_id(const char *ref, trv_sup_err *err)
{
    if (ref && strncmp(ref, PREFIX, strlen(PREFIX)) == 0 && ref[strlen(PREFIX)]) {
        return ref + strlen(PREFIX);
    }
    err->code = "offer_not_found";
    err->message = "not a liteapi-flights offer reference";
    return NULL;
}

/* Money from LiteAPI's {display: {amount, currency}} (a new reference), or
 * NULL. */
static json_t *display_money(const json_t *pricing)
{
    const json_t *d = json_object_get(pricing, "display");
    return trv_fwire_money(json_object_get(d, "amount"), trv_json_str(d, "currency"));
}

static int minor_of(const json_t *v, const char *cur, apr_int64_t *out)
{
    return trv_money_minor_of(v, cur, out);
}

static json_t *money_of(apr_int64_t minor, const char *cur)
{
    trv_money m;
    if (trv_money_make(&m, minor, cur) != APR_SUCCESS) {
        return NULL;
    }
    return trv_money_json(&m);
}

static const char *cabin_of(const char *name)
{
    int i;
    for (i = 0; name && i < 4; i++) {
        if (strcasecmp(name, cabins[i]) == 0) {
            return cabins[i];
        }
    }
    if (name && strncasecmp(name, "premium", 7) == 0) {
        return "PREMIUM_ECONOMY";
    }
    return "ECONOMY";
}

/* ---- journeys ---- */

/* The index of the journey of each segment: LiteAPI lists one journey's
 * segments in order, each OUTBOUND or INBOUND; a new journey (leg) starts
 * where the direction changes, where the next segment leaves from another
 * airport, or (when the answer lists connections) where no connection
 * links two segments. */
static int *journey_of_segments(apr_pool_t *p, const json_t *segs, const json_t *conns,
                                int *nj)
{
    size_t n = json_array_size(segs), k, c = 0;
    int *out = apr_pcalloc(p, sizeof(int) * (n ? n : 1)), j = 0;
    for (k = 1; k < n; k++) {
        const json_t *a = json_array_get(segs, k - 1), *b = json_array_get(segs, k);
        const char *da = trv_json_str(a, "direction"), *db = trv_json_str(b, "direction");
        const char *to = trv_json_str(a, "destinationCode"), *from = trv_json_str(b, "originCode");
        int same = (!da || !db || strcmp(da, db) == 0) && to && from && strcmp(to, from) == 0;
        if (same && json_is_array(conns)) {
            const json_t *cn = json_array_get(conns, c);
            same = cn && trv_json_str(cn, "arrivalAirportCode")
                   && strcmp(trv_json_str(cn, "arrivalAirportCode"), to) == 0;
            c += same;
        }
        if (!same) {
            j++;
        }
        out[k] = j;
    }
    *nj = n ? j + 1 : 0;
    return out;
}

static const char *flight_number(apr_pool_t *p, const char *carrier, const char *number)
{
    if (!number) {
        return carrier;
    }
    if (carrier && strncmp(number, carrier, strlen(carrier)) == 0) {
        return number;
    }
    return apr_pstrcat(p, carrier ? carrier : "", number, NULL);
}

static const char *segment_cabin(const json_t *fares, const char *key)
{
    size_t i;
    for (i = 0; key && i < json_array_size(fares); i++) {
        const json_t *f = json_array_get(fares, i);
        if (trv_json_str(f, "segmentKey") && strcmp(trv_json_str(f, "segmentKey"), key) == 0) {
            return cabin_of(trv_json_str(f, "cabin"));
        }
    }
    return cabin_of(trv_json_str(json_array_get(fares, 0), "cabin"));
}

/* LiteAPI's segments as API journeys. booking: segment ids and per
 * passenger entries (npax passengers of the given types; included bags
 * from baggage). */
static json_t *journeys(trv_flight_ctx *ctx, const json_t *segs, const json_t *conns,
                        const json_t *durs, const json_t *fares, const char *brand,
                        const json_t *baggage, const json_t *passengers, int booking)
{
    int nj, *jof = journey_of_segments(ctx->pool, segs, conns, &nj), j, i;
    const char *first_origin = trv_json_str(json_array_get(segs, 0), "originCode");
    json_t *out = json_array();
    int checked = 0, carry = 0;
    size_t k;
    for (k = 0; k < json_array_size(json_object_get(baggage, "included")); k++) {
        const json_t *b = json_array_get(json_object_get(baggage, "included"), k);
        int pieces = (int)json_integer_value(json_object_get(b, "pieces"));
        const char *t = trv_json_str(b, "bagType");
        if (t && strcmp(t, "checked") == 0 && pieces > checked) {
            checked = pieces;
        }
        else if (t && strcmp(t, "cabin") == 0 && pieces > carry) {
            carry = pieces;
        }
    }
    for (j = 0; j < nj; j++) {
        json_t *out_segs = json_array(), *jn;
        const json_t *first = NULL, *last = NULL;
        int minutes = 0, stops = -1;
        for (k = 0; k < json_array_size(segs); k++) {
            const json_t *s = json_array_get(segs, k), *c = json_object_get(s, "carrier"),
                         *fl = json_object_get(s, "flight");
            const char *mc = trv_json_str(c, "marketingCode"), *oc = trv_json_str(c, "operatingCode");
            json_t *seg;
            if (jof[k] != j) {
                continue;
            }
            first = first ? first : s;
            last = s;
            stops++;
            minutes += (int)json_integer_value(json_object_get(json_object_get(s, "duration"),
                                                               "minutes"));
            seg = json_pack("{s:s?,s:s?,s:s?,s:s?,s:s?,s:s?,s:s?,s:s?,s:s?,s:s?,s:s?,s:I}",
                "origin", trv_json_str(s, "originCode"),
                "destination", trv_json_str(s, "destinationCode"),
                "departure_time", trv_fwire_local_time(ctx->pool, trv_json_str(s, "departureTime")),
                "arrival_time", trv_fwire_local_time(ctx->pool, trv_json_str(s, "arrivalTime")),
                "marketing_flight", flight_number(ctx->pool, mc,
                                                  trv_json_str(fl, "marketingNumber")),
                "marketing_carrier", trv_json_str(c, "marketingName")
                                         ? trv_json_str(c, "marketingName") : mc,
                "marketing_carrier_code", mc,
                "marketing_carrier_logo_url", trv_json_str(c, "marketingLogo"),
                "operating_carrier", trv_json_str(c, "operatingName")
                                         ? trv_json_str(c, "operatingName") : oc,
                "operating_carrier_code", oc,
                "operating_carrier_logo_url", trv_json_str(c, "operatingLogo"),
                "duration_minutes", json_integer_value(json_object_get(
                                        json_object_get(s, "duration"), "minutes")));
            if (booking) {
                json_t *pax = json_array();
                json_object_set_new(seg, "id", json_string(trv_json_str(s, "segmentKey")));
                for (i = 0; i < (int)json_array_size(passengers); i++) {
                    /* An infant on a lap has no bag allowance of its own. */
                    const char *t = trv_json_str(json_array_get(passengers, (size_t)i), "type");
                    int lap = t && strcasecmp(t, "INFANT") == 0;
                    json_array_append_new(pax, json_pack("{s:i,s:s,s:s?,s:i,s:i}",
                        "passenger_id", i,
                        "cabin_class", segment_cabin(fares, trv_json_str(s, "segmentKey")),
                        "cabin_name", brand, "checked_bags", lap ? 0 : checked,
                        "carry_on_bags", lap ? 0 : carry));
                }
                json_object_set_new(seg, "passengers", pax);
            }
            else {
                json_object_set_new(seg, "cabin_class", json_string(
                    segment_cabin(fares, trv_json_str(s, "segmentKey"))));
            }
            json_array_append_new(out_segs, seg);
        }
        if (json_is_integer(json_object_get(json_object_get(json_array_get(durs, (size_t)j),
                                                            "duration"), "minutes"))
            && json_array_size(durs) == (size_t)nj) {
            minutes = (int)json_integer_value(json_object_get(json_object_get(
                json_array_get(durs, (size_t)j), "duration"), "minutes"));
        }
        jn = json_pack("{s:s?,s:s?,s:s,s:s?,s:s?,s:i,s:i,s:o}",
            "origin", trv_json_str(first, "originCode"),
            "destination", trv_json_str(last, "destinationCode"),
            "direction", trv_fwire_direction(first_origin, trv_json_str(last, "destinationCode"),
                                             (size_t)j, (size_t)nj),
            "departure_time", trv_fwire_local_time(ctx->pool, trv_json_str(first, "departureTime")),
            "arrival_time", trv_fwire_local_time(ctx->pool, trv_json_str(last, "arrivalTime")),
            "duration_minutes", minutes, "stops", stops, "segments", out_segs);
        if (booking) {
            json_object_set_new(jn, "id", json_string(apr_psprintf(ctx->pool, "leg_%s-%d",
                trv_json_str(first, "segmentKey") ? trv_json_str(first, "segmentKey") : "",
                j + 1)));
            json_object_set_new(jn, "fare_brand", brand ? json_string(brand) : json_null());
        }
        json_array_append_new(out, jn);
    }
    return out;
}

static json_t *fee_money(const json_t *fee)
{
    json_t *m = display_money(json_object_get(fee, "pricing"));
    return m ? m : json_null();
}

static json_t *fare_conditions(const json_t *terms)
{
    return json_pack("{s:{s:b,s:o},s:{s:b,s:o}}",
        "refund", "allowed", json_is_true(json_object_get(terms, "refundable")),
        "penalty", fee_money(json_object_get(terms, "refundFee")),
        "change", "allowed", json_is_true(json_object_get(terms, "changeable")),
        "penalty", fee_money(json_object_get(terms, "changeFee")));
}

/* ---- the search's answer, read with core/jval.h ----
 * The API's offers (flight/supplier.h) from the search's answer, the
 * largest B gives, read and written without a Jansson tree (as text,
 * flight/offer_text.h): the offer's shape of what journeys() above builds
 * for a booking. */

/* The fee's display price, or null. */
static void fee_w(trv_jtext *t, const char *key, const trv_jval *fee)
{
    const trv_jval *d = trv_jval_get(trv_jval_get(fee, "pricing"), "display");
    trv_jtext_key(t, key);
    trv_fwire_money_text(t, trv_jval_get(d, "amount"), trv_jval_strget(d, "currency"));
}

static void fare_conditions_w(trv_jtext *t, const trv_jval *terms)
{
    trv_jtext_kobj(t, "fare_conditions");
    trv_jtext_kobj(t, "refund");
    trv_jtext_kbool(t, "allowed", trv_jval_is_true(trv_jval_get(terms, "refundable")));
    fee_w(t, "penalty", trv_jval_get(terms, "refundFee"));
    trv_jtext_end(t);
    trv_jtext_kobj(t, "change");
    trv_jtext_kbool(t, "allowed", trv_jval_is_true(trv_jval_get(terms, "changeable")));
    fee_w(t, "penalty", trv_jval_get(terms, "changeFee"));
    trv_jtext_end(t);
    trv_jtext_end(t);
}

/* journey_of_segments over the segments as an array of pointers. */
static int *journey_of_segments_r(apr_pool_t *p, const trv_jval *const *segs, apr_size_t n,
                                  const trv_jval *conns, int *nj)
{
    apr_size_t k, c = 0;
    int *out = apr_pcalloc(p, sizeof(int) * (n ? n : 1)), j = 0;
    for (k = 1; k < n; k++) {
        const trv_jval *a = segs[k - 1], *b = segs[k];
        const char *da = trv_jval_strget(a, "direction"), *db = trv_jval_strget(b, "direction");
        const char *to = trv_jval_strget(a, "destinationCode");
        const char *from = trv_jval_strget(b, "originCode");
        int same = (!da || !db || strcmp(da, db) == 0) && to && from && strcmp(to, from) == 0;
        if (same && trv_jval_is_array(conns)) {
            const char *arr = trv_jval_strget(trv_jval_at(conns, c), "arrivalAirportCode");
            same = arr && strcmp(arr, to) == 0;
            c += same;
        }
        if (!same) {
            j++;
        }
        out[k] = j;
    }
    *nj = n ? j + 1 : 0;
    return out;
}

static const char *segment_cabin_r(const trv_jval *fares, const char *key)
{
    const trv_jval *f;
    apr_size_t i;
    if (key) {
        trv_jval_foreach(fares, i, f) {
            const char *sk = trv_jval_strget(f, "segmentKey");
            if (sk && strcmp(sk, key) == 0) {
                return cabin_of(trv_jval_strget(f, "cabin"));
            }
        }
    }
    return cabin_of(trv_jval_strget(trv_jval_at(fares, 0), "cabin"));
}

static void segment_w(trv_flight_ctx *ctx, trv_jtext *t, trv_foffer_text *fo,
                      const trv_jval *s, const trv_jval *fares)
{
    const trv_jval *c = trv_jval_get(s, "carrier"), *fl = trv_jval_get(s, "flight");
    const char *mname = trv_jval_strget(c, "marketingName");
    const char *oname = trv_jval_strget(c, "operatingName");
    trv_fwire_segment w;
    w.origin = trv_jval_strget(s, "originCode");
    w.destination = trv_jval_strget(s, "destinationCode");
    w.departure_time = trv_fwire_local_time(ctx->pool, trv_jval_strget(s, "departureTime"));
    w.arrival_time = trv_fwire_local_time(ctx->pool, trv_jval_strget(s, "arrivalTime"));
    w.marketing_carrier_code = trv_jval_strget(c, "marketingCode");
    w.marketing_flight = flight_number(ctx->pool, w.marketing_carrier_code,
                                       trv_jval_strget(fl, "marketingNumber"));
    w.marketing_carrier = mname ? mname : w.marketing_carrier_code;
    w.marketing_carrier_logo_url = trv_jval_strget(c, "marketingLogo");
    w.operating_carrier_code = trv_jval_strget(c, "operatingCode");
    w.operating_carrier = oname ? oname : w.operating_carrier_code;
    w.operating_carrier_logo_url = trv_jval_strget(c, "operatingLogo");
    w.duration_minutes = trv_jval_int(trv_jval_get(trv_jval_get(s, "duration"), "minutes"));
    w.cabin_class = segment_cabin_r(fares, trv_jval_strget(s, "segmentKey"));
    trv_fwire_segment_write(t, fo, &w);
}

/* The journeys, split from LiteAPI's one list of segments; answers the sum
 * of their minutes. */
static int journeys_w(trv_flight_ctx *ctx, trv_jtext *t, trv_foffer_text *fo,
                      const trv_jval *seglist, const trv_jval *conns, const trv_jval *durs,
                      const trv_jval *fares)
{
    apr_size_t n = trv_jval_len(seglist), k;
    const trv_jval **segs = apr_palloc(ctx->pool, sizeof(*segs) * (n ? n : 1)), *v;
    int nj, *jof, j, total = 0;
    const char *first_origin;
    trv_jval_foreach(seglist, k, v) {
        segs[k] = v;
    }
    jof = journey_of_segments_r(ctx->pool, segs, n, conns, &nj);
    first_origin = n ? trv_jval_strget(segs[0], "originCode") : NULL;
    trv_jtext_karr(t, "journeys");
    for (j = 0; j < nj; j++) {
        const trv_jval *first = NULL, *last = NULL, *dj = trv_jval_at(durs, (apr_size_t)j);
        const trv_jval *djm = trv_jval_get(trv_jval_get(dj, "duration"), "minutes");
        trv_fwire_journey w;
        w.duration_minutes = 0;
        w.stops = -1;
        for (k = 0; k < n; k++) {
            if (jof[k] == j) {
                first = first ? first : segs[k];
                last = segs[k];
                w.stops++;
                w.duration_minutes += (int)trv_jval_int(
                    trv_jval_get(trv_jval_get(segs[k], "duration"), "minutes"));
            }
        }
        if (trv_jval_is_int(djm) && trv_jval_len(durs) == (apr_size_t)nj) {
            w.duration_minutes = (int)trv_jval_int(djm);
        }
        w.origin = trv_jval_strget(first, "originCode");
        w.destination = trv_jval_strget(last, "destinationCode");
        w.direction = trv_fwire_direction(first_origin, w.destination, (size_t)j, (size_t)nj);
        w.departure_time = trv_fwire_local_time(ctx->pool, trv_jval_strget(first, "departureTime"));
        w.arrival_time = trv_fwire_local_time(ctx->pool, trv_jval_strget(last, "arrivalTime"));
        trv_fwire_journey_begin(t, fo, &w);
        for (k = 0; k < n; k++) {
            if (jof[k] == j) {
                segment_w(ctx, t, fo, segs[k], fares);
            }
        }
        trv_fwire_journey_end(t);
        total += w.duration_minutes;
    }
    trv_jtext_end(t);
    return total;
}

/* One offer of journey jr written into the list; -1 (nothing written)
 * when it lacks its id, price or segments. */
static int api_offer_w(trv_flight_ctx *ctx, trv_foffer_list *l, const trv_jval *jr,
                       const trv_jval *o)
{
    const trv_jval *display = trv_jval_get(trv_jval_get(o, "pricing"), "display");
    const trv_jval *bag = trv_jval_get(o, "baggage");
    const trv_jval *terms = trv_jval_get(o, "terms");
    const char *id = trv_jval_strget(o, "offerId");
    trv_jtext *t = &l->text;
    trv_foffer_text *fo;
    trv_money total;
    int minutes;
    if (trv_fwire_money_read(trv_jval_get(display, "total"),
                             trv_jval_strget(display, "currency"), &total) != 0
        || !id || !trv_jval_is_array(trv_jval_get(jr, "segments"))) {
        return -1;
    }
    fo = trv_foffer_list_open(l, apr_pstrcat(ctx->pool, PREFIX, id, NULL),
                              trv_jval_strget(o, "expiration"));
    trv_jtext_key(t, "total_amount");
    trv_money_write(t, &total);
    trv_jtext_kstr(t, "expires_at", fo->expires_at);
    trv_jtext_kstr(t, "fare_family", trv_jval_strget(trv_jval_get(o, "fare"), "family"));
    trv_jtext_kbool(t, "refundable", trv_jval_is_true(trv_jval_get(terms, "refundable")));
    fare_conditions_w(t, terms);
    /* LiteAPI does not say; the prebook asks for documents when needed. */
    trv_jtext_kbool(t, "documents_required", 0);
    trv_jtext_kobj(t, "included_baggage");
    trv_jtext_kbool(t, "checked", trv_jval_is_true(trv_jval_get(bag, "hasCheckedBag")));
    trv_jtext_kbool(t, "carry_on", trv_jval_is_true(trv_jval_get(bag, "hasCarryOnBag")));
    trv_jtext_end(t);
    minutes = journeys_w(ctx, t, fo, trv_jval_get(jr, "segments"), trv_jval_get(jr, "connections"),
                         trv_jval_get(jr, "legDurations"), trv_jval_get(o, "segmentFares"));
    trv_jtext_kint(t, "total_duration_minutes", minutes);
    trv_foffer_list_close(l);
    return 0;
}

/* ---- search and bags ---- */

static trv_up_status lf_search(trv_flight_ctx *ctx, const json_t *query,
                               apr_array_header_t **offers, int *truncated, trv_sup_err *err)
{
    const json_t *js = json_object_get(query, "journeys");
    const json_t *pax = json_object_get(query, "passengers");
    json_int_t limit = json_is_integer(json_object_get(query, "limit"))
                     ? json_integer_value(json_object_get(query, "limit")) : 50;
    json_t *legs = json_array(), *body;
    trv_foffer_list out;
    const trv_jval *data, *item;
    trv_up_result res;
    trv_up_status st;
    size_t k, b, i;

    for (k = 0; k < json_array_size(js); k++) {
        const json_t *j = json_array_get(js, k);
        json_array_append_new(legs, json_pack("{s:s?,s:s?,s:s?}", "origin",
                                              trv_json_str(j, "origin"), "destination",
                                              trv_json_str(j, "destination"), "date",
                                              trv_json_str(j, "date")));
    }
    body = trv_json_bind(ctx->pool, json_pack("{s:o,s:I,s:I,s:I,s:s}", "legs", legs,
        "adults", json_integer_value(json_object_get(pax, "adults")),
        "children", json_integer_value(json_object_get(pax, "children")),
        "infants", json_integer_value(json_object_get(pax, "infants")),
        "currency", SEARCH_CURRENCY));
    if (trv_json_str(query, "cabin_class")) {
        json_object_set_new(body, "cabinClass",
                            json_string(cabin_of(trv_json_str(query, "cabin_class"))));
    }
    st = call_as(ctx, "POST", "/flights/rates", body, NULL, 1, &res, err);
    if (st != TRV_UP_OK) {
        return st;
    }
    data = trv_jval_get(res.doc, "data");
    if (!trv_jval_is_array(data)) {
        return bad(ctx, err, "data");
    }
    trv_foffer_list_init(&out, ctx->pool);
    *truncated = 0;
    trv_jval_foreach(data, b, item) {
        const trv_jval *jr;
        trv_jval_foreach(trv_jval_get(item, "journeys"), k, jr) {
            const trv_jval *o;
            trv_jval_foreach(trv_jval_get(jr, "offers"), i, o) {
                if ((json_int_t)out.offers->nelts >= limit) {
                    *truncated = 1; /* LiteAPI takes no limit: the first ones are kept */
                    continue;
                }
                if (api_offer_w(ctx, &out, jr, o) != 0) {
                    return bad(ctx, err, "a readable offer");
                }
            }
        }
    }
    if (!(*offers = trv_foffer_list_done(&out))) {
        return bad(ctx, err, "offers writable as JSON");
    }
    return TRV_UP_OK;
}

static trv_up_status verify(trv_flight_ctx *ctx, const char *offer, const json_t **journey,
                            trv_up_result *res, trv_sup_err *err)
{
    json_t *body = trv_json_bind(ctx->pool, json_pack("{s:s}", "offerId", offer));
    trv_up_status st = call(ctx, "POST", "/flights/verify", body, res, err);
    if (st != TRV_UP_OK) {
        return st;
    }
    *journey = json_object_get(first_data(res->body), "journey");
    if (!json_is_array(json_object_get(*journey, "segments"))) {
        return bad(ctx, err, "a verified journey");
    }
    return TRV_UP_OK;
}

static int segment_journey(const json_t *segs, const int *jof, const char *key)
{
    size_t k;
    for (k = 0; key && k < json_array_size(segs); k++) {
        const char *s = trv_json_str(json_array_get(segs, k), "segmentKey");
        if (s && strcmp(s, key) == 0) {
            return jof[k];
        }
    }
    return -1;
}

/* LiteAPI's order: Search, Verify, Prebook, (Add Extras), Book. Its
 * verify states the included baggage only; the bags for sale are the
 * checkout's (servicesAttachable), and a checkout needs the passengers and
 * reserves the seats, so none is made to list an offer's bags: the offer
 * is verified (an expired one is not found) and sells no bag through this
 * gateway. */
static trv_up_status lf_bags(trv_flight_ctx *ctx, const char *offer_reference, json_t **bags,
                             trv_sup_err *err)
{
    const char *id = offer_id(offer_reference, err);
    const json_t *journey;
    trv_up_result res;
    trv_up_status st;
    if (!id) {
        return TRV_UP_NOT_FOUND;
    }
    if ((st = verify(ctx, id, &journey, &res, err)) != TRV_UP_OK) {
        return st;
    }
    *bags = trv_json_bind(ctx->pool, json_array());
    return TRV_UP_OK;
}

/* ---- prebook: the checkout ---- */

static json_t *lf_passengers(const json_t *passengers)
{
    json_t *out = json_array();
    size_t i, k;
    for (i = 0; i < json_array_size(passengers); i++) {
        const json_t *p = json_array_get(passengers, i), *acc = json_object_get(p, "loyalty_accounts");
        const char *t = trv_json_str(p, "type");
        json_t *lp = json_array(), *x;
        for (k = 0; k < json_array_size(acc); k++) {
            const json_t *a = json_array_get(acc, k);
            json_array_append_new(lp, json_pack("{s:s?,s:s?}", "airlineCode",
                                                trv_json_str(a, "airline_iata_code"),
                                                "programNumber",
                                                trv_json_str(a, "membership_number")));
        }
        x = json_pack("{s:s?,s:s?,s:s?,s:s?,s:s?,s:i}",
            "firstName", trv_json_str(p, "first_name"), "lastName", trv_json_str(p, "last_name"),
            "birthday", trv_json_str(p, "birthday"), "gender", trv_json_str(p, "gender"),
            "nationality", trv_json_str(p, "nationality"),
            "passengerType", t && strcasecmp(t, "CHILD") == 0 ? 1
                             : t && strcasecmp(t, "INFANT") == 0 ? 2 : 0);
        if (json_array_size(lp)) {
            json_object_set_new(x, "loyaltyPrograms", lp);
        }
        else {
            json_decref(lp);
        }
        json_array_append_new(out, x);
    }
    return out;
}

static json_t *lf_contact(const json_t *contact, const json_t *passengers)
{
    const json_t *lead = json_array_get(passengers, 0);
    const char *fn = trv_json_str(contact, "first_name"), *ln = trv_json_str(contact, "last_name");
    return json_pack("{s:s?,s:s?,s:s?,s:s?,s:s?}",
        "firstName", fn ? fn : trv_json_str(lead, "first_name"),
        "lastName", ln ? ln : trv_json_str(lead, "last_name"),
        "email", trv_json_str(contact, "email"),
        "phoneCountryCode", trv_json_str(contact, "phone_country_code"),
        "phoneNumber", trv_json_str(contact, "phone_number"));
}

/* The unit price of a service from the prebook's list of attachable ones. */
static const json_t *attachable(const json_t *pb, const char *sid)
{
    const json_t *groups = json_object_get(json_object_get(pb, "servicesAttachable"), "groups");
    size_t g, k;
    for (g = 0; sid && g < json_array_size(groups); g++) {
        const json_t *l = json_object_get(json_array_get(groups, g), "services");
        for (k = 0; k < json_array_size(l); k++) {
            const char *s = trv_json_str(json_array_get(l, k), "serviceId");
            if (s && strcmp(s, sid) == 0) {
                return json_array_get(l, k);
            }
        }
    }
    return NULL;
}

static trv_up_status priced_of(trv_flight_ctx *ctx, const json_t *pb, const json_t *verified,
                               const json_t *passengers, const char *offer_reference,
                               json_t **priced, trv_sup_err *err)
{
    const json_t *bk = json_object_get(pb, "booking"), *jr = json_object_get(bk, "journey");
    const json_t *segs = json_object_get(jr, "segments"), *booked = json_object_get(bk,
                                                                                 "bookedServices");
    const json_t *terms = json_object_get(jr, "terms") ? json_object_get(jr, "terms")
                                                       : json_object_get(verified, "terms");
    const char *cur = trv_json_str(pb, "currency"), *limit = trv_json_str(bk, "ticketLimitTime");
    const char *brand = trv_json_str(json_object_get(verified, "fare"), "family");
    const char *expires = limit ? limit : trv_json_str(json_object_get(pb, "servicesAttachable"),
                                                       "expiresAt");
    apr_int64_t total, taxes = 0, services = 0;
    json_t *js, *svc_out, *conds;
    int nj, *jof;
    size_t i, k;

    if (!trv_json_str(pb, "prebookId") || !json_is_array(segs) || !cur
        || minor_of(json_object_get(pb, "price"), cur, &total) != 0
        || (json_object_get(json_object_get(jr, "price"), "taxes")
            && minor_of(json_object_get(json_object_get(jr, "price"), "taxes"), cur, &taxes))) {
        return bad(ctx, err, "a readable prebook");
    }
    jof = journey_of_segments(ctx->pool, segs, NULL, &nj);
    js = journeys(ctx, segs, NULL, NULL, json_object_get(verified, "segmentFares"), brand,
                  json_object_get(jr, "baggage"), passengers, 1);
    svc_out = json_array();
    for (i = 0; i < json_array_size(booked); i++) {
        const json_t *b = json_array_get(booked, i), *a;
        const char *sid = trv_json_str(b, "serviceId"), *t;
        json_int_t qty = json_is_integer(json_object_get(b, "quantity"))
                       ? json_integer_value(json_object_get(b, "quantity")) : 1;
        int pax = (int)json_integer_value(json_object_get(b, "passengerIndex"));
        int j = segment_journey(segs, jof, trv_json_str(b, "segmentKey"));
        apr_int64_t unit;
        json_t *segids;
        a = attachable(pb, sid);
        t = trv_json_str(b, "bagType") ? trv_json_str(b, "bagType") : trv_json_str(a, "bagType");
        if (!sid || j < 0 || !t
            || minor_of(json_object_get(json_object_get(json_object_get(a ? a : b, "pricing"),
                                                        "display"), "amount"), cur, &unit)) {
            json_decref(js);
            json_decref(svc_out);
            return bad(ctx, err, "a readable service of a prebook");
        }
        if (!a) {
            unit /= qty; /* the booked service's price is for its quantity */
        }
        segids = json_array();
        for (k = 0; k < json_array_size(segs); k++) {
            if (jof[k] == j) {
                json_array_append_new(segids, json_string(trv_json_str(json_array_get(segs, k),
                                                                       "segmentKey")));
            }
        }
        services += unit * qty;
        trv_fwire_count_bag(js, j, pax, t && strcmp(t, "checked") == 0 ? "CHECKED" : "CARRY_ON",
                            qty);
        json_array_append_new(svc_out, json_pack("{s:s,s:i,s:i,s:o,s:I,s:o,s:o,s:{s:s,s:O*}}",
            "bag_id", apr_psprintf(ctx->pool, "bag_%d.%s", pax, sid),
            "passenger_index", pax, "journey_index", j, "segment_ids", segids,
            "quantity", qty, "unit_amount", money_of(unit, cur),
            "total_amount", money_of(unit * qty, cur),
            "baggage", "type", t && strcmp(t, "checked") == 0 ? "CHECKED" : "CARRY_ON",
            "max_weight_kg", json_object_get(b, "weightKg") ? json_object_get(b, "weightKg")
                                                            : json_object_get(a, "weightKg")));
    }
    conds = fare_conditions(terms);
    *priced = trv_json_bind(ctx->pool, json_pack(
        "{s:o,s:o,s:o,s:o,s:s,s:s?,s:s?,s:o,s:{s:O,s:O},s:o,s:o,s:b,s:{s:b,s:s?},"
        "s:{s:s,s:s?,s:s}}",
        "total_amount", money_of(total, cur),
        "fare_amount", money_of(total - services - taxes, cur),
        "fare_tax_amount", money_of(taxes, cur),
        "services_amount", money_of(services, cur),
        "currency", cur, "expires_at", expires, "fare_brand", brand, "fare_conditions", conds,
        "cancellation_policy", "refundable",
        json_object_get(json_object_get(conds, "refund"), "allowed"),
        "penalty", json_object_get(json_object_get(conds, "refund"), "penalty"),
        "journeys", js, "services", svc_out, "member_price", 0,
        "hold", "held", limit != NULL, "expires_at", limit,
        /* What book needs: never the payment intent's secret. */
        "supplier_data", "prebook_id", trv_json_str(pb, "prebookId"),
        "transaction_id", trv_json_str(pb, "transactionId"),
        "offer_reference", offer_reference));
    if (!*priced) {
        return bad(ctx, err, "the amounts of a prebook");
    }
    return TRV_UP_OK;
}

static trv_up_status lf_prebook(trv_flight_ctx *ctx, const char *offer_reference,
                                const json_t *passengers, const json_t *contact,
                                const json_t *services, json_t **priced, trv_sup_err *err)
{
    const char *id = offer_id(offer_reference, err);
    const json_t *verified, *pb;
    json_t *body;
    trv_up_result vres, res;
    trv_up_status st;
    if (!id) {
        return TRV_UP_NOT_FOUND;
    }
    if (json_array_size(services)) {
        /* No bag is sold before LiteAPI's checkout (lf_bags): a bag id
         * asked is none of this offer's, whatever it names. */
        err->code = "services_not_sold";
        err->message = "LiteAPI sells bags only inside a checkout; this offer has none";
        return TRV_UP_REJECTED;
    }
    /* LiteAPI's order: verify the offer, then the checkout. */
    if ((st = verify(ctx, id, &verified, &vres, err)) != TRV_UP_OK) {
        return st;
    }
    body = trv_json_bind(ctx->pool, json_pack("{s:s,s:b,s:o,s:o}", "offerId", id,
                                              "usePaymentSdk", 1,
                                              "contact", lf_contact(contact, passengers),
                                              "passengers", lf_passengers(passengers)));
    if ((st = call(ctx, "POST", "/flights/prebooks", body, &res, err)) != TRV_UP_OK) {
        return st;
    }
    pb = first_data(res.body);
    if ((st = priced_of(ctx, pb, verified, passengers, offer_reference, priced, err))
        != TRV_UP_OK) {
        return st;
    }
    if (ctx->vendor_sdk && trv_json_str(pb, "secretKey")) {
        /* The checkout's payment intent's secret, for the
         * traveller's device; only the transactionId is kept for book. */
        json_object_set_new(*priced, "payment_sdk",
                            json_pack("{s:s,s:s}", "provider", SDK_PROVIDER, "token",
                                      trv_json_str(pb, "secretKey")));
    }
    return TRV_UP_OK;
}

/* ---- bookings ---- */

static trv_up_status order_of(trv_flight_ctx *ctx, const json_t *b, json_t **order,
                              trv_sup_err *err)
{
    const char *s = trv_json_str(b, "status"), *ps = trv_json_str(b, "paymentStatus");
    const json_t *pay = json_object_get(b, "payment"), *loc = json_object_get(b, "airlineLocators");
    const char *pnr = trv_json_str(json_array_get(loc, 0), "airlinePnr");
    trv_forder_status status;
    json_t *out;
    if (!json_is_object(b) || !trv_json_str(b, "bookingId") || !s) {
        return bad(ctx, err, "a readable booking");
    }
    if (!pnr) {
        pnr = trv_json_str(json_object_get(json_object_get(json_object_get(b, "order"),
                                                           "reference"), "provider"), "pnr");
    }
    if (strcmp(s, "TICKETED") == 0
        || (strcmp(s, "CONFIRMED") == 0
            && trv_json_str(json_object_get(b, "ticketData"), "ticketedAt"))) {
        status = TRV_FORDER_TICKETED;
    }
    else if (strncmp(s, "CANCELLED", 9) == 0) {
        /* A booking cancelled with its payment failed was never issued. */
        status = ps && strcmp(ps, "failed") == 0 ? TRV_FORDER_FAILED : TRV_FORDER_CANCELED;
    }
    else if (strcmp(s, "PENDING") == 0 || strcmp(s, "CONFIRMED") == 0
             || strcmp(s, "PENDING_CONFIRMATION") == 0) {
        status = TRV_FORDER_PENDING;
    }
    else {
        return bad(ctx, err, "a known booking status");
    }
    out = json_pack("{s:s,s:s,s:s?,s:[]}", "order_id", trv_json_str(b, "bookingId"),
                    "status", trv_transit_text(&trv_forder_status_table, status),
                    "airline_pnr", status != TRV_FORDER_FAILED ? pnr : NULL,
                    /* LiteAPI sends schedule changes as webhooks, not in the
                     * booking: none are read here. */
                    "airline_initiated_changes");
    if (status == TRV_FORDER_FAILED) {
        const char *why = trv_json_str(json_array_get(json_object_get(b, "remarks"), 0), "value");
        json_object_set_new(out, "failure", json_pack("{s:s,s:s}", "code", "book_failed",
            "description", why ? why : "The airline could not issue the tickets"));
    }
    else if (json_is_object(pay)) {
        json_t *amount = trv_fwire_money(json_object_get(pay, "amount"),
                                         trv_json_str(pay, "currency"));
        /* LiteAPI collected it (its payment SDK); it shows no card. */
        json_object_set_new(out, "payment", json_pack("{s:s,s:o?}", "collected_by",
                                                      ctx->up->name, "amount", amount));
    }
    *order = trv_json_bind(ctx->pool, out);
    return TRV_UP_OK;
}

static trv_up_status lf_book(trv_flight_ctx *ctx, const json_t *booking, const json_t *payment,
                             const char *idempotency_key, json_t **order, trv_sup_err *err)
{
    const json_t *sd = json_object_get(booking, "supplier_data");
    const char *pid = trv_json_str(sd, "prebook_id"), *tx = trv_json_str(sd, "transaction_id");
    json_t *body;
    trv_up_result res;
    trv_up_status st;
    (void)payment; /* LiteAPI collects the payment itself */
    if (!pid || !tx) {
        err->code = "invalid_booking";
        err->message = "the booking has no liteapi-flights prebook";
        return TRV_UP_REJECTED;
    }
    body = trv_json_bind(ctx->pool, json_pack("{s:s,s:{s:s,s:s}}", "prebookId", pid,
                                              "payment", "method", "TRANSACTION_ID",
                                              "transactionId", tx));
    /* LiteAPI books a prebook once: a repeat answers that booking. */
    st = call_as(ctx, "POST", "/flights/bookings", body, idempotency_key, 0, &res, err);
    if (st != TRV_UP_OK) {
        return st;
    }
    return order_of(ctx, json_object_get(first_data(res.body), "booking"), order, err);
}

static const char *booking_path(trv_flight_ctx *ctx, const char *id, const char *tail)
{
    return apr_pstrcat(ctx->pool, "/flights/bookings/", trv_url_escape(ctx->pool, id), tail,
                       NULL);
}

static trv_up_status lf_read_order(trv_flight_ctx *ctx, const char *order_id, json_t **order,
                                   trv_sup_err *err)
{
    trv_up_result res;
    trv_up_status st = call(ctx, "GET", booking_path(ctx, order_id, ""), NULL, &res, err);
    if (st != TRV_UP_OK) {
        return st;
    }
    return order_of(ctx, json_object_get(first_data(res.body), "booking"), order, err);
}

static trv_up_status lf_cancellation_quote(trv_flight_ctx *ctx, const char *order_id,
                                           json_t **quote, trv_sup_err *err)
{
    trv_up_result res;
    const json_t *q;
    json_t *fee, *refund;
    const char *conf;
    trv_up_status st = call(ctx, "GET", booking_path(ctx, order_id, "/cancellations"), NULL,
                            &res, err);
    if (st != TRV_UP_OK) {
        return st;
    }
    q = first_data(res.body);
    conf = trv_json_str(q, "confidence");
    if (conf && strcmp(conf, "unknown") == 0) {
        /* No amounts the airline stands by: the caller estimates. */
        err->code = "quote_unavailable";
        err->message = apr_psprintf(ctx->pool, "%s cannot quote this cancellation",
                                    ctx->up->name);
        return TRV_UP_REJECTED;
    }
    refund = display_money(json_object_get(q, "refund"));
    fee = display_money(json_object_get(q, "penalty"));
    if (!refund) {
        json_decref(fee);
        return bad(ctx, err, "a readable cancellation quote");
    }
    *quote = trv_json_bind(ctx->pool, json_pack("{s:o,s:o}", "fee", fee ? fee : json_null(),
                                                "refundable_amount", refund));
    return TRV_UP_OK;
}

static trv_up_status lf_cancel(trv_flight_ctx *ctx, const char *order_id,
                               const char *idempotency_key, json_t **result, trv_sup_err *err)
{
    trv_up_result res;
    const json_t *d;
    const char *status, *cur;
    json_t *fee, *refund;
    trv_up_status st;
    /* A repeat while pending or after: the same outcome. */
    st = call_as(ctx, "POST", booking_path(ctx, order_id, "/cancellations"), NULL,
                 idempotency_key, 0, &res, err);
    if (st == TRV_UP_REJECTED) {
        err->code = "cancellation_rejected";
        return st;
    }
    if (st != TRV_UP_OK) {
        return st;
    }
    d = first_data(res.body);
    status = trv_json_str(d, "status");
    if (res.http_status == 202 || (status && strcmp(status, "CONFIRMED") == 0)) {
        /* Accepted, not yet final: the booking is unchanged until the
         * airline confirms; asking again is safe. */
        err->code = "cancellation_pending";
        err->message = apr_psprintf(ctx->pool, "%s: the airline has not confirmed the "
                                    "cancellation yet", ctx->up->name);
        return TRV_UP_UNAVAILABLE;
    }
    cur = trv_json_str(d, "currency");
    fee = trv_fwire_money(json_object_get(d, "cancellation_fee"), cur);
    refund = trv_fwire_money(json_object_get(d, "refund_amount"), cur);
    if (!status || strncmp(status, "CANCELLED", 9) != 0 || !fee || !refund) {
        json_decref(fee);
        json_decref(refund);
        return bad(ctx, err, "a cancelled booking with its fee and refund");
    }
    *result = trv_json_bind(ctx->pool, json_pack("{s:o,s:o}", "fee", fee, "refund_amount",
                                                 refund));
    return TRV_UP_OK;
}

static trv_up_status lf_airline(trv_flight_ctx *ctx, const char *iata_code, json_t **airline,
                                trv_sup_err *err)
{
    trv_up_result res;
    const json_t *a;
    trv_up_status st = call(ctx, "GET", apr_pstrcat(ctx->pool, "/data/flights/airlines/iatas/",
                                                    trv_url_escape(ctx->pool, iata_code), NULL),
                            NULL, &res, err);
    if (st != TRV_UP_OK) {
        return st;
    }
    a = json_object_get(first_data(res.body), "airline");
    if (!trv_json_str(a, "iata") || !trv_json_str(a, "name")) {
        return bad(ctx, err, "a readable airline");
    }
    *airline = trv_json_bind(ctx->pool, json_pack("{s:s,s:s?,s:s,s:s?,s:s?,s:s?,s:b}",
        "iata_code", trv_json_str(a, "iata"), "icao_code", trv_json_str(a, "icao"),
        "name", trv_json_str(a, "name"), "country", trv_json_str(a, "country"),
        "alliance", trv_json_str(a, "alliance"), "logo_url", trv_json_str(a, "logo"),
        "is_active", !json_is_false(json_object_get(a, "active"))));
    return TRV_UP_OK;
}

const trv_flight_supplier trv_flight_supplier_b = {
    NAME,
    PREFIX,
    lf_search,
    lf_bags,
    lf_prebook,
    lf_book,
    lf_read_order,
    lf_cancellation_quote,
    lf_cancel,
    lf_airline,
    NULL, /* find_order: LiteAPI Flights is not looked up (docs/suppliers.md) */
};
