/* SUPPLIER_A: Duffel Air API v2 under /suppliers/a (docs/suppliers.md).
 *
 *   POST  /air/offer_requests[?return_offers=false]   search (201, offers inside)
 *   GET   /air/offers?offer_request_id=&limit=&after=&before=
 *   GET   /air/offers/{id}[?return_available_services=true]   (bags)
 *   PATCH /air/offers/{id}/passengers/{id}   names and loyalty accounts: member price
 *   POST  /air/orders        type instant (paid from balance) or hold
 *   POST  /air/payments      pays a hold order from balance
 *   GET   /air/orders?passenger_name[]=&booking_reference=&awaiting_payment=
 *         &created_at[after]=&created_at[before]=
 *         &limit=&after=&before=   (each Order with its metadata)
 *   GET   /air/orders/{id}
 *   POST  /air/order_cancellations                    a quote (refund, expiry)
 *   GET   /air/order_cancellations/{id}
 *   POST  /air/order_cancellations/{id}/actions/confirm   cancels
 *   GET   /air/airlines[/{id}]
 *   GET   /air/airline_initiated_changes?order_id=
 *
 * Bodies and answers are wrapped in {"data": ...}; amounts are decimal
 * strings beside their currency; lists carry meta {limit, after, before}.
 * duffel.c gives every answer the Duffel-Version check, rate-limit
 * headers and Duffel's error shape. A sells each offer once; a passenger
 * with a loyalty account at a carrier of the itinerary pays a member
 * price. The service pays A from its balance (the card is charged by the
 * service's own payment provider). */
#include "air.h"
#include "duffel.h"
#include "duffel_text.h"
#include "core/clock.h"
#include "core/ids.h"

#include <apr_lib.h>
#include <apr_strings.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define A_MAX_OFFERS 200
#define A_CANCEL_QUOTE_TTL 900
/* How long a hold order waits for its payment. */
#define A_HOLD_SECONDS 7200

static const trv_stmt a_cancel_insert = {"sbx_a_cancel_insert",
    "INSERT INTO sandbox.order_cancellations (id, order_id, currency, penalty_minor, "
    "refund_minor, refund_to, expires_at) VALUES (%s, %s, %s, %s::bigint, %s::bigint, "
    "'balance', clock_timestamp() + interval '15 minutes') RETURNING trv_ts(created_at) "
    "AS created_at, trv_ts(expires_at) AS expires_at"};
static const trv_stmt a_cancel_get = {"sbx_a_cancel_get",
    "SELECT k.id, k.order_id, k.currency, k.penalty_minor, k.refund_minor, k.refund_to, "
    "trv_ts(k.expires_at) AS expires_at, k.expires_at < clock_timestamp() AS expired, "
    "trv_ts(k.confirmed_at) AS confirmed_at, trv_ts(k.created_at) AS created_at, "
    "o.status AS order_status, o.trigger "
    "FROM sandbox.order_cancellations k JOIN sandbox.flight_orders o ON o.id = k.order_id "
    "WHERE k.id = %s AND o.supplier = 'A'"};
static const trv_stmt a_cancel_lock = {"sbx_a_cancel_lock",
    "SELECT o.status FROM sandbox.flight_orders o JOIN sandbox.order_cancellations k "
    "ON k.order_id = o.id WHERE k.id = %s FOR UPDATE OF o, k"};
static const trv_stmt a_cancel_confirm = {"sbx_a_cancel_confirm",
    "UPDATE sandbox.order_cancellations SET confirmed_at = clock_timestamp() WHERE id = %s"};
static const trv_stmt a_order_cancel = {"sbx_a_order_cancel",
    "UPDATE sandbox.flight_orders SET status = 'cancelled', cancelled_at = clock_timestamp(), "
    "updated_at = clock_timestamp(), cancellation = %s::jsonb WHERE id = %s"};

/* ---- rendering (as @duffel/api types them: Offer, Order, ...) ---- */

/* Offers, airlines and airports are written as text (duffel_text.c);
 * these are the few that need them as trees. */

static json_t *airline(apr_pool_t *p, const sbx_world *w, int i)
{
    sbx_dtext d;
    sbx_dtext_init(&d, p, w, 512);
    sbx_dtext_airline(&d, i);
    return sbx_dtext_tree(&d);
}

/* When an offer's search ran: its expiry less A's offer lifetime. */
static apr_int64_t created_at(const sbx_ctx *x, const sbx_offer *o)
{
    return o->expires - apr_time_sec(x->set->offer_ttl_a);
}

static void offer_text(sbx_dtext *d, const sbx_ctx *x, const sbx_offer *o,
                       sbx_dtext_services with)
{
    sbx_dtext_offer(d, o, created_at(x, o), A_HOLD_SECONDS, with);
}

static json_t *render_offer(apr_pool_t *p, const sbx_ctx *x, const sbx_offer *o,
                            int with_services)
{
    sbx_dtext d;
    sbx_dtext_init(&d, p, x->world, 8192);
    offer_text(&d, x, o, with_services ? SBX_DTEXT_SERVICES : SBX_DTEXT_SERVICES_NONE);
    return sbx_dtext_tree(&d);
}

/* Sends d's text, or a 500 when it is not whole (a world string that is
 * not UTF-8, which the tree it replaced could not hold either). */
static void send_text(trv_req *req, trv_resp *resp, int status, sbx_dtext *d)
{
    apr_size_t len;
    const char *s = trv_jtext_done(&d->t, &len);
    if (!s) {
        sbx_error(req, resp, 500, "internal_server_error", "The answer could not be written");
        return;
    }
    trv_ok_raw(req, resp, status, "application/json", s, len);
}

/* ---- offer requests ---- */

static const trv_stmt a_orq_insert = {"sbx_a_orq_insert",
    "INSERT INTO sandbox.duffel_offer_requests (id, query, doc, searched_at, nonce) "
    "VALUES (%s, %s::jsonb, %s::jsonb, %s::bigint, %s::bigint)"};
static const trv_stmt a_orq_get = {"sbx_a_orq_get",
    "SELECT query::text AS query, searched_at, nonce FROM sandbox.duffel_offer_requests "
    "WHERE id = %s"};
static const trv_stmt a_pax_upsert = {"sbx_a_pax_upsert",
    "INSERT INTO sandbox.duffel_offer_passengers (offer_id, passenger_id, given_name, "
    "family_name, accounts) VALUES (%s, %s, %s, %s, %s::jsonb) ON CONFLICT (offer_id, "
    "passenger_id) DO UPDATE SET given_name = EXCLUDED.given_name, family_name = "
    "EXCLUDED.family_name, accounts = EXCLUDED.accounts, updated_at = clock_timestamp()"};
static const trv_stmt a_pax_get = {"sbx_a_pax_get",
    "SELECT passenger_id, given_name, family_name, accounts::text AS accounts "
    "FROM sandbox.duffel_offer_passengers WHERE offer_id = %s"};

/* A passenger of an offer request: {type} or {age} (Duffel's two forms);
 * 0 adult, 1 child, 2 infant without a seat, -1 unusable. */
static int pax_kind(const json_t *p)
{
    const char *t = trv_json_str(p, "type");
    const json_t *age = json_object_get(p, "age");
    if (t) {
        return strcmp(t, "adult") == 0 ? 0 : strcmp(t, "child") == 0 ? 1
               : strcmp(t, "infant_without_seat") == 0 ? 2 : -1;
    }
    if (json_is_integer(age) && json_integer_value(age) >= 0 && json_integer_value(age) < 130) {
        json_int_t a = json_integer_value(age);
        return a < 2 ? 2 : a < 18 ? 1 : 0;
    }
    return trv_json_str(p, "fare_type") ? 0 : -1;
}

static int parse_pax(trv_req *req, trv_resp *resp, const json_t *pax, sbx_search *q)
{
    size_t i;
    if (!json_is_array(pax) || json_array_size(pax) == 0) {
        sbx_invalid(req, resp, "data.passengers", "must be a non-empty list");
        return 0;
    }
    for (i = 0; i < json_array_size(pax); i++) {
        switch (pax_kind(json_array_get(pax, i))) {
        case 0: q->adults++; break;
        case 1: q->children++; break;
        case 2: q->infants++; break;
        default:
            sbx_invalid(req, resp, apr_psprintf(req->pool, "data.passengers[%d]", (int)i),
                        "give type (adult, child, infant_without_seat) or age");
            return 0;
        }
    }
    return 1;
}

/* The sandbox's search <-> the stored query of an offer request. */
static json_t *query_json(const sbx_search *q)
{
    json_t *js = json_array();
    int i;
    for (i = 0; i < q->nj; i++) {
        json_array_append_new(js, json_pack("[i,i,I]", q->j[i].origin, q->j[i].dest,
                                            (json_int_t)q->j[i].day));
    }
    return json_pack("{s:o,s:i,s:i,s:i,s:i}", "j", js, "adults", q->adults,
                     "children", q->children, "infants", q->infants, "cabin", q->cabin);
}

