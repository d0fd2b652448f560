/* Helpers of the simulated APIs; see sbx_api.h. */
#include "sbx_api.h"
#include "core/clock.h"
#include "core/crypt.h"
#include "core/ids.h"
#include "core/money.h"
#include "core/validate.h"

#include <apr_strings.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static const trv_stmt idem_claim = {"sbx_idem_claim",
    "INSERT INTO sandbox.idempotency (scope, key, request_hash, status, response) "
    "VALUES (%s, %s, %s, 0, 'null'::jsonb) ON CONFLICT DO NOTHING RETURNING 1 AS fresh"};
static const trv_stmt idem_get = {"sbx_idem_get",
    "SELECT request_hash, status, response::text AS response FROM sandbox.idempotency "
    "WHERE scope = %s AND key = %s"};
static const trv_stmt idem_save = {"sbx_idem_save",
    "UPDATE sandbox.idempotency SET status = %s::int, response = %s::jsonb "
    "WHERE scope = %s AND key = %s"};
void sbx_send(trv_req *req, trv_resp *resp, int status, json_t *doc)
{
    /* Each simulated API speaks its own envelope, success or not. */
    trv_ok_document(req, resp, status, doc);
}

static json_t *error_doc_v(trv_req *req, const char *code, const char *fmt, va_list ap)
{
    return json_pack("{s:{s:s,s:s,s:s}}", "error", "code", code, "message",
                     apr_pvsprintf(req->pool, fmt, ap), "request_id", req->request_id);
}

json_t *sbx_error_doc(trv_req *req, const char *code, const char *fmt, ...)
{
    va_list ap;
    json_t *d;
    va_start(ap, fmt);
    d = error_doc_v(req, code, fmt, ap);
    va_end(ap);
    return d;
}

void sbx_error(trv_req *req, trv_resp *resp, int status, const char *code,
               const char *fmt, ...)
{
    va_list ap;
    json_t *d;
    va_start(ap, fmt);
    d = error_doc_v(req, code, fmt, ap);
    va_end(ap);
    sbx_send(req, resp, status, d);
}

void sbx_db_fail(trv_req *req, trv_resp *resp, trv_dbc *c, int logno, const char *what)
{
    trv_log_msg(&req->log, TRV_LOG_ERR, req->request_id, "TRV%03d: sandbox %s: %s", logno,
                what, c ? (c->error ? c->error : "failed") : TRV_DB_UNAVAILABLE ": no connection");
    if (c) {
        if (c->in_txn) {
            trv_db_rollback(c);
        }
        trv_db_close(req->env->db, c);
    }
    sbx_error(req, resp, 503, "service_unavailable",
              "The sandbox could not reach its database; retry shortly");
}

void sbx_invalid(trv_req *req, trv_resp *resp, const char *field, const char *reason)
{
    sbx_send(req, resp, 422, json_pack("{s:{s:s,s:s,s:s,s:s}}", "error", "code",
                                       "validation_error", "message",
                                       apr_psprintf(req->pool, "%s: %s", field, reason),
                                       "field", field, "request_id", req->request_id));
}

int sbx_need_world(trv_req *req, trv_resp *resp)
{
    if (SBX(req)->world) {
        return 1;
    }
    sbx_error(req, resp, 503, "service_unavailable",
              "The sandbox has no flight data: set TravelSandboxData");
    return 0;
}

const json_t *sbx_body(trv_req *req, trv_resp *resp)
{
    if (!req->json) {
        sbx_error(req, resp, 400, "invalid_request", "A JSON object body is required");
        return NULL;
    }
    return req->json;
}

/* ---- idempotency ---- */

static const char *request_hash(trv_req *req)
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
    EVP_DigestUpdate(ctx, req->method, strlen(req->method));
    EVP_DigestUpdate(ctx, " ", 1);
    EVP_DigestUpdate(ctx, req->path, strlen(req->path));
    EVP_DigestUpdate(ctx, "\n", 1);
    if (req->body) {
        EVP_DigestUpdate(ctx, req->body, req->body_len);
    }
    EVP_DigestFinal_ex(ctx, md, &n);
    EVP_MD_CTX_free(ctx);
    return trv_crypt_hex(req->pool, md, n);
}

