/* POST /v1/hotel/search: the hotels of a destination — a city {city,
 * country_code}, a point {latitude, longitude, radius_m} or a saved place
 * {place_id} — with each hotel's cheapest price for the stay, across the
 * configured suppliers (or the one named), cheapest first.
 *
 * The shape of the read: the suppliers are asked at once (fanout.h), and
 * the request holds no database connection while they are (a place is
 * read before, ids are kept after, each step a short borrow of a
 * connection); nothing about the search is stored. A page is a slice of the whole, deterministic result (suppliers'
 * prices are deterministic for a stay and day; ties are broken by name), so
 * the cursor only carries the offset, sealed with the search it belongs to
 * (a digest of its fields) and the organization: a cursor used with other
 * search fields, by another organization, or edited is refused (422). Only
 * the page's hotels get their htl_ ids resolved (one statement). */
#include "handlers.h"
#include "core/fanout.h"
#include "deadline.h"
#include "input.h"
#include "mapping.h"
#include "search_cache.h"
#include "seal.h"
#include "hotel_store.h"
#include "supplier.h"
#include "customer.h"
#include "core/clock.h"
#include "core/crypt.h"
#include "core/ids.h"
#include "core/json.h"
#include "core/json_arena.h"
#include "core/log.h"
#include "core/metrics.h"
#include "core/money.h"
#include "core/validate.h"

#include <apr_lib.h>
#include <apr_strings.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_LIMIT 20
#define MAX_LIMIT 50

typedef struct search {
    const trv_supplier *only;        /* the supplier named, or NULL: all */
    trv_hotel_area area;
    const char *place_id;
    trv_hotel_stay stay;
    long limit;
    long offset;
    const char *digest;              /* of the search fields (the cursor's binding) */
    /* From a cursor whose first page went without some suppliers (the
     * search deadline): ",A,C," the suppliers that page came from; the
     * next pages ask them alone, so every page is a slice of one whole. */
    const char *asked;
    trv_hcustomer customer;          /* the traveller, for the suppliers that ask */
} search;

static const unsigned char *secret(const trv_req *req)
{
    return req->env->cfg && req->env->cfg->have_secret_key ? req->env->cfg->secret_key : NULL;
}

/* The configured suppliers' bound rows, in line order. */
static const trv_supplier *rows(const trv_req *req)
{
    return trv_hotel_supplier_rows(req->env);
}

/* The fields that define the search, keys sorted: a cursor is valid for
 * them alone (limit may change between pages). */
static const char *digest_of(trv_req *req)
{
    json_t *copy = json_deep_copy(req->json);
    char *text;
    const char *hex;
    json_object_del(copy, "cursor");
    json_object_del(copy, "limit");
    text = json_dumps(copy, JSON_SORT_KEYS | JSON_COMPACT);
    json_decref(copy);
    hex = trv_crypt_sha_hex(req->pool, text ? text : "", 256);
    trv_json_free(text);
    return apr_pstrndup(req->pool, hex, 32);
}

