/* POST /v1/hotel/prebook: bind an offer to the contact and each room's
 * guests, have the supplier re-price it, and hold the result as a
 * READY_FOR_COMPLETE booking until the offer expires.
 *
 * The x-idempotency-key makes it safe to repeat: the key is unique per
 * organization in PostgreSQL and the booking (with its rooms and guests)
 * is inserted with INSERT ... ON CONFLICT DO NOTHING before the supplier
 * is asked, so of concurrent prebooks with one key exactly one reaches the
 * supplier and the others answer with its booking (200). The same key with
 * another body is 409 idempotency_key_reused. A prebook the supplier
 * refused keeps its key (FAILED); one that changed nothing anywhere (the
 * supplier did not answer) gives its key back. No connection is held while
 * the supplier or the payment provider is asked. */
#include "handlers.h"
#include "reply.h"
#include "booking_store.h"
#include "enqueue.h"
#include "policy.h"
#include "prebook_input.h"
#include "customer.h"
#include "render.h"
#include "hotel_store.h"
#include "core/clock.h"
#include "core/idempotency.h"
#include "core/ids.h"
#include "core/json.h"
#include "core/metrics.h"
#include "core/money.h"
#include "lifecycle/prebook.h"

#include <apr_strings.h>
#include <string.h>

typedef struct prebook_ctx {
    trv_req *req;
    trv_resp *resp;
    trv_hotel_prebook_in in;
    trv_hotel_sealed offer;
    const char *key, *hash;
    const trv_supplier *row;
    const trv_hotel_supplier *sup;
    trv_hotel_ctx sc;
    trv_hcustomer customer;      /* the traveller, kept with the booking */
    trv_lifecycle_prebook lp;    /* the shared steps (lifecycle/prebook.h) */
} prebook_ctx;

static const unsigned char *secret(const trv_req *req)
{
    return req->env->cfg && req->env->cfg->have_secret_key ? req->env->cfg->secret_key : NULL;
}

/* The booking of a key as the shared wait reads it. */
static apr_status_t by_key(trv_req *req, trv_dbc *c, const char *key,
                           trv_lifecycle_prebook_found *f)
{
    trv_hbooking *b;
    apr_status_t rv = trv_hbooking_by_key(c, req->pool, req->org_id, key, &b);
    if (rv == APR_SUCCESS && b) {
        f->booking = b;
        f->id = b->id;
        f->request_hash = b->request_hash;
        f->in_progress = b->status == TRV_HB_PREBOOK_IN_PROGRESS;
    }
    return rv;
}

/* The first request died with the key (its calls have all timed out by
 * now): its row goes and this one takes over. */
static int stale(trv_req *req, trv_resp *resp, const trv_lifecycle_prebook_found *f,
                 apr_interval_time_t budget)
{
    trv_dbc *c;
    int gone = 0;
    if (!trv_api_db_open(req, resp, &c, 1421, "reading a hotel prebook key")) {
        return -1;
    }
    if (trv_hbooking_prebook_abandon_stale(c, req->pool, f->id, budget, &gone)
        != APR_SUCCESS) {
        trv_api_db_fail(req, resp, c, 1421, "reading a hotel prebook key");
        return -1;
    }
    trv_db_close(req->env->db, c);
    if (gone) {
        trv_log_msg(&req->log, TRV_LOG_WARNING, req->request_id,
                    TRVLOGNO(1448) "hotel prebook %s: its request is gone; the key "
                    "is taken over", f->id);
    }
    return gone;
}

static void reply(trv_req *req, trv_resp *resp, int status, void *b, json_t *meta)
{
    trv_hreply_booking(req, resp, status, b, meta);
}

/* A prebook FAILED at the supplier keeps its rendering. */
static apr_status_t failed(trv_dbc *c, apr_pool_t *p, const char *id, const char *failure_json)
{
    trv_hbooking *b;
    apr_status_t rv = trv_hbooking_prebook_failed(c, p, id, failure_json, &b);
    return rv == APR_SUCCESS && b ? trv_hrender_keep(c, p, b) : rv;
}

/* A repeat waits out the supplier's prebook call (1); the supplier's
 * offer_expired is a gone offer too. */
static const trv_lifecycle_prebook_domain hotel_prebook = {
    "hotel prebook", "", by_key, stale, reply, failed, trv_hbooking_prebook_abandon,
    trv_config_hotel_upstream, 1, trv_hhotel_upstream_fail, "offer_expired", NULL};

/* What the guest pays at the hotel, for the whole booking: the rooms'
 * amounts summed when they share a currency, a list when they do not,
 * null when no room states one. */
