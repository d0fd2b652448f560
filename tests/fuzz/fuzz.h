/* Shared by the libFuzzer targets: APR set up once per process, a fresh
 * pool per input (so every input starts from nothing and a leak is one
 * input's leak), and the input as a NUL-terminated string. */
#ifndef TRV_FUZZ_H
#define TRV_FUZZ_H

#include <apr_general.h>
#include <apr_pools.h>
#include <apr_strings.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static apr_pool_t *fz_root;

/* A pool for one input; fz_end destroys it. */
static inline apr_pool_t *fz_begin(void)
{
    apr_pool_t *p;
    if (!fz_root) {
        if (apr_initialize() != APR_SUCCESS || apr_pool_create(&fz_root, NULL) != APR_SUCCESS) {
            abort();
        }
    }
    if (apr_pool_create(&p, fz_root) != APR_SUCCESS) {
        abort();
    }
    return p;
}

static inline void fz_end(apr_pool_t *p)
{
    apr_pool_destroy(p);
}

/* data[0..size) as a C string (it ends at the first NUL byte, as text
 * reaching the library through httpd or Jansson would). */
static inline char *fz_str(apr_pool_t *p, const uint8_t *data, size_t size)
{
    return apr_pstrmemdup(p, (const char *)data, size);
}

/* Takes the next piece of the input up to a newline (or the end), so one
 * input can carry several strings: "line 1\nline 2". */
static inline char *fz_line(apr_pool_t *p, const uint8_t **data, size_t *size)
{
    const uint8_t *nl = memchr(*data, '\n', *size);
    size_t n = nl ? (size_t)(nl - *data) : *size;
    char *s = apr_pstrmemdup(p, (const char *)*data, n);
    *data += nl ? n + 1 : n;
    *size -= nl ? n + 1 : n;
    return s;
}

/* A check the target makes beyond "no crash": a property of the parser
 * that must hold for every input. abort() makes libFuzzer save the input. */
#define FZ_ASSERT(cond)                                                              \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: property failed: %s\n", __FILE__, __LINE__, #cond); \
            abort();                                                                 \
        }                                                                            \
    } while (0)

#endif
