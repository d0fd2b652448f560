/* SUPPLIER_A: a Duffel-style flights API under /suppliers/a.
 *
 *   POST /air/offer_requests                       search; offers in the answer
 *   GET  /air/offers/{id}[?return_available_services=true]
 *   POST /air/offers/{id}/actions/price            re-price for passengers
 *                                                  (loyalty accounts) and services
 *   POST /air/orders                               book and ticket (Idempotency-Key)
 *   GET  /air/orders/{id}
 *   POST /air/order_cancellations                  a cancellation quote
 *   GET  /air/order_cancellations/{id}
 *   POST /air/order_cancellations/{id}/actions/confirm   cancel
 *   GET  /air/airlines/{iata_code}
 *
 * Bodies and answers are wrapped in {"data": ...}; amounts are decimal
 * strings with a separate currency. A reserves nothing before an order,
 * sells each offer once, and grants a member price to a passenger with a
 * loyalty account at a carrier of the itinerary. The service pays A from
 * its balance (the card is charged by the service's own payment provider). */
#include "air.h"
#include "core/clock.h"
#include "core/ids.h"

#include <apr_lib.h>
#include <apr_strings.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define A_MAX_OFFERS 200
#define A_CANCEL_QUOTE_TTL 900

static const trv_stmt a_cancel_insert = {"sbx_a_cancel_insert",
    "INSERT INTO sandbox.order_cancellations (id, order_id, currency, penalty_minor, "
    "refund_minor, refund_to, expires_at) VALUES (%s, %s, %s, %s::bigint, %s::bigint, "
    "'balance', clock_timestamp() + interval '15 minutes') RETURNING trv_ts(created_at) "
    "AS created_at, trv_ts(expires_at) AS expires_at"};
static const trv_stmt a_cancel_get = {"sbx_a_cancel_get",
    "SELECT k.id, k.order_id, k.currency, k.penalty_minor, k.refund_minor, k.refund_to, "
    "trv_ts(k.expires_at) AS expires_at, k.expires_at < clock_timestamp() AS expired, "
    "trv_ts(k.confirmed_at) AS confirmed_at, trv_ts(k.created_at) AS created_at, "
    "o.status AS order_status, o.trigger "
    "FROM sandbox.order_cancellations k JOIN sandbox.flight_orders o ON o.id = k.order_id "
    "WHERE k.id = %s AND o.supplier = 'A'"};
static const trv_stmt a_cancel_lock = {"sbx_a_cancel_lock",
    "SELECT o.status FROM sandbox.flight_orders o JOIN sandbox.order_cancellations k "
    "ON k.order_id = o.id WHERE k.id = %s FOR UPDATE OF o, k"};
static const trv_stmt a_cancel_confirm = {"sbx_a_cancel_confirm",
    "UPDATE sandbox.order_cancellations SET confirmed_at = clock_timestamp() WHERE id = %s"};
static const trv_stmt a_order_cancel = {"sbx_a_order_cancel",
    "UPDATE sandbox.flight_orders SET status = 'cancelled', cancelled_at = clock_timestamp(), "
    "updated_at = clock_timestamp(), cancellation = %s::jsonb WHERE id = %s"};

/* ---- rendering ---- */

static json_t *place(const sbx_world *w, int i)
{
    const sbx_airport *a = &w->airports[i];
    return json_pack("{s:s,s:s,s:s,s:s,s:s,s:s?,s:f,s:f,s:s}", "type", "airport",
                     "iata_code", a->iata, "icao_code", a->icao, "name", a->name,
                     "city_name", a->city, "time_zone", a->tz_name, "latitude", a->lat,
                     "longitude", a->lon, "iata_country_code", a->country_code);
}

static json_t *airline(apr_pool_t *p, const sbx_airline *a)
{
    return json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s?,s:b}",
                     "id", apr_pstrcat(p, "arl_", a->iata, NULL), "iata_code", a->iata,
                     "icao_code", a->icao, "name", a->name,
                     "logo_symbol_url", sbx_logo_url(p, a->iata),
                     "country", a->country, "country_code", a->country_code,
                     "alliance", a->alliance, "active", a->active);
}

/* Duffel writes cabin classes in lower case. */
static const char *lower(apr_pool_t *p, const char *s)
{
    char *out = apr_pstrdup(p, s), *c;
    for (c = out; *c; c++) {
        *c = (char)apr_tolower(*c);
    }
    return out;
}

static const char *pax_type_name(int t)
{
    return t == 0 ? "adult" : t == 1 ? "child" : "infant_without_seat";
}

static const char *pax_id(apr_pool_t *p, const sbx_offer *o, int i)
{
    return apr_psprintf(p, "pas_%s-%d", o->tag, i);
}

static const char *seg_id(apr_pool_t *p, const sbx_offer *o, int j, int k)
{
    return apr_psprintf(p, "seg_%s-%d-%d", o->tag, j, k);
}

static json_t *conditions(apr_pool_t *p, const sbx_offer *o)
{
    const sbx_brand *b = sbx_offer_brand(o);
    json_t *refund = json_pack("{s:b}", "allowed", b->refund_allowed);
    json_t *change = json_pack("{s:b}", "allowed", b->change_allowed);
    if (b->refund_allowed) {
        json_object_set_new(refund, "penalty_amount",
                            json_string(sbx_amount(p, sbx_offer_refund_penalty(o), o->currency)));
        json_object_set_new(refund, "penalty_currency", json_string(o->currency));
    }
    else {
        json_object_set_new(refund, "penalty_amount", json_null());
        json_object_set_new(refund, "penalty_currency", json_null());
    }
    if (b->change_allowed) {
        json_object_set_new(change, "penalty_amount",
                            json_string(sbx_amount(p, sbx_offer_change_penalty(o), o->currency)));
        json_object_set_new(change, "penalty_currency", json_string(o->currency));
    }
    else {
        json_object_set_new(change, "penalty_amount", json_null());
        json_object_set_new(change, "penalty_currency", json_null());
    }
    return json_pack("{s:o,s:o}", "refund_before_departure", refund,
                     "change_before_departure", change);
}