static json_t *due_total(apr_pool_t *p, const json_t *rooms)
{
    json_t *list = json_array();
    const json_t *r;
    size_t i, k;
    json_array_foreach(rooms, i, r) {
        const json_t *d = json_object_get(r, "due_at_property");
        trv_money m;
        const char *why;
        int merged = 0;
        if (!json_is_object(d) || trv_money_from_json(d, &m, &why) != APR_SUCCESS) {
            continue;
        }
        for (k = 0; k < json_array_size(list); k++) {
            trv_money acc;
            json_t *e = json_array_get(list, k);
            if (trv_money_from_json(e, &acc, &why) == APR_SUCCESS
                && strcmp(acc.currency, m.currency) == 0) {
                acc.minor += m.minor;
                json_array_set_new(list, k, trv_money_json(&acc));
                merged = 1;
            }
        }
        if (!merged) {
            json_array_append_new(list, trv_money_json(&m));
        }
    }
    (void)p;
    if (json_array_size(list) == 0) {
        json_decref(list);
        return json_null();
    }
    if (json_array_size(list) == 1) {
        json_t *one = json_incref(json_array_get(list, 0));
        json_decref(list);
        return one;
    }
    return list;
}

/* The rooms' terms as the store takes them (decimal text totals). */
static const char *room_terms(apr_pool_t *p, const json_t *rooms)
{
    json_t *out = trv_json_bind(p, json_array());
    const json_t *r;
    size_t i;
    json_array_foreach(rooms, i, r) {
        const json_t *t = json_object_get(r, "total");
        json_t *promos = json_array();
        trv_money m;
        const char *why;
        const char *total = NULL, *cur = NULL;
        const json_t *promo;
        size_t k;
        if (json_is_object(t) && trv_money_from_json(t, &m, &why) == APR_SUCCESS) {
            total = trv_money_decimal(p, m.minor, trv_currency_exponent(m.currency));
            cur = apr_pstrdup(p, m.currency);
        }
        json_array_foreach(json_object_get(r, "promotions"), k, promo) {
            json_array_append(promos, (json_t *)promo);
        }
        json_array_append_new(out, json_pack(
            "{s:O,s:O?,s:O?,s:O?,s:s?,s:s?,s:O?,s:O?,s:o}",
            "position", json_object_get(r, "position"), "name", json_object_get(r, "name"),
            "board", json_object_get(r, "board"), "board_name", json_object_get(r, "board_name"),
            "currency", cur, "total_amount", total,
            "due_at_property", json_object_get(r, "due_at_property"),
            "cancellation_policy", trv_json_bind(p, trv_hotel_policy_doc(json_object_get(
                                       r, "cancellation_policy"))),
            "promotions", json_array_size(promos) ? promos : (json_decref(promos), json_null())));
    }
    return trv_json_dump(p, out);
}

/* Each offer-level promotion named on the rooms it applies to. */
static void promos_to_rooms(const json_t *doc)
{
    const json_t *promo, *pos;
    size_t i, k;
    json_array_foreach(json_object_get(doc, "promotions"), i, promo) {
        json_array_foreach(json_object_get(promo, "room_positions"), k, pos) {
            json_t *room = json_array_get(json_object_get(doc, "rooms"),
                                          (size_t)json_integer_value(pos));
            json_t *list;
            if (!room) {
                continue;
            }
            if (!json_is_array(list = json_object_get(room, "promotions"))) {
                json_object_set_new(room, "promotions", list = json_array());
            }
            json_array_append_new(list, json_pack("{s:O}", "name",
                                                  json_object_get(promo, "name")));
        }
    }
}

