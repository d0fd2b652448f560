/* SUPPLIER_B: a checkout-style flights API under /suppliers/b.
 *
 *   POST /v2/search                           fares, with carrier and airport
 *                                             dictionaries (Amadeus style)
 *   GET  /v2/fares/{fare_key}/ancillaries     bags for sale
 *   POST /v2/checkouts                        bind fare, travelers, bags; the
 *                                             itinerary is held when it can be
 *   GET  /v2/checkouts/{id}
 *   POST /v2/checkouts/{id}/complete          B charges the traveler and
 *                                             tickets (Idempotency-Key)
 *   GET  /v2/orders/{id}
 *   POST /v2/orders/{id}/refund-quote         not for Basic fares
 *   POST /v2/orders/{id}/cancel
 *   GET  /v2/carriers/{code}
 *
 * Answers are bare JSON objects; amounts are decimal strings beside one
 * currency; local times are "YYYY-MM-DD HH:MM". B collects payment itself
 * (merchant of record): completing a checkout charges the card the
 * traveler gave on B's hosted payment page, in test mode a Visa credit
 * card ending 4242. */
#include "air.h"
#include "core/clock.h"
#include "core/ids.h"

#include <apr_strings.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define B_MAX_RESULTS 200
#define B_HOLD_MIN_AHEAD (72 * 3600)   /* no holds for flights this close */
#define B_CHECKOUT_TTL (20 * 60)       /* an unheld checkout's price guarantee */

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
static const trv_stmt b_checkout_complete = {"sbx_b_checkout_complete",
    "UPDATE sandbox.checkouts SET status = 'completed', order_id = %s WHERE id = %s"};
static const trv_stmt b_order_cancel = {"sbx_b_order_cancel",
    "UPDATE sandbox.flight_orders SET status = 'cancelled', cancelled_at = clock_timestamp(), "
    "updated_at = clock_timestamp(), cancellation = %s::jsonb "
    "WHERE id = %s AND status = 'ticketed' RETURNING trv_ts(cancelled_at) AS cancelled_at"};

static const char cabin_letters[SBX_NCABINS] = {'Y', 'W', 'C', 'F'};

static int cabin_of_letter(const char *s)
{
    int i;
    if (!s) {
        return SBX_ECONOMY;
    }
    for (i = 0; i < SBX_NCABINS; i++) {
        if (s[0] == cabin_letters[i] && !s[1]) {
            return i;
        }
    }
    return sbx_cabin_parse(s);
}

static char *b_local(apr_pool_t *p, apr_int64_t local)
{
    char buf[20];
    sbx_local_format(local, buf);
    buf[10] = ' ';
    buf[16] = '\0'; /* "YYYY-MM-DD HH:MM" */
    return apr_pstrdup(p, buf);
}

static json_t *b_fare(apr_pool_t *p, const sbx_world *w, const sbx_offer *o,
                      json_t *carriers, json_t *airports)
{
    const sbx_brand *b = sbx_offer_brand(o);
    json_t *legs = json_array();
    char cab[2] = {cabin_letters[o->q.cabin], '\0'};
    int j, k, km;
    for (j = 0; j < o->q.nj; j++) {
        const sbx_itin *it = &o->it[j];
        json_t *flights = json_array();
        for (k = 0; k < it->n; k++) {
            const sbx_leg *l = &it->legs[k];
            const sbx_airline *m = &w->airlines[l->mkt], *op = &w->airlines[l->op];
            json_array_append_new(flights, json_pack(
                "{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:i,s:i,s:s,s:s}",
                "id", apr_psprintf(p, "fl_%s-%d-%d", o->tag, j + 1, k + 1),
                "carrier", m->iata, "number", apr_itoa(p, l->flight_no),
                "operated_by", op->iata, "operated_number", apr_itoa(p, l->op_flight_no),
                "from", w->airports[l->from].iata, "to", w->airports[l->to].iata,
                "depart_local", b_local(p, l->dep_local), "arrive_local", b_local(p, l->arr_local),
                "block_min", l->block_min, "distance_km", l->km,
                "equipment", l->equipment, "cabin", cab));
            if (carriers) {
                json_object_set_new(carriers, m->iata, json_pack("{s:s,s:s}", "name", m->name,
                                                                 "logo", sbx_logo_url(p, m->iata)));
                json_object_set_new(carriers, op->iata, json_pack("{s:s,s:s}", "name", op->name,
                                                                  "logo", sbx_logo_url(p, op->iata)));
            }
            if (airports) {
                int ends[2] = {l->from, l->to}, e;
                for (e = 0; e < 2; e++) {
                    const sbx_airport *a = &w->airports[ends[e]];
                    json_object_set_new(airports, a->iata, json_pack(
                        "{s:s,s:s,s:s,s:s?}", "name", a->name, "city", a->city,
                        "country", a->country_code, "tz", a->tz_name));
                }
            }
        }
        json_array_append_new(legs, json_pack(
            "{s:i,s:s,s:s,s:s,s:s,s:i,s:i,s:o}",
            "ref", j + 1, "from", w->airports[o->q.j[j].origin].iata,
            "to", w->airports[o->q.j[j].dest].iata,
            "depart_local", b_local(p, it->legs[0].dep_local),
            "arrive_local", b_local(p, it->legs[it->n - 1].arr_local),
            "elapsed_min", sbx_itin_minutes(it), "stops", it->n - 1, "flights", flights));
    }
    km = 0;
    for (k = 0; k < o->it[0].n; k++) {
        km += o->it[0].legs[k].km;
    }
    return json_pack(
        "{s:s,s:s,s:s,s:s,s:s,s:b,s:{s:s,s:s,s:s,s:s},"
        "s:{s:{s:b,s:s?},s:{s:b,s:s?}},s:{s:i,s:i},s:b,s:o}",
        "fare_key", apr_pstrcat(p, "fk_", o->ref, NULL),
        "valid_until", sbx_instant(p, o->expires),
        "brand", b->name, "cabin", cab, "cabin_name", sbx_cabin_display(o->q.cabin),
        "refundable", b->refund_allowed,
        "price", "currency", o->currency, "total", sbx_amount(p, o->base + o->tax, o->currency),
        "base", sbx_amount(p, o->base, o->currency), "taxes", sbx_amount(p, o->tax, o->currency),
        "rules", "refund", "permitted", b->refund_allowed,
        "fee", b->refund_allowed ? sbx_amount(p, sbx_offer_refund_penalty(o), o->currency) : NULL,
        "exchange", "permitted", b->change_allowed,
        "fee", b->change_allowed ? sbx_amount(p, sbx_offer_change_penalty(o), o->currency) : NULL,
        "baggage", "checked_pieces", b->checked_bags, "cabin_pieces", sbx_brand_carry_on(b, km),
        "docs_required", sbx_offer_international(w, o), "legs", legs);
}

