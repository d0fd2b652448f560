/* A gzip answer decoded in one call (libdeflate), for the suppliers that
 * answer gzip when asked (Hotelbeds, Rapid): libcurl's decoding through
 * zlib, a block at a time, was a tenth of a hotel search's instructions
 * in the gateway (docs/performance.md). */
#ifndef TRV_CORE_GZIP_H
#define TRV_CORE_GZIP_H

#include <apr_pools.h>

typedef enum {
    TRV_GZIP_OK = 0,
    TRV_GZIP_TOO_LARGE,      /* it decodes to more than max bytes */
    TRV_GZIP_BAD             /* not one well-formed gzip member (CRC and size checked) */
} trv_gzip_status;

/* Decodes the single gzip member in[0..n) into *out (NUL-terminated, in
 * p), *out_len its length, at most max bytes. */
trv_gzip_status trv_gzip_decode(apr_pool_t *p, const char *in, apr_size_t n, apr_size_t max,
                                char **out, apr_size_t *out_len);

#endif