static int query_of(const json_t *v, sbx_search *q)
{
    const json_t *js = json_object_get(v, "j");
    size_t i;
    memset(q, 0, sizeof(*q));
    if (!json_is_array(js) || json_array_size(js) < 1 || json_array_size(js) > SBX_MAX_JOURNEYS) {
        return -1;
    }
    q->nj = (int)json_array_size(js);
    for (i = 0; i < json_array_size(js); i++) {
        const json_t *e = json_array_get(js, i);
        q->j[i].origin = (int)json_integer_value(json_array_get(e, 0));
        q->j[i].dest = (int)json_integer_value(json_array_get(e, 1));
        q->j[i].day = (long)json_integer_value(json_array_get(e, 2));
    }
    q->adults = (int)json_integer_value(json_object_get(v, "adults"));
    q->children = (int)json_integer_value(json_object_get(v, "children"));
    q->infants = (int)json_integer_value(json_object_get(v, "infants"));
    q->cabin = (int)json_integer_value(json_object_get(v, "cabin"));
    return 0;
}

static void offer_request(trv_req *req, trv_resp *resp)
{
    const sbx_ctx *x = SBX(req);
    const json_t *body, *d, *sl;
    sbx_search q;
    sbx_offer *offers;
    const char *reason, *field, *cabin, *ro = apr_table_get(req->query, "return_offers");
    const char *id = trv_id_new(req->pool, "orq");
    int n, truncated, i, bad;
    sbx_dtext out;
    apr_size_t doc_at;
    const char *stored;
    apr_int64_t now = sbx_now();
    apr_uint32_t nonce = sbx_nonce();
    trv_dbc *c = NULL;

    if (!sbx_need_world(req, resp) || !(body = sbx_body(req, resp))) {
        return;
    }
    if (ro && strcmp(ro, "true") != 0 && strcmp(ro, "false") != 0) {
        sbx_invalid(req, resp, "return_offers", "must be true or false");
        return;
    }
    memset(&q, 0, sizeof(q));
    d = json_object_get(body, "data");
    sl = json_object_get(d, "slices");
    if (!json_is_object(d)) {
        sbx_invalid(req, resp, "data", "is required");
        return;
    }
    if (!json_is_array(sl) || json_array_size(sl) < 1 || json_array_size(sl) > SBX_MAX_JOURNEYS) {
        sbx_invalid(req, resp, "data.slices", "must list 1 to 4 slices");
        return;
    }
    q.nj = (int)json_array_size(sl);
    for (i = 0; i < q.nj; i++) {
        const json_t *s = json_array_get(sl, (size_t)i);
        q.j[i].origin = sbx_airport_find(x->world, trv_json_str(s, "origin"));
        q.j[i].dest = sbx_airport_find(x->world, trv_json_str(s, "destination"));
        q.j[i].day = sbx_day_parse(trv_json_str(s, "departure_date"));
        if (q.j[i].origin < 0 || q.j[i].dest < 0) {
            sbx_invalid(req, resp, apr_psprintf(req->pool, "data.slices[%d]", i),
                        "origin and destination must be IATA airport codes the airline serves");
            return;
        }
        if (q.j[i].day < 0) {
            sbx_invalid(req, resp,
                        apr_psprintf(req->pool, "data.slices[%d].departure_date", i),
                        "must be a date YYYY-MM-DD");
            return;
        }
    }
    if (!parse_pax(req, resp, json_object_get(d, "passengers"), &q)) {
        return;
    }
    cabin = trv_json_str(d, "cabin_class");
    q.cabin = cabin ? sbx_cabin_parse(cabin) : SBX_ECONOMY;
    if (q.cabin < 0) {
        sbx_invalid(req, resp, "data.cabin_class",
                    "must be economy, premium_economy, business or first");
        return;
    }
    if ((reason = sbx_search_check(x->world, &q, (long)(now / 86400), &field, &bad))) {
        sbx_invalid(req, resp, bad < 0 ? apr_pstrcat(req->pool, "data.", field, NULL)
                                       : apr_psprintf(req->pool, "data.slices[%d]", bad), reason);
        return;
    }
    n = sbx_search_run(req->pool, x->world, &q, 'A', x->set->key_a, now,
                       apr_time_sec(x->set->offer_ttl_a), A_MAX_OFFERS, nonce, &offers,
                       &truncated);
    /* The offer request as stored (without its offers), then its offers
     * after it in the same text: {"data":{..., "offers":[...]}}. */
    sbx_dtext_init(&out, req->pool, x->world, 8192 + (apr_size_t)n * 4096);
    trv_jtext_obj(&out.t);
    trv_jtext_kobj(&out.t, "data");
    doc_at = out.t.len;
    trv_jtext_kstr(&out.t, "id", id);
    trv_jtext_kbool(&out.t, "live_mode", 0);
    trv_jtext_kstr(&out.t, "created_at", sbx_instant(req->pool, now));
    trv_jtext_kstr(&out.t, "cabin_class", sbx_dtext_cabin(req->pool, q.cabin));
    trv_jtext_karr(&out.t, "slices");
    for (i = 0; i < q.nj; i++) {
        trv_jtext_obj(&out.t);
        trv_jtext_key(&out.t, "origin");
        sbx_dtext_place(&out, q.j[i].origin);
        trv_jtext_kstr(&out.t, "origin_type", "airport");
        trv_jtext_key(&out.t, "destination");
        sbx_dtext_place(&out, q.j[i].dest);
        trv_jtext_kstr(&out.t, "destination_type", "airport");
        trv_jtext_kstr(&out.t, "departure_date",
                       trv_json_str(json_array_get(sl, (size_t)i), "departure_date"));
        trv_jtext_end(&out.t);
    }
    trv_jtext_end(&out.t);
    trv_jtext_karr(&out.t, "passengers");
    for (i = 0; n > 0 && i < sbx_pax_count(&offers[0]); i++) {
        trv_jtext_obj(&out.t);
        trv_jtext_kstr(&out.t, "id", sbx_dtext_pax_id(req->pool, &offers[0], i));
        trv_jtext_kstr(&out.t, "type", sbx_dtext_pax_type(sbx_pax_type(&offers[0], i)));
        trv_jtext_end(&out.t);
    }
    trv_jtext_end(&out.t);
    stored = apr_pstrcat(req->pool, "{", apr_pstrmemdup(req->pool, out.t.buf + doc_at,
                                                        out.t.len - doc_at), "}", NULL);
    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS
        || trv_db_exec(c, req->pool, &a_orq_insert, NULL, TRV_DB_ARGS(id,
               trv_json_dump(req->pool, trv_json_bind(req->pool, query_json(&q))),
               stored, apr_psprintf(req->pool, "%" APR_INT64_T_FMT, now),
               apr_psprintf(req->pool, "%u", (unsigned)nonce))) != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 1800, "storing an offer request");
        return;
    }
    trv_db_close(req->env->db, c);
    if (!ro || strcmp(ro, "true") == 0) {
        /* An offer request's offers carry no available_services. */
        trv_jtext_karr(&out.t, "offers");
        for (i = 0; i < n; i++) {
            offer_text(&out, x, &offers[i], SBX_DTEXT_NO_SERVICES);
        }
        trv_jtext_end(&out.t);
    }
    trv_jtext_end(&out.t);
    trv_jtext_end(&out.t);
    send_text(req, resp, 201, &out);
}

/* GET /air/offers?offer_request_id=: the offer request's offers again
 * (the same search, instant and nonce), a page at a time. */
static void list_offers(trv_req *req, trv_resp *resp)
{
    const sbx_ctx *x = SBX(req);
    const char *orq = apr_table_get(req->query, "offer_request_id");
    const char *sort = apr_table_get(req->query, "sort"), *qtext;
    sbx_duffel_page_t pg;
    trv_dbc *c = NULL;
    trv_rows *rows;
    sbx_search q;
    sbx_offer *offers;
    json_t *qj;
    sbx_dtext d;
    const char *meta;
    int n, truncated, i;
    if (!sbx_need_world(req, resp) || !sbx_duffel_page(req, resp, &pg)) {
        return;
    }
    if (!orq) {
        sbx_invalid(req, resp, "offer_request_id", "is required");
        return;
    }
    if (sort && strcmp(sort, "total_amount") != 0 && strcmp(sort, "-total_amount") != 0
        && strcmp(sort, "total_duration") != 0 && strcmp(sort, "-total_duration") != 0) {
        sbx_invalid(req, resp, "sort", "must be total_amount or total_duration, - first to reverse");
        return;
    }
    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS
        || trv_db_select(c, req->pool, &a_orq_get, &rows, TRV_DB_ARGS(orq)) != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 1801, "reading an offer request");
        return;
    }
    trv_db_close(req->env->db, c);
    if (rows->n == 0) {
        sbx_error(req, resp, 404, "not_found", "No offer request %s", orq);
        return;
    }
    qtext = trv_rows_get(rows, 0, "query");
    qj = qtext ? trv_json_parse(req->pool, qtext, strlen(qtext), NULL) : NULL;
    if (query_of(qj, &q) != 0) {
        sbx_error(req, resp, 500, "internal_server_error", "Offer request %s is unreadable", orq);
        return;
    }
    /* Cheapest first, as searched; sorting by amount keeps that order. */
    n = sbx_search_run(req->pool, x->world, &q, 'A', x->set->key_a,
                       apr_atoi64(trv_rows_get(rows, 0, "searched_at")),
                       apr_time_sec(x->set->offer_ttl_a), A_MAX_OFFERS,
                       (apr_uint32_t)apr_atoi64(trv_rows_get(rows, 0, "nonce")), &offers,
                       &truncated);
    sbx_dtext_init(&d, req->pool, x->world, 8192 + (apr_size_t)pg.limit * 4096);
    trv_jtext_obj(&d.t);
    trv_jtext_karr(&d.t, "data");
    for (i = 0; i < pg.limit && pg.offset + i < n; i++) {
        int at = sort && sort[0] == '-' ? n - 1 - (pg.offset + i) : pg.offset + i;
        offer_text(&d, x, &offers[at], SBX_DTEXT_SERVICES_NONE);
    }
    trv_jtext_end(&d.t);
    meta = trv_json_dump(req->pool, trv_json_bind(req->pool,
                                                  sbx_duffel_page_meta(req->pool, &pg, n)));
    trv_jtext_key(&d.t, "meta");
    trv_jtext_raw(&d.t, meta, strlen(meta));
    trv_jtext_end(&d.t);
    send_text(req, resp, 200, &d);
}

