/* POST /v1/flight/prebook: bind an offer to the party, re-price it, and
 * hold the result as a READY_FOR_COMPLETE booking.
 *
 * The x-idempotency-key makes it safe to repeat: the key is unique per
 * (organization, user) in PostgreSQL and the booking row is inserted with
 * INSERT ... ON CONFLICT DO NOTHING before the supplier is asked, so of
 * concurrent prebooks with one key exactly one reaches the supplier and the
 * others answer with its booking (200). The same key with another body is
 * 409 idempotency_key_reused. A prebook that failed at the supplier keeps
 * its key (FAILED; a new key is needed); one that changed nothing (the
 * supplier was unreachable) gives its key back. */
#include "handlers.h"
#include "events.h"
#include "input.h"
#include "enqueue.h"
#include "offer_ref.h"
#include "render.h"
#include "booking_store.h"
#include "upstreams.h"
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
    trv_prebook_input in;
    trv_foffer_ref offer;
    const char *key;
    const char *hash;
    json_t *pax;        /* the passengers as stored: each with its psg_ id */
    const trv_flight_supplier *sup;
    const trv_supplier *row;   /* its bound row: what the supplier can do */
    trv_flight_ctx sc;
    trv_lifecycle_prebook lp; /* the shared steps (lifecycle/prebook.h) */
} prebook_ctx;

/* The booking of a key as the shared wait reads it. */
static apr_status_t by_key(trv_req *req, trv_dbc *c, const char *key,
                           trv_lifecycle_prebook_found *f)
{
    trv_fbooking *b;
    apr_status_t rv = trv_fbooking_by_key(c, req->pool, req->org_id, req->user_id, key, &b);
    if (rv == APR_SUCCESS && b) {
        f->booking = b;
        f->id = b->id;
        f->request_hash = b->request_hash;
        f->in_progress = b->status == TRV_FB_PREBOOK_IN_PROGRESS;
    }
    return rv;
}

static void reply(trv_req *req, trv_resp *resp, int status, void *b, json_t *meta)
{
    trv_freply_booking(req, resp, status, b, meta);
}

/* A prebook FAILED at the supplier is an event. */
static apr_status_t failed(trv_dbc *c, apr_pool_t *p, const char *id, const char *failure_json)
{
    trv_fbooking *b;
    apr_status_t rv = trv_fbooking_prebook_failed(c, p, id, failure_json, &b);
    return rv == APR_SUCCESS && b ? trv_flight_emit(c, p, b, TRV_EV_FAILED) : rv;
}

/* A repeat waits out the supplier's prebook call and the store around it
 * (2 calls); a gone offer's failure says so. */
static const trv_lifecycle_prebook_domain flight_prebook = {
    "prebook", " (the watchdog job fails it)", by_key, NULL, reply, failed,
    trv_fbooking_prebook_abandon, trv_config_upstream, 2, trv_freply_upstream_fail, NULL,
    "The offer has expired or is sold out"};

/* Checks services against the offer's bags (so a wrong bag id is a 422 and
 * nothing is created). Answers and returns 0 on a problem. */
static int check_services(prebook_ctx *x, trv_errs *errs)
{
    json_t *bags = NULL;
    trv_sup_err err = {0};
    trv_up_status st;
    size_t i, j;
    if (json_array_size(x->in.services) == 0) {
        return 1;
    }
    st = x->sup->bags(&x->sc, x->offer.ref, &bags, &err);
    if (st == TRV_UP_NOT_FOUND) {
        trv_errs_add(errs, "offer_reference", "the offer has expired or is sold out; "
                     "search again");
        return 1;
    }
    if (st != TRV_UP_OK) {
        trv_freply_upstream_fail(x->req, x->resp, st, x->offer.supplier, err.message);
        return 0;
    }
    for (i = 0; i < json_array_size(x->in.services); i++) {
        const json_t *s = json_array_get(x->in.services, i);
        const char *id = trv_json_str(s, "id");
        json_int_t qty = json_integer_value(json_object_get(s, "quantity"));
        const json_t *bag = NULL;
        for (j = 0; j < json_array_size(bags); j++) {
            const char *bid = trv_json_str(json_array_get(bags, j), "id");
            if (bid && strcmp(bid, id) == 0) {
                bag = json_array_get(bags, j);
            }
        }
        if (!bag) {
            trv_errs_add(errs, apr_psprintf(x->req->pool, "services[%" APR_SIZE_T_FMT "]", i),
                         "is not a bag sold with this offer (see its bags)");
        }
        else if (json_is_integer(json_object_get(bag, "max_quantity"))
                 && qty > json_integer_value(json_object_get(bag, "max_quantity"))) {
            trv_errs_add(errs, apr_psprintf(x->req->pool,
                                            "services[%" APR_SIZE_T_FMT "].quantity", i),
                         "must be at most %" JSON_INTEGER_FORMAT,
                         json_integer_value(json_object_get(bag, "max_quantity")));
        }
    }
    return 1;
}

