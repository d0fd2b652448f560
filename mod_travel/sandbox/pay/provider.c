/* The payment provider: a Stripe-style API under /payments.
 *
 *   POST /v1/authorizations               authorize a saved instrument
 *                                         (capture_method manual|automatic)
 *   GET  /v1/authorizations/{id}
 *   POST /v1/authorizations/{id}/capture  {amount_to_capture?}
 *   POST /v1/authorizations/{id}/cancel   void an uncaptured authorization
 *   POST /v1/refunds                      {authorization, amount?}
 *   GET  /v1/refunds/{id}
 *   POST /v1/sdk_sessions                 a client session for an amount
 *   GET  /v1/sdk_sessions/{id}            with its authorization once paid
 *   POST /v1/sdk_sessions/{id}/confirm    the customer's device pays:
 *                                         {client_secret, payment_method};
 *                                         authenticated by the client secret
 *   POST /v1/sdk_sessions/{id}/cancel     the merchant: the device can pay
 *                                         it no more; answers the session
 *                                         with the authorization it made, if
 *                                         any (the merchant voids that)
 *
 * Amounts are integers in minor units with a lower-case currency, as
 * Stripe's. POSTs honour Idempotency-Key. Test instruments: pi_test_visa,
 * pi_test_mastercard, pi_test_amex_applepay (authorized), pi_test_decline
 * (402 card_declined), pi_test_slowcard (authorized; the card's details
 * are readable only a while after): pay/vault.c.
 *   POST /v1/forwarding/requests          vault and forward (pay/forward.c) */
#include "sandbox/sbx_api.h"
#include "core/ids.h"
#include "core/money.h"
#include "vault.h"

#include <apr_lib.h>
#include <apr_strings.h>
#include <openssl/crypto.h>
#include <stdlib.h>
#include <string.h>

#define SESSION_TTL (30 * 60)

static const trv_stmt pay_insert = {"sbx_pay_insert",
    "INSERT INTO sandbox.pay_authorizations (id, payment_method, currency, amount, "
    "amount_captured, status, card, card_ready_at, session_id, metadata, captured_at) VALUES "
    "(%s, %s, %s, %s::bigint, %s::bigint, %s, %s::jsonb, "
    "clock_timestamp() + %s::bigint * interval '1 millisecond', %s, %s::jsonb, "
    "CASE WHEN %s = 'captured' THEN clock_timestamp() END)"};
static const trv_stmt pay_get = {"sbx_pay_get",
    "SELECT id, payment_method, currency, amount, amount_captured, amount_refunded, status, "
    "CASE WHEN card_ready_at <= clock_timestamp() THEN card::text END AS card, "
    "metadata::text AS metadata, extract(epoch FROM created_at)::bigint AS created, "
    "extract(epoch FROM captured_at)::bigint AS captured "
    "FROM sandbox.pay_authorizations WHERE id = %s"};
static const trv_stmt pay_capture = {"sbx_pay_capture",
    "UPDATE sandbox.pay_authorizations SET status = 'captured', amount_captured = %s::bigint, "
    "captured_at = clock_timestamp() WHERE id = %s AND status = 'requires_capture' "
    "AND %s::bigint BETWEEN 1 AND amount RETURNING id"};
static const trv_stmt pay_cancel = {"sbx_pay_cancel",
    "UPDATE sandbox.pay_authorizations SET status = 'canceled', canceled_at = clock_timestamp() "
    "WHERE id = %s AND status = 'requires_capture' RETURNING id"};
static const trv_stmt refund_take = {"sbx_refund_take",
    "UPDATE sandbox.pay_authorizations SET amount_refunded = amount_refunded + %s::bigint "
    "WHERE id = %s AND status = 'captured' AND %s::bigint > 0 "
    "AND amount_refunded + %s::bigint <= amount_captured RETURNING currency"};
