/* Hotel SUPPLIER_C: Expedia Group Rapid API v3 (protocol expedia-rapid)
 * under /hotels/c (the host; paths /v3/...), with Authorization: EAN
 * APIKey=<key>,Signature=<SHA-512 hex of key + secret + timestamp>,
 * timestamp=<Unix seconds> (checked in sbx_api.c):
 *
 *   GET    /v3/regions?include=details&include=property_ids&language=
 *          &country_code=&type=city                        cities, their properties
 *   POST   /v3/properties/geography?include=property_ids&supply_source=
 *          (a GeoJSON Polygon)                             properties inside it
 *   GET    /v3/properties/content?language=&supply_source=&property_id=...
 *          | &country_code=  [&token=]                    content (Link rel=next)
 *   GET    /v3/properties/availability?checkin=&checkout=&currency=
 *          &country_code=&language=&occupancy=2-5,7&property_id=...
 *          &rate_plan_count=&sales_channel=&sales_environment=
 *   GET    /v3/properties/{property_id}/rooms/{room_id}/rates/{rate_id}?token=
 *                                                          price check
 *   POST   /v3/itineraries?token=                          book (201)
 *   GET    /v3/itineraries?affiliate_reference_id=&email=  find by reference
 *   GET    /v3/itineraries/{itinerary_id}?token= | ?email= retrieve
 *   DELETE /v3/itineraries/{itinerary_id}/rooms/{room_id}?token=
 *                                                          cancel a room (204)
 *
 * Bare JSON; amounts {"value": "123.45", "currency": "EUR"}; errors
 * {type, message, fields?} (sandbox/hotel/rapid.c); the Test header's
 * documented keywords answer their set responses. Expedia is the merchant
 * of record: it charges the traveller's card given at book (payments type
 * customer_card; 4000000000000002 is declined), in the request currency;
 * mandatory taxes and fees (fees.mandatory_tax) are paid at the property.
 * Each booked room states rate.cancel_refund, its refund if cancelled now
 * (after its cancellation: what it refunded), and links.cancel unless it
 * cannot be cancelled online (test trigger Restricted). */
#include "hotel.h"
#include "sandbox/jtext.h"
#include "sandbox/money.h"
#include "sandbox/token.h"
#include "core/validate.h"
#include "core/clock.h"
#include "rapid.h"

#include <apr_escape.h>
#include <apr_strings.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define C 2
#define C_MAX_PROPERTIES 250
#define C_RATE_TTL (30 * 60)
#define C_CONTENT_LIMIT 250

/* {value, currency}: Rapid's amount. */
static void c_money(trv_jtext *t, const char *key, apr_int64_t v, const char *cur)
{
    trv_jtext_kobj(t, key);
    sbx_jt_kamount(t, "value", v, cur);
    trv_jtext_kstr(t, "currency", cur);
    trv_jtext_end(t);
}

/* Both currencies are the request's in the sandbox. */
static void c_billable(trv_jtext *t, const char *key, apr_int64_t v, const char *cur)
{
    trv_jtext_kobj(t, key);
    c_money(t, "billable_currency", v, cur);
    c_money(t, "request_currency", v, cur);
    trv_jtext_end(t);
}

static json_t *billable(trv_req *req, apr_int64_t v, const char *cur)
{
    trv_jtext t;
    trv_jtext_init(&t, req->pool, 256);
    trv_jtext_obj(&t);
    c_money(&t, "billable_currency", v, cur);
    c_money(&t, "request_currency", v, cur);
    trv_jtext_end(&t);
    return sbx_jt_tree(&t);
}

static json_t *c_property(trv_req *req, int i)
{
    const sbx_hotels *h = SBX_HOTELS(req);
    const sbx_hotel *x = &h->hotels[i];
    const sbx_hcity *c = &h->cities[x->city];
    json_t *rooms = json_object();
    double lat, lon;
    int r;
    sbx_hotel_position(x, C, &lat, &lon);
    for (r = 0; r < SBX_ROOM_TYPES; r++) {
        if (x->rooms & (1u << r)) {
            const sbx_room_type *t = sbx_room_type_get(r);
            json_object_set_new(rooms, t->code, json_pack("{s:s,s:s,s:{s:{s:i}}}", "id",
                                                          t->code, "name", t->name,
                                                          "occupancy", "max_allowed", "total",
                                                          t->max_occupancy));
        }
    }
    /* No GIATA-like code: Rapid's content does not carry one, so an
     * aggregator maps these by name, coordinates and address. */
    return json_pack("{s:s,s:s,s:{s:s,s:s,s:s,s:s},s:{s:{s:s},s:{s:s,s:i}},"
                     "s:{s:{s:f,s:f}},s:{s:s},s:o,s:{s:s},s:{s:s}}",
                     "property_id", sbx_hotel_sid(req->pool, C, i), "name", x->name,
                     "address", "line_1", apr_psprintf(req->pool, "%d %s", x->street_no,
                                                       x->street),
                     "city", c->name, "postal_code", x->postal_code,
                     "country_code", c->country_code,
                     "ratings", "property", "rating", apr_psprintf(req->pool, "%d.0", x->stars),
                     "guest", "overall", apr_psprintf(req->pool, "%d.%d", x->rating10 / 10,
                                                      x->rating10 % 10),
                     "count", x->reviews,
                     "location", "coordinates", "latitude", lat, "longitude", lon,
                     "category", "name", "Hotel", "rooms", rooms,
                     "checkin", "begin_time", "3:00 PM", "checkout", "time", "11:00 AM");
}

typedef struct collect {
    apr_array_header_t *vals;
} collect;

static int collect_one(void *baton, const char *key, const char *value)
{
    (void)key;
    *(const char **)apr_array_push(((collect *)baton)->vals) = value;
    return 1;
}

static apr_array_header_t *all_of(trv_req *req, const char *name)
{
    collect c;
    c.vals = apr_array_make(req->pool, 4, sizeof(const char *));
    apr_table_do(collect_one, &c, req->query, name, NULL);
    return c.vals;
}

/* The offset a content page token carries: 0..max (the catalogue's size),
 * else -1. Signed by the sandbox, but read as if it were not: an offset
 * outside the hotels indexed outside them, and one near INT_MAX overflowed
 * offset + limit (found by fuzz_sandbox_hotel with tokens it signed). */
static int page_offset(trv_req *req, const char *tok, int max, int *offset)
{
    char *pl = sbx_token_open(req->pool, SBX(req)->set->key_hc, tok), *end;
    long v;
    if (!pl || strncmp(pl, "content|", 8) != 0 || pl[8] < '0' || pl[8] > '9') {
        return -1;
    }
    v = strtol(pl + 8, &end, 10);
    if (*end || v > max) {
        return -1;
    }
    *offset = (int)v;
    return 0;
}

/* Rapid requires language (one of its 34, rapid.c; the sandbox's content
 * is in English whatever it is) and takes a Customer-Ip on shopping calls
 * optionally; on content and geography, supply_source (expedia or vrbo). */
