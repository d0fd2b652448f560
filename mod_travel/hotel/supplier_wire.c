/* What the hotel adapters share: the call with its outcome logged, money
 * from the wire's decimal strings, request signatures' digests and query
 * strings. */
#include "supplier.h"
#include "core/json.h"
#include "core/log.h"
#include "core/money.h"

#include <apr_strings.h>
#include <ctype.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>

trv_up_status trv_hotel_call(trv_hotel_ctx *ctx, const char *method, const char *path,
                             const apr_table_t *auth, const json_t *body,
                             trv_up_result *res, trv_hotel_err *err)
{
    trv_up_status st = trv_upstream_call_h(ctx->env, ctx->pool, ctx->up, method, path, auth,
                                           body, ctx->request_id, NULL, res);
    if (st != TRV_UP_OK) {
        int level = (st == TRV_UP_REJECTED || st == TRV_UP_NOT_FOUND) ? TRV_LOG_INFO
                                                                       : TRV_LOG_WARNING;
        err->code = res->code ? res->code : trv_up_status_name(st);
        err->message = res->message ? res->message : "the supplier did not answer";
        trv_log_msg(&ctx->env->log, level, ctx->request_id,
                    TRVLOGNO(1410) "hotel %s %s %s: %s (HTTP %d, %s) after %" APR_TIME_T_FMT
                    " ms", ctx->up->name, method, path, trv_up_status_name(st),
                    res->http_status, err->code, apr_time_as_msec(res->elapsed));
    }
    return st;
}

trv_up_status trv_hotel_bad(trv_hotel_ctx *ctx, trv_hotel_err *err, const char *what)
{
    err->code = "bad_response";
    err->message = apr_psprintf(ctx->pool, "hotel %s answered without %s", ctx->up->name, what);
    trv_log_msg(&ctx->env->log, TRV_LOG_WARNING, ctx->request_id, TRVLOGNO(1411) "%s",
                err->message);
    return TRV_UP_BAD_RESPONSE;
}

int trv_hotel_minor(const json_t *amount, const char *currency, apr_int64_t *minor)
{
    int exp = currency ? trv_currency_exponent(currency) : -1;
    trv_money m;
    if (exp < 0) {
        return -1;
    }
    if (json_is_string(amount)) {
        return trv_money_parse_decimal(json_string_value(amount), exp, minor) == APR_SUCCESS
                   ? 0 : -1;
    }
    if (json_is_number(amount) && trv_money_from_json_number(amount, currency, &m) == APR_SUCCESS) {
        *minor = m.minor;
        return 0;
    }
    return -1;
}

const char *trv_hotel_sha_hex(apr_pool_t *p, const char *s, int bits)
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0, i;
    char *out;
    EVP_Digest(s, strlen(s), md, &len, bits == 512 ? EVP_sha512() : EVP_sha256(), NULL);
    out = apr_palloc(p, len * 2 + 1);
    for (i = 0; i < len; i++) {
        snprintf(out + i * 2, 3, "%02x", md[i]);
    }
    out[len * 2] = '\0';
    return out;
}

const char *trv_hotel_qs(apr_pool_t *p, const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    char *out = apr_palloc(p, strlen(s) * 3 + 1), *o = out;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
            *o++ = (char)c;
        }
        else {
            *o++ = '%';
            *o++ = hex[c >> 4];
            *o++ = hex[c & 15];
        }
    }
    *o = '\0';
    return out;
}

const char *trv_hotel_num(apr_pool_t *p, double v)
{
    return apr_psprintf(p, "%.6f", v);
}
