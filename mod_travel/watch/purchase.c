/* watch.purchase: an armed watch (a confirmed mandate) whose price met
 * its trigger buys the stay, through the very handlers of the API —
 * POST /v1/hotel/offers for a fresh price, POST /v1/hotel/prebook and
 * POST /v1/hotel/bookings/{id}/book — called with a request made for the
 * watch's organization and user, and the traveller kept with the watch
 * when it was created (watches.customer, sent as that traveller's headers):
 *
 *   1. a fresh price check (offers, cheapest of the hotel): above the
 *      mandate's max_total the watch goes back to active, no event;
 *   2. the prebook request (that offer, the mandate's contact and guests,
 *      reference_id the watch id) is stored on the watch once, and every
 *      run sends exactly it with the x-idempotency-key
 *      "watch-purchase:<watch id>": a second run, a run after kill -9 or a
 *      run on another instance gets the same booking, never a second one;
 *   3. a booking whose bound total is above max_total is not booked;
 *   4. book with the mandate's instrument: a repeat on a booking that is
 *      booked or being booked answers from where it stands (the hotel
 *      book's own rules: charged once). The handler runs the booking on the
 *      shared book runner (lifecycle/book.h, the hotel's part in
 *      hotel/book.c): authorization, order, lost answer, capture and revert
 *      are the very steps of POST .../book, never a copy of them here;
 *   5. the outcome — travel.hotel.watch.purchased (data.booking with
 *      total_amount, mandate_id) or travel.hotel.watch.purchase_failed
 *      (reason, current) — is written with the watch's status in one
 *      guarded transaction: once.
 * The job runs one at a time per watch (its dedupe key); anything that
 * may yet succeed (a supplier or the database away, a booking still
 * confirming, an unknown result) is retried. */
#include "watch.h"
#include "hotel/handlers.h"
#include "hotel/customer.h"
#include "watch_status.h"
#include "hotel/state.h"
#include "webhook/outbox.h"
#include "core/json.h"
#include "core/log.h"
#include "core/money.h"

#include <apr_strings.h>
#include <string.h>

#define PURCHASE_RETRY apr_time_from_sec(3)

const trv_job_spec trv_watch_purchase_job = {"watch.purchase", 40};

static const trv_stmt read_stmt = {"trv_watch_purchase_read",
    "SELECT w.id, w.org_id, w.user_id, w.hotel_id, w.check_in::text AS check_in, "
    "w.check_out::text AS check_out, w.occupancy::text AS occupancy, w.currency, "
    "w.guest_nationality, w.guest_residence, w.max_total_minor::text AS max_total_minor, "
    "w.purchase_body::text AS purchase_body, m.id AS mandate_id, m.payment_instrument_id, "
    "m.contact::text AS contact, m.rooms::text AS rooms, w.customer::text AS customer "
    "FROM watches w JOIN watch_mandates m ON m.id = w.mandate_id AND m.status = 'confirmed' "
    "WHERE w.id = %s AND w.status = 'armed'"};
static const trv_stmt disarm_stmt = {"trv_watch_purchase_disarm",
    "UPDATE watches SET status = 'active', last_checked_at = trv_now(), "
    "last_price_minor = %s::bigint, checking_until = NULL, updated_at = trv_now() "
    "WHERE id = %s AND status = 'armed' AND purchase_body IS NULL"};
static const trv_stmt keep_stmt = {"trv_watch_purchase_keep",
    "UPDATE watches SET purchase_body = coalesce(purchase_body, %s::jsonb), "
    "updated_at = trv_now() WHERE id = %s AND status = 'armed' "
    "RETURNING purchase_body::text AS purchase_body"};
static const trv_stmt finish_stmt = {"trv_watch_purchase_finish",
    "WITH f AS (UPDATE watches SET status = %s, triggered_at = trv_now(), "
    "last_checked_at = trv_now(), checking_until = NULL, updated_at = trv_now() "
    "WHERE id = %s AND status = 'armed' RETURNING *) "
    "SELECT " TRV_WATCH_COLS ", w.org_id FROM f w" TRV_WATCH_JOINS};