static int c_shopping(trv_req *req, trv_resp *resp)
{
    return sbx_rapid_language(req, resp) && sbx_rapid_customer_ip_format(req, resp);
}

static int c_supply(trv_req *req, trv_resp *resp)
{
    const char *s = apr_table_get(req->query, "supply_source");
    if (!s || (strcmp(s, "expedia") != 0 && strcmp(s, "vrbo") != 0)) {
        sbx_invalid(req, resp, "supply_source", "is required: expedia or vrbo");
        return 0;
    }
    return 1;
}

static void content(trv_req *req, trv_resp *resp)
{
    const sbx_hotels *h;
    apr_array_header_t *pids = all_of(req, "property_id");
    const char *cc = apr_table_get(req->query, "country_code");
    const char *tok = apr_table_get(req->query, "token");
    const char *lim_s = apr_table_get(req->query, "limit");
    int *idx, n = 0, i, limit = lim_s ? atoi(lim_s) : 100, offset = 0;
    json_t *out;

    if (!sbx_need_hotels(req, resp) || !c_shopping(req, resp) || !c_supply(req, resp)) {
        return;
    }
    h = SBX_HOTELS(req);
    if (limit < 1 || limit > C_CONTENT_LIMIT) {
        sbx_invalid(req, resp, "limit", "must be 1 to 250");
        return;
    }
    if (tok && page_offset(req, tok, h->n_hotels, &offset) != 0) {
        sbx_invalid(req, resp, "token", "is not a page token of this API");
        return;
    }
    idx = apr_palloc(req->pool, sizeof(int) * (apr_size_t)h->n_hotels);
    if (pids->nelts > C_MAX_PROPERTIES) {
        sbx_invalid(req, resp, "property_id", "1 to 250 property ids");
        return;
    }
    for (i = 0; i < h->n_hotels; i++) {
        /* Every filter given narrows: the properties asked, of the
         * country asked; none: every property (paged). */
        int k, keep = (h->hotels[i].suppliers & (1u << C)) != 0;
        if (keep && pids->nelts) {
            const char *sid = sbx_hotel_sid(req->pool, C, i);
            for (keep = 0, k = 0; k < pids->nelts && !keep; k++) {
                keep = strcmp(sid, APR_ARRAY_IDX(pids, k, const char *)) == 0;
            }
        }
        if (keep && cc) {
            keep = strcmp(h->cities[h->hotels[i].city].country_code, cc) == 0;
        }
        if (keep) {
            idx[n++] = i;
        }
    }
    out = json_object();
    for (i = offset; i < n && i < offset + limit; i++) {
        json_object_set_new(out, sbx_hotel_sid(req->pool, C, idx[i]), c_property(req, idx[i]));
    }
    if (offset + limit < n) {
        /* Rapid pages with a Link header; its token carries the place. */
        const char *next = sbx_token_seal(req->pool, SBX(req)->set->key_hc,
                                          apr_psprintf(req->pool, "content|%d", offset + limit));
        char *args = apr_pstrdup(req->pool, "");
        const apr_array_header_t *arr = apr_table_elts(req->query);
        const apr_table_entry_t *e = (const apr_table_entry_t *)arr->elts;
        for (i = 0; i < arr->nelts; i++) {
            if (strcmp(e[i].key, "token") != 0) {
                args = apr_pstrcat(req->pool, args, e[i].key, "=",
                                   apr_pescape_urlencoded(req->pool, e[i].val), "&", NULL);
            }
        }
        apr_table_setn(resp->headers, "Link", apr_psprintf(req->pool,
                       "<" SBX_RAPID_BASE "/v3/properties/content?%stoken=%s>; rel=\"next\"",
                       args, next));
    }
    sbx_send(req, resp, 200, out);
}

/* GET /v3/regions: the sandbox's cities as Rapid regions of type city
 * (id 100000 + the city's index), with their properties when
 * include=property_ids. Filters: country_code, type (city only has
 * regions here), limit (default and cap 250: the sandbox answers one
 * page). */
static void regions(trv_req *req, trv_resp *resp)
{
    const sbx_hotels *h;
    apr_array_header_t *inc = all_of(req, "include");
    const char *cc = apr_table_get(req->query, "country_code");
    const char *type = apr_table_get(req->query, "type");
    int i, k, ids = 0, details = 0, standard = 0;
    json_t *out;
    if (!sbx_need_hotels(req, resp) || !c_shopping(req, resp)) {
        return;
    }
    for (i = 0; i < inc->nelts; i++) {
        const char *v = APR_ARRAY_IDX(inc, i, const char *);
        ids |= strcmp(v, "property_ids") == 0;
        details |= strcmp(v, "details") == 0;
        standard |= strcmp(v, "standard") == 0;
    }
    if (!inc->nelts || (details && standard)) {
        sbx_invalid(req, resp, "include", "is required (standard, details, property_ids, "
                    "property_ids_expanded); standard and details not together");
        return;
    }
    h = SBX_HOTELS(req);
    out = json_array();
    for (i = 0; i < h->n_cities && (!type || strcmp(type, "city") == 0); i++) {
        const sbx_hcity *c = &h->cities[i];
        json_t *r, *list;
        if (cc && strcmp(c->country_code, cc) != 0) {
            continue;
        }
        r = json_pack("{s:s,s:s,s:s,s:s,s:s}", "id", apr_itoa(req->pool, 100000 + i), "type",
                      "city", "name", c->name, "name_full",
                      apr_psprintf(req->pool, "%s, %s", c->name, c->country), "country_code",
                      c->country_code);
        if (details) {
            json_object_set_new(r, "coordinates", json_pack("{s:f,s:f}", "center_latitude",
                                                            c->lat, "center_longitude", c->lon));
        }
        if (ids) {
            list = json_array();
            for (k = 0; k < c->n; k++) {
                if (h->hotels[c->first + k].suppliers & (1u << C)) {
                    json_array_append_new(list, json_string(sbx_hotel_sid(req->pool, C,
                                                                          c->first + k)));
                }
            }
            json_object_set_new(r, "property_ids", list);
        }
        json_array_append_new(out, r);
    }
    sbx_send(req, resp, 200, out);
}

/* A polygon's ring read once into plain arrays: it is tested against every
 * hotel of the catalogue, and reading its points through Jansson for each
 * hotel was a fifth of a hotel search's sandbox CPU (docs/performance.md). */
typedef struct ring_pts {
    size_t n;
    const double *x, *y;             /* longitude, latitude of each point */
    double min_y, max_y;
} ring_pts;

static ring_pts ring_of(apr_pool_t *p, const json_t *pts)
{
    ring_pts r = {json_array_size(pts), NULL, NULL, 0, 0};
    double *x = apr_palloc(p, (r.n + 1) * sizeof(double));
    double *y = apr_palloc(p, (r.n + 1) * sizeof(double));
    size_t i;
    for (i = 0; i < r.n; i++) {
        const json_t *pt = json_array_get(pts, i);
        x[i] = json_number_value(json_array_get(pt, 0));
        y[i] = json_number_value(json_array_get(pt, 1));
        if (i == 0 || y[i] < r.min_y) {
            r.min_y = y[i];
        }
        if (i == 0 || y[i] > r.max_y) {
            r.max_y = y[i];
        }
    }
    r.x = x;
    r.y = y;
    return r;
}

