/* The health verdict's worker part, and Retry-After on every 503 answer
 * (the envelope sets it, whatever produced the 503). */
#include "unit.h"

#include <apr_tables.h>
#include <stdlib.h>
#include <string.h>

#include "core/api.h"
#include "gateway/service.h"

static void workers_must_all_run(void **state)
{
    (void)state;
    assert_true(trv_health_workers_ok(2, 2, 0));
    assert_true(trv_health_workers_ok(0, 0, 0)); /* TravelWorkerThreads 0: none expected */
    assert_false(trv_health_workers_ok(2, 1, 0));
    assert_false(trv_health_workers_ok(2, 0, 0));
    assert_false(trv_health_workers_ok(2, 2, 1)); /* the process is stopping */
}

static void a_503_says_when_to_retry(void **state)
{
    apr_pool_t *p = *state;
    trv_req req;
    trv_resp resp;
    memset(&req, 0, sizeof(req));
    memset(&resp, 0, sizeof(resp));
    req.pool = p;
    req.request_id = "req_test";
    resp.headers = apr_table_make(p, 2);
    trv_fail(&req, &resp, 503, "unavailable", "down");
    assert_int_equal(resp.status, 503);
    assert_non_null(apr_table_get(resp.headers, "Retry-After"));
    assert_true(atoi(apr_table_get(resp.headers, "Retry-After")) >= 1);

    resp.headers = apr_table_make(p, 2);
    trv_fail(&req, &resp, 500, "internal_error", "broken");
    assert_null(apr_table_get(resp.headers, "Retry-After"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(workers_must_all_run),
        cmocka_unit_test_setup_teardown(a_503_says_when_to_retry, pool_setup, pool_teardown),
    };
    return UNIT_RUN(tests);
}