/* ---- search ---- */

static void search(trv_req *req, trv_resp *resp)
{
    const sbx_ctx *x = SBX(req);
    const json_t *body, *legs, *pax, *mr;
    sbx_search q;
    sbx_offer *offers;
    const char *reason, *field;
    json_t *results, *carriers, *airports;
    int n, truncated, i, limit = 50, bad;
    apr_int64_t now = sbx_now();

    if (!sbx_need_world(req, resp) || !(body = sbx_body(req, resp))) {
        return;
    }
    memset(&q, 0, sizeof(q));
    legs = json_object_get(body, "legs");
    if (!json_is_array(legs) || json_array_size(legs) < 1
        || json_array_size(legs) > SBX_MAX_JOURNEYS) {
        sbx_invalid(req, resp, "legs", "must list 1 to 4 legs");
        return;
    }
    q.nj = (int)json_array_size(legs);
    for (i = 0; i < q.nj; i++) {
        const json_t *l = json_array_get(legs, (size_t)i);
        q.j[i].origin = sbx_airport_find(x->world, trv_json_str(l, "from"));
        q.j[i].dest = sbx_airport_find(x->world, trv_json_str(l, "to"));
        q.j[i].day = sbx_day_parse(trv_json_str(l, "date"));
        if (q.j[i].origin < 0 || q.j[i].dest < 0) {
            sbx_invalid(req, resp, apr_psprintf(req->pool, "legs[%d]", i),
                        "from and to must be IATA airport codes");
            return;
        }
        if (q.j[i].day < 0) {
            sbx_invalid(req, resp, apr_psprintf(req->pool, "legs[%d].date", i),
                        "must be a date YYYY-MM-DD");
            return;
        }
    }
    pax = json_object_get(body, "pax");
    q.adults = json_is_integer(json_object_get(pax, "adt"))
             ? (int)json_integer_value(json_object_get(pax, "adt")) : 1;
    q.children = (int)json_integer_value(json_object_get(pax, "chd"));
    q.infants = (int)json_integer_value(json_object_get(pax, "inf"));
    if (q.children < 0 || q.infants < 0) {
        sbx_invalid(req, resp, "pax", "counts cannot be negative");
        return;
    }
    q.cabin = cabin_of_letter(trv_json_str(body, "cabin"));
    if (q.cabin < 0) {
        sbx_invalid(req, resp, "cabin", "must be Y, W, C or F");
        return;
    }
    if ((mr = json_object_get(body, "max_results"))) {
        if (!json_is_integer(mr) || json_integer_value(mr) < 1
            || json_integer_value(mr) > B_MAX_RESULTS) {
            sbx_invalid(req, resp, "max_results", "must be an integer from 1 to 200");
            return;
        }
        limit = (int)json_integer_value(mr);
    }
    if ((reason = sbx_search_check(x->world, &q, (long)(now / 86400), &field, &bad))) {
        sbx_invalid(req, resp, strcmp(field, "passengers") == 0 ? "pax"
                    : bad < 0 ? "legs" : apr_psprintf(req->pool, "legs[%d]", bad), reason);
        return;
    }
    n = sbx_search_run(req->pool, x->world, &q, 'B', x->set->key_b, now,
                       apr_time_sec(x->set->offer_ttl_b), limit,
                       sbx_nonce(), &offers, &truncated);
    results = json_array();
    carriers = json_object();
    airports = json_object();
    for (i = 0; i < n; i++) {
        json_array_append_new(results, b_fare(req->pool, x->world, &offers[i], carriers,
                                              airports));
    }
    sbx_send(req, resp, 200, json_pack(
        "{s:s,s:s,s:o,s:b,s:{s:o,s:o}}", "search_id", trv_id_new(req->pool, "srch"),
        "currency", n ? offers[0].currency
                      : sbx_market_currency(x->world->airports[q.j[0].origin].country_code),
        "results", results, "more_results", truncated,
        "dictionaries", "carriers", carriers, "airports", airports));
}