/* Whether a point is inside the ring (ray casting; the ring's last point
 * may repeat its first). An edge is crossed only where one end is above
 * lat and the other not, which no edge is when lat is at or above every
 * point or below every point: those answer "outside" without the loop,
 * exactly as the loop would. */
static int in_ring(const ring_pts *r, double lat, double lon)
{
    size_t n = r->n, i, j;
    int in = 0;
    if (n <= 2 || lat >= r->max_y || lat < r->min_y) {
        return 0;
    }
    for (i = 0, j = n - 1; i < n; j = i++) {
        double ax = r->x[i], ay = r->y[i], bx = r->x[j], by = r->y[j];
        if ((ay > lat) != (by > lat) && lon < (bx - ax) * (lat - ay) / (by - ay) + ax) {
            in = !in;
        }
    }
    return in;
}

/* POST /v3/properties/geography: the properties inside a GeoJSON Polygon
 * (its outer ring; 3 to 2,000 points), as {property_id: {property_id}}. */
static void geography(trv_req *req, trv_resp *resp)
{
    const sbx_hotels *h;
    const json_t *b, *ring, *pt;
    const char *inc = apr_table_get(req->query, "include");
    trv_jtext t;
    ring_pts r;
    size_t k;
    int i;
    if (!sbx_need_hotels(req, resp) || !c_supply(req, resp)
        || !sbx_rapid_customer_ip_format(req, resp) || !(b = sbx_body(req, resp))) {
        return;
    }
    if (!inc || strcmp(inc, "property_ids") != 0) {
        sbx_invalid(req, resp, "include", "is required: property_ids");
        return;
    }
    ring = json_array_get(json_object_get(b, "coordinates"), 0);
    if (strcmp(trv_json_str(b, "type") ? trv_json_str(b, "type") : "", "Polygon") != 0
        || json_array_size(ring) < 4 || json_array_size(ring) > 2000) {
        sbx_invalid(req, resp, "type", "a GeoJSON Polygon: coordinates [[[longitude, "
                    "latitude], ...]], its ring of 4 to 2,000 points, closed");
        return;
    }
    json_array_foreach(ring, k, pt) {
        double x = json_number_value(json_array_get(pt, 0)), y = json_number_value(json_array_get(pt, 1));
        if (json_array_size(pt) != 2 || !json_is_number(json_array_get(pt, 0))
            || !json_is_number(json_array_get(pt, 1)) || x < -180 || x > 180 || y < -90
            || y > 90) {
            sbx_invalid(req, resp, "coordinates", "each point [longitude, latitude] in range");
            return;
        }
    }
    h = SBX_HOTELS(req);
    r = ring_of(req->pool, ring);
    trv_jtext_init(&t, req->pool, 4096);
    trv_jtext_obj(&t);
    for (i = 0; i < h->n_hotels; i++) {
        double lat, lon;
        if (!(h->hotels[i].suppliers & (1u << C))) {
            continue;
        }
        sbx_hotel_position(&h->hotels[i], C, &lat, &lon);
        if (in_ring(&r, lat, lon)) {
            const char *sid = sbx_hotel_sid(req->pool, C, i);
            trv_jtext_kobj(&t, sid);
            trv_jtext_kstr(&t, "property_id", sid);
            trv_jtext_end(&t);
        }
    }
    trv_jtext_end(&t);
    sbx_jt_send(req, resp, 200, &t);
}

/* ---- availability ---- */

/* The penalties of rooms pr[0..n_rooms) summed, each until the next one
 * starts (the last until end), as an array value. */
static void c_penalties(trv_jtext *t, const sbx_hprice *pr, int n_rooms, const char *cur,
                        apr_int64_t end)
{
    int i, k;
    trv_jtext_arr(t);
    for (i = 0; i < pr[0].n_penalties; i++) {
        apr_int64_t sum = 0;
        for (k = 0; k < n_rooms; k++) {
            sum += pr[k].penalties[i].amount;
        }
        trv_jtext_obj(t);
        trv_jtext_kstr(t, "currency", cur);
        trv_jtext_key(t, "start");
        sbx_jt_instant(t, pr[0].penalties[i].from);
        trv_jtext_key(t, "end");
        sbx_jt_instant(t, i + 1 < pr[0].n_penalties ? pr[0].penalties[i + 1].from : end);
        sbx_jt_kamount(t, "amount", sum, cur);
        trv_jtext_end(t);
    }
    trv_jtext_end(t);
}

/* Rapid's pricing of one room: nightly base rates (taxes included in the
 * sandbox), the promotion as a stay adjustment, totals and the fees the
 * property collects; with_penalties adds the room's own cancel_penalties
 * (a sandbox extension of occupancy_pricing) until end. */
static void c_pricing_text(trv_jtext *t, const sbx_hprice *r, int nights, const char *cur,
                           int with_penalties, apr_int64_t end)
{
    int n;
    trv_jtext_obj(t);
    trv_jtext_karr(t, "nightly");
    for (n = 0; n < nights; n++) {
        trv_jtext_arr(t);
        trv_jtext_obj(t);
        trv_jtext_kstr(t, "type", "base_rate");
        sbx_jt_kamount(t, "value", r->nightly[n], cur);
        trv_jtext_kstr(t, "currency", cur);
        trv_jtext_end(t);
        trv_jtext_end(t);
    }
    trv_jtext_end(t);
    trv_jtext_karr(t, "stay");
    if (r->discount) {
        trv_jtext_obj(t);
        trv_jtext_kstr(t, "type", "promotion");
        sbx_jt_kamount(t, "value", -r->discount, cur);
        trv_jtext_kstr(t, "currency", cur);
        trv_jtext_end(t);
    }
    trv_jtext_end(t);
    trv_jtext_kobj(t, "totals");
    c_billable(t, "inclusive", r->total, cur);
    c_billable(t, "exclusive", r->total - r->vat, cur);
    if (r->discount) {
        c_billable(t, "strikethrough", r->gross, cur);
    }
    if (r->due_at_property) {
        c_billable(t, "property_fees", r->due_at_property, cur);
    }
    trv_jtext_end(t);
    trv_jtext_kobj(t, "fees");
    if (r->due_at_property) {
        c_billable(t, "mandatory_tax", r->due_at_property, cur);
    }
    trv_jtext_end(t);
    if (with_penalties) {
        trv_jtext_key(t, "cancel_penalties");
        c_penalties(t, r, 1, cur, end);
    }
    trv_jtext_end(t);
}

static json_t *c_pricing(trv_req *req, const sbx_hprice *r, int nights, const char *cur)
{
    trv_jtext t;
    trv_jtext_init(&t, req->pool, 1024);
    c_pricing_text(&t, r, nights, cur, 0, 0);
    return sbx_jt_tree(&t);
}