static json_t *slices(apr_pool_t *p, const sbx_world *w, const sbx_offer *o)
{
    json_t *out = json_array();
    const sbx_brand *b = sbx_offer_brand(o);
    int j, k, i;
    for (j = 0; j < o->q.nj; j++) {
        const sbx_itin *it = &o->it[j];
        json_t *segs = json_array();
        int km = 0;
        for (k = 0; k < it->n; k++) {
            km += it->legs[k].km;
        }
        for (k = 0; k < it->n; k++) {
            const sbx_leg *l = &it->legs[k];
            char dep[20], arr[20];
            json_t *pax = json_array();
            sbx_local_format(l->dep_local, dep);
            sbx_local_format(l->arr_local, arr);
            for (i = 0; i < sbx_pax_count(o); i++) {
                int seat = sbx_pax_type(o, i) != 2;
                json_array_append_new(pax, json_pack(
                    "{s:s,s:s,s:s,s:[{s:s,s:i},{s:s,s:i}]}",
                    "passenger_id", pax_id(p, o, i),
                    "cabin_class", lower(p, sbx_cabin_code(o->q.cabin)),
                    "cabin_class_marketing_name", sbx_cabin_display(o->q.cabin),
                    "baggages", "type", "checked", "quantity", seat ? b->checked_bags : 0,
                    "type", "carry_on", "quantity", seat ? sbx_brand_carry_on(b, km) : 0));
            }
            json_array_append_new(segs, json_pack(
                "{s:s,s:o,s:o,s:s,s:s,s:s,s:s,s:o,s:s,s:o,s:s,s:{s:s},s:o}",
                "id", seg_id(p, o, j, k),
                "origin", place(w, l->from), "destination", place(w, l->to),
                "departing_at", dep, "arriving_at", arr,
                "duration", sbx_duration(p, l->block_min),
                "distance", apr_itoa(p, l->km),
                "marketing_carrier", airline(p, &w->airlines[l->mkt]),
                "marketing_carrier_flight_number", apr_itoa(p, l->flight_no),
                "operating_carrier", airline(p, &w->airlines[l->op]),
                "operating_carrier_flight_number", apr_itoa(p, l->op_flight_no),
                "aircraft", "iata_code", l->equipment,
                "passengers", pax));
        }
        json_array_append_new(out, json_pack(
            "{s:s,s:o,s:o,s:s,s:s,s:o}",
            "id", apr_psprintf(p, "sli_%s-%d", o->tag, j),
            "origin", place(w, o->q.j[j].origin), "destination", place(w, o->q.j[j].dest),
            "duration", sbx_duration(p, sbx_itin_minutes(it)),
            "fare_brand_name", b->name, "segments", segs));
    }
    return out;
}

static json_t *services_of(apr_pool_t *p, const sbx_offer *o)
{
    sbx_bag bags[SBX_MAX_PAX * SBX_MAX_JOURNEYS * 2];
    int n = sbx_offer_bags(o, bags, (int)(sizeof(bags) / sizeof(bags[0]))), i, k;
    json_t *out = json_array();
    for (i = 0; i < n; i++) {
        json_t *segs = json_array();
        for (k = 0; k < o->it[bags[i].journey].n; k++) {
            json_array_append_new(segs, json_string(seg_id(p, o, bags[i].journey, k)));
        }
        json_array_append_new(out, json_pack(
            "{s:s,s:s,s:{s:s,s:i},s:[s],s:o,s:s,s:s,s:i}",
            "id", apr_psprintf(p, "ase_%s-%s", o->tag, bags[i].suffix),
            "type", "baggage",
            "metadata", "type", bags[i].type == SBX_BAG_CHECKED ? "checked" : "carry_on",
            "maximum_weight_kg", bags[i].weight_kg,
            "passenger_ids", pax_id(p, o, bags[i].pax),
            "segment_ids", segs,
            "total_amount", sbx_amount(p, bags[i].unit, o->currency),
            "total_currency", o->currency,
            "maximum_quantity", bags[i].max_qty));
    }
    return out;
}

static json_t *render_offer(apr_pool_t *p, const sbx_world *w, const sbx_offer *o,
                            int with_services)
{
    json_t *pax = json_array(), *loyalty = json_array(), *doc;
    const sbx_brand *b = sbx_offer_brand(o);
    int i, j, k;
    for (i = 0; i < sbx_pax_count(o); i++) {
        json_array_append_new(pax, json_pack("{s:s,s:s}", "id", pax_id(p, o, i), "type",
                                             pax_type_name(sbx_pax_type(o, i))));
    }
    for (j = 0; j < o->q.nj; j++) {
        for (k = 0; k < o->it[j].n; k++) {
            const char *codes[2] = {w->airlines[o->it[j].legs[k].mkt].iata,
                                    w->airlines[o->it[j].legs[k].op].iata};
            int c;
            for (c = 0; c < 2; c++) {
                size_t x;
                int seen = 0;
                for (x = 0; x < json_array_size(loyalty); x++) {
                    seen |= strcmp(json_string_value(json_array_get(loyalty, x)), codes[c]) == 0;
                }
                if (!seen) {
                    json_array_append_new(loyalty, json_string(codes[c]));
                }
            }
        }
    }
    doc = json_pack("{s:s,s:b,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:o,s:b,s:o,s:o,s:o,s:o,s:s}",
        "id", apr_pstrcat(p, "off_", o->ref, NULL), "live_mode", 0,
        "expires_at", sbx_instant(p, o->expires),
        "total_amount", sbx_amount(p, o->base + o->tax, o->currency),
        "total_currency", o->currency,
        "base_amount", sbx_amount(p, o->base, o->currency), "base_currency", o->currency,
        "tax_amount", sbx_amount(p, o->tax, o->currency), "tax_currency", o->currency,
        "cabin_class", lower(p, sbx_cabin_code(o->q.cabin)),
        "owner", airline(p, &w->airlines[o->it[0].legs[0].mkt]),
        "passenger_identity_documents_required", sbx_offer_international(w, o),
        "supported_loyalty_programmes", loyalty,
        "conditions", conditions(p, o),
        "passengers", pax, "slices", slices(p, w, o),
        "fare_brand_name", b->name);
    if (with_services) {
        json_object_set_new(doc, "available_services", services_of(p, o));
    }
    return doc;
}

