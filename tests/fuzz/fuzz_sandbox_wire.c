/* The sandbox's parsers of what arrives on its wire (the gateway, or a
 * test, is the client): base64url, supplier amounts, the supplier offer
 * references (client text, and payloads signed with the supplier's key so
 * the fields behind the signature are reached), the fault-control bodies,
 * and whole requests to its APIs (SUPPLIER_A, SUPPLIER_B, the payment
 * provider, the webhook inbox, faults) through dispatch and the real
 * handlers, up to a database that answers "unavailable". Input: one byte
 * choosing the parser, then its text (for a request: "METHOD
 * /path?query\nbody"). Beyond not crashing: base64url round-trips,
 * accepted amounts are in range, a decoded offer is this supplier's with
 * 1..4 journeys, every request is answered with a document that
 * serializes. */
#include "fuzz.h"

#include "core/money.h"
#include "core/dispatch.h"
#include "core/router.h"
#include "sandbox/faults.h"
#include "sandbox/air/offers.h"
#include "sandbox/sandbox.h"
#include "sandbox/sbx_api.h"
#include "sandbox/world.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

static const char *const key = "fuzz-sandbox-key";

/* The OpenFlights world the sandbox serves (loaded once; run.sh runs the
 * targets from the repository root). */
static const sbx_world *world(void)
{
    static const sbx_world *w;
    if (!w) {
        const char *err = NULL, *dir = getenv("TRAVEL_TEST_DATA");
        w = sbx_world_load(fz_root, dir ? dir : "data/openflights", "/usr/share/zoneinfo",
                           &err);
        if (!w) {
            fprintf(stderr, "world: %s\n", err);
            abort();
        }
    }
    return w;
}

static apr_status_t db_down(trv_dbsrc *src, apr_pool_t *p, trv_dbc **out)
{
    (void)src; (void)p; (void)out;
    return APR_ECONNREFUSED;
}

static void db_close(trv_dbsrc *src, trv_dbc *c)
{
    (void)src; (void)c;
}

/* The sandbox's APIs as its module serves them, minus the database. */
static const trv_router *sandbox(sbx_ctx **ctx)
{
    static trv_router *rt;
    static sbx_ctx x;
    static sbx_settings set;
    static trv_config cfg;
    static trv_dbsrc db;
    if (!rt) {
        set.key_a = key;
        set.key_b = key;
        set.key_pay = key;
        set.offer_ttl_a = set.offer_ttl_b = apr_time_from_sec(1800);
        set.hold_ttl = apr_time_from_sec(600);
        cfg.max_body = 1024 * 1024;
        db.open = db_down;
        db.close = db_close;
        x.env.db = &db;
        x.env.cfg = &cfg;
        x.set = &set;
        x.world = world();
        rt = trv_router_make(fz_root);
        trv_router_add(rt, trv_sandbox_inbox_routes);
        trv_router_add(rt, sbx_air_a_routes);
        trv_router_add(rt, sbx_air_b_routes);
        trv_router_add(rt, sbx_pay_routes);
        trv_router_add(rt, sbx_fault_routes);
    }
    *ctx = &x;
    return rt;
}

