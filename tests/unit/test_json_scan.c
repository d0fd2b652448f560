/* The plain-run scan shared by the JSON reader and writer
 * (core/json_scan.h): its table says what JSON lets through unescaped,
 * and the scan (sixteen bytes at once where SSE2 is, four by the table
 * after) stops exactly where a byte-by-byte look would, whatever the
 * stopping byte, its position and the length left. */
#include "unit.h"

#include <string.h>

#include "core/json_scan.h"

static apr_size_t reference(const unsigned char *s, apr_size_t n)
{
    apr_size_t i = 0;
    while (i < n && s[i] >= 0x20 && s[i] < 0x80 && s[i] != '"' && s[i] != '\\') {
        i++;
    }
    return i;
}

static void the_table_is_json_plain_ascii(void **state)
{
    int c;
    (void)state;
    for (c = 0; c < 256; c++) {
        unsigned char b = (unsigned char)c;
        assert_int_equal(trv_json_plain[c], reference(&b, 1));
    }
}

/* Every byte value as the stopper, at every position of runs up to 70
 * bytes long, with up to 70 bytes allowed (the scan must neither stop
 * late nor read its answer from beyond n). */
static void the_scan_stops_at_the_first_byte_that_is_not_plain(void **state)
{
    unsigned char buf[160];
    apr_size_t n, at;
    int c;
    (void)state;
    for (c = 0; c < 256; c++) {
        for (at = 0; at < 70; at++) {
            memset(buf, 'a', sizeof(buf));
            buf[at] = (unsigned char)c;
            for (n = 0; n <= 70; n++) {
                apr_size_t got = trv_json_plain_len((const char *)buf, n);
                if (got != reference(buf, n)) {
                    fail_msg("byte 0x%02x at %zu, n %zu: %zu, not %zu", c, (size_t)at,
                             (size_t)n, (size_t)got, (size_t)reference(buf, n));
                }
            }
        }
    }
}

/* Two stoppers: the first counts, in either half of a 16-byte step. */
static void the_first_of_two_stoppers_counts(void **state)
{
    unsigned char buf[64];
    apr_size_t a, b;
    (void)state;
    for (a = 0; a < 40; a++) {
        for (b = a; b < 40; b++) {
            memset(buf, 'x', sizeof(buf));
            buf[b] = '"';
            buf[a] = 0xC3;
            assert_int_equal(trv_json_plain_len((const char *)buf, sizeof(buf)), a);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_table_is_json_plain_ascii),
        cmocka_unit_test(the_scan_stops_at_the_first_byte_that_is_not_plain),
        cmocka_unit_test(the_first_of_two_stoppers_counts),
    };
    return UNIT_RUN(tests);
}