static void read_destination(const json_t *d, search *s, trv_errs *errs)
{
    static const char *const known[] = {"city", "country_code", "latitude", "longitude",
                                        "radius_m", "place_id", NULL};
    const json_t *lat = json_object_get(d, "latitude"), *lon = json_object_get(d, "longitude");
    const json_t *rad = json_object_get(d, "radius_m");
    int city = json_object_get(d, "city") || json_object_get(d, "country_code");
    int point = lat || lon || rad;
    int place = json_object_get(d, "place_id") != NULL;

    if (!json_is_object(d)) {
        trv_errs_add(errs, "destination", "is required: {city, country_code}, {latitude, "
                     "longitude, radius_m} or {place_id}");
        return;
    }
    trv_json_known(d, "destination", known, errs);
    if (city + point + place != 1) {
        trv_errs_add(errs, "destination", "give exactly one of {city, country_code}, "
                     "{latitude, longitude, radius_m} or {place_id}");
        return;
    }
    if (place) {
        s->place_id = trv_json_req_str(d, "place_id", "destination.place_id", 1, 1, 128, errs);
        if (s->place_id && !trv_id_valid(s->place_id, "plc")) {
            trv_errs_add(errs, "destination.place_id", "must be a place id (plc_...)");
            s->place_id = NULL;
        }
        return;
    }
    if (city) {
        s->area.city = trv_json_req_str(d, "city", "destination.city", 1, 1, 100, errs);
        s->area.country_code = trv_json_req_str(d, "country_code", "destination.country_code",
                                                1, 2, 2, errs);
        if (s->area.country_code && !(apr_isupper(s->area.country_code[0])
                                      && apr_isupper(s->area.country_code[1]))) {
            trv_errs_add(errs, "destination.country_code", "must be an ISO 3166 country code (GB)");
        }
        return;
    }
    s->area.by_point = 1;
    if (!json_is_number(lat) || fabs(json_number_value(lat)) > 90) {
        trv_errs_add(errs, "destination.latitude", "must be a number from -90 to 90");
    }
    if (!json_is_number(lon) || fabs(json_number_value(lon)) > 180) {
        trv_errs_add(errs, "destination.longitude", "must be a number from -180 to 180");
    }
    if (!json_is_integer(rad) || json_integer_value(rad) < 100
        || json_integer_value(rad) > 50000) {
        trv_errs_add(errs, "destination.radius_m", "must be an integer from 100 to 50000");
    }
    s->area.latitude = json_number_value(lat);
    s->area.longitude = json_number_value(lon);
    s->area.radius_m = (int)json_integer_value(rad);
}

static void read_cursor(trv_req *req, search *s, trv_errs *errs)
{
    const json_t *c = json_object_get(req->json, "cursor");
    char *payload, *bar;
    if (!c || json_is_null(c)) {
        return;
    }
    if (!json_is_string(c)
        || trv_hotel_unseal(req->pool, secret(req), req->org_id, "hotel-search",
                            json_string_value(c), &payload) != APR_SUCCESS
        || !(bar = strchr(payload, '|'))) {
        trv_errs_add(errs, "cursor", "is not a cursor this organization was given");
        return;
    }
    *bar = '\0';
    if (strcmp(payload, s->digest) != 0) {
        trv_errs_add(errs, "cursor", "belongs to a search with other fields: send the same "
                     "search fields with it");
        return;
    }
    s->offset = atol(bar + 1);
    if ((bar = strchr(bar + 1, '|'))) {
        s->asked = apr_pstrcat(req->pool, ",", bar + 1, ",", NULL);
    }
}

/* Whether this search asks the supplier of row. */
static int asks(apr_pool_t *p, const search *s, const trv_supplier *row)
{
    return (!s->only || s->only == row)
           && (!s->asked || strstr(s->asked, apr_pstrcat(p, ",", row->name, ",", NULL)));
}

static int read_search(trv_req *req, search *s, trv_errs *errs)
{
    static const char *const known[] = {"supplier", "destination", "check_in", "check_out",
                                        "occupancy", "guest_nationality", "guest_residence",
                                        "currency", "limit", "cursor", NULL};
    const json_t *lim = json_object_get(req->json, "limit");
    const char *sup;
    const trv_supplier *row;

    memset(s, 0, sizeof(*s));
    trv_json_known(req->json, NULL, known, errs);
    sup = trv_json_req_str(req->json, "supplier", "supplier", 0, 1, 32, errs);
    if (sup && !(s->only = trv_supplier_find(rows(req), sup))) {
        const char *names = "";
        for (row = rows(req); row && row->name; row++) {
            names = apr_pstrcat(req->pool, names, *names ? ", " : "", row->name, NULL);
        }
        trv_errs_add(errs, "supplier", "must be one of %s", names);
    }
    read_destination(json_object_get(req->json, "destination"), s, errs);
    trv_hotel_read_stay(req->pool, req->json, (long)(apr_time_sec(apr_time_now()) / 86400), &s->stay,
                        errs);
    for (row = rows(req); row && row->name; row++) {
        if (!s->only || s->only == row) {
            trv_hotel_check_nights(&s->stay, row, errs);
        }
    }
    s->limit = DEFAULT_LIMIT;
    if (lim && (!json_is_integer(lim) || json_integer_value(lim) < 1
                || json_integer_value(lim) > MAX_LIMIT)) {
        trv_errs_add(errs, "limit", "must be an integer from 1 to %d", MAX_LIMIT);
    }
    else if (lim) {
        s->limit = (long)json_integer_value(lim);
    }
    s->digest = digest_of(req);
    read_cursor(req, s, errs);
    trv_hcustomer_read(req, &s->customer, errs);
    return !trv_errs_any(errs);
}

