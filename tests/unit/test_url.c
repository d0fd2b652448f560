/* The one URL escape (core/url.h) the supplier adapters build paths and
 * queries with: RFC 3986's unreserved characters stay, every other byte
 * is percent-encoded in upper-case hex. */
#include "unit.h"

#include "core/url.h"

static void the_url_escape_keeps_only_unreserved_characters(void **state)
{
    apr_pool_t *p = *state;
    assert_string_equal(trv_url_escape(p, "AZaz09-_.~"), "AZaz09-_.~");
    assert_string_equal(trv_url_escape(p, "a b/c?d=e&f#g%h+i"),
                        "a%20b%2Fc%3Fd%3De%26f%23g%25h%2Bi");
    /* Every byte of UTF-8, in upper-case hex. */
    assert_string_equal(trv_url_escape(p, "K\xc3\xb6ln"), "K%C3%B6ln");
    assert_string_equal(trv_url_escape(p, ""), "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(the_url_escape_keeps_only_unreserved_characters,
                                        pool_setup, pool_teardown),
    };
    return UNIT_RUN(tests);
}
