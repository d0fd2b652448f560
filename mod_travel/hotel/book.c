/* Completing a hotel booking (book.h). Each database step is one short
 * transaction; no connection is held while the supplier or the payment
 * provider is asked. */
#include "book.h"
#include "reply.h"
#include "booked_status.h"
#include "booking_store.h"
#include "enqueue.h"
#include "events.h"
#include "intents.h"
#include "policy.h"
#include "render.h"
#include "core/ids.h"
#include "core/json.h"
#include "core/money.h"

#include <apr_strings.h>
#include <string.h>

int trv_hbook_service_pays(const trv_env *env, const trv_hbooking *b)
{
    return !trv_supplier_can(trv_hotel_supplier_row(env, b->supplier),
                             TRV_SUP_COLLECTS_PAYMENT);
}

apr_interval_time_t trv_hbook_budget(const trv_env *env, const trv_hbooking *b,
                                     trv_hb_phase phase)
{
    if (phase == TRV_HB_PHASE_AUTHORIZING) {
        return trv_hreply_budget(env, b->supplier, 0, 1);
    }
    /* ordering: book, then a read of the booking and the capture; a
     * merchant of record captures nothing, but its book goes through the
     * payment provider's forward, which waits for the supplier as well */
    return trv_hreply_budget(env, b->supplier, 2, 1);
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
    if (trv_hbooking_get_any(c, run->p, run->b->id, &b) != APR_SUCCESS || !b) {
        return db_failed(run, c, 1427, "re-reading after a lost race");
    }
    trv_db_close(run->env->db, c);
    run->b = b;
    if (b->status == TRV_HB_CONFIRMED) {
        return TRV_HBOOK_CONFIRMED;
    }
    if (b->status == TRV_HB_FAILED) {
        return TRV_HBOOK_FAILED;
    }
    if (b->book_phase == TRV_HB_PHASE_UNKNOWN) {
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
        if (pay->status != TRV_PAY_VOIDED) {
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
    if (!pay || pay->status != TRV_PAY_AUTHORIZED || !pay->provider_ref
        || pay->collected_by != TRV_COLLECTOR_SERVICE) {
        return 0;
    }
    if (trv_pay_ctx_init(run->env, run->p, run->request_id, &pc)) {
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

/* ---- authorization intents (intents.h) ---- */

/* What becomes of an authorization intent, written in the same
 * transaction as the booking's move (a step that dies before it leaves
 * the intent PENDING for whoever takes the step over). */
typedef struct settle {
    const char *intent_id;      /* the intent; NULL: the one of by_auth */
    const char *by_auth;        /* the intent whose authorization this is */
    const char *outcome;        /* RESOLVED with it; NULL: UNRESOLVED */
    const char *provider_ref;   /* the authorization, when known */
    apr_interval_time_t after;  /* UNRESOLVED: the release job voids it from then */
} settle;

static apr_status_t apply_settle(trv_hbook_run *run, trv_dbc *c, const settle *s)
{
    const trv_pintent_kind *k = &trv_hotel_intents;
    trv_prelease rel;
    const char *id;
    if (!s) {
        return APR_SUCCESS;
    }
    id = s->intent_id;
    if (!id && s->by_auth) {
        trv_pintent *in = NULL;
        if (trv_pintent_of_auth(k, c, run->p, run->b->id, s->by_auth, &in) != APR_SUCCESS) {
            return APR_EGENERAL;
        }
        id = in ? in->id : NULL;
    }
    if (!id) {
        return APR_SUCCESS;
    }
    if (s->outcome) {
        return trv_pintent_resolved(k, c, run->p, id, s->outcome, s->provider_ref);
    }
    if (trv_pintent_unresolved(k, c, run->p, id, s->provider_ref, s->after, &rel)
        != APR_SUCCESS) {
        return APR_EGENERAL;
    }
    return trv_pintent_schedule(k, c, run->p, &rel, run->request_id);
}

static settle *settled(trv_hbook_run *run, const char *intent_id, const char *outcome,
                       const char *provider_ref, apr_interval_time_t after)
{
    settle *s = apr_pcalloc(run->p, sizeof(*s));
    s->intent_id = intent_id;
    s->outcome = outcome;
    s->provider_ref = provider_ref;
    s->after = after;
    return s;
}

/* The service's authorization of pay after a void: its intent RESOLVED
 * voided, or (the void failed) released by the job at once. NULL when
 * pay is not the service's authorization. */
static settle *after_void(trv_hbook_run *run, const trv_hpayment *pay, int voided)
{
    settle *s;
    if (!pay || pay->status != TRV_PAY_AUTHORIZED || !pay->provider_ref
        || pay->collected_by != TRV_COLLECTOR_SERVICE) {
        return NULL;
    }
    s = settled(run, NULL, voided ? "voided" : NULL, pay->provider_ref, 0);
    s->by_auth = pay->provider_ref;
    return s;
}

/* Takes the authorization intent of this attempt, written before the
 * call: the attempt's own (a takeover of a step whose process died), else
 * the one an unanswered earlier attempt left for this instrument and
 * amount (its key finds the authorization the provider made late, or
 * makes it now: the customer is authorized once), else a new one. Any
 * other unsettled intent of the booking will not be used: released now. */
static trv_hbook_outcome take_intent(trv_hbook_run *run, const trv_money *total,
                                     trv_pintent **in)
{
    const trv_pintent_kind *k = &trv_hotel_intents;
    const trv_hbooking *bk = run->b;
    const char *instrument = bk->payment_instrument_id;
    apr_array_header_t *others;
    trv_dbc *c;
    int held = 0, i;

    *in = NULL;
    if (!begin(run, &c)
        || trv_pintent_lock_step(k, c, run->p, bk->id, run->owner, &held) != APR_SUCCESS) {
        return db_failed(run, c, 1465, "recording the authorization intent");
    }
    if (!held) {
        return lost(run, c);
    }
    if (trv_pintent_own(k, c, run->p, bk->id, bk->book_attempt, in) != APR_SUCCESS
        || (!*in && trv_pintent_reuse(k, c, run->p, bk->id, bk->book_attempt, instrument,
                                      total->currency, bk->total_amount, in) != APR_SUCCESS)
        || (!*in && trv_pintent_insert(k, c, run->p, bk->id, bk->book_attempt, instrument,
                                       total->currency, bk->total_amount, in)
                    != APR_SUCCESS)) {
        return db_failed(run, c, 1465, "recording the authorization intent");
    }
    if (!*in) {
        c->error = "the attempt's authorization key is taken";
        return db_failed(run, c, 1465, "recording the authorization intent");
    }
    if (trv_pintent_release_others(k, c, run->p, bk->id, (*in)->id, &others) != APR_SUCCESS) {
        return db_failed(run, c, 1466, "releasing unused authorization intents");
    }
    for (i = 0; i < others->nelts; i++) {
        if (trv_pintent_schedule(k, c, run->p, &APR_ARRAY_IDX(others, i, trv_prelease),
                                 run->request_id) != APR_SUCCESS) {
            return db_failed(run, c, 1466, "releasing unused authorization intents");
        }
    }
    if (!commit(run, c)) {
        return db_failed(run, c, 1465, "recording the authorization intent");
    }
    if (strcmp((*in)->key, key(run, "authorize")) != 0) {
        trv_log_msg(run->log, TRV_LOG_INFO, run->request_id,
                    TRVLOGNO(1467) "hotel booking %s: authorizing with the unresolved key %s",
                    bk->id, (*in)->key);
    }
    return TRV_HBOOK_RETRY;
}

/* Back to READY_FOR_COMPLETE: the attempt bought nothing (its payment,
 * voided first, goes). s: what becomes of the attempt's intent; NULL: the
 * one of the voided payment. */
static trv_hbook_outcome revert_settled(trv_hbook_run *run, trv_hbook_outcome why,
                                        const settle *s)
{
    trv_dbc *c;
    trv_hbooking *b;
    const trv_hpayment *pay = live_payment(run->b);
    int voided = void_payment(run, pay);
    if (!s) {
        s = after_void(run, pay, voided);
    }
    if (!begin(run, &c)) {
        return db_failed(run, c, 1429, "reverting to READY_FOR_COMPLETE");
    }
    if (trv_hbooking_book_revert(c, run->p, run->b->id, run->owner, &b) != APR_SUCCESS) {
        return db_failed(run, c, 1429, "reverting to READY_FOR_COMPLETE");
    }
    if (!b) {
        return lost(run, c);
    }
    if (apply_settle(run, c, s) != APR_SUCCESS || trv_hrender_keep(c, run->p, b) != APR_SUCCESS
        || !commit(run, c)) {
        return db_failed(run, c, 1429, "reverting to READY_FOR_COMPLETE");
    }
    run->b = b;
    return why;
}

static trv_hbook_outcome revert(trv_hbook_run *run, trv_hbook_outcome why)
{
    return revert_settled(run, why, NULL);
}

/* A failed SDK booking's session goes to the hotel.payment.release job,
 * in the transaction that makes it FAILED: the job cancels the session
 * first (the customer's device can pay it no more; a payment the device
 * made before is named by the cancel), then voids the authorization, and
 * retries until the provider answers. Voiding here first would leave the
 * session payable again. pay_ref: the authorization recorded, or NULL. */
static apr_status_t release_sdk(trv_hbook_run *run, trv_dbc *c, const char *pay_ref)
{
    trv_prelease rel;
    const trv_hbooking *b = run->b;
    if (!b->use_payment_sdk || !b->sdk_token || !b->currency || !b->total_amount) {
        return APR_SUCCESS;
    }
    if (trv_pintent_sdk_release(&trv_hotel_intents, c, run->p, b->id, b->book_attempt,
                                b->currency, b->total_amount, pay_ref, &rel) != APR_SUCCESS) {
        return APR_EGENERAL;
    }
    return trv_pintent_schedule(&trv_hotel_intents, c, run->p, &rel, run->request_id);
}

/* FAILED with failure {code, description}; the authorization voided (an
 * SDK booking's by the release job, after its session is canceled). */
static trv_hbook_outcome finish_failed(trv_hbook_run *run, const char *code,
                                       const char *description)
{
    const trv_hpayment *pay = live_payment(run->b);
    json_t *failure = trv_json_bind(run->p, json_pack(
        "{s:s,s:s}", "code", code ? code : "book_failed", "description",
        description && *description ? description : "The hotel refused the booking"));
    int sdk = run->b->use_payment_sdk && run->b->sdk_token;
    int voided = sdk ? 0 : void_payment(run, pay);
    const char *pay_ref = pay && pay->status == TRV_PAY_AUTHORIZED
                          && pay->collected_by == TRV_COLLECTOR_SERVICE ? pay->provider_ref
                                                                        : NULL;
    trv_dbc *c;
    trv_hbooking *b;
    if (!begin(run, &c)) {
        return db_failed(run, c, 1430, "recording a failed booking");
    }
    if ((voided && trv_hbooking_payment_voided(c, run->p, pay->id) != APR_SUCCESS)
        || (!sdk && apply_settle(run, c, after_void(run, pay, voided)) != APR_SUCCESS)
        || trv_hbooking_book_failed(c, run->p, run->b->id, trv_json_dump(run->p, failure), &b)
           != APR_SUCCESS) {
        return db_failed(run, c, 1430, "recording a failed booking");
    }
    if (b && sdk && release_sdk(run, c, pay_ref) != APR_SUCCESS) {
        return db_failed(run, c, 1469, "releasing the failed booking's SDK session");
    }
    if (!b) {
        return lost(run, c);
    }
    if (trv_hrender_keep(c, run->p, b) != APR_SUCCESS || !commit(run, c)) {
        return db_failed(run, c, 1430, "recording a failed booking");
    }
    run->b = b;
    run->message = trv_json_str(failure, "description");
    trv_log_msg(run->log, TRV_LOG_INFO, run->request_id,
                TRVLOGNO(1431) "hotel booking %s failed: %s", b->id,
                trv_json_dump(run->p, failure));
    return TRV_HBOOK_FAILED;
}

/* The rooms' references and the policy the supplier stated at book (or in
 * the read that confirmed the booking) into cf, in the shape prebook
 * stored its own (policy.h). Taken only whole: when every room of the
 * booking states one; else (an answer without policies, or with other
 * rooms) the prebook's policy stays, rooms and booking alike. */
static void booked_terms(trv_hbook_run *run, const trv_hotel_booked *bk, trv_hconfirmed *cf)
{
    int whole = bk->rooms && bk->cancellation_policy && run->b->rooms
                && json_array_size(bk->rooms) == (size_t)run->b->rooms->nelts;
    json_t *rooms;
    const json_t *r;
    size_t i;
    if (!bk->rooms) {
        return;
    }
    rooms = trv_json_bind(run->p, json_array());
    json_array_foreach(bk->rooms, i, r) {
        json_t *one = json_deep_copy(r);
        json_object_set_new(one, "cancellation_policy",
                            whole ? trv_hotel_policy_doc(json_object_get(r, "cancellation_policy"))
                                  : json_null());
        json_array_append_new(rooms, one);
    }
    cf->rooms = trv_json_dump(run->p, rooms);
    if (whole) {
        cf->cancellation_policy = trv_json_dump(
            run->p, trv_json_bind(run->p, trv_hotel_policy_doc(bk->cancellation_policy)));
    }
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

    if (trv_hbook_service_pays(run->env, run->b) && pay && pay->status == TRV_PAY_AUTHORIZED) {
        trv_pay_ctx pc;
        trv_pay_err err = {0};
        json_t *auth = NULL;
        trv_money total;
        trv_up_status st = TRV_UP_UNAVAILABLE;
        if (trv_hreply_total(run->b, &total)
            && trv_pay_ctx_init(run->env, run->p, run->request_id, &pc)) {
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
    if (!trv_hbook_service_pays(run->env, run->b) && bk->payment) {
        trv_money m;
        const char *why;
        sp.id = trv_id_new(run->p, "pay");
        sp.booking_id = run->b->id;
        sp.status = TRV_PAY_CAPTURED;
        sp.collected_by = TRV_COLLECTOR_SUPPLIER;
        if (trv_money_from_json(json_object_get(bk->payment, "amount"), &m, &why)
            != APR_SUCCESS && !trv_hreply_total(run->b, &m)) {
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
    booked_terms(run, bk, &cf);
    if (!begin(run, &c)) {
        return db_failed(run, c, 1433, "confirming");
    }
    if (trv_hbooking_confirm(c, run->p, run->b->id, &cf, &b) != APR_SUCCESS) {
        return db_failed(run, c, 1433, "confirming");
    }
    if (!b) {
        return lost(run, c);
    }
    if ((captured && trv_hbooking_payment_captured(c, run->p, pay->id,
                                                   card ? trv_json_dump(run->p, card) : NULL)
                     != APR_SUCCESS)
        || (sp.id && trv_hbooking_payment_insert(c, run->p, &sp, &inserted) != APR_SUCCESS)
        || (trv_hbook_service_pays(run->env, run->b) && pay && !captured
            && trv_hjob_enqueue(c, run->p, TRV_HJOB_COMPLETE, run->b->id, run->request_id,
                                apr_time_from_sec(5)) != APR_SUCCESS)) {
        return db_failed(run, c, 1434, "recording the booking's payment");
    }
    /* Read again whole: the payment's change raised the revision. */
    if (trv_hbooking_get_any(c, run->p, run->b->id, &b) != APR_SUCCESS || !b
        || trv_hrender_keep(c, run->p, b) != APR_SUCCESS
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
static trv_hbook_outcome move(trv_hbook_run *run, trv_hb_phase to, const char *booking_id,
                              trv_hbook_outcome then)
{
    trv_dbc *c;
    trv_hbooking *b;
    if (!begin(run, &c)) {
        return db_failed(run, c, 1436, "moving the book step");
    }
    if (trv_hbooking_phase(c, run->p, run->log, run->request_id, run->b->id,
                           run->b->book_phase, run->owner, to, run->owner,
                           trv_hbook_budget(run->env, run->b, TRV_HB_PHASE_ORDERING),
                           booking_id, &b) != APR_SUCCESS) {
        return db_failed(run, c, 1436, "moving the book step");
    }
    if (!b) {
        return lost(run, c);
    }
    if ((to == TRV_HB_PHASE_CONFIRMING || to == TRV_HB_PHASE_UNKNOWN)
        && trv_hjob_enqueue(c, run->p, TRV_HJOB_COMPLETE, b->id, run->request_id,
                            apr_time_from_sec(1)) != APR_SUCCESS) {
        return db_failed(run, c, 1436, "moving the book step");
    }
    if (trv_hrender_keep(c, run->p, b) != APR_SUCCESS || !commit(run, c)) {
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
    trv_pintent *in = NULL;
    int inserted = 0, updated = 1;

    if (!trv_hreply_total(run->b, &total)
        || !trv_pay_ctx_init(run->env, run->p, run->request_id, &pc)) {
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
        /* The intent's key, written before the call: a takeover repeating
         * it, or the next attempt after no answer, finds the same
         * authorization at the provider, never a second one. */
        trv_hbook_outcome out = take_intent(run, &total, &in);
        if (out != TRV_HBOOK_RETRY) {
            return out;
        }
        st = trv_payment_adapter.authorize(&pc, in->instrument, &total, in->key, &auth, &err);
    }
    run->message = err.message;
    switch (st) {
    case TRV_UP_OK:
        break;
    case TRV_UP_DECLINED:
        return revert_settled(run, TRV_HBOOK_DECLINED,
                              in ? settled(run, in->id, "declined", NULL, 0) : NULL);
    case TRV_UP_NOT_FOUND:
    case TRV_UP_REJECTED:
        return revert_settled(run, TRV_HBOOK_BAD_INSTRUMENT,
                              in ? settled(run, in->id, st == TRV_UP_NOT_FOUND ? "not_found"
                                                                              : "rejected",
                                           NULL, 0)
                                 : NULL);
    case TRV_UP_TIMEOUT:
        /* An authorization may exist: the intent keeps its key for the
         * next attempt, or the release job voids what it finds. */
        if (in) {
            trv_log_msg(run->log, TRV_LOG_INFO, run->request_id,
                        TRVLOGNO(1468) "hotel booking %s: authorize %s unanswered: kept for "
                        "the next attempt or released in %" APR_TIME_T_FMT " s", run->b->id,
                        in->key, apr_time_sec(trv_pintent_grace(run->env)));
        }
        return revert_settled(run, TRV_HBOOK_TIMEOUT,
                              in ? settled(run, in->id, NULL, NULL,
                                           trv_pintent_grace(run->env))
                                 : NULL);
    default:
        trv_log_msg(run->log, TRV_LOG_WARNING, run->request_id,
                    TRVLOGNO(1437) "hotel booking %s: payment provider %s: %s", run->b->id,
                    trv_up_status_name(st), err.message ? err.message : "");
        /* An error answer authorized nothing (core/upstream.h); anything
         * else may have: released after the grace. */
        return revert_settled(run, TRV_HBOOK_UNAVAILABLE,
                              !in ? NULL
                              : st == TRV_UP_UNAVAILABLE
                                  ? settled(run, in->id, "unavailable", NULL, 0)
                                  : settled(run, in->id, NULL, NULL,
                                            trv_pintent_grace(run->env)));
    }
    auth_id = trv_json_str(auth, "id");
    status = trv_json_str(auth, "status");
    if (!auth_id || !trv_pay_status_text_is(status, TRV_PAY_AUTHORIZED)) {
        run->message = apr_psprintf(run->p, "the payment's authorization is %s",
                                    status ? status : "unreadable");
        return revert_settled(
            run, run->b->use_payment_sdk ? TRV_HBOOK_NOT_PAID : TRV_HBOOK_UNAVAILABLE,
            !in ? NULL
            : !auth_id || !status
                ? settled(run, in->id, NULL, NULL, trv_pintent_grace(run->env))
                : settled(run, in->id,
                          trv_pay_status_text_is(status, TRV_PAY_VOIDED) ? "voided" : "captured",
                          auth_id, 0));
    }
    memset(&pay, 0, sizeof(pay));
    pay.id = trv_id_new(run->p, "pay");
    pay.booking_id = run->b->id;
    pay.status = TRV_PAY_AUTHORIZED;
    pay.currency = run->b->currency;
    pay.amount = run->b->total_amount;
    pay.collected_by = TRV_COLLECTOR_SERVICE;
    pay.provider_ref = auth_id;
    pay.card = json_is_object(json_object_get(auth, "card")) ? json_object_get(auth, "card")
                                                              : NULL;
    if (!begin(run, &c)) {
        return db_failed(run, c, 1438, "recording the authorization");
    }
    if (trv_hbooking_phase(c, run->p, run->log, run->request_id, run->b->id,
                           TRV_HB_PHASE_AUTHORIZING, run->owner, TRV_HB_PHASE_ORDERING,
                           run->owner,
                           trv_hbook_budget(run->env, run->b, TRV_HB_PHASE_ORDERING), NULL, &b)
        != APR_SUCCESS) {
        return db_failed(run, c, 1438, "recording the authorization");
    }
    if (!b) {
        return lost(run, c);
    }
    if (in && trv_pintent_authorized(&trv_hotel_intents, c, run->p, in->id, auth_id, &updated)
              != APR_SUCCESS) {
        return db_failed(run, c, 1438, "recording the authorization");
    }
    if (!updated) {
        return lost(run, c);
    }
    if (trv_hbooking_payment_insert(c, run->p, &pay, &inserted) != APR_SUCCESS
        || trv_hbooking_get_any(c, run->p, run->b->id, &b) != APR_SUCCESS || !b
        || trv_hrender_keep(c, run->p, b) != APR_SUCCESS || !commit(run, c)) {
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
    const trv_hotel_supplier *s = trv_hreply_supplier(run->env, run->p, run->request_id,
                                                      run->b->supplier, &row, ctx);
    ctx->org_id = run->b->org_id;
    ctx->booking_id = run->b->id;
    return s;
}

static trv_hbook_outcome settle_booked(trv_hbook_run *run, const trv_hotel_booked *bk)
{
    const char *ours = trv_hbook_client_reference(run->p, run->b);
    trv_hbooked_status st;
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
    /* Anything but CONFIRMED or PENDING reads as canceled. */
    st = TRV_HBOOKED_CANCELED;
    (void)trv_hbooked_status_from_text(bk->status, &st);
    switch (st) {
    case TRV_HBOOKED_CONFIRMED:
        return finish_confirmed(run, bk);
    case TRV_HBOOKED_PENDING:
        if (run->b->book_phase == TRV_HB_PHASE_CONFIRMING) {
            return TRV_HBOOK_PENDING;
        }
        return move(run, TRV_HB_PHASE_CONFIRMING, bk->booking_id, TRV_HBOOK_PENDING);
    case TRV_HBOOKED_CANCELED:
        break;
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

    if (!s || !s->book || !party_of(run, &pt) || !trv_hreply_total(run->b, &total)) {
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
    rq.payment_instrument_id = run->b->payment_instrument_id;
    /* One key per booking: the supplier answers a repeat with the same
     * booking. A merchant of record's order carries the card the provider
     * forwards for this attempt's instrument, so each attempt (another
     * instrument after a decline) is an order of its own; the client
     * reference still keeps it to one booking at the supplier. */
    rq.idempotency_key = trv_hbook_service_pays(run->env, run->b)
                             ? apr_pstrcat(run->p, run->b->id, ":book", NULL)
                             : key(run, "book");
    st = s->book(&ctx, &rq, &bk, &err);
    run->message = err.message;
    switch (st) {
    case TRV_UP_OK:
        return settle_booked(run, &bk);
    case TRV_UP_DECLINED:
        if (!trv_hbook_service_pays(run->env, run->b)) {
            /* The merchant of record declined the card: nothing was bought. */
            return revert(run, TRV_HBOOK_DECLINED);
        }
        /* fall through */
    case TRV_UP_REJECTED:
    case TRV_UP_NOT_FOUND:
        if (err.code && strcmp(err.code, "payment_instrument_invalid") == 0) {
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
        return move(run, TRV_HB_PHASE_UNKNOWN, NULL, TRV_HBOOK_UNKNOWN);
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
        trv_hb_phase phase = run->b->book_phase;
        if (run->b->status != TRV_HB_COMPLETING || phase == TRV_HB_PHASE_NONE) {
            return run->b->status == TRV_HB_CONFIRMED ? TRV_HBOOK_CONFIRMED
                 : run->b->status == TRV_HB_FAILED ? TRV_HBOOK_FAILED
                                                   : TRV_HBOOK_PENDING;
        }
        switch (phase) {
        case TRV_HB_PHASE_AUTHORIZING:
            out = step_authorize(run);
            break;
        case TRV_HB_PHASE_ORDERING:
            out = step_order(run);
            break;
        case TRV_HB_PHASE_NONE:
        case TRV_HB_PHASE_CONFIRMING:
        case TRV_HB_PHASE_UNKNOWN:
            out = step_read(run);
            if (out == TRV_HBOOK_RETRY) {
                return phase == TRV_HB_PHASE_UNKNOWN ? TRV_HBOOK_UNKNOWN : TRV_HBOOK_PENDING;
            }
        }
        if (out != TRV_HBOOK_RETRY) {
            return out;
        }
    }
}
