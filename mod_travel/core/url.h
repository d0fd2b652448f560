/* Percent-encoding for URLs the service builds towards suppliers: one rule
 * for path segments and query values alike. */
#ifndef TRV_URL_H
#define TRV_URL_H

#include <apr_pools.h>

/* s with every byte but RFC 3986's unreserved characters (ASCII letters,
 * digits, - _ . ~) percent-encoded in upper-case hex: safe as a path
 * segment and as a query-string value. */
const char *trv_url_escape(apr_pool_t *p, const char *s);

#endif