static const char *c_rate_id(trv_req *req, const sbx_hquote *q)
{
    return apr_psprintf(req->pool, "%s-%s", q->plan ? "NRF" : "RFN",
                        sbx_board_get(q->board)->code);
}

/* When the stay ends at the hotel (check-out, 11:00 local): the last
 * penalty's end. */
static apr_int64_t c_stay_end(trv_req *req, const sbx_hquote *q)
{
    return sbx_hotel_utc(SBX_HOTELS(req), SBX(req)->world, q->hotel,
                         (apr_int64_t)(q->checkin + q->nights) * 86400 + 11 * 3600);
}

/* Per occupancy (rooms of one occupancy price alike): Rapid's pricing,
 * and, a sandbox extension, that room's own cancel_penalties (the rate's
 * cancel_penalties cover every room). Keyed by the occupancy ("2-5,7"):
 * rooms of the same occupancy share one member, the last room's, where
 * the first of them stands (as an object's member set again keeps its
 * place). */
static void c_occupancy_pricing_text(trv_req *req, trv_jtext *t, const sbx_hquote *q,
                                     const sbx_hprice *pr, apr_int64_t end)
{
    const char *occ[SBX_MAX_HROOMS];
    int k, j, last;
    trv_jtext_obj(t);
    for (k = 0; k < q->n_rooms; k++) {
        occ[k] = sbx_occ_format(req->pool, &q->occ[k]);
    }
    for (k = 0; k < q->n_rooms; k++) {
        for (j = 0; j < k && strcmp(occ[j], occ[k]) != 0; j++) {
        }
        if (j < k) {
            continue;   /* written where its first room stands */
        }
        for (last = k, j = k + 1; j < q->n_rooms; j++) {
            if (strcmp(occ[j], occ[k]) == 0) {
                last = j;
            }
        }
        trv_jtext_key(t, occ[k]);
        c_pricing_text(t, &pr[last], q->nights, q->currency, 1, end);
    }
    trv_jtext_end(t);
}

static json_t *c_occupancy_pricing(trv_req *req, const sbx_hquote *q, const sbx_hprice *pr)
{
    trv_jtext t;
    trv_jtext_init(&t, req->pool, 2048);
    c_occupancy_pricing_text(req, &t, q, pr, c_stay_end(req, q));
    return sbx_jt_tree(&t);
}

static void c_rate(trv_req *req, trv_jtext *t, const sbx_hquote *q)
{
    sbx_hprice *pr = apr_palloc(req->pool, sizeof(sbx_hprice) * (apr_size_t)q->n_rooms);
    const sbx_room_type *rt = sbx_room_type_get(q->room);
    const char *tok = sbx_hquote_encode(req->pool, q, "cr", SBX(req)->set->key_hc);
    const char *pid = sbx_hotel_sid(req->pool, C, q->hotel);
    const char *rate_id = c_rate_id(req, q);
    apr_int64_t end;
    sbx_hquote_price(SBX_HOTELS(req), SBX(req)->world, q, sbx_now(), pr);
    end = c_stay_end(req, q);
    trv_jtext_obj(t);
    trv_jtext_kstr(t, "id", rate_id);
    trv_jtext_kstr(t, "status", "available");
    trv_jtext_kint(t, "available_rooms", 5);
    trv_jtext_kbool(t, "refundable", pr[0].refundable);
    trv_jtext_kbool(t, "member_deal_available",
                 pr[0].promo_code && strcmp(pr[0].promo_code, "MEMBERDEAL7") == 0);
    trv_jtext_kstr(t, "merchant_of_record", "expedia");
    trv_jtext_kobj(t, "amenities");
    if (q->board > 0) {
        trv_jtext_kobj(t, "2192");
        trv_jtext_kstr(t, "id", "2192");
        trv_jtext_kstr(t, "name", sbx_board_get(q->board)->name);
        trv_jtext_end(t);
    }
    trv_jtext_end(t);
    trv_jtext_kobj(t, "bed_groups");
    trv_jtext_kobj(t, rt->code);
    trv_jtext_kstr(t, "id", rt->code);
    trv_jtext_kstr(t, "description", rt->bed);
    trv_jtext_kobj(t, "links");
    trv_jtext_kobj(t, "price_check");
    trv_jtext_kstr(t, "method", "GET");
    trv_jtext_kstr(t, "href", apr_psprintf(req->pool, SBX_RAPID_BASE
                                        "/v3/properties/%s/rooms/%s/rates/%s?token=%s", pid,
                                        rt->code, rate_id, tok));
    trv_jtext_end(t);
    trv_jtext_end(t);
    trv_jtext_kstr(t, "configuration_text", rt->bed);
    trv_jtext_end(t);
    trv_jtext_end(t);
    trv_jtext_key(t, "cancel_penalties");
    c_penalties(t, pr, q->n_rooms, q->currency, end);
    trv_jtext_karr(t, "nonrefundable_date_ranges");
    trv_jtext_end(t);
    trv_jtext_key(t, "occupancy_pricing");
    c_occupancy_pricing_text(req, t, q, pr, end);
    trv_jtext_kobj(t, "promotions");
    if (pr[0].promo_code) {
        trv_jtext_kobj(t, "deal");
        trv_jtext_kstr(t, "id", pr[0].promo_code);
        trv_jtext_kstr(t, "description", pr[0].promo_name);
        trv_jtext_end(t);
    }
    trv_jtext_end(t);
    trv_jtext_end(t);
}