/* One supplier's part of a search, run on its own thread (fanout.h). */
typedef struct ask {
    const trv_supplier *row;
    const trv_hotel_supplier *adapter;
    trv_hotel_ctx ctx;
    const search *s;
    apr_array_header_t *list;
    trv_hotel_err err;
    trv_up_status st;
    const char *cache_key;           /* when the line keeps answers (search_cache=) */
    apr_time_t cached_at;            /* when list came from the search cache; else 0 */
} ask;

/* A supplier not answered from the search cache, on its own thread; its
 * answer is kept when its line allows. */
static void ask_one(void *baton)
{
    ask *k = baton;
    k->st = k->adapter->search(&k->ctx, &k->s->area, &k->s->stay, &k->list, &k->err);
    if (k->cache_key && k->st == TRV_UP_OK) {
        trv_hotel_search_cache_put(k->ctx.env, k->ctx.pool, k->cache_key, k->list,
                                   k->ctx.up->search_cache);
    }
}

/* Whether the supplier's answer is kept in the search cache: then it is
 * read there, on the request's thread, and no thread is started for it. */
static int cached(ask *k)
{
    const char *metric = apr_pstrcat(k->ctx.pool, "hotel ", k->row->name, NULL);
    trv_metrics_upstream_event(k->ctx.env->metrics, metric, TRV_METRIC_SEARCH);
    if (k->ctx.up->search_cache <= 0 || !k->ctx.env->search_cache) {
        return 0;
    }
    k->cache_key = trv_hotel_search_cache_key(k->ctx.pool, k->ctx.up, &k->s->area,
                                              &k->s->stay);
    if (!trv_hotel_search_cache_get(k->ctx.env, k->ctx.pool, k->cache_key, k->row->name,
                                    &k->list, &k->cached_at)) {
        trv_metrics_upstream_event(k->ctx.env->metrics, metric, TRV_METRIC_CACHE_MISS);
        return 0;
    }
    trv_metrics_upstream_event(k->ctx.env->metrics, metric, TRV_METRIC_CACHE_HIT);
    k->st = TRV_UP_OK;
    return 1;
}

/* Every supplier asked at once, holding no connection, until the search
 * deadline (deadline.h). An error fails the search: a page must be a slice
 * of the same whole. *from: the suppliers that answered (",A,C,"), and
 * *unanswered those left out, NULL when none was; *cached_at: when the
 * oldest answer served from the search cache was kept, 0 when none was. */
