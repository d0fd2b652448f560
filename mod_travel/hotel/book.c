/* Completing a hotel booking (book.h). Each database step is one short
 * transaction; no connection is held while the supplier or the payment
 * provider is asked. */
#include "book.h"
#include "bapi.h"
#include "bstore.h"
#include "enqueue.h"
#include "events.h"
#include "render.h"
#include "core/ids.h"
#include "core/json.h"
#include "core/money.h"

#include <apr_strings.h>
#include <string.h>

int trv_hbook_service_pays(const trv_hbooking *b)
{
    return !trv_supplier_can(trv_supplier_find(trv_hotel_suppliers, b->supplier),
                             TRV_SUP_COLLECTS_PAYMENT);
}

apr_interval_time_t trv_hbook_budget(const trv_env *env, const trv_hbooking *b,
                                     const char *phase)
{
    if (strcmp(phase, "authorizing") == 0) {
        return trv_hbapi_budget(env, b->supplier, 0, 1);
    }
    /* ordering: book, then a read of the booking and the capture */
    return trv_hbapi_budget(env, b->supplier, 2, trv_hbook_service_pays(b) ? 1 : 0);
}

const char *trv_hbook_client_reference(apr_pool_t *p, const trv_hbooking *b)
{
    /* The reference triggers of the sandbox (and a person reading the
     * supplier's extranet) see the caller's reference; the id keeps it
     * unique. */
    size_t room = 64 - strlen(b->id) - 1;
    return apr_psprintf(p, "%s/%.*s", b->id, (int)room, b->reference_id);
}

static const char *key(trv_hbook_run *run, const char *what)
{
    return apr_psprintf(run->p, "%s:%s:%d", run->b->id, what, run->b->book_attempt);
}

/* ---- database steps ---- */

static trv_hbook_outcome db_failed(trv_hbook_run *run, trv_dbc *c, int logno, const char *what)
{
    trv_log_msg(run->log, TRV_LOG_ERR, run->request_id, "TRV%d: hotel booking %s: %s: %s",
                logno, run->b->id, what, c ? (c->error ? c->error : "failed")
                                           : "no connection");
    run->db_down = !c || c->unavailable;
    if (c) {
        if (c->in_txn) {
            trv_db_rollback(c);
        }
        trv_db_close(run->env->db, c);
    }
    return TRV_HBOOK_DB;
}

static int begin(trv_hbook_run *run, trv_dbc **c)
{
    *c = NULL;
    if (trv_db_open(run->env->db, run->p, c) != APR_SUCCESS) {
        *c = NULL;
        return 0;
    }
    return trv_db_begin(*c, run->p) == APR_SUCCESS;
}

static int commit(trv_hbook_run *run, trv_dbc *c)
{
    if (trv_db_commit(c) != APR_SUCCESS) {
        return 0;
    }
    trv_db_close(run->env->db, c);
    trv_env_wake(run->env);
    return 1;
}

/* Someone else moved the booking on: where it stands now. */
static trv_hbook_outcome lost(trv_hbook_run *run, trv_dbc *c)
{
    trv_hbooking *b = NULL;
    if (c->in_txn) {
        trv_db_rollback(c);
    }
    if (trv_hbstore_get_any(c, run->p, run->b->id, &b) != APR_SUCCESS || !b) {
        return db_failed(run, c, 1427, "re-reading after a lost race");
    }
    trv_db_close(run->env->db, c);
    run->b = b;
    if (strcmp(b->status, "CONFIRMED") == 0) {
        return TRV_HBOOK_CONFIRMED;
    }
    if (strcmp(b->status, "FAILED") == 0) {
        return TRV_HBOOK_FAILED;
    }
    if (b->book_phase && strcmp(b->book_phase, "unknown") == 0) {
        return TRV_HBOOK_UNKNOWN;
    }
    return TRV_HBOOK_PENDING;
}

/* The booking's payment that is not voided, or NULL. */
static const trv_hpayment *live_payment(const trv_hbooking *b)
{
    int i;
    for (i = 0; b->payments && i < b->payments->nelts; i++) {
        const trv_hpayment *pay = &APR_ARRAY_IDX(b->payments, i, trv_hpayment);
        if (strcmp(pay->status, "VOIDED") != 0) {
            return pay;
        }
    }
    return NULL;
}

