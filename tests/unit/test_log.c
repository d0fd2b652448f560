/* Logging: a debug line costs nothing unless its level is enabled (the
 * arguments are not even evaluated), lines carry their call site, and
 * libpq's multi-line messages become one line. */
#include "unit.h"

#include <stdio.h>
#include <string.h>

#include "core/db.h"
#include "core/log.h"

static int enabled_level = TRV_LOG_WARNING;
static int emitted;
static const char *last_file;
static int last_line;
static char last_msg[512];

static void emit_at(void *baton, const char *file, int line, int level, const char *rid,
                    const char *msg)
{
    (void)baton;
    (void)level;
    (void)rid;
    emitted++;
    last_file = file;
    last_line = line;
    snprintf(last_msg, sizeof(last_msg), "%s", msg);
}

static int enabled(void *baton, int level)
{
    (void)baton;
    return level <= enabled_level;
}

static int evaluated;
static int costly(void)
{
    return ++evaluated;
}

static void debug_lines_cost_nothing_when_off(void **state)
{
    trv_log log = {NULL, NULL, emit_at, enabled};
    (void)state;
    emitted = evaluated = 0;
    enabled_level = TRV_LOG_WARNING;
    TRV_DEBUG(&log, "req_1", TRVLOGNO(999) "value %d", costly());
    assert_int_equal(evaluated, 0);
    assert_int_equal(emitted, 0);
    trv_log_msg(&log, TRV_LOG_INFO, "req_1", TRVLOGNO(999) "info");
    assert_int_equal(emitted, 0);
    trv_log_msg(&log, TRV_LOG_ERR, "req_1", TRVLOGNO(999) "error");
    assert_int_equal(emitted, 1);

    enabled_level = TRV_LOG_DEBUG;
    int here = __LINE__ + 1;
    TRV_DEBUG(&log, "req_1", TRVLOGNO(999) "value %d", costly());
    assert_int_equal(evaluated, 1);
    assert_int_equal(emitted, 2);
    assert_string_equal(last_msg, "TRV999: value 1");
    /* The caller's position, not the logger's. */
    assert_non_null(strstr(last_file, "test_log.c"));
    assert_int_equal(last_line, here);
}

static void a_log_without_a_level_check_logs_everything(void **state)
{
    trv_log log = {NULL, NULL, emit_at, NULL};
    (void)state;
    emitted = 0;
    TRV_DEBUG(&log, NULL, "debug");
    assert_int_equal(emitted, 1);
    assert_false(trv_log_enabled(NULL, TRV_LOG_CRIT));
}

static void libpq_messages_become_one_line(void **state)
{
    apr_pool_t *p = *state;
    assert_string_equal(
        trv_db_one_line(p, "server closed the connection unexpectedly\n\tThis probably "
                           "means the server terminated abnormally\n\tbefore or while "
                           "processing the request.\n"),
        "server closed the connection unexpectedly This probably means the server "
        "terminated abnormally before or while processing the request.");
    assert_string_equal(trv_db_one_line(p, "  a \r\n b  "), "a b");
    assert_string_equal(trv_db_one_line(p, ""), "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(debug_lines_cost_nothing_when_off),
        cmocka_unit_test(a_log_without_a_level_check_logs_everything),
        cmocka_unit_test_setup_teardown(libpq_messages_become_one_line, pool_setup,
                                        pool_teardown),
    };
    return UNIT_RUN(tests);
}
