#include "signature.h"
#include "secret.h"
#include "signing_key.h"

#include "core/crypt.h"

#include <apr_strings.h>
#include <string.h>

const char *trv_webhook_sign1(apr_pool_t *p, const char *secret, const char *msg_id,
                              long long timestamp, const char *body,
                              apr_size_t body_len)
{
    const unsigned char *key;
    apr_size_t key_len;
    const char *head;
    unsigned char mac[TRV_CRYPT_SHA256_LEN];
    unsigned char *msg;
    apr_size_t msg_len;

    /* The signed content: "<id>.<timestamp>.<raw body>". */
    head = apr_psprintf(p, "%s.%" APR_INT64_T_FMT ".", msg_id, (apr_int64_t)timestamp);
    msg_len = strlen(head) + body_len;
    msg = apr_palloc(p, msg_len + 1);
    memcpy(msg, head, strlen(head));
    memcpy(msg + strlen(head), body, body_len);
    /* A v1a subscription's key is an Ed25519 private key (signing_key.h). */
    if (secret && strncmp(secret, TRV_WHSK_PREFIX, strlen(TRV_WHSK_PREFIX)) == 0) {
        return trv_whsk_sign(p, secret, msg, msg_len);
    }
    if (trv_whsec_key(p, secret, &key, &key_len) != APR_SUCCESS) {
        return NULL;
    }
    if (trv_crypt_hmac(key, key_len, msg, msg_len, mac) != 0) {
        return NULL;
    }
    return apr_pstrcat(p, "v1,", trv_crypt_b64(p, mac, sizeof(mac)), NULL);
}

const char *trv_webhook_signature(apr_pool_t *p, const apr_array_header_t *secrets,
                                  const char *msg_id, long long timestamp,
                                  const char *body, apr_size_t body_len)
{
    const char *out = NULL;
    int i;
    if (!secrets || secrets->nelts == 0) {
        return NULL;
    }
    for (i = 0; i < secrets->nelts; i++) {
        const char *one = trv_webhook_sign1(p, APR_ARRAY_IDX(secrets, i, const char *),
                                            msg_id, timestamp, body, body_len);
        if (!one) {
            return NULL;
        }
        out = out ? apr_pstrcat(p, out, " ", one, NULL) : one;
    }
    return out;
}

const char *trv_webhook_sign_service(apr_pool_t *p, const char *secret, long long timestamp,
                                     const char *body, apr_size_t body_len)
{
    const char *head = apr_psprintf(p, "%" APR_INT64_T_FMT ".", (apr_int64_t)timestamp);
    const void *parts[2] = {head, body};
    apr_size_t lens[2] = {strlen(head), body_len};
    unsigned char mac[TRV_CRYPT_SHA256_LEN];

    if (!secret || trv_crypt_hmac_parts((const unsigned char *)secret, strlen(secret), 2, parts,
                                        lens, mac) != 0) {
        return NULL;
    }
    return apr_psprintf(p, "t=%" APR_INT64_T_FMT ",v1=%s", (apr_int64_t)timestamp,
                        trv_crypt_hex(p, mac, sizeof(mac)));
}