static int load_fare(trv_req *req, trv_resp *resp, const char *key, sbx_offer *o)
{
    const sbx_ctx *x = SBX(req);
    apr_int64_t now = sbx_now();
    if (!key || strncmp(key, "fk_", 3) != 0
        || sbx_offer_decode(req->pool, x->world, key + 3, 'B', x->set->key_b, now, o) != 0) {
        sbx_error(req, resp, 404, "fare_not_found", "No fare %s", key ? key : "");
        return 0;
    }
    if (o->expires <= now) {
        sbx_error(req, resp, 422, "fare_expired", "The fare expired at %s; search again",
                  sbx_instant(req->pool, o->expires));
        return 0;
    }
    return 1;
}

static json_t *ancillaries_of(apr_pool_t *p, const sbx_offer *o)
{
    sbx_bag bags[SBX_MAX_PAX * SBX_MAX_JOURNEYS * 2];
    int n = sbx_offer_bags(o, bags, (int)(sizeof(bags) / sizeof(bags[0]))), i;
    json_t *out = json_array();
    for (i = 0; i < n; i++) {
        json_array_append_new(out, json_pack("{s:s,s:s,s:i,s:i,s:i,s:s,s:i}",
            "ancillary_id", apr_psprintf(p, "anc_%s-%s", o->tag, bags[i].suffix),
            "kind", bags[i].type == SBX_BAG_CHECKED ? "checked_bag" : "cabin_bag",
            "weight_kg", bags[i].weight_kg, "traveler_ref", bags[i].pax + 1,
            "leg_ref", bags[i].journey + 1, "price", sbx_amount(p, bags[i].unit, o->currency),
            "max_qty", bags[i].max_qty));
    }
    return out;
}

static void ancillaries(trv_req *req, trv_resp *resp)
{
    sbx_offer o;
    const char *key = apr_table_get(req->params, "fare_key");
    if (!sbx_need_world(req, resp) || !load_fare(req, resp, key, &o)) {
        return;
    }
    sbx_send(req, resp, 200, json_pack("{s:s,s:s,s:o}", "fare_key", key, "currency",
                                       o.currency, "ancillaries", ancillaries_of(req->pool, &o)));
}

/* ---- checkouts ---- */

static const char *const traveler_types[3] = {"ADT", "CHD", "INF"};

static json_t *checkout_json(apr_pool_t *p, const trv_rows *r)
{
    json_t *doc = json_loads(trv_rows_get(r, 0, "doc"), 0, NULL);
    const char *status = trv_rows_get(r, 0, "status");
    const char *order = trv_rows_get(r, 0, "order_id");
    if (!doc) {
        return NULL;
    }
    if (strcmp(status, "completed") != 0 && trv_rows_bool(r, 0, "expired")) {
        status = "expired";
    }
    json_object_set_new(doc, "checkout_id", json_string(trv_rows_get(r, 0, "id")));
    json_object_set_new(doc, "status", json_string(status));
    json_object_set_new(doc, "expires_at", json_string(trv_rows_get(r, 0, "expires_at")));
    json_object_set_new(doc, "hold", json_pack("{s:b,s:s?}", "held",
                                               trv_rows_bool(r, 0, "held"), "expires_at",
                                               trv_rows_bool(r, 0, "held")
                                                   ? trv_rows_get(r, 0, "expires_at") : NULL));
    json_object_set_new(doc, "order_id", order ? json_string(order) : json_null());
    json_object_set_new(doc, "created_at", json_string(trv_rows_get(r, 0, "created_at")));
    (void)p;
    return doc;
}