/* Voids the service's authorization (the booking will not use it). */
static int void_payment(trv_hbook_run *run, const trv_hpayment *pay)
{
    trv_pay_ctx pc;
    trv_pay_err err = {0};
    json_t *auth = NULL;
    trv_up_status st = TRV_UP_UNAVAILABLE;
    if (!pay || strcmp(pay->status, "AUTHORIZED") != 0 || !pay->provider_ref
        || strcmp(pay->collected_by, "SERVICE") != 0) {
        return 0;
    }
    if (trv_hbapi_payment_ctx(run->env, run->p, run->request_id, &pc)) {
        st = trv_payment_adapter.void_auth(&pc, pay->provider_ref, &auth, &err);
    }
    if (st != TRV_UP_OK) {
        trv_log_msg(run->log, TRV_LOG_WARNING, run->request_id,
                    TRVLOGNO(1428) "hotel booking %s: voiding authorization %s failed (%s): %s",
                    run->b->id, pay->provider_ref, trv_up_status_name(st),
                    err.message ? err.message : "");
        return 0;
    }
    return 1;
}

/* Back to READY_FOR_COMPLETE: the attempt bought nothing (its payment,
 * voided first, goes). */
static trv_hbook_outcome revert(trv_hbook_run *run, trv_hbook_outcome why)
{
    trv_dbc *c;
    trv_hbooking *b;
    void_payment(run, live_payment(run->b));
    if (!begin(run, &c)) {
        return db_failed(run, c, 1429, "reverting to READY_FOR_COMPLETE");
    }
    if (trv_hbstore_book_revert(c, run->p, run->b->id, run->owner, &b) != APR_SUCCESS) {
        return db_failed(run, c, 1429, "reverting to READY_FOR_COMPLETE");
    }
    if (!b) {
        return lost(run, c);
    }
    if (trv_hbooking_keep(c, run->p, b) != APR_SUCCESS || !commit(run, c)) {
        return db_failed(run, c, 1429, "reverting to READY_FOR_COMPLETE");
    }
    run->b = b;
    return why;
}

/* FAILED with failure {code, description}; the authorization voided. */
static trv_hbook_outcome finish_failed(trv_hbook_run *run, const char *code,
                                       const char *description)
{
    const trv_hpayment *pay = live_payment(run->b);
    json_t *failure = trv_json_bind(run->p, json_pack(
        "{s:s,s:s}", "code", code ? code : "book_failed", "description",
        description && *description ? description : "The hotel refused the booking"));
    int voided = void_payment(run, pay);
    trv_dbc *c;
    trv_hbooking *b;
    if (!begin(run, &c)) {
        return db_failed(run, c, 1430, "recording a failed booking");
    }
    if ((voided && trv_hbstore_payment_voided(c, run->p, pay->id) != APR_SUCCESS)
        || trv_hbstore_book_failed(c, run->p, run->b->id, trv_json_dump(run->p, failure), &b)
           != APR_SUCCESS) {
        return db_failed(run, c, 1430, "recording a failed booking");
    }
    if (!b) {
        return lost(run, c);
    }
    if (trv_hbooking_keep(c, run->p, b) != APR_SUCCESS || !commit(run, c)) {
        return db_failed(run, c, 1430, "recording a failed booking");
    }
    run->b = b;
    run->message = trv_json_str(failure, "description");
    trv_log_msg(run->log, TRV_LOG_INFO, run->request_id,
                TRVLOGNO(1431) "hotel booking %s failed: %s", b->id,
                trv_json_dump(run->p, failure));
    return TRV_HBOOK_FAILED;
}

/* The supplier confirmed: capture what the service authorized (or record
 * what the supplier collected), confirm, emit hotel.booking.confirmed. */
