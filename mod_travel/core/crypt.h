/* The cryptographic primitives every domain builds on, over OpenSSL and
 * APR: digests and HMAC-SHA256, base64 (standard, and base64url without
 * padding for tokens in URLs), constant-time comparison and AES-256-GCM
 * sealing. What is signed or sealed, and how it is framed, stays with its
 * domain (flight/offer_ref.c, hotel/seal.c, dashboard/csrf.c,
 * webhook/secret.c, webhook/signature.c): this file knows no purpose. */
#ifndef TRV_CRYPT_H
#define TRV_CRYPT_H

#include <apr_pools.h>

#define TRV_CRYPT_SHA256_LEN 32

/* Lower-case hex of len bytes. */
char *trv_crypt_hex(apr_pool_t *p, const unsigned char *data, apr_size_t len);

/* Lower-case hex of the SHA-256 (bits 256) or SHA-512 (bits 512) of a
 * text (supplier request signatures, cursors). */
char *trv_crypt_sha_hex(apr_pool_t *p, const char *text, int bits);

/* Lower-case hex of the SHA-256 of len bytes (API key hashes, request
 * fingerprints). */
char *trv_crypt_sha256_hex(apr_pool_t *p, const char *s, apr_size_t len);

/* HMAC-SHA256 of the concatenation of n parts (parts[i], lens[i] bytes):
 * the callers frame their messages (NUL between fields, "id.ts.body")
 * without copying them first. 0 on success, -1 when OpenSSL failed. */
int trv_crypt_hmac_parts(const unsigned char *key, apr_size_t key_len, int n,
                         const void *const *parts, const apr_size_t *lens,
                         unsigned char mac[TRV_CRYPT_SHA256_LEN]);

/* trv_crypt_hmac_parts with one part. */
int trv_crypt_hmac(const unsigned char *key, apr_size_t key_len, const void *msg,
                   apr_size_t msg_len, unsigned char mac[TRV_CRYPT_SHA256_LEN]);

/* Whether a and b (len bytes each) are equal, in time independent of
 * where they differ. */
int trv_crypt_equal(const void *a, const void *b, apr_size_t len);

/* Standard base64, padded. */
char *trv_crypt_b64(apr_pool_t *p, const unsigned char *data, apr_size_t len);

/* Strict standard base64 (padded, nothing outside the alphabet: APR's
 * decoder skips what it does not know, which would accept garbage); NULL
 * when s is not. The result has a NUL after its *len bytes. */
unsigned char *trv_crypt_b64_decode(apr_pool_t *p, const char *s, apr_size_t *len);

/* base64url without padding. */
char *trv_crypt_b64url(apr_pool_t *p, const unsigned char *data, apr_size_t len);

/* The bytes of a base64url text without padding (only A-Z a-z 0-9 - _);
 * NULL when it has another character. The result has a NUL after its *len
 * bytes. Not canonical: base64 leaves spare bits in the last character,
 * which decoding ignores (compare the re-encoding when it matters). */
unsigned char *trv_crypt_b64url_decode(apr_pool_t *p, const char *s, apr_size_t *len);

/* Seals plain text with AES-256-GCM, a fresh random 12-byte nonce and aad
 * (binds the ciphertext to its owner, e.g. the subscription id):
 * "v1:" + base64(nonce | ciphertext | tag). */
apr_status_t trv_crypt_seal(apr_pool_t *p, const unsigned char key[32], const char *aad,
                            const char *plain, const char **sealed);

/* Opens a sealed text; APR_EINVAL when it is malformed, was sealed with
 * another key or aad, or was tampered with. */
apr_status_t trv_crypt_open(apr_pool_t *p, const unsigned char key[32], const char *aad,
                            const char *sealed, const char **plain);

#endif