typedef struct purchase {
    trv_env *env;
    apr_pool_t *p;
    const char *rid;
    const trv_rows *w;
    json_t *current;           /* the fresh price's details, or NULL */
} purchase;

#define W(col) trv_rows_get(x->w, 0, col)

/* Calls one of the API's handlers as the watch's user. */
static void call(purchase *x, trv_handler_fn *fn, const char *path, json_t *body,
                 const char *idem, const char *booking_id, trv_resp *resp)
{
    trv_req req;
    trv_watch_job_req(x->env, x->p, x->rid, W("org_id"), &req, resp);
    req.user_id = W("user_id");
    req.path = path;
    req.json = body;
    resp->headers = apr_table_make(x->p, 2);
    /* The traveller the watch was created for, stated as that traveller's
     * own request would: offers and prebook read it, and the booking keeps
     * it for book (hotel/customer.h). */
    trv_hcustomer_headers(req.headers, trv_json_column(x->p, x->w, 0, "customer"));
    if (idem) {
        apr_table_set(req.headers, "x-idempotency-key", idem);
    }
    if (booking_id) {
        apr_table_set(req.params, "id", booking_id);
    }
    fn(&req, resp);
}

static const char *error_code(const trv_resp *resp)
{
    const char *c = trv_json_str(json_object_get(resp->error, "error"), "code");
    return c ? c : (resp->error_code ? resp->error_code : "failed");
}

/* Whether the API's booking document has status s (its text read here,
 * at the edge). */
static int booking_is(const json_t *booking, trv_hb_status s)
{
    return trv_transit_from_text(&trv_hb_status_table, trv_json_str(booking, "status"))
           == (int)s;
}

/* Writes the outcome with the watch's status, once. */
static void finish(purchase *x, trv_watch_status status, const char *type, json_t *data,
                   trv_job_result *res)
{
    trv_dbc *c;
    trv_rows *f;
    /* finish_stmt moves an armed watch. */
    if (!trv_watch_status_transit(&x->env->log, x->rid, W("id"), TRV_WATCH_ARMED, status)) {
        res->outcome = TRV_JOB_DEAD;
        res->error = "refused watch status move";
        return;
    }
    if (!trv_job_db_open(x->env, x->p, &c, res)) {
        return;
    }
    if (trv_db_begin(c, x->p) != APR_SUCCESS
        || trv_db_select(c, x->p, &finish_stmt, &f,
                         TRV_DB_ARGS(trv_transit_text(&trv_watch_status_table, status), W("id"))) != APR_SUCCESS
        || (f->n && (json_object_set_new(data, "user_id", json_string(W("user_id"))) != 0
                     || json_object_set_new(data, "watch", trv_watch_json(x->p, f, 0)) != 0
                     || trv_outbox_emit(c, x->p, W("org_id"), type, data, NULL)
                            != APR_SUCCESS))
        || trv_db_commit(c) != APR_SUCCESS) {
        res->outcome = TRV_JOB_RETRY;
        res->error = apr_pstrdup(x->p, c->error ? c->error : "failed");
        trv_log_msg(&x->env->log, TRV_LOG_WARNING, NULL,
                    TRVLOGNO(1543) "watch %s purchase outcome: %s", W("id"), res->error);
        if (c->in_txn) {
            trv_db_rollback(c);
        }
        trv_db_close(x->env->db, c);
        return;
    }
    trv_db_close(x->env->db, c);
}

static void failed(purchase *x, const char *reason, trv_job_result *res)
{
    json_t *data = trv_json_bind(x->p, json_pack("{s:s}", "reason", reason));
    if (x->current) {
        json_object_set(data, "current", x->current);
    }
    finish(x, TRV_WATCH_PURCHASE_FAILED, TRV_WEV_PURCHASE_FAILED, data, res);
}

static void retry(trv_job_result *res, const char *why)
{
    res->outcome = TRV_JOB_RETRY;
    res->retry_in = PURCHASE_RETRY;
    res->error = why;
}

static apr_int64_t minor_of(const json_t *money, const char *currency)
{
    apr_int64_t m = -1;
    if (trv_money_minor_of(json_object_get(money, "amount"), currency, &m) != 0) {
        return -1;
    }
    return m;
}