/* The offer named in the path (off_...), priced as of now; answers 404
 * for an unknown one and 422 offer_no_longer_available for an expired one. */
static int load_offer(trv_req *req, trv_resp *resp, const char *id, sbx_offer *o)
{
    const sbx_ctx *x = SBX(req);
    apr_int64_t now = sbx_now();
    if (!id || strncmp(id, "off_", 4) != 0
        || sbx_offer_decode(req->pool, x->world, id + 4, 'A', x->set->key_a, now, o) != 0) {
        sbx_error(req, resp, 404, "not_found", "No offer %s", id ? id : "");
        return 0;
    }
    if (o->expires <= now) {
        sbx_error(req, resp, 422, "offer_no_longer_available",
                  "The offer expired at %s; search again", sbx_instant(req->pool, o->expires));
        return 0;
    }
    return 1;
}

/* What PATCH .../passengers/{id} stored on the offer: {passenger_id:
 * {given_name, family_name, loyalty_programme_accounts}}; NULL on a
 * database failure (answered). */
static json_t *offer_passengers(trv_req *req, trv_resp *resp, const char *offer_id)
{
    trv_dbc *c = NULL;
    trv_rows *rows;
    json_t *out;
    int i;
    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS
        || trv_db_select(c, req->pool, &a_pax_get, &rows, TRV_DB_ARGS(offer_id)) != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 1802, "reading an offer's passengers");
        return NULL;
    }
    trv_db_close(req->env->db, c);
    out = trv_json_bind(req->pool, json_object());
    for (i = 0; i < rows->n; i++) {
        const char *acc = trv_rows_get(rows, i, "accounts");
        json_t *a = json_loads(acc, 0, NULL);
        json_object_set_new(out, trv_rows_get(rows, i, "passenger_id"), json_pack(
            "{s:s,s:s,s:o}", "given_name", trv_rows_get(rows, i, "given_name"),
            "family_name", trv_rows_get(rows, i, "family_name"),
            "loyalty_programme_accounts", a ? a : json_array()));
    }
    return out;
}

/* The member discount of passenger i holding these accounts: the best one. */
static apr_int64_t member_discount(const sbx_world *w, const sbx_offer *o, int i,
                                   const json_t *accounts)
{
    apr_int64_t best = 0;
    size_t a;
    for (a = 0; a < json_array_size(accounts); a++) {
        const char *code = trv_json_str(json_array_get(accounts, a), "airline_iata_code");
        apr_int64_t d = code ? sbx_member_discount(w, o, i, code) : 0;
        if (d > best) {
            best = d;
        }
    }
    return best;
}

/* The offer's passengers as PATCH left them, and its price with their
 * member discounts. */
static void apply_passengers(apr_pool_t *p, const sbx_world *w, json_t *doc,
                             const sbx_offer *o, const json_t *stored)
{
    json_t *pax = json_object_get(doc, "passengers");
    apr_int64_t discount = 0;
    size_t i;
    for (i = 0; i < json_array_size(pax); i++) {
        json_t *e = json_array_get(pax, i);
        const json_t *s = json_object_get(stored, trv_json_str(e, "id"));
        if (s) {
            json_object_update(e, (json_t *)s);
            discount += member_discount(w, o, (int)i,
                                        json_object_get(s, "loyalty_programme_accounts"));
        }
    }
    if (discount > 0) {
        json_object_set_new(doc, "base_amount",
                            json_string(sbx_amount(p, o->base - discount, o->currency)));
        json_object_set_new(doc, "total_amount",
                            json_string(sbx_amount(p, o->base - discount + o->tax, o->currency)));
    }
}

static void get_offer(trv_req *req, trv_resp *resp)
{
    sbx_offer o;
    const char *id = apr_table_get(req->params, "offer_id");
    const char *svc = apr_table_get(req->query, "return_available_services");
    json_t *stored, *doc;
    if (svc && strcmp(svc, "true") != 0 && strcmp(svc, "false") != 0) {
        sbx_invalid(req, resp, "return_available_services", "must be true or false");
        return;
    }
    if (!sbx_need_world(req, resp) || !load_offer(req, resp, id, &o)
        || !(stored = offer_passengers(req, resp, id))) {
        return;
    }
    doc = render_offer(req->pool, SBX(req), &o, svc && strcmp(svc, "true") == 0);
    apply_passengers(req->pool, SBX(req)->world, doc, &o, stored);
    sbx_send(req, resp, 200, json_pack("{s:o}", "data", doc));
}

/* PATCH /air/offers/{id}/passengers/{id}: names and loyalty programme
 * accounts (Duffel's way to add them after the search); the offer is
 * priced with them from then on. */
static void update_offer_passenger(trv_req *req, trv_resp *resp)
{
    const char *id = apr_table_get(req->params, "offer_id");
    const char *pid = apr_table_get(req->params, "passenger_id");
    const json_t *body, *d, *acc;
    const char *given, *family;
    sbx_offer o;
    trv_dbc *c = NULL;
    size_t a;
    int i;
    if (!sbx_need_world(req, resp) || !(body = sbx_body(req, resp))
        || !load_offer(req, resp, id, &o)) {
        return;
    }
    for (i = 0; i < sbx_pax_count(&o) && strcmp(pid, sbx_dtext_pax_id(req->pool, &o, i)) != 0; i++) {
    }
    if (i == sbx_pax_count(&o)) {
        sbx_error(req, resp, 404, "not_found", "No passenger %s on offer %s", pid, id);
        return;
    }
    d = json_object_get(body, "data");
    given = trv_json_str(d, "given_name");
    family = trv_json_str(d, "family_name");
    acc = json_object_get(d, "loyalty_programme_accounts");
    if (!given || !*given || strlen(given) > 20 || !family || !*family || strlen(family) > 20) {
        sbx_invalid(req, resp, "data.given_name",
                    "given_name and family_name (1 to 20 characters) are required");
        return;
    }
    if (!json_is_array(acc)) {
        sbx_invalid(req, resp, "data.loyalty_programme_accounts", "must be a list");
        return;
    }
    for (a = 0; a < json_array_size(acc); a++) {
        const json_t *e = json_array_get(acc, a);
        const char *num = trv_json_str(e, "account_number");
        if (!trv_json_str(e, "airline_iata_code") || !num || !*num) {
            sbx_invalid(req, resp, apr_psprintf(req->pool,
                        "data.loyalty_programme_accounts[%d]", (int)a),
                        "airline_iata_code and account_number are required");
            return;
        }
    }
    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS
        || trv_db_exec(c, req->pool, &a_pax_upsert, NULL, TRV_DB_ARGS(id, pid, given, family,
                       trv_json_dump(req->pool, acc))) != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 1803, "updating an offer passenger");
        return;
    }
    trv_db_close(req->env->db, c);
    sbx_send(req, resp, 200, json_pack("{s:{s:s,s:s,s:n,s:n,s:s,s:s,s:O}}", "data", "id", pid,
                                       "type", sbx_dtext_pax_type(sbx_pax_type(&o, i)), "age",
                                       "fare_type", "given_name", given, "family_name", family,
                                       "loyalty_programme_accounts", acc));
}

/* ---- pricing passengers and services ---- */

typedef struct a_priced {
    apr_int64_t base, tax, discount, services, total;
    json_t *services_json;
    int member;
    const char *trigger;
} a_priced;

/* Checks the passengers and services of a price or order request against
 * the offer and prices them. names: the order needs names too. */