static trv_hbook_outcome finish_confirmed(trv_hbook_run *run, const trv_hotel_booked *bk)
{
    const trv_hpayment *pay = live_payment(run->b);
    json_t *card = NULL;
    int captured = 0, inserted;
    trv_hpayment sp;
    trv_hconfirmed cf;
    trv_dbc *c;
    trv_hbooking *b;

    if (trv_hbook_service_pays(run->b) && pay && strcmp(pay->status, "AUTHORIZED") == 0) {
        trv_pay_ctx pc;
        trv_pay_err err = {0};
        json_t *auth = NULL;
        trv_money total;
        trv_up_status st = TRV_UP_UNAVAILABLE;
        if (trv_hbapi_total(run->b, &total)
            && trv_hbapi_payment_ctx(run->env, run->p, run->request_id, &pc)) {
            /* One key per booking: a capture repeated by a takeover is the
             * same capture. */
            st = trv_payment_adapter.capture(&pc, pay->provider_ref, &total,
                                             apr_pstrcat(run->p, run->b->id, ":capture", NULL),
                                             &auth, &err);
        }
        if (st == TRV_UP_OK) {
            captured = 1;
            card = json_is_object(json_object_get(auth, "card")) ? json_object_get(auth, "card")
                                                                  : NULL;
        }
        else {
            /* Bought: the booking is confirmed; the capture is retried by
             * the job until the provider takes it. */
            trv_log_msg(run->log, TRV_LOG_WARNING, run->request_id,
                        TRVLOGNO(1432) "hotel booking %s: capture of %s failed (%s): %s; "
                        "retried in the background", run->b->id, pay->provider_ref,
                        trv_up_status_name(st), err.message ? err.message : "");
        }
    }
    memset(&sp, 0, sizeof(sp));
    if (!trv_hbook_service_pays(run->b) && bk->payment) {
        trv_money m;
        const char *why;
        sp.id = trv_id_new(run->p, "pay");
        sp.booking_id = run->b->id;
        sp.status = "CAPTURED";
        sp.collected_by = "SUPPLIER";
        if (trv_money_from_json(json_object_get(bk->payment, "amount"), &m, &why)
            != APR_SUCCESS && !trv_hbapi_total(run->b, &m)) {
            m.minor = 0;
            memcpy(m.currency, run->b->currency, 4);
        }
        sp.currency = apr_pstrdup(run->p, m.currency);
        sp.amount = trv_money_decimal(run->p, m.minor, trv_currency_exponent(m.currency));
        if (trv_json_str(bk->payment, "last4")) {
            sp.card = trv_json_bind(run->p, json_pack("{s:n,s:s,s:n,s:n}", "brand", "last4",
                                                      trv_json_str(bk->payment, "last4"),
                                                      "funding", "wallet"));
        }
    }
    memset(&cf, 0, sizeof(cf));
    cf.supplier_booking_id = bk->booking_id;
    cf.hotel_confirmation_code = bk->hotel_confirmation_code;
    cf.hotel_remarks = bk->hotel_remarks;
    cf.rooms = bk->rooms ? trv_json_dump(run->p, bk->rooms) : NULL;
    if (!begin(run, &c)) {
        return db_failed(run, c, 1433, "confirming");
    }
    if (trv_hbstore_confirm(c, run->p, run->b->id, &cf, &b) != APR_SUCCESS) {
        return db_failed(run, c, 1433, "confirming");
    }
    if (!b) {
        return lost(run, c);
    }
    if ((captured && trv_hbstore_payment_captured(c, run->p, pay->id,
                                                  card ? trv_json_dump(run->p, card) : NULL)
                     != APR_SUCCESS)
        || (sp.id && trv_hbstore_payment_insert(c, run->p, &sp, &inserted) != APR_SUCCESS)
        || (trv_hbook_service_pays(run->b) && pay && !captured
            && trv_hjob_enqueue(c, run->p, TRV_HJOB_COMPLETE, run->b->id, run->request_id,
                                apr_time_from_sec(5)) != APR_SUCCESS)) {
        return db_failed(run, c, 1434, "recording the booking's payment");
    }
    /* Read again whole: the payment's change raised the revision. */
    if (trv_hbstore_get_any(c, run->p, run->b->id, &b) != APR_SUCCESS || !b
        || trv_hbooking_keep(c, run->p, b) != APR_SUCCESS
        || trv_hotel_emit(c, run->p, b, TRV_HEV_CONFIRMED) != APR_SUCCESS
        || !commit(run, c)) {
        return db_failed(run, c, 1433, "confirming");
    }
    run->b = b;
    trv_log_msg(run->log, TRV_LOG_INFO, run->request_id,
                TRVLOGNO(1435) "hotel booking %s confirmed: supplier booking %s", b->id,
                b->supplier_booking_id ? b->supplier_booking_id : "-");
    return TRV_HBOOK_CONFIRMED;
}