/* ---- offer requests ---- */

static int parse_pax(trv_req *req, trv_resp *resp, const json_t *pax, sbx_search *q)
{
    size_t i;
    if (!json_is_array(pax) || json_array_size(pax) == 0) {
        sbx_invalid(req, resp, "data.passengers", "must be a non-empty list");
        return 0;
    }
    for (i = 0; i < json_array_size(pax); i++) {
        const char *t = trv_json_str(json_array_get(pax, i), "type");
        if (t && strcmp(t, "adult") == 0) {
            q->adults++;
        }
        else if (t && strcmp(t, "child") == 0) {
            q->children++;
        }
        else if (t && strcmp(t, "infant_without_seat") == 0) {
            q->infants++;
        }
        else {
            sbx_invalid(req, resp, apr_psprintf(req->pool, "data.passengers[%d].type", (int)i),
                        "must be adult, child or infant_without_seat");
            return 0;
        }
    }
    return 1;
}

static void offer_request(trv_req *req, trv_resp *resp)
{
    const sbx_ctx *x = SBX(req);
    const json_t *body, *d, *sl;
    sbx_search q;
    sbx_offer *offers;
    const char *reason, *field, *cabin;
    int n, truncated, i, limit = 50, bad;
    json_t *list, *req_slices;
    apr_int64_t now = sbx_now();

    if (!sbx_need_world(req, resp) || !(body = sbx_body(req, resp))) {
        return;
    }
    memset(&q, 0, sizeof(q));
    d = json_object_get(body, "data");
    sl = json_object_get(d, "slices");
    if (!json_is_object(d)) {
        sbx_invalid(req, resp, "data", "is required");
        return;
    }
    if (!json_is_array(sl) || json_array_size(sl) < 1 || json_array_size(sl) > SBX_MAX_JOURNEYS) {
        sbx_invalid(req, resp, "data.slices", "must list 1 to 4 slices");
        return;
    }
    q.nj = (int)json_array_size(sl);
    for (i = 0; i < q.nj; i++) {
        const json_t *s = json_array_get(sl, (size_t)i);
        q.j[i].origin = sbx_airport_find(x->world, trv_json_str(s, "origin"));
        q.j[i].dest = sbx_airport_find(x->world, trv_json_str(s, "destination"));
        q.j[i].day = sbx_day_parse(trv_json_str(s, "departure_date"));
        if (q.j[i].origin < 0 || q.j[i].dest < 0) {
            sbx_invalid(req, resp, apr_psprintf(req->pool, "data.slices[%d]", i),
                        "origin and destination must be IATA airport codes the airline serves");
            return;
        }
        if (q.j[i].day < 0) {
            sbx_invalid(req, resp,
                        apr_psprintf(req->pool, "data.slices[%d].departure_date", i),
                        "must be a date YYYY-MM-DD");
            return;
        }
    }
    if (!parse_pax(req, resp, json_object_get(d, "passengers"), &q)) {
        return;
    }
    cabin = trv_json_str(d, "cabin_class");
    q.cabin = cabin ? sbx_cabin_parse(cabin) : SBX_ECONOMY;
    if (q.cabin < 0) {
        sbx_invalid(req, resp, "data.cabin_class",
                    "must be economy, premium_economy, business or first");
        return;
    }
    if (json_object_get(d, "max_offers")) {
        json_t *m = json_object_get(d, "max_offers");
        if (!json_is_integer(m) || json_integer_value(m) < 1
            || json_integer_value(m) > A_MAX_OFFERS) {
            sbx_invalid(req, resp, "data.max_offers", "must be an integer from 1 to 200");
            return;
        }
        limit = (int)json_integer_value(m);
    }
    if ((reason = sbx_search_check(x->world, &q, (long)(now / 86400), &field, &bad))) {
        sbx_invalid(req, resp, bad < 0 ? apr_pstrcat(req->pool, "data.", field, NULL)
                                       : apr_psprintf(req->pool, "data.slices[%d]", bad), reason);
        return;
    }
    n = sbx_search_run(req->pool, x->world, &q, 'A', x->set->key_a, now,
                       apr_time_sec(x->set->offer_ttl_a), limit,
                       sbx_nonce(), &offers, &truncated);
    list = json_array();
    for (i = 0; i < n; i++) {
        json_array_append_new(list, render_offer(req->pool, x->world, &offers[i], 0));
    }
    req_slices = json_deep_copy(sl);
    sbx_send(req, resp, 201, json_pack(
        "{s:{s:s,s:b,s:s,s:s,s:o,s:o},s:{s:i,s:b}}",
        "data", "id", trv_id_new(req->pool, "orq"), "live_mode", 0,
        "created_at", sbx_instant(req->pool, now),
        "cabin_class", lower(req->pool, sbx_cabin_code(q.cabin)), "slices", req_slices, "offers", list,
        "meta", "offers_returned", n, "has_more", truncated));
}

/* The offer named in the path (off_...), priced as of now; answers 404
 * for an unknown one and 422 offer_no_longer_available for an expired one. */