static int price_request(trv_req *req, trv_resp *resp, const sbx_offer *o, const json_t *pax,
                         const json_t *svcs, const json_t *stored, a_priced *out)
{
    const sbx_world *w = SBX(req)->world;
    int count = sbx_pax_count(o), i, seen[SBX_MAX_PAX] = {0};
    sbx_bag bags[SBX_MAX_PAX * SBX_MAX_JOURNEYS * 2];
    int nb = sbx_offer_bags(o, bags, (int)(sizeof(bags) / sizeof(bags[0])));
    int used[SBX_MAX_PAX * SBX_MAX_JOURNEYS * 2] = {0};
    size_t k;

    memset(out, 0, sizeof(*out));
    out->base = o->base;
    out->tax = o->tax;
    out->services_json = json_array();
    trv_json_bind(req->pool, out->services_json);
    if (!json_is_array(pax) || (int)json_array_size(pax) != count) {
        sbx_invalid(req, resp, "data.passengers",
                    apr_psprintf(req->pool, "must list the offer's %d passengers", count));
        return 0;
    }
    for (k = 0; k < json_array_size(pax); k++) {
        const json_t *p = json_array_get(pax, k);
        const char *id = trv_json_str(p, "id");
        const json_t *acc = json_object_get(p, "loyalty_programme_accounts");
        const char *field = apr_psprintf(req->pool, "data.passengers[%d]", (int)k);
        const char *g;
        apr_int64_t best = 0, d;
        size_t a;
        for (i = 0; i < count; i++) {
            if (id && strcmp(id, sbx_dtext_pax_id(req->pool, o, i)) == 0) {
                break;
            }
        }
        if (i == count || seen[i]) {
            sbx_invalid(req, resp, apr_pstrcat(req->pool, field, ".id", NULL),
                        "must be one of the offer's passenger ids, each once");
            return 0;
        }
        seen[i] = 1;
        {
            const char *given = trv_json_str(p, "given_name");
            const char *family = trv_json_str(p, "family_name");
            const char *born = trv_json_str(p, "born_on");
            apr_time_t t;
            if (!given || !*given || !family || !*family) {
                sbx_invalid(req, resp, field, "given_name and family_name are required");
                return 0;
            }
            if (!born || trv_date_parse(born, &t) != APR_SUCCESS) {
                sbx_invalid(req, resp, apr_pstrcat(req->pool, field, ".born_on", NULL),
                            "must be a date YYYY-MM-DD");
                return 0;
            }
            if (!out->trigger) {
                out->trigger = sbx_trigger_of(family);
            }
            g = trv_json_str(p, "gender");
            if (g && strcmp(g, "m") != 0 && strcmp(g, "f") != 0) {
                sbx_invalid(req, resp, apr_pstrcat(req->pool, field, ".gender", NULL),
                            "must be m or f");
                return 0;
            }
        }
        if (acc && !json_is_array(acc)) {
            sbx_invalid(req, resp, apr_pstrcat(req->pool, field, ".loyalty_programme_accounts",
                                               NULL), "must be a list");
            return 0;
        }
        for (a = 0; a < json_array_size(acc); a++) {
            const json_t *e = json_array_get(acc, a);
            const char *code = trv_json_str(e, "airline_iata_code");
            const char *num = trv_json_str(e, "account_number");
            if (!code || !num || !*num) {
                sbx_invalid(req, resp, apr_psprintf(req->pool,
                            "%s.loyalty_programme_accounts[%d]", field, (int)a),
                            "airline_iata_code and account_number are required");
                return 0;
            }
        }
        /* One account counts per passenger: the best, of those given now
         * and those the offer's passenger was updated with. */
        best = member_discount(w, o, i, acc);
        d = member_discount(w, o, i, json_object_get(json_object_get(stored, id),
                                                     "loyalty_programme_accounts"));
        if (d > best) {
            best = d;
        }
        if (best > 0) {
            out->discount += best;
            out->member = 1;
        }
    }
    if (svcs && !json_is_array(svcs)) {
        sbx_invalid(req, resp, "data.services", "must be a list");
        return 0;
    }
    for (k = 0; k < json_array_size(svcs); k++) {
        const json_t *s = json_array_get(svcs, k);
        const char *id = trv_json_str(s, "id");
        const json_t *qv = json_object_get(s, "quantity");
        const char *prefix = apr_psprintf(req->pool, "ase_%s-", o->tag);
        int b = -1;
        json_int_t qty = json_is_integer(qv) ? json_integer_value(qv) : -1;
        if (id && strncmp(id, prefix, strlen(prefix)) == 0) {
            b = sbx_bag_find(bags, nb, id + strlen(prefix));
        }
        if (b < 0 || used[b]) {
            sbx_invalid(req, resp, apr_psprintf(req->pool, "data.services[%d].id", (int)k),
                        "must be an available service of this offer, listed once");
            return 0;
        }
        if (qty < 1 || qty > bags[b].max_qty) {
            sbx_invalid(req, resp,
                        apr_psprintf(req->pool, "data.services[%d].quantity", (int)k),
                        apr_psprintf(req->pool, "must be 1 to %d", bags[b].max_qty));
            return 0;
        }
        used[b] = 1;
        out->services += bags[b].unit * qty;
        {
            json_t *segs = json_array();
            int n;
            for (n = 0; n < o->it[bags[b].journey].n; n++) {
                json_array_append_new(segs, json_string(sbx_dtext_seg_id(req->pool, o, bags[b].journey,
                                                               n)));
            }
            json_array_append_new(out->services_json, json_pack(
                "{s:s,s:s,s:I,s:s,s:s,s:[s],s:o,s:{s:s,s:i,s:n,s:n,s:n}}",
                "id", id, "type", "baggage", "quantity", qty,
                "total_amount", sbx_amount(req->pool, bags[b].unit * qty, o->currency),
                "total_currency", o->currency,
                "passenger_ids", sbx_dtext_pax_id(req->pool, o, bags[b].pax), "segment_ids", segs,
                "metadata", "type", bags[b].type == SBX_BAG_CHECKED ? "checked" : "carry_on",
                "maximum_weight_kg", bags[b].weight_kg, "maximum_height_cm",
                "maximum_length_cm", "maximum_depth_cm"));
        }
    }
    out->base -= out->discount;
    out->total = out->base + out->tax + out->services;
    return 1;
}

static void apply_price(apr_pool_t *p, json_t *doc, const sbx_offer *o, const a_priced *pr)
{
    json_object_set_new(doc, "base_amount", json_string(sbx_amount(p, pr->base, o->currency)));
    json_object_set_new(doc, "tax_amount", json_string(sbx_amount(p, pr->tax, o->currency)));
    json_object_set_new(doc, "total_amount", json_string(sbx_amount(p, pr->total, o->currency)));
    json_object_set(doc, "services", pr->services_json);
}

/* ---- orders ---- */

static const trv_stmt a_order_terms = {"sbx_a_order_terms",
    "UPDATE sandbox.flight_orders SET payment_required_by = CASE WHEN %s::boolean THEN "
    "clock_timestamp() + %s::bigint * interval '1 second' END, paid_at = CASE WHEN "
    "%s::boolean THEN NULL ELSE clock_timestamp() END WHERE id = %s"};
static const trv_stmt a_order_extra = {"sbx_a_order_extra",
    "SELECT trv_ts(payment_required_by) AS payment_required_by, trv_ts(paid_at) AS paid_at, "
    "payment_required_by < clock_timestamp() AS overdue FROM sandbox.flight_orders "
    "WHERE id = %s"};
static const trv_stmt a_order_lock = {"sbx_a_order_lock",
    "SELECT status, total_minor, currency, trigger, trv_ts(paid_at) AS paid_at, "
    "payment_required_by < clock_timestamp() AS overdue FROM sandbox.flight_orders "
    "WHERE id = %s AND supplier = 'A' FOR UPDATE"};
static const trv_stmt a_order_pay = {"sbx_a_order_pay",
    "UPDATE sandbox.flight_orders SET status = %s, paid_at = clock_timestamp(), "
    "updated_at = clock_timestamp(), ticketing_due_at = clock_timestamp() + "
    "%s::bigint * interval '1 millisecond' WHERE id = %s"};
static const trv_stmt a_payment_insert = {"sbx_a_payment_insert",
    "INSERT INTO sandbox.duffel_payments (id, order_id, type, amount_minor, currency) "
    "VALUES (%s, %s, 'balance', %s::bigint, %s) RETURNING trv_ts(created_at) AS created_at"};

/* Order slices from an offer's: what Duffel's Order type holds (changes
 * only: no refund condition, terminals as strings). */
static json_t *order_slices(const json_t *offer_slices)
{
    json_t *out = json_deep_copy(offer_slices), *sl;
    size_t j, k;
    json_array_foreach(out, j, sl) {
        json_t *c = json_object_get(sl, "conditions"), *seg;
        json_object_set_new(sl, "conditions", json_pack("{s:O}", "change_before_departure",
                                                        json_object_get(c, "change_before_departure")));
        json_object_del(sl, "ngs_shelf");
        json_object_del(sl, "comparison_key");
        json_array_foreach(json_object_get(sl, "segments"), k, seg) {
            json_t *pp;
            size_t i;
            /* The sandbox knows no terminals; Duffel's Order type has strings. */
            json_object_set_new(seg, "origin_terminal", json_string(""));
            json_object_set_new(seg, "destination_terminal", json_string(""));
            json_array_foreach(json_object_get(seg, "passengers"), i, pp) {
                json_object_del(pp, "fare_basis_code");
                json_object_del(pp, "cabin");
            }
        }
    }
    return out;
}