static void create_checkout(trv_req *req, trv_resp *resp)
{
    const sbx_ctx *x = SBX(req);
    const json_t *body, *trav, *anc;
    sbx_offer o;
    sbx_bag bags[SBX_MAX_PAX * SBX_MAX_JOURNEYS * 2];
    int nb, count, used[SBX_MAX_PAX * SBX_MAX_JOURNEYS * 2] = {0}, held;
    json_t *travelers, *priced, *doc, *out, *carriers, *airports;
    apr_int64_t anc_total = 0, now = sbx_now(), expires, dep;
    const char *id = trv_id_new(req->pool, "chk"), *trigger = NULL, *prefix;
    trv_dbc *c;
    trv_rows *rows;
    size_t i;

    if (!sbx_need_world(req, resp) || !(body = sbx_body(req, resp))
        || !load_fare(req, resp, trv_json_str(body, "fare_key"), &o)) {
        return;
    }
    count = sbx_pax_count(&o);
    trav = json_object_get(body, "travelers");
    if (!json_is_array(trav) || (int)json_array_size(trav) != count) {
        sbx_invalid(req, resp, "travelers",
                    apr_psprintf(req->pool, "must list the fare's %d travelers", count));
        return;
    }
    travelers = trv_json_bind(req->pool, json_array());
    for (i = 0; i < json_array_size(trav); i++) {
        const json_t *t = json_array_get(trav, i);
        const char *field = apr_psprintf(req->pool, "travelers[%d]", (int)i);
        const char *type = trv_json_str(t, "type"), *first = trv_json_str(t, "first_name");
        const char *last = trv_json_str(t, "last_name"), *birth = trv_json_str(t, "birth_date");
        const json_t *ff = json_object_get(t, "frequent_flyer");
        apr_time_t bt;
        if (type && strcmp(type, traveler_types[sbx_pax_type(&o, (int)i)]) != 0) {
            sbx_invalid(req, resp, apr_pstrcat(req->pool, field, ".type", NULL),
                        apr_psprintf(req->pool, "must be %s (adults, then children, then "
                                     "infants)", traveler_types[sbx_pax_type(&o, (int)i)]));
            return;
        }
        if (!first || !*first || !last || !*last) {
            sbx_invalid(req, resp, field, "first_name and last_name are required");
            return;
        }
        if (!birth || trv_date_parse(birth, &bt) != APR_SUCCESS) {
            sbx_invalid(req, resp, apr_pstrcat(req->pool, field, ".birth_date", NULL),
                        "must be a date YYYY-MM-DD");
            return;
        }
        if (ff && !json_is_array(ff)) {
            sbx_invalid(req, resp, apr_pstrcat(req->pool, field, ".frequent_flyer", NULL),
                        "must be a list");
            return;
        }
        if (!trigger) {
            trigger = sbx_trigger_of(last);
        }
        json_array_append_new(travelers, json_pack(
            "{s:s,s:s,s:s,s:s,s:s,s:O*,s:O*,s:O*}",
            "traveler_id", apr_psprintf(req->pool, "t%d", (int)i + 1),
            "type", traveler_types[sbx_pax_type(&o, (int)i)], "first_name", first,
            "last_name", last, "birth_date", birth, "gender", json_object_get(t, "gender"),
            "nationality", json_object_get(t, "nationality"), "frequent_flyer", ff));
    }
    nb = sbx_offer_bags(&o, bags, (int)(sizeof(bags) / sizeof(bags[0])));
    prefix = apr_psprintf(req->pool, "anc_%s-", o.tag);
    anc = json_object_get(body, "ancillaries");
    if (anc && !json_is_array(anc)) {
        sbx_invalid(req, resp, "ancillaries", "must be a list");
        return;
    }
    priced = trv_json_bind(req->pool, json_array());
    for (i = 0; i < json_array_size(anc); i++) {
        const json_t *a = json_array_get(anc, i);
        const char *aid = trv_json_str(a, "ancillary_id");
        json_int_t qty = json_is_integer(json_object_get(a, "qty"))
                       ? json_integer_value(json_object_get(a, "qty")) : -1;
        int b = -1;
        if (aid && strncmp(aid, prefix, strlen(prefix)) == 0) {
            b = sbx_bag_find(bags, nb, aid + strlen(prefix));
        }
        if (b < 0 || used[b]) {
            sbx_invalid(req, resp, apr_psprintf(req->pool, "ancillaries[%d].ancillary_id", (int)i),
                        "must be an ancillary of this fare, listed once");
            return;
        }
        if (qty < 1 || qty > bags[b].max_qty) {
            sbx_invalid(req, resp, apr_psprintf(req->pool, "ancillaries[%d].qty", (int)i),
                        apr_psprintf(req->pool, "must be 1 to %d", bags[b].max_qty));
            return;
        }
        used[b] = 1;
        anc_total += bags[b].unit * qty;
        json_array_append_new(priced, json_pack("{s:s,s:s,s:i,s:i,s:i,s:I,s:s,s:s}",
            "ancillary_id", aid,
            "kind", bags[b].type == SBX_BAG_CHECKED ? "checked_bag" : "cabin_bag",
            "weight_kg", bags[b].weight_kg, "traveler_ref", bags[b].pax + 1,
            "leg_ref", bags[b].journey + 1, "qty", qty,
            "unit_price", sbx_amount(req->pool, bags[b].unit, o.currency),
            "total", sbx_amount(req->pool, bags[b].unit * qty, o.currency)));
    }
    /* The airline holds seats unless the flight is too close. */
    dep = o.it[0].legs[0].dep_utc;
    held = dep - now >= B_HOLD_MIN_AHEAD;
    expires = held ? now + apr_time_sec(x->set->hold_ttl) : now + B_CHECKOUT_TTL;
    if (held && expires > dep - 24 * 3600) {
        expires = dep - 24 * 3600;
    }
    carriers = json_object();
    airports = json_object();
    doc = trv_json_bind(req->pool, json_pack(
        "{s:o,s:{s:o,s:o},s:O,s:O*,s:O,s:{s:s,s:s,s:s,s:s,s:s},s:s?}",
        "fare", b_fare(req->pool, x->world, &o, carriers, airports),
        "dictionaries", "carriers", carriers, "airports", airports, "travelers", travelers,
        "contact", json_object_get(body, "contact"), "ancillaries", priced,
        "price", "currency", o.currency,
        "total", sbx_amount(req->pool, o.base + o.tax + anc_total, o.currency),
        "base", sbx_amount(req->pool, o.base, o.currency),
        "taxes", sbx_amount(req->pool, o.tax, o.currency),
        "ancillaries", sbx_amount(req->pool, anc_total, o.currency),
        "test_trigger", trigger));
    /* Numbers the order needs, beside the wire document. */
    json_object_set_new(doc, "_sbx", json_pack("{s:I,s:I,s:I,s:b,s:I,s:s}",
        "total", (json_int_t)(o.base + o.tax + anc_total), "tax", (json_int_t)o.tax,
        "services", (json_int_t)anc_total, "refund_allowed", sbx_offer_brand(&o)->refund_allowed,
        "refund_penalty", (json_int_t)sbx_offer_refund_penalty(&o),
        "brand", sbx_offer_brand(&o)->name));
    {
        json_t *segs = json_array();
        int j, k;
        for (j = 0; j < o.q.nj; j++) {
            for (k = 0; k < o.it[j].n; k++) {
                json_array_append_new(segs, sbx_segment_entry(
                    req->pool, x->world, j, k,
                    apr_psprintf(req->pool, "fl_%s-%d-%d", o.tag, j + 1, k + 1),
                    &o.it[j].legs[k]));
            }
        }
        json_object_set_new(json_object_get(doc, "_sbx"), "segments", segs);
    }

    if (!sbx_idem_begin(req, resp, &c, 942, "creating a checkout")) {
        return;
    }
    if (trv_db_exec(c, req->pool, &b_checkout_insert, NULL, TRV_DB_ARGS(
            id, trv_json_str(body, "fare_key"), held ? "held" : "open", held ? "t" : "f",
            apr_psprintf(req->pool, "%" APR_INT64_T_FMT, expires), o.currency,
            apr_psprintf(req->pool, "%" APR_INT64_T_FMT, o.base + o.tax + anc_total),
            trv_json_dump(req->pool, doc))) != APR_SUCCESS
        || trv_db_select(c, req->pool, &b_checkout_get, &rows, TRV_DB_ARGS(id)) != APR_SUCCESS
        || rows->n != 1) {
        sbx_db_fail(req, resp, c, 944, "creating a checkout");
        return;
    }
    out = trv_json_bind(req->pool, checkout_json(req->pool, rows));
    json_object_del(out, "_sbx");
    sbx_idem_finish(req, resp, c, 201, out, 945, "creating a checkout");
}

