/* Webhook target URLs and the networks they may point to (the SSRF rules).
 * Input: one byte choosing the parser, then
 *   0: url\ncidr\ncidr...: the URL's shape, then the whole save-time check
 *      with those TravelWebhookAllowNetwork values (host names never
 *      resolve here: tests/fuzz/no_dns.c; address literals do);
 *   1: a TravelWebhookAllowNetwork value (CIDR) and 16 address bytes;
 *   2: family byte, 16 address bytes, then cidr lines: the connect-time
 *      rule for that raw address.
 * Beyond not crashing: an accepted URL has a host and a port in range; a
 * parsed network contains its own address; an allowed network always
 * wins; an IPv4-mapped IPv6 address is judged as its IPv4 address. */
#include "fuzz.h"

#include "core/config.h"
#include "webhook/target.h"

#include <apr_network_io.h>
#include <apr_tables.h>

static apr_array_header_t *networks(apr_pool_t *p, const uint8_t *data, size_t size)
{
    apr_array_header_t *allow = apr_array_make(p, 4, sizeof(trv_cidr));
    while (size > 0 && allow->nelts < 8) {
        trv_cidr net;
        if (!trv_parse_cidr(p, fz_line(p, &data, &size), &net)) {
            APR_ARRAY_PUSH(allow, trv_cidr) = net;
        }
    }
    return allow;
}

static void url(apr_pool_t *p, const uint8_t *data, size_t size)
{
    const char *u = fz_line(p, &data, &size), *host = NULL, *why;
    int port = -1, https = -1;
    if (!trv_webhook_url_shape(p, u, &host, &port, &https)) {
        FZ_ASSERT(host && *host);
        FZ_ASSERT(port >= 1 && port <= 65535);
        FZ_ASSERT(https == 0 || https == 1);
    }
    why = trv_webhook_url_check(p, networks(p, data, size), u);
    FZ_ASSERT(!why || *why);
    if (!why) {
        /* Whatever the save-time check accepts has the shape too. */
        FZ_ASSERT(!trv_webhook_url_shape(p, u, &host, &port, &https));
    }
}

static void cidr(apr_pool_t *p, const uint8_t *data, size_t size)
{
    const char *text = fz_line(p, &data, &size);
    unsigned char addr[16] = {0};
    trv_cidr net;
    memcpy(addr, data, size < 16 ? size : 16);
    if (trv_parse_cidr(p, text, &net)) {
        return;
    }
    FZ_ASSERT(net.family == APR_INET || net.family == APR_INET6);
    FZ_ASSERT(net.bits >= 0 && net.bits <= (net.family == APR_INET ? 32 : 128));
    FZ_ASSERT(trv_cidr_contains(&net, net.family, net.addr));
    (void)trv_cidr_contains(&net, APR_INET, addr);
    (void)trv_cidr_contains(&net, APR_INET6, addr);
}

static void address(apr_pool_t *p, const uint8_t *data, size_t size)
{
    unsigned char addr[16] = {0}, mapped[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    int family;
    apr_array_header_t *allow;
    trv_webhook_connect_rule rule;
    const char *why;
    if (size < 17) {
        return;
    }
    family = data[0] & 1 ? APR_INET6 : APR_INET;
    memcpy(addr, data + 1, 16);
    allow = networks(p, data + 17, size - 17);
    why = trv_webhook_address_refusal(allow, family, addr);
    if (trv_webhook_address_in_allowed(allow, family, addr)) {
        FZ_ASSERT(!why);
    }
    rule.allow = allow;
    rule.https = data[0] & 2 ? 1 : 0;
    FZ_ASSERT(trv_webhook_allow_address(&rule, family, addr) == 0 || !why);
    if (family == APR_INET && allow->nelts == 0) {
        const char *as6;
        memcpy(mapped + 12, addr, 4);
        as6 = trv_webhook_address_refusal(allow, APR_INET6, mapped);
        FZ_ASSERT((why == NULL) == (as6 == NULL));
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    apr_pool_t *p;
    if (size < 1) {
        return 0;
    }
    p = fz_begin();
    switch (data[0] % 3) {
    case 0: url(p, data + 1, size - 1); break;
    case 1: cidr(p, data + 1, size - 1); break;
    default: address(p, data + 1, size - 1);
    }
    fz_end(p);
    return 0;
}