static void request(apr_pool_t *p, const uint8_t *data, size_t size)
{
    sbx_ctx *x;
    const trv_router *rt = sandbox(&x);
    char *line = fz_line(p, &data, &size), *sp = strchr(line, ' '), *q, *pair, *last;
    trv_req req;
    trv_resp resp;
    if (!sp) {
        return;
    }
    *sp = '\0';
    memset(&req, 0, sizeof(req));
    memset(&resp, 0, sizeof(resp));
    req.pool = p;
    req.method = line;
    req.path = sp + 1;
    req.query = apr_table_make(p, 4);
    if ((q = strchr(sp + 1, '?'))) {
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
    req.body = fz_str(p, data, size);
    req.body_len = size;
    req.request_id = "req_fuzz";
    req.env = &x->env;
    resp.headers = apr_table_make(p, 1);
    trv_dispatch(rt, NULL, &req, &resp);
    FZ_ASSERT(resp.status >= 200 && resp.status <= 599);
    FZ_ASSERT(trv_resp_body(p, &resp) != NULL);
}

static void b64(apr_pool_t *p, const uint8_t *data, size_t size)
{
    const char *text = fz_str(p, data, size), *again;
    apr_size_t n = 0, m = 0;
    unsigned char *raw = sbx_b64url_decode(p, text, &n), *back;
    if (raw) {
        again = sbx_b64url(p, raw, n);
        back = sbx_b64url_decode(p, again, &m);
        FZ_ASSERT(back && m == n && memcmp(back, raw, n) == 0);
    }
    /* Any bytes survive encoding (up to the decoder's 4096 characters). */
    if (size <= 3000) {
        back = sbx_b64url_decode(p, sbx_b64url(p, data, size), &m);
        FZ_ASSERT(back && m == size && memcmp(back, data, size) == 0);
    }
}

static void amount(apr_pool_t *p, const uint8_t *data, size_t size)
{
    static const char *const currencies[] = {"EUR", "JPY", "KWD", "CLF", "XXX"};
    const char *cur = currencies[size ? data[0] % 5 : 0];
    const char *text = size ? fz_str(p, data + 1, size - 1) : "";
    json_t *v = trv_json_parse(p, text, strlen(text), NULL);
    apr_int64_t minor = 0;
    if (!v) {
        v = trv_json_bind(p, json_string(text)); /* amounts arrive as strings too */
    }
    if (v && sbx_amount_parse(v, cur, &minor) == 0) {
        FZ_ASSERT(minor <= TRV_MONEY_MAX_MINOR && minor >= -TRV_MONEY_MAX_MINOR);
    }
}

static void offer(apr_pool_t *p, const uint8_t *data, size_t size, int signed_payload)
{
    const char *ref;
    sbx_offer o;
    char supplier = size && data[0] & 1 ? 'B' : 'A';
    if (size) {
        data++;
        size--;
    }
    if (signed_payload) {
        unsigned char mac[EVP_MAX_MD_SIZE], *buf = apr_palloc(p, size + 8);
        unsigned int n = 0;
        HMAC(EVP_sha256(), key, (int)strlen(key), data, size, mac, &n);
        memcpy(buf, data, size);
        memcpy(buf + size, mac, 8);
        ref = sbx_b64url(p, buf, size + 8);
    }
    else {
        ref = fz_str(p, data, size);
    }
    /* Behind a valid signature the fields are the sandbox's own, so only
     * what decoding itself checks is asserted: the rest must not crash. */
    if (sbx_offer_decode(p, world(), ref, supplier, key, 1795413600, &o) == 0) {
        FZ_ASSERT(o.supplier == supplier);
        FZ_ASSERT(o.q.nj >= 1 && o.q.nj <= SBX_MAX_JOURNEYS);
    }
}

static void fault(apr_pool_t *p, const uint8_t *data, size_t size)
{
    json_t *body = trv_json_parse(p, (const char *)data, size, NULL);
    sbx_fault_rule rule;
    trv_errs *errs = trv_errs_new(p);
    if (!json_is_object(body)) {
        return;
    }
    memset(&rule, 0, sizeof(rule));
    sbx_fault_parse(p, body, &rule, errs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    apr_pool_t *p;
    if (size < 1) {
        return 0;
    }
    p = fz_begin();
    switch (data[0] % 6) {
    case 0: b64(p, data + 1, size - 1); break;
    case 1: amount(p, data + 1, size - 1); break;
    case 2: offer(p, data + 1, size - 1, 0); break;
    case 3: offer(p, data + 1, size - 1, 1); break;
    case 4: fault(p, data + 1, size - 1); break;
    default: request(p, data + 1, size - 1);
    }
    fz_end(p);
    return 0;
}
