/* The sandbox's hotel suppliers' wire parsers (sandbox/hotel/supplier_a.c,
 * supplier_b.c, supplier_c.c and the price control): whole requests to
 * the three hotel APIs through dispatch and the real handlers, with the
 * hotel catalogue built from the OpenFlights world. The database holds no
 * price factors (fake_db.h: that read answers no rows, so rates are
 * priced) and is unavailable for everything else (bookings answer 503
 * once their input is read). Input: one byte choosing
 *   0: a request, "METHOD /path?query\nbody";
 *   1: a token the sandbox would sign: byte 1 picks the API and the rest
 *      is the token's payload ("h1|kind|supplier|hotel|room|..." for a
 *      rate, "content|<offset>" for a SUPPLIER_C content page), signed
 *      with the API's key and sent where that API takes it back
 *      (SUPPLIER_A prebook, SUPPLIER_B checkrates, SUPPLIER_C price check
 *      and content), so the fields behind the signature are reached too.
 * Beyond not crashing: every request is answered with a status from 200
 * to 599 and a document that serializes. */
#include "fuzz.h"

#include "core/dispatch.h"
#include "core/json.h"
#include "core/router.h"
#include "sandbox/hotel/catalog.h"
#include "sandbox/hotel/rates.h"
#include "sandbox/sandbox.h"
#include "sandbox/sbx_api.h"
#include "sandbox/token.h"
#include "sandbox/world.h"
#include "fake_db.h"

static const char *const keys[3] = {"fuzz-key-hotel-a", "fuzz-key-hotel-b", "fuzz-key-hotel-c"};

static const trv_router *sandbox(sbx_ctx **ctx)
{
    static const char *const empty[] = {"sbx_h_factors", NULL};
    static trv_router *rt;
    static sbx_ctx x;
    static sbx_settings set;
    static trv_config cfg;
    if (!rt) {
        const char *err = NULL, *dir = getenv("TRAVEL_TEST_DATA");
        set.key_ha = keys[0];
        set.key_hb = keys[1];
        set.secret_hb = "fuzz-secret-hotel-b";
        set.key_hc = keys[2];
        set.secret_hc = "fuzz-secret-hotel-c";
        cfg.max_body = 1024 * 1024;
        x.env.db = fz_db_make(fz_root, empty);
        x.env.cfg = &cfg;
        x.set = &set;
        /* run.sh runs the targets from the repository root */
        x.world = sbx_world_load(fz_root, dir ? dir : "data/openflights", "/usr/share/zoneinfo",
                                 &err);
        if (!x.world || !(x.hotels = sbx_hotels_build(fz_root, x.world, &err))) {
            fprintf(stderr, "sandbox hotels: %s\n", err);
            abort();
        }
        rt = trv_router_make(fz_root);
        trv_router_add(rt, sbx_hotel_a_routes);
        trv_router_add(rt, sbx_hotel_b_routes);
        trv_router_add(rt, sbx_hotel_c_routes);
        trv_router_add(rt, sbx_hotel_control_routes);
    }
    *ctx = &x;
    return rt;
}

static void call(apr_pool_t *p, const char *method, char *path, const char *body)
{
    sbx_ctx *x;
    const trv_router *rt = sandbox(&x);
    char *q, *pair, *last;
    trv_req req;
    trv_resp resp;
    memset(&req, 0, sizeof(req));
    memset(&resp, 0, sizeof(resp));
    req.pool = p;
    req.method = method;
    req.path = path;
    req.query = apr_table_make(p, 4);
    if ((q = strchr(path, '?'))) {
        *q++ = '\0';
        req.args = q;
        for (pair = apr_strtok(apr_pstrdup(p, q), "&", &last); pair;
             pair = apr_strtok(NULL, "&", &last)) {
            char *eq = strchr(pair, '=');
            if (eq) {
                *eq++ = '\0';
            }
            apr_table_add(req.query, pair, eq ? eq : "");
        }
    }
    req.headers = apr_table_make(p, 2);
    req.content_type = "application/json";
    req.body = body;
    req.body_len = strlen(body);
    req.request_id = "req_fuzz";
    req.env = &x->env;
    resp.headers = apr_table_make(p, 1);
    trv_dispatch(rt, NULL, &req, &resp);
    FZ_ASSERT(resp.status >= 200 && resp.status <= 599);
    FZ_ASSERT(trv_resp_body(p, &resp) != NULL);
}

static void request(apr_pool_t *p, const uint8_t *data, size_t size)
{
    char *line = fz_line(p, &data, &size), *sp = strchr(line, ' ');
    if (!sp) {
        return;
    }
    *sp = '\0';
    call(p, line, sp + 1, fz_str(p, data, size));
}

/* The token goes back where its API takes it; the query-string form is
 * percent-decoded already (the module hands handlers decoded values), and
 * base64url needs no encoding. */
static void token(apr_pool_t *p, uint8_t which, const uint8_t *data, size_t size)
{
    static const char *const kinds[3] = {"ao", "br", "cr"};
    sbx_ctx *x;
    int s = which % 4;
    const char *tok;
    sbx_hquote q;
    sandbox(&x);
    if (s == 3) { /* SUPPLIER_C's content pages: "content|<offset>" */
        tok = sbx_token_seal(p, keys[2], fz_str(p, data, size));
        call(p, "GET", apr_psprintf(p, "/hotels/c/v3/properties/content?language=en-US&"
                                    "supply_source=expedia&country_code=GB&limit=7&token=%s",
                                    tok), "");
        return;
    }
    tok = sbx_token_seal(p, keys[s], fz_str(p, data, size));
    if (sbx_hquote_decode(p, tok, kinds[s], keys[s], x->hotels, &q) != 0) {
        return; /* what the handlers refuse with a 422 before anything else */
    }
    if (s == 0) {
        call(p, "POST", apr_pstrdup(p, "/hotels/a/book/v3.0/rates/prebook"),
             apr_psprintf(p, "{\"offerId\":\"%s\"}", tok));
    }
    else if (s == 1) {
        call(p, "POST", apr_pstrdup(p, "/hotels/b/hotel-api/1.0/checkrates"),
             apr_psprintf(p, "{\"rooms\":[{\"rateKey\":\"%s\"}]}", tok));
    }
    else {
        call(p, "GET", apr_psprintf(p, "/hotels/c/v3/properties/%s/rooms/r/rates/t?token=%s",
                                    sbx_hotel_sid(p, 2, q.hotel), tok), "");
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    apr_pool_t *p;
    if (size < 2) {
        return 0;
    }
    p = fz_begin();
    if (data[0] % 2 == 0) {
        request(p, data + 1, size - 1);
    }
    else {
        token(p, data[1], data + 2, size - 2);
    }
    fz_end(p);
    return 0;
}