static int load_offer(trv_req *req, trv_resp *resp, const char *id, sbx_offer *o)
{
    const sbx_ctx *x = SBX(req);
    apr_int64_t now = sbx_now();
    if (!id || strncmp(id, "off_", 4) != 0
        || sbx_offer_decode(req->pool, x->world, id + 4, 'A', x->set->key_a, now, o) != 0) {
        sbx_error(req, resp, 404, "not_found", "No offer %s", id ? id : "");
        return 0;
    }
    if (o->expires <= now) {
        sbx_error(req, resp, 422, "offer_no_longer_available",
                  "The offer expired at %s; search again", sbx_instant(req->pool, o->expires));
        return 0;
    }
    return 1;
}

static void get_offer(trv_req *req, trv_resp *resp)
{
    sbx_offer o;
    const char *svc = apr_table_get(req->query, "return_available_services");
    if (!sbx_need_world(req, resp)
        || !load_offer(req, resp, apr_table_get(req->params, "offer_id"), &o)) {
        return;
    }
    sbx_send(req, resp, 200, json_pack("{s:o}", "data",
             render_offer(req->pool, SBX(req)->world, &o, svc && strcmp(svc, "true") == 0)));
}

/* ---- pricing passengers and services ---- */

typedef struct a_priced {
    apr_int64_t base, tax, discount, services, total;
    json_t *services_json;
    int member;
    const char *trigger;
} a_priced;

/* Checks the passengers and services of a price or order request against
 * the offer and prices them. names: the order needs names too. */
static int price_request(trv_req *req, trv_resp *resp, const sbx_offer *o, const json_t *pax,
                         const json_t *svcs, int names, a_priced *out)
{
    const sbx_world *w = SBX(req)->world;
    int count = sbx_pax_count(o), i, seen[SBX_MAX_PAX] = {0};
    sbx_bag bags[SBX_MAX_PAX * SBX_MAX_JOURNEYS * 2];
    int nb = sbx_offer_bags(o, bags, (int)(sizeof(bags) / sizeof(bags[0])));
    int used[SBX_MAX_PAX * SBX_MAX_JOURNEYS * 2] = {0};
    size_t k;

    memset(out, 0, sizeof(*out));
    out->base = o->base;
    out->tax = o->tax;
    out->services_json = json_array();
    trv_json_bind(req->pool, out->services_json);
    if (!json_is_array(pax) || (int)json_array_size(pax) != count) {
        sbx_invalid(req, resp, "data.passengers",
                    apr_psprintf(req->pool, "must list the offer's %d passengers", count));
        return 0;
    }
    for (k = 0; k < json_array_size(pax); k++) {
        const json_t *p = json_array_get(pax, k);
        const char *id = trv_json_str(p, "id");
        const json_t *acc = json_object_get(p, "loyalty_programme_accounts");
        const char *field = apr_psprintf(req->pool, "data.passengers[%d]", (int)k);
        apr_int64_t best = 0;
        size_t a;
        for (i = 0; i < count; i++) {
            if (id && strcmp(id, pax_id(req->pool, o, i)) == 0) {
                break;
            }
        }
        if (i == count || seen[i]) {
            sbx_invalid(req, resp, apr_pstrcat(req->pool, field, ".id", NULL),
                        "must be one of the offer's passenger ids, each once");
            return 0;
        }
        seen[i] = 1;
        if (names) {
            const char *given = trv_json_str(p, "given_name");
            const char *family = trv_json_str(p, "family_name");
            const char *born = trv_json_str(p, "born_on");
            apr_time_t t;
            if (!given || !*given || !family || !*family) {
                sbx_invalid(req, resp, field, "given_name and family_name are required");
                return 0;
            }
            if (!born || trv_date_parse(born, &t) != APR_SUCCESS) {
                sbx_invalid(req, resp, apr_pstrcat(req->pool, field, ".born_on", NULL),
                            "must be a date YYYY-MM-DD");
                return 0;
            }
            if (!out->trigger) {
                out->trigger = sbx_trigger_of(family);
            }
        }
        if (acc && !json_is_array(acc)) {
            sbx_invalid(req, resp, apr_pstrcat(req->pool, field, ".loyalty_programme_accounts",
                                               NULL), "must be a list");
            return 0;
        }
        for (a = 0; a < json_array_size(acc); a++) {
            const json_t *e = json_array_get(acc, a);
            const char *code = trv_json_str(e, "airline_iata_code");
            const char *num = trv_json_str(e, "account_number");
            apr_int64_t d;
            if (!code || !num || !*num) {
                sbx_invalid(req, resp, apr_psprintf(req->pool,
                            "%s.loyalty_programme_accounts[%d]", field, (int)a),
                            "airline_iata_code and account_number are required");
                return 0;
            }
            /* One account counts per passenger: the best. */
            d = sbx_member_discount(w, o, i, code);
            if (d > best) {
                best = d;
            }
        }
        if (best > 0) {
            out->discount += best;
            out->member = 1;
        }
    }
    if (svcs && !json_is_array(svcs)) {
        sbx_invalid(req, resp, "data.services", "must be a list");
        return 0;
    }
    for (k = 0; k < json_array_size(svcs); k++) {
        const json_t *s = json_array_get(svcs, k);
        const char *id = trv_json_str(s, "id");
        const json_t *qv = json_object_get(s, "quantity");
        const char *prefix = apr_psprintf(req->pool, "ase_%s-", o->tag);
        int b = -1;
        json_int_t qty = json_is_integer(qv) ? json_integer_value(qv) : -1;
        if (id && strncmp(id, prefix, strlen(prefix)) == 0) {
            b = sbx_bag_find(bags, nb, id + strlen(prefix));
        }
        if (b < 0 || used[b]) {
            sbx_invalid(req, resp, apr_psprintf(req->pool, "data.services[%d].id", (int)k),
                        "must be an available service of this offer, listed once");
            return 0;
        }
        if (qty < 1 || qty > bags[b].max_qty) {
            sbx_invalid(req, resp,
                        apr_psprintf(req->pool, "data.services[%d].quantity", (int)k),
                        apr_psprintf(req->pool, "must be 1 to %d", bags[b].max_qty));
            return 0;
        }
        used[b] = 1;
        out->services += bags[b].unit * qty;
        json_array_append_new(out->services_json, json_pack(
            "{s:s,s:s,s:I,s:s,s:s,s:s,s:s,s:{s:s,s:i},s:i}",
            "id", id, "type", "baggage", "quantity", qty,
            "unit_amount", sbx_amount(req->pool, bags[b].unit, o->currency),
            "total_amount", sbx_amount(req->pool, bags[b].unit * qty, o->currency),
            "total_currency", o->currency,
            "passenger_id", pax_id(req->pool, o, bags[b].pax),
            "metadata", "type", bags[b].type == SBX_BAG_CHECKED ? "checked" : "carry_on",
            "maximum_weight_kg", bags[b].weight_kg,
            "slice_index", bags[b].journey));
    }
    out->base -= out->discount;
    out->total = out->base + out->tax + out->services;
    return 1;
}

