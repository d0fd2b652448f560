/* The airline directory: GET /v1/flight/airlines (search, ordered by IATA
 * code) and GET /v1/flight/airlines/{iata_code}, which imports a carrier
 * missing from the directory from a supplier. Seeded from OpenFlights
 * airlines.dat (ODbL; sql/011_flight_airlines_seed.sql). */
#include "handlers.h"
#include "upstreams.h"
#include "core/ids.h"
#include "core/json.h"
#include "core/validate.h"

#include <apr_strings.h>
#include <ctype.h>
#include <string.h>

/* Logos of carriers whose record has none: a public CDN serving one image
 * per IATA code (the one the sandbox suppliers use in offers too). */
#define LOGO_URL_PATTERN "https://pics.avs.io/200/200/%s.png"

#define AIRLINE_COLS "id, iata_code, icao_code, name, country, alliance, logo_url, is_active"

/* q is a literal substring (strpos, not LIKE: % and _ are not wildcards). */
static const trv_stmt list_stmt = {"trv_flight_airlines_list",
    "SELECT " AIRLINE_COLS " FROM flight_airlines "
    "WHERE (NOT %s::boolean OR is_active) "
    "AND (%s::text IS NULL OR strpos(lower(name), lower(%s::text)) > 0 "
    "OR strpos(lower(iata_code), lower(%s::text)) > 0 "
    "OR strpos(lower(coalesce(icao_code, '')), lower(%s::text)) > 0) "
    "AND (%s::text IS NULL OR lower(alliance) = lower(%s::text)) "
    "ORDER BY iata_code LIMIT %s::int"};

static const trv_stmt one_stmt = {"trv_flight_airline_get",
    "SELECT " AIRLINE_COLS " FROM flight_airlines WHERE iata_code = %s"};

static const trv_stmt import_stmt = {"trv_flight_airline_import",
    "INSERT INTO flight_airlines (id, iata_code, icao_code, name, country, alliance, "
    "logo_url, is_active, source) VALUES (%s, %s, %s, %s, %s, %s, %s, %s::boolean, "
    "'supplier') ON CONFLICT (iata_code) DO NOTHING"};

static json_t *airline_json(apr_pool_t *p, const trv_rows *r, int i)
{
    const char *iata = trv_rows_get(r, i, "iata_code");
    const char *logo = trv_rows_get(r, i, "logo_url");
    return json_pack("{s:s,s:s,s:o,s:s,s:o,s:o,s:s,s:b}",
        "id", trv_rows_get(r, i, "id"),
        "iata_code", iata,
        "icao_code", trv_json_strn(trv_rows_get(r, i, "icao_code")),
        "name", trv_rows_get(r, i, "name"),
        "country", trv_json_strn(trv_rows_get(r, i, "country")),
        "alliance", trv_json_strn(trv_rows_get(r, i, "alliance")),
        "logo_url", logo ? logo : apr_psprintf(p, LOGO_URL_PATTERN, iata),
        "is_active", trv_rows_bool(r, i, "is_active"));
}

void trv_flight_airlines(trv_req *req, trv_resp *resp)
{
    static const char *const known[] = {"q", "limit", "active_only", "alliance", NULL};
    trv_errs *errs = trv_errs_new(req->pool);
    const char *q, *alliance;
    long limit;
    int active_only, i;
    trv_rows *rows;
    trv_dbc *c;
    json_t *data;

    trv_query_known(req->query, known, errs);
    q = trv_query_str(req->query, "q", 1, 100, errs);
    limit = trv_query_int(req->query, "limit", 20, 1, 100, errs);
    active_only = trv_query_bool(req->query, "active_only", 1, errs);
    alliance = trv_query_str(req->query, "alliance", 1, 100, errs);
    if (trv_errs_any(errs)) {
        trv_fail_invalid(req, resp, errs);
        return;
    }
    if (!trv_api_db_open(req, resp, &c, 390, "searching airlines")) {
        return;
    }
    /* One more than asked tells whether more matched. */
    if (trv_db_select(c, req->pool, &list_stmt, &rows,
                      TRV_DB_ARGS(active_only ? "true" : "false", q, q, q, q, alliance,
                                  alliance, apr_ltoa(req->pool, limit + 1))) != APR_SUCCESS) {
        trv_api_db_fail(req, resp, c, 391, "searching airlines");
        return;
    }
    trv_db_close(req->env->db, c);
    data = json_array();
    for (i = 0; i < rows->n && i < limit; i++) {
        json_array_append_new(data, airline_json(req->pool, rows, i));
    }
    trv_ok(req, resp, 200, data, json_pack("{s:b}", "truncated", rows->n > limit));
}