static void get_checkout(trv_req *req, trv_resp *resp)
{
    const char *id = apr_table_get(req->params, "id");
    trv_dbc *c;
    trv_rows *rows;
    json_t *out;
    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS) {
        sbx_db_fail(req, resp, NULL, 946, "reading a checkout");
        return;
    }
    if (trv_db_select(c, req->pool, &b_checkout_get, &rows, TRV_DB_ARGS(id)) != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 947, "reading a checkout");
        return;
    }
    trv_db_close(req->env->db, c);
    if (rows->n == 0 || !(out = checkout_json(req->pool, rows))) {
        sbx_error(req, resp, 404, "not_found", "No checkout %s", id);
        return;
    }
    json_object_del(out, "_sbx");
    sbx_send(req, resp, 200, out);
}

/* ---- orders ---- */

static json_t *order_json(apr_pool_t *p, trv_dbc *c, const trv_rows *r)
{
    const char *status = trv_rows_get(r, 0, "status");
    const char *pay = trv_rows_get(r, 0, "payment"), *fail = trv_rows_get(r, 0, "failure");
    const char *canc = trv_rows_get(r, 0, "cancellation");
    json_t *doc = json_loads(trv_rows_get(r, 0, "doc"), 0, NULL);
    json_t *changes = sbx_order_changes(c, p, trv_rows_get(r, 0, "id")), *sc = json_array();
    size_t i;
    if (!doc || !changes) {
        json_decref(doc);
        json_decref(sc);
        return NULL;
    }
    for (i = 0; i < json_array_size(changes); i++) {
        const json_t *ch = json_array_get(changes, i);
        const json_t *prev = json_object_get(ch, "previous"), *cur = json_object_get(ch, "current");
        json_array_append_new(sc, json_pack("{s:O,s:s,s:O,s:O,s:O,s:O,s:I,s:O,s:O,s:O,s:O,s:O}",
            "change_id", json_object_get(ch, "id"), "kind", "retime",
            "flight", json_object_get(ch, "flight"), "flight_id", json_object_get(ch, "segment_id"),
            "from", json_object_get(ch, "origin"), "to", json_object_get(ch, "destination"),
            "leg_ref", json_integer_value(json_object_get(ch, "journey_index")) + 1,
            "old_depart_local", json_object_get(prev, "departure_time"),
            "old_arrive_local", json_object_get(prev, "arrival_time"),
            "new_depart_local", json_object_get(cur, "departure_time"),
            "new_arrive_local", json_object_get(cur, "arrival_time"),
            "notified_at", json_object_get(ch, "created_at")));
    }
    json_object_del(doc, "_sbx");
    json_object_set_new(doc, "order_id", json_string(trv_rows_get(r, 0, "id")));
    json_object_set_new(doc, "status", json_string(strcmp(status, "pending") == 0 ? "processing"
                                                                                 : status));
    json_object_set_new(doc, "pnr", strcmp(status, "failed") == 0
                                        ? json_null() : json_string(trv_rows_get(r, 0, "pnr")));
    json_object_set_new(doc, "checkout_id", trv_rows_get(r, 0, "checkout_id")
                                                ? json_string(trv_rows_get(r, 0, "checkout_id"))
                                                : json_null());
    json_object_set_new(doc, "payment", pay ? json_loads(pay, 0, NULL) : json_null());
    json_object_set_new(doc, "failure", fail ? json_loads(fail, 0, NULL) : json_null());
    json_object_set_new(doc, "cancellation", canc ? json_loads(canc, 0, NULL) : json_null());
    json_object_set_new(doc, "schedule_changes", sc);
    json_object_set_new(doc, "created_at", json_string(trv_rows_get(r, 0, "created_at")));
    return doc;
}