static const trv_stmt refund_insert = {"sbx_refund_insert",
    "INSERT INTO sandbox.pay_refunds (id, authorization_id, currency, amount, status) "
    "VALUES (%s, %s, %s, %s::bigint, 'succeeded') RETURNING "
    "extract(epoch FROM created_at)::bigint AS created"};
static const trv_stmt refund_get = {"sbx_refund_get",
    "SELECT id, authorization_id, currency, amount, status, "
    "extract(epoch FROM created_at)::bigint AS created FROM sandbox.pay_refunds WHERE id = %s"};
static const trv_stmt session_insert = {"sbx_session_insert",
    "INSERT INTO sandbox.pay_sdk_sessions (id, client_secret, currency, amount, status, "
    "expires_at) VALUES (%s, %s, %s, %s::bigint, 'open', to_timestamp(%s::bigint))"};
static const trv_stmt session_get = {"sbx_session_get",
    "SELECT id, client_secret, currency, amount, status, authorization_id, "
    "extract(epoch FROM expires_at)::bigint AS expires, "
    "extract(epoch FROM canceled_at)::bigint AS canceled, "
    "expires_at < clock_timestamp() AS expired FROM sandbox.pay_sdk_sessions WHERE id = %s"};
static const trv_stmt session_lock = {"sbx_session_lock",
    "SELECT id FROM sandbox.pay_sdk_sessions WHERE id = %s FOR UPDATE"};
static const trv_stmt session_complete = {"sbx_session_complete",
    "UPDATE sandbox.pay_sdk_sessions SET status = 'complete', authorization_id = %s "
    "WHERE id = %s"};
/* Under the session's row lock (session_lock), like confirm: whichever of
 * the two locks first wins, and the other sees its result. */
static const trv_stmt session_cancel = {"sbx_session_cancel",
    "UPDATE sandbox.pay_sdk_sessions SET status = 'canceled', canceled_at = clock_timestamp() "
    "WHERE id = %s AND status IN ('open', 'complete')"};

static json_t *card_json(const sbx_vault_card *in)
{
    json_t *c = json_pack("{s:s,s:s,s:s,s:i,s:i}", "brand", in->brand, "last4", in->last4,
                          "funding", in->funding, "exp_month", 12, "exp_year", 2030);
    json_object_set_new(c, "wallet", in->wallet ? json_pack("{s:s}", "type", in->wallet)
                                                : json_null());
    return c;
}

/* "gbp" -> "GBP" when it is an ISO 4217 currency; NULL otherwise. */
static const char *currency_of(apr_pool_t *p, const char *s)
{
    char *u;
    int i;
    if (!s || strlen(s) != 3) {
        return NULL;
    }
    u = apr_pstrdup(p, s);
    for (i = 0; i < 3; i++) {
        u[i] = (char)apr_toupper(u[i]);
    }
    return trv_currency_exponent(u) >= 0 ? u : NULL;
}

static char *lower3(apr_pool_t *p, const char *s)
{
    char *l = apr_pstrdup(p, s);
    int i;
    for (i = 0; l[i]; i++) {
        l[i] = (char)apr_tolower(l[i]);
    }
    return l;
}

static int amount_of(const json_t *v, apr_int64_t *out)
{
    if (!json_is_integer(v) || json_integer_value(v) < 1
        || json_integer_value(v) > TRV_MONEY_MAX_MINOR) {
        return 0;
    }
    *out = (apr_int64_t)json_integer_value(v);
    return 1;
}