/* The request's Idempotency-Key. The simulated APIs that document none
 * (Duffel's, some cancels) have it removed before they get here. */
static const char *idem_key(trv_req *req)
{
    const char *k = apr_table_get(req->headers, "Idempotency-Key");
    return (k && *k) ? k : NULL;
}

static const char *idem_scope(trv_req *req)
{
    return apr_pstrcat(req->pool, req->method, " ", req->path, NULL);
}

sbx_idem_result sbx_idem_claim(trv_req *req, trv_resp *resp, trv_dbc *c)
{
    const char *key = idem_key(req), *hash, *scope;
    trv_rows *rows;
    json_t *stored;

    if (!key) {
        return SBX_IDEM_FRESH;
    }
    if (!trv_printable(key, 1, 255)) {
        trv_db_rollback(c);
        trv_db_close(req->env->db, c);
        sbx_error(req, resp, 400, "idempotency_key_invalid",
                  "Idempotency-Key must be 1 to 255 printable characters");
        return SBX_IDEM_FAILED;
    }
    hash = request_hash(req);
    scope = idem_scope(req);
    if (trv_db_select(c, req->pool, &idem_claim, &rows, TRV_DB_ARGS(scope, key, hash))
        != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 911, "claiming an idempotency key");
        return SBX_IDEM_FAILED;
    }
    if (rows->n == 1) {
        return SBX_IDEM_FRESH;
    }
    if (trv_db_select(c, req->pool, &idem_get, &rows, TRV_DB_ARGS(scope, key))
        != APR_SUCCESS || rows->n != 1) {
        sbx_db_fail(req, resp, c, 912, "reading an idempotency key");
        return SBX_IDEM_FAILED;
    }
    trv_db_rollback(c);
    trv_db_close(req->env->db, c);
    if (strcmp(trv_rows_get(rows, 0, "request_hash"), hash) != 0) {
        sbx_error(req, resp, 422, "idempotency_key_reused",
                  "This Idempotency-Key was used with a different request");
        return SBX_IDEM_FAILED;
    }
    stored = trv_json_parse(req->pool, trv_rows_get(rows, 0, "response"),
                            strlen(trv_rows_get(rows, 0, "response")), NULL);
    if (!stored || json_is_null(stored) || trv_rows_int(rows, 0, "status", 0) == 0) {
        sbx_error(req, resp, 409, "idempotency_key_in_use",
                  "A request with this Idempotency-Key is still being processed");
        return SBX_IDEM_FAILED;
    }
    apr_table_setn(resp->headers, "Idempotent-Replayed", "true");
    sbx_send(req, resp, trv_rows_int(rows, 0, "status", 200), json_incref(stored));
    return SBX_IDEM_REPLAY;
}

apr_status_t sbx_idem_save(trv_req *req, trv_dbc *c, int status, const json_t *doc)
{
    const char *key = idem_key(req);
    if (!key) {
        return APR_SUCCESS;
    }
    return trv_db_exec(c, req->pool, &idem_save, NULL,
                       TRV_DB_ARGS(apr_itoa(req->pool, status), trv_json_dump(req->pool, doc),
                                   idem_scope(req), key));
}

/* ---- values ---- */

apr_int64_t sbx_now(void)
{
    return (apr_int64_t)apr_time_sec(apr_time_now());
}

char *sbx_instant(apr_pool_t *p, apr_int64_t unix_secs)
{
    char b[SBX_TEXT_LEN];
    apr_size_t n = sbx_instant_into(p, b, unix_secs);
    return apr_pstrmemdup(p, b, n);
}

static char *digits(char *o, long v, int width)
{
    int k;
    for (k = width - 1; k >= 0; k--) {
        o[k] = (char)('0' + v % 10);
        v /= 10;
    }
    return o + width;
}

/* Written by hand: a hotel answer has hundreds of instants, and each
 * apr_psprintf of trv_time_format was a few percent of the sandbox's CPU
 * per hotel search. trv_time_format's text, for years 0-9999; others go
 * through it. */
