/* The sandbox's settings version (sandbox/changes.h): a child's memo of
 * "no fault / no price factor" holds only while nothing was added since
 * the read that found none, across every child (fork) and every restart
 * of the module. */
#include "unit.h"

#include <sys/wait.h>
#include <unistd.h>

#include "sandbox/changes.h"

/* Without the shared counter every memo misses: the settings are read on
 * every request. Runs first, before any init. */
static void without_shared_memory_nothing_is_remembered(void **state)
{
    sbx_none_memo m = 0;
    (void)state;
    sbx_changes_note_none(&m, sbx_changes_now());
    assert_false(sbx_changes_none(&m, sbx_changes_now()));
}

static void a_memo_holds_until_a_change(void **state)
{
    apr_pool_t *p = *state;
    sbx_none_memo m = 0, other = 0;
    apr_uint32_t v;
    assert_int_equal(sbx_changes_init(p), APR_SUCCESS);
    v = sbx_changes_now();
    assert_false(sbx_changes_none(&m, v));          /* never read */
    sbx_changes_note_none(&m, v);
    assert_true(sbx_changes_none(&m, v));
    assert_true(sbx_changes_none(&m, sbx_changes_now()));
    assert_false(sbx_changes_none(&other, v));      /* one memo per kind */
    sbx_changes_made();
    assert_int_equal(sbx_changes_now(), v + 1);
    assert_false(sbx_changes_none(&m, sbx_changes_now()));
    /* A read begun before the change that finishes after it remembers
     * the old version: still a miss. */
    sbx_changes_note_none(&m, v);
    assert_false(sbx_changes_none(&m, sbx_changes_now()));
    sbx_changes_note_none(&m, v + 1);
    assert_true(sbx_changes_none(&m, sbx_changes_now()));
}

/* A change made in one child is seen by another: the counter is shared
 * memory, made before the fork. */
static void a_change_in_one_child_reaches_the_others(void **state)
{
    apr_pool_t *p = *state;
    sbx_none_memo m = 0;
    apr_uint32_t v;
    pid_t pid;
    int status = 0;
    assert_int_equal(sbx_changes_init(p), APR_SUCCESS);
    v = sbx_changes_now();
    sbx_changes_note_none(&m, v);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        sbx_changes_made();
        _exit(0);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_int_equal(sbx_changes_now(), v + 1);
    assert_false(sbx_changes_none(&m, sbx_changes_now()));
}

/* A restart reloads the module, not the process pool: the second init
 * finds the same counter, with its changes. */
static void a_restart_keeps_the_counter(void **state)
{
    apr_pool_t *p = *state;
    apr_uint32_t v;
    assert_int_equal(sbx_changes_init(p), APR_SUCCESS);
    sbx_changes_made();
    sbx_changes_made();
    v = sbx_changes_now();
    assert_int_equal(sbx_changes_init(p), APR_SUCCESS);
    assert_int_equal(sbx_changes_now(), v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(without_shared_memory_nothing_is_remembered),
        cmocka_unit_test_setup_teardown(a_memo_holds_until_a_change, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(a_change_in_one_child_reaches_the_others, pool_setup,
                                        pool_teardown),
        cmocka_unit_test_setup_teardown(a_restart_keeps_the_counter, pool_setup, pool_teardown),
    };
    return UNIT_RUN(tests);
}
