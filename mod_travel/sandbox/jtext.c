/* The sandbox's pieces of JSON text; see jtext.h. */
#include "jtext.h"
#include "sbx_api.h"
#include "core/json_write.h"
#include "core/money.h"

#include <string.h>

void sbx_jt_amount(trv_jtext *t, apr_int64_t minor, const char *currency)
{
    char b[SBX_TEXT_LEN + 2];
    apr_size_t n = sbx_amount_into(t->p, b + 1, minor, currency);
    b[0] = '"';
    b[n + 1] = '"';
    trv_jtext_raw(t, b, n + 2);
}

void sbx_jt_kamount(trv_jtext *t, const char *key, apr_int64_t minor, const char *currency)
{
    trv_jtext_key(t, key);
    sbx_jt_amount(t, minor, currency);
}

void sbx_jt_money_number(trv_jtext *t, apr_int64_t minor, const char *currency)
{
    /* trv_money_amount_json's value; a code without an exponent keeps its
     * minor units whole. */
    int exp = trv_currency_exponent(currency);
    if (exp < 0) {
        trv_jtext_int(t, minor);
        return;
    }
    trv_money_amount_write(t, minor, exp);
}

void sbx_jt_instant(trv_jtext *t, apr_int64_t unix_secs)
{
    char b[SBX_TEXT_LEN + 2];
    apr_size_t n = sbx_instant_into(t->p, b + 1, unix_secs);
    b[0] = '"';
    b[n + 1] = '"';
    trv_jtext_raw(t, b, n + 2);
}

void sbx_jt_json(trv_jtext *t, const json_t *v)
{
    apr_size_t n = 0;
    char *s = v ? trv_json_write(t->p, v, &n) : NULL;
    if (s) {
        trv_jtext_raw(t, s, n);
    }
    else {
        t->bad = 1;
    }
}

json_t *sbx_jt_tree(trv_jtext *t)
{
    apr_size_t n;
    const char *s = trv_jtext_done(t, &n);
    return s ? json_loadb(s, n, 0, NULL) : NULL;
}

void sbx_jt_send(trv_req *req, trv_resp *resp, int status, trv_jtext *t)
{
    apr_size_t n;
    const char *s = trv_jtext_done(t, &n);
    if (!s) {
        sbx_error(req, resp, 500, "internal_error", "The sandbox could not write its answer");
        return;
    }
    trv_ok_raw(req, resp, status, "application/json", s, n);
}