static json_t *auth_json(apr_pool_t *p, const trv_rows *r)
{
    const char *card = trv_rows_get(r, 0, "card");
    const char *status = trv_rows_get(r, 0, "status");
    const char *captured = trv_rows_get(r, 0, "captured");
    json_t *meta = json_loads(trv_rows_get(r, 0, "metadata"), 0, NULL);
    apr_int64_t amount = apr_atoi64(trv_rows_get(r, 0, "amount"));
    json_t *pmd = json_null();
    if (card) {
        pmd = json_pack("{s:s,s:o}", "type", "card", "card", json_loads(card, 0, NULL));
    }
    return json_pack("{s:s,s:s,s:I,s:I,s:I,s:I,s:s,s:s,s:s,s:o,s:I,s:o,s:o,s:b}",
        "id", trv_rows_get(r, 0, "id"), "object", "authorization",
        "amount", (json_int_t)amount,
        "amount_capturable", (json_int_t)(strcmp(status, "requires_capture") == 0 ? amount : 0),
        "amount_captured", (json_int_t)apr_atoi64(trv_rows_get(r, 0, "amount_captured")),
        "amount_refunded", (json_int_t)apr_atoi64(trv_rows_get(r, 0, "amount_refunded")),
        "currency", lower3(p, trv_rows_get(r, 0, "currency")), "status", status,
        "payment_method", trv_rows_get(r, 0, "payment_method"),
        "payment_method_details", pmd,
        "created", (json_int_t)apr_atoi64(trv_rows_get(r, 0, "created")),
        "captured_at", captured ? json_integer(apr_atoi64(captured)) : json_null(),
        "metadata", meta ? meta : json_object(), "livemode", 0);
}

static int read_auth(trv_req *req, trv_resp *resp, trv_dbc *c, const char *id, json_t **out)
{
    trv_rows *rows;
    if (trv_db_select(c, req->pool, &pay_get, &rows, TRV_DB_ARGS(id)) != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 965, "reading an authorization");
        return 0;
    }
    *out = rows->n ? trv_json_bind(req->pool, auth_json(req->pool, rows)) : NULL;
    return 1;
}

static void decline(trv_req *req, json_t **err)
{
    *err = trv_json_bind(req->pool, json_pack("{s:{s:s,s:s,s:s,s:s,s:s}}", "error",
        "type", "card_error", "code", "card_declined", "decline_code", "generic_decline",
        "message", "Your card was declined.", "request_id", req->request_id));
}

/* Authorizes in the open transaction on c; *status and *doc: the answer. */
static int authorize_in(trv_req *req, trv_resp *resp, trv_dbc *c, const sbx_vault_card *in,
                        const char *currency, apr_int64_t amount, int capture,
                        const char *session, const json_t *metadata, int *status, json_t **doc)
{
    const char *id = trv_id_new(req->pool, "auth");
    const char *st = capture ? "captured" : "requires_capture";
    apr_int64_t delay = in->slow ? (apr_int64_t)apr_time_as_msec(SBX(req)->set->slow_card) : 0;
    json_t *card = trv_json_bind(req->pool, card_json(in));
    if (in->declined) {
        decline(req, doc);
        *status = 402;
        return 1;
    }
    if (trv_db_exec(c, req->pool, &pay_insert, NULL, TRV_DB_ARGS(
            id, in->id, currency, apr_psprintf(req->pool, "%" APR_INT64_T_FMT, amount),
            capture ? apr_psprintf(req->pool, "%" APR_INT64_T_FMT, amount) : "0", st,
            trv_json_dump(req->pool, card), apr_psprintf(req->pool, "%" APR_INT64_T_FMT, delay),
            session, metadata ? trv_json_dump(req->pool, metadata) : "{}", st)) != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 966, "authorizing");
        return 0;
    }
    if (!read_auth(req, resp, c, id, doc)) {
        return 0;
    }
    *status = 200;
    return 1;
}

static void fail_in(trv_req *req, trv_resp *resp, trv_dbc *c, int status, const char *code,
                    const char *msg)
{
    /* A refused request changes nothing; it is not stored under its key. */
    trv_db_rollback(c);
    trv_db_close(req->env->db, c);
    sbx_error(req, resp, status, code, "%s", msg);
}

/* The amount (minor units) and currency of a request, Stripe's way; 0
 * when answered with the 400 that names what is wrong. */
