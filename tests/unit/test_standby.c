/* The consistency token a client sends back (x-travel-min-lsn) is taken
 * only in pg_lsn's text form, hex/hex of 1-8 digits each: anything else
 * sends the read to the primary rather than into a cast error. */
#include "unit.h"

#include "gateway/standby.h"

static void test_lsn_forms(void **state)
{
    (void)state;
    assert_true(trv_standby_lsn_ok("0/0"));
    assert_true(trv_standby_lsn_ok("0/16B3748"));
    assert_true(trv_standby_lsn_ok("FFFFFFFF/ffffffff"));
    assert_false(trv_standby_lsn_ok(""));
    assert_false(trv_standby_lsn_ok("0/"));
    assert_false(trv_standby_lsn_ok("/0"));
    assert_false(trv_standby_lsn_ok("0"));
    assert_false(trv_standby_lsn_ok("1FFFFFFFF/0"));
    assert_false(trv_standby_lsn_ok("0/123456789"));
    assert_false(trv_standby_lsn_ok("0/1 "));
    assert_false(trv_standby_lsn_ok("0/1/2"));
    assert_false(trv_standby_lsn_ok("g/1"));
    assert_false(trv_standby_lsn_ok("0/1'; --"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lsn_forms),
    };
    return UNIT_RUN(tests);
}
