/* What the hotel adapters share: the call with its outcome logged, money
 * from the wire's decimal strings, request signatures' digests and query
 * strings. */
#include "hotel/supplier.h"
#include "core/json.h"
#include "core/log.h"
#include "core/clock.h"
#include "core/money.h"
#include "core/json_cache.h"
#include "payment/forward.h"

#include <apr_strings.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A hotel call by trv_supplier_call_send (core/supplier_call.h): how
 * holds the call's own; the domain's part is added here (logged and
 * counted as "hotel <line>", within the search's deadline), logno the
 * kind of call's number. */
static trv_up_status hotel_send(trv_hotel_ctx *ctx, trv_supplier_call_opts *how, int logno,
                                const char *method, const char *path, const json_t *body,
                                trv_up_result *res, trv_hotel_err *err)
{
    how->family = "hotel";
    how->who = how->counted_as = apr_pstrcat(ctx->pool, "hotel ", ctx->up->name, NULL);
    how->deadline = ctx->deadline;
    return trv_supplier_call_send(&ctx->call, how, logno, method, path, body, res, err);
}

/* The options of a call whose headers carry the key (auth; NULL: the
 * bearer key). */
static trv_supplier_call_opts with_auth(const apr_table_t *auth, int read)
{
    trv_supplier_call_opts how = {0};
    how.headers = auth;
    how.read = read;
    return how;
}

/* A TRV1410 call with auth: its answer read with jval or not (read), a
 * search or not (search). */
static trv_up_status send_auth(trv_hotel_ctx *ctx, const apr_table_t *auth, int read,
                               int search, const char *method, const char *path,
                               const json_t *body, trv_up_result *res, trv_hotel_err *err)
{
    trv_supplier_call_opts how = with_auth(auth, read);
    how.search = search;
    return hotel_send(ctx, &how, 1410, method, path, body, res, err);
}

trv_up_status trv_hwire_call(trv_hotel_ctx *ctx, const char *method, const char *path,
                             const apr_table_t *auth, const json_t *body,
                             trv_up_result *res, trv_hotel_err *err)
{
    return send_auth(ctx, auth, 0, 0, method, path, body, res, err);
}

trv_up_status trv_hwire_read(trv_hotel_ctx *ctx, const char *method, const char *path,
                             const apr_table_t *auth, const json_t *body,
                             trv_up_result *res, trv_hotel_err *err)
{
    return send_auth(ctx, auth, 1, 0, method, path, body, res, err);
}

trv_up_status trv_hwire_search(trv_hotel_ctx *ctx, const char *method, const char *path,
                               const apr_table_t *auth, const json_t *body,
                               trv_up_result *res, trv_hotel_err *err)
{
    return send_auth(ctx, auth, 1, 1, method, path, body, res, err);
}

trv_up_status trv_hwire_call_content(trv_hotel_ctx *ctx, const char *path,
                                     const apr_table_t *auth, trv_up_result *res,
                                     trv_hotel_err *err)
{
    apr_interval_time_t ttl = ctx->env->cfg ? ctx->env->cfg->content_ttl : 0;
    const char *key = apr_pstrcat(ctx->pool, ctx->up->name, " ", ctx->up->base_url, path, NULL);
    json_t *kept = ctx->env->content_cache && ttl > 0
                       ? trv_json_cache_get(ctx->env->content_cache, key, apr_time_now())
                       : NULL;
    trv_up_status st;
    if (kept) {
        memset(res, 0, sizeof(*res));
        res->status = TRV_UP_OK;
        res->http_status = 200;
        res->body = trv_json_bind(ctx->pool, kept);
        return TRV_UP_OK;
    }
    st = trv_hwire_call(ctx, "GET", path, auth, NULL, res, err);
    if (st == TRV_UP_OK && res->body && ctx->env->content_cache && ttl > 0) {
        trv_json_cache_put(ctx->env->content_cache, key, res->body, apr_time_now(), ttl);
    }
    return st;
}

trv_up_status trv_hwire_call_idem(trv_hotel_ctx *ctx, const trv_hotel_supplier *self,
                                  const char *method, const char *path,
                                  const apr_table_t *auth, const json_t *body,
                                  const char *idempotency_key, trv_up_result *res,
                                  trv_hotel_err *err)
{
    trv_supplier_call_opts how = with_auth(auth, 0);
    /* The protocol's row says whether its vendor honours the key; one
     * that does not is sent none, so the request is never resent. */
    how.idempotency_key = trv_supplier_idempotency_key(trv_hotel_suppliers, self,
                                                       idempotency_key);
    return hotel_send(ctx, &how, 1420, method, path, body, res, err);
}

trv_up_status trv_hwire_call_forwarded(trv_hotel_ctx *ctx, const trv_hotel_supplier *self,
                                       const char *method,
                                       const char *path, const apr_table_t *auth,
                                       const json_t *body, const char *idempotency_key,
                                       const char *instrument_id, const char **card_last4,
                                       trv_up_result *res, trv_hotel_err *err)
{
    trv_supplier_call_opts how = with_auth(auth, 0);
    trv_pay_ctx pc;
    trv_pay_forwarder *fw;
    trv_pay_err perr = {0};
    trv_up_status st;
    if (!trv_pay_ctx_init(ctx->env, ctx->pool, ctx->request_id, &pc)) {
        memset(res, 0, sizeof(*res));
        err->code = "unavailable";
        err->message = "no payment provider is configured to forward the card";
        return res->status = TRV_UP_UNAVAILABLE;
    }
    /* The hop to the provider is keyed (the provider honours its key);
     * the supplier gets an Idempotency-Key only if its row says it honours
     * one. */
    fw = trv_pay_forwarder_make(&pc, instrument_id, idempotency_key);
    how.via = trv_pay_forwarder_http(fw);
    how.idempotency_key = trv_supplier_idempotency_key(trv_hotel_suppliers, self,
                                                       idempotency_key);
    st = hotel_send(ctx, &how, 2501, method, path, body, res, err);
    if (trv_pay_forwarder_refused(fw, &perr)) {
        /* The provider holds no such instrument (or will not send it to
         * this supplier): nothing reached the supplier. */
        err->code = "payment_instrument_invalid";
        err->message = perr.message ? perr.message : "the payment provider refused the instrument";
        return res->status = TRV_UP_REJECTED;
    }
    if (card_last4) {
        *card_last4 = trv_pay_forwarder_last4(fw);
    }
    return st;
}

void trv_hwire_penalty_put(json_t *policy, const char *from, apr_int64_t minor,
                           const char *currency)
{
    json_t *o = json_object();
    json_object_set_new_nocheck(o, "from", json_string_nocheck(from));
    json_object_set_new_nocheck(o, "amount", trv_hwire_money(minor, currency));
    json_array_append_new(json_object_get(policy, "penalties"), o);
}

static int cmp_cstr(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

json_t *trv_hwire_policy_sum(apr_pool_t *p, const json_t *rooms, const char *currency)
{
    apr_array_header_t *ats = apr_array_make(p, 8, sizeof(const char *));
    const json_t *r, *pen;
    json_t *out;
    size_t i, k;
    int refundable = 1, n;
    json_array_foreach(rooms, i, r) {
        const json_t *pol = json_object_get(r, "cancellation_policy");
        if (!json_is_object(pol)) {
            return NULL;
        }
        refundable = refundable && json_is_true(json_object_get(pol, "refundable"));
        json_array_foreach(json_object_get(pol, "penalties"), k, pen) {
            if (trv_json_str(pen, "from")) {
                APR_ARRAY_PUSH(ats, const char *) = trv_json_str(pen, "from");
            }
        }
    }
    if (json_array_size(rooms) == 0) {
        return NULL;
    }
    /* Instants are all printed by trv_time_format: they sort as text. */
    qsort(ats->elts, (size_t)ats->nelts, sizeof(const char *), cmp_cstr);
    out = json_pack("{s:b,s:[]}", "refundable", refundable, "penalties");
    for (n = 0; n < ats->nelts; n++) {
        const char *at = APR_ARRAY_IDX(ats, n, const char *);
        apr_int64_t sum = 0;
        if (n > 0 && strcmp(at, APR_ARRAY_IDX(ats, n - 1, const char *)) == 0) {
            continue;
        }
        json_array_foreach(rooms, i, r) {
            apr_int64_t in_force = 0, m;
            json_array_foreach(json_object_get(json_object_get(r, "cancellation_policy"),
                                               "penalties"), k, pen) {
                const char *from = trv_json_str(pen, "from");
                if (from && strcmp(from, at) <= 0
                    && trv_money_minor_of(json_object_get(json_object_get(pen, "amount"),
                                                          "amount"), currency, &m) == 0) {
                    in_force = m;
                }
            }
            /* Each room's penalty is in range; their sum must be too (a
             * null amount is no policy: the caller keeps what it had). */
            if (trv_hwire_sum(&sum, in_force) != 0) {
                json_decref(out);
                return NULL;
            }
        }
        trv_hwire_penalty_put(out, at, sum, currency);
    }
    return out;
}

trv_up_status trv_hwire_bad(trv_hotel_ctx *ctx, trv_hotel_err *err, const char *what)
{
    return trv_supplier_call_bad(&ctx->call, 1411,
                                 apr_pstrcat(ctx->pool, "hotel ", ctx->up->name, NULL), what,
                                 err);
}

trv_up_status trv_hwire_cancel_refused(trv_hotel_ctx *ctx, const char *read_path,
                                       const apr_table_t *auth, trv_hwire_cancelled_fn cancelled_of,
                                       trv_hotel_canceled *out, trv_hotel_err *err)
{
    trv_hotel_err refusal = *err;
    trv_up_result res;
    trv_up_status st = trv_hwire_call(ctx, "GET", read_path, auth, NULL, &res, err);
    if (st != TRV_UP_OK) {
        /* Whether the booking is cancelled is unknown: ask again later
         * (a read refused, e.g. throttled, is no answer to the cancel). */
        return st == TRV_UP_REJECTED ? TRV_UP_UNAVAILABLE : st;
    }
    if ((st = cancelled_of(ctx, res.body, out, err)) == TRV_UP_OK) {
        trv_log_msg(&ctx->env->log, TRV_LOG_INFO, ctx->request_id,
                    TRVLOGNO(3540) "hotel %s refused a cancel (%s) of a booking it reads "
                    "cancelled: an earlier cancel's answer was lost; that cancellation is "
                    "the outcome", ctx->up->name, refusal.code ? refusal.code : "-");
    } else if (st == TRV_UP_REJECTED) {
        *err = refusal;
    }
    return st;
}

const char *trv_hwire_num(apr_pool_t *p, double v)
{
    return apr_psprintf(p, "%.6f", v);
}

json_t *trv_hwire_money(apr_int64_t minor, const char *currency)
{
    trv_money m;
    if (trv_money_make(&m, minor, currency) != APR_SUCCESS) {
        return json_null();
    }
    return trv_money_json(&m);
}

/* A string the caller vouches for (see supplier.h), or null. */
static json_t *str(const char *s)
{
    return s ? json_string_nocheck(s) : json_null();
}

static void put(json_t *o, const char *key, json_t *v)
{
    json_object_set_new_nocheck(o, key, v ? v : json_null());
}

json_t *trv_hwire_policy_new(int refundable)
{
    json_t *o = json_object();
    put(o, "refundable", json_boolean(refundable));
    put(o, "penalties", json_array());
    return o;
}

json_t *trv_hwire_ages(const trv_hotel_occ *occ)
{
    json_t *a = json_array();
    int i;
    for (i = 0; occ && i < occ->n_children; i++) {
        json_array_append_new(a, json_integer(occ->ages[i]));
    }
    return a;
}

json_t *trv_hwire_room_doc(const trv_hwire_room *r)
{
    json_t *o = json_object();
    put(o, "position", json_integer(r->position));
    put(o, "name", str(r->name));
    put(o, "board", str(r->board));
    put(o, "board_name", str(r->board_name));
    put(o, "adults", json_integer(r->adults));
    put(o, "children", r->children);
    put(o, "total", r->total);
    if (r->minimum_selling_price) {
        put(o, "minimum_selling_price", r->minimum_selling_price);
    }
    put(o, "due_at_property", r->due_at_property);
    if (r->cancellation_policy) {
        put(o, "cancellation_policy", json_incref(r->cancellation_policy));
    }
    return o;
}

json_t *trv_hwire_offer_doc(const char *code, const char *name, const char *board,
                            const char *board_name, json_t *total, json_t *policy,
                            json_t *promotions, json_t *rooms)
{
    json_t *o = json_object(), *type = json_object();
    put(type, "code", str(code));
    put(type, "name", str(name));
    put(o, "room_type", type);
    put(o, "board", str(board));
    put(o, "board_name", str(board_name));
    put(o, "total", total);
    put(o, "cancellation_policy", json_incref(policy));
    put(o, "promotions", promotions ? json_incref(promotions) : json_array());
    put(o, "rooms", json_incref(rooms));
    return o;
}

const char *trv_hwire_board(apr_pool_t *p, const char *code)
{
    static const char *const map[][2] = {{"RO", "ROOM_ONLY"}, {"BB", "BED_AND_BREAKFAST"},
                                         {"HB", "HALF_BOARD"}, {"FB", "FULL_BOARD"},
                                         {"AI", "ALL_INCLUSIVE"}};
    size_t i;
    char *up;
    for (i = 0; code && i < sizeof(map) / sizeof(map[0]); i++) {
        if (strcasecmp(code, map[i][0]) == 0) {
            return map[i][1];
        }
    }
    up = apr_pstrdup(p, code ? code : "ROOM_ONLY");
    for (i = 0; up[i]; i++) {
        up[i] = (char)toupper((unsigned char)up[i]);
    }
    return up;
}

int trv_hwire_penalty_add(apr_pool_t *p, json_t *policy, const char *from,
                          const json_t *amount, const char *currency)
{
    apr_int64_t minor;
    if (trv_money_minor_of(amount, currency, &minor) != 0) {
        return -1;
    }
    return trv_hwire_penalty_add_minor(p, policy, from, minor, currency);
}

int trv_hwire_penalty_add_minor(apr_pool_t *p, json_t *policy, const char *from,
                                apr_int64_t minor, const char *currency)
{
    apr_time_t t;
    if (!from || trv_time_parse(from, &t) != APR_SUCCESS) {
        return -1;
    }
    trv_hwire_penalty_put(policy, trv_time_format(p, t), minor, currency);
    return 0;
}

int trv_hwire_sum(apr_int64_t *acc, apr_int64_t minor)
{
    if (minor > TRV_MONEY_MAX_MINOR - *acc || minor < -TRV_MONEY_MAX_MINOR - *acc) {
        return -1;
    }
    *acc += minor;
    return 0;
}

int trv_hwire_promo_add(json_t *promotions, const char *name, apr_int64_t minor,
                        const char *currency, int position)
{
    size_t i;
    json_t *e;
    trv_money m;
    if (minor > TRV_MONEY_MAX_MINOR || minor < -TRV_MONEY_MAX_MINOR) {
        return -1;
    }
    json_array_foreach(promotions, i, e) {
        if (strcmp(json_string_value(json_object_get(e, "name")), name) == 0) {
            const char *why;
            /* An entry holds an amount in range (made here), so m is set;
             * two in-range amounts may sum beyond it (found by
             * fuzz_hotel_supplier: the next merge then read an amount
             * that did not parse, and m uninitialized). */
            if (trv_money_from_json(json_object_get(e, "amount"), &m, &why) != APR_SUCCESS
                || trv_hwire_sum(&m.minor, minor) != 0) {
                return -1;
            }
            json_object_set_new(e, "amount", trv_money_json(&m));
            json_array_append_new(json_object_get(e, "room_positions"), json_integer(position));
            return 0;
        }
    }
    json_array_append_new(promotions, json_pack("{s:s,s:o,s:[i]}", "name", name, "amount",
                                                trv_hwire_money(minor, currency),
                                                "room_positions", position));
    return 0;
}

static int by_hotel_then_total(const void *a, const void *b)
{
    const trv_hotel_offer *x = a, *y = b;
    int c = strcmp(x->sid, y->sid);
    if (c) {
        return c;
    }
    if (x->total_minor != y->total_minor) {
        return x->total_minor < y->total_minor ? -1 : 1;
    }
    return strcmp(x->ref, y->ref);
}

void trv_hwire_offers_trim(apr_array_header_t *offers, int max)
{
    int i, kept = 0, run = 0;
    trv_hotel_offer *o = (trv_hotel_offer *)offers->elts;
    qsort(o, (size_t)offers->nelts, sizeof(*o), by_hotel_then_total);
    for (i = 0; i < offers->nelts; i++) {
        run = i > 0 && strcmp(o[i].sid, o[i - 1].sid) == 0 ? run + 1 : 0;
        if (run < max) {
            o[kept++] = o[i];
        }
    }
    offers->nelts = kept;
}