static int money_params(trv_req *req, trv_resp *resp, const json_t *b, apr_int64_t *amount,
                        const char **cur)
{
    if (!amount_of(json_object_get(b, "amount"), amount)) {
        sbx_error(req, resp, 400, "parameter_invalid_integer",
                  "amount must be a positive integer in minor units");
        return 0;
    }
    if (!(*cur = currency_of(req->pool, trv_json_str(b, "currency")))) {
        sbx_error(req, resp, 400, "parameter_invalid_currency",
                  "currency must be an ISO 4217 code");
        return 0;
    }
    return 1;
}

static void create_authorization(trv_req *req, trv_resp *resp)
{
    const json_t *b;
    const sbx_vault_card *in;
    const char *cur, *cm;
    apr_int64_t amount;
    trv_dbc *c;
    int status;
    json_t *doc;

    if (!(b = sbx_body(req, resp))) {
        return;
    }
    if (!money_params(req, resp, b, &amount, &cur)) {
        return;
    }
    cm = trv_json_str(b, "capture_method");
    if (cm && strcmp(cm, "manual") != 0 && strcmp(cm, "automatic") != 0) {
        sbx_error(req, resp, 400, "parameter_invalid", "capture_method is manual or automatic");
        return;
    }
    if (!(in = sbx_vault_card_of(trv_json_str(b, "payment_method")))) {
        sbx_error(req, resp, 400, "resource_missing", "No such payment_method: '%s'",
                  trv_json_str(b, "payment_method") ? trv_json_str(b, "payment_method") : "");
        return;
    }
    if (!sbx_idem_begin(req, resp, &c, 967, "payments")) {
        return;
    }
    if (!authorize_in(req, resp, c, in, cur, amount, cm && strcmp(cm, "automatic") == 0, NULL,
                      json_object_get(b, "metadata"), &status, &doc)) {
        return;
    }
    sbx_idem_finish(req, resp, c, status, doc, 968, "payments");
}

static void get_authorization(trv_req *req, trv_resp *resp)
{
    const char *id = apr_table_get(req->params, "id");
    trv_dbc *c;
    json_t *doc;
    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS) {
        sbx_db_fail(req, resp, NULL, 969, "reading an authorization");
        return;
    }
    if (!read_auth(req, resp, c, id, &doc)) {
        return;
    }
    trv_db_close(req->env->db, c);
    if (!doc) {
        sbx_error(req, resp, 404, "resource_missing", "No such authorization: '%s'", id);
        return;
    }
    sbx_send(req, resp, 200, json_incref(doc));
}

static void capture(trv_req *req, trv_resp *resp)
{
    const char *id = apr_table_get(req->params, "id");
    const json_t *b = req->json, *av = json_object_get(b, "amount_to_capture");
    apr_int64_t amount = 0;
    trv_dbc *c;
    trv_rows *rows;
    json_t *doc;

    if (av && !amount_of(av, &amount)) {
        sbx_error(req, resp, 400, "parameter_invalid_integer",
                  "amount_to_capture must be a positive integer");
        return;
    }
    if (!sbx_idem_begin(req, resp, &c, 970, "payments") || !read_auth(req, resp, c, id, &doc)) {
        return;
    }
    if (!doc) {
        fail_in(req, resp, c, 404, "resource_missing", "No such authorization");
        return;
    }
    if (!av) {
        amount = (apr_int64_t)json_integer_value(json_object_get(doc, "amount"));
    }
    if (strcmp(trv_json_str(doc, "status"), "captured") == 0) {
        /* Capturing again answers the capture that was made. */
        if ((apr_int64_t)json_integer_value(json_object_get(doc, "amount_captured")) != amount) {
            fail_in(req, resp, c, 400, "authorization_unexpected_state",
                    "This authorization was already captured for another amount");
            return;
        }
        sbx_idem_finish(req, resp, c, 200, doc, 971, "payments");
        return;
    }
    if (trv_db_select(c, req->pool, &pay_capture, &rows, TRV_DB_ARGS(
            apr_psprintf(req->pool, "%" APR_INT64_T_FMT, amount), id,
            apr_psprintf(req->pool, "%" APR_INT64_T_FMT, amount))) != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 972, "capturing");
        return;
    }
    if (rows->n == 0) {
        fail_in(req, resp, c, 400, strcmp(trv_json_str(doc, "status"), "canceled") == 0
                                       ? "authorization_unexpected_state" : "amount_too_large",
                strcmp(trv_json_str(doc, "status"), "canceled") == 0
                    ? "This authorization was canceled"
                    : "amount_to_capture exceeds the authorized amount");
        return;
    }
    if (!read_auth(req, resp, c, id, &doc)) {
        return;
    }
    sbx_idem_finish(req, resp, c, 200, doc, 973, "payments");
}