static int order_answer(trv_req *req, trv_resp *resp, trv_dbc *c, const char *order_id,
                        const char *checkout_id, json_t **out, int *status)
{
    trv_rows *rows;
    json_t *o;
    if (sbx_order_get(c, req->pool, order_id, 'B', &rows) != APR_SUCCESS || rows->n != 1
        || !(o = order_json(req->pool, c, rows))) {
        sbx_db_fail(req, resp, c, 948, "reading an order");
        return 0;
    }
    *status = strcmp(trv_rows_get(rows, 0, "status"), "pending") == 0 ? 202 : 200;
    *out = trv_json_bind(req->pool, json_pack("{s:s,s:s,s:o}", "checkout_id", checkout_id,
                                              "status", "completed", "order", o));
    return 1;
}

static void complete_checkout(trv_req *req, trv_resp *resp)
{
    const sbx_ctx *x = SBX(req);
    const char *id = apr_table_get(req->params, "id");
    const char *order_id = trv_id_new(req->pool, "bo"), *trigger;
    trv_dbc *c;
    trv_rows *rows;
    json_t *doc, *meta, *out, *segs, *tr;
    sbx_order_new ord;
    int dup, status;
    size_t i;

    if (!sbx_idem_begin(req, resp, &c, 949, "completing a checkout")) {
        return;
    }
    if (trv_db_select(c, req->pool, &b_checkout_lock, &rows, TRV_DB_ARGS(id)) != APR_SUCCESS
        || trv_db_select(c, req->pool, &b_checkout_get, &rows, TRV_DB_ARGS(id)) != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 951, "completing a checkout");
        return;
    }
    if (rows->n == 0) {
        trv_db_rollback(c);
        trv_db_close(req->env->db, c);
        sbx_error(req, resp, 404, "not_found", "No checkout %s", id);
        return;
    }
    if (trv_rows_get(rows, 0, "order_id")) {
        /* Completed before (another key, or a retry): its order. */
        if (!order_answer(req, resp, c, trv_rows_get(rows, 0, "order_id"), id, &out, &status)) {
            return;
        }
        trv_db_rollback(c);
        trv_db_close(req->env->db, c);
        sbx_send(req, resp, status, json_incref(out));
        return;
    }
    if (trv_rows_bool(rows, 0, "expired")) {
        trv_db_rollback(c);
        trv_db_close(req->env->db, c);
        sbx_error(req, resp, 409, "checkout_expired",
                  "The checkout expired at %s; the seats were released",
                  trv_rows_get(rows, 0, "expires_at"));
        return;
    }
    doc = trv_json_parse(req->pool, trv_rows_get(rows, 0, "doc"),
                         strlen(trv_rows_get(rows, 0, "doc")), NULL);
    meta = json_object_get(doc, "_sbx");
    segs = json_object_get(meta, "segments");
    trigger = trv_json_str(doc, "test_trigger");
    trigger = trigger ? apr_pstrdup(req->pool, trigger) : NULL; /* doc loses the key below */
    tr = json_object_get(doc, "travelers");
    for (i = 0; i < json_array_size(tr); i++) {
        json_object_set_new(json_array_get(tr, i), "ticket_number",
                            json_string(sbx_ticket_number(req->pool)));
    }
    memset(&ord, 0, sizeof(ord));
    ord.id = order_id;
    ord.supplier = 'B';
    ord.offer_ref = trv_rows_get(rows, 0, "fare_key");
    ord.checkout_id = id;
    ord.pnr = sbx_pnr(req->pool);
    ord.trigger = trigger;
    ord.brand = apr_pstrdup(req->pool, trv_json_str(meta, "brand"));
    ord.currency = trv_rows_get(rows, 0, "currency");
    ord.total = (apr_int64_t)json_integer_value(json_object_get(meta, "total"));
    ord.tax = (apr_int64_t)json_integer_value(json_object_get(meta, "tax"));
    ord.services = (apr_int64_t)json_integer_value(json_object_get(meta, "services"));
    ord.refund_allowed = json_is_true(json_object_get(meta, "refund_allowed"));
    ord.refund_penalty = (apr_int64_t)json_integer_value(json_object_get(meta, "refund_penalty"));
    ord.segments = segs;
    json_object_del(doc, "test_trigger");
    ord.doc = doc;
    if (trigger && strcmp(trigger, "failticket") == 0) {
        /* Ticketing failed: B releases the card authorization, no charge. */
        ord.status = "failed";
        ord.failure = trv_json_bind(req->pool, json_pack("{s:s,s:s}", "code", "ticketing_failed",
            "message", "The airline could not issue the tickets (test trigger Failticket)"));
    }
    else {
        ord.payment = trv_json_bind(req->pool, json_pack(
            "{s:s,s:s,s:O,s:O,s:{s:s,s:s,s:s,s:n}}",
            "status", "captured", "collected_by", "SUPPLIER_B",
            "amount", json_object_get(json_object_get(doc, "price"), "total"),
            "currency", json_object_get(json_object_get(doc, "price"), "currency"),
            "card", "brand", "visa", "last4", "4242", "funding", "credit", "wallet"));
        if (trigger && strcmp(trigger, "async") == 0) {
            ord.status = "pending";
            ord.ticketing_in = x->set->async_ticketing;
        }
        else {
            ord.status = "ticketed";
        }
    }
    if (sbx_order_insert(c, req->pool, &ord, &dup) != APR_SUCCESS || dup
        || trv_db_exec(c, req->pool, &b_checkout_complete, NULL, TRV_DB_ARGS(order_id, id))
               != APR_SUCCESS
        || !order_answer(req, resp, c, order_id, id, &out, &status)) {
        if (!resp->status) {
            sbx_db_fail(req, resp, c, 952, "completing a checkout");
        }
        return;
    }
    if (sbx_idem_save(req, c, status, out) != APR_SUCCESS || trv_db_commit(c) != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 953, "completing a checkout");
        return;
    }
    trv_db_close(req->env->db, c);
    if (trigger && strcmp(trigger, "unknown") == 0) {
        trv_log_msg(&req->log, TRV_LOG_INFO, req->request_id,
                    TRVLOGNO(954) "sandbox B: order %s made, hanging (test trigger Unknown)",
                    order_id);
        sbx_sleep(req, x->set->hang);
    }
    sbx_send(req, resp, status, json_incref(out));
}

