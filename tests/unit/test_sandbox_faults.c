/* What a sandbox fault does, read from a control request's body (shared by
 * POST /sandbox/faults and the inbox's behavior): the action follows from
 * the status when not given, each action takes only the fields that mean
 * something for it, and every problem is named by its field. */
#include "unit.h"

#include <apr_strings.h>
#include <string.h>

#include "core/json.h"
#include "sandbox/faults.h"

/* Parses body; returns the details (field names joined by ",") or "". */
static const char *parse(apr_pool_t *p, const char *body, sbx_fault_rule *rule)
{
    trv_errs *errs = trv_errs_new(p);
    json_t *b = trv_json_bind(p, json_loads(body, 0, NULL));
    const char *fields = "";
    size_t i;
    assert_non_null(b);
    memset(rule, 0, sizeof(*rule));
    sbx_fault_parse(p, b, rule, errs);
    for (i = 0; i < json_array_size(errs->details); i++) {
        const char *f = json_string_value(json_object_get(json_array_get(errs->details, i),
                                                          "field"));
        fields = *fields ? apr_pstrcat(p, fields, ",", f, NULL) : f;
    }
    return fields;
}

static void action_follows_the_status(void **state)
{
    apr_pool_t *p = *state;
    sbx_fault_rule r;
    assert_string_equal(parse(p, "{\"status\": 503}", &r), "");
    assert_string_equal(r.fault.action, "error");
    assert_int_equal(r.fault.status, 503);
    assert_int_equal(r.times, -1); /* absent: the caller's default */
    assert_string_equal(parse(p, "{\"status\": 204, \"delay_ms\": 10}", &r), "");
    assert_string_equal(r.fault.action, "respond");
    assert_int_equal(r.fault.delay_ms, 10);
    assert_string_equal(parse(p, "{}", &r), "");
    assert_string_equal(r.fault.action, "respond");
    assert_int_equal(r.fault.status, 0);
}

static void every_field_read(void **state)
{
    apr_pool_t *p = *state;
    sbx_fault_rule r;
    assert_string_equal(parse(p, "{\"action\": \"error\", \"status\": 429, \"code\": "
                                 "\"rate_limited\", \"message\": \"slow down\", "
                                 "\"retry_after\": 7, \"delay_ms\": 120000, \"times\": 3}",
                              &r), "");
    assert_string_equal(r.fault.code, "rate_limited");
    assert_string_equal(r.fault.message, "slow down");
    assert_string_equal(r.fault.retry_after, "7");
    assert_int_equal(r.fault.delay_ms, 120000);
    assert_int_equal(r.times, 3);
    assert_string_equal(parse(p, "{\"action\": \"garbage\", \"retry_after\": "
                                 "\"Wed, 21 Oct 2026 07:28:00 GMT\", \"times\": null}", &r), "");
    assert_string_equal(r.fault.action, "garbage");
    assert_string_equal(r.fault.retry_after, "Wed, 21 Oct 2026 07:28:00 GMT");
    assert_int_equal(r.times, 0); /* null: until deleted */
    assert_string_equal(parse(p, "{\"action\": \"drop_after_handling\"}", &r), "");
    assert_string_equal(r.fault.action, "drop_after_handling");
}

static void problems_named_by_field(void **state)
{
    apr_pool_t *p = *state;
    sbx_fault_rule r;
    assert_string_equal(parse(p, "{\"status\": 99}", &r), "status");
    assert_string_equal(parse(p, "{\"status\": \"503\"}", &r), "status");
    assert_string_equal(parse(p, "{\"action\": \"explode\"}", &r), "action");
    /* an error needs an error status */
    assert_string_equal(parse(p, "{\"action\": \"error\"}", &r), "status");
    assert_string_equal(parse(p, "{\"action\": \"error\", \"status\": 200}", &r), "status");
    /* nothing is answered on a drop */
    assert_string_equal(parse(p, "{\"action\": \"drop\", \"status\": 500}", &r), "status");
    /* code and message belong to an error */
    assert_string_equal(parse(p, "{\"action\": \"garbage\", \"code\": \"x\"}", &r), "code");
    assert_string_equal(parse(p, "{\"delay_ms\": -1}", &r), "delay_ms");
    assert_string_equal(parse(p, "{\"delay_ms\": 120001}", &r), "delay_ms");
    assert_string_equal(parse(p, "{\"times\": 0}", &r), "times");
    assert_string_equal(parse(p, "{\"retry_after\": -5}", &r), "retry_after");
    assert_string_equal(parse(p, "{\"code\": \"\", \"status\": 500}", &r), "code");
    /* one 422 lists them all */
    assert_string_equal(parse(p, "{\"status\": 1000, \"delay_ms\": \"x\", \"times\": -2}", &r),
                        "status,delay_ms,times");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(action_follows_the_status, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(every_field_read, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(problems_named_by_field, pool_setup, pool_teardown),
    };
    return UNIT_RUN(tests);
}