static void cancel(trv_req *req, trv_resp *resp)
{
    const char *id = apr_table_get(req->params, "id");
    trv_dbc *c;
    trv_rows *rows;
    json_t *doc;
    if (!sbx_idem_begin(req, resp, &c, 974, "payments") || !read_auth(req, resp, c, id, &doc)) {
        return;
    }
    if (!doc) {
        fail_in(req, resp, c, 404, "resource_missing", "No such authorization");
        return;
    }
    if (strcmp(trv_json_str(doc, "status"), "canceled") == 0) {
        sbx_idem_finish(req, resp, c, 200, doc, 975, "payments");
        return;
    }
    if (trv_db_select(c, req->pool, &pay_cancel, &rows, TRV_DB_ARGS(id)) != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 976, "canceling");
        return;
    }
    if (rows->n == 0) {
        fail_in(req, resp, c, 400, "authorization_unexpected_state",
                "A captured authorization cannot be canceled; refund it");
        return;
    }
    if (!read_auth(req, resp, c, id, &doc)) {
        return;
    }
    sbx_idem_finish(req, resp, c, 200, doc, 977, "payments");
}

static json_t *refund_json(apr_pool_t *p, const char *id, const char *auth, const char *cur,
                           apr_int64_t amount, const char *status, apr_int64_t created)
{
    return json_pack("{s:s,s:s,s:I,s:s,s:s,s:s,s:I,s:b}", "id", id, "object", "refund",
                     "amount", (json_int_t)amount, "currency", lower3(p, cur),
                     "authorization", auth, "status", status, "created", (json_int_t)created,
                     "livemode", 0);
}

static void create_refund(trv_req *req, trv_resp *resp)
{
    const json_t *b;
    const char *auth, *id = trv_id_new(req->pool, "re");
    const json_t *av;
    apr_int64_t amount = 0;
    trv_dbc *c;
    trv_rows *rows;
    json_t *doc;

    if (!(b = sbx_body(req, resp))) {
        return;
    }
    auth = trv_json_str(b, "authorization");
    av = json_object_get(b, "amount");
    if (!auth) {
        sbx_error(req, resp, 400, "parameter_missing", "authorization is required");
        return;
    }
    if (av && !amount_of(av, &amount)) {
        sbx_error(req, resp, 400, "parameter_invalid_integer", "amount must be a positive integer");
        return;
    }
    if (!sbx_idem_begin(req, resp, &c, 978, "payments") || !read_auth(req, resp, c, auth, &doc)) {
        return;
    }
    if (!doc) {
        fail_in(req, resp, c, 404, "resource_missing", "No such authorization");
        return;
    }
    if (!av) {
        amount = (apr_int64_t)(json_integer_value(json_object_get(doc, "amount_captured"))
                               - json_integer_value(json_object_get(doc, "amount_refunded")));
    }
    {
        const char *a = apr_psprintf(req->pool, "%" APR_INT64_T_FMT, amount);
        if (trv_db_select(c, req->pool, &refund_take, &rows, TRV_DB_ARGS(a, auth, a, a))
            != APR_SUCCESS) {
            sbx_db_fail(req, resp, c, 979, "refunding");
            return;
        }
        if (rows->n == 0) {
            fail_in(req, resp, c, 400,
                    strcmp(trv_json_str(doc, "status"), "captured") != 0 ? "charge_not_captured"
                                                                         : "amount_too_large",
                    strcmp(trv_json_str(doc, "status"), "captured") != 0
                        ? "Only a captured authorization can be refunded"
                        : "The refund exceeds what was captured and not yet refunded");
            return;
        }
        if (trv_db_select(c, req->pool, &refund_insert, &rows,
                          TRV_DB_ARGS(id, auth, trv_rows_get(rows, 0, "currency"), a))
            != APR_SUCCESS || rows->n != 1) {
            sbx_db_fail(req, resp, c, 980, "refunding");
            return;
        }
    }
    doc = trv_json_bind(req->pool, refund_json(req->pool, id, auth,
                                               trv_json_str(doc, "currency"), amount, "succeeded",
                                               apr_atoi64(trv_rows_get(rows, 0, "created"))));
    sbx_idem_finish(req, resp, c, 200, doc, 984, "payments");
}