static void availability(trv_req *req, trv_resp *resp)
{
    sbx_hotel_set *seen;
    const sbx_hotels *h;
    apr_array_header_t *occs = all_of(req, "occupancy"), *pids = all_of(req, "property_id");
    const char *cur = apr_table_get(req->query, "currency"), *field, *reason;
    const char *rpc = apr_table_get(req->query, "rate_plan_count");
    sbx_hquote q, *found;
    apr_hash_t *factors;
    apr_int64_t now = sbx_now();
    long checkout;
    int i, k, n, max_rates = rpc ? atoi(rpc) : 10;
    trv_jtext t;

    static const char *const tests[] = {"service_unavailable", "unknown_internal_error", NULL};
    const char *kw, *pos = apr_table_get(req->query, "country_code");
    if (!sbx_need_hotels(req, resp) || sbx_rapid_test(req, resp, tests, &kw)
        || !c_shopping(req, resp)) {
        return;
    }
    if (!pos || strlen(pos) != 2) {
        sbx_invalid(req, resp, "country_code", "is required: the point of sale, ISO 3166-1 "
                    "alpha-2");
        return;
    }
    if (!apr_table_get(req->query, "sales_channel")
        || !apr_table_get(req->query, "sales_environment") || !rpc) {
        sbx_invalid(req, resp, !rpc ? "rate_plan_count"
                    : !apr_table_get(req->query, "sales_channel") ? "sales_channel"
                    : "sales_environment", "is required");
        return;
    }
    h = SBX_HOTELS(req);
    memset(&q, 0, sizeof(q));
    q.supplier = C;
    q.today = (long)(now / 86400);
    q.checkin = sbx_day_of(apr_table_get(req->query, "checkin"));
    checkout = sbx_day_of(apr_table_get(req->query, "checkout"));
    if (sbx_stay_check(q.checkin, checkout, q.today, &field, &reason) != 0) {
        sbx_invalid(req, resp, field, reason);
        return;
    }
    q.nights = (int)(checkout - q.checkin);
    if (!sbx_currency_known(cur)) {
        sbx_invalid(req, resp, "currency", "must be an ISO 4217 code the sandbox sells in");
        return;
    }
    memcpy(q.currency, cur, 4);
    if (occs->nelts < 1 || occs->nelts > SBX_MAX_HROOMS) {
        sbx_invalid(req, resp, "occupancy", "one per room, 1 to 8: adults[-age,age...]");
        return;
    }
    for (i = 0; i < occs->nelts; i++) {
        reason = "must be adults[-age,age...], e.g. 2-5,7";
        if (sbx_occ_parse(APR_ARRAY_IDX(occs, i, const char *), &q.occ[i]) != 0
            || sbx_occ_check(&q.occ[i], &reason) != 0) {
            sbx_invalid(req, resp, "occupancy", reason);
            return;
        }
    }
    q.n_rooms = occs->nelts;
    if (pids->nelts < 1 || pids->nelts > C_MAX_PROPERTIES) {
        sbx_invalid(req, resp, "property_id", "1 to 250 property ids");
        return;
    }
    if (max_rates < 1 || max_rates > 50) {
        sbx_invalid(req, resp, "rate_plan_count", "must be 1 to 50");
        return;
    }
    if (sbx_hfactors(req, resp, C, &factors) != 0) {
        return;
    }
    q.expires = now + C_RATE_TTL;
    found = apr_palloc(req->pool, sizeof(sbx_hquote) * (apr_size_t)max_rates);
    seen = sbx_hotel_set_make(req->pool, h);
    trv_jtext_init(&t, req->pool, 32768);
    trv_jtext_arr(&t);
    for (i = 0; i < pids->nelts; i++) {
        const char *pid = APR_ARRAY_IDX(pids, i, const char *);
        int order[SBX_ROOM_TYPES], n_order = 0, r, seen_room[SBX_ROOM_TYPES] = {0};
        q.hotel = sbx_hotel_by_sid(h, C, pid);
        if (!sbx_hotel_set_add(seen, q.hotel)) {
            continue;
        }
        q.factor_permille = sbx_hfactor_of(factors, pid);
        n = sbx_hotel_rates(h, SBX(req)->world, &q, now, found, max_rates);
        if (!n) {
            continue;
        }
        /* A room's rates in the order the rates come (cheapest first),
         * the rooms in the order of their first rate. */
        for (k = 0; k < n; k++) {
            if (!seen_room[found[k].room]) {
                seen_room[found[k].room] = 1;
                order[n_order++] = found[k].room;
            }
        }
        trv_jtext_obj(&t);
        trv_jtext_kstr(&t, "property_id", pid);
        trv_jtext_kstr(&t, "status", "available");
        trv_jtext_karr(&t, "rooms");
        for (r = 0; r < n_order; r++) {
            const sbx_room_type *rt = sbx_room_type_get(order[r]);
            trv_jtext_obj(&t);
            trv_jtext_kstr(&t, "id", rt->code);
            trv_jtext_kstr(&t, "room_name", rt->name);
            trv_jtext_karr(&t, "rates");
            for (k = 0; k < n; k++) {
                if (found[k].room == order[r]) {
                    c_rate(req, &t, &found[k]);
                }
            }
            trv_jtext_end(&t);
            trv_jtext_end(&t);
        }
        trv_jtext_end(&t);
        trv_jtext_kint(&t, "score", 1000 - h->hotels[q.hotel].rating10);
        trv_jtext_end(&t);
    }
    trv_jtext_end(&t);
    sbx_jt_send(req, resp, 200, &t);
}

static int c_token(trv_req *req, trv_resp *resp, const char *kind, sbx_hquote *q)
{
    if (sbx_hquote_decode(req->pool, apr_table_get(req->query, "token"), kind,
                          SBX(req)->set->key_hc, SBX_HOTELS(req), q) != 0) {
        sbx_invalid(req, resp, "token", "is not a token of this API for this link");
        return -1;
    }
    return 0;
}

static void price_check(trv_req *req, trv_resp *resp)
{
    sbx_hquote q;
    apr_hash_t *f;
    sbx_hprice *pr;
    apr_int64_t before;
    const char *status;
    static const char *const tests[] = {"price_changed", "sold_out", "service_unavailable",
                                        "unknown_internal_error", NULL};
    const char *kw;
    if (!sbx_need_hotels(req, resp) || !sbx_rapid_customer_ip_format(req, resp)
        || sbx_rapid_test(req, resp, tests, &kw) || c_token(req, resp, "cr", &q) != 0) {
        return;
    }
    if (strcmp(apr_table_get(req->params, "property_id"), sbx_hotel_sid(req->pool, C, q.hotel))
        != 0) {
        sbx_error(req, resp, 404, "not_found", "The token is for another property");
        return;
    }
    if (q.expires < sbx_now() || (kw && strcmp(kw, "sold_out") == 0)) {
        sbx_send(req, resp, 200, json_pack("{s:s}", "status", "sold_out"));
        return;
    }
    if (sbx_hfactors(req, resp, C, &f) != 0) {
        return;
    }
    before = q.total;
    q.factor_permille = sbx_hfactor_of(f, sbx_hotel_sid(req->pool, C, q.hotel));
    pr = apr_palloc(req->pool, sizeof(sbx_hprice) * (apr_size_t)q.n_rooms);
    q.total = sbx_hquote_price(SBX_HOTELS(req), SBX(req)->world, &q, sbx_now(), pr);
    status = q.total == before && !(kw && strcmp(kw, "price_changed") == 0) ? "available"
                                                                             : "price_changed";
    q.expires = sbx_now() + C_RATE_TTL;
    sbx_send(req, resp, 200, json_pack(
        "{s:s,s:o,s:{s:o},s:{s:{s:s,s:s}}}", "status", status,
        "occupancy_pricing", c_occupancy_pricing(req, &q, pr),
        "totals", "inclusive", billable(req, q.total, q.currency),
        "links", "book", "method", "POST", "href",
        apr_psprintf(req->pool, SBX_RAPID_BASE "/v3/itineraries?token=%s",
                     sbx_hquote_encode(req->pool, &q, "cb", SBX(req)->set->key_hc))));
}

/* ---- itineraries ---- */

static const char *c_room_status(const char *s)
{
    return strcmp(s, "pending") == 0 ? "pending" : strcmp(s, "cancelled") == 0 ? "canceled"
                                                                                : "booked";
}

/* A link's token: the itinerary it is for and what it does ("it"
 * retrieve, "cx" cancel), sealed. */
static const char *c_link_token(trv_req *req, const char *what, const char *id)
{
    return sbx_token_seal(req->pool, SBX(req)->set->key_hc,
                          apr_psprintf(req->pool, "%s|%s", what, id));
}

