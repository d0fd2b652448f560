/* Shared by the unit tests: cmocka, APR, and a fresh pool per test. */
#ifndef TRV_UNIT_H
#define TRV_UNIT_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <apr_general.h>
#include <apr_pools.h>

/* setup/teardown: *state is a pool that lives for one test. */
static inline int pool_setup(void **state)
{
    apr_pool_t *p;
    if (apr_pool_create(&p, NULL) != APR_SUCCESS) {
        return -1;
    }
    *state = p;
    return 0;
}

static inline int pool_teardown(void **state)
{
    apr_pool_destroy(*state);
    return 0;
}

/* xorshift64: the tests' reproducible random numbers (*state starts
 * non-zero; each test file keeps its own). */
static inline unsigned long long unit_rnd(unsigned long long *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

/* Runs a group with APR initialized around it. */
#define UNIT_RUN(tests) unit_run_group(#tests, tests, sizeof(tests) / sizeof(tests[0]))

static inline int unit_run_group(const char *name, const struct CMUnitTest *tests,
                                 size_t n)
{
    int rc;
    apr_initialize();
    rc = _cmocka_run_group_tests(name, tests, n, NULL, NULL);
    apr_terminate();
    return rc;
}

#endif