static void apply_price(apr_pool_t *p, json_t *doc, const sbx_offer *o, const a_priced *pr)
{
    json_object_set_new(doc, "base_amount", json_string(sbx_amount(p, pr->base, o->currency)));
    json_object_set_new(doc, "tax_amount", json_string(sbx_amount(p, pr->tax, o->currency)));
    json_object_set_new(doc, "services_amount",
                        json_string(sbx_amount(p, pr->services, o->currency)));
    json_object_set_new(doc, "loyalty_discount_amount",
                        json_string(sbx_amount(p, pr->discount, o->currency)));
    json_object_set_new(doc, "total_amount", json_string(sbx_amount(p, pr->total, o->currency)));
    json_object_set_new(doc, "member_pricing", json_boolean(pr->member));
    json_object_set(doc, "services", pr->services_json);
}

static void price_offer(trv_req *req, trv_resp *resp)
{
    sbx_offer o;
    const json_t *body, *d;
    a_priced pr;
    json_t *doc;
    if (!sbx_need_world(req, resp) || !(body = sbx_body(req, resp))
        || !load_offer(req, resp, apr_table_get(req->params, "offer_id"), &o)) {
        return;
    }
    d = json_object_get(body, "data");
    if (!price_request(req, resp, &o, json_object_get(d, "passengers"),
                       json_object_get(d, "services"), 0, &pr)) {
        return;
    }
    doc = render_offer(req->pool, SBX(req)->world, &o, 0);
    apply_price(req->pool, doc, &o, &pr);
    sbx_send(req, resp, 200, json_pack("{s:o}", "data", doc));
}

/* ---- orders ---- */

static json_t *order_json(trv_req *req, trv_dbc *c, const trv_rows *r, int *ok)
{
    apr_pool_t *p = req->pool;
    const char *status = trv_rows_get(r, 0, "status");
    json_t *doc = trv_json_parse(p, trv_rows_get(r, 0, "doc"),
                                 strlen(trv_rows_get(r, 0, "doc")), NULL);
    json_t *changes = sbx_order_changes(c, p, trv_rows_get(r, 0, "id"));
    json_t *aic = json_array(), *docs = json_array();
    const char *cancelled = trv_rows_get(r, 0, "cancelled_at");
    size_t i;

    *ok = doc && changes;
    if (!*ok) {
        json_decref(aic);
        json_decref(docs);
        return NULL;
    }
    doc = json_deep_copy(doc);
    for (i = 0; i < json_array_size(changes); i++) {
        /* Duffel's shape: what the airline removed and what it added. */
        const json_t *ch = json_array_get(changes, i);
        const json_t *prev = json_object_get(ch, "previous"), *cur = json_object_get(ch, "current");
        json_array_append_new(aic, json_pack(
            "{s:O,s:O,s:n,s:[s,s,s],s:[{s:I,s:[{s:O,s:O,s:O,s:O,s:O,s:O}]}],"
            "s:[{s:I,s:[{s:O,s:O,s:O,s:O,s:O,s:O}]}],s:O}",
            "id", json_object_get(ch, "id"), "created_at", json_object_get(ch, "created_at"),
            "action_taken", "available_actions", "accept", "cancel", "change",
            "removed", "slice_index", json_integer_value(json_object_get(ch, "journey_index")),
            "segments", "id", json_object_get(ch, "segment_id"),
            "flight", json_object_get(ch, "flight"), "origin", json_object_get(ch, "origin"),
            "destination", json_object_get(ch, "destination"),
            "departing_at", json_object_get(prev, "departure_time"),
            "arriving_at", json_object_get(prev, "arrival_time"),
            "added", "slice_index", json_integer_value(json_object_get(ch, "journey_index")),
            "segments", "id", json_object_get(ch, "segment_id"),
            "flight", json_object_get(ch, "flight"), "origin", json_object_get(ch, "origin"),
            "destination", json_object_get(ch, "destination"),
            "departing_at", json_object_get(cur, "departure_time"),
            "arriving_at", json_object_get(cur, "arrival_time"),
            "delay_minutes", json_object_get(ch, "delay_minutes")));
    }
    if (strcmp(status, "ticketed") == 0 || strcmp(status, "cancelled") == 0) {
        const json_t *pax = json_object_get(doc, "passengers");
        for (i = 0; i < json_array_size(pax); i++) {
            const json_t *e = json_array_get(pax, i);
            json_array_append_new(docs, json_pack("{s:s,s:O,s:[O]}", "type",
                                                  "electronic_ticket", "unique_identifier",
                                                  json_object_get(e, "ticket_number"),
                                                  "passenger_ids", json_object_get(e, "id")));
        }
    }
    json_object_set_new(doc, "id", json_string(trv_rows_get(r, 0, "id")));
    json_object_set_new(doc, "live_mode", json_false());
    json_object_set_new(doc, "booking_reference", json_string(trv_rows_get(r, 0, "pnr")));
    json_object_set_new(doc, "status", json_string(
        strcmp(status, "pending") == 0 ? "pending_ticketing" : status));
    json_object_set_new(doc, "documents", docs);
    json_object_set_new(doc, "airline_initiated_changes", aic);
    json_object_set_new(doc, "created_at", json_string(trv_rows_get(r, 0, "created_at")));
    json_object_set_new(doc, "cancelled_at", cancelled ? json_string(cancelled) : json_null());
    json_object_set_new(doc, "payment_status", json_pack("{s:b,s:s}", "awaiting_payment", 0,
                                                         "paid_at",
                                                         trv_rows_get(r, 0, "created_at")));
    return doc;
}

