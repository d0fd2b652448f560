/* The traveller behind a hotel request (customer.h). */
#include "customer.h"
#include "core/json.h"
#include "core/validate.h"

#include <apr_strings.h>
#include <string.h>

void trv_hcustomer_read(const trv_req *req, trv_hcustomer *out, trv_errs *errs)
{
    const char *ip = apr_table_get(req->headers, "x-travel-customer-ip");
    const char *session = apr_table_get(req->headers, "x-travel-customer-session");
    const char *lang = apr_table_get(req->headers, "Accept-Language");
    memset(out, 0, sizeof(*out));
    if (ip && !trv_ip_literal(ip)) {
        trv_errs_add(errs, "x-travel-customer-ip", "must be the traveller's IPv4 or IPv6 "
                     "address, e.g. 203.0.113.7 or 2001:db8::7");
    }
    if (session && !trv_printable(session, 1, TRV_HCUSTOMER_SESSION_MAX)) {
        trv_errs_add(errs, "x-travel-customer-session", "must be 1 to %d printable ASCII "
                     "characters", TRV_HCUSTOMER_SESSION_MAX);
    }
    /* The connection's address when the client states none: the traveller
     * when their device calls (behind a proxy, mod_remoteip's client). */
    out->ip = ip ? ip : trv_ip_literal(req->client_ip) ? req->client_ip : NULL;
    out->session = session;
    /* A standard header, never refused: what cannot be read is no
     * preference (the vendor's default). */
    out->language = lang && *lang && trv_printable(lang, 1, 4096)
                        ? apr_pstrndup(req->pool, lang, TRV_HCUSTOMER_LANGUAGE_MAX) : NULL;
}

const char *trv_hcustomer_json(apr_pool_t *p, const trv_hcustomer *c)
{
    json_t *j = json_pack("{s:s?,s:s?,s:s?}", "ip", c->ip, "session", c->session, "language",
                          c->language);
    return trv_json_dump(p, trv_json_bind(p, j));
}

void trv_hcustomer_apply(trv_hotel_ctx *ctx, const trv_hcustomer *c)
{
    ctx->customer_ip = c->ip;
    ctx->customer_session = c->session;
    ctx->accept_language = c->language;
}

void trv_hcustomer_apply_kept(trv_hotel_ctx *ctx, const json_t *stored)
{
    ctx->customer_ip = trv_json_str(stored, "ip");
    ctx->customer_session = trv_json_str(stored, "session");
    ctx->accept_language = trv_json_str(stored, "language");
}

void trv_hcustomer_headers(apr_table_t *headers, const json_t *stored)
{
    static const char *const names[][2] = {{"ip", "x-travel-customer-ip"},
                                           {"session", "x-travel-customer-session"},
                                           {"language", "Accept-Language"}};
    size_t i;
    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        const char *v = trv_json_str(stored, names[i][0]);
        if (v) {
            apr_table_set(headers, names[i][1], v);
        }
    }
}