apr_size_t sbx_instant_into(apr_pool_t *p, char *buf, apr_int64_t unix_secs)
{
    long days, sod;
    int y, mo, d;
    char *o = buf;
    if (unix_secs < 0 || unix_secs >= (apr_int64_t)253402300800LL) {
        return (apr_size_t)apr_snprintf(buf, SBX_TEXT_LEN, "%s",
                                        trv_time_format(p, apr_time_from_sec(unix_secs)));
    }
    days = (long)(unix_secs / 86400);
    sod = (long)(unix_secs % 86400);
    trv_civil_from_days(days, &y, &mo, &d);
    o = digits(o, y, 4);
    *o++ = '-';
    o = digits(o, mo, 2);
    *o++ = '-';
    o = digits(o, d, 2);
    *o++ = 'T';
    o = digits(o, sod / 3600, 2);
    *o++ = ':';
    o = digits(o, (sod / 60) % 60, 2);
    *o++ = ':';
    o = digits(o, sod % 60, 2);
    memcpy(o, ".000Z", 6);
    return (apr_size_t)(o + 5 - buf);
}

char *sbx_amount(apr_pool_t *p, apr_int64_t minor, const char *currency)
{
    char b[SBX_TEXT_LEN];
    apr_size_t n = sbx_amount_into(p, b, minor, currency);
    return apr_pstrmemdup(p, b, n);
}

/* Suppliers print fixed decimals ("410.00"), as airline systems do: the
 * currency's decimals always, the whole units alone in a currency without
 * any. (A currency the core does not know keeps trv_money_decimal's
 * shortest form at two decimals, as before.) */
apr_size_t sbx_amount_into(apr_pool_t *p, char *buf, apr_int64_t minor,
                           const char *currency)
{
    int exp = trv_currency_exponent(currency), k;
    apr_uint64_t mag = minor < 0 ? (apr_uint64_t)0 - (apr_uint64_t)minor : (apr_uint64_t)minor;
    apr_uint64_t scale = 1;
    char tmp[32], *t = tmp + sizeof(tmp), *o = buf;
    if (exp < 0 || exp > 4) {
        return (apr_size_t)apr_snprintf(buf, SBX_TEXT_LEN, "%s",
                                        trv_money_decimal(p, minor, exp < 0 ? 2 : exp));
    }
    for (k = 0; k < exp; k++) {
        scale *= 10;
    }
    if (exp > 0) {
        apr_uint64_t frac = mag % scale;
        for (k = 0; k < exp; k++) {
            *--t = (char)('0' + frac % 10);
            frac /= 10;
        }
        *--t = '.';
    }
    mag /= scale;
    do {
        *--t = (char)('0' + mag % 10);
        mag /= 10;
    } while (mag);
    if (minor < 0) {
        *o++ = '-';
    }
    memcpy(o, t, (apr_size_t)(tmp + sizeof(tmp) - t));
    o += tmp + sizeof(tmp) - t;
    *o = '\0';
    return (apr_size_t)(o - buf);
}

int sbx_amount_parse(const json_t *v, const char *currency, apr_int64_t *minor)
{
    int exp = trv_currency_exponent(currency);
    if (exp < 0) {
        return -1;
    }
    if (json_is_string(v)) {
        return trv_money_parse_decimal(json_string_value(v), exp, minor) == APR_SUCCESS ? 0
                                                                                       : -1;
    }
    if (json_is_number(v)) {
        trv_money m;
        if (trv_money_from_json_number(v, currency, &m) != APR_SUCCESS) {
            return -1;
        }
        *minor = m.minor;
        return 0;
    }
    return -1;
}

char *sbx_duration(apr_pool_t *p, int minutes)
{
    int d = minutes / 1440, h = (minutes % 1440) / 60, m = minutes % 60;
    return apr_psprintf(p, "P%sT%dH%dM", d ? apr_psprintf(p, "%dD", d) : "", h, m);
}

void sbx_random_chars(char *out, int n, const char *alphabet)
{
    unsigned char b[32];
    int i, len = (int)strlen(alphabet);
    trv_random_bytes(b, (apr_size_t)n);
    for (i = 0; i < n; i++) {
        out[i] = alphabet[b[i] % len];
    }
    out[n] = '\0';
}

