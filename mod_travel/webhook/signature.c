#include "signature.h"
#include "secret.h"
#include "signing_key.h"

#include <apr_base64.h>
#include <apr_strings.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdio.h>
#include <string.h>

const char *trv_webhook_sign1(apr_pool_t *p, const char *secret, const char *msg_id,
                              long long timestamp, const char *body,
                              apr_size_t body_len)
{
    const unsigned char *key;
    apr_size_t key_len;
    const char *head;
    unsigned char mac[EVP_MAX_MD_SIZE];
    unsigned int mac_len = 0;
    char *out;
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
    if (!HMAC(EVP_sha256(), key, (int)key_len, msg, msg_len, mac, &mac_len)) {
        return NULL;
    }
    out = apr_palloc(p, (apr_size_t)apr_base64_encode_len((int)mac_len) + 3);
    memcpy(out, "v1,", 3);
    apr_base64_encode_binary(out + 3, mac, (int)mac_len);
    return out;
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
    static const char hex[] = "0123456789abcdef";
    const char *head = apr_psprintf(p, "%" APR_INT64_T_FMT ".", (apr_int64_t)timestamp);
    apr_size_t head_len = strlen(head), msg_len = head_len + body_len;
    unsigned char mac[EVP_MAX_MD_SIZE], *msg = apr_palloc(p, msg_len + 1);
    unsigned int mac_len = 0, i;
    char *out, *o;

    memcpy(msg, head, head_len);
    memcpy(msg + head_len, body, body_len);
    if (!secret || !HMAC(EVP_sha256(), secret, (int)strlen(secret), msg, msg_len, mac,
                         &mac_len)) {
        return NULL;
    }
    out = apr_palloc(p, head_len + 2 * mac_len + 8);
    o = out + sprintf(out, "t=%" APR_INT64_T_FMT ",v1=", (apr_int64_t)timestamp);
    for (i = 0; i < mac_len; i++) {
        *o++ = hex[mac[i] >> 4];
        *o++ = hex[mac[i] & 15];
    }
    *o = '\0';
    return out;
}
