#include "target.h"

#include <apr_network_io.h>
#include <apr_strings.h>
#include <apr_uri.h>
#include <arpa/inet.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct blocked {
    const char *net;
    const char *why;
} blocked;

/* IANA special-purpose registries, less the few that are globally
 * reachable by design; the order puts the specific reasons first. */
static const blocked v4_blocked[] = {
    {"169.254.169.254/32", "the cloud metadata address"},
    {"0.0.0.0/8", "an unspecified (this-network) address"},
    {"10.0.0.0/8", "a private address"},
    {"100.64.0.0/10", "a shared (carrier-grade NAT) address"},
    {"127.0.0.0/8", "a loopback address"},
    {"169.254.0.0/16", "a link-local address"},
    {"172.16.0.0/12", "a private address"},
    {"192.0.0.0/24", "a reserved (IETF protocol) address"},
    {"192.0.2.0/24", "a documentation address"},
    {"192.88.99.0/24", "a reserved (6to4 relay) address"},
    {"192.168.0.0/16", "a private address"},
    {"198.18.0.0/15", "a reserved (benchmarking) address"},
    {"198.51.100.0/24", "a documentation address"},
    {"203.0.113.0/24", "a documentation address"},
    {"224.0.0.0/4", "a multicast address"},
    {"240.0.0.0/4", "a reserved address"},
    {NULL, NULL}};

static const blocked v6_blocked[] = {
    {"::/128", "an unspecified address"},
    {"::1/128", "a loopback address"},
    {"fd00:ec2::254/128", "the cloud metadata address"},
    {"100::/64", "a reserved (discard) address"},
    {"2001::/23", "a reserved (IETF protocol) address"},
    {"2001:db8::/32", "a documentation address"},
    {"2002::/16", "a 6to4 address"},
    {"fc00::/7", "a private (unique local) address"},
    {"fe80::/10", "a link-local address"},
    {"fec0::/10", "a site-local address"},
    {"ff00::/8", "a multicast address"},
    {"::/96", "an IPv4-compatible address"},
    {NULL, NULL}};

static int in_net(const char *text, int family, const unsigned char *addr)
{
    trv_cidr net;
    char buf[64];
    const char *slash = strchr(text, '/');
    int bits = atoi(slash + 1);
    memset(&net, 0, sizeof(net));
    apr_cpystrn(buf, text, (apr_size_t)(slash - text) + 1);
    net.family = family;
    net.bits = bits;
    if (inet_pton(family == APR_INET ? AF_INET : AF_INET6, buf, net.addr) != 1) {
        return 0;
    }
    return trv_cidr_contains(&net, family, addr);
}

int trv_webhook_address_in_allowed(const apr_array_header_t *allow, int family,
                                   const unsigned char *addr)
{
    int i;
    for (i = 0; allow && i < allow->nelts; i++) {
        if (trv_cidr_contains(&APR_ARRAY_IDX(allow, i, trv_cidr), family, addr)) {
            return 1;
        }
    }
    return 0;
}

const char *trv_webhook_address_refusal(const apr_array_header_t *allow, int family,
                                        const unsigned char *addr)
{
    static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    static const unsigned char nat64[12] = {0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0};
    const blocked *b;

    if (trv_webhook_address_in_allowed(allow, family, addr)) {
        return NULL;
    }
    if (family == APR_INET6) {
        /* An IPv4 address in IPv6 clothing is judged as the IPv4 address. */
        if (memcmp(addr, mapped, 12) == 0 || memcmp(addr, nat64, 12) == 0) {
            return trv_webhook_address_refusal(allow, APR_INET, addr + 12);
        }
        for (b = v6_blocked; b->net; b++) {
            if (in_net(b->net, APR_INET6, addr)) {
                return b->why;
            }
        }
        return NULL;
    }
    if (family != APR_INET) {
        return "not an IP address";
    }
    if (addr[0] == 255 && addr[1] == 255 && addr[2] == 255 && addr[3] == 255) {
        return "the broadcast address";
    }
    for (b = v4_blocked; b->net; b++) {
        if (in_net(b->net, APR_INET, addr)) {
            return b->why;
        }
    }
    return NULL;
}