static void get_refund(trv_req *req, trv_resp *resp)
{
    const char *id = apr_table_get(req->params, "id");
    trv_dbc *c;
    trv_rows *r;
    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS) {
        sbx_db_fail(req, resp, NULL, 985, "reading a refund");
        return;
    }
    if (trv_db_select(c, req->pool, &refund_get, &r, TRV_DB_ARGS(id)) != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 986, "reading a refund");
        return;
    }
    trv_db_close(req->env->db, c);
    if (r->n == 0) {
        sbx_error(req, resp, 404, "resource_missing", "No such refund: '%s'", id);
        return;
    }
    sbx_send(req, resp, 200, refund_json(req->pool, id, trv_rows_get(r, 0, "authorization_id"),
                                         trv_rows_get(r, 0, "currency"),
                                         apr_atoi64(trv_rows_get(r, 0, "amount")),
                                         trv_rows_get(r, 0, "status"),
                                         apr_atoi64(trv_rows_get(r, 0, "created"))));
}

/* ---- SDK sessions ---- */

static int session_json(trv_req *req, trv_resp *resp, trv_dbc *c, const trv_rows *r,
                        int with_secret, json_t **out)
{
    const char *auth = trv_rows_get(r, 0, "authorization_id");
    json_t *a = NULL;
    const char *canceled = trv_rows_get(r, 0, "canceled");
    if (auth && !read_auth(req, resp, c, auth, &a)) {
        return 0;
    }
    *out = trv_json_bind(req->pool, json_pack("{s:s,s:s,s:I,s:s,s:s,s:O?,s:I,s:o,s:b}",
        "id", trv_rows_get(r, 0, "id"), "object", "sdk_session",
        "amount", (json_int_t)apr_atoi64(trv_rows_get(r, 0, "amount")),
        "currency", lower3(req->pool, trv_rows_get(r, 0, "currency")),
        "status", strcmp(trv_rows_get(r, 0, "status"), "open") == 0
                      && trv_rows_bool(r, 0, "expired") ? "expired" : trv_rows_get(r, 0, "status"),
        "authorization", a, "expires_at", (json_int_t)apr_atoi64(trv_rows_get(r, 0, "expires")),
        "canceled_at", canceled ? json_integer(apr_atoi64(canceled)) : json_null(),
        "livemode", 0));
    if (with_secret) {
        json_object_set_new(*out, "client_secret",
                            json_string(trv_rows_get(r, 0, "client_secret")));
    }
    return 1;
}