static void get_order(trv_req *req, trv_resp *resp)
{
    const char *id = apr_table_get(req->params, "id");
    trv_dbc *c;
    trv_rows *rows;
    json_t *out;
    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS) {
        sbx_db_fail(req, resp, NULL, 955, "reading an order");
        return;
    }
    if (sbx_order_get(c, req->pool, id, 'B', &rows) != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 956, "reading an order");
        return;
    }
    if (rows->n == 0) {
        trv_db_close(req->env->db, c);
        sbx_error(req, resp, 404, "not_found", "No order %s", id);
        return;
    }
    if (!(out = order_json(req->pool, c, rows))) {
        sbx_db_fail(req, resp, c, 957, "reading an order");
        return;
    }
    trv_db_close(req->env->db, c);
    sbx_send(req, resp, 200, out);
}

/* The order of a path for quoting or cancelling: ticketed, or answered. */
static int ticketed_order(trv_req *req, trv_resp *resp, trv_dbc *c, trv_rows **rows)
{
    const char *id = apr_table_get(req->params, "id"), *status;
    if (sbx_order_get(c, req->pool, id, 'B', rows) != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 958, "reading an order");
        return 0;
    }
    if ((*rows)->n == 0) {
        trv_db_rollback(c);
        trv_db_close(req->env->db, c);
        sbx_error(req, resp, 404, "not_found", "No order %s", id);
        return 0;
    }
    status = trv_rows_get(*rows, 0, "status");
    if (strcmp(status, "ticketed") != 0) {
        trv_db_rollback(c);
        trv_db_close(req->env->db, c);
        sbx_error(req, resp, 409, strcmp(status, "cancelled") == 0 ? "order_cancelled"
                                                                  : "order_not_ticketed",
                  "The order is %s", strcmp(status, "pending") == 0 ? "processing" : status);
        return 0;
    }
    return 1;
}