/* An airline-initiated change as Duffel shows it: the slice as it was
 * (removed) and as it is now (added), the changed segment retimed. */
static json_t *change_json(const json_t *doc, const char *order_id, const json_t *ch)
{
    const json_t *prev = json_object_get(ch, "previous"), *cur = json_object_get(ch, "current");
    json_int_t j = json_integer_value(json_object_get(ch, "journey_index"));
    const json_t *sl = json_array_get(json_object_get(doc, "slices"), (size_t)j);
    json_t *removed = json_deep_copy(sl), *added = json_deep_copy(sl), *seg;
    const char *seg_id_ = trv_json_str(ch, "segment_id");
    size_t k;
    json_array_foreach(json_object_get(removed, "segments"), k, seg) {
        if (seg_id_ && strcmp(trv_json_str(seg, "id"), seg_id_) == 0) {
            json_object_set(seg, "departing_at", json_object_get(prev, "departure_time"));
            json_object_set(seg, "arriving_at", json_object_get(prev, "arrival_time"));
        }
    }
    json_array_foreach(json_object_get(added, "segments"), k, seg) {
        if (seg_id_ && strcmp(trv_json_str(seg, "id"), seg_id_) == 0) {
            json_object_set(seg, "departing_at", json_object_get(cur, "departure_time"));
            json_object_set(seg, "arriving_at", json_object_get(cur, "arrival_time"));
        }
    }
    return json_pack("{s:O,s:s,s:O,s:O,s:n,s:n,s:[s,s,s],s:[o],s:[o],s:n}",
        "id", json_object_get(ch, "id"), "order_id", order_id,
        "created_at", json_object_get(ch, "created_at"),
        "updated_at", json_object_get(ch, "created_at"),
        "action_taken", "action_taken_at",
        "available_actions", "accept", "cancel", "change",
        "removed", removed ? removed : json_object(), "added", added ? added : json_object(),
        "travel_agent_ticket");
}

static json_t *order_json(trv_req *req, trv_dbc *c, const trv_rows *r, int *ok)
{
    apr_pool_t *p = req->pool;
    const char *status = trv_rows_get(r, 0, "status"), *id = trv_rows_get(r, 0, "id");
    json_t *doc = trv_json_parse(p, trv_rows_get(r, 0, "doc"),
                                 strlen(trv_rows_get(r, 0, "doc")), NULL);
    json_t *changes = sbx_order_changes(c, p, id);
    json_t *aic = json_array(), *docs = json_array(), *cancellation = NULL, *ps;
    const char *cancelled = trv_rows_get(r, 0, "cancelled_at");
    const char *ctext = trv_rows_get(r, 0, "cancellation");
    trv_rows *extra;
    size_t i;

    *ok = doc && changes
          && trv_db_select(c, p, &a_order_extra, &extra, TRV_DB_ARGS(id)) == APR_SUCCESS
          && extra->n == 1;
    if (!*ok) {
        json_decref(aic);
        json_decref(docs);
        return NULL;
    }
    doc = json_deep_copy(doc);
    for (i = 0; i < json_array_size(changes); i++) {
        json_array_append_new(aic, change_json(doc, id, json_array_get(changes, i)));
    }
    if (strcmp(status, "ticketed") == 0 || strcmp(status, "cancelled") == 0) {
        const json_t *pax = json_object_get(doc, "passengers");
        for (i = 0; i < json_array_size(pax); i++) {
            const json_t *e = json_array_get(pax, i);
            json_array_append_new(docs, json_pack("{s:s,s:O,s:[O]}", "type",
                                                  "electronic_ticket", "unique_identifier",
                                                  json_object_get(e, "ticket_number"),
                                                  "passenger_ids", json_object_get(e, "id")));
        }
    }
    /* The ticket number lives in documents, not on the passenger. */
    for (i = 0; i < json_array_size(json_object_get(doc, "passengers")); i++) {
        json_object_del(json_array_get(json_object_get(doc, "passengers"), i), "ticket_number");
    }
    if (ctext) {
        cancellation = json_loads(ctext, 0, NULL);
    }
    json_object_set_new(doc, "id", json_string(id));
    json_object_set_new(doc, "live_mode", json_false());
    /* Content the airline sells through Duffel, which Duffel manages. */
    json_object_set_new(doc, "content", json_string("managed"));
    json_object_set_new(doc, "booking_reference", json_string(trv_rows_get(r, 0, "pnr")));
    json_object_set_new(doc, "documents", docs);
    json_object_set_new(doc, "airline_initiated_changes", aic);
    json_object_set_new(doc, "created_at", json_string(trv_rows_get(r, 0, "created_at")));
    json_object_set_new(doc, "synced_at", json_string(trv_rows_get(r, 0, "updated_at")));
    json_object_set_new(doc, "cancelled_at", cancelled ? json_string(cancelled) : json_null());
    json_object_set_new(doc, "cancellation", cancellation ? cancellation : json_null());
    json_object_set_new(doc, "available_actions", cancelled ? json_array()
                        : json_pack("[s,s,s]", "cancel", "change", "update"));
    ps = json_pack("{s:b,s:o}", "awaiting_payment", strcmp(status, "held") == 0,
                   "paid_at", trv_rows_get(extra, 0, "paid_at")
                              ? json_string(trv_rows_get(extra, 0, "paid_at")) : json_null());
    if (trv_rows_get(extra, 0, "payment_required_by")) {
        json_object_set_new(ps, "payment_required_by",
                            json_string(trv_rows_get(extra, 0, "payment_required_by")));
        json_object_set_new(ps, "price_guarantee_expires_at",
                            json_string(trv_rows_get(extra, 0, "payment_required_by")));
    }
    json_object_set_new(doc, "payment_status", ps);
    return doc;
}

/* The instant order's one balance payment equals the total: 1, or 0 answered. */
static int balance_payment(trv_req *req, trv_resp *resp, const json_t *pay, const char *field,
                           const char *currency, apr_int64_t total)
{
    apr_int64_t paid;
    if (!json_is_object(pay) || !trv_json_str(pay, "type")
        || strcmp(trv_json_str(pay, "type"), "balance") != 0) {
        sbx_invalid(req, resp, apr_pstrcat(req->pool, field, ".type", NULL),
                    "must be balance (the sandbox's account holds no cards)");
        return 0;
    }
    if (!trv_json_str(pay, "currency") || strcmp(trv_json_str(pay, "currency"), currency) != 0
        || sbx_amount_parse(json_object_get(pay, "amount"), currency, &paid) != 0) {
        sbx_invalid(req, resp, field,
                    apr_psprintf(req->pool, "amount and currency (%s) are required", currency));
        return 0;
    }
    if (paid != total) {
        sbx_error(req, resp, 422, "price_changed",
                  "The order total is now %s %s, not %s", sbx_amount(req->pool, total,
                  currency), currency, sbx_amount(req->pool, paid, currency));
        return 0;
    }
    return 1;
}