static const char *psg_id_at(const json_t *passengers, const json_t *index)
{
    json_int_t i = -1;
    if (json_is_integer(index)) {
        i = json_integer_value(index);
    }
    else if (json_is_string(index)) {
        const char *s = json_string_value(index);
        char *end;
        i = strtol(s, &end, 10);
        if (*end || !*s) {
            return NULL;
        }
    }
    if (i < 0 || (size_t)i >= json_array_size(passengers)) {
        return NULL;
    }
    return trv_json_str(json_array_get(passengers, (size_t)i), "id");
}

/* The priced journeys with our ids: psg_ ids in segments' passengers,
 * journey and segment ids where the supplier gave none. */
static json_t *journeys_with_ids(apr_pool_t *p, const json_t *priced, const json_t *pax)
{
    json_t *js = json_deep_copy(json_object_get(priced, "journeys"));
    const char *brand = trv_json_str(priced, "fare_brand");
    size_t i, j, k;
    if (!json_is_array(js)) {
        json_decref(js);
        return json_array();
    }
    for (i = 0; i < json_array_size(js); i++) {
        json_t *jn = json_array_get(js, i);
        json_t *segs = json_object_get(jn, "segments");
        if (!trv_json_str(jn, "id")) {
            json_object_set_new(jn, "id", json_string(trv_id_new(p, "jny")));
        }
        if (brand && !trv_json_str(jn, "fare_brand")) {
            json_object_set_new(jn, "fare_brand", json_string(brand));
        }
        for (j = 0; j < json_array_size(segs); j++) {
            json_t *seg = json_array_get(segs, j);
            json_t *sp = json_object_get(seg, "passengers");
            if (!trv_json_str(seg, "id")) {
                json_object_set_new(seg, "id", json_string(trv_id_new(p, "seg")));
            }
            for (k = 0; k < json_array_size(sp); k++) {
                json_t *one = json_array_get(sp, k);
                const char *psg = psg_id_at(pax, json_object_get(one, "passenger_id"));
                if (psg) {
                    json_object_set_new(one, "passenger_id", json_string(psg));
                }
            }
        }
    }
    return js;
}

static json_t *services_with_ids(apr_pool_t *p, const json_t *priced, const json_t *pax,
                                 const json_t *journeys)
{
    const json_t *ss = json_object_get(priced, "services");
    json_t *out = json_array();
    size_t i, k;
    for (i = 0; i < json_array_size(ss); i++) {
        const json_t *s = json_array_get(ss, i);
        const json_t *ji = json_object_get(s, "journey_index");
        json_t *segment_ids = json_array();
        const json_t *jn = json_is_integer(ji)
            ? json_array_get(journeys, (size_t)json_integer_value(ji)) : NULL;
        const json_t *segs = json_object_get(jn, "segments");
        const json_t *given = json_object_get(s, "segment_ids");
        const char *psg = psg_id_at(pax, json_object_get(s, "passenger_index"));
        /* The supplier's segment ids, else every segment of the journey. */
        if (json_is_array(given) && json_array_size(given) > 0) {
            json_array_extend(segment_ids, (json_t *)given);
        }
        for (k = 0; json_array_size(segment_ids) == 0 && k < json_array_size(segs); k++) {
            const char *sid = trv_json_str(json_array_get(segs, k), "id");
            if (sid) {
                json_array_append_new(segment_ids, json_string(sid));
            }
        }
        json_array_append_new(out, json_pack("{s:s,s:o,s:o,s:O,s:O,s:o,s:O,s:O,s:O,s:O}",
            "id", trv_id_new(p, "svc"),
            "bag_id", trv_json_strn(trv_json_str(s, "bag_id")),
            "passenger_id", trv_json_strn(psg),
            "passenger_index", json_object_get(s, "passenger_index")
                ? json_object_get(s, "passenger_index") : json_null(),
            "journey_index", ji ? ji : json_null(),
            "segment_ids", segment_ids,
            "quantity", json_object_get(s, "quantity") ? json_object_get(s, "quantity")
                                                       : json_null(),
            "unit_amount", json_object_get(s, "unit_amount")
                ? json_object_get(s, "unit_amount") : json_null(),
            "total_amount", json_object_get(s, "total_amount")
                ? json_object_get(s, "total_amount") : json_null(),
            "baggage", json_object_get(s, "baggage") ? json_object_get(s, "baggage")
                                                     : json_null()));
    }
    return out;
}

