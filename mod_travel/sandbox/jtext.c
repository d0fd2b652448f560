/* Supplier answers written as JSON text; see jtext.h. */
#include "jtext.h"
#include "sbx_api.h"
#include "core/json.h"
#include "core/money.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sbx_jt_init(sbx_jt *t, apr_pool_t *p, apr_size_t cap)
{
    trv_jbuf_init(&t->b, p, cap);
    t->bad = 0;
}

/* The comma before a value or key that follows another in its container. */
static void sep(sbx_jt *t)
{
    if (t->b.len) {
        char c = t->b.buf[t->b.len - 1];
        if (c != '{' && c != '[' && c != ':') {
            trv_jbuf_put1(&t->b, ',');
        }
    }
}

void sbx_jt_open(sbx_jt *t, char c)
{
    sep(t);
    trv_jbuf_put1(&t->b, c);
}

void sbx_jt_close(sbx_jt *t, char c)
{
    trv_jbuf_put1(&t->b, c);
}

static void string(sbx_jt *t, const char *s)
{
    if (trv_jbuf_string(&t->b, s, strlen(s)) != 0) {
        t->bad = 1;
    }
}

void sbx_jt_key(sbx_jt *t, const char *k)
{
    sep(t);
    string(t, k);
    trv_jbuf_put1(&t->b, ':');
}

void sbx_jt_str(sbx_jt *t, const char *s)
{
    sep(t);
    if (s) {
        string(t, s);
    }
    else {
        trv_jbuf_put(&t->b, "null", 4);
    }
}

void sbx_jt_int(sbx_jt *t, apr_int64_t v)
{
    char b[32];
    int n = snprintf(b, sizeof(b), "%" APR_INT64_T_FMT, v);
    sep(t);
    trv_jbuf_put(&t->b, b, (apr_size_t)n);
}

void sbx_jt_bool(sbx_jt *t, int v)
{
    sep(t);
    trv_jbuf_put(&t->b, v ? "true" : "false", v ? 4 : 5);
}

void sbx_jt_null(sbx_jt *t)
{
    sep(t);
    trv_jbuf_put(&t->b, "null", 4);
}

void sbx_jt_real(sbx_jt *t, double d)
{
    sep(t);
    if (trv_jbuf_real(&t->b, d) != 0) {
        t->bad = 1;
    }
}

void sbx_jt_json(sbx_jt *t, const json_t *v)
{
    sep(t);
    if (!v || trv_jbuf_value(&t->b, v) != 0) {
        t->bad = 1;
    }
}

void sbx_jt_amount(sbx_jt *t, apr_int64_t minor, const char *currency)
{
    char b[SBX_TEXT_LEN + 2];
    apr_size_t n = sbx_amount_into(t->b.p, b + 1, minor, currency);
    b[0] = '"';
    b[n + 1] = '"';
    sep(t);
    trv_jbuf_put(&t->b, b, n + 2);
}

void sbx_jt_money_number(sbx_jt *t, apr_int64_t minor, const char *currency)
{
    /* trv_money_amount_json's value: an integer of whole units, else the
     * double nearest the decimal (its fixed form reads as the same
     * double), written as Jansson writes that real. */
    int exp = trv_currency_exponent(currency), k;
    apr_int64_t scale = 1;
    char b[SBX_TEXT_LEN];
    for (k = 0; k < exp; k++) {
        scale *= 10;
    }
    if (exp < 0 || minor % scale == 0) {
        sbx_jt_int(t, exp < 0 ? minor : minor / scale);
        return;
    }
    sbx_amount_into(t->b.p, b, minor, currency);
    sbx_jt_real(t, strtod(b, NULL));
}

void sbx_jt_instant(sbx_jt *t, apr_int64_t unix_secs)
{
    char b[SBX_TEXT_LEN + 2];
    apr_size_t n = sbx_instant_into(t->b.p, b + 1, unix_secs);
    b[0] = '"';
    b[n + 1] = '"';
    sep(t);
    trv_jbuf_put(&t->b, b, n + 2);
}

void sbx_jt_kstr(sbx_jt *t, const char *k, const char *s)
{
    sbx_jt_key(t, k);
    sbx_jt_str(t, s);
}

void sbx_jt_kint(sbx_jt *t, const char *k, apr_int64_t v)
{
    sbx_jt_key(t, k);
    sbx_jt_int(t, v);
}

void sbx_jt_kbool(sbx_jt *t, const char *k, int v)
{
    sbx_jt_key(t, k);
    sbx_jt_bool(t, v);
}

void sbx_jt_kreal(sbx_jt *t, const char *k, double d)
{
    sbx_jt_key(t, k);
    sbx_jt_real(t, d);
}

void sbx_jt_kamount(sbx_jt *t, const char *k, apr_int64_t minor, const char *currency)
{
    sbx_jt_key(t, k);
    sbx_jt_amount(t, minor, currency);
}

void sbx_jt_kopen(sbx_jt *t, const char *k, char c)
{
    sbx_jt_key(t, k);
    trv_jbuf_put1(&t->b, c);
}

const char *sbx_jt_text(sbx_jt *t, apr_size_t *len)
{
    if (t->bad) {
        return NULL;
    }
    if (len) {
        *len = t->b.len;
    }
    return trv_jbuf_text(&t->b);
}

json_t *sbx_jt_tree(sbx_jt *t)
{
    apr_size_t n;
    const char *s = sbx_jt_text(t, &n);
    return s ? json_loadb(s, n, 0, NULL) : NULL;
}

void sbx_jt_send(trv_req *req, trv_resp *resp, int status, sbx_jt *t)
{
    apr_size_t n;
    const char *s = sbx_jt_text(t, &n);
    if (!s) {
        sbx_error(req, resp, 500, "internal_error", "The sandbox could not write its answer");
        return;
    }
    trv_ok_raw(req, resp, status, "application/json", s, n);
}