static int c_link_ok(trv_req *req, const char *what, const char *id)
{
    const char *tok = apr_table_get(req->query, "token");
    char *pl = tok ? sbx_token_open(req->pool, SBX(req)->set->key_hc, tok) : NULL;
    return pl && strcmp(pl, apr_psprintf(req->pool, "%s|%s", what, id)) == 0;
}

/* A room's rate.cancel_refund: what cancelling it now would refund, or,
 * once cancelled, what its cancellation refunded (its terms at that
 * instant). */
static json_t *c_cancel_refund(trv_req *req, const trv_rows *row, const json_t *room,
                               const char *cur)
{
    json_t *one = json_pack("{s:[O]}", "rooms", room);
    const char *canc = trv_rows_get(row, 0, "cancellation");
    apr_int64_t at = sbx_now(), fee, refund;
    if (canc) {
        json_t *c = trv_json_parse(req->pool, canc, strlen(canc), NULL);
        apr_time_t t;
        if (trv_json_str(c, "cancelled_at")
            && trv_time_parse(trv_json_str(c, "cancelled_at"), &t) == APR_SUCCESS) {
            at = apr_time_sec(t);
        }
    }
    sbx_hdoc_cancel_terms(one, at, &fee, &refund);
    json_decref(one);
    return json_pack("{s:s,s:s}", "amount", sbx_amount(req->pool, refund, cur), "currency", cur);
}

static json_t *c_itinerary(trv_req *req, const trv_rows *row, const json_t *doc)
{
    const char *cur = trv_json_str(doc, "currency"), *id = trv_rows_get(row, 0, "id");
    const char *status = c_room_status(trv_rows_get(row, 0, "status"));
    apr_int64_t end_t = apr_atoi64(trv_json_str(doc, "checkout_utc")
                                   ? trv_json_str(doc, "checkout_utc") : "0");
    const json_t *r;
    json_t *rooms = json_array(), *out, *room;
    size_t k;
    json_array_foreach(json_object_get(doc, "rooms"), k, r) {
        const json_t *g = json_array_get(json_object_get(r, "guests"), 0), *pen;
        json_t *pens = json_array();
        const json_t *nv;
        sbx_hprice one;
        size_t i, np = json_array_size(json_object_get(r, "penalties"));
        memset(&one, 0, sizeof(one));
        json_array_foreach(json_object_get(r, "penalties"), i, pen) {
            const json_t *next = json_array_get(json_object_get(r, "penalties"), i + 1);
            json_array_append_new(pens, json_pack("{s:s,s:s,s:s,s:s}", "currency", cur,
                "start", sbx_instant(req->pool, json_integer_value(json_object_get(pen, "from"))),
                "end", sbx_instant(req->pool, i + 1 < np
                                                  ? json_integer_value(json_object_get(next, "from"))
                                                  : end_t),
                "amount", sbx_amount(req->pool, json_integer_value(json_object_get(pen, "amount")),
                                     cur)));
        }
        json_array_foreach(json_object_get(r, "nightly"), i, nv) {
            if (i < SBX_MAX_NIGHTS) {
                one.nightly[i] = json_integer_value(nv);
            }
        }
        one.gross = json_integer_value(json_object_get(r, "gross"));
        one.discount = json_integer_value(json_object_get(r, "discount"));
        one.total = json_integer_value(json_object_get(r, "total"));
        one.vat = json_integer_value(json_object_get(r, "vat"));
        one.due_at_property = json_integer_value(json_object_get(r, "due_at_property"));
        room = json_pack(
            "{s:s,s:{s:s,s:s?},s:s,s:s,s:s,s:O,s:O,s:s?,s:s?,s:s,s:{s:s,s:s,s:b,s:o,s:o,s:o,s:O}}",
            "id", apr_psprintf(req->pool, "%s-%d", id, (int)k + 1),
            "confirmation_id", "expedia", apr_psprintf(req->pool, "%s%d", id + 3, (int)k + 1),
            "property", strcmp(status, "pending") == 0 ? NULL
                : trv_json_str(doc, "hotel_confirmation_code"),
            "bed_group_id", trv_json_str(doc, "room_code"),
            "checkin", trv_json_str(doc, "checkin"), "checkout", trv_json_str(doc, "checkout"),
            "number_of_adults", json_object_get(r, "adults"),
            "child_ages", json_object_get(r, "child_ages"),
            "given_name", trv_json_str(g, "first_name"), "family_name", trv_json_str(g, "last_name"),
            "status", status,
            "rate", "id", apr_psprintf(req->pool, "%s-%s", trv_json_str(doc, "plan"),
                                       trv_json_str(doc, "board")),
            "merchant_of_record", "expedia",
            "refundable", json_is_true(json_object_get(r, "refundable")),
            "cancel_refund", c_cancel_refund(req, row, r, cur),
            "cancel_penalties", pens,
            "pricing", c_pricing(req, &one, (int)json_integer_value(json_object_get(doc, "nights")),
                                 cur),
            "promotions", json_object_get(r, "promotion"));
        /* A booked room's cancel link; none while pending, once cancelled,
         * or when the property must approve a cancellation (Restricted). */
        if (strcmp(status, "booked") == 0 && !trv_rows_bool(row, 0, "restricted")) {
            json_object_set_new(room, "links", json_pack("{s:{s:s,s:s}}", "cancel", "method",
                "DELETE", "href", apr_psprintf(req->pool, SBX_RAPID_BASE
                                               "/v3/itineraries/%s/rooms/%s-%d?token=%s", id, id,
                                               (int)k + 1, c_link_token(req, "cx", id))));
        }
        json_array_append_new(rooms, room);
    }
    /* Rapid's itinerary: no totals or payments of its own (each room's
     * rate has its pricing); the whole client reference in
     * affiliate_metadata. */
    out = json_pack("{s:s,s:s,s:s,s:s,s:s,s:{s:s,s:s},s:s?,s:o}",
        "itinerary_id", id, "property_id", trv_json_str(doc, "supplier_hotel_id"),
        "creation_date_time", trv_rows_get(row, 0, "created_at"),
        "email", trv_json_str(json_object_get(doc, "holder"), "email"),
        "affiliate_reference_id", trv_rows_get(row, 0, "client_reference"),
        "phone", "country_code", trv_json_str(json_object_get(json_object_get(doc, "holder"),
                                                             "phone"), "country_code")
                                 ? trv_json_str(json_object_get(json_object_get(doc, "holder"),
                                                                "phone"), "country_code") : "",
        "number", trv_json_str(json_object_get(json_object_get(doc, "holder"), "phone"), "number")
                      ? trv_json_str(json_object_get(json_object_get(doc, "holder"), "phone"),
                                     "number") : "",
        "affiliate_metadata", trv_json_str(doc, "affiliate_metadata"),
        "rooms", rooms);
    return out;
}