static void bind_offer(prebook_ctx *x, const char *id)
{
    trv_req *req = x->req;
    apr_pool_t *p = req->pool;
    trv_hotel_err err = {0};
    trv_hotel_prebooked pb;
    trv_hpriced pr;
    trv_dbc *c;
    trv_hbooking *b;
    json_t *token = NULL, *meta = NULL;
    const char *cur = x->offer.stay.currency;
    int e = trv_currency_exponent(cur);
    trv_up_status st;

    st = x->sup->prebook(&x->sc, &x->offer.stay, x->offer.sid, x->offer.ref, &pb, &err);
    if (trv_lifecycle_prebook_answered(&x->lp, id, st, err.code, err.message, 1422, 1422, 1423,
                                       1424)) {
        return;
    }
    trv_metrics_upstream_event(x->req->env->metrics,
                               apr_pstrcat(x->req->pool, "hotel ", x->offer.supplier, NULL),
                               TRV_METRIC_BOOKING);
    memset(&pr, 0, sizeof(pr));
    pr.currency = cur;
    pr.total_amount = trv_money_decimal(p, pb.total_minor, e);
    pr.offer_expires_at = trv_time_format(p, pb.expires_at);
    json_object_set_new(pb.doc, "due_at_property",
                        due_total(p, json_object_get(pb.doc, "rooms")));
    promos_to_rooms(pb.doc);
    pr.due_at_property = trv_json_dump(p, json_object_get(pb.doc, "due_at_property"));
    pr.cancellation_policy = json_is_object(json_object_get(pb.doc, "cancellation_policy"))
        ? trv_json_dump(p, trv_json_bind(p, trv_hotel_policy_doc(json_object_get(pb.doc,
                                                                        "cancellation_policy"))))
        : NULL;
    pr.promotions = json_array_size(json_object_get(pb.doc, "promotions"))
        ? trv_json_dump(p, json_object_get(pb.doc, "promotions")) : NULL;
    pr.supplier_prebook_id = pb.prebook_id;
    if (!x->offer.hotel_id && pb.hotel_name) {
        pr.hotel = trv_json_dump(p, trv_json_bind(p, json_pack(
            "{s:n,s:s,s:s?}", "id", "name", pb.hotel_name, "address", pb.hotel_address)));
    }
    pr.rooms = room_terms(p, json_object_get(pb.doc, "rooms"));
    if (x->in.use_payment_sdk) {
        trv_money total;
        if (!(token = trv_lifecycle_prebook_sdk_token(&x->lp, id,
                                                      trv_money_make(&total, pb.total_minor, cur)
                                                          == APR_SUCCESS ? &total : NULL,
                                                      1424))) {
            return;
        }
        pr.sdk_token = trv_json_str(token, "token");
    }
    if (!trv_api_db_open(req, x->resp, &c, 1425, "storing a hotel prebook")) {
        return;
    }
    if (trv_db_begin(c, p) != APR_SUCCESS
        || trv_hbooking_prebook_done(c, p, id, &pr, &b) != APR_SUCCESS
        || trv_hrender_keep(c, p, b) != APR_SUCCESS
        /* Expired in the background at its deadline (expire.c), so an
         * SDK session nobody books is released without a request. */
        || (b && trv_hjob_enqueue(c, p, TRV_HJOB_EXPIRE, id, req->request_id,
                                  pb.expires_at > apr_time_now()
                                      ? pb.expires_at - apr_time_now() : 0) != APR_SUCCESS)
        || trv_db_commit(c) != APR_SUCCESS) {
        trv_api_db_fail(req, x->resp, c, 1425, "storing a hotel prebook");
        return;
    }
    trv_db_close(req->env->db, c);
    if (!b) {
        trv_lifecycle_prebook_too_late(&x->lp);
        return;
    }
    if (token) {
        meta = trv_lifecycle_prebook_sdk_meta(token);
    }
    if (pb.total_minor != x->offer.total_minor) {
        /* The supplier's price now binds; the caller sees both before book. */
        if (!meta) {
            meta = json_object();
        }
        json_object_set_new(meta, "price_change", json_pack(
            "{s:o,s:o}", "offer_total", trv_hwire_money(x->offer.total_minor, cur),
            "total", trv_hwire_money(pb.total_minor, cur)));
    }
    trv_hreply_booking(req, x->resp, 201, b, meta);
}

/* The rooms and guests as inserted: our ids, the stay's occupancy. */
static const char *rooms_row(prebook_ctx *x)
{
    apr_pool_t *p = x->req->pool;
    json_t *rooms = trv_json_bind(p, json_array());
    int i, k;
    for (i = 0; i < x->in.n_rooms; i++) {
        const trv_hotel_occ *o = &x->offer.stay.rooms[i];
        json_t *ages = json_array(), *guests = json_array();
        for (k = 0; k < o->n_children; k++) {
            json_array_append_new(ages, json_integer(o->ages[k]));
        }
        for (k = 0; k < x->in.n_guests[i]; k++) {
            const trv_hotel_guest *g = &x->in.guests[i][k];
            json_array_append_new(guests, json_pack("{s:s,s:i,s:s,s:s,s:s,s:b}",
                                                    "id", trv_id_new(p, "guest"), "position", k,
                                                    "first_name", g->first_name,
                                                    "last_name", g->last_name,
                                                    "type", g->child ? "CHILD" : "ADULT",
                                                    "is_lead", g->is_lead));
        }
        json_array_append_new(rooms, json_pack("{s:s,s:i,s:i,s:o,s:s,s:o}",
                                               "id", trv_id_new(p, "room"), "position", i,
                                               "adults", o->adults, "children", ages,
                                               "currency", x->offer.stay.currency,
                                               "guests", guests));
    }
    return trv_json_dump(p, rooms);
}