static void create_order(trv_req *req, trv_resp *resp)
{
    const sbx_ctx *x = SBX(req);
    const json_t *body, *d, *offers, *pays, *pax;
    const char *type, *offer_id;
    sbx_offer o;
    a_priced pr;
    json_t *doc, *segs, *out, *passengers, *stored, *meta;
    sbx_order_new ord;
    trv_dbc *c = NULL;
    trv_rows *rows;
    int dup, j, k, ok, hold;
    size_t i;
    const char *order_id = trv_id_new(req->pool, "ord");

    if (!sbx_need_world(req, resp) || !(body = sbx_body(req, resp))) {
        return;
    }
    d = json_object_get(body, "data");
    offers = json_object_get(d, "selected_offers");
    if (!json_is_array(offers) || json_array_size(offers) != 1
        || !json_is_string(json_array_get(offers, 0))) {
        sbx_invalid(req, resp, "data.selected_offers", "must list exactly one offer id");
        return;
    }
    type = trv_json_str(d, "type");
    /* "hold" in the API reference; the client library's type says "pay_later". */
    hold = type && (strcmp(type, "hold") == 0 || strcmp(type, "pay_later") == 0);
    if (!type || (!hold && strcmp(type, "instant") != 0)) {
        sbx_invalid(req, resp, "data.type", "must be instant or hold");
        return;
    }
    meta = json_object_get(d, "metadata");
    if (meta && !json_is_object(meta)) {
        sbx_invalid(req, resp, "data.metadata", "must be an object of strings");
        return;
    }
    offer_id = json_string_value(json_array_get(offers, 0));
    if (!load_offer(req, resp, offer_id, &o) || !(stored = offer_passengers(req, resp, offer_id))) {
        return;
    }
    pax = json_object_get(d, "passengers");
    if (!price_request(req, resp, &o, pax, json_object_get(d, "services"), stored, &pr)) {
        return;
    }
    pays = json_object_get(d, "payments");
    if (hold) {
        if (pays && json_array_size(pays) > 0) {
            sbx_invalid(req, resp, "data.payments", "a hold order is paid later: give none");
            return;
        }
    }
    else if (!json_is_array(pays) || json_array_size(pays) != 1) {
        sbx_invalid(req, resp, "data.payments", "an instant order takes one payment");
        return;
    }
    else if (!balance_payment(req, resp, json_array_get(pays, 0), "data.payments[0]",
                              o.currency, pr.total)) {
        return;
    }

    /* The order as sold: the offer's slices, the priced party and services. */
    doc = trv_json_bind(req->pool, json_object());
    {
        json_t *off = trv_json_bind(req->pool, render_offer(req->pool, x, &o, 0));
        static const char *const keep[] = {"base_currency", "tax_currency", "total_currency",
                                           "owner", "conditions", NULL};
        for (j = 0; keep[j]; j++) {
            json_object_set(doc, keep[j], json_object_get(off, keep[j]));
        }
        json_object_set_new(doc, "slices", order_slices(json_object_get(off, "slices")));
    }
    apply_price(req->pool, doc, &o, &pr);
    passengers = json_array();
    for (i = 0; i < json_array_size(pax); i++) {
        const json_t *p = json_array_get(pax, i);
        int t = 0;
        for (j = 0; j < sbx_pax_count(&o); j++) {
            if (strcmp(trv_json_str(p, "id"), sbx_dtext_pax_id(req->pool, &o, j)) == 0) {
                t = sbx_pax_type(&o, j);
            }
        }
        json_array_append_new(passengers, json_pack(
            "{s:O,s:s,s:O,s:O,s:O,s:O*,s:O*,s:O*,s:O*,s:O*,s:s}",
            "id", json_object_get(p, "id"), "type", sbx_dtext_pax_type(t),
            "given_name", json_object_get(p, "given_name"),
            "family_name", json_object_get(p, "family_name"),
            "born_on", json_object_get(p, "born_on"), "gender", json_object_get(p, "gender"),
            "title", json_object_get(p, "title"),
            "email", json_object_get(p, "email"), "phone_number", json_object_get(p, "phone_number"),
            "loyalty_programme_accounts", json_object_get(p, "loyalty_programme_accounts"),
            "ticket_number", sbx_ticket_number(req->pool)));
    }
    json_object_set_new(doc, "passengers", passengers);
    json_object_set_new(doc, "metadata", meta ? json_deep_copy(meta) : json_object());
    segs = trv_json_bind(req->pool, json_array());
    for (j = 0; j < o.q.nj; j++) {
        for (k = 0; k < o.it[j].n; k++) {
            json_array_append_new(segs, sbx_segment_entry(req->pool, x->world, j, k,
                                                          sbx_dtext_seg_id(req->pool, &o, j, k),
                                                          &o.it[j].legs[k]));
        }
    }

    if (!sbx_idem_begin(req, resp, &c, 921, "creating an order")) {
        return;
    }
    if (!hold && pr.trigger && strcmp(pr.trigger, "failticket") == 0) {
        /* The airline refuses to issue: no order, the same answer on a retry. */
        json_t *err = trv_json_bind(req->pool, sbx_error_doc(req, "ticketing_failed",
            "The airline could not issue the tickets (test trigger Failticket)"));
        sbx_idem_finish(req, resp, c, 422, err, 923, "creating an order");
        return;
    }
    memset(&ord, 0, sizeof(ord));
    ord.id = order_id;
    ord.supplier = 'A';
    ord.offer_ref = o.ref;
    ord.pnr = sbx_pnr(req->pool);
    ord.trigger = pr.trigger;
    ord.brand = sbx_offer_brand(&o)->name;
    ord.currency = o.currency;
    ord.total = pr.total;
    ord.tax = pr.tax;
    ord.services = pr.services;
    ord.refund_allowed = sbx_offer_brand(&o)->refund_allowed;
    ord.refund_penalty = sbx_offer_refund_penalty(&o);
    ord.doc = doc;
    ord.segments = segs;
    if (hold) {
        ord.status = "held";
    }
    else if (pr.trigger && strcmp(pr.trigger, "async") == 0) {
        ord.status = "pending";
        ord.ticketing_in = x->set->async_ticketing;
    }
    else {
        ord.status = "ticketed";
    }
    if (sbx_order_insert(c, req->pool, &ord, &dup) != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 924, "creating an order");
        return;
    }
    if (dup) {
        json_t *err = trv_json_bind(req->pool, sbx_error_doc(req, "offer_no_longer_available",
            "This offer has already been ordered"));
        sbx_idem_finish(req, resp, c, 422, err, 925, "creating an order");
        return;
    }
    if (trv_db_exec(c, req->pool, &a_order_terms, NULL, TRV_DB_ARGS(hold ? "t" : "f",
                    apr_itoa(req->pool, A_HOLD_SECONDS), hold ? "t" : "f", order_id))
            != APR_SUCCESS
        || sbx_order_get(c, req->pool, order_id, 'A', &rows) != APR_SUCCESS || rows->n != 1
        || !(out = order_json(req, c, rows, &ok)) || !ok) {
        sbx_db_fail(req, resp, c, 926, "creating an order");
        return;
    }
    out = trv_json_bind(req->pool, json_pack("{s:o}", "data", out));
    if (sbx_idem_save(req, c, 201, out) != APR_SUCCESS || trv_db_commit(c) != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 927, "creating an order");
        return;
    }
    trv_db_close(req->env->db, c);
    if (pr.trigger && strcmp(pr.trigger, "unknown") == 0) {
        /* The order exists, but the answer does not come in time. */
        trv_log_msg(&req->log, TRV_LOG_INFO, req->request_id,
                    TRVLOGNO(928) "sandbox A: order %s made, hanging (test trigger Unknown)",
                    order_id);
        sbx_sleep(req, x->set->hang);
    }
    sbx_send(req, resp, 201, json_incref(out));
}

/* POST /air/payments {order_id, payment {type: balance, amount, currency}}:
 * pays a hold order; it is then ticketed (after the Async delay for that
 * trigger). */
static void create_payment(trv_req *req, trv_resp *resp)
{
    const sbx_ctx *x = SBX(req);
    const json_t *body, *d;
    const char *order_id, *status, *trig, *id = trv_id_new(req->pool, "pay");
    trv_dbc *c = NULL;
    trv_rows *rows, *ins;
    json_t *out;
    apr_int64_t total;
    if (!(body = sbx_body(req, resp))) {
        return;
    }
    d = json_object_get(body, "data");
    if (!(order_id = trv_json_str(d, "order_id"))) {
        sbx_invalid(req, resp, "data.order_id", "is required");
        return;
    }
    if (!sbx_idem_begin(req, resp, &c, 1804, "paying an order")) {
        return;
    }
    if (trv_db_select(c, req->pool, &a_order_lock, &rows, TRV_DB_ARGS(order_id)) != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 1805, "paying an order");
        return;
    }
    if (rows->n == 0) {
        trv_db_rollback(c);
        trv_db_close(req->env->db, c);
        sbx_error(req, resp, 404, "not_found", "No order %s", order_id);
        return;
    }
    status = trv_rows_get(rows, 0, "status");
    total = apr_atoi64(trv_rows_get(rows, 0, "total_minor"));
    if (strcmp(status, "held") != 0 || trv_rows_bool(rows, 0, "overdue")) {
        trv_db_rollback(c);
        trv_db_close(req->env->db, c);
        sbx_error(req, resp, 422, strcmp(status, "held") != 0 ? "already_paid" : "order_expired",
                  strcmp(status, "held") != 0 ? "The order is not awaiting payment (it is %s)"
                                              : "The order's payment was due; it is %s",
                  status);
        return;
    }
    if (!balance_payment(req, resp, json_object_get(d, "payment"), "data.payment",
                         trv_rows_get(rows, 0, "currency"), total)) {
        trv_db_rollback(c);
        trv_db_close(req->env->db, c);
        return;
    }
    trig = trv_rows_get(rows, 0, "trigger");
    if (trig && strcmp(trig, "failticket") == 0) {
        json_t *err = trv_json_bind(req->pool, sbx_error_doc(req, "ticketing_failed",
            "The airline could not issue the tickets (test trigger Failticket)"));
        sbx_idem_finish(req, resp, c, 422, err, 1806, "paying an order");
        return;
    }
    if (trv_db_exec(c, req->pool, &a_order_pay, NULL, TRV_DB_ARGS(
            trig && strcmp(trig, "async") == 0 ? "pending" : "ticketed",
            apr_psprintf(req->pool, "%" APR_INT64_T_FMT,
                         (apr_int64_t)apr_time_as_msec(x->set->async_ticketing)), order_id))
            != APR_SUCCESS
        || trv_db_select(c, req->pool, &a_payment_insert, &ins, TRV_DB_ARGS(id, order_id,
               apr_psprintf(req->pool, "%" APR_INT64_T_FMT, total),
               trv_rows_get(rows, 0, "currency"))) != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 1807, "paying an order");
        return;
    }
    out = trv_json_bind(req->pool, json_pack("{s:{s:s,s:s,s:s,s:s,s:s}}", "data", "id", id,
        "type", "balance", "amount", sbx_amount(req->pool, total, trv_rows_get(rows, 0, "currency")),
        "currency", trv_rows_get(rows, 0, "currency"),
        "created_at", trv_rows_get(ins, 0, "created_at")));
    sbx_idem_finish(req, resp, c, 201, out, 1808, "paying an order");
}

