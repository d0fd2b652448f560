#include "hotel_store.h"
#include "core/ids.h"
#include "core/json.h"
#include "core/log.h"

#include <apr_strings.h>
#include <stdlib.h>

static const trv_stmt place_stmt = {"trv_hhotel_place_area",
    "SELECT type, city, country_code, latitude::text AS latitude, "
    "longitude::text AS longitude, radius_m FROM hotel_places WHERE id = %s AND org_id = %s"};

static const trv_stmt map_stmt = {"trv_hotel_map_page",
    "SELECT i, id FROM hotel_map_page(%s::jsonb) ORDER BY i"};

int trv_hhotel_place_area(trv_req *req, trv_resp *resp, const char *place_id,
                          trv_hotel_area *area, int *found)
{
    trv_dbc *c;
    trv_rows *r;
    *found = 0;
    if (!trv_api_db_open(req, resp, &c, 1412, "reading a place")) {
        return 0;
    }
    if (trv_db_select(c, req->pool, &place_stmt, &r, TRV_DB_ARGS(place_id, req->org_id))
        != APR_SUCCESS) {
        trv_fail_db(req, resp, c, 1412, "reading a place");
        trv_db_close(req->env->db, c);
        return 0;
    }
    trv_db_close(req->env->db, c);
    if (r->n == 0) {
        return 1;
    }
    *found = 1;
    memset(area, 0, sizeof(*area));
    if (strcmp(trv_rows_get(r, 0, "type"), "city") == 0) {
        area->city = trv_rows_get(r, 0, "city");
        area->country_code = trv_rows_get(r, 0, "country_code");
    }
    else {
        area->by_point = 1;
        area->latitude = strtod(trv_rows_get(r, 0, "latitude"), NULL);
        area->longitude = strtod(trv_rows_get(r, 0, "longitude"), NULL);
        area->radius_m = trv_rows_int(r, 0, "radius_m", 10000);
    }
    return 1;
}

static json_t *group_json(apr_pool_t *p, const trv_hotel_group *g)
{
    const trv_hotel_found *m = APR_ARRAY_IDX(g->members, 0, const trv_hotel_found *);
    json_t *members = json_array();
    int i;
    for (i = 0; i < g->members->nelts; i++) {
        const trv_hotel_found *f = APR_ARRAY_IDX(g->members, i, const trv_hotel_found *);
        json_array_append_new(members, json_pack("{s:s,s:s}", "supplier", f->supplier,
                                                 "id", f->sid));
    }
    return json_pack("{s:s,s:s,s:s,s:s,s:o,s:s,s:s?,s:f,s:f,s:o}",
                     "id", trv_id_new(p, "htl"), "country_code", m->country_code,
                     "name_key", g->name_key, "postal_code", m->postal_code ? m->postal_code : "",
                     "giata", trv_json_strn(g->giata), "name", m->name, "city", m->city,
                     "latitude", m->latitude, "longitude", m->longitude, "members", members);
}

int trv_hhotel_ids_for(trv_req *req, trv_resp *resp, const apr_array_header_t *groups,
                       const char *const **ids)
{
    const char **out = apr_pcalloc(req->pool, sizeof(char *) * (apr_size_t)(groups->nelts + 1));
    json_t *page = json_array();
    const char *text;
    trv_dbc *c;
    trv_rows *r;
    int i;
    *ids = out;
    if (!groups->nelts) {
        json_decref(page);
        return 1;
    }
    for (i = 0; i < groups->nelts; i++) {
        json_array_append_new(page, group_json(req->pool,
                                               APR_ARRAY_IDX(groups, i, const trv_hotel_group *)));
    }
    text = trv_json_dump(req->pool, page);
    json_decref(page);
    if (!trv_api_db_open(req, resp, &c, 1413, "keeping hotel ids")) {
        return 0;
    }
    if (trv_db_select(c, req->pool, &map_stmt, &r, TRV_DB_ARGS(text)) != APR_SUCCESS
        || r->n != groups->nelts) {
        trv_fail_db(req, resp, c, 1413, "keeping hotel ids");
        trv_db_close(req->env->db, c);
        return 0;
    }
    trv_db_close(req->env->db, c);
    for (i = 0; i < r->n; i++) {
        out[i] = trv_rows_get(r, i, "id");
    }
    return 1;
}

static const trv_stmt sellers_stmt = {"trv_hhotel_sellers",
    "SELECT hotel_id, supplier, supplier_hotel_id FROM hotel_supplier_ids "
    "WHERE hotel_id = ANY (%s::text[]) ORDER BY hotel_id, supplier"};

static const trv_stmt ids_of_stmt = {"trv_hhotel_ids_of",
    "SELECT supplier_hotel_id, hotel_id FROM hotel_supplier_ids "
    "WHERE supplier = %s AND supplier_hotel_id = ANY (%s::text[])"};

/* A text[] literal of ids made of letters, digits, - and _ only (checked
 * by the caller), so nothing needs quoting. */
static const char *id_array(apr_pool_t *p, const char *const *ids, int n)
{
    const char *s = "{";
    int i;
    for (i = 0; i < n; i++) {
        s = apr_pstrcat(p, s, i ? "," : "", ids[i], NULL);
    }
    return apr_pstrcat(p, s, "}", NULL);
}

static int select_once(trv_req *req, trv_resp *resp, const trv_stmt *st, int nargs,
                       const char *const *args, trv_rows **rows, int logno, const char *what)
{
    trv_dbc *c;
    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS) {
        trv_fail_db(req, resp, NULL, logno, what);
        return 0;
    }
    if (trv_db_select(c, req->pool, st, rows, nargs, args) != APR_SUCCESS) {
        trv_fail_db(req, resp, c, logno, what);
        trv_db_close(req->env->db, c);
        return 0;
    }
    trv_db_close(req->env->db, c);
    return 1;
}

int trv_hhotel_sellers(trv_req *req, trv_resp *resp, const char *const *hotel_ids, int n,
                       trv_rows **rows)
{
    return select_once(req, resp, &sellers_stmt,
                       TRV_DB_ARGS(id_array(req->pool, hotel_ids, n)), rows, 1415,
                       "reading who sells the hotels");
}

int trv_hhotel_ids_of(trv_req *req, trv_resp *resp, const char *supplier,
                      const char *const *sids, int n, trv_rows **rows)
{
    return select_once(req, resp, &ids_of_stmt,
                       TRV_DB_ARGS(supplier, id_array(req->pool, sids, n)), rows, 1415,
                       "reading hotel ids");
}

void trv_hhotel_upstream_fail(trv_req *req, trv_resp *resp, trv_up_status st,
                              const char *who, const char *message)
{
    trv_fail_supplier(req, resp, st, 1414, "hotel ", trv_config_hotel_upstream(req->env->cfg, who),
                      who, message);
}