static void create_order(trv_req *req, trv_resp *resp)
{
    const sbx_ctx *x = SBX(req);
    const json_t *body, *d, *offers, *pays, *pay, *pax;
    sbx_offer o;
    a_priced pr;
    json_t *doc, *segs, *out, *passengers;
    apr_int64_t paid;
    sbx_order_new ord;
    trv_dbc *c;
    trv_rows *rows;
    int dup, j, k, ok;
    size_t i;
    const char *order_id = trv_id_new(req->pool, "ord");

    if (!sbx_need_world(req, resp) || !(body = sbx_body(req, resp))) {
        return;
    }
    d = json_object_get(body, "data");
    offers = json_object_get(d, "selected_offers");
    if (!json_is_array(offers) || json_array_size(offers) != 1
        || !json_is_string(json_array_get(offers, 0))) {
        sbx_invalid(req, resp, "data.selected_offers", "must list exactly one offer id");
        return;
    }
    if (trv_json_str(d, "type") && strcmp(trv_json_str(d, "type"), "instant") != 0) {
        sbx_invalid(req, resp, "data.type", "only instant orders are supported");
        return;
    }
    if (!load_offer(req, resp, json_string_value(json_array_get(offers, 0)), &o)) {
        return;
    }
    pax = json_object_get(d, "passengers");
    if (!price_request(req, resp, &o, pax, json_object_get(d, "services"), 1, &pr)) {
        return;
    }
    pays = json_object_get(d, "payments");
    pay = json_array_get(pays, 0);
    if (!json_is_array(pays) || json_array_size(pays) != 1
        || !trv_json_str(pay, "type") || strcmp(trv_json_str(pay, "type"), "balance") != 0) {
        sbx_invalid(req, resp, "data.payments", "must be one payment of type balance");
        return;
    }
    if (!trv_json_str(pay, "currency") || strcmp(trv_json_str(pay, "currency"), o.currency) != 0
        || sbx_amount_parse(json_object_get(pay, "amount"), o.currency, &paid) != 0) {
        sbx_invalid(req, resp, "data.payments[0]",
                    apr_psprintf(req->pool, "amount and currency (%s) are required", o.currency));
        return;
    }
    if (paid != pr.total) {
        sbx_error(req, resp, 422, "price_changed",
                  "The order total is now %s %s, not %s", sbx_amount(req->pool, pr.total,
                  o.currency), o.currency, sbx_amount(req->pool, paid, o.currency));
        return;
    }

    /* The order as sold: the offer, the priced party and services. */
    doc = render_offer(req->pool, x->world, &o, 0);
    trv_json_bind(req->pool, doc);
    json_object_del(doc, "expires_at");
    json_object_del(doc, "id");
    json_object_set_new(doc, "offer_id", json_string(json_string_value(json_array_get(offers, 0))));
    apply_price(req->pool, doc, &o, &pr);
    passengers = json_array();
    for (i = 0; i < json_array_size(pax); i++) {
        const json_t *p = json_array_get(pax, i);
        json_array_append_new(passengers, json_pack(
            "{s:O,s:O,s:O,s:O,s:O*,s:O*,s:O*,s:O*,s:s}",
            "id", json_object_get(p, "id"), "given_name", json_object_get(p, "given_name"),
            "family_name", json_object_get(p, "family_name"),
            "born_on", json_object_get(p, "born_on"), "gender", json_object_get(p, "gender"),
            "email", json_object_get(p, "email"), "phone_number", json_object_get(p, "phone_number"),
            "loyalty_programme_accounts", json_object_get(p, "loyalty_programme_accounts"),
            "ticket_number", sbx_ticket_number(req->pool)));
    }
    json_object_set_new(doc, "passengers", passengers);
    json_object_set_new(doc, "metadata", json_object_get(d, "metadata")
                                             ? json_incref(json_object_get(d, "metadata"))
                                             : json_object());
    segs = trv_json_bind(req->pool, json_array());
    for (j = 0; j < o.q.nj; j++) {
        for (k = 0; k < o.it[j].n; k++) {
            json_array_append_new(segs, sbx_segment_entry(req->pool, x->world, j, k,
                                                          seg_id(req->pool, &o, j, k),
                                                          &o.it[j].legs[k]));
        }
    }

    if (!sbx_idem_begin(req, resp, &c, 921, "creating an order")) {
        return;
    }
    if (pr.trigger && strcmp(pr.trigger, "failticket") == 0) {
        /* The airline refuses to issue: no order, the same answer on a retry. */
        json_t *err = trv_json_bind(req->pool, sbx_error_doc(req, "ticketing_failed",
            "The airline could not issue the tickets (test trigger Failticket)"));
        sbx_idem_finish(req, resp, c, 422, err, 923, "creating an order");
        return;
    }
    memset(&ord, 0, sizeof(ord));
    ord.id = order_id;
    ord.supplier = 'A';
    ord.offer_ref = o.ref;
    ord.pnr = sbx_pnr(req->pool);
    ord.trigger = pr.trigger;
    ord.brand = sbx_offer_brand(&o)->name;
    ord.currency = o.currency;
    ord.total = pr.total;
    ord.tax = pr.tax;
    ord.services = pr.services;
    ord.refund_allowed = sbx_offer_brand(&o)->refund_allowed;
    ord.refund_penalty = sbx_offer_refund_penalty(&o);
    ord.doc = doc;
    ord.segments = segs;
    if (pr.trigger && strcmp(pr.trigger, "async") == 0) {
        ord.status = "pending";
        ord.ticketing_in = x->set->async_ticketing;
    }
    else {
        ord.status = "ticketed";
    }
    if (sbx_order_insert(c, req->pool, &ord, &dup) != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 924, "creating an order");
        return;
    }
    if (dup) {
        json_t *err = trv_json_bind(req->pool, sbx_error_doc(req, "offer_no_longer_available",
            "This offer has already been ordered"));
        sbx_idem_finish(req, resp, c, 422, err, 925, "creating an order");
        return;
    }
    if (sbx_order_get(c, req->pool, order_id, 'A', &rows) != APR_SUCCESS || rows->n != 1
        || !(out = order_json(req, c, rows, &ok)) || !ok) {
        sbx_db_fail(req, resp, c, 926, "creating an order");
        return;
    }
    out = trv_json_bind(req->pool, json_pack("{s:o}", "data", out));
    if (sbx_idem_save(req, c, 201, out) != APR_SUCCESS || trv_db_commit(c) != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 927, "creating an order");
        return;
    }
    trv_db_close(req->env->db, c);
    if (pr.trigger && strcmp(pr.trigger, "unknown") == 0) {
        /* The order exists, but the answer does not come in time. */
        trv_log_msg(&req->log, TRV_LOG_INFO, req->request_id,
                    TRVLOGNO(928) "sandbox A: order %s made, hanging (test trigger Unknown)",
                    order_id);
        sbx_sleep(req, x->set->hang);
    }
    sbx_send(req, resp, 201, json_incref(out));
}

