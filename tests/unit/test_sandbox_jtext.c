/* The sandbox's answers written as text (sandbox/jtext.c) must be the
 * bytes json_dumps writes for the tree the same calls describe, as the
 * answers were before (built as trees and dumped): random documents of
 * every kind of piece (keys and strings with every byte Jansson escapes
 * and multi-byte UTF-8, integers to the 64-bit ends, reals of every
 * magnitude, booleans, null, nesting), money as LiteAPI's numbers against
 * trv_money_amount_json, amounts and instants against the pool functions
 * they replace, text that is not UTF-8 refused; and the tokens' tags,
 * made from the digest now, equal to OpenSSL's HMAC-SHA256. */
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
#include "sandbox/jtext.h"
#include "sandbox/sbx_api.h"
#include "sandbox/token.h"

static unsigned long long seed = 0x9E3779B97F4A7C15ull;

static unsigned long long rnd(void)
{
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return seed;
}

/* Up to 10 pieces: ASCII, bytes Jansson escapes, UTF-8 of 2 to 4 bytes. */
static const char *random_text(apr_pool_t *p)
{
    static const char *const pieces[] = {"a", "Zz", " ", "\"", "\\", "/", "\n", "\t", "\b",
                                         "\f", "\r", "\x01", "\x1f", "\x7f", "\xc3\xa9",
                                         "\xe2\x82\xac", "\xf0\x9f\x8f\xa8", "12", ":", ","};
    int n = (int)(rnd() % 11), i;
    char *s = apr_pstrdup(p, "");
    for (i = 0; i < n; i++) {
        s = apr_pstrcat(p, s, pieces[rnd() % (sizeof(pieces) / sizeof(pieces[0]))], NULL);
    }
    return s;
}

static double random_real(void)
{
    switch (rnd() % 4) {
    case 0: return (double)(long long)(rnd() % 2000001 - 1000000) / 100.0; /* money-like */
    case 1: return ldexp((double)(rnd() >> 11), (int)(rnd() % 200) - 100) * (rnd() % 2 ? 1 : -1);
    case 2: return (double)(long long)(rnd() % 100000);                   /* whole */
    default: return (double)(rnd() % 1000000) / 1e6 * 1e-7;              /* small */
    }
}

/* A value written both ways: into t, and returned as a tree. */
static json_t *random_value(apr_pool_t *p, sbx_jt *t, int depth)
{
    int kind = (int)(rnd() % (depth < 4 ? 8 : 6)), n, i;
    switch (kind) {
    case 0: {
        const char *s = random_text(p);
        sbx_jt_str(t, s);
        return json_string(s);
    }
    case 1: {
        apr_int64_t v = rnd() % 3 == 0 ? (apr_int64_t)(rnd()) : (apr_int64_t)(rnd() % 2001) - 1000;
        sbx_jt_int(t, v);
        return json_integer((json_int_t)v);
    }
    case 2: {
        double d = random_real();
        sbx_jt_real(t, d);
        return json_real(d);
    }
    case 3: {
        int b = (int)(rnd() % 2);
        sbx_jt_bool(t, b);
        return json_boolean(b);
    }
    case 4:
        sbx_jt_null(t);
        return json_null();
    case 5:
        sbx_jt_str(t, NULL);   /* json_pack's "s?" of NULL */
        return json_null();
    case 6: {
        json_t *a = json_array();
        sbx_jt_open(t, '[');
        for (n = (int)(rnd() % 5), i = 0; i < n; i++) {
            json_array_append_new(a, random_value(p, t, depth + 1));
        }
        sbx_jt_close(t, ']');
        return a;
    }
    default: {
        json_t *o = json_object();
        sbx_jt_open(t, '{');
        for (n = (int)(rnd() % 5), i = 0; i < n; i++) {
            /* Distinct keys: an object written twice under one key is not
             * what these calls describe. */
            const char *k = apr_psprintf(p, "%d%s", i, random_text(p));
            sbx_jt_key(t, k);
            json_object_set_new(o, k, random_value(p, t, depth + 1));
        }
        sbx_jt_close(t, '}');
        return o;
    }
    }
}

static void documents_are_written_as_json_dumps_writes_their_tree(void **state)
{
    apr_pool_t *p = *state;
    int i;
    for (i = 0; i < 5000; i++) {
        sbx_jt t;
        json_t *tree;
        char *want;
        const char *got;
        apr_size_t len;
        sbx_jt_init(&t, p, 16);
        sbx_jt_open(&t, '{');
        sbx_jt_key(&t, "doc");
        tree = json_pack("{s:o}", "doc", random_value(p, &t, 0));
        sbx_jt_close(&t, '}');
        want = json_dumps(tree, TRV_JSON_DUMP_FLAGS);
        got = sbx_jt_text(&t, &len);
        assert_non_null(got);
        assert_string_equal(got, want);
        assert_int_equal(len, strlen(want));
        free(want);
        json_decref(tree);
    }
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
            sbx_jt t;
            json_t *num = trv_money_amount_json(v, trv_currency_exponent(*c));
            char *want = json_dumps(num, TRV_JSON_DUMP_FLAGS | JSON_ENCODE_ANY);
            sbx_amount_into(p, buf, v, *c);
            assert_string_equal(buf, amount_before(p, v, *c));
            assert_string_equal(sbx_amount(p, v, *c), buf);
            sbx_jt_init(&t, p, 16);
            sbx_jt_money_number(&t, v, *c);
            assert_string_equal(sbx_jt_text(&t, NULL), want);
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

static void text_that_is_not_utf8_is_refused(void **state)
{
    apr_pool_t *p = *state;
    sbx_jt t;
    sbx_jt_init(&t, p, 16);
    sbx_jt_open(&t, '[');
    sbx_jt_str(&t, "ok");
    sbx_jt_str(&t, "\xc3(");
    sbx_jt_close(&t, ']');
    assert_null(sbx_jt_text(&t, NULL));
    assert_null(sbx_jt_tree(&t));
    sbx_jt_init(&t, p, 16);
    sbx_jt_open(&t, '{');
    sbx_jt_kstr(&t, "\xff", "v");
    sbx_jt_close(&t, '}');
    assert_null(sbx_jt_text(&t, NULL));
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
        cmocka_unit_test_setup_teardown(documents_are_written_as_json_dumps_writes_their_tree,
                                        pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(money_and_instants_are_written_as_before, pool_setup,
                                        pool_teardown),
        cmocka_unit_test_setup_teardown(text_that_is_not_utf8_is_refused, pool_setup,
                                        pool_teardown),
        cmocka_unit_test_setup_teardown(token_tags_are_hmac_sha256, pool_setup, pool_teardown),
    };
    return UNIT_RUN(tests);
}