const char *trv_webhook_url_shape(apr_pool_t *p, const char *url, const char **host,
                                  int *port, int *https)
{
    apr_uri_t u;
    const char *s;
    size_t n = strlen(url);

    if (n > 2048) {
        return "must be at most 2048 characters";
    }
    for (s = url; *s; s++) {
        if ((unsigned char)*s <= 0x20 || (unsigned char)*s >= 0x7f) {
            return "must not contain spaces, control or non-ASCII characters "
                   "(percent-encode them)";
        }
    }
    if (strncasecmp(url, "https://", 8) == 0) {
        *https = 1;
    }
    else if (strncasecmp(url, "http://", 7) == 0) {
        *https = 0;
    }
    else {
        return "must be an https:// URL";
    }
    if (apr_uri_parse(p, url, &u) != APR_SUCCESS || !u.hostname || !*u.hostname) {
        return "must be an absolute URL with a host";
    }
    if (u.user || u.password) {
        return "must not carry a user name or password";
    }
    if (u.fragment) {
        return "must not have a #fragment";
    }
    /* apr_uri_parse keeps the port in 16 bits: 99999 would wrap to 34463
     * and -1 to 65535, so the digits themselves are checked. */
    if (u.port_str) {
        const char *d = u.port_str;
        long v = 0;
        for (; *d >= '0' && *d <= '9' && v <= 65535; d++) {
            v = v * 10 + (*d - '0');
        }
        if (!*u.port_str || *d || v < 1 || v > 65535) {
            return "has an invalid port (1 to 65535)";
        }
    }
    *host = u.hostname;
    *port = u.port ? u.port : (*https ? 443 : 80);
    return NULL;
}

const char *trv_webhook_url_check(apr_pool_t *p, const apr_array_header_t *allow,
                                  const char *url)
{
    const char *host, *why;
    int port, https, all_allowed = 1, count = 0;
    apr_sockaddr_t *sa, *it;
    apr_status_t rv;

    if ((why = trv_webhook_url_shape(p, url, &host, &port, &https))) {
        return why;
    }
    if (!https && (!allow || allow->nelts == 0)) {
        return "must be an https:// URL";
    }
    rv = apr_sockaddr_info_get(&sa, host, APR_UNSPEC, (apr_port_t)port, 0, p);
    if (rv != APR_SUCCESS) {
        return https ? apr_psprintf(p, "has a host (%s) that does not resolve", host)
                     : "must be an https:// URL";
    }
    for (it = sa; it; it = it->next) {
        const unsigned char *raw = it->ipaddr_ptr;
        int fam = it->family == AF_INET ? APR_INET : APR_INET6;
        count++;
        if ((why = trv_webhook_address_refusal(allow, fam, raw))) {
            char text[64];
            apr_sockaddr_ip_getbuf(text, sizeof(text), it);
            return apr_psprintf(p, "must not point to %s (%s resolves to %s)", why,
                                host, text);
        }
        if (!trv_webhook_address_in_allowed(allow, fam, raw)) {
            all_allowed = 0;
        }
    }
    if (count == 0) {
        return apr_psprintf(p, "has a host (%s) that does not resolve", host);
    }
    if (!https && !all_allowed) {
        return "must be an https:// URL";
    }
    return NULL;
}

int trv_webhook_allow_address(void *baton, int family, const unsigned char *addr)
{
    const trv_webhook_connect_rule *r = baton;
    if (trv_webhook_address_refusal(r->allow, family, addr)) {
        return 0;
    }
    /* Plain http:// only inside the allowed networks. */
    return r->https || trv_webhook_address_in_allowed(r->allow, family, addr);
}