static void create_session(trv_req *req, trv_resp *resp)
{
    const json_t *b;
    const char *cur, *id = trv_id_new(req->pool, "cs"), *secret;
    apr_int64_t amount;
    trv_dbc *c;
    trv_rows *rows;
    json_t *doc;

    if (!(b = sbx_body(req, resp))) {
        return;
    }
    if (!money_params(req, resp, b, &amount, &cur)) {
        return;
    }
    /* Stripe's shape: the secret starts with the session id. */
    secret = apr_pstrcat(req->pool, id, "_secret_", trv_random_token(req->pool, 18), NULL);
    if (!sbx_idem_begin(req, resp, &c, 987, "payments")) {
        return;
    }
    if (trv_db_exec(c, req->pool, &session_insert, NULL, TRV_DB_ARGS(
            id, secret, cur, apr_psprintf(req->pool, "%" APR_INT64_T_FMT, amount),
            apr_psprintf(req->pool, "%" APR_INT64_T_FMT, sbx_now() + SESSION_TTL))) != APR_SUCCESS
        || trv_db_select(c, req->pool, &session_get, &rows, TRV_DB_ARGS(id)) != APR_SUCCESS
        || rows->n != 1) {
        sbx_db_fail(req, resp, c, 988, "creating a session");
        return;
    }
    if (!session_json(req, resp, c, rows, 1, &doc)) {
        return;
    }
    sbx_idem_finish(req, resp, c, 200, doc, 989, "payments");
}

static void get_session(trv_req *req, trv_resp *resp)
{
    const char *id = apr_table_get(req->params, "id");
    trv_dbc *c;
    trv_rows *rows;
    json_t *doc;
    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS) {
        sbx_db_fail(req, resp, NULL, 990, "reading a session");
        return;
    }
    if (trv_db_select(c, req->pool, &session_get, &rows, TRV_DB_ARGS(id)) != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 991, "reading a session");
        return;
    }
    if (rows->n == 0) {
        trv_db_close(req->env->db, c);
        sbx_error(req, resp, 404, "resource_missing", "No such sdk_session: '%s'", id);
        return;
    }
    if (!session_json(req, resp, c, rows, 0, &doc)) {
        return;
    }
    trv_db_close(req->env->db, c);
    sbx_send(req, resp, 200, json_incref(doc));
}

/* The customer's device: authenticated by the session's client secret,
 * not the merchant's key (this route is public). */
static void confirm_session(trv_req *req, trv_resp *resp)
{
    const char *id = apr_table_get(req->params, "id"), *secret, *have;
    const json_t *b;
    const sbx_vault_card *in;
    trv_dbc *c;
    trv_rows *rows;
    json_t *doc, *auth;
    int status;

    if (!(b = sbx_body(req, resp))) {
        return;
    }
    secret = trv_json_str(b, "client_secret");
    if (!(in = sbx_vault_card_of(trv_json_str(b, "payment_method")))) {
        sbx_error(req, resp, 400, "resource_missing", "No such payment_method");
        return;
    }
    if (!sbx_idem_begin(req, resp, &c, 992, "payments")) {
        return;
    }
    if (trv_db_select(c, req->pool, &session_lock, &rows, TRV_DB_ARGS(id)) != APR_SUCCESS
        || trv_db_select(c, req->pool, &session_get, &rows, TRV_DB_ARGS(id)) != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 993, "confirming a session");
        return;
    }
    have = rows->n ? trv_rows_get(rows, 0, "client_secret") : NULL;
    if (!have || !secret || strlen(secret) != strlen(have)
        || CRYPTO_memcmp(secret, have, strlen(have)) != 0) {
        fail_in(req, resp, c, 401, "invalid_client_secret",
                "The client secret does not match this session");
        return;
    }
    if (strcmp(trv_rows_get(rows, 0, "status"), "canceled") == 0) {
        fail_in(req, resp, c, 400, "sdk_session_canceled",
                "This session was canceled by the merchant; it can no longer be paid");
        return;
    }
    if (strcmp(trv_rows_get(rows, 0, "status"), "open") != 0) {
        fail_in(req, resp, c, 400, "sdk_session_unexpected_state",
                "This session was already paid");
        return;
    }
    if (trv_rows_bool(rows, 0, "expired")) {
        fail_in(req, resp, c, 400, "sdk_session_expired", "This session expired");
        return;
    }
    if (!authorize_in(req, resp, c, in, trv_rows_get(rows, 0, "currency"),
                      apr_atoi64(trv_rows_get(rows, 0, "amount")), 0, id, NULL, &status,
                      &auth)) {
        return;
    }
    if (status != 200) {
        sbx_idem_finish(req, resp, c, status, auth, 994, "payments");
        return;
    }
    if (trv_db_exec(c, req->pool, &session_complete, NULL,
                    TRV_DB_ARGS(trv_json_str(auth, "id"), id)) != APR_SUCCESS
        || trv_db_select(c, req->pool, &session_get, &rows, TRV_DB_ARGS(id)) != APR_SUCCESS
        || !session_json(req, resp, c, rows, 0, &doc)) {
        if (!resp->status) {
            sbx_db_fail(req, resp, c, 995, "confirming a session");
        }
        return;
    }
    sbx_idem_finish(req, resp, c, 200, doc, 996, "payments");
}

