/* The sandbox's pieces of answers written as text (sandbox/jtext.c, over
 * core/json_text.c, whose own pieces test_json_write checks against
 * json_dumps) must write what the trees they replace were dumped as:
 * money as LiteAPI's numbers against trv_money_amount_json, amounts and
 * instants against the pool functions as they were, in nine currencies
 * and over the years 1970-9999 and past them; and the tokens' tags, made
 * from the digest now, equal to OpenSSL's HMAC-SHA256. */
#include "unit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <apr_strings.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "core/clock.h"
#include "core/json.h"
#include "core/money.h"
#include "core/json_text.h"
#include "sandbox/jtext.h"
#include "sandbox/sbx_api.h"
#include "sandbox/token.h"

static unsigned long long seed = 0x9E3779B97F4A7C15ull;

static unsigned long long rnd(void)
{
    return unit_rnd(&seed);
}

/* The pool functions as they were before they wrote into a buffer. */
static char *amount_before(apr_pool_t *p, apr_int64_t minor, const char *currency)
{
    int exp = trv_currency_exponent(currency);
    char *s = trv_money_decimal(p, minor, exp < 0 ? 2 : exp);
    if (exp > 0) {
        const char *dot = strchr(s, '.');
        int have = dot ? (int)strlen(dot + 1) : 0;
        if (!dot) {
            s = apr_pstrcat(p, s, ".", NULL);
        }
        while (have++ < exp) {
            s = apr_pstrcat(p, s, "0", NULL);
        }
    }
    return s;
}

static void money_and_instants_are_written_as_before(void **state)
{
    static const char *const currencies[] = {"EUR", "USD", "KWD", "BHD", "JPY", "KRW",
                                             "ISK", "CLP", "XXX", NULL};
    apr_pool_t *p = *state;
    const char *const *c;
    int i;
    for (c = currencies; *c; c++) {
        for (i = 0; i < 20000; i++) {
            apr_int64_t v = i < 4001 ? i - 2000
                          : (apr_int64_t)(rnd() % 2000000000000001ull) - 1000000000000000LL;
            char buf[SBX_TEXT_LEN];
            trv_jtext t;
            json_t *num = trv_money_amount_json(v, trv_currency_exponent(*c));
            char *want = json_dumps(num, TRV_JSON_DUMP_FLAGS | JSON_ENCODE_ANY);
            sbx_amount_into(p, buf, v, *c);
            assert_string_equal(buf, amount_before(p, v, *c));
            assert_string_equal(sbx_amount(p, v, *c), buf);
            trv_jtext_init(&t, p, 16);
            sbx_jt_money_number(&t, v, *c);
            assert_string_equal(trv_jtext_done(&t, NULL), want);
            trv_jtext_init(&t, p, 16);
            trv_jtext_arr(&t);
            sbx_jt_amount(&t, v, *c);
            sbx_jt_instant(&t, (v < 0 ? -v : v) % 253402300800LL);
            trv_jtext_end(&t);
            assert_string_equal(trv_jtext_done(&t, NULL),
                                apr_psprintf(p, "[\"%s\",\"%s\"]", buf,
                                             sbx_instant(p, (v < 0 ? -v : v) % 253402300800LL)));
            free(want);
            json_decref(num);
        }
    }
    for (i = 0; i < 200000; i++) {
        apr_int64_t s = i < 100 ? (apr_int64_t)i * 86399 - 4000
                      : i < 200 ? (apr_int64_t)253402300800LL - 150 + (i - 100) * 2
                      : (apr_int64_t)(rnd() % 253402300800ull);
        char buf[SBX_TEXT_LEN];
        apr_size_t n = sbx_instant_into(p, buf, s);
        assert_string_equal(buf, trv_time_format(p, apr_time_from_sec(s)));
        assert_int_equal(n, strlen(buf));
    }
}

static void token_tags_are_hmac_sha256(void **state)
{
    apr_pool_t *p = *state;
    int i;
    for (i = 0; i < 3000; i++) {
        int klen = (int)(rnd() % 160), mlen = 1 + (int)(rnd() % 400), k;
        char *key = apr_palloc(p, (apr_size_t)klen + 1), *msg = apr_palloc(p, (apr_size_t)mlen + 1);
        unsigned char mac[EVP_MAX_MD_SIZE], *raw = apr_palloc(p, (apr_size_t)mlen + 10);
        unsigned int n = 0;
        for (k = 0; k < klen; k++) {
            key[k] = (char)(1 + rnd() % 255);
        }
        key[klen] = '\0';
        for (k = 0; k < mlen; k++) {
            msg[k] = (char)(32 + rnd() % 95);
        }
        msg[mlen] = '\0';
        HMAC(EVP_sha256(), key, klen, (const unsigned char *)msg, (size_t)mlen, mac, &n);
        memcpy(raw, msg, (size_t)mlen);
        memcpy(raw + mlen, mac, 10);
        assert_string_equal(sbx_token_seal(p, key, msg), sbx_b64url(p, raw, (apr_size_t)mlen + 10));
        assert_string_equal(sbx_token_open(p, key, sbx_token_seal(p, key, msg)), msg);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(money_and_instants_are_written_as_before, pool_setup,
                                        pool_teardown),
        cmocka_unit_test_setup_teardown(token_tags_are_hmac_sha256, pool_setup, pool_teardown),
    };
    return UNIT_RUN(tests);
}
