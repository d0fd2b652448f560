/* When a confirmed order is read again (flight/sync_schedule.c): a
 * twenty-fourth of the time to the next departure, between one minute and
 * six hours, and never after the last journey has departed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "flight/sync_schedule.h"

/* 2026-11-24T00:00:00Z */
#define NOW apr_time_from_sec((apr_time_t)1795478400)

static json_t *trip(const char *out, const char *back)
{
    json_t *j = json_array();
    json_array_append_new(j, json_pack("{s:s}", "departure_time", out));
    if (back) {
        json_array_append_new(j, json_pack("{s:s}", "departure_time", back));
    }
    return j;
}

static void cadence_follows_the_next_departure(void **state)
{
    json_t *far = trip("2026-12-24T10:00", NULL), *day = trip("2026-11-25T00:00", NULL),
           *soon = trip("2026-11-24T00:20", NULL), *ret = trip("2026-11-20T08:00",
                                                                "2026-11-25T00:00");
    (void)state;
    /* A month away: the six-hour ceiling. */
    assert_int_equal(trv_fsync_next(far, NOW), TRV_FSYNC_MAX);
    /* A day away: every hour. */
    assert_int_equal(trv_fsync_next(day, NOW), apr_time_from_sec(3600));
    /* Twenty minutes away: the one-minute floor. */
    assert_int_equal(trv_fsync_next(soon, NOW), TRV_FSYNC_MIN);
    /* Outbound flown, return tomorrow: the return sets the pace. */
    assert_int_equal(trv_fsync_next(ret, NOW), apr_time_from_sec(3600));
    json_decref(far);
    json_decref(day);
    json_decref(soon);
    json_decref(ret);
}

static void chain_ends_after_the_last_departure(void **state)
{
    json_t *past = trip("2026-11-20T08:00", "2026-11-23T23:59"), *none = json_array(),
           *bad = trip("soon", NULL);
    (void)state;
    assert_int_equal(trv_fsync_next(past, NOW), 0);
    assert_int_equal(trv_fsync_next(none, NOW), 0);
    assert_int_equal(trv_fsync_next(bad, NOW), 0);
    assert_int_equal(trv_fsync_next(NULL, NOW), 0);
    json_decref(past);
    json_decref(none);
    json_decref(bad);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cadence_follows_the_next_departure),
        cmocka_unit_test(chain_ends_after_the_last_departure),
    };
    return cmocka_run_group_tests_name("flight sync schedule", tests, NULL, NULL);
}
