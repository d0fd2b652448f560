/* The shared primitives (core/crypt.h): digests and HMAC-SHA256 match the
 * published test vectors, an HMAC of parts is the HMAC of their
 * concatenation (however long), a thread's kept key never signs for
 * another key, base64 and base64url round-trip and the
 * strict decoders refuse what is not theirs, equal compares bytes, and a
 * sealed text opens only with its key and associated data. */
#include "unit.h"

#include <apr_strings.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "core/crypt.h"

static void digests_match_the_published_vectors(void **state)
{
    apr_pool_t *p = *state;
    /* FIPS 180-2: "abc" (trv_crypt_sha256_hex: test_keys). */
    assert_string_equal(trv_crypt_sha_hex(p, "abc", 256),
                        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    assert_string_equal(trv_crypt_sha_hex(p, "abc", 512),
                        "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
                        "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f");
    assert_string_equal(trv_crypt_hex(p, (const unsigned char *)"\x00\x0f\xf0\xff", 4),
                        "000ff0ff");
}

static void hmac_matches_rfc_4231(void **state)
{
    apr_pool_t *p = *state;
    unsigned char mac[TRV_CRYPT_SHA256_LEN], parts_mac[TRV_CRYPT_SHA256_LEN];
    const char *msg = "what do ya want for nothing?";
    const void *parts[3] = {"what do ", "ya want ", "for nothing?"};
    apr_size_t lens[3] = {8, 8, 12};
    char big[3000];
    const void *big_parts[2] = {big, big + 1000};
    apr_size_t big_lens[2] = {1000, sizeof(big) - 1000};

    /* RFC 4231, test case 2. */
    assert_int_equal(trv_crypt_hmac((const unsigned char *)"Jefe", 4, msg, strlen(msg), mac), 0);
    assert_string_equal(trv_crypt_hex(p, mac, sizeof(mac)),
                        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    assert_int_equal(trv_crypt_hmac_parts((const unsigned char *)"Jefe", 4, 3, parts, lens,
                                          parts_mac), 0);
    assert_memory_equal(mac, parts_mac, sizeof(mac));
    /* Parts of any length. */
    memset(big, 'x', sizeof(big));
    assert_int_equal(trv_crypt_hmac((const unsigned char *)"k", 1, big, sizeof(big), mac), 0);
    assert_int_equal(trv_crypt_hmac_parts((const unsigned char *)"k", 1, 2, big_parts, big_lens,
                                          parts_mac), 0);
    assert_memory_equal(mac, parts_mac, sizeof(mac));
}

/* The HMAC is made from the digest (the pads by hand), so the key's
 * lengths around the block (64 bytes) are where it could go wrong. */
static void hmac_keys_of_every_length_match_openssl(void **state)
{
    apr_pool_t *p = *state;
    unsigned char key[200], mac[TRV_CRYPT_SHA256_LEN], want[TRV_CRYPT_SHA256_LEN];
    const char *msg = "Test Using Larger Than Block-Size Key - Hash Key First";
    unsigned int n = 0;
    size_t klen;
    /* RFC 4231, test case 6: a 131-byte key is hashed first. */
    memset(key, 0xaa, 131);
    assert_int_equal(trv_crypt_hmac(key, 131, msg, strlen(msg), mac), 0);
    assert_string_equal(trv_crypt_hex(p, mac, sizeof(mac)),
                        "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
    for (klen = 0; klen <= sizeof(key); klen++) {
        key[klen ? klen - 1 : 0] = (unsigned char)(klen * 7 + 1);
        assert_int_equal(trv_crypt_hmac(key, klen, msg, klen % 40, mac), 0);
        assert_non_null(HMAC(EVP_sha256(), key, (int)klen, (const unsigned char *)msg,
                             klen % 40, want, &n));
        assert_memory_equal(mac, want, sizeof(mac));
    }
}

/* One MAC checked against OpenSSL's HMAC(). */
static void mac_is_openssl(const unsigned char *key, size_t klen, const char *msg, size_t mlen)
{
    unsigned char mac[TRV_CRYPT_SHA256_LEN], want[TRV_CRYPT_SHA256_LEN];
    unsigned int n = 0;
    assert_int_equal(trv_crypt_hmac(key, klen, msg, mlen, mac), 0);
    assert_non_null(HMAC(EVP_sha256(), key, (int)klen, (const unsigned char *)msg, mlen, want,
                         &n));
    assert_memory_equal(mac, want, sizeof(mac));
}

/* A thread keeps its last key's padded blocks: a key that differs in its
 * last byte, a key that is another's prefix, and a key met again must
 * each give their own MAC, however they alternate. */
static void hmac_kept_keys_match_openssl(void **state)
{
    unsigned char a[32], b[32];
    const char *msg = "1|SUPPLIER_A|1|0|0|1795000000|off_0000AbCdEfGhIjKlMnOpQr";
    static const int order[] = {0, 0, 1, 0, 2, 0, 1, 1, 2, 2, 0, 3, 0};
    size_t i;
    (void)state;
    for (i = 0; i < sizeof(a); i++) {
        a[i] = (unsigned char)(i * 13 + 5);
    }
    memcpy(b, a, sizeof(b));
    b[31] ^= 1;
    for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
        switch (order[i]) {
        case 0: mac_is_openssl(a, 32, msg, strlen(msg) - i); break;
        case 1: mac_is_openssl(b, 32, msg, strlen(msg) - i); break;
        case 2: mac_is_openssl(a, 31, msg, strlen(msg) - i); break;   /* a's prefix */
        default: mac_is_openssl(a, 0, msg, strlen(msg) - i);          /* no key */
        }
    }
}

static void *sign_with_own_key(void *arg)
{
    unsigned char key[32];
    char msg[64];
    int i;
    memset(key, (int)(apr_size_t)arg, sizeof(key));
    for (i = 0; i < 300; i++) {
        int n = snprintf(msg, sizeof(msg), "message %d of thread %d", i, (int)(apr_size_t)arg);
        mac_is_openssl(key, sizeof(key), msg, (size_t)n);
    }
    return NULL;
}

/* Threads each keep their own key's state (httpd's workers sign at once
 * with the server's key, the sandbox's with its own). */
static void hmac_threads_keep_their_own_keys(void **state)
{
    pthread_t t[4];
    apr_size_t i;
    (void)state;
    for (i = 0; i < 4; i++) {
        assert_int_equal(pthread_create(&t[i], NULL, sign_with_own_key, (void *)(i + 1)), 0);
    }
    for (i = 0; i < 4; i++) {
        assert_int_equal(pthread_join(t[i], NULL), 0);
    }
}

static void equal_compares_bytes(void **state)
{
    (void)state;
    assert_true(trv_crypt_equal("abcdef", "abcdef", 6));
    assert_false(trv_crypt_equal("abcdef", "abcdeg", 6));
    assert_true(trv_crypt_equal("abcdef", "abcdeg", 5));
}

static void base64_round_trips_and_refuses_garbage(void **state)
{
    apr_pool_t *p = *state;
    const unsigned char raw[] = {0xfb, 0xff, 0xbf, 0x00, 0x41};
    apr_size_t n = 0, len;
    unsigned char *back;

    assert_string_equal(trv_crypt_b64(p, raw, sizeof(raw)), "+/+/AEE=");
    back = trv_crypt_b64_decode(p, "+/+/AEE=", &n);
    assert_non_null(back);
    assert_int_equal(n, sizeof(raw));
    assert_memory_equal(back, raw, sizeof(raw));
    /* Strict: padded to a multiple of 4, the standard alphabet only. */
    assert_null(trv_crypt_b64_decode(p, "+/+/AEE", &n));
    assert_null(trv_crypt_b64_decode(p, "-_-_AEE=", &n));
    assert_null(trv_crypt_b64_decode(p, "+/+/A=E=", &n));
    assert_null(trv_crypt_b64_decode(p, "", &n));
    assert_null(trv_crypt_b64_decode(p, NULL, &n));

    /* base64url: - and _ for + and /, no padding. */
    assert_string_equal(trv_crypt_b64url(p, raw, sizeof(raw)), "-_-_AEE");
    for (len = 0; len <= sizeof(raw); len++) {
        back = trv_crypt_b64url_decode(p, trv_crypt_b64url(p, raw, len), &n);
        assert_non_null(back);
        assert_int_equal(n, len);
        assert_memory_equal(back, raw, len);
        assert_int_equal(back[n], '\0');
    }
    assert_null(trv_crypt_b64url_decode(p, "+/+/AEE", &n));
    assert_null(trv_crypt_b64url_decode(p, "-_-_AEE=", &n));
    assert_null(trv_crypt_b64url_decode(p, "ab cd", &n));
}

/* base64url is base64 (APR's encoder) with - and _ for + and / and no
 * padding, for every length up to 300 and random bytes. */
static void b64url_is_base64_translated(void **state)
{
    apr_pool_t *p = *state;
    unsigned long long r = 0x853c49e6748fea9bULL;
    unsigned char data[300];
    apr_size_t len, i;
    int round;
    for (round = 0; round < 20; round++) {
        for (i = 0; i < sizeof(data); i++) {
            data[i] = (unsigned char)unit_rnd(&r);
        }
        for (len = 0; len <= sizeof(data); len++) {
            char *want = trv_crypt_b64(p, data, len), *s, *d;
            for (s = d = want; *s; s++) {
                if (*s != '=') {
                    *d++ = *s == '+' ? '-' : *s == '/' ? '_' : *s;
                }
            }
            *d = '\0';
            assert_string_equal(trv_crypt_b64url(p, data, len), want);
        }
    }
}

static void a_sealed_text_opens_only_with_its_key_and_aad(void **state)
{
    apr_pool_t *p = *state;
    unsigned char key[32], other[32];
    const char *sealed = NULL, *again = NULL, *plain = NULL;

    memset(key, 7, sizeof(key));
    memset(other, 8, sizeof(other));
    assert_int_equal(trv_crypt_seal(p, key, "whs_1", "the secret", &sealed), APR_SUCCESS);
    assert_int_equal(strncmp(sealed, "v1:", 3), 0);
    assert_null(strstr(sealed, "secret"));
    /* A fresh nonce each time. */
    assert_int_equal(trv_crypt_seal(p, key, "whs_1", "the secret", &again), APR_SUCCESS);
    assert_string_not_equal(sealed, again);
    assert_int_equal(trv_crypt_open(p, key, "whs_1", sealed, &plain), APR_SUCCESS);
    assert_string_equal(plain, "the secret");
    assert_int_equal(trv_crypt_open(p, other, "whs_1", sealed, &plain), APR_EINVAL);
    assert_int_equal(trv_crypt_open(p, key, "whs_2", sealed, &plain), APR_EINVAL);
    assert_int_equal(trv_crypt_open(p, key, "whs_1", sealed + 3, &plain), APR_EINVAL);
    assert_int_equal(trv_crypt_open(p, key, "whs_1", "v1:AAAA", &plain), APR_EINVAL);
    assert_int_equal(trv_crypt_open(p, key, "whs_1", NULL, &plain), APR_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(digests_match_the_published_vectors, pool_setup,
                                        pool_teardown),
        cmocka_unit_test_setup_teardown(hmac_matches_rfc_4231, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(hmac_keys_of_every_length_match_openssl, pool_setup,
                                        pool_teardown),
        cmocka_unit_test(hmac_kept_keys_match_openssl),
        cmocka_unit_test(hmac_threads_keep_their_own_keys),
        cmocka_unit_test_setup_teardown(equal_compares_bytes, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(b64url_is_base64_translated, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(base64_round_trips_and_refuses_garbage, pool_setup,
                                        pool_teardown),
        cmocka_unit_test_setup_teardown(a_sealed_text_opens_only_with_its_key_and_aad,
                                        pool_setup, pool_teardown),
    };
    return UNIT_RUN(tests);
}
