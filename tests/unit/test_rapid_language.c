/* The language Expedia Rapid answers in, from the traveller's
 * Accept-Language (hotel/suppliers/rapid_language.h): one of Rapid's 34
 * languages, by the traveller's preference, en-US when none fits. */
#include "unit.h"

#include "hotel/suppliers/rapid_language.h"

static void a_tag_rapid_has_is_taken_as_it_is(void **state)
{
    (void)state;
    assert_string_equal(trv_rapid_language("pt-BR"), "pt-BR");
    assert_string_equal(trv_rapid_language("fr-CA"), "fr-CA");
    assert_string_equal(trv_rapid_language("ja-jp"), "ja-JP");
    assert_string_equal(trv_rapid_language("ES-mx"), "es-MX");
}

static void a_language_alone_is_its_own_country(void **state)
{
    (void)state;
    assert_string_equal(trv_rapid_language("fr"), "fr-FR");
    assert_string_equal(trv_rapid_language("fr-BE"), "fr-FR");
    assert_string_equal(trv_rapid_language("de-CH"), "de-DE");
    assert_string_equal(trv_rapid_language("pt"), "pt-PT");
    assert_string_equal(trv_rapid_language("es-AR"), "es-ES");
    assert_string_equal(trv_rapid_language("en-GB"), "en-US");
    assert_string_equal(trv_rapid_language("zh-Hant-HK"), "zh-TW");
    assert_string_equal(trv_rapid_language("zh-HK"), "zh-TW");
    assert_string_equal(trv_rapid_language("zh"), "zh-CN");
    assert_string_equal(trv_rapid_language("zh-Hans-SG"), "zh-CN");
    assert_string_equal(trv_rapid_language("nn"), "nb-NO");
    assert_string_equal(trv_rapid_language("no-NO"), "nb-NO");
}

static void the_preferred_language_rapid_has_wins(void **state)
{
    (void)state;
    /* Order when q is equal; q first. */
    assert_string_equal(trv_rapid_language("fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5"),
                        "fr-FR");
    assert_string_equal(trv_rapid_language("en;q=0.5, it-IT"), "it-IT");
    assert_string_equal(trv_rapid_language("  da ;q=0.3 ,sv;q=0.4"), "sv-SE");
    /* A language Rapid has not is passed over for the next. */
    assert_string_equal(trv_rapid_language("gsw-CH, de;q=0.8"), "de-DE");
    assert_string_equal(trv_rapid_language("cy, ga;q=0.9, nl;q=0.1"), "nl-NL");
    /* q=0 is "not acceptable". */
    assert_string_equal(trv_rapid_language("fr;q=0, it;q=0.2"), "it-IT");
    assert_string_equal(trv_rapid_language("fr;q=0.000"), "en-US");
}

static void none_that_fits_is_en_us(void **state)
{
    (void)state;
    assert_string_equal(trv_rapid_language(NULL), "en-US");
    assert_string_equal(trv_rapid_language(""), "en-US");
    assert_string_equal(trv_rapid_language("*"), "en-US");
    assert_string_equal(trv_rapid_language("xx-YY, cy"), "en-US");
    assert_string_equal(trv_rapid_language(",,, ;q=1"), "en-US");
    /* Malformed qvalues are not acceptable, never a crash. */
    assert_string_equal(trv_rapid_language("fr;q=2, de;q=abc, it;q=0.1234"), "en-US");
    assert_string_equal(trv_rapid_language("i-klingon, x-private"), "en-US");
    assert_string_equal(trv_rapid_language("abcdefghijklmnopqrstuvwxyzabcdefghijklmnop-fr"),
                        "en-US");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_tag_rapid_has_is_taken_as_it_is),
        cmocka_unit_test(a_language_alone_is_its_own_country),
        cmocka_unit_test(the_preferred_language_rapid_has_wins),
        cmocka_unit_test(none_that_fits_is_en_us),
    };
    return UNIT_RUN(tests);
}