/* A phase move held by this owner (the supplier's booking id kept). */
static trv_hbook_outcome move(trv_hbook_run *run, const char *to, const char *booking_id,
                              trv_hbook_outcome then)
{
    trv_dbc *c;
    trv_hbooking *b;
    if (!begin(run, &c)) {
        return db_failed(run, c, 1436, "moving the book step");
    }
    if (trv_hbstore_phase(c, run->p, run->b->id, run->b->book_phase, run->owner, to,
                          run->owner, trv_hbook_budget(run->env, run->b, "ordering"),
                          booking_id, &b) != APR_SUCCESS) {
        return db_failed(run, c, 1436, "moving the book step");
    }
    if (!b) {
        return lost(run, c);
    }
    if ((strcmp(to, "confirming") == 0 || strcmp(to, "unknown") == 0)
        && trv_hjob_enqueue(c, run->p, TRV_HJOB_COMPLETE, b->id, run->request_id,
                            apr_time_from_sec(1)) != APR_SUCCESS) {
        return db_failed(run, c, 1436, "moving the book step");
    }
    if (trv_hbooking_keep(c, run->p, b) != APR_SUCCESS || !commit(run, c)) {
        return db_failed(run, c, 1436, "moving the book step");
    }
    run->b = b;
    return then;
}

/* ---- authorizing ---- */

static trv_hbook_outcome step_authorize(trv_hbook_run *run)
{
    trv_pay_ctx pc;
    trv_pay_err err = {0};
    trv_money total;
    json_t *auth = NULL;
    trv_up_status st;
    const char *auth_id, *status;
    trv_hpayment pay;
    trv_dbc *c;
    trv_hbooking *b;
    int inserted = 0;

    if (!trv_hbapi_total(run->b, &total)
        || !trv_hbapi_payment_ctx(run->env, run->p, run->request_id, &pc)) {
        run->message = "no payment provider is configured";
        return revert(run, TRV_HBOOK_UNAVAILABLE);
    }
    if (run->b->use_payment_sdk) {
        st = trv_payment_adapter.sdk_authorization(&pc, run->b->sdk_token, &auth, &err);
        if (st == TRV_UP_NOT_FOUND) {
            run->message = err.message;
            return revert(run, TRV_HBOOK_NOT_PAID);
        }
    }
    else {
        /* The attempt's key: a takeover repeating it finds the same
         * authorization at the provider, never a second one. */
        st = trv_payment_adapter.authorize(&pc, run->b->payment_instrument_id, &total,
                                           key(run, "authorize"), &auth, &err);
    }
    run->message = err.message;
    switch (st) {
    case TRV_UP_OK:
        break;
    case TRV_UP_DECLINED:
        return revert(run, TRV_HBOOK_DECLINED);
    case TRV_UP_NOT_FOUND:
    case TRV_UP_REJECTED:
        return revert(run, TRV_HBOOK_BAD_INSTRUMENT);
    case TRV_UP_TIMEOUT:
        return revert(run, TRV_HBOOK_TIMEOUT);
    default:
        trv_log_msg(run->log, TRV_LOG_WARNING, run->request_id,
                    TRVLOGNO(1437) "hotel booking %s: payment provider %s: %s", run->b->id,
                    trv_up_status_name(st), err.message ? err.message : "");
        return revert(run, TRV_HBOOK_UNAVAILABLE);
    }
    auth_id = trv_json_str(auth, "id");
    status = trv_json_str(auth, "status");
    if (!auth_id || !status || strcmp(status, "AUTHORIZED") != 0) {
        run->message = apr_psprintf(run->p, "the payment's authorization is %s",
                                    status ? status : "unreadable");
        return revert(run, run->b->use_payment_sdk ? TRV_HBOOK_NOT_PAID : TRV_HBOOK_UNAVAILABLE);
    }
    memset(&pay, 0, sizeof(pay));
    pay.id = trv_id_new(run->p, "pay");
    pay.booking_id = run->b->id;
    pay.status = "AUTHORIZED";
    pay.currency = run->b->currency;
    pay.amount = run->b->total_amount;
    pay.collected_by = "SERVICE";
    pay.provider_ref = auth_id;
    pay.card = json_is_object(json_object_get(auth, "card")) ? json_object_get(auth, "card")
                                                              : NULL;
    if (!begin(run, &c)) {
        return db_failed(run, c, 1438, "recording the authorization");
    }
    if (trv_hbstore_phase(c, run->p, run->b->id, "authorizing", run->owner, "ordering",
                          run->owner, trv_hbook_budget(run->env, run->b, "ordering"), NULL, &b)
        != APR_SUCCESS) {
        return db_failed(run, c, 1438, "recording the authorization");
    }
    if (!b) {
        return lost(run, c);
    }
    if (trv_hbstore_payment_insert(c, run->p, &pay, &inserted) != APR_SUCCESS
        || trv_hbstore_get_any(c, run->p, run->b->id, &b) != APR_SUCCESS || !b
        || trv_hbooking_keep(c, run->p, b) != APR_SUCCESS || !commit(run, c)) {
        return db_failed(run, c, 1438, "recording the authorization");
    }
    run->b = b;
    return TRV_HBOOK_RETRY;
}

