/* Hotel places: GET /v1/hotel/places?q=&limit= looks a text up in the
 * gateway's own catalogue of cities and airports (sql/051, seeded from the
 * OpenFlights data by sql/052; no supplier is asked) and saves every place
 * it returns for the caller's organization under a plc_ id, the same id on
 * every later search; GET /v1/hotel/places/{id} reads a saved place back
 * (organization scope, 404 outside it) and writes nothing.
 *
 * Matching: the text, in lower case, starts the place's folded name or one
 * of its words (points also match their city and IATA code). Order: an
 * exact name first, cities before points, busier (more routes) first. */
#include "handlers.h"
#include "core/ids.h"
#include "core/json.h"
#include "core/validate.h"

#include <apr_strings.h>
#include <stdlib.h>

#define PLACE_COLS "id, type, name, city, country_code, latitude::text AS latitude, " \
                   "longitude::text AS longitude, radius_m"

static const trv_stmt search_stmt = {"trv_hotel_places_search",
    "SELECT key FROM hotel_place_catalog "
    "WHERE starts_with(search, lower(%s::text)) OR strpos(search, ' ' || lower(%s::text)) > 0 "
    "ORDER BY (search = lower(%s::text)) DESC, (type = 'city') DESC, routes DESC, name, key "
    "LIMIT %s::int"};

/* A place already saved for the organization keeps its id and fields. */
static const trv_stmt save_stmt = {"trv_hotel_place_save",
    "INSERT INTO hotel_places (id, org_id, place_key, type, name, city, country_code, "
    "latitude, longitude, radius_m) "
    "SELECT %s, %s, key, type, name, city, country_code, latitude, longitude, radius_m "
    "FROM hotel_place_catalog WHERE key = %s "
    "ON CONFLICT (org_id, place_key) DO NOTHING RETURNING " PLACE_COLS};

static const trv_stmt saved_stmt = {"trv_hotel_place_saved",
    "SELECT " PLACE_COLS " FROM hotel_places WHERE org_id = %s AND place_key = %s"};

static const trv_stmt one_stmt = {"trv_hotel_place_get",
    "SELECT " PLACE_COLS " FROM hotel_places WHERE id = %s AND org_id = %s"};

static json_t *place_json(const trv_rows *r, int i)
{
    return json_pack("{s:s,s:s,s:s,s:s,s:s,s:f,s:f,s:i}",
        "id", trv_rows_get(r, i, "id"),
        "name", trv_rows_get(r, i, "name"),
        "type", trv_rows_get(r, i, "type"),
        "city", trv_rows_get(r, i, "city"),
        "country_code", trv_rows_get(r, i, "country_code"),
        "latitude", strtod(trv_rows_get(r, i, "latitude"), NULL),
        "longitude", strtod(trv_rows_get(r, i, "longitude"), NULL),
        "radius_m", trv_rows_int(r, i, "radius_m", 0));
}

/* The organization's saved place for a catalogue key: saved now, or
 * before (by this or a concurrent search). */
static apr_status_t save(trv_req *req, trv_dbc *c, const char *key, trv_rows **row)
{
    apr_status_t rv = trv_db_select(c, req->pool, &save_stmt, row,
                                    TRV_DB_ARGS(trv_id_new(req->pool, "plc"), req->org_id,
                                                key));
    if (rv == APR_SUCCESS && (*row)->n == 0) {
        rv = trv_db_select(c, req->pool, &saved_stmt, row, TRV_DB_ARGS(req->org_id, key));
    }
    return rv == APR_SUCCESS && (*row)->n == 0 ? APR_EGENERAL : rv;
}

void trv_hotel_places(trv_req *req, trv_resp *resp)
{
    static const char *const known[] = {"q", "limit", NULL};
    trv_errs *errs = trv_errs_new(req->pool);
    const char *q;
    long limit;
    trv_rows *found;
    trv_dbc *c;
    json_t *data;
    int i;

    trv_query_known(req->query, known, errs);
    q = trv_query_str(req->query, "q", 2, 100, errs);
    if (!q && !apr_table_get(req->query, "q")) {
        trv_errs_add(errs, "q", "is required: 2 to 100 characters of a city or airport name");
    }
    limit = trv_query_int(req->query, "limit", 10, 1, 50, errs);
    if (trv_errs_any(errs)) {
        trv_fail_invalid(req, resp, errs);
        return;
    }
    if (!trv_api_db_open(req, resp, &c, 1400, "searching places")) {
        return;
    }
    /* One more than asked tells whether more matched. */
    if (trv_db_select(c, req->pool, &search_stmt, &found,
                      TRV_DB_ARGS(q, q, q, apr_ltoa(req->pool, limit + 1))) != APR_SUCCESS
        || (found->n > 0 && trv_db_begin(c, req->pool) != APR_SUCCESS)) {
        trv_api_db_fail(req, resp, c, 1401, "searching places");
        return;
    }
    data = json_array();
    for (i = 0; i < found->n && i < limit; i++) {
        trv_rows *row;
        if (save(req, c, trv_rows_get(found, i, "key"), &row) != APR_SUCCESS) {
            json_decref(data);
            trv_api_db_fail(req, resp, c, 1402, "saving places");
            return;
        }
        json_array_append_new(data, place_json(row, 0));
    }
    if (found->n > 0 && trv_db_commit(c) != APR_SUCCESS) {
        json_decref(data);
        trv_api_db_fail(req, resp, c, 1402, "saving places");
        return;
    }
    trv_db_close(req->env->db, c);
    trv_ok(req, resp, 200, data, json_pack("{s:b}", "truncated", found->n > limit));
}

void trv_hotel_place(trv_req *req, trv_resp *resp)
{
    const char *id = apr_table_get(req->params, "id");
    trv_rows *rows;
    trv_dbc *c;

    if (!trv_api_db_open(req, resp, &c, 1403, "reading a place")) {
        return;
    }
    if (trv_db_select(c, req->pool, &one_stmt, &rows, TRV_DB_ARGS(id, req->org_id))
        != APR_SUCCESS) {
        trv_api_db_fail(req, resp, c, 1404, "reading a place");
        return;
    }
    trv_db_close(req->env->db, c);
    if (rows->n == 0) {
        trv_fail(req, resp, 404, "not_found", "No place %s", id);
        return;
    }
    trv_ok(req, resp, 200, place_json(rows, 0), NULL);
}