static void get_order(trv_req *req, trv_resp *resp)
{
    const char *id = apr_table_get(req->params, "order_id");
    trv_dbc *c = NULL;
    trv_rows *rows;
    json_t *out;
    int ok;
    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS) {
        sbx_db_fail(req, resp, NULL, 929, "reading an order");
        return;
    }
    if (sbx_order_get(c, req->pool, id, 'A', &rows) != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 930, "reading an order");
        return;
    }
    if (rows->n == 0) {
        trv_db_close(req->env->db, c);
        sbx_error(req, resp, 404, "not_found", "No order %s", id);
        return;
    }
    out = order_json(req, c, rows, &ok);
    if (!ok) {
        sbx_db_fail(req, resp, c, 931, "reading an order");
        return;
    }
    trv_db_close(req->env->db, c);
    sbx_send(req, resp, 200, json_pack("{s:o}", "data", out));
}

/* GET /air/orders: the organisation's orders, filtered as Duffel's API
 * reference documents them (List orders; @duffel/api's ListParamsOrders
 * names the first three): passenger_name[] (any passenger whose given or
 * family name contains one of the names, any case), booking_reference,
 * awaiting_payment, and created_at[after] / created_at[before] ("filters
 * the returned orders by creation datetime": ISO 8601 instants, orders
 * created later than after and earlier than before, at the millisecond
 * the order's created_at states); pages of limit
 * (1..200) with after/before cursors, newest first. Each entry is the
 * Order a read answers, metadata included, which is how an integrator
 * finds the order a lost answer made. */
static const trv_stmt a_order_list = {"sbx_a_order_list",
    "SELECT o.id FROM sandbox.flight_orders o WHERE o.supplier = 'A' "
    "AND (%s::text IS NULL OR o.pnr = %s) "
    "AND (%s::boolean IS NULL OR (o.status = 'held') = %s::boolean) "
    "AND (%s::jsonb IS NULL OR EXISTS (SELECT 1 FROM "
    "jsonb_array_elements(o.doc->'passengers') p, jsonb_array_elements_text(%s::jsonb) n "
    "WHERE strpos(lower(p->>'given_name'), lower(n)) > 0 "
    "OR strpos(lower(p->>'family_name'), lower(n)) > 0)) "
    "AND (%s::timestamptz IS NULL OR date_trunc('milliseconds', o.created_at) > %s::timestamptz) "
    "AND (%s::timestamptz IS NULL OR date_trunc('milliseconds', o.created_at) < %s::timestamptz) "
    "ORDER BY o.created_at DESC, o.id DESC"};

/* The created_at[bound] filter of the query, checked: 1 to go on (*out
 * NULL when absent), 0 when answered 422. */
static int created_bound(trv_req *req, trv_resp *resp, const char *bound, const char **out)
{
    const char *name = apr_pstrcat(req->pool, "created_at[", bound, "]", NULL);
    apr_time_t t;
    *out = apr_table_get(req->query, name);
    if (*out && trv_time_parse(*out, &t) != APR_SUCCESS) {
        sbx_invalid(req, resp, name, "must be an ISO 8601 datetime with a zone");
        return 0;
    }
    return 1;
}

static int add_name(void *names, const char *key, const char *value)
{
    (void)key;
    json_array_append_new(names, json_string(value));
    return 1;
}

static void list_orders(trv_req *req, trv_resp *resp)
{
    const char *ref = apr_table_get(req->query, "booking_reference");
    const char *awaiting = apr_table_get(req->query, "awaiting_payment");
    const char *since, *until;
    json_t *names = trv_json_bind(req->pool, json_array()), *page;
    sbx_duffel_page_t pg;
    trv_dbc *c = NULL;
    trv_rows *ids;
    int i;

    if (awaiting && strcmp(awaiting, "true") != 0 && strcmp(awaiting, "false") != 0) {
        sbx_invalid(req, resp, "awaiting_payment", "must be true or false");
        return;
    }
    if (!created_bound(req, resp, "after", &since) || !created_bound(req, resp, "before", &until)) {
        return;
    }
    if (!sbx_duffel_page(req, resp, &pg)) {
        return;
    }
    apr_table_do(add_name, names, req->query, "passenger_name[]", NULL);
    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS) {
        sbx_db_fail(req, resp, NULL, 3300, "listing orders");
        return;
    }
    if (trv_db_select(c, req->pool, &a_order_list, &ids, TRV_DB_ARGS(ref, ref, awaiting,
            awaiting, json_array_size(names) ? trv_json_dump(req->pool, names) : NULL,
            json_array_size(names) ? trv_json_dump(req->pool, names) : NULL, since, since, until,
            until)) != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 3300, "listing orders");
        return;
    }
    page = trv_json_bind(req->pool, json_array());
    for (i = pg.offset; i < ids->n && i < pg.offset + pg.limit; i++) {
        trv_rows *rows;
        json_t *o;
        int ok = 0;
        if (sbx_order_get(c, req->pool, trv_rows_get(ids, i, "id"), 'A', &rows) != APR_SUCCESS
            || rows->n != 1 || !(o = order_json(req, c, rows, &ok)) || !ok) {
            sbx_db_fail(req, resp, c, 3301, "listing orders");
            return;
        }
        json_array_append_new(page, o);
    }
    trv_db_close(req->env->db, c);
    sbx_send(req, resp, 200, json_pack("{s:O,s:o}", "data", page, "meta",
                                       sbx_duffel_page_meta(req->pool, &pg, ids->n)));
}

/* ---- cancellations ---- */

static json_t *cancellation_json(apr_pool_t *p, const trv_rows *r)
{
    const char *cur = trv_rows_get(r, 0, "currency");
    const char *confirmed = trv_rows_get(r, 0, "confirmed_at");
    return json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:o,s:b,s:[]}",
        "id", trv_rows_get(r, 0, "id"), "order_id", trv_rows_get(r, 0, "order_id"),
        "refund_amount", sbx_amount(p, apr_atoi64(trv_rows_get(r, 0, "refund_minor")), cur),
        "refund_currency", cur,
        "refund_to", trv_rows_get(r, 0, "refund_to"),
        "expires_at", trv_rows_get(r, 0, "expires_at"),
        "created_at", trv_rows_get(r, 0, "created_at"),
        "confirmed_at", confirmed ? json_string(confirmed) : json_null(),
        "live_mode", 0, "airline_credits");
}

static int read_cancellation(trv_req *req, trv_resp *resp, trv_dbc *c, const char *id,
                             trv_rows **rows)
{
    if (trv_db_select(c, req->pool, &a_cancel_get, rows, TRV_DB_ARGS(id)) != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 932, "reading a cancellation");
        return 0;
    }
    return 1;
}

static void create_cancellation(trv_req *req, trv_resp *resp)
{
    const json_t *body, *d;
    const char *order_id, *id = trv_id_new(req->pool, "ore"), *status, *cur;
    trv_dbc *c = NULL;
    trv_rows *rows, *k;
    apr_int64_t fee, refund;

    if (!(body = sbx_body(req, resp))) {
        return;
    }
    d = json_object_get(body, "data");
    if (!(order_id = trv_json_str(d, "order_id"))) {
        sbx_invalid(req, resp, "data.order_id", "is required");
        return;
    }
    if (!sbx_idem_begin(req, resp, &c, 933, "quoting a cancellation")) {
        return;
    }
    if (sbx_order_get(c, req->pool, order_id, 'A', &rows) != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 935, "quoting a cancellation");
        return;
    }
    if (rows->n == 0) {
        trv_db_rollback(c);
        trv_db_close(req->env->db, c);
        sbx_error(req, resp, 404, "not_found", "No order %s", order_id);
        return;
    }
    status = trv_rows_get(rows, 0, "status");
    if (strcmp(status, "ticketed") != 0) {
        trv_db_rollback(c);
        trv_db_close(req->env->db, c);
        sbx_error(req, resp, 422, strcmp(status, "cancelled") == 0 ? "order_already_cancelled"
                                                                  : "order_not_cancellable",
                  "The order is %s", status);
        return;
    }
    cur = trv_rows_get(rows, 0, "currency");
    sbx_cancel_terms(trv_rows_bool(rows, 0, "refund_allowed"),
                     apr_atoi64(trv_rows_get(rows, 0, "refund_penalty")),
                     apr_atoi64(trv_rows_get(rows, 0, "total_minor")),
                     apr_atoi64(trv_rows_get(rows, 0, "tax_minor")), &fee, &refund);
    if (trv_db_select(c, req->pool, &a_cancel_insert, &k, TRV_DB_ARGS(id, order_id, cur,
            apr_psprintf(req->pool, "%" APR_INT64_T_FMT, fee),
            apr_psprintf(req->pool, "%" APR_INT64_T_FMT, refund))) != APR_SUCCESS
        || !read_cancellation(req, resp, c, id, &k)) {
        if (!resp->status) {
            sbx_db_fail(req, resp, c, 936, "quoting a cancellation");
        }
        return;
    }
    {
        json_t *out = trv_json_bind(req->pool, json_pack("{s:o}", "data",
                                                         cancellation_json(req->pool, k)));
        sbx_idem_finish(req, resp, c, 201, out, 937, "quoting a cancellation");
    }
}