/* ---- ordering ---- */

static int party_of(trv_hbook_run *run, trv_hotel_party *pt)
{
    const trv_hbooking *b = run->b;
    int i, k;
    memset(pt, 0, sizeof(*pt));
    pt->first_name = trv_json_str(b->contact, "first_name");
    pt->last_name = trv_json_str(b->contact, "last_name");
    pt->email = trv_json_str(b->contact, "email");
    pt->phone = trv_json_str(b->contact, "phone");
    pt->n_rooms = b->rooms->nelts;
    if (pt->n_rooms < 1 || pt->n_rooms > TRV_HOTEL_MAX_ROOMS) {
        return 0;
    }
    for (i = 0; i < pt->n_rooms; i++) {
        const trv_hroom *r = &APR_ARRAY_IDX(b->rooms, i, trv_hroom);
        trv_hotel_guest *gs = apr_pcalloc(run->p, sizeof(*gs) * (r->guests->nelts + 1));
        for (k = 0; k < r->guests->nelts; k++) {
            const trv_hguest *g = &APR_ARRAY_IDX(r->guests, k, trv_hguest);
            gs[k].first_name = g->first_name;
            gs[k].last_name = g->last_name;
            gs[k].is_lead = g->is_lead;
            gs[k].child = strcmp(g->type, "CHILD") == 0;
        }
        pt->n_guests[i] = r->guests->nelts;
        pt->guests[i] = gs;
    }
    return 1;
}

/* The stay as the supplier priced it, from the rooms. */
static void stay_of(const trv_hbooking *b, trv_hotel_stay *stay)
{
    int i, k;
    memset(stay, 0, sizeof(*stay));
    stay->check_in = b->check_in;
    stay->check_out = b->check_out;
    memcpy(stay->currency, b->currency, 4);
    stay->n_rooms = b->rooms->nelts < TRV_HOTEL_MAX_ROOMS ? b->rooms->nelts : TRV_HOTEL_MAX_ROOMS;
    for (i = 0; i < stay->n_rooms; i++) {
        const trv_hroom *r = &APR_ARRAY_IDX(b->rooms, i, trv_hroom);
        stay->rooms[i].adults = r->adults;
        for (k = 0; k < (int)json_array_size(r->children) && k < TRV_HOTEL_MAX_CHILDREN; k++) {
            stay->rooms[i].ages[k] = (int)json_integer_value(json_array_get(r->children, k));
        }
        stay->rooms[i].n_children = k;
    }
}

static const trv_hotel_supplier *adapter(trv_hbook_run *run, trv_hotel_ctx *ctx)
{
    const trv_supplier *row;
    return trv_hbapi_supplier(run->env, run->p, run->request_id, run->b->supplier, &row, ctx);
}

static trv_hbook_outcome settle_booked(trv_hbook_run *run, const trv_hotel_booked *bk)
{
    const char *ours = trv_hbook_client_reference(run->p, run->b);
    if (bk->client_reference && strcmp(bk->client_reference, ours) != 0) {
        /* Another booking's (a supplier that books a prebook once answers
         * a second book of it with the first booking): never ours. */
        trv_log_msg(run->log, TRV_LOG_WARNING, run->request_id,
                    TRVLOGNO(1447) "hotel booking %s: %s answered booking %s of reference %s",
                    run->b->id, run->b->supplier, bk->booking_id ? bk->booking_id : "-",
                    bk->client_reference);
        return finish_failed(run, "book_failed", "The supplier's offer was already booked "
                             "under another reference; prebook again");
    }
    if (strcmp(bk->status, "CONFIRMED") == 0) {
        return finish_confirmed(run, bk);
    }
    if (strcmp(bk->status, "PENDING") == 0) {
        if (run->b->book_phase && strcmp(run->b->book_phase, "confirming") == 0) {
            return TRV_HBOOK_PENDING;
        }
        return move(run, "confirming", bk->booking_id, TRV_HBOOK_PENDING);
    }
    return finish_failed(run, "book_failed", "The supplier canceled the booking");
}