void trv_hotel_prebook(trv_req *req, trv_resp *resp)
{
    prebook_ctx x;
    trv_errs *errs = trv_errs_new(req->pool);
    trv_hprebook_row row;
    trv_dbc *c;
    const char *hotel = NULL;
    int inserted = 0;

    memset(&x, 0, sizeof(x));
    x.req = req;
    x.resp = resp;
    x.key = apr_table_get(req->headers, "x-idempotency-key");
    trv_idempotency_key_check(x.key, TRV_IDEMPOTENCY_HOTEL_KEY_MAX, errs);
    trv_hotel_prebook_read(req->pool, req->json, &x.in, errs);
    trv_hcustomer_read(req, &x.customer, errs);
    if (x.in.offer_reference
        && trv_hotel_offer_open(req->pool, secret(req), req->org_id, x.in.offer_reference,
                                &x.offer) != APR_SUCCESS) {
        trv_errs_add(errs, "offer_reference", "is not an offer reference of this organization "
                     "(from POST /v1/hotel/offers)");
        x.in.offer_reference = NULL;
    }
    if (trv_lifecycle_prebook_begin(&x.lp, req, resp, &hotel_prebook, errs, x.key,
                                    x.offer.supplier, 1421, 1421)) {
        return;
    }
    x.hash = x.lp.hash;
    trv_hotel_prebook_match(&x.in, &x.offer.stay, errs);
    if (apr_time_now() >= x.offer.expires_at) {
        trv_errs_add(errs, "offer_reference", "the offer has expired; price the hotel again");
    }
    x.sup = trv_hreply_supplier(req->env, req->pool, req->request_id, x.offer.supplier, &x.row,
                                &x.sc);
    trv_hcustomer_apply(&x.sc, &x.customer);
    if (!x.sup || !x.sup->prebook || !x.sup->book) {
        trv_errs_add(errs, "offer_reference", "its supplier %s does not book through this "
                     "service now", x.offer.supplier);
    }
    if (x.in.use_payment_sdk && !trv_supplier_can(x.row, TRV_SUP_PAYMENT_SDK)) {
        trv_errs_add(errs, "use_payment_sdk", trv_supplier_can(x.row, TRV_SUP_COLLECTS_PAYMENT)
                         ? "this supplier charges the traveller's card itself: leave "
                           "use_payment_sdk out"
                         : "this supplier does not take the payment SDK");
    }
    if (trv_errs_any(errs)) {
        trv_fail_invalid(req, resp, errs);
        return;
    }

    memset(&row, 0, sizeof(row));
    x.sc.booking_id = trv_lifecycle_prebook_row_start(&x.lp, &row.head, x.offer.ref,
                                                      x.in.use_payment_sdk);
    x.sc.org_id = row.org_id;
    row.reference_id = x.in.reference_id;
    row.hotel_id = x.offer.hotel_id;
    row.supplier_hotel_id = x.offer.sid;
    row.check_in = x.offer.stay.check_in;
    row.check_out = x.offer.stay.check_out;
    row.currency = x.offer.stay.currency;
    row.total_amount = trv_money_decimal(req->pool, x.offer.total_minor,
                                         trv_currency_exponent(row.currency));
    row.offer_expires_at = trv_time_format(req->pool, x.offer.expires_at);
    row.contact = trv_json_dump(req->pool, trv_json_bind(req->pool, json_pack(
        "{s:s,s:s,s:s,s:s}", "first_name", x.in.first_name, "last_name", x.in.last_name,
        "email", x.in.email, "phone", x.in.phone)));
    row.customer = trv_hcustomer_json(req->pool, &x.customer);
    row.rooms = rooms_row(&x);
    if (!trv_api_db_open(req, resp, &c, 1426, "starting a hotel prebook")) {
        return;
    }
    if ((x.offer.hotel_id
         && trv_hbooking_hotel(c, req->pool, x.offer.hotel_id, &hotel) != APR_SUCCESS)) {
        trv_api_db_fail(req, resp, c, 1426, "starting a hotel prebook");
        return;
    }
    row.hotel = hotel ? hotel : trv_json_dump(req->pool, trv_json_bind(req->pool, json_pack(
        "{s:o,s:n,s:n}", "id", trv_json_strn(x.offer.hotel_id), "name", "address")));
    if (trv_hbooking_insert_prebook(c, req->pool, &row, &inserted) != APR_SUCCESS) {
        trv_api_db_fail(req, resp, c, 1426, "starting a hotel prebook");
        return;
    }
    trv_db_close(req->env->db, c);
    if (!inserted) {
        /* The key was taken meanwhile: a concurrent repeat. */
        if (!trv_lifecycle_prebook_existing(&x.lp, 1421, 1421)) {
            trv_fail(req, resp, 409, "idempotency_key_in_use",
                     "A prebook with this x-idempotency-key is in progress; retry");
        }
        return;
    }
    bind_offer(&x, row.id);
}