static void get_order(trv_req *req, trv_resp *resp)
{
    const char *id = apr_table_get(req->params, "order_id");
    trv_dbc *c;
    trv_rows *rows;
    json_t *out;
    int ok;
    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS) {
        sbx_db_fail(req, resp, NULL, 929, "reading an order");
        return;
    }
    if (sbx_order_get(c, req->pool, id, 'A', &rows) != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 930, "reading an order");
        return;
    }
    if (rows->n == 0) {
        trv_db_close(req->env->db, c);
        sbx_error(req, resp, 404, "not_found", "No order %s", id);
        return;
    }
    out = order_json(req, c, rows, &ok);
    if (!ok) {
        sbx_db_fail(req, resp, c, 931, "reading an order");
        return;
    }
    trv_db_close(req->env->db, c);
    sbx_send(req, resp, 200, json_pack("{s:o}", "data", out));
}

/* ---- cancellations ---- */

static json_t *cancellation_json(apr_pool_t *p, const trv_rows *r)
{
    const char *cur = trv_rows_get(r, 0, "currency");
    const char *confirmed = trv_rows_get(r, 0, "confirmed_at");
    return json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:o,s:b}",
        "id", trv_rows_get(r, 0, "id"), "order_id", trv_rows_get(r, 0, "order_id"),
        "refund_amount", sbx_amount(p, apr_atoi64(trv_rows_get(r, 0, "refund_minor")), cur),
        "refund_currency", cur,
        "penalty_amount", sbx_amount(p, apr_atoi64(trv_rows_get(r, 0, "penalty_minor")), cur),
        "refund_to", trv_rows_get(r, 0, "refund_to"),
        "expires_at", trv_rows_get(r, 0, "expires_at"),
        "created_at", trv_rows_get(r, 0, "created_at"),
        "confirmed_at", confirmed ? json_string(confirmed) : json_null(),
        "live_mode", 0);
}

static int read_cancellation(trv_req *req, trv_resp *resp, trv_dbc *c, const char *id,
                             trv_rows **rows)
{
    if (trv_db_select(c, req->pool, &a_cancel_get, rows, TRV_DB_ARGS(id)) != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 932, "reading a cancellation");
        return 0;
    }
    return 1;
}

static void create_cancellation(trv_req *req, trv_resp *resp)
{
    const json_t *body, *d;
    const char *order_id, *id = trv_id_new(req->pool, "ore"), *status, *cur;
    trv_dbc *c;
    trv_rows *rows, *k;
    apr_int64_t fee, refund;

    if (!(body = sbx_body(req, resp))) {
        return;
    }
    d = json_object_get(body, "data");
    if (!(order_id = trv_json_str(d, "order_id"))) {
        sbx_invalid(req, resp, "data.order_id", "is required");
        return;
    }
    if (!sbx_idem_begin(req, resp, &c, 933, "quoting a cancellation")) {
        return;
    }
    if (sbx_order_get(c, req->pool, order_id, 'A', &rows) != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 935, "quoting a cancellation");
        return;
    }
    if (rows->n == 0) {
        trv_db_rollback(c);
        trv_db_close(req->env->db, c);
        sbx_error(req, resp, 404, "not_found", "No order %s", order_id);
        return;
    }
    status = trv_rows_get(rows, 0, "status");
    if (strcmp(status, "ticketed") != 0) {
        trv_db_rollback(c);
        trv_db_close(req->env->db, c);
        sbx_error(req, resp, 422, strcmp(status, "cancelled") == 0 ? "order_already_cancelled"
                                                                  : "order_not_cancellable",
                  "The order is %s", status);
        return;
    }
    cur = trv_rows_get(rows, 0, "currency");
    sbx_cancel_terms(trv_rows_bool(rows, 0, "refund_allowed"),
                     apr_atoi64(trv_rows_get(rows, 0, "refund_penalty")),
                     apr_atoi64(trv_rows_get(rows, 0, "total_minor")),
                     apr_atoi64(trv_rows_get(rows, 0, "tax_minor")), &fee, &refund);
    if (trv_db_select(c, req->pool, &a_cancel_insert, &k, TRV_DB_ARGS(id, order_id, cur,
            apr_psprintf(req->pool, "%" APR_INT64_T_FMT, fee),
            apr_psprintf(req->pool, "%" APR_INT64_T_FMT, refund))) != APR_SUCCESS
        || !read_cancellation(req, resp, c, id, &k)) {
        if (!resp->status) {
            sbx_db_fail(req, resp, c, 936, "quoting a cancellation");
        }
        return;
    }
    {
        json_t *out = trv_json_bind(req->pool, json_pack("{s:o}", "data",
                                                         cancellation_json(req->pool, k)));
        sbx_idem_finish(req, resp, c, 201, out, 937, "quoting a cancellation");
    }
}

