/* Well-formed UTF-8: what the decoding rule demands of a request's path
 * and query, and what every error text must be before it goes into JSON. */
#ifndef TRV_UTF8_H
#define TRV_UTF8_H

#include <apr_pools.h>
#include <stddef.h>

/* 1 when s[0..len) is well-formed UTF-8: no overlong forms, no surrogates,
 * nothing above U+10FFFF. */
int trv_utf8_valid(const char *s, size_t len);
/* s with every byte that is not part of well-formed UTF-8 replaced by
 * U+FFFD (s itself when it is clean): for text that must go into JSON. */
const char *trv_utf8_clean(apr_pool_t *p, const char *s);

#endif