apr_uint32_t sbx_nonce(void)
{
    apr_uint32_t n = 0;
    trv_random_bytes((unsigned char *)&n, sizeof(n));
    return n;
}

void sbx_sleep(const trv_req *req, apr_interval_time_t t)
{
    apr_time_t end = apr_time_now() + t;
    while (!TRV_STOPPING(req->env)) {
        apr_time_t left = end - apr_time_now();
        if (left <= 0) {
            break;
        }
        apr_sleep(left < apr_time_from_msec(100) ? left : apr_time_from_msec(100));
    }
}

/* ---- authentication ---- */

static int under(const char *path, const char *prefix)
{
    size_t n = strlen(prefix);
    return strncmp(path, prefix, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

const char *sbx_api_of(const char *path, const char **rest, int *which)
{
    static const struct {
        const char *base, *name;
    } apis[SBX_APIS] = {
        {"/suppliers/a", "supplier_a"}, {"/suppliers/b", "supplier_b"}, {"/payments", "payments"},
        {"/hotels/a", "hotel_a"}, {"/hotels/b", "hotel_b"}, {"/hotels/c", "hotel_c"},
    };
    int i;
    for (i = 0; i < SBX_APIS; i++) {
        if (under(path, apis[i].base)) {
            if (rest) {
                *rest = path[strlen(apis[i].base)] ? path + strlen(apis[i].base) : "/";
            }
            if (which) {
                *which = i;
            }
            return apis[i].name;
        }
    }
    return NULL;
}

int sbx_is_api_path(const char *path)
{
    return sbx_api_of(path, NULL, NULL) != NULL;
}

static int same_secret(const char *given, const char *want)
{
    size_t n = want ? strlen(want) : 0;
    return given && want && strlen(given) == n && CRYPTO_memcmp(given, want, n) == 0;
}

/* Lower-case hex of a digest of key + secret + timestamp. */
static char *signature(apr_pool_t *p, const EVP_MD *md, const char *key, const char *secret,
                       const char *ts)
{
    unsigned char d[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    EVP_DigestInit_ex(ctx, md, NULL);
    EVP_DigestUpdate(ctx, key, strlen(key));
    EVP_DigestUpdate(ctx, secret, strlen(secret));
    EVP_DigestUpdate(ctx, ts, strlen(ts));
    EVP_DigestFinal_ex(ctx, d, &n);
    EVP_MD_CTX_free(ctx);
    return trv_crypt_hex(p, d, n);
}

/* Hotelbeds' scheme: Api-key, and X-Signature = SHA-256 hex of key +
 * secret + the current Unix time in seconds (5 minutes of clock skew). */
static int hotelbeds_auth(trv_req *req, const char *key, const char *secret)
{
    const char *given = apr_table_get(req->headers, "Api-key");
    const char *sig = apr_table_get(req->headers, "X-Signature");
    apr_int64_t now = sbx_now(), d;
    if (!same_secret(given, key) || !secret || !sig || strlen(sig) != 64) {
        return 0;
    }
    /* The signed second is not sent: nearest seconds first, as a signature
     * is usually made a moment before it arrives. */
    for (d = 0; d <= 300; d++) {
        int side;
        for (side = 0; side < (d ? 2 : 1); side++) {
            apr_int64_t t = side ? now + d : now - d;
            if (same_secret(sig, signature(req->pool, EVP_sha256(), key, secret,
                                           apr_psprintf(req->pool, "%" APR_INT64_T_FMT, t)))) {
                return 1;
            }
        }
    }
    return 0;
}

/* Expedia Rapid's scheme: Authorization: EAN APIKey=..,Signature=..,
 * timestamp=.. with Signature the SHA-512 hex of key + secret + timestamp. */
static int rapid_auth(trv_req *req, const char *key, const char *secret)
{
    const char *auth = apr_table_get(req->headers, "Authorization");
    char *copy, *part, *last, *k = NULL, *sig = NULL, *ts = NULL;
    apr_int64_t t;
    if (!auth || strncmp(auth, "EAN ", 4) != 0 || !key || !secret) {
        return 0;
    }
    copy = apr_pstrdup(req->pool, auth + 4);
    for (part = apr_strtok(copy, ",", &last); part; part = apr_strtok(NULL, ",", &last)) {
        while (*part == ' ') {
            part++;
        }
        if (strncmp(part, "APIKey=", 7) == 0) {
            k = part + 7;
        }
        else if (strncmp(part, "Signature=", 10) == 0) {
            sig = part + 10;
        }
        else if (strncmp(part, "timestamp=", 10) == 0) {
            ts = part + 10;
        }
    }
    if (!same_secret(k, key) || !sig || !ts || !*ts || strlen(ts) > 12) {
        return 0;
    }
    t = apr_atoi64(ts);
    if (t < sbx_now() - 300 || t > sbx_now() + 300) {
        return 0;
    }
    return same_secret(sig, signature(req->pool, EVP_sha512(), key, secret, ts));
}

int sbx_authenticate(trv_req *req, trv_resp *resp)
{
    const sbx_settings *set = SBX(req)->set;
    const char *want, *auth = apr_table_get(req->headers, "Authorization");
    size_t n;
    if (under(req->path, "/hotels/a")) {
        if (same_secret(apr_table_get(req->headers, "X-API-Key"), set->key_ha)) {
            return 1;
        }
        sbx_error(req, resp, 401, "unauthorized", "A valid X-API-Key header is required");
        return 0;
    }
    if (under(req->path, "/suppliers/b")) {
        /* LiteAPI Flights: the same key header as LiteAPI's hotels. */
        if (same_secret(apr_table_get(req->headers, "X-API-Key"), set->key_b)) {
            return 1;
        }
        sbx_send(req, resp, 401, json_pack("{s:{s:i,s:s,s:s}}", "error", "code", 401,
                                           "message", "unauthorized", "description",
                                           "A valid X-API-Key header is required"));
        return 0;
    }
    if (under(req->path, "/hotels/b")) {
        if (hotelbeds_auth(req, set->key_hb, set->secret_hb)) {
            return 1;
        }
        sbx_error(req, resp, 401, "unauthorized",
                  "Api-key and X-Signature (SHA-256 of key, secret and Unix time) are required");
        return 0;
    }
    if (under(req->path, "/hotels/c")) {
        if (rapid_auth(req, set->key_hc, set->secret_hc)) {
            return 1;
        }
        sbx_error(req, resp, 401, "unauthorized",
                  "Authorization: EAN APIKey=...,Signature=...,timestamp=... is required");
        return 0;
    }
    if (under(req->path, "/suppliers/a")) {
        want = set->key_a;
    }
    else if (under(req->path, "/payments")) {
        want = set->key_pay;
    }
    else {
        return 1;
    }
    if (auth && strncasecmp(auth, "Bearer ", 7) == 0 && want) {
        auth += 7;
        n = strlen(want);
        if (strlen(auth) == n && CRYPTO_memcmp(auth, want, n) == 0) {
            return 1;
        }
    }
    apr_table_setn(resp->headers, "WWW-Authenticate", "Bearer");
    sbx_error(req, resp, 401, "unauthorized",
              "A valid API key is required: Authorization: Bearer <key>");
    return 0;
}

int sbx_idem_begin(trv_req *req, trv_resp *resp, trv_dbc **c, int logno, const char *what)
{
    if (trv_db_open(req->env->db, req->pool, c) != APR_SUCCESS) {
        sbx_db_fail(req, resp, NULL, logno, what);
        return 0;
    }
    if (trv_db_begin(*c, req->pool) != APR_SUCCESS) {
        sbx_db_fail(req, resp, *c, logno, what);
        return 0;
    }
    return sbx_idem_claim(req, resp, *c) == SBX_IDEM_FRESH;
}

void sbx_idem_finish(trv_req *req, trv_resp *resp, trv_dbc *c, int status, json_t *doc,
                     int logno, const char *what)
{
    if (sbx_idem_save(req, c, status, doc) != APR_SUCCESS || trv_db_commit(c) != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, logno, what);
        return;
    }
    trv_db_close(req->env->db, c);
    sbx_send(req, resp, status, json_incref(doc));
}