/* The answer of a create: Rapid's is the id and the link to retrieve it. */
static json_t *c_created(trv_req *req, const trv_rows *row, const json_t *doc)
{
    const char *id = trv_rows_get(row, 0, "id");
    (void)doc;
    return json_pack("{s:s,s:{s:{s:s,s:s}}}", "itinerary_id", id, "links", "retrieve",
                     "method", "GET", "href",
                     apr_psprintf(req->pool, SBX_RAPID_BASE "/v3/itineraries/%s?token=%s", id,
                                  c_link_token(req, "it", id)));
}

static int digits(const char *s, size_t lo, size_t hi)
{
    size_t n = s ? strlen(s) : 0, i;
    for (i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') {
            return 0;
        }
    }
    return n >= lo && n <= hi;
}

static void book(trv_req *req, trv_resp *resp)
{
    static const char *const tests[] = {"complete_payment_session", "service_unavailable",
                                        "internal_server_error", "price_mismatch", "cc_declined",
                                        "rooms_unavailable", NULL};
    const json_t *b, *rooms, *room, *pay, *bc;
    const char *ref, *meta, *email, *card, *kw;
    sbx_hquote q;
    apr_hash_t *f;
    sbx_hprice *pr;
    sbx_htrigger trig;
    sbx_hbooking_new nb;
    json_t *rooms_guests, *doc, *h;
    apr_int64_t quoted;
    size_t k;
    char code[9];

    if (!sbx_need_hotels(req, resp) || !sbx_rapid_customer_ip(req, resp)
        || sbx_rapid_test(req, resp, tests, &kw) || !(b = sbx_body(req, resp))
        || c_token(req, resp, "cb", &q) != 0) {
        return;
    }
    if (kw && strcmp(kw, "complete_payment_session") == 0) {
        sbx_invalid(req, resp, "Test", "complete_payment_session needs a payment session, "
                    "which the sandbox does not serve");
        return;
    }
    ref = trv_json_str(b, "affiliate_reference_id");
    if (!ref || !trv_printable(ref, 3, 28)) {
        sbx_invalid(req, resp, "affiliate_reference_id", "is required: 3 to 28 characters");
        return;
    }
    meta = trv_json_str(b, "affiliate_metadata");
    if (meta && !trv_printable(meta, 1, 256)) {
        sbx_invalid(req, resp, "affiliate_metadata", "at most 256 characters");
        return;
    }
    email = trv_json_str(b, "email");
    if (!email || !strchr(email, '@')) {
        sbx_invalid(req, resp, "email", "is required");
        return;
    }
    if (!trv_json_str(json_object_get(b, "phone"), "country_code")
        || !trv_json_str(json_object_get(b, "phone"), "number")) {
        sbx_invalid(req, resp, "phone", "country_code and number are required");
        return;
    }
    rooms = json_object_get(b, "rooms");
    if (!json_is_array(rooms) || json_array_size(rooms) != (size_t)q.n_rooms) {
        sbx_invalid(req, resp, "rooms", "one entry per occupancy priced");
        return;
    }
    pay = json_array_get(json_object_get(b, "payments"), 0);
    card = trv_json_str(pay, "number");
    bc = json_object_get(pay, "billing_contact");
    if (!pay || strcmp(trv_json_str(pay, "type") ? trv_json_str(pay, "type") : "",
                       "customer_card") != 0 || !digits(card, 12, 19)) {
        sbx_invalid(req, resp, "payments", "one customer_card payment with the card number "
                    "(Expedia collects: test cards of any number)");
        return;
    }
    if (!trv_json_str(bc, "given_name") || !trv_json_str(bc, "family_name")
        || !trv_json_str(json_object_get(bc, "address"), "country_code")) {
        sbx_invalid(req, resp, "payments.billing_contact",
                    "given_name, family_name and address.country_code are required");
        return;
    }
    /* The published test number an issuer declines, or Test: cc_declined. */
    if (strcmp(card, "4000000000000002") == 0 || (kw && strcmp(kw, "cc_declined") == 0)) {
        sbx_error(req, resp, 400, "payment.declined", "The traveller's card was declined");
        return;
    }
    if (kw && strcmp(kw, "rooms_unavailable") == 0) {
        sbx_error(req, resp, 409, "rooms_unavailable", "The rooms are no longer available "
                  "(Test header)");
        return;
    }
    memset(&trig, 0, sizeof(trig));
    sbx_htrigger_reference(&trig, meta ? meta : ref);
    rooms_guests = trv_json_bind(req->pool, json_array());
    json_array_foreach(rooms, k, room) {
        if (!trv_json_str(room, "given_name") || !trv_json_str(room, "family_name")) {
            sbx_invalid(req, resp, apr_psprintf(req->pool, "rooms[%d]", (int)k),
                        "given_name and family_name are required");
            return;
        }
        sbx_htrigger_guest(&trig, trv_json_str(room, "family_name"));
        json_array_append_new(rooms_guests, json_pack("[{s:s,s:s}]", "first_name",
                                                      trv_json_str(room, "given_name"),
                                                      "last_name",
                                                      trv_json_str(room, "family_name")));
    }
    if (q.expires < sbx_now()) {
        sbx_error(req, resp, 410, "link.expired", "The book link expired; check the price "
                  "again");
        return;
    }
    if (sbx_hfactors(req, resp, C, &f) != 0) {
        return;
    }
    quoted = q.total;
    q.factor_permille = sbx_hfactor_of(f, sbx_hotel_sid(req->pool, C, q.hotel));
    pr = apr_palloc(req->pool, sizeof(sbx_hprice) * (apr_size_t)q.n_rooms);
    if (sbx_hquote_price(SBX_HOTELS(req), SBX(req)->world, &q, sbx_now(), pr) != quoted
        || (kw && strcmp(kw, "price_mismatch") == 0)) {
        sbx_error(req, resp, 409, "price_mismatch", "The price changed; check the price again");
        return;
    }
    h = json_pack("{s:s,s:s,s:s,s:O?}", "first_name",
                  trv_json_str(json_array_get(rooms, 0), "given_name"), "last_name",
                  trv_json_str(json_array_get(rooms, 0), "family_name"), "email", email,
                  "phone", json_object_get(b, "phone"));
    doc = trv_json_bind(req->pool, sbx_hbooking_doc(req->pool, SBX_HOTELS(req), &q, pr,
                                                    rooms_guests, h));
    json_decref(h);
    sbx_random_chars(code, 8, "0123456789");
    json_object_set_new(doc, "hotel_confirmation_code", json_string(code));
    if (meta) {
        json_object_set_new(doc, "affiliate_metadata", json_string(meta));
    }
    json_object_set_new(doc, "checkout_utc", json_string(apr_psprintf(req->pool,
        "%" APR_INT64_T_FMT, sbx_hotel_utc(SBX_HOTELS(req), SBX(req)->world, q.hotel,
                                           (apr_int64_t)(q.checkin + q.nights) * 86400
                                               + 11 * 3600))));
    memset(&nb, 0, sizeof(nb));
    sbx_random_chars(code, 8, "0123456789");
    nb.id = apr_pstrcat(req->pool, "721", code, NULL);
    nb.supplier = C;
    nb.ignores_idempotency_key = 1; /* Expedia Rapid documents none */
    nb.client_reference = ref;
    nb.trigger = &trig;
    nb.currency = q.currency;
    nb.total = q.total;
    if (trig.tightened) {
        sbx_hdoc_tighten(doc, sbx_now());
    }
    nb.doc = doc;
    nb.confirm_in = trig.async ? SBX(req)->set->async_ticketing : 0;
    sbx_hbook_run(req, resp, &nb, "rooms_unavailable", "duplicate_itinerary", 201, c_created);
}