static int ask_suppliers(trv_req *req, trv_resp *resp, const search *s,
                         apr_array_header_t *found, const char **from, json_t **unanswered,
                         apr_time_t *cached_at)
{
    const trv_supplier *row;
    trv_hotel_part parts[16];
    void *batons[16], *misses[16];
    apr_time_t deadline = trv_hotel_deadline(req->env);
    int n = 0, m = 0, i, k;
    for (row = rows(req); row && row->name && n < 16; row++) {
        ask *a = apr_pcalloc(req->pool, sizeof(*a));
        apr_pool_t *cp;
        if (!asks(req->pool, s, row)) {
            continue;
        }
        if (!(cp = trv_call_pool(req->pool))
            || !(a->adapter = trv_hotel_supplier_for(req->env, cp, req->request_id, row,
                                                     &a->ctx))) {
            continue;
        }
        a->ctx.deadline = deadline;
        trv_hcustomer_apply(&a->ctx, &s->customer);
        a->row = row;
        a->s = s;
        batons[n++] = a;
        if (!cached(a)) {
            misses[m++] = a;
        }
    }
    if (!n) {
        trv_fail(req, resp, 503, "unavailable", "%s", s->only
                 ? apr_psprintf(req->pool, "%s is not configured on this server", s->only->name)
                 : "No hotel supplier is configured on this server");
        return 0;
    }
    trv_fanout(req->pool, m, ask_one, misses);
    for (i = 0; i < n; i++) {
        ask *a = batons[i];
        parts[i].supplier = a->row->name;
        parts[i].st = a->st;
        parts[i].message = a->err.message;
    }
    /* A later page (the first page's suppliers alone) needs every one. */
    if (!trv_hotel_parts_settle(req, resp, parts, n, s->offset > 0 || s->asked, unanswered)) {
        return 0;
    }
    *from = ",";
    *cached_at = 0;
    for (i = 0; i < n; i++) {
        ask *a = batons[i];
        if (a->st != TRV_UP_OK) {
            continue;
        }
        if (a->cached_at && (!*cached_at || a->cached_at < *cached_at)) {
            *cached_at = a->cached_at;
        }
        *from = apr_pstrcat(req->pool, *from, a->row->name, ",", NULL);
        for (k = 0; a->list && k < a->list->nelts; k++) {
            APR_ARRAY_PUSH(found, trv_hotel_found *) = &APR_ARRAY_IDX(a->list, k, trv_hotel_found);
        }
    }
    return 1;
}

static json_t *result(trv_req *req, const trv_hotel_group *g, const char *id,
                      const char *currency)
{
    const trv_hotel_found *c = g->cheapest;
    json_t *suppliers = json_array(), *o, *price;
    trv_money m;
    int i;
    for (i = 0; i < g->members->nelts; i++) {
        json_array_append_new(suppliers, json_string_nocheck(
            APR_ARRAY_IDX(g->members, i, const trv_hotel_found *)->supplier));
    }
    trv_money_make(&m, c->total_minor, currency);
    (void)req;
    /* Member by member (json_pack parsed its format again for each of the
     * page's hotels, docs/performance.md, "The hotel search's gateway
     * CPU"): the same members in the same order; the strings are the
     * readers' (checked UTF-8) and the ids', and a missing one leaves the
     * hotel out as json_pack's did. */
    if (!id || !c->supplier || !c->sid || !c->name || !c->country_code) {
        json_decref(suppliers);
        return NULL;
    }
    o = json_object();
    json_object_set_new_nocheck(o, "hotel_id", json_string_nocheck(id));
    json_object_set_new_nocheck(o, "supplier", json_string_nocheck(c->supplier));
    json_object_set_new_nocheck(o, "supplier_hotel_id", json_string_nocheck(c->sid));
    json_object_set_new_nocheck(o, "name", json_string_nocheck(c->name));
    if (c->city) {
        json_object_set_new_nocheck(o, "city", json_string_nocheck(c->city));
    }
    json_object_set_new_nocheck(o, "country", json_string_nocheck(c->country_code));
    json_object_set_new_nocheck(o, "suppliers", suppliers);
    price = json_object();
    json_object_set_new_nocheck(price, "total", trv_money_json(&m));
    json_object_set_new_nocheck(o, "cheapest_price", price);
    return o;
}

/* The page's htl_ ids: kept beside the suppliers' answers (search_cache.h)
 * when a supplier asked keeps its answers, for as long as the longest of
 * them; else, and on a miss, from PostgreSQL (then kept). */