/* The merchant cancels a session it will not use: from then on the
 * device's confirm is refused. A session the device already paid is
 * canceled too, and the answer carries its authorization, still held:
 * voiding it is the merchant's next call. Canceling again answers the
 * session as it is; a session whose payment was captured cannot be
 * canceled (refund it). */
static void cancel_session(trv_req *req, trv_resp *resp)
{
    const char *id = apr_table_get(req->params, "id"), *auth_id;
    trv_dbc *c;
    trv_rows *rows;
    json_t *auth = NULL, *doc;

    if (!sbx_idem_begin(req, resp, &c, 1300, "payments")) {
        return;
    }
    if (trv_db_select(c, req->pool, &session_lock, &rows, TRV_DB_ARGS(id)) != APR_SUCCESS
        || trv_db_select(c, req->pool, &session_get, &rows, TRV_DB_ARGS(id)) != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 1301, "canceling a session");
        return;
    }
    if (rows->n == 0) {
        fail_in(req, resp, c, 404, "resource_missing", "No such sdk_session");
        return;
    }
    auth_id = trv_rows_get(rows, 0, "authorization_id");
    if (auth_id && !read_auth(req, resp, c, auth_id, &auth)) {
        return;
    }
    if (auth && strcmp(trv_json_str(auth, "status"), "captured") == 0) {
        fail_in(req, resp, c, 400, "sdk_session_unexpected_state",
                "This session's payment was captured; refund it instead");
        return;
    }
    if (trv_db_exec(c, req->pool, &session_cancel, NULL, TRV_DB_ARGS(id)) != APR_SUCCESS
        || trv_db_select(c, req->pool, &session_get, &rows, TRV_DB_ARGS(id)) != APR_SUCCESS
        || rows->n != 1) {
        sbx_db_fail(req, resp, c, 1302, "canceling a session");
        return;
    }
    if (!session_json(req, resp, c, rows, 0, &doc)) {
        return;
    }
    sbx_idem_finish(req, resp, c, 200, doc, 1303, "payments");
}

const trv_route sbx_pay_routes[] = {
    {"POST", "/payments/v1/authorizations", create_authorization, 0},
    {"GET", "/payments/v1/authorizations/{id}", get_authorization, 0},
    {"POST", "/payments/v1/authorizations/{id}/capture", capture, 0},
    {"POST", "/payments/v1/authorizations/{id}/cancel", cancel, 0},
    {"POST", "/payments/v1/refunds", create_refund, 0},
    {"GET", "/payments/v1/refunds/{id}", get_refund, 0},
    {"POST", "/payments/v1/sdk_sessions", create_session, 0},
    {"GET", "/payments/v1/sdk_sessions/{id}", get_session, 0},
    {"POST", "/payments/v1/sdk_sessions/{id}/confirm", confirm_session, TRV_ROUTE_PUBLIC},
    {"POST", "/payments/v1/sdk_sessions/{id}/cancel", cancel_session, 0},
    {NULL, NULL, NULL, 0},
};