/* Step 1 and 2: the fresh price and the prebook request kept. Returns the
 * request, or NULL when the job is over (res says how). */
static json_t *choose(purchase *x, apr_int64_t max_total, trv_job_result *res)
{
    json_t *body, *offer, *occ;
    trv_resp resp;
    trv_dbc *c;
    trv_rows *r;
    apr_int64_t total;
    const char *text;

    occ = trv_json_parse(x->p, W("occupancy"), strlen(W("occupancy")), NULL);
    body = trv_json_bind(x->p, json_pack("{s:[s],s:s,s:s,s:O,s:s,s:s,s:s,s:i}",
                                         "hotel_ids", W("hotel_id"), "check_in", W("check_in"),
                                         "check_out", W("check_out"), "occupancy", occ,
                                         "guest_nationality", W("guest_nationality"),
                                         "guest_residence", W("guest_residence"), "currency",
                                         W("currency"), "max_offers_per_hotel", 1));
    call(x, trv_hotel_offers, "/v1/hotel/offers", body, NULL, NULL, &resp);
    if (resp.status != 200) {
        retry(res, apr_psprintf(x->p, "fresh price check: %d %s", resp.status,
                                error_code(&resp)));
        return NULL;
    }
    offer = json_array_get(trv_resp_data(x->p, &resp), 0);
    if (!offer || (total = minor_of(json_object_get(offer, "total"), W("currency"))) < 0) {
        retry(res, "fresh price check: no offer now");
        return NULL;
    }
    x->current = trv_json_bind(x->p, json_pack(
        "{s:O,s:s,s:O,s:O,s:O}", "total", json_object_get(json_object_get(offer, "total"),
                                                          "amount"),
        "currency", W("currency"),
        "room_type", json_object_get(offer, "room_type") ? json_object_get(offer, "room_type")
                                                         : json_null(),
        "board", json_object_get(offer, "board") ? json_object_get(offer, "board") : json_null(),
        "refundable", json_object_get(json_object_get(offer, "cancellation_policy"),
                                      "refundable")
                          ? json_object_get(json_object_get(offer, "cancellation_policy"),
                                            "refundable")
                          : json_null()));
    if (trv_db_open(x->env->db, x->p, &c) != APR_SUCCESS) {
        retry(res, "database unavailable");
        return NULL;
    }
    if (total > max_total) {
        /* Back above the cap before anything was bought: active again. */
        if (trv_db_exec(c, x->p, &disarm_stmt, NULL,
                        TRV_DB_ARGS(apr_psprintf(x->p, "%" APR_INT64_T_FMT, total), W("id")))
            != APR_SUCCESS) {
            retry(res, apr_pstrdup(x->p, c->error ? c->error : "failed"));
        }
        trv_db_close(x->env->db, c);
        return NULL;
    }
    body = trv_json_bind(x->p, json_pack("{s:O,s:s,s:b,s:O,s:O}", "offer_reference",
                                         json_object_get(offer, "offer_reference"),
                                         "reference_id", W("id"), "use_payment_sdk", 0,
                                         "contact", trv_json_parse(x->p, W("contact"),
                                                                   strlen(W("contact")), NULL),
                                         "rooms", trv_json_parse(x->p, W("rooms"),
                                                                 strlen(W("rooms")), NULL)));
    if (trv_db_select(c, x->p, &keep_stmt, &r,
                      TRV_DB_ARGS(trv_json_dump(x->p, body), W("id"))) != APR_SUCCESS) {
        retry(res, apr_pstrdup(x->p, c->error ? c->error : "failed"));
        trv_db_close(x->env->db, c);
        return NULL;
    }
    trv_db_close(x->env->db, c);
    if (!r->n) {
        return NULL; /* no longer armed (canceled meanwhile) */
    }
    text = trv_rows_get(r, 0, "purchase_body");
    return trv_json_parse(x->p, text, strlen(text), NULL);
}

/* The booking as the purchased event shows it: total_amount added. */
static json_t *booking_doc(const json_t *b)
{
    json_t *d = json_deep_copy(b);
    json_object_set(d, "total_amount", json_object_get(b, "total"));
    return d;
}