static trv_hbook_outcome step_order(trv_hbook_run *run)
{
    trv_hotel_ctx ctx;
    const trv_hotel_supplier *s = adapter(run, &ctx);
    trv_hotel_book_req rq;
    trv_hotel_party pt;
    trv_hotel_stay stay;
    trv_hotel_booked bk;
    trv_hotel_err err = {0};
    trv_money total;
    trv_up_status st;

    if (!s || !s->book || !party_of(run, &pt) || !trv_hbapi_total(run->b, &total)) {
        run->message = "the supplier is not configured";
        return revert(run, TRV_HBOOK_UNAVAILABLE);
    }
    stay_of(run->b, &stay);
    memset(&rq, 0, sizeof(rq));
    rq.stay = &stay;
    rq.sid = run->b->supplier_hotel_id;
    rq.prebook_id = run->b->supplier_prebook_id;
    rq.total_minor = total.minor;
    rq.client_reference = trv_hbook_client_reference(run->p, run->b);
    rq.party = &pt;
    rq.card_number = run->card_number;
    /* One key per booking: the supplier answers a repeat with the same
     * booking. */
    rq.idempotency_key = apr_pstrcat(run->p, run->b->id, ":book", NULL);
    st = s->book(&ctx, &rq, &bk, &err);
    run->message = err.message;
    switch (st) {
    case TRV_UP_OK:
        return settle_booked(run, &bk);
    case TRV_UP_REJECTED:
    case TRV_UP_NOT_FOUND:
    case TRV_UP_DECLINED:
        if (err.code && strcmp(err.code, "card_required") == 0) {
            return revert(run, TRV_HBOOK_BAD_INSTRUMENT);
        }
        return finish_failed(run, err.code && strcmp(err.code, "price_changed") == 0
                                      ? "price_changed" : "book_failed", err.message);
    case TRV_UP_UNAVAILABLE:
        /* The supplier answered an error or could not be reached: it
         * booked nothing. */
        return revert(run, TRV_HBOOK_UNAVAILABLE);
    default:
        /* No answer, or one that is not a booking: the booking may exist.
         * Never sent again: it is read at the supplier. */
        trv_log_msg(run->log, TRV_LOG_WARNING, run->request_id,
                    TRVLOGNO(1439) "hotel booking %s: book at %s: %s (%s): the outcome is "
                    "unknown; reading it at the supplier", run->b->id, run->b->supplier,
                    trv_up_status_name(st), err.message ? err.message : "");
        return move(run, "unknown", NULL, TRV_HBOOK_UNKNOWN);
    }
}

/* ---- confirming, unknown: read at the supplier ---- */

static trv_hbook_outcome step_read(trv_hbook_run *run)
{
    trv_hotel_ctx ctx;
    const trv_hotel_supplier *s = adapter(run, &ctx);
    trv_hotel_booked bk;
    trv_hotel_err err = {0};
    trv_up_status st;
    if (!s || !s->retrieve) {
        return TRV_HBOOK_RETRY;
    }
    st = s->retrieve(&ctx, run->b->supplier_booking_id,
                     trv_hbook_client_reference(run->p, run->b), &bk, &err);
    if (st == TRV_UP_OK) {
        return settle_booked(run, &bk);
    }
    if (st == TRV_UP_NOT_FOUND && !run->b->supplier_booking_id && run->b->phase_due) {
        /* Every call of the step has timed out and the supplier has no
         * booking under the reference: nothing was bought. */
        return finish_failed(run, "book_failed", "The supplier has no record of the booking");
    }
    return TRV_HBOOK_RETRY;
}

trv_hbook_outcome trv_hbook_continue(trv_hbook_run *run)
{
    for (;;) {
        trv_hbook_outcome out;
        const char *phase = run->b->book_phase;
        if (strcmp(run->b->status, "COMPLETE_IN_PROGRESS") != 0 || !phase) {
            return strcmp(run->b->status, "CONFIRMED") == 0 ? TRV_HBOOK_CONFIRMED
                 : strcmp(run->b->status, "FAILED") == 0 ? TRV_HBOOK_FAILED
                                                         : TRV_HBOOK_PENDING;
        }
        if (strcmp(phase, "authorizing") == 0) {
            out = step_authorize(run);
        }
        else if (strcmp(phase, "ordering") == 0) {
            out = step_order(run);
        }
        else {
            out = step_read(run);
            if (out == TRV_HBOOK_RETRY) {
                return strcmp(phase, "unknown") == 0 ? TRV_HBOOK_UNKNOWN : TRV_HBOOK_PENDING;
            }
        }
        if (out != TRV_HBOOK_RETRY) {
            return out;
        }
    }
}