/* GET /v3/itineraries/{id}: with the retrieve link's token, or with the
 * booking's email. */
static void get_itinerary(trv_req *req, trv_resp *resp)
{
    static const char *const tests[] = {"service_unavailable", "internal_server_error", NULL};
    const char *id = apr_table_get(req->params, "id"), *email, *kw;
    trv_dbc *c;
    trv_rows *rows;
    json_t *doc;
    if (!sbx_rapid_customer_ip(req, resp) || sbx_rapid_test(req, resp, tests, &kw)) {
        return;
    }
    email = apr_table_get(req->query, "email");
    if (!c_link_ok(req, "it", id)) {
        if (!email) {
            sbx_invalid(req, resp, "token", "the retrieve link's token, or email, is required");
            return;
        }
        if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS) {
            sbx_db_fail(req, resp, NULL, 3160, "retrieving an itinerary");
            return;
        }
        if (!sbx_hbooking_load(req, resp, c, C, id, &rows, &doc)) {
            return;
        }
        trv_db_close(req->env->db, c);
        if (strcasecmp(email, trv_json_str(json_object_get(doc, "holder"), "email")
                              ? trv_json_str(json_object_get(doc, "holder"), "email") : "")) {
            sbx_error(req, resp, 404, "resource_not_found", "No itinerary %s with this email",
                      id);
            return;
        }
    }
    sbx_hread_run(req, resp, C, id, c_itinerary);
}

/* GET /v3/itineraries?affiliate_reference_id=&email=: both required. */
static void find_itineraries(trv_req *req, trv_resp *resp)
{
    const char *ref = apr_table_get(req->query, "affiliate_reference_id");
    const char *email = apr_table_get(req->query, "email");
    trv_dbc *c;
    trv_rows *rows, *one;
    json_t *out, *doc;
    int i;
    if (!sbx_rapid_customer_ip(req, resp)) {
        return;
    }
    if (!ref || !*ref || strlen(ref) > 28) {
        sbx_invalid(req, resp, "affiliate_reference_id", "is required: at most 28 characters");
        return;
    }
    if (!email || !*email) {
        sbx_invalid(req, resp, "email", "is required");
        return;
    }
    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS) {
        sbx_db_fail(req, resp, NULL, 1729, "finding itineraries");
        return;
    }
    if (sbx_hbooking_by_reference(c, req->pool, C, ref, &rows) != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 1730, "finding itineraries");
        return;
    }
    out = trv_json_bind(req->pool, json_array());
    for (i = 0; i < rows->n; i++) {
        json_t *it;
        if (!sbx_hbooking_load(req, resp, c, C, trv_rows_get(rows, i, "id"), &one, &doc)) {
            return;
        }
        if (strcasecmp(email, trv_json_str(json_object_get(doc, "holder"), "email")
                              ? trv_json_str(json_object_get(doc, "holder"), "email") : "")) {
            continue;
        }
        /* A found itinerary carries its retrieve link (Rapid's links). */
        it = c_itinerary(req, one, doc);
        json_object_set_new(it, "links", json_pack("{s:{s:s,s:s}}", "retrieve", "method", "GET",
            "href", apr_psprintf(req->pool, SBX_RAPID_BASE "/v3/itineraries/%s?token=%s",
                                 trv_rows_get(one, 0, "id"),
                                 c_link_token(req, "it", trv_rows_get(one, 0, "id")))));
        json_array_append_new(out, it);
    }
    trv_db_close(req->env->db, c);
    sbx_send(req, resp, 200, json_incref(out));
}

/* DELETE /v3/itineraries/{id}/rooms/{room_id}?token=: the room's cancel
 * link. The sandbox cancels an itinerary's rooms together: the first
 * room's DELETE cancels every room, a later one answers the same. */
static void cancel(trv_req *req, trv_resp *resp)
{
    static const char *const tests[] = {"service_unavailable", "unknown_internal_error",
                                        "post_stay_cancel", NULL};
    const char *id = apr_table_get(req->params, "id");
    const char *room = apr_table_get(req->params, "room_id"), *kw;
    size_t n = strlen(id);
    if (!sbx_rapid_customer_ip(req, resp) || sbx_rapid_test(req, resp, tests, &kw)) {
        return;
    }
    if (kw && strcmp(kw, "post_stay_cancel") == 0) {
        sbx_error(req, resp, 400, "cancel.post_stay", "The stay has ended; it cannot be "
                  "cancelled (Test header)");
        return;
    }
    if (!c_link_ok(req, "cx", id) || strncmp(room, id, n) != 0 || room[n] != '-') {
        sbx_invalid(req, resp, "token", "is not the cancel link of this room");
        return;
    }
    /* No refusal of a repeat: the sandbox cancels every room at the first
     * room's DELETE, so the next room's DELETE (Rapid cancels room by room)
     * must answer as a cancel would. */
    sbx_hcancel_run(req, resp, C, id, "cancellation_failed", NULL, c_itinerary);
}

const trv_route sbx_hotel_c_routes[] = {
    {"GET", SBX_RAPID_BASE "/v3/regions", regions, TRV_ROUTE_OWN_QUERY},
    {"POST", SBX_RAPID_BASE "/v3/properties/geography", geography,
     TRV_ROUTE_OWN_QUERY | TRV_ROUTE_JSON_ARENA},
    {"GET", SBX_RAPID_BASE "/v3/properties/content", content, TRV_ROUTE_OWN_QUERY},
    {"GET", SBX_RAPID_BASE "/v3/properties/availability", availability,
     TRV_ROUTE_OWN_QUERY | TRV_ROUTE_JSON_ARENA},
    {"GET", SBX_RAPID_BASE "/v3/properties/{property_id}/rooms/{room_id}/rates/{rate_id}",
     price_check, TRV_ROUTE_OWN_QUERY},
    {"POST", SBX_RAPID_BASE "/v3/itineraries", book, TRV_ROUTE_OWN_QUERY},
    {"GET", SBX_RAPID_BASE "/v3/itineraries", find_itineraries, TRV_ROUTE_OWN_QUERY},
    {"GET", SBX_RAPID_BASE "/v3/itineraries/{id}", get_itinerary, TRV_ROUTE_OWN_QUERY},
    {"DELETE", SBX_RAPID_BASE "/v3/itineraries/{id}/rooms/{room_id}", cancel,
     TRV_ROUTE_OWN_QUERY},
    {NULL, NULL, NULL, 0},
};