/* Asks the suppliers (in routing order) for a carrier and stores it.
 * Returns 1 when stored (or stored meanwhile), 0 when no supplier knows it,
 * -1 when none could answer (*st says how). */
static int import(trv_req *req, const char *code, trv_up_status *st, const char **msg)
{
    int i, unanswered = 0;
    const apr_array_header_t *ups = req->env->cfg ? req->env->cfg->upstreams : NULL;
    for (i = 0; ups && i < ups->nelts; i++) {
        const trv_upstream *u = &APR_ARRAY_IDX(ups, i, trv_upstream);
        trv_flight_ctx sc;
        trv_sup_err err = {0};
        json_t *a = NULL;
        const trv_flight_supplier *sup = trv_flight_supplier_for(req->env, req->pool,
                                                                 req->request_id, u->name,
                                                                 &sc);
        const char *name, *iata;
        trv_up_status one;
        trv_dbc *c;
        if (!sup) {
            continue;
        }
        /* *st keeps the failure of a supplier that could not answer: a
         * later one that does not know the carrier does not hide it. */
        one = sup->airline(&sc, code, &a, &err);
        if (one == TRV_UP_NOT_FOUND) {
            continue;
        }
        iata = trv_json_str(a, "iata_code");
        name = trv_json_str(a, "name");
        if (one != TRV_UP_OK || !iata || strcmp(iata, code) != 0 || !name || !*name) {
            unanswered = 1;
            *msg = err.message ? err.message : "an unusable airline record";
            *st = one == TRV_UP_OK ? TRV_UP_BAD_RESPONSE : one;
            continue;
        }
        if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS) {
            return -2;
        }
        if (trv_db_exec(c, req->pool, &import_stmt, NULL,
                        TRV_DB_ARGS(trv_id_new(req->pool, "arl"), code,
                                    trv_json_str(a, "icao_code"), name,
                                    trv_json_str(a, "country"), trv_json_str(a, "alliance"),
                                    trv_json_str(a, "logo_url"),
                                    json_is_false(json_object_get(a, "is_active")) ? "false"
                                                                                   : "true"))
            != APR_SUCCESS) {
            trv_log_msg(&req->log, TRV_LOG_ERR, req->request_id,
                        TRVLOGNO(392) "importing airline %s: %s", code, c->error);
            trv_db_close(req->env->db, c);
            return -2;
        }
        trv_db_close(req->env->db, c);
        trv_log_msg(&req->log, TRV_LOG_INFO, req->request_id,
                    TRVLOGNO(393) "airline %s imported from %s", code, u->name);
        return 1;
    }
    return unanswered ? -1 : 0;
}

static int lookup(trv_req *req, trv_resp *resp, const char *code, trv_rows **rows)
{
    trv_dbc *c;
    if (!trv_api_db_open(req, resp, &c, 394, "reading an airline")) {
        return 0;
    }
    if (trv_db_select(c, req->pool, &one_stmt, rows, TRV_DB_ARGS(code)) != APR_SUCCESS) {
        trv_api_db_fail(req, resp, c, 395, "reading an airline");
        return 0;
    }
    trv_db_close(req->env->db, c);
    return 1;
}

void trv_flight_airline(trv_req *req, trv_resp *resp)
{
    char *code = apr_pstrdup(req->pool, apr_table_get(req->params, "iata_code"));
    trv_up_status st = TRV_UP_NOT_FOUND;
    const char *msg = NULL;
    trv_rows *rows;
    char *s;
    int got;

    for (s = code; *s; s++) {
        *s = (char)toupper((unsigned char)*s);
    }
    if (!lookup(req, resp, code, &rows)) {
        return;
    }
    if (rows->n == 0) {
        got = import(req, code, &st, &msg);
        if (got == -2) {
            trv_fail(req, resp, 503, "unavailable",
                     "The service is temporarily unavailable; retry shortly");
            return;
        }
        if (got == -1) {
            trv_freply_upstream_fail(req, resp, st, "The airline's supplier", msg);
            return;
        }
        if (got == 0 || !lookup(req, resp, code, &rows)) {
            if (got == 0) {
                trv_fail(req, resp, 404, "not_found", "No airline with IATA code %s", code);
            }
            return;
        }
        if (rows->n == 0) {
            trv_fail(req, resp, 404, "not_found", "No airline with IATA code %s", code);
            return;
        }
    }
    trv_ok(req, resp, 200, airline_json(req->pool, rows, 0), NULL);
}