/* A Money field of the priced answer as decimal text in `currency`. */
static const char *priced_amount(apr_pool_t *p, const json_t *priced, const char *name,
                                 const char *currency, int required, int *bad)
{
    const json_t *v = json_object_get(priced, name);
    trv_money m;
    const char *why;
    if (!v || json_is_null(v)) {
        if (required) {
            *bad = 1;
        }
        return NULL;
    }
    if (trv_money_from_json(v, &m, &why) != APR_SUCCESS
        || (currency && strcmp(m.currency, currency) != 0)) {
        *bad = 1;
        return NULL;
    }
    return trv_money_decimal(p, m.minor, trv_currency_exponent(m.currency));
}

/* Nothing was bound anywhere: the row goes and the key may be used again. */
static void abandon(prebook_ctx *x, const char *id, trv_up_status st, const char *message)
{
    trv_lifecycle_prebook_abandon(&x->lp, id, st, message, 315);
}

static void bind_offer(prebook_ctx *x, const char *id)
{
    trv_req *req = x->req;
    apr_pool_t *p = req->pool;
    trv_sup_err err = {0};
    json_t *priced = NULL, *pax, *journeys, *services, *token = NULL;
    const char *currency, *expires_at = NULL, *sdk_token = NULL;
    trv_fpriced pr;
    trv_dbc *c;
    trv_fbooking *b;
    apr_time_t exp;
    int bad = 0;
    trv_up_status st;

    st = x->sup->prebook(&x->sc, x->offer.ref, x->in.passengers, x->in.contact,
                         x->in.services, &priced, &err);
    if (trv_lifecycle_prebook_answered(&x->lp, id, st, err.code, err.message, 312, 313, 314,
                                       315)) {
        return;
    }
    trv_metrics_upstream_event(x->req->env->metrics, x->offer.supplier, TRV_METRIC_BOOKING);
    memset(&pr, 0, sizeof(pr));
    currency = trv_json_str(priced, "currency");
    if (!currency) {
        currency = trv_json_str(json_object_get(priced, "total_amount"), "currency");
    }
    pr.currency = currency;
    pr.total_amount = priced_amount(p, priced, "total_amount", currency, 1, &bad);
    pr.fare_amount = priced_amount(p, priced, "fare_amount", currency, 0, &bad);
    pr.fare_tax_amount = priced_amount(p, priced, "fare_tax_amount", currency, 0, &bad);
    pr.services_amount = priced_amount(p, priced, "services_amount", currency, 0, &bad);
    if (trv_json_str(priced, "expires_at")
        && trv_time_parse(trv_json_str(priced, "expires_at"), &exp) == APR_SUCCESS) {
        expires_at = trv_time_format(p, exp);
    }
    else if (x->offer.expires_at) {
        exp = x->offer.expires_at;
        expires_at = trv_time_format(p, exp);
    }
    if (bad || !currency || !expires_at) {
        abandon(x, id, TRV_UP_BAD_RESPONSE, "the priced offer lacks its total, currency or "
                "expiry");
        return;
    }
    pax = x->pax;
    journeys = trv_json_bind(p, journeys_with_ids(p, priced, pax));
    services = trv_json_bind(p, services_with_ids(p, priced, pax, journeys));
    if (x->sc.vendor_sdk) {
        /* The vendor's intent: its secret goes to the client in this
         * answer only (pr.sdk_token stays NULL: nothing of it is stored). */
        token = json_object_get(priced, "payment_sdk");
        if (!trv_json_str(token, "token") || !trv_json_str(token, "provider")) {
            abandon(x, id, TRV_UP_BAD_RESPONSE, "the supplier's prebook has no payment "
                    "intent secret");
            return;
        }
    }
    else if (x->in.use_payment_sdk) {
        trv_money total;
        int have_total = trv_money_parse_decimal(pr.total_amount, trv_currency_exponent(currency),
                                                 &total.minor) == APR_SUCCESS;
        if (have_total) {
            memcpy(total.currency, currency, 4);
        }
        if (!(token = trv_lifecycle_prebook_sdk_token(&x->lp, id, have_total ? &total : NULL,
                                                      315))) {
            return;
        }
        sdk_token = trv_json_str(token, "token");
    }
    pr.expires_at = expires_at;
    pr.member_price = json_is_true(json_object_get(priced, "member_price"));
    pr.hold = json_object_get(priced, "hold") ? trv_json_dump(p, json_object_get(priced, "hold"))
                                              : NULL;
    pr.passengers = trv_json_dump(p, pax);
    pr.journeys = trv_json_dump(p, journeys);
    pr.services = trv_json_dump(p, services);
    pr.fare_conditions = json_is_object(json_object_get(priced, "fare_conditions"))
        ? trv_json_dump(p, json_object_get(priced, "fare_conditions")) : NULL;
    pr.cancellation_policy = json_is_object(json_object_get(priced, "cancellation_policy"))
        ? trv_json_dump(p, json_object_get(priced, "cancellation_policy")) : NULL;
    pr.supplier_data = json_object_get(priced, "supplier_data")
        ? trv_json_dump(p, json_object_get(priced, "supplier_data")) : NULL;
    pr.sdk_token = sdk_token;

    if (!trv_api_db_open(req, x->resp, &c, 316, "storing a prebook")) {
        return;
    }
    if (trv_db_begin(c, p) != APR_SUCCESS
        || trv_fbooking_prebook_done(c, p, id, &pr, &b) != APR_SUCCESS
        || (b && trv_fjob_enqueue(c, p, TRV_FJOB_EXPIRE, id, -1, req->request_id,
                                  exp - apr_time_now() > 0 ? exp - apr_time_now() : 0)
                 != APR_SUCCESS)
        || trv_db_commit(c) != APR_SUCCESS) {
        trv_api_db_fail(req, x->resp, c, 317, "storing a prebook");
        return;
    }
    trv_db_close(req->env->db, c);
    if (!b) {
        /* The watchdog failed it meanwhile (this request outlived its budget). */
        trv_lifecycle_prebook_too_late(&x->lp);
        return;
    }
    trv_freply_booking(req, x->resp, 201, b, token ? trv_lifecycle_prebook_sdk_meta(token) : NULL);
}

