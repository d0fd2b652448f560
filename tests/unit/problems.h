/* What a checker found, as sentences: the unit tests that hold documents
 * and sources against the code (test_openapi_routes, test_registry_sources)
 * collect them, then assert on them. */
#ifndef TRV_UNIT_PROBLEMS_H
#define TRV_UNIT_PROBLEMS_H

#include <apr_strings.h>
#include <apr_tables.h>
#include <stdarg.h>
#include <string.h>

typedef struct problems {
    apr_pool_t *pool;
    apr_array_header_t *list; /* const char * */
} problems;

static inline void problem(problems *pr, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static inline void problem(problems *pr, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    APR_ARRAY_PUSH(pr->list, const char *) = apr_pvsprintf(pr->pool, fmt, ap);
    va_end(ap);
}

static inline int has_problem(const problems *pr, const char *needle)
{
    int i;
    for (i = 0; i < pr->list->nelts; i++) {
        if (strstr(APR_ARRAY_IDX(pr->list, i, const char *), needle)) {
            return 1;
        }
    }
    return 0;
}

#endif