static void refund_quote(trv_req *req, trv_resp *resp)
{
    trv_dbc *c;
    trv_rows *rows;
    apr_int64_t fee, refund, now = sbx_now();
    const char *cur;
    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS) {
        sbx_db_fail(req, resp, NULL, 959, "quoting a refund");
        return;
    }
    if (!ticketed_order(req, resp, c, &rows)) {
        return;
    }
    trv_db_close(req->env->db, c);
    if (strcmp(trv_rows_get(rows, 0, "brand"), "Basic") == 0) {
        /* Basic fares' rules are filed with the airline only. */
        sbx_error(req, resp, 422, "quote_unavailable",
                  "Refund quotes are not available for Basic fares; the airline decides "
                  "at cancellation");
        return;
    }
    cur = trv_rows_get(rows, 0, "currency");
    sbx_cancel_terms(trv_rows_bool(rows, 0, "refund_allowed"),
                     apr_atoi64(trv_rows_get(rows, 0, "refund_penalty")),
                     apr_atoi64(trv_rows_get(rows, 0, "total_minor")),
                     apr_atoi64(trv_rows_get(rows, 0, "tax_minor")), &fee, &refund);
    sbx_send(req, resp, 200, json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s}",
        "order_id", trv_rows_get(rows, 0, "id"), "currency", cur,
        "penalty", sbx_amount(req->pool, fee, cur), "refund_total", sbx_amount(req->pool, refund, cur),
        "refund_to", "original_form_of_payment", "quoted_at", sbx_instant(req->pool, now),
        "valid_until", sbx_instant(req->pool, now + 15 * 60)));
}

static void cancel_order(trv_req *req, trv_resp *resp)
{
    const char *id = apr_table_get(req->params, "id"), *cur, *trig;
    trv_dbc *c;
    trv_rows *rows, *done;
    apr_int64_t fee, refund;
    json_t *block;

    if (!sbx_idem_begin(req, resp, &c, 960, "cancelling an order")) {
        return;
    }
    if (sbx_order_get(c, req->pool, id, 'B', &rows) != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 962, "cancelling an order");
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
    if (!ticketed_order(req, resp, c, &rows)) {
        return;
    }
    trig = trv_rows_get(rows, 0, "trigger");
    if (trig && strcmp(trig, "nocancel") == 0) {
        json_t *err = trv_json_bind(req->pool, sbx_error_doc(req, "cancellation_rejected",
            "The airline rejected the cancellation (test trigger Nocancel)"));
        sbx_idem_finish(req, resp, c, 422, err, 963, "cancelling an order");
        return;
    }
    cur = trv_rows_get(rows, 0, "currency");
    sbx_cancel_terms(trv_rows_bool(rows, 0, "refund_allowed"),
                     apr_atoi64(trv_rows_get(rows, 0, "refund_penalty")),
                     apr_atoi64(trv_rows_get(rows, 0, "total_minor")),
                     apr_atoi64(trv_rows_get(rows, 0, "tax_minor")), &fee, &refund);
    block = trv_json_bind(req->pool, json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s}",
        "order_id", id, "status", "cancelled", "currency", cur,
        "penalty", sbx_amount(req->pool, fee, cur),
        "refund_total", sbx_amount(req->pool, refund, cur),
        "refund_to", "original_form_of_payment",
        "cancelled_at", trv_time_format(req->pool, apr_time_now())));
    if (trv_db_select(c, req->pool, &b_order_cancel, &done,
                      TRV_DB_ARGS(trv_json_dump(req->pool, block), id)) != APR_SUCCESS
        || done->n != 1 || sbx_idem_save(req, c, 200, block) != APR_SUCCESS
        || trv_db_commit(c) != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 964, "cancelling an order");
        return;
    }
    trv_db_close(req->env->db, c);
    sbx_send(req, resp, 200, json_incref(block));
}

static void get_carrier(trv_req *req, trv_resp *resp)
{
    const char *code = apr_table_get(req->params, "code");
    const sbx_airline *a;
    int i;
    if (!sbx_need_world(req, resp)) {
        return;
    }
    i = sbx_airline_find(SBX(req)->world, code);
    if (i < 0) {
        sbx_error(req, resp, 404, "carrier_not_found", "No carrier %s", code);
        return;
    }
    a = &SBX(req)->world->airlines[i];
    sbx_send(req, resp, 200, json_pack("{s:{s:s,s:s,s:s,s:s,s:s,s:s?,s:s?,s:s,s:b}}",
        "carrier", "code", a->iata, "icao", a->icao, "name", a->name, "country", a->country,
        "country_code", a->country_code, "callsign", a->callsign, "alliance", a->alliance,
        "logo", sbx_logo_url(req->pool, a->iata), "active", a->active));
}

const trv_route sbx_air_b_routes[] = {
    {"POST", "/suppliers/b/v2/search", search, 0},
    {"GET", "/suppliers/b/v2/fares/{fare_key}/ancillaries", ancillaries, 0},
    {"POST", "/suppliers/b/v2/checkouts", create_checkout, 0},
    {"GET", "/suppliers/b/v2/checkouts/{id}", get_checkout, 0},
    {"POST", "/suppliers/b/v2/checkouts/{id}/complete", complete_checkout, 0},
    {"GET", "/suppliers/b/v2/orders/{id}", get_order, 0},
    {"POST", "/suppliers/b/v2/orders/{id}/refund-quote", refund_quote, 0},
    {"POST", "/suppliers/b/v2/orders/{id}/cancel", cancel_order, 0},
    {"GET", "/suppliers/b/v2/carriers/{code:iata}", get_carrier, 0},
    {NULL, NULL, NULL, 0},
};