void trv_flight_prebook(trv_req *req, trv_resp *resp)
{
    prebook_ctx x;
    trv_errs *errs = trv_errs_new(req->pool);
    const char *why;
    trv_fprebook_row row;
    trv_dbc *c;
    int inserted = 0;
    size_t i;

    memset(&x, 0, sizeof(x));
    x.req = req;
    x.resp = resp;
    x.key = apr_table_get(req->headers, "x-idempotency-key");
    trv_idempotency_key_check(x.key, TRV_IDEMPOTENCY_KEY_MAX, errs);
    trv_finput_prebook(req->pool, req->json, apr_time_now(), &x.in, errs);
    if (x.in.offer_reference
        && trv_foffer_ref_decode(req->pool,
                                 req->env->cfg && req->env->cfg->have_secret_key
                                     ? req->env->cfg->secret_key : NULL,
                                 req->org_id, x.in.offer_reference, &x.offer, &why)
           != APR_SUCCESS) {
        trv_errs_add(errs, "offer_reference", "%s", why);
        x.in.offer_reference = NULL;
    }
    if (trv_lifecycle_prebook_begin(&x.lp, req, resp, &flight_prebook, errs, x.key,
                                    x.offer.supplier, 310, 311)) {
        return;
    }
    x.hash = x.lp.hash;
    if (x.offer.adults != x.in.adults || x.offer.children != x.in.children
        || x.offer.infants != x.in.infants) {
        trv_errs_add(errs, "passengers", "must be the party the offer was priced for: "
                     "%d ADULT, %d CHILD, %d INFANT", x.offer.adults, x.offer.children,
                     x.offer.infants);
    }
    if (x.offer.expires_at && apr_time_now() >= x.offer.expires_at) {
        trv_errs_add(errs, "offer_reference", "the offer has expired; search again");
    }
    x.sup = trv_flight_supplier_for(req->env, req->pool, req->request_id, x.offer.supplier,
                                    &x.sc);
    if (!x.sup) {
        trv_errs_add(errs, "offer_reference", "its supplier %s is not available",
                     x.offer.supplier);
    }
    x.row = trv_flight_supplier_row(req->env->cfg, x.offer.supplier);
    /* use_payment_sdk: the payment provider's SDK (the service collects),
     * or the vendor's own (the supplier collects through its SDK). */
    x.sc.vendor_sdk = x.in.use_payment_sdk && trv_supplier_can(x.row, TRV_SUP_VENDOR_SDK);
    if (x.in.use_payment_sdk && !x.sc.vendor_sdk
        && !trv_supplier_can(x.row, TRV_SUP_PAYMENT_SDK)) {
        if (trv_supplier_can(x.row, TRV_SUP_COLLECTS_PAYMENT)) {
            trv_errs_add(errs, "use_payment_sdk", "%s collects payment itself: book with {} "
                         "and leave use_payment_sdk out", x.offer.supplier);
        }
        else {
            trv_errs_add(errs, "use_payment_sdk", "%s does not take the payment SDK: leave "
                         "use_payment_sdk out", x.offer.supplier);
        }
    }
    if (trv_errs_any(errs)) {
        trv_fail_invalid(req, resp, errs);
        return;
    }
    if (!check_services(&x, errs)) {
        return;
    }
    if (trv_errs_any(errs)) {
        trv_fail_invalid(req, resp, errs);
        return;
    }

    /* Our passenger ids, in the order given, from the first row on: a
     * booking FAILED at the supplier (or by the watchdog) names its
     * passengers as a CONFIRMED one does. */
    x.pax = trv_json_bind(req->pool, json_deep_copy(x.in.passengers));
    for (i = 0; i < json_array_size(x.pax); i++) {
        json_object_set_new(json_array_get(x.pax, i), "id",
                            json_string(trv_id_new(req->pool, "psg")));
    }

    memset(&row, 0, sizeof(row));
    x.sc.booking_id = trv_lifecycle_prebook_row_start(&x.lp, &row.head, x.offer.ref,
                                                      x.in.use_payment_sdk);
    x.sc.org_id = row.org_id;
    row.offer_once = trv_supplier_can(trv_flight_supplier_row(req->env->cfg, row.supplier),
                                      TRV_SUP_OFFER_ONCE);
    row.contact = trv_json_dump(req->pool, x.in.contact);
    row.passengers = trv_json_dump(req->pool, x.pax);
    if (!trv_api_db_open(req, resp, &c, 318, "starting a prebook")) {
        return;
    }
    if (trv_db_begin(c, req->pool) != APR_SUCCESS
        || trv_fbooking_expire_offer(c, req->pool, row.supplier, row.offer_reference)
           != APR_SUCCESS
        || trv_fbooking_insert_prebook(c, req->pool, &row, &inserted) != APR_SUCCESS
        || (inserted
            && trv_fjob_enqueue(c, req->pool, TRV_FJOB_PREBOOK_WATCH, row.id, -1,
                                req->request_id,
                                trv_config_call_budget(req->env->cfg, trv_config_upstream,
                                                       row.supplier, 1, 1)
                                    + apr_time_from_sec(10)) != APR_SUCCESS)
        || trv_db_commit(c) != APR_SUCCESS) {
        trv_api_db_fail(req, resp, c, 319, "starting a prebook");
        return;
    }
    trv_db_close(req->env->db, c);
    if (!inserted) {
        /* The key was taken meanwhile (a concurrent repeat), or the offer
         * (of a supplier that sells an offer once) has an unfinished
         * booking under another key. */
        if (trv_lifecycle_prebook_existing(&x.lp, 310, 311)) {
            return;
        }
        trv_fail(req, resp, 409, "offer_already_booked",
                 "This offer already has an unfinished booking; %s sells an offer to "
                 "one booking at a time", row.supplier);
        return;
    }
    bind_offer(&x, row.id);
}