void trv_watch_purchase_run(trv_env *env, apr_pool_t *p, const trv_job *job,
                            trv_job_result *res)
{
    const char *wid = trv_json_str(job->payload, "watch_id");
    purchase px, *x = &px;
    trv_dbc *c;
    trv_rows *w;
    trv_resp resp;
    json_t *body, *booking;
    const char *status, *bid, *path;
    apr_int64_t max_total, total;

    if (!wid) {
        res->outcome = TRV_JOB_DEAD;
        res->error = "payload needs watch_id";
        return;
    }
    if (trv_db_open(env->db, p, &c) != APR_SUCCESS) {
        retry(res, "database unavailable");
        return;
    }
    if (trv_db_select(c, p, &read_stmt, &w, TRV_DB_ARGS(wid)) != APR_SUCCESS) {
        retry(res, apr_pstrdup(p, c->error ? c->error : "failed"));
        trv_db_close(env->db, c);
        return;
    }
    trv_db_close(env->db, c);
    if (!w->n) {
        return; /* no longer armed: bought, failed, canceled or disarmed */
    }
    memset(x, 0, sizeof(*x));
    x->env = env;
    x->p = p;
    x->w = w;
    /* One request id for every run of the watch's purchase (its calls can
     * be told apart from the checks' at the supplier and in the logs). */
    x->rid = apr_pstrcat(p, "purchase_", wid, NULL);
    max_total = apr_atoi64(W("max_total_minor"));
    if (W("purchase_body")) {
        body = trv_json_parse(p, W("purchase_body"), strlen(W("purchase_body")), NULL);
    }
    else if (!(body = choose(x, max_total, res))) {
        return;
    }
    call(x, trv_hotel_prebook, "/v1/hotel/prebook", body,
         apr_pstrcat(p, "watch-purchase:", wid, NULL), NULL, &resp);
    if (resp.status >= 500 || resp.status == 409) {
        retry(res, apr_psprintf(p, "prebook: %d %s", resp.status, error_code(&resp)));
        return;
    }
    if (resp.status != 200 && resp.status != 201) {
        failed(x, apr_pstrcat(p, "prebook_", error_code(&resp), NULL), res);
        return;
    }
    booking = resp.data;
    bid = trv_json_str(booking, "id");
    status = trv_json_str(booking, "status");
    total = minor_of(json_object_get(booking, "total"), W("currency"));
    if (booking_is(booking, TRV_HB_READY)) {
        if (total < 0 || total > max_total) {
            /* The supplier re-priced above the mandate: never bought. */
            failed(x, "price_above_max_total", res);
            return;
        }
        path = apr_pstrcat(p, "/v1/hotel/bookings/", bid, "/book", NULL);
        call(x, trv_hotel_book, path,
             trv_json_bind(p, json_pack("{s:s}", "payment_instrument_id",
                                        W("payment_instrument_id"))),
             NULL, bid, &resp);
        if (resp.status == 200 || resp.status == 202) {
            booking = resp.data;
            status = trv_json_str(booking, "status");
        }
        else if (resp.status == 422) {
            failed(x, error_code(&resp), res);
            return;
        }
        else {
            retry(res, apr_psprintf(p, "book: %d %s", resp.status, error_code(&resp)));
            return;
        }
    }
    if (booking_is(booking, TRV_HB_CONFIRMED)) {
        finish(x, TRV_WATCH_PURCHASED, TRV_WEV_PURCHASED,
               trv_json_bind(p, json_pack("{s:o,s:s}", "booking", booking_doc(booking),
                                          "mandate_id", W("mandate_id"))),
               res);
        return;
    }
    if (booking_is(booking, TRV_HB_FAILED) || booking_is(booking, TRV_HB_EXPIRED)) {
        failed(x, booking_is(booking, TRV_HB_FAILED) ? "book_failed" : "offer_expired", res);
        return;
    }
    /* Still being booked or confirmed: look again. */
    retry(res, apr_psprintf(p, "booking %s is %s", bid ? bid : "?", status ? status : "?"));
}
#undef W