static int page_ids(trv_req *req, trv_resp *resp, const search *s, const apr_array_header_t *page,
                    const char *const **ids)
{
    apr_interval_time_t fresh = 0;
    const trv_supplier *row;
    const char *key = NULL;
    for (row = rows(req); row && row->name; row++) {
        const trv_upstream *up = trv_config_hotel_upstream(req->env->cfg, row->name);
        if (up && asks(req->pool, s, row) && up->search_cache > fresh) {
            fresh = up->search_cache;
        }
    }
    if (fresh > 0 && req->env->search_cache && page->nelts) {
        key = trv_hotel_search_cache_ids_key(req->pool, page);
        if (trv_hotel_search_cache_ids_get(req->env, req->pool, key, page->nelts, ids)) {
            return 1;
        }
    }
    if (!trv_hhotel_ids_for(req, resp, page, ids)) {
        return 0;
    }
    if (key) {
        trv_hotel_search_cache_ids_put(req->env, req->pool, key, *ids, page->nelts, fresh);
    }
    return 1;
}

void trv_hotel_search(trv_req *req, trv_resp *resp)
{
    trv_errs *errs = trv_errs_new(req->pool);
    apr_array_header_t *found = apr_array_make(req->pool, 128, sizeof(trv_hotel_found *));
    apr_array_header_t *groups, *page;
    const char *const *ids, *from;
    json_t *data, *meta, *pagination, *unanswered;
    apr_time_t cached_at;
    search s;
    long i, end;

    if (!read_search(req, &s, errs)) {
        trv_fail_invalid(req, resp, errs);
        return;
    }
    if (s.place_id) {
        int found_place;
        if (!trv_hhotel_place_area(req, resp, s.place_id, &s.area, &found_place)) {
            return;
        }
        if (!found_place) {
            trv_errs_add(errs, "destination.place_id", "is not a place of this organization");
            trv_fail_invalid(req, resp, errs);
            return;
        }
    }
    if (!ask_suppliers(req, resp, &s, found, &from, &unanswered, &cached_at)) {
        return;
    }
    /* Pages after a first page without some suppliers stay without them. */
    if (unanswered) {
        s.asked = from;
    }
    groups = trv_hotel_group_found(req->pool, found);
    /* Hotels without a rate for this stay are not results. */
    while (groups->nelts && !APR_ARRAY_IDX(groups, groups->nelts - 1, trv_hotel_group *)->cheapest) {
        groups->nelts--;
    }
    end = s.offset + s.limit < groups->nelts ? s.offset + s.limit : groups->nelts;
    page = apr_array_make(req->pool, (int)s.limit, sizeof(trv_hotel_group *));
    for (i = s.offset; i < end; i++) {
        APR_ARRAY_PUSH(page, trv_hotel_group *) = APR_ARRAY_IDX(groups, i, trv_hotel_group *);
    }
    if (!page_ids(req, resp, &s, page, &ids)) {
        return;
    }
    data = json_array();
    for (i = 0; i < page->nelts; i++) {
        json_array_append_new(data, result(req, APR_ARRAY_IDX(page, i, trv_hotel_group *), ids[i],
                                           s.stay.currency));
    }
    pagination = json_pack("{s:i}", "limit", (json_int_t)s.limit);
    if (end < groups->nelts) {
        const char *payload = apr_psprintf(req->pool, "%s|%ld", s.digest, end);
        if (s.asked) {
            /* ",A,C," -> "A,C" */
            payload = apr_psprintf(req->pool, "%s|%.*s", payload, (int)strlen(s.asked) - 2,
                                   s.asked + 1);
        }
        json_object_set_new(pagination, "next_cursor", json_string(trv_hotel_seal(
            req->pool, secret(req), req->org_id, "hotel-search", payload)));
    }
    meta = json_pack("{s:o,s:o}", "supplier", trv_json_strn(s.only ? s.only->name : NULL),
                     "pagination", pagination);
    if (unanswered) {
        json_object_set_new(meta, "unanswered_suppliers", unanswered);
    }
    if (cached_at) {
        json_object_set_new(meta, "cached_at",
                            json_string(trv_time_format(req->pool, cached_at)));
    }
    trv_ok(req, resp, 200, data, meta);
}
