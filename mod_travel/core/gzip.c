#include "gzip.h"

#include <libdeflate.h>

trv_gzip_status trv_gzip_decode(apr_pool_t *p, const char *in, apr_size_t n, apr_size_t max,
                                char **out, apr_size_t *out_len)
{
    const unsigned char *t = (const unsigned char *)in + n - 4;
    struct libdeflate_decompressor *d;
    enum libdeflate_result rc;
    size_t used = 0, size;
    apr_uint32_t isize;
    char *buf;
    /* The smallest member: a 10-byte header, an empty block, the trailer. */
    if (n < 20) {
        return TRV_GZIP_BAD;
    }
    /* The member's trailer ends with its size modulo 2^32: sized exactly
     * (libdeflate checks it and the CRC); an answer claiming more than
     * max is refused before anything is allocated. */
    isize = (apr_uint32_t)t[0] | (apr_uint32_t)t[1] << 8 | (apr_uint32_t)t[2] << 16
            | (apr_uint32_t)t[3] << 24;
    if (isize > max) {
        return TRV_GZIP_TOO_LARGE;
    }
    if (!(d = libdeflate_alloc_decompressor())) {
        return TRV_GZIP_BAD;
    }
    buf = apr_palloc(p, (apr_size_t)isize + 1);
    rc = libdeflate_gzip_decompress_ex(d, in, n, buf, isize, &used, &size);
    libdeflate_free_decompressor(d);
    /* Decoding to more than the trailer says (INSUFFICIENT_SPACE) is a
     * wrong trailer, or 4 GiB more, past any max: refused either way. */
    if (rc != LIBDEFLATE_SUCCESS || used != n || size != isize) {
        return TRV_GZIP_BAD;
    }
    buf[size] = '\0';
    *out = buf;
    *out_len = size;
    return TRV_GZIP_OK;
}
