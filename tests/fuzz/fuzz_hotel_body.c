/* Hotel request bodies, read the way every request is (trv_read_json_body
 * through trv_dispatch: the same Jansson flags and size cap) and checked
 * by the real handlers. Input: one byte choosing the endpoint, then the
 * body:
 *   0 POST /v1/hotel/search   destination, stay, supplier, limit, cursor
 *   1 POST /v1/hotel/offers   hotel ids or supplier ids, stay, offers a hotel
 *   2 the stay alone (hotel/input.c trv_hotel_read_stay) on a fixed day,
 *     so what it accepts can be checked against the documented limits
 * The handlers run up to the database, which answers "unavailable" here
 * (fake_db.h), or up to the suppliers, none of which is configured (503).
 * Beyond not crashing or leaking: every answer serializes, a body with
 * problems gets a 422 naming fields, and an accepted stay is within the
 * limits. */
#include "fuzz.h"

#include "core/dispatch.h"
#include "core/json.h"
#include "core/money.h"
#include "gateway/gateway.h"
#include "hotel/input.h"
#include "fake_db.h"

#include <ctype.h>

#define MAX_BODY (1024 * 1024)
#define TODAY 20781 /* 2026-11-24, days since 1970-01-01 */

static const trv_gateway *gateway(void)
{
    static trv_gateway *gw;
    if (!gw && !(gw = trv_gateway_create(fz_root))) {
        abort();
    }
    return gw;
}

static trv_env *env(void)
{
    static trv_env e;
    static trv_config cfg;
    if (!e.cfg) {
        memset(cfg.secret_key, 0x5a, sizeof(cfg.secret_key));
        cfg.have_secret_key = 1;
        cfg.max_body = MAX_BODY;
        e.db = fz_db_make(fz_root, NULL);
        e.cfg = &cfg;
        e.registry = trv_gateway_registry(gateway());
    }
    return &e;
}

/* The answer to send must always be a JSON document; a 422 names fields. */
static void answer_serializes(apr_pool_t *p, const trv_resp *resp)
{
    const char *body = trv_resp_body(p, resp);
    FZ_ASSERT(body != NULL);
    if (resp->status == 422) {
        json_t *doc = trv_json_parse(p, body, strlen(body), NULL);
        json_t *details = json_object_get(json_object_get(doc, "error"), "details");
        FZ_ASSERT(json_array_size(details) > 0);
        FZ_ASSERT(json_is_string(json_object_get(json_array_get(details, 0), "field")));
    }
}

static int upper2(const char *s)
{
    return s && strlen(s) == 2 && isupper((unsigned char)s[0]) && isupper((unsigned char)s[1]);
}

static void stay(apr_pool_t *p, const uint8_t *data, size_t size)
{
    json_t *body = trv_json_parse(p, (const char *)data, size, NULL);
    trv_errs *errs = trv_errs_new(p);
    trv_hotel_stay s;
    long din, dout;
    int i, k;
    if (!json_is_object(body)) {
        return;
    }
    trv_hotel_read_stay(p, body, TODAY, &s, errs);
    if (trv_errs_any(errs)) {
        return;
    }
    din = trv_hotel_day(s.check_in);
    dout = trv_hotel_day(s.check_out);
    FZ_ASSERT(din >= TODAY && din <= TODAY + TRV_HOTEL_MAX_DAYS_AHEAD);
    FZ_ASSERT(dout > din && dout - din <= TRV_HOTEL_MAX_NIGHTS && s.nights == dout - din);
    FZ_ASSERT(s.n_rooms >= 1 && s.n_rooms <= TRV_HOTEL_MAX_ROOMS);
    for (i = 0; i < s.n_rooms; i++) {
        FZ_ASSERT(s.rooms[i].adults >= 1 && s.rooms[i].adults <= 4);
        FZ_ASSERT(s.rooms[i].n_children >= 0 && s.rooms[i].n_children <= TRV_HOTEL_MAX_CHILDREN);
        for (k = 0; k < s.rooms[i].n_children; k++) {
            FZ_ASSERT(s.rooms[i].ages[k] >= 0 && s.rooms[i].ages[k] <= 17);
        }
    }
    FZ_ASSERT(trv_currency_exponent(s.currency) >= 0);
    FZ_ASSERT(upper2(s.nationality) && upper2(s.residence));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    apr_pool_t *p;
    trv_req req;
    trv_resp resp;
    int which;
    if (size < 1) {
        return 0;
    }
    p = fz_begin();
    which = data[0] % 3;
    if (which == 2) {
        stay(p, data + 1, size - 1);
        fz_end(p);
        return 0;
    }
    memset(&req, 0, sizeof(req));
    memset(&resp, 0, sizeof(resp));
    req.pool = p;
    req.method = "POST";
    req.path = which == 0 ? "/v1/hotel/search" : "/v1/hotel/offers";
    req.query = apr_table_make(p, 1);
    req.headers = apr_table_make(p, 1);
    req.content_type = "application/json";
    req.body = fz_str(p, data + 1, size - 1);
    req.body_len = size - 1;
    req.request_id = "req_fuzz";
    req.org_id = "org_fuzz";
    req.env = env();
    resp.headers = apr_table_make(p, 1);
    trv_dispatch(trv_gateway_router(gateway()), NULL, &req, &resp);
    FZ_ASSERT(resp.status == 400 || resp.status == 422 || resp.status == 503);
    answer_serializes(p, &resp);
    fz_end(p);
    return 0;
}