static void get_cancellation(trv_req *req, trv_resp *resp)
{
    const char *id = apr_table_get(req->params, "id");
    trv_dbc *c = NULL;
    trv_rows *rows;
    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS) {
        sbx_db_fail(req, resp, NULL, 938, "reading a cancellation");
        return;
    }
    if (!read_cancellation(req, resp, c, id, &rows)) {
        return;
    }
    trv_db_close(req->env->db, c);
    if (rows->n == 0) {
        sbx_error(req, resp, 404, "not_found", "No order cancellation %s", id);
        return;
    }
    sbx_send(req, resp, 200, json_pack("{s:o}", "data", cancellation_json(req->pool, rows)));
}

static void confirm_cancellation(trv_req *req, trv_resp *resp)
{
    const char *id = apr_table_get(req->params, "id");
    trv_dbc *c = NULL;
    trv_rows *rows, *lock;
    json_t *block;

    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS) {
        sbx_db_fail(req, resp, NULL, 939, "confirming a cancellation");
        return;
    }
    if (trv_db_begin(c, req->pool) != APR_SUCCESS
        || trv_db_select(c, req->pool, &a_cancel_lock, &lock, TRV_DB_ARGS(id)) != APR_SUCCESS
        || !read_cancellation(req, resp, c, id, &rows)) {
        if (!resp->status) {
            sbx_db_fail(req, resp, c, 940, "confirming a cancellation");
        }
        return;
    }
    if (rows->n == 0) {
        trv_db_rollback(c);
        trv_db_close(req->env->db, c);
        sbx_error(req, resp, 404, "not_found", "No order cancellation %s", id);
        return;
    }
    if (trv_rows_get(rows, 0, "confirmed_at")) {
        /* Confirming again answers the confirmed cancellation. */
        trv_db_rollback(c);
        trv_db_close(req->env->db, c);
        sbx_send(req, resp, 200, json_pack("{s:o}", "data", cancellation_json(req->pool, rows)));
        return;
    }
    if (strcmp(trv_rows_get(rows, 0, "order_status"), "ticketed") != 0) {
        trv_db_rollback(c);
        trv_db_close(req->env->db, c);
        sbx_error(req, resp, 422, "order_not_cancellable", "The order is %s",
                  trv_rows_get(rows, 0, "order_status"));
        return;
    }
    if (trv_rows_bool(rows, 0, "expired")) {
        trv_db_rollback(c);
        trv_db_close(req->env->db, c);
        sbx_error(req, resp, 422, "order_cancellation_expired",
                  "The cancellation quote expired; request a new one");
        return;
    }
    if (trv_rows_get(rows, 0, "trigger") && strcmp(trv_rows_get(rows, 0, "trigger"), "nocancel") == 0) {
        trv_db_rollback(c);
        trv_db_close(req->env->db, c);
        sbx_error(req, resp, 422, "cancellation_rejected",
                  "The airline rejected the cancellation (test trigger Nocancel)");
        return;
    }
    /* The order keeps the cancellation as confirmed (Order.cancellation). */
    if (trv_db_exec(c, req->pool, &a_cancel_confirm, NULL, TRV_DB_ARGS(id)) != APR_SUCCESS
        || !read_cancellation(req, resp, c, id, &rows)
        || !(block = trv_json_bind(req->pool, cancellation_json(req->pool, rows)))
        || trv_db_exec(c, req->pool, &a_order_cancel, NULL,
                       TRV_DB_ARGS(trv_json_dump(req->pool, block),
                                   trv_rows_get(rows, 0, "order_id"))) != APR_SUCCESS
        || trv_db_commit(c) != APR_SUCCESS) {
        if (!resp->status) {
            sbx_db_fail(req, resp, c, 941, "confirming a cancellation");
        }
        return;
    }
    trv_db_close(req->env->db, c);
    sbx_send(req, resp, 200, json_pack("{s:o}", "data", cancellation_json(req->pool, rows)));
}

/* ---- airline-initiated changes ---- */

/* GET /air/airline_initiated_changes?order_id=: the order's changes. */
static void list_changes(trv_req *req, trv_resp *resp)
{
    const char *order_id = apr_table_get(req->query, "order_id");
    sbx_duffel_page_t pg;
    trv_dbc *c = NULL;
    trv_rows *rows;
    json_t *order, *aic, *page;
    int ok;
    size_t i;
    if (!sbx_duffel_page(req, resp, &pg)) {
        return;
    }
    if (!order_id) {
        sbx_invalid(req, resp, "order_id", "is required");
        return;
    }
    if (trv_db_open(req->env->db, req->pool, &c) != APR_SUCCESS
        || sbx_order_get(c, req->pool, order_id, 'A', &rows) != APR_SUCCESS) {
        sbx_db_fail(req, resp, c, 1809, "listing airline-initiated changes");
        return;
    }
    if (rows->n == 0) {
        trv_db_close(req->env->db, c);
        sbx_error(req, resp, 404, "not_found", "No order %s", order_id);
        return;
    }
    order = order_json(req, c, rows, &ok);
    if (!ok) {
        sbx_db_fail(req, resp, c, 1810, "listing airline-initiated changes");
        return;
    }
    trv_db_close(req->env->db, c);
    trv_json_bind(req->pool, order);
    aic = json_object_get(order, "airline_initiated_changes");
    page = json_array();
    for (i = (size_t)pg.offset; i < json_array_size(aic) && (int)i < pg.offset + pg.limit; i++) {
        json_array_append(page, json_array_get(aic, i));
    }
    sbx_send(req, resp, 200, json_pack("{s:o,s:o}", "data", page, "meta",
        sbx_duffel_page_meta(req->pool, &pg, (int)json_array_size(aic))));
}

/* ---- airlines ---- */

/* The world's airlines with an IATA code, each code once (the one
 * sbx_airline_find answers), in the world's order. */
static int listed(const sbx_world *w, int i)
{
    return w->airlines[i].iata[0] && sbx_airline_find(w, w->airlines[i].iata) == i;
}

static void list_airlines(trv_req *req, trv_resp *resp)
{
    const sbx_world *w;
    sbx_duffel_page_t pg;
    json_t *page;
    int i, n = 0;
    if (!sbx_need_world(req, resp) || !sbx_duffel_page(req, resp, &pg)) {
        return;
    }
    w = SBX(req)->world;
    page = json_array();
    for (i = 0; i < w->n_airlines; i++) {
        if (!listed(w, i)) {
            continue;
        }
        if (n >= pg.offset && n < pg.offset + pg.limit) {
            json_array_append_new(page, airline(req->pool, w, i));
        }
        n++;
    }
    sbx_send(req, resp, 200, json_pack("{s:o,s:o}", "data", page, "meta",
                                       sbx_duffel_page_meta(req->pool, &pg, n)));
}

/* ---- airlines ---- */

/* GET /air/airlines/{id}: by Duffel's id (arl_...). */
static void get_airline(trv_req *req, trv_resp *resp)
{
    const char *id = apr_table_get(req->params, "id");
    int i = -1;
    if (!sbx_need_world(req, resp)) {
        return;
    }
    if (strncmp(id, "arl_", 4) == 0) {
        i = sbx_airline_find(SBX(req)->world, id + 4);
    }
    if (i < 0) {
        sbx_error(req, resp, 404, "not_found", "No airline %s", id);
        return;
    }
    sbx_send(req, resp, 200, json_pack("{s:o}", "data",
                                       airline(req->pool, SBX(req)->world, i)));
}

const trv_route sbx_air_a_routes[] = {
    {"POST", "/suppliers/a/air/offer_requests", offer_request,
     TRV_ROUTE_OWN_QUERY | TRV_ROUTE_JSON_ARENA},
    {"GET", "/suppliers/a/air/offers", list_offers, TRV_ROUTE_OWN_QUERY},
    {"GET", "/suppliers/a/air/offers/{offer_id}", get_offer, TRV_ROUTE_OWN_QUERY},
    {"PATCH", "/suppliers/a/air/offers/{offer_id}/passengers/{passenger_id}",
     update_offer_passenger, 0},
    {"POST", "/suppliers/a/air/orders", create_order, 0},
    {"GET", "/suppliers/a/air/orders", list_orders, TRV_ROUTE_OWN_QUERY},
    {"GET", "/suppliers/a/air/orders/{order_id}", get_order, 0},
    {"POST", "/suppliers/a/air/payments", create_payment, 0},
    {"POST", "/suppliers/a/air/order_cancellations", create_cancellation, 0},
    {"GET", "/suppliers/a/air/order_cancellations/{id}", get_cancellation, 0},
    {"POST", "/suppliers/a/air/order_cancellations/{id}/actions/confirm", confirm_cancellation, 0},
    {"GET", "/suppliers/a/air/airlines", list_airlines, TRV_ROUTE_OWN_QUERY},
    {"GET", "/suppliers/a/air/airlines/{id}", get_airline, 0},
    {"GET", "/suppliers/a/air/airline_initiated_changes", list_changes, TRV_ROUTE_OWN_QUERY},
    {NULL, NULL, NULL, 0},
};
