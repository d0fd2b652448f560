/* Where webhooks may be sent (the SSRF rules). A target must be an https://
 * URL whose host resolves only to public addresses: never loopback, private,
 * shared (CGNAT), link-local (which holds the cloud metadata address
 * 169.254.169.254), multicast, unspecified, documentation or reserved
 * ranges, in IPv4 or IPv6 (mapped and NAT64 forms included). Networks the
 * operator lists with TravelWebhookAllowNetwork are allowed anyway, and
 * only there may the URL be http://. The rules are checked when a
 * subscription is saved and again for every address at connect time, so a
 * name that later resolves elsewhere (DNS rebinding) is still refused. */
#ifndef TRV_WEBHOOK_TARGET_H
#define TRV_WEBHOOK_TARGET_H

#include "core/config.h"

#include <apr_pools.h>
#include <apr_tables.h>

/* NULL when the address (4 bytes for APR_INET, 16 for APR_INET6) may be a
 * webhook target, else why not ("a private address"). `allow` holds
 * trv_cidr and may be NULL. */
const char *trv_webhook_address_refusal(const apr_array_header_t *allow, int family,
                                        const unsigned char *addr);
/* 1 when the address is inside one of the allowed networks. */
int trv_webhook_address_in_allowed(const apr_array_header_t *allow, int family,
                                   const unsigned char *addr);

/* The shape of a target URL: http(s), a host, no user info or fragment, at
 * most 2048 characters. Returns NULL or the reason; *host, *port and
 * *https describe it (host without brackets). */
const char *trv_webhook_url_shape(apr_pool_t *p, const char *url, const char **host,
                                  int *port, int *https);

/* The whole save-time check: shape, then resolving the host and checking
 * every address it resolves to (http:// only when all are in allowed
 * networks). NULL or the reason, fit for a 422 detail. */
const char *trv_webhook_url_check(apr_pool_t *p, const apr_array_header_t *allow,
                                  const char *url);

typedef struct trv_webhook_connect_rule {
    const apr_array_header_t *allow; /* trv_cidr */
    int https;                       /* the URL is https:// */
} trv_webhook_connect_rule;

/* The connect-time check for trv_http_req.allow_address; baton is a
 * trv_webhook_connect_rule. */
int trv_webhook_allow_address(void *baton, int family, const unsigned char *addr);

#endif