static void get_cancellation(trv_req *req, trv_resp *resp)
{
    const char *id = apr_table_get(req->params, "id");
    trv_dbc *c;
    trv_rows *rows;
    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS) {
        sbx_db_fail(req, resp, NULL, 938, "reading a cancellation");
        return;
    }
    if (!read_cancellation(req, resp, c, id, &rows)) {
        return;
    }
    trv_db_close(req->env->db, c);
    if (rows->n == 0) {
        sbx_error(req, resp, 404, "not_found", "No order cancellation %s", id);
        return;
    }
    sbx_send(req, resp, 200, json_pack("{s:o}", "data", cancellation_json(req->pool, rows)));
}

static void confirm_cancellation(trv_req *req, trv_resp *resp)
{
    const char *id = apr_table_get(req->params, "id");
    trv_dbc *c;
    trv_rows *rows, *lock;
    json_t *block;

    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS) {
        sbx_db_fail(req, resp, NULL, 939, "confirming a cancellation");
        return;
    }
    if (trv_db_begin(c, req->pool) != APR_SUCCESS
        || trv_db_select(c, req->pool, &a_cancel_lock, &lock, TRV_DB_ARGS(id)) != APR_SUCCESS
        || !read_cancellation(req, resp, c, id, &rows)) {
        if (!resp->status) {
            sbx_db_fail(req, resp, c, 940, "confirming a cancellation");
        }
        return;
    }
    if (rows->n == 0) {
        trv_db_rollback(c);
        trv_db_close(req->env->db, c);
        sbx_error(req, resp, 404, "not_found", "No order cancellation %s", id);
        return;
    }
    if (trv_rows_get(rows, 0, "confirmed_at")) {
        /* Confirming again answers the confirmed cancellation. */
        trv_db_rollback(c);
        trv_db_close(req->env->db, c);
        sbx_send(req, resp, 200, json_pack("{s:o}", "data", cancellation_json(req->pool, rows)));
        return;
    }
    if (strcmp(trv_rows_get(rows, 0, "order_status"), "ticketed") != 0) {
        trv_db_rollback(c);
        trv_db_close(req->env->db, c);
        sbx_error(req, resp, 422, "order_not_cancellable", "The order is %s",
                  trv_rows_get(rows, 0, "order_status"));
        return;
    }
    if (trv_rows_bool(rows, 0, "expired")) {
        trv_db_rollback(c);
        trv_db_close(req->env->db, c);
        sbx_error(req, resp, 422, "order_cancellation_expired",
                  "The cancellation quote expired; request a new one");
        return;
    }
    if (trv_rows_get(rows, 0, "trigger") && strcmp(trv_rows_get(rows, 0, "trigger"), "nocancel") == 0) {
        trv_db_rollback(c);
        trv_db_close(req->env->db, c);
        sbx_error(req, resp, 422, "cancellation_rejected",
                  "The airline rejected the cancellation (test trigger Nocancel)");
        return;
    }
    block = trv_json_bind(req->pool, cancellation_json(req->pool, rows));
    if (trv_db_exec(c, req->pool, &a_cancel_confirm, NULL, TRV_DB_ARGS(id)) != APR_SUCCESS
        || trv_db_exec(c, req->pool, &a_order_cancel, NULL,
                       TRV_DB_ARGS(trv_json_dump(req->pool, block),
                                   trv_rows_get(rows, 0, "order_id"))) != APR_SUCCESS
        || !read_cancellation(req, resp, c, id, &rows) || trv_db_commit(c) != APR_SUCCESS) {
        if (!resp->status) {
            sbx_db_fail(req, resp, c, 941, "confirming a cancellation");
        }
        return;
    }
    trv_db_close(req->env->db, c);
    sbx_send(req, resp, 200, json_pack("{s:o}", "data", cancellation_json(req->pool, rows)));
}

/* ---- airlines ---- */

static void get_airline(trv_req *req, trv_resp *resp)
{
    const char *code = apr_table_get(req->params, "iata_code");
    int i;
    if (!sbx_need_world(req, resp)) {
        return;
    }
    i = sbx_airline_find(SBX(req)->world, code);
    if (i < 0) {
        sbx_error(req, resp, 404, "not_found", "No airline with IATA code %s", code);
        return;
    }
    sbx_send(req, resp, 200, json_pack("{s:o}", "data",
                                       airline(req->pool, &SBX(req)->world->airlines[i])));
}

const trv_route sbx_air_a_routes[] = {
    {"POST", "/suppliers/a/air/offer_requests", offer_request, TRV_ROUTE_OWN_QUERY},
    {"GET", "/suppliers/a/air/offers/{offer_id}", get_offer, TRV_ROUTE_OWN_QUERY},
    {"POST", "/suppliers/a/air/offers/{offer_id}/actions/price", price_offer, 0},
    {"POST", "/suppliers/a/air/orders", create_order, 0},
    {"GET", "/suppliers/a/air/orders/{order_id}", get_order, 0},
    {"POST", "/suppliers/a/air/order_cancellations", create_cancellation, 0},
    {"GET", "/suppliers/a/air/order_cancellations/{id}", get_cancellation, 0},
    {"POST", "/suppliers/a/air/order_cancellations/{id}/actions/confirm", confirm_cancellation, 0},
    {"GET", "/suppliers/a/air/airlines/{iata_code:iata}", get_airline, 0},
    {NULL, NULL, NULL, 0},
};
